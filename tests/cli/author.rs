//! `memlint new`, `memlint replace`, `memlint show` and `memlint staging
//! add`: records written by command, checked by every rule first, never
//! overwriting, safe when many run at once.

use crate::common;

use common::{memlint, memlint_stdin, workspace, write, Run, BIN};
use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The files below `root/dir`, sorted (hidden ones included).
fn files_in(root: &Path, dir: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root.join(dir))
        .map(|rd| {
            rd.map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn new_writes_a_canonical_record_and_prints_its_path() {
    let ws = workspace("example");
    let body = "Reads go through gix; pushing spawns git.\n";
    let run = memlint_stdin(
        ws.path(),
        &[
            "new",
            "decision",
            "Use gix for git reads",
            "--source",
            "file:docs/bank-api.md",
            "--source",
            "decision:store-amounts-as-integer-minor-units",
            "--tag",
            "git",
            "--tag",
            "no",
            "--date",
            "2026-12-01",
            "--body-file",
            "-",
        ],
        body,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "memory/decisions/use-gix-for-git-reads.md\n");
    assert_eq!(run.stderr, "");
    // The `file:` source is pinned at write, as of today (UTC).
    let today = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .expect("date");
    assert_eq!(
        read(ws.path(), "memory/decisions/use-gix-for-git-reads.md"),
        format!("---\ntitle: Use gix for git reads\nstatus: active\ndate: 2026-12-01\nsources:\n  - file:docs/bank-api.md\n  - decision:store-amounts-as-integer-minor-units\ntags: [git, 'no']\nverified: {today}\npins:\n  - file:docs/bank-api.md xxh3:150b35e7da327d31\n---\n\nReads go through gix; pushing spawns git.\n")
    );
    // What it wrote passes the rules and the formatter.
    let check = memlint(ws.path(), &["check", "--format", "json"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    let fmt = memlint(ws.path(), &["fmt", "--check"]);
    assert_eq!(fmt.code, 0, "{}{}", fmt.stdout, fmt.stderr);
}

#[test]
fn new_fills_in_today_and_the_kind_s_keys() {
    let ws = workspace("example");
    let today = String::from_utf8(
        Command::new("date")
            .args(["-u", "+%Y-%m-%d"])
            .output()
            .expect("date")
            .stdout,
    )
    .expect("utf-8");
    let run = memlint(
        ws.path(),
        &[
            "new",
            "request",
            "Export a yearly CSV",
            "--source",
            "session:4c1e9b2a",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = json(&run);
    assert_eq!(out["written"], true);
    assert_eq!(out["path"], "memory/requests/export-a-yearly-csv.md");
    assert_eq!(out["kind"], "request");
    assert_eq!(out["slug"], "export-a-yearly-csv");
    assert_eq!(out["diagnostics"], serde_json::json!([]));
    assert_eq!(
        read(ws.path(), "memory/requests/export-a-yearly-csv.md"),
        format!(
            "---\ntitle: Export a yearly CSV\nstatus: open\ndate: {}\nsources:\n  - session:4c1e9b2a\n---\n",
            today.trim()
        )
    );
    let knowledge = memlint(
        ws.path(),
        &[
            "new",
            "knowledge",
            "Bank holidays",
            "--description",
            "The bank API is read-only on Japanese bank holidays.",
            "--resident",
            "--source",
            "https://example.com/holidays",
            "--date",
            "2026-12-02",
        ],
    );
    assert_eq!(knowledge.code, 0, "{}", knowledge.stderr);
    assert_eq!(
        read(ws.path(), "knowledge/bank-holidays.md"),
        "---\ntitle: Bank holidays\ndescription: The bank API is read-only on Japanese bank holidays.\nmodel_invocation: true\ndate: 2026-12-02\nsources:\n  - https://example.com/holidays\n---\n"
    );
    let context = memlint(ws.path(), &["context"]);
    assert!(context
        .stdout
        .contains("bank-holidays — The bank API is read-only"));
}

#[test]
fn new_never_overwrites_a_record() {
    let ws = workspace("example");
    let path = "memory/decisions/use-sqlite-statement-cache.md";
    let before = read(ws.path(), path);
    let run = memlint(
        ws.path(),
        &[
            "new",
            "decision",
            "Use SQLite statement cache",
            "--source",
            "file:docs/a.md",
        ],
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains(&format!("{path} already exists")),
        "{}",
        run.stderr
    );
    assert_eq!(read(ws.path(), path), before);
}

#[test]
fn a_near_duplicate_slug_is_refused_naming_the_record_to_update() {
    let ws = workspace("example");
    let args = [
        "new",
        "decision",
        "Use SQLite statement caches",
        "--source",
        "file:docs/bank-api.md",
    ];
    let run = memlint(ws.path(), &args);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("use-sqlite-statement-caches looks like a near-duplicate of `use-sqlite-statement-cache` (memory/decisions/use-sqlite-statement-cache.md); update that record instead"),
        "{}",
        run.stderr
    );
    assert!(!ws
        .path()
        .join("memory/decisions/use-sqlite-statement-caches.md")
        .exists());
    let mut as_json = args.to_vec();
    as_json.extend(["--format", "json"]);
    let out = json(&memlint(ws.path(), &as_json));
    assert_eq!(out["written"], false);
    assert_eq!(
        out["similar"],
        serde_json::json!([{"slug": "use-sqlite-statement-cache", "path": "memory/decisions/use-sqlite-statement-cache.md"}])
    );
    let mut forced = args.to_vec();
    forced.push("--force");
    let run = memlint(ws.path(), &forced);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "memory/decisions/use-sqlite-statement-caches.md\n"
    );
}

#[test]
fn any_error_refuses_the_write_with_the_rules_diagnostics() {
    let ws = workspace("example");
    let run = memlint(
        ws.path(),
        &[
            "new",
            "decision",
            "Cache statements",
            "--source",
            "docs/a.md",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 1);
    let out = json(&run);
    assert_eq!(out["written"], false);
    assert_eq!(out["path"], "memory/decisions/cache-statements.md");
    let d = &out["diagnostics"][0];
    assert_eq!(
        (&d["rule"], &d["line"], &d["column"], &d["severity"]),
        (
            &"sources/format".into(),
            &6.into(),
            &5.into(),
            &"error".into()
        )
    );
    assert!(!ws
        .path()
        .join("memory/decisions/cache-statements.md")
        .exists());

    // Human output renders them as `check` does, on standard error.
    let run = memlint(ws.path(), &["new", "decision", "Cache statements"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("sources/missing"), "{}", run.stderr);
    assert!(run.stderr.contains("nothing was written"), "{}", run.stderr);

    // Knowledge needs its description.
    let run = memlint(
        ws.path(),
        &[
            "new",
            "knowledge",
            "Retry budget",
            "--source",
            "file:docs/bank-api.md",
        ],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("frontmatter/required"),
        "{}",
        run.stderr
    );

    // A dangling replaced_by target or a cross-record error refuses too.
    let run = memlint(
        ws.path(),
        &[
            "new",
            "decision",
            "Cache statements",
            "--source",
            "file:docs/bank-api.md",
            "--replaces",
            "no-such-decision",
        ],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("there is no decision `no-such-decision` to replace"),
        "{}",
        run.stderr
    );
    assert_eq!(files_in(ws.path(), "memory/decisions").len(), 4);
}

#[test]
fn a_secret_in_the_body_is_refused_without_echoing_it() {
    let ws = workspace("example");
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let run = memlint_stdin(
        ws.path(),
        &[
            "new",
            "decision",
            "Use a token for the bank",
            "--source",
            "file:docs/bank-api.md",
            "--body-file",
            "-",
        ],
        format!("The token is {secret}.\n"),
    );
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("secrets/detected"), "{}", run.stderr);
    assert!(!run.stderr.contains(secret) && !run.stdout.contains(secret));
    assert!(!ws
        .path()
        .join("memory/decisions/use-a-token-for-the-bank.md")
        .exists());
}

#[test]
fn warnings_are_written_and_reported() {
    let ws = workspace("example");
    let run = memlint_stdin(
        ws.path(),
        &[
            "new",
            "decision",
            "Rotate the token",
            "--source",
            "file:docs/missing.md",
            "--body-file",
            "-",
            "--format",
            "json",
        ],
        "We rotated it yesterday.\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = json(&run);
    let rules: Vec<&str> = out["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["rule"].as_str().expect("rule"))
        .collect();
    assert_eq!(rules, ["sources/dangling", "date/relative"]);
    assert!(ws
        .path()
        .join("memory/decisions/rotate-the-token.md")
        .exists());
}

#[test]
fn bad_input_gets_a_clear_error_and_no_file() {
    let ws = workspace("example");
    let long = "word ".repeat(400);
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["new", "decision", "", "--source", "file:a"],
            2,
            "the title is empty",
        ),
        (
            &["new", "decision", "  \t ", "--source", "file:a"],
            2,
            "the title is empty",
        ),
        (
            &["new", "decision", "?!... --", "--source", "file:a"],
            2,
            "give one with --slug",
        ),
        (
            &["new", "decision", "日本語のタイトル", "--source", "file:a"],
            2,
            "give one with --slug",
        ),
        (
            &["new", "decision", &long, "--source", "file:a"],
            1,
            "frontmatter/type",
        ),
        (
            &["new", "decision", "Title", "--source", "bogus"],
            1,
            "sources/format",
        ),
        (
            &[
                "new",
                "decision",
                "Title",
                "--source",
                "file:a",
                "--date",
                "yesterday",
            ],
            2,
            "--date yesterday: not an absolute date",
        ),
        (
            &[
                "new",
                "decision",
                "Title",
                "--source",
                "file:a",
                "--date",
                "2026-02-30",
            ],
            2,
            "not an absolute date",
        ),
        (
            &[
                "new",
                "decision",
                "Title",
                "--source",
                "file:a",
                "--slug",
                "../escape",
            ],
            2,
            "is not a slug",
        ),
        (
            &[
                "new", "decision", "Title", "--source", "file:a", "--slug", "a/b",
            ],
            2,
            "is not a slug",
        ),
        (
            &["new", "decision", "Two\nlines", "--source", "file:a"],
            2,
            "the title must be one line",
        ),
        (&["new", "summary", "Title"], 2, "invalid value"),
    ];
    for (args, code, says) in cases {
        let run = memlint(ws.path(), args);
        assert_eq!(run.code, *code, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
    }
    assert_eq!(files_in(ws.path(), "memory/decisions").len(), 4);
    assert!(!ws.path().join("memory/escape.md").exists());
    // A Japanese title with a slug is fine.
    let run = memlint(
        ws.path(),
        &[
            "new",
            "decision",
            "日本語のタイトル",
            "--slug",
            "japanese-title",
            "--source",
            "file:docs/bank-api.md",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[cfg(unix)]
#[test]
fn a_kind_directory_that_leads_out_of_the_root_is_never_written() {
    let ws = workspace("example");
    let outside = tempfile::tempdir().expect("tempdir");
    fs::remove_dir_all(ws.path().join("memory/requests")).expect("rm");
    std::os::unix::fs::symlink(outside.path(), ws.path().join("memory/requests")).expect("link");
    let run = memlint(
        ws.path(),
        &[
            "new",
            "request",
            "Leak",
            "--source",
            "file:docs/bank-api.md",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("memory/requests leads out of the workspace root"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_dir(outside.path()).expect("ls").count(), 0);
}

#[test]
fn sixteen_concurrent_news_of_one_title_make_one_record() {
    let ws = workspace("example");
    let children: Vec<_> = (0..16)
        .map(|_| {
            Command::new(BIN)
                .args([
                    "new",
                    "decision",
                    "Batch the bank sync",
                    "--source",
                    "file:docs/bank-api.md",
                ])
                .current_dir(ws.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let outs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    let written = outs.iter().filter(|o| o.status.code() == Some(0)).count();
    assert_eq!(written, 1);
    for o in outs.iter().filter(|o| o.status.code() != Some(0)) {
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("already exists"), "{err}");
    }
    assert_eq!(
        files_in(ws.path(), "memory/decisions")
            .iter()
            .filter(|n| n.contains("batch-the-bank-sync"))
            .count(),
        1
    );
    assert_eq!(memlint(ws.path(), &["check", "-q"]).code, 0);
}

#[cfg(unix)]
#[test]
fn a_killed_new_leaves_nothing_or_a_whole_record() {
    let ws = workspace("example");
    let path = ws.path().join("memory/decisions/survive-a-kill.md");
    let mut whole = None;
    for i in 0..24u64 {
        let mut child = Command::new(BIN)
            .args([
                "new",
                "decision",
                "Survive a kill",
                "--source",
                "file:docs/bank-api.md",
                "--date",
                "2026-12-01",
            ])
            .current_dir(ws.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_micros(i * 700));
        let _ = child.kill();
        let _ = child.wait();
        if let Ok(text) = fs::read_to_string(&path) {
            let want = whole.get_or_insert_with(|| text.clone());
            assert_eq!(&text, want);
            assert!(
                text.ends_with("---\n") && text.contains("sources:"),
                "{text}"
            );
            fs::remove_file(&path).expect("rm");
        }
    }
    let run = memlint(ws.path(), &["check", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[test]
fn replace_marks_the_old_record_and_retargets_what_pointed_at_it() {
    let ws = workspace("example");
    // use-float-amounts is replaced by store-amounts-as-integer-minor-units.
    write(
        ws.path(),
        "memory/decisions/keep-amounts-in-minor-units.md",
        "---\ntitle: Keep amounts in minor units\nstatus: active\ndate: 2026-12-01\nsources:\n  - decision:store-amounts-as-integer-minor-units\n---\n",
    );
    let run = memlint(
        ws.path(),
        &[
            "replace",
            "store-amounts-as-integer-minor-units",
            "keep-amounts-in-minor-units",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "memory/decisions/store-amounts-as-integer-minor-units.md is now replaced by memory/decisions/keep-amounts-in-minor-units.md\nmemory/decisions/use-float-amounts.md now points at memory/decisions/keep-amounts-in-minor-units.md\n"
    );
    let old = read(
        ws.path(),
        "memory/decisions/store-amounts-as-integer-minor-units.md",
    );
    assert!(old.contains("\nstatus: replaced\n"), "{old}");
    assert!(
        old.contains("\nreplaced_by: keep-amounts-in-minor-units\n"),
        "{old}"
    );
    let chained = read(ws.path(), "memory/decisions/use-float-amounts.md");
    assert!(
        chained.contains("\nreplaced_by: keep-amounts-in-minor-units\n"),
        "{chained}"
    );
    // No chain, no error, and the formatter has nothing to do.
    let check = memlint(ws.path(), &["check", "--format", "json"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    assert!(!check.stdout.contains("status/chain"), "{}", check.stdout);
    assert_eq!(memlint(ws.path(), &["fmt", "--check"]).code, 0);
    // Again: nothing to do.
    let again = memlint(
        ws.path(),
        &[
            "replace",
            "store-amounts-as-integer-minor-units",
            "keep-amounts-in-minor-units",
            "--format",
            "json",
        ],
    );
    assert_eq!(again.code, 0);
    assert_eq!(json(&again)["changed"], false);
}

#[test]
fn replace_refuses_loops_and_replaced_targets() {
    let ws = workspace("example");
    let before: Vec<String> = files_in(ws.path(), "memory/decisions")
        .iter()
        .map(|n| read(ws.path(), &format!("memory/decisions/{n}")))
        .collect();
    // store-amounts… replaces use-float-amounts: the other way is a loop.
    let run = memlint(
        ws.path(),
        &[
            "replace",
            "store-amounts-as-integer-minor-units",
            "use-float-amounts",
        ],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("would close a loop of replaced_by: `use-float-amounts` → `store-amounts-as-integer-minor-units` → `use-float-amounts`"),
        "{}",
        run.stderr
    );
    let run = memlint(
        ws.path(),
        &["replace", "use-sqlite-statement-cache", "use-float-amounts"],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("`use-float-amounts` is itself replaced (`use-float-amounts` → `store-amounts-as-integer-minor-units`); replace `use-sqlite-statement-cache` with the current record `store-amounts-as-integer-minor-units`"),
        "{}",
        run.stderr
    );
    let run = memlint(
        ws.path(),
        &[
            "replace",
            "use-sqlite-statement-cache",
            "use-sqlite-statement-cache",
        ],
    );
    assert_eq!(run.code, 1);
    let run = memlint(
        ws.path(),
        &["replace", "nothing-here", "use-sqlite-statement-cache"],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("no decision, request or knowledge record named `nothing-here`"),
        "{}",
        run.stderr
    );
    let after: Vec<String> = files_in(ws.path(), "memory/decisions")
        .iter()
        .map(|n| read(ws.path(), &format!("memory/decisions/{n}")))
        .collect();
    assert_eq!(before, after);
}

#[test]
fn new_replaces_does_both_in_one_step_and_a_replaced_near_duplicate_is_fine() {
    let ws = workspace("example");
    let run = memlint(
        ws.path(),
        &[
            "new",
            "decision",
            "Use SQLite statement cache v2",
            "--source",
            "decision:use-sqlite-statement-cache",
            "--replaces",
            "use-sqlite-statement-cache",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = json(&run);
    assert_eq!(
        out["path"],
        "memory/decisions/use-sqlite-statement-cache-v2.md"
    );
    assert_eq!(
        out["replaced"],
        "memory/decisions/use-sqlite-statement-cache.md"
    );
    let old = read(ws.path(), "memory/decisions/use-sqlite-statement-cache.md");
    assert!(
        old.contains("\nreplaced_by: use-sqlite-statement-cache-v2\n"),
        "{old}"
    );
    // One replaces the other, as slug/similar advises: no warning, in check
    // or in the report.
    let check = memlint(ws.path(), &["check", "--format", "json"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    assert!(!check.stdout.contains("slug/similar"), "{}", check.stdout);
    let report = json(&memlint(ws.path(), &["report", "--format", "json"]));
    assert_eq!(report["similar_slugs"], serde_json::json!([]));
    let shown = json(&memlint(
        ws.path(),
        &["show", "use-sqlite-statement-cache-v2", "--format", "json"],
    ));
    assert_eq!(
        shown["replaced_by_this"],
        serde_json::json!(["memory/decisions/use-sqlite-statement-cache.md"])
    );
    // Two active near-duplicates still are one.
    let forced = memlint(
        ws.path(),
        &[
            "new",
            "decision",
            "Use SQLite statement cache v3",
            "--source",
            "file:docs/bank-api.md",
            "--force",
        ],
    );
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    let check = memlint(ws.path(), &["check", "--format", "json"]);
    assert!(check.stdout.contains("slug/similar"), "{}", check.stdout);
    let report = json(&memlint(ws.path(), &["report", "--format", "json"]));
    assert_eq!(
        report["similar_slugs"],
        serde_json::json!([[
            "use-sqlite-statement-cache-v2",
            "use-sqlite-statement-cache-v3"
        ]])
    );
}

#[test]
fn show_gives_fields_body_and_what_points_at_the_record() {
    let ws = workspace("example");
    let run = memlint(
        ws.path(),
        &[
            "show",
            "store-amounts-as-integer-minor-units",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = json(&run);
    assert_eq!(
        out["path"],
        "memory/decisions/store-amounts-as-integer-minor-units.md"
    );
    assert_eq!(out["kind"], "decision");
    assert_eq!(
        out["fields"]["title"],
        "Store amounts as integer minor units"
    );
    assert_eq!(
        out["fields"]["tags"],
        serde_json::json!(["money", "storage"])
    );
    assert!(out["body"].as_str().expect("body").contains("## Decision"));
    assert_eq!(
        out["replaced_by_this"],
        serde_json::json!(["memory/decisions/use-float-amounts.md"])
    );
    assert!(out["cited_by"]
        .as_array()
        .expect("cited_by")
        .contains(&"memory/requests/show-amounts-in-yen.md".into()));
    // By path and by kind:slug, the same record.
    for target in [
        "memory/decisions/store-amounts-as-integer-minor-units.md",
        "decision:store-amounts-as-integer-minor-units",
    ] {
        let again = json(&memlint(ws.path(), &["show", target, "--format", "json"]));
        assert_eq!(again, out);
    }
    let human = memlint(ws.path(), &["show", "store-amounts-as-integer-minor-units"]);
    assert!(human.stdout.starts_with(
        "memory/decisions/store-amounts-as-integer-minor-units.md (decision store-amounts-as-integer-minor-units)\n"
    ));
    assert!(human
        .stdout
        .contains("\n> replaces: memory/decisions/use-float-amounts.md\n"));
    let missing = memlint(ws.path(), &["show", "no-such-record"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("no record named `no-such-record`"));
}

#[test]
fn staging_add_writes_valid_entries_under_fresh_ids_in_parallel() {
    let ws = workspace("example");
    let before = files_in(ws.path(), "staging").len();
    let children: Vec<_> = (0..16)
        .map(|i| {
            let mut c = Command::new(BIN)
                .args([
                    "staging",
                    "add",
                    "--source",
                    "session:abc",
                    "--body-file",
                    "-",
                    "--format",
                    "json",
                ])
                .current_dir(ws.path())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn");
            c.stdin
                .take()
                .expect("stdin")
                .write_all(format!("- step {i}\n").as_bytes())
                .expect("write");
            c
        })
        .collect();
    let mut ids = Vec::new();
    for c in children {
        let out = c.wait_with_output().expect("wait");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        ids.push(v["id"].as_str().expect("id").to_string());
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 16);
    assert_eq!(files_in(ws.path(), "staging").len(), before + 16);
    let text = read(ws.path(), &format!("staging/{}.md", ids[0]));
    assert!(text.starts_with(&format!(
        "---\nid: {}\nsource: session:abc\ncreated: ",
        ids[0]
    )));
    let check = memlint(ws.path(), &["check", "--format", "json"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    let empty = memlint(ws.path(), &["staging", "add", "--source", " "]);
    assert_eq!(empty.code, 2);
}

#[test]
fn a_replacement_is_no_near_duplicate_in_the_git_modes_either() {
    let ws = workspace("example");
    common::commit_all(ws.path());
    let run = memlint(
        ws.path(),
        &[
            "new",
            "decision",
            "Use SQLite statement cache v2",
            "--source",
            "decision:use-sqlite-statement-cache",
            "--replaces",
            "use-sqlite-statement-cache",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    common::git(ws.path(), &["add", "-A"]);
    let staged = memlint(ws.path(), &["check", "--staged", "--format", "json"]);
    assert_eq!(staged.code, 0, "{}", staged.stdout);
    assert!(!staged.stdout.contains("slug/similar"), "{}", staged.stdout);
    common::git(
        ws.path(),
        &["commit", "-q", "-m", "Replace the statement cache decision"],
    );
    let base = memlint(
        ws.path(),
        &["check", "--base", "HEAD~1", "--format", "json"],
    );
    assert!(!base.stdout.contains("slug/similar"), "{}", base.stdout);
}

#[test]
fn replace_leaves_a_record_it_cannot_read_alone_and_says_why() {
    let ws = workspace("example");
    let broken = "---\ntitle: Broken: yes: no\nstatus: active\n---\n\nBody.\n";
    write(ws.path(), "memory/decisions/broken-record.md", broken);
    let run = memlint(
        ws.path(),
        &["replace", "broken-record", "use-sqlite-statement-cache"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("memory/decisions/broken-record.md: its front matter cannot be read; repair it first (`memlint check memory/decisions/broken-record.md` shows what is wrong)"),
        "{}",
        run.stderr
    );
    assert_eq!(read(ws.path(), "memory/decisions/broken-record.md"), broken);
}

#[test]
fn a_body_over_the_size_limit_is_refused_before_it_is_written() {
    let ws = workspace("example");
    write(ws.path(), ".memlint.yml", "max_file_bytes: 2000\n");
    let body = "word ".repeat(1000);
    for args in [
        &[
            "new",
            "decision",
            "A long one",
            "--source",
            "file:docs/bank-api.md",
            "--body-file",
            "-",
        ][..],
        &[
            "staging",
            "add",
            "--source",
            "session:abc",
            "--body-file",
            "-",
        ][..],
    ] {
        let before =
            files_in(ws.path(), "staging").len() + files_in(ws.path(), "memory/decisions").len();
        let run = memlint_stdin(ws.path(), args, &body);
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("format/too-large"), "{}", run.stderr);
        let after =
            files_in(ws.path(), "staging").len() + files_in(ws.path(), "memory/decisions").len();
        assert_eq!(before, after, "{args:?}");
    }
}

#[test]
fn new_compares_short_records_on_their_word_pairs_exactly() {
    // 24 of the two bodies' 31 word pairs are the same (0.77): not a copy
    // at the default 0.85, though their sketches estimate 0.92. Without a
    // stored table `new` reads every decision; after a check and a first
    // `new` it reads the kind's stored rows, the other record's word pairs
    // among them.
    let five = "Product pages are cached at the CDN for five minutes and purged by surrogate \
                key whenever a price changes so the origin serves only misses.\n";
    let ten = "Product pages are cached at the CDN for ten minutes and purged by surrogate \
               key whenever a price changes so the origin serves only cold requests.\n";
    let new = |ws: &Path, slug: &str, body: &str| {
        std::fs::write(ws.join("body.md"), body).expect("body");
        memlint(
            ws,
            &[
                "new",
                "decision",
                "Cache product pages at the CDN",
                "--slug",
                slug,
                "--source",
                "file:docs/bank-api.md",
                "--body-file",
                "body.md",
            ],
        )
    };
    for stored in [false, true] {
        let ws = workspace("example");
        let run = new(ws.path(), "cache-for-five-minutes", five);
        assert_eq!(run.code, 0, "{}", run.stderr);
        if stored {
            // A row is used only for a file written over two seconds
            // before it was read (else it is read again).
            std::thread::sleep(std::time::Duration::from_millis(2100));
            assert_eq!(memlint(ws.path(), &["check"]).code, 0);
            let run = new(
                ws.path(),
                "keep-the-ledger-offline",
                "The ledger is kept offline.\n",
            );
            assert_eq!(run.code, 0, "{}", run.stderr);
            assert!(ws.path().join(".memlint/kind.decision").is_file());
        }
        let run = new(ws.path(), "cache-for-ten-minutes", ten);
        assert_eq!(run.code, 0, "stored {stored}: {}", run.stderr);
        assert!(ws
            .path()
            .join("memory/decisions/cache-for-ten-minutes.md")
            .is_file());
        // A true copy is still refused, and how alike is exact.
        let run = new(ws.path(), "cache-for-ten-minutes-again", ten);
        assert_eq!(run.code, 1, "stored {stored}: {}", run.stdout);
        assert!(
            run.stderr
                .contains("(memory/decisions/cache-for-ten-minutes.md, 100% alike)"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_record_saying_nearly_the_same_as_an_active_one_is_refused_unless_forced() {
    // The title and body of use-sqlite-statement-cache under another slug:
    // no slug is alike, the content is.
    let ws = workspace("example");
    let body = "The statement cache is one SQLite database under `~/.local/share/ledgerd/`,\n\
                opened in WAL mode so the exporter can read while a sync writes.\n\n\
                Alternatives considered: a directory of JSON files (no transactions, slow\n\
                lookups by date) and an embedded key-value store (no ad-hoc queries for the\n\
                monthly export).\n";
    std::fs::write(ws.path().join("body.md"), body).expect("body");
    let args = [
        "new",
        "decision",
        "Use SQLite with WAL for the statement cache",
        "--slug",
        "statement-cache-in-wal-sqlite",
        "--source",
        "file:docs/bank-api.md",
        "--body-file",
        "body.md",
    ];
    let path = "memory/decisions/statement-cache-in-wal-sqlite.md";
    let run = memlint(ws.path(), &args);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("statement-cache-in-wal-sqlite says nearly the same as `use-sqlite-statement-cache` (memory/decisions/use-sqlite-statement-cache.md, "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("update that record instead, or write this one with --replaces use-sqlite-statement-cache if it supersedes it (or give --force to write it anyway)"),
        "{}",
        run.stderr
    );
    assert!(!ws.path().join(path).exists());
    let mut as_json = args.to_vec();
    as_json.extend(["--format", "json"]);
    let out = json(&memlint(ws.path(), &as_json));
    assert_eq!(out["written"], false);
    // How alike, as the human message and MCP say it.
    let alike = out["similar"][0]["alike"].as_u64().expect("alike");
    assert!(
        run.stderr.contains(&format!("{alike}% alike")) && (85..=100).contains(&alike),
        "{alike}: {}",
        run.stderr
    );
    assert_eq!(
        out["similar"],
        serde_json::json!([{"slug": "use-sqlite-statement-cache", "path": "memory/decisions/use-sqlite-statement-cache.md", "alike": alike}])
    );
    // Replacing the record it repeats is what the message advises.
    let mut replacing = args.to_vec();
    replacing.extend(["--replaces", "use-sqlite-statement-cache"]);
    let run = memlint(ws.path(), &replacing);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(ws.path().join(path).exists());
    // Now that the copy is in force, another copy is refused naming it,
    // and written with --force.
    let mut again = args.to_vec();
    again[4] = "wal-sqlite-for-statements";
    let run = memlint(ws.path(), &again);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains(&format!(
            "says nearly the same as `statement-cache-in-wal-sqlite` ({path}, "
        )),
        "{}",
        run.stderr
    );
    again.push("--force");
    let run = memlint(ws.path(), &again);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "memory/decisions/wal-sqlite-for-statements.md\n"
    );
}

/// A slug several kinds share: the command line says which flag picks the
/// kind, in the words it always had.
#[test]
fn replace_of_a_slug_of_several_kinds_asks_for_the_kind_flag() {
    let ws = workspace("example");
    let record =
        "---\ntitle: Tabs\ndate: 2026-11-01\nstatus: active\nsources: [file:CONTEXT.md]\n---\nx\n";
    write(ws.path(), "memory/decisions/tabs-everywhere.md", record);
    write(ws.path(), "memory/requests/tabs-everywhere.md", record);
    let run = memlint(ws.path(), &["replace", "tabs-everywhere", "other"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "memlint: error: `tabs-everywhere` names records of several kinds; say which with --kind\n"
    );
    let run = memlint(
        ws.path(),
        &["replace", "tabs-everywhere", "other", "--format", "json"],
    );
    assert_eq!(
        json(&run)["error"],
        "`tabs-everywhere` names records of several kinds; say which with --kind"
    );
}

/// Eight agents writing the same note at once under eight unrelated
/// slugs: `new` refuses a record that says nearly the same as an active
/// one, so one is written and seven are told which record already says it.
#[test]
fn eight_concurrent_news_of_one_body_make_one_record() {
    let ws = workspace("example");
    let body = "The ledger exporter batches statement lines by settlement day, flushes\n\
                every five hundred lines, and retries a failed flush twice before the\n\
                sync gives up and leaves the batch for the next run to pick up.\n";
    std::fs::write(ws.path().join("body.md"), body).expect("body");
    let slugs = [
        "amber-harbour",
        "birch-lantern",
        "cobalt-meadow",
        "dune-orchid",
        "ember-quarry",
        "fjord-willow",
        "garnet-tundra",
        "hazel-voyage",
    ];
    let children: Vec<_> = slugs
        .iter()
        .map(|slug| {
            Command::new(BIN)
                .args([
                    "new",
                    "decision",
                    "Batch exporter lines by settlement day",
                    "--slug",
                    slug,
                    "--source",
                    "file:docs/bank-api.md",
                    "--body-file",
                    "body.md",
                ])
                .current_dir(ws.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let outs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    let written = outs.iter().filter(|o| o.status.code() == Some(0)).count();
    let errs: Vec<String> = outs
        .iter()
        .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        .collect();
    assert_eq!(written, 1, "{errs:#?}");
    for (o, err) in outs.iter().zip(&errs) {
        if o.status.code() != Some(0) {
            assert_eq!(o.status.code(), Some(1), "{err}");
            assert!(err.contains("says nearly the same as `"), "{err}");
        }
    }
    let before = files_in(&common::fixture("example"), "memory/decisions").len();
    assert_eq!(files_in(ws.path(), "memory/decisions").len(), before + 1);
}
