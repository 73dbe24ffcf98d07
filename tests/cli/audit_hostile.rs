//! Hostile input through every command: alias bombs, huge clusters of
//! similar slugs, files with a great many diagnostics, tabs used as
//! indentation, CR line endings and complex keys. Each test is named after
//! the defect it guards against and runs the real binary; the heavy ones
//! run it under a 1 GiB address-space limit and a 60 s timeout, so that a
//! blow-up shows as a failed test, not as a machine out of memory.

use crate::common;

use common::{git, memlint, write, Memlint, Run};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The address space a bounded run may take: far above what memlint needs
/// on these inputs, far below what a blow-up takes.
const MEMORY_LIMIT: u64 = 1 << 30;
/// How long a bounded run may take before it counts as a hang.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `memlint ARGS` in `dir` with `stdin`, under [`MEMORY_LIMIT`] of
/// address space, killed after [`TIMEOUT`]. An abort (out of memory) gives
/// code -1, a timeout fails the test.
fn bounded(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut cmd = Memlint::new(dir).args(args).stdin(stdin).timeout(TIMEOUT);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setrlimit is async-signal-safe; nothing else runs between
        // fork and exec.
        unsafe {
            cmd.command().pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: MEMORY_LIMIT as libc::rlim_t,
                    rlim_max: MEMORY_LIMIT as libc::rlim_t,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd.run()
}

/// `check --format json` of `dir`, parsed.
fn check_json(dir: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["check", "--format", "json"];
    args.extend_from_slice(extra);
    let run = memlint(dir, &args);
    let json = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", run.stdout, run.stderr));
    (run.code, json)
}

/// The diagnostics of `json` as (rule, path, line, column, message).
fn located(json: &Value) -> Vec<(String, String, u64, u64, String)> {
    json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or("").to_string(),
                d["path"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// A valid decision record whose front matter ends with `extra`.
fn decision(extra: &str) -> String {
    format!(
        "---\ntitle: A decision\nstatus: active\ndate: 2026-01-01\nsources:\n  - https://example.com/a\n{extra}---\nBody.\n"
    )
}

/// A workspace (a git repository) with one valid decision beside what the
/// test adds.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    write(dir.path(), "memory/decisions/plain.md", &decision(""));
    dir
}

// ---------------------------------------------------------------- item 3

/// The audit's record: a 500,000-character string anchored once and
/// aliased 19,000 times (576 KB on disk, gigabytes expanded). The first
/// alias is within the budget (the document's own size); the second is not.
fn string_alias_bomb() -> String {
    let mut extra = format!("big: &a \"{}\"\nlist:\n", "x".repeat(500_000));
    extra.push_str(&"  - *a\n".repeat(19_000));
    decision(&extra)
}

#[test]
fn string_alias_bomb_is_refused_by_every_command_in_bounded_memory() {
    let ws = workspace();
    let root = ws.path();
    let rel = "memory/decisions/bomb.md";
    write(root, rel, &string_alias_bomb());
    let before = std::fs::read(root.join(rel)).expect("read");
    let refused = |message: &str| {
        message.starts_with("front matter refused: aliases repeat more than")
            && message.contains("(an alias bomb?)")
    };

    let run = bounded(root, &["check", "--format", "json"], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let found = located(&json);
    assert_eq!(found.len(), 1, "{found:?}");
    let (rule, path, line, column, message) = &found[0];
    // Line 10 holds the second `- *a`, column 5 its `*`.
    assert_eq!(
        (rule.as_str(), path.as_str(), *line, *column),
        ("frontmatter/parse", rel, 10, 5)
    );
    assert!(refused(message), "{message}");

    let run = bounded(root, &["check"], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("frontmatter/parse"), "{}", run.stdout);

    let run = bounded(root, &["fmt"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("{rel}: left as it is")),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(root.join(rel)).expect("read"), before);

    let run = bounded(
        root,
        &["fmt", "--stdin-filepath", rel],
        &string_alias_bomb(),
    );
    assert_ne!(run.code, -1, "{}", run.stderr);

    for args in [
        &["index"][..],
        &["search", "decision"],
        &["search", "--format", "json", "xxxx"],
        &["context"],
    ] {
        let run = bounded(root, args, "");
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    }

    let run = bounded(root, &["report", "--format", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let found = located(&json);
    assert_eq!(
        found
            .iter()
            .map(|(r, p, l, c, _)| (r.as_str(), p.as_str(), *l, *c))
            .collect::<Vec<_>>(),
        vec![("frontmatter/parse", rel, 10, 5)]
    );

    let run = bounded(root, &["hook", "stop"], r#"{"hook_event_name":"Stop"}"#);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = bounded(
        root,
        &["hook", "session-start"],
        r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let post = format!(
        r#"{{"tool_name":"Write","tool_input":{{"file_path":"{}"}}}}"#,
        root.join(rel).display()
    );
    let run = bounded(root, &["hook", "post-write"], &post);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("frontmatter/parse"), "{}", run.stderr);

    git(root, &["add", "-A"]);
    let run = bounded(root, &["check", "--staged", "--format", "json"], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("(an alias bomb?)"), "{}", run.stdout);

    // compact reads the front matter of stored sessions itself.
    let session = string_alias_bomb().replace(
        "title: A decision\nstatus: active\ndate: 2026-01-01\n",
        "id: CMEM-20260101-000000\ncreated: 2026-01-01T00:00:00Z\nproject_root: /x\n",
    );
    write(root, "memory/sessions/CMEM-20260101-000000.md", &session);
    let run = bounded(root, &["compact", "list"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "CMEM-20260101-000000.md: skipped: the front matter does not parse: aliases repeat more than"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn string_alias_bomb_in_the_configuration_is_refused_with_its_location() {
    let ws = workspace();
    let root = ws.path();
    let mut config = format!(
        "context: {{header: &h \"{}\"}}\nbanned_dirs:\n",
        "x".repeat(500_000)
    );
    config.push_str(&"  - *h\n".repeat(19_000));
    write(root, ".memlint.yml", &config);
    for args in [&["check"][..], &["search", "x"], &["context"], &["report"]] {
        let run = bounded(root, args, "");
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(".memlint.yml:4:5: invalid YAML: aliases repeat more than"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn aliases_repeating_a_little_text_are_still_read() {
    // The budget is the document's own size, and at least 64 KiB: a few
    // aliases of a sentence are ordinary YAML.
    let ws = workspace();
    let root = ws.path();
    let sentence = "a sentence worth repeating ".repeat(40);
    let mut extra = format!("note: &n \"{sentence}\"\nagain:\n");
    extra.push_str(&"  - *n\n".repeat(50));
    write(root, "memory/decisions/aliases.md", &decision(&extra));
    let (code, json) = check_json(root, &[]);
    assert_eq!(code, 0);
    let rules: Vec<String> = located(&json).into_iter().map(|d| d.0).collect();
    assert_eq!(
        rules,
        vec!["frontmatter/unknown-key", "frontmatter/unknown-key"]
    );
}

// ---------------------------------------------------------------- item 4

/// Writes decisions `note-0` … `note-{n-1}`.
fn notes(root: &Path, n: usize) {
    for i in 0..n {
        write(
            root,
            &format!("memory/decisions/note-{i}.md"),
            &decision(""),
        );
    }
}

#[test]
fn similar_slug_messages_name_a_few_members_and_count_the_rest() {
    let ws = workspace();
    let root = ws.path();
    notes(root, 30);
    let (code, json) = check_json(root, &[]);
    assert_eq!(code, 0);
    let similar: Vec<_> = located(&json)
        .into_iter()
        .filter(|d| d.0 == "slug/similar")
        .collect();
    // Once per member after the first (`note-0`) in sorted order.
    assert_eq!(similar.len(), 29);
    let note1 = similar
        .iter()
        .find(|d| d.1 == "memory/decisions/note-1.md")
        .expect("note-1");
    assert_eq!(
        note1.4,
        "decision `note-1` looks like a near-duplicate of `note-0`, `note-10`, `note-11`, \
         `note-12`, `note-13` and 24 more; merge them or replace one with the other"
    );
    // report: the JSON lists every member, the terminal the first ten.
    let run = memlint(root, &["report", "--format", "json"]);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let clusters = json["similar_slugs"].as_array().expect("clusters");
    assert_eq!(clusters.len(), 1);
    assert_eq!(clusters[0].as_array().expect("cluster").len(), 30);
    let run = memlint(root, &["report"]);
    assert!(
        run.stdout.contains(
            "Similar slugs (1):\n  note-0, note-1, note-10, note-11, note-12, note-13, \
             note-14, note-15, note-16, note-17 and 20 more\n"
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn similar_slug_clusters_of_thousands_stay_linear_in_output_and_time() {
    // 3,000 records: the messages naming every other member made 100 MB
    // of JSON, and `check --staged` compared every member with every slug.
    let ws = workspace();
    let root = ws.path();
    notes(root, 3_000);
    let run = bounded(root, &["check", "--format", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.len() < 3 << 20,
        "{} bytes of JSON",
        run.stdout.len()
    );
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json["summary"]["warnings"], 2_999);
    let run = bounded(root, &["report", "--format", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.len() < 4 << 20, "{} bytes", run.stdout.len());
    git(root, &["add", "-A"]);
    let run = bounded(root, &["check", "--staged", "--format", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json["summary"]["warnings"], 2_999);
}

// ---------------------------------------------------------------- item 5

/// A decision whose body holds `n` times `today`, ten to a line (with
/// `lines` false: all on one line).
fn dates(n: usize, lines: bool) -> String {
    let words = vec!["today"; n];
    let body = if lines {
        words
            .chunks(10)
            .map(|c| c.join(" "))
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        words.join(" ")
    };
    format!("{}\n", decision("").replace("Body.\n", &body))
}

#[test]
fn many_findings_of_one_rule_render_in_linear_time_capped_in_every_format() {
    // The audit's megabyte of relative dates: 170,000 `date/relative`. The
    // human renderer copied the whole file for each of them (340 s).
    let ws = workspace();
    let root = ws.path();
    let rel = "memory/decisions/dates.md";
    write(root, rel, &dates(170_000, true));
    let closing = "… and 169900 more `date/relative` in this file (at most 100 of a rule are listed per file)";

    let run = bounded(root, &["check"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    // 100 reports with their excerpt, then one line for the rest; the
    // totals count every finding (and `body/too-long`, `sources/thin`).
    assert_eq!(run.stdout.matches("╰── date/relative").count(), 100);
    assert!(
        run.stdout
            .contains(&format!("\nwarning[date/relative] {rel}:18:1: {closing}\n")),
        "{}",
        &run.stdout[run.stdout.len().saturating_sub(2000)..]
    );
    assert!(
        run.stdout
            .ends_with("\nFound 0 errors and 170002 warnings in 2 files.\n"),
        "{}",
        &run.stdout[run.stdout.len().saturating_sub(300)..]
    );

    let run = bounded(root, &["check", "--format", "json"], "");
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let dates: Vec<&Value> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "date/relative")
        .collect();
    assert_eq!(dates.len(), 101);
    assert!(dates[..100].iter().all(|d| d.get("omitted").is_none()));
    assert_eq!(dates[99]["line"], 17);
    assert_eq!(dates[99]["column"], 55);
    assert_eq!(dates[100]["omitted"], 169_900);
    assert_eq!(dates[100]["line"], 18);
    assert_eq!(dates[100]["column"], 1);
    assert_eq!(dates[100]["message"], closing);
    assert_eq!(json["summary"]["warnings"], 170_002);

    let run = bounded(root, &["check", "--format", "github"], "");
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.contains("title=date/relative::"))
            .count(),
        101
    );
    assert!(run.stdout.contains(&format!(
        "::warning file={rel},line=18,col=1,endLine=18,endColumn=6,title=date/relative::{closing}\n"
    )));
    assert!(run
        .stdout
        .ends_with("memlint: Found 0 errors and 170002 warnings in 2 files.\n"));

    let run = bounded(root, &["check", "--format", "sarif"], "");
    let sarif: Value = serde_json::from_str(&run.stdout).expect("SARIF");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let dates: Vec<&Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "date/relative")
        .collect();
    assert_eq!(dates.len(), 101);
    assert_eq!(dates[100]["properties"]["omitted"], 169_900);

    // report: the same list and totals.
    let run = bounded(root, &["report"], "");
    assert!(run
        .stdout
        .contains(&format!("  18:1 warning date/relative: {closing}\n")));
    assert!(
        run.stdout
            .ends_with("2 records, 0 errors, 170002 warnings.\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn many_findings_on_one_long_line_show_a_cut_excerpt() {
    let ws = workspace();
    let root = ws.path();
    write(root, "memory/decisions/dates.md", &dates(170_000, false));
    let run = bounded(root, &["check"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches("╰── date/relative").count(), 100);
    // Each excerpt shows a part of the megabyte line, marked as cut.
    let longest = run.stdout.lines().map(|l| l.chars().count()).max();
    assert!(longest < Some(200), "a line of {longest:?} characters");
    assert!(
        run.stdout.contains(" 8 │ today today"),
        "{}",
        &run.stdout[..2000]
    );
    assert!(
        run.stdout.contains("today toda…\n"),
        "{}",
        &run.stdout[..2000]
    );
}

#[test]
fn many_files_with_many_findings_stay_in_bounded_memory() {
    // Six such files took 2.5 GB even in JSON. (Their names make a
    // `slug/similar` cluster: 5 warnings more.)
    let ws = workspace();
    let root = ws.path();
    let text = dates(170_000, true);
    for i in 0..6 {
        write(root, &format!("memory/decisions/dates-{i}.md"), &text);
    }
    let run = bounded(root, &["check", "--format", "json"], "");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json["summary"]["warnings"], 6 * 170_002 + 5);
    assert_eq!(
        json["diagnostics"].as_array().map(Vec::len),
        Some(6 * 103 + 5)
    );
}

// ---------------------------------------------------------------- item 15

/// The lines of the first report's message in human output.
fn message_lines(out: &str) -> Vec<&str> {
    out.lines()
        .skip(2)
        .take_while(|l| !l.trim_start().starts_with('╭'))
        .collect()
}

#[test]
fn human_messages_never_break_inside_a_code_span_and_follow_columns() {
    let ws = workspace();
    let root = ws.path();
    // The audit's name: its suggestion `use-redis-cache.md` was cut at a
    // hyphen by the wrap at 100 columns.
    write(root, "memory/decisions/Use  Redis Cache.md", &decision(""));
    let run = memlint(root, &["check", "memory/decisions"]);
    let lines = message_lines(&run.stdout);
    assert!(
        lines.iter().any(|l| l.contains("`use-redis-cache.md`")),
        "{}",
        run.stdout
    );
    for width in [30, 40, 50, 60, 72, 80, 100, 140] {
        let columns = width.to_string();
        let run = common::memlint_with(
            root,
            &["check", "memory/decisions"],
            &[("COLUMNS", columns.as_str())],
        );
        let lines = message_lines(&run.stdout);
        let text: String = lines
            .iter()
            .map(|l| l.trim_start_matches([' ', '×', '│']).trim_end())
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(
            text,
            "file name `Use  Redis Cache` is not a slug: it has uppercase letters; rename it to `use-redis-cache.md`",
            "at {width}:\n{}",
            run.stdout
        );
        for line in &lines {
            assert_eq!(line.matches('`').count() % 2, 0, "at {width}: {line:?}");
            // Longer only when a code span alone is longer.
            let shown = line.chars().count();
            let span = line.split('`').nth(1).map_or(0, |s| s.chars().count() + 6);
            assert!(shown <= width.max(span), "at {width}: {line:?}");
        }
    }
}

// ---------------------------------------------------------------- item 17

#[test]
fn tab_before_the_first_key_is_a_parse_error_with_the_tab_hint() {
    let ws = workspace();
    let root = ws.path();
    let first = "memory/decisions/first.md";
    write(
        root,
        first,
        &decision("").replace("---\ntitle:", "---\n\ttitle:"),
    );
    let comment = "memory/decisions/comment.md";
    write(
        root,
        comment,
        &decision("").replace("---\ntitle:", "---\n# note\n \ttitle:"),
    );
    let item = "memory/decisions/item.md";
    write(root, item, &decision("tags:\n- \ta: b\n"));
    let (code, json) = check_json(root, &[]);
    assert_eq!(code, 1);
    let hint = |line: u64| {
        format!("YAML does not allow a tab for indentation (line {line}); indent with spaces")
    };
    assert_eq!(
        located(&json),
        vec![
            (
                "frontmatter/parse".to_string(),
                comment.to_string(),
                3,
                1,
                hint(3)
            ),
            ("frontmatter/parse".into(), first.into(), 2, 1, hint(2)),
            (
                "frontmatter/parse".into(),
                item.into(),
                8,
                3,
                "the front matter is not valid YAML: a tab is used as indentation here; \
                 YAML indents with spaces only"
                    .into()
            ),
        ]
    );
    // A record that does not parse is never rewritten.
    let before = std::fs::read(root.join(first)).expect("read");
    let run = memlint(root, &["fmt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read(root.join(first)).expect("read"), before);
}

#[test]
fn tabs_stay_legal_in_block_scalars_quoted_scalars_flow_lists_and_after_a_colon() {
    let ws = workspace();
    let root = ws.path();
    write(
        root,
        "memory/decisions/tabs.md",
        // A quoted continuation line takes tabs after the one space its
        // indentation needs (without it, yaml-test-suite DK95-01 refuses it).
        "---\ntitle:\t\"A title\n \tcontinued\"\nstatus: active\ndate: 2026-01-01\n\
         sources: [https://example.com/a,\n\thttps://example.com/b]\n\
         tags:\n-\tone\n- two\t\nnote: |\n  \tindented\n  text\n---\nBody.\n",
    );
    let (code, json) = check_json(root, &[]);
    assert_eq!(code, 0, "{json}");
    let rules: Vec<String> = located(&json).into_iter().map(|d| d.0).collect();
    assert_eq!(rules, vec!["frontmatter/unknown-key"]);
}

#[test]
fn tab_before_the_first_key_of_the_configuration_is_an_error() {
    let ws = workspace();
    let root = ws.path();
    write(root, ".memlint.yml", "\tmax_sources: 2\n");
    let run = memlint(root, &["check"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.ends_with(
            ".memlint.yml:1:1: invalid YAML: a tab is used as indentation here; \
             YAML indents with spaces only\n"
        ),
        "{}",
        run.stderr
    );
    // Tabs where YAML allows them are read.
    write(
        root,
        ".memlint.yml",
        "max_sources:\t2\ncontext: {blocks: 1,\n\tmax_chars: 300}\n",
    );
    let run = memlint(root, &["check"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

// ---------------------------------------------------------------- item 18a

#[test]
fn cr_only_line_endings_are_named_as_such() {
    let ws = workspace();
    let root = ws.path();
    let cr = "memory/decisions/cr.md";
    write(root, cr, &decision("").replace('\n', "\r"));
    let mixed = "memory/decisions/mixed.md";
    let mixed_text = "---\ntitle: A decision\rstatus: active\r---\rBody.\r";
    write(root, mixed, mixed_text);
    let (code, json) = check_json(root, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        located(&json),
        vec![
            (
                "frontmatter/missing".to_string(),
                cr.to_string(),
                1,
                1,
                "the file ends its lines with a bare CR (classic Mac OS line endings), so it \
                 reads as one line; save it with LF line endings"
                    .to_string()
            ),
            (
                "frontmatter/unclosed".into(),
                mixed.into(),
                1,
                1,
                "the front matter has no closing `---` line: lines here end with a bare CR \
                 (classic Mac OS line endings), which is no line break for memlint; save the \
                 file with LF line endings"
                    .into()
            ),
        ]
    );
    let run = memlint(root, &["fmt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "{cr}: left as it is: the file ends its lines with a bare CR"
        )),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(root.join(mixed)).expect("read"),
        mixed_text
    );
}

#[test]
fn complex_keys_get_a_clear_diagnostic_at_their_location() {
    let ws = workspace();
    let root = ws.path();
    let rel = "memory/decisions/complex.md";
    write(
        root,
        rel,
        &decision("? [a, b]\n: x\n{a: 1}: y\n\"\": z\n? - p\n  - q\n: w\n"),
    );
    let dup = "memory/decisions/dup.md";
    write(root, dup, &decision("[a, b]: 1\n[a,b]: 2\n"));
    let (code, json) = check_json(root, &[]);
    assert_eq!(code, 1);
    let known = "title, status, date, sources, replaced_by, tags, slug, verified, pins";
    let named =
        |what: &str| format!("this key is {what}, not a name; a decision has named keys: {known}");
    let got: Vec<(String, String, u64, u64, String)> = located(&json);
    let want = vec![
        (
            "frontmatter/unknown-key",
            rel,
            7,
            3,
            named("a list (`[a, b]`)"),
        ),
        (
            "frontmatter/unknown-key",
            rel,
            9,
            1,
            named("a mapping (`{a: 1}`)"),
        ),
        (
            "frontmatter/unknown-key",
            rel,
            10,
            1,
            format!("an empty key is not a decision key; known keys: {known}"),
        ),
        (
            "frontmatter/unknown-key",
            rel,
            11,
            3,
            named("a list (`[p, q]`)"),
        ),
        (
            "frontmatter/unknown-key",
            dup,
            7,
            1,
            named("a list (`[a, b]`)"),
        ),
        (
            "frontmatter/duplicate-key",
            dup,
            8,
            1,
            "key `[a, b]` appears twice (first on line 7); delete one of them".to_string(),
        ),
        (
            "frontmatter/unknown-key",
            dup,
            8,
            1,
            named("a list (`[a, b]`)"),
        ),
    ];
    let want: Vec<(String, String, u64, u64, String)> = want
        .into_iter()
        .map(|(r, p, l, c, m)| (r.to_string(), p.to_string(), l, c, m))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn complex_keys_in_the_configuration_are_named_as_such() {
    let ws = workspace();
    let root = ws.path();
    for (text, error) in [
        (
            "? [a]\n: 1\n",
            ".memlint.yml:1:3: a configuration key is a name, not a list (`[a]`)",
        ),
        (
            "rules:\n  {a: 1}: off\n",
            ".memlint.yml:2:3: a configuration key is a name, not a mapping (`{a: 1}`)",
        ),
    ] {
        write(root, ".memlint.yml", text);
        let run = memlint(root, &["check"]);
        assert_eq!(run.code, 2);
        assert!(run.stderr.trim_end().ends_with(error), "{}", run.stderr);
    }
}

// ------------------------------------------------- the class: hostile YAML

#[test]
fn a_line_without_colon_and_an_overlong_key_are_explained() {
    let ws = workspace();
    let root = ws.path();
    let colon = "memory/decisions/colon.md";
    write(
        root,
        colon,
        &decision("").replace("status: active", "status active"),
    );
    // 2,000 characters: the fast reader took it, the parser refuses it.
    let long = "memory/decisions/long.md";
    write(
        root,
        long,
        &format!("---\ntitle: t\n{}: v\n---\nBody.\n", "k".repeat(2000)),
    );
    let (code, json) = check_json(root, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        located(&json),
        vec![
            (
                "frontmatter/parse".to_string(),
                colon.to_string(),
                3,
                1,
                "the front matter is not valid YAML: this line has no `:` after its key; \
                 write `key: value`"
                    .to_string()
            ),
            (
                "frontmatter/parse".into(),
                long.into(),
                3,
                1,
                "the front matter is not valid YAML: this key is 2000 characters long; \
                 YAML reads a key of at most 1024 characters"
                    .into()
            ),
        ]
    );
}

#[test]
fn hostile_front_matter_gives_one_located_diagnostic_in_every_command() {
    // Deep nesting (flow and block), a billion laughs, many keys, a huge
    // scalar and many aliases: each refused or read, never a crash, and
    // within the memory bound.
    let ws = workspace();
    let root = ws.path();
    let mut laughs = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        laughs.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    let cases = [
        (
            "deep-flow",
            format!("a: {}{}\n", "[".repeat(100_000), "]".repeat(100_000)),
            "front matter refused: front matter is nested more than 64 levels deep",
        ),
        (
            "deep-block",
            (0..1000)
                .map(|i| format!("{}k:\n", " ".repeat(i)))
                .collect(),
            "front matter refused: front matter is nested more than 64 levels deep",
        ),
        (
            "laughs",
            laughs,
            "front matter refused: aliases expand to more than 20000 nodes (an alias bomb?)",
        ),
        (
            "many-keys",
            (0..60_000).map(|i| format!("k{i}: v\n")).collect(),
            "front matter refused: front matter has more than 20000 values",
        ),
    ];
    for (name, extra, _) in &cases {
        write(
            root,
            &format!("memory/decisions/{name}.md"),
            &decision(extra),
        );
    }
    let run = bounded(root, &["check", "--format", "json"], "");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let found = located(&json);
    for (name, _, message) in &cases {
        let path = format!("memory/decisions/{name}.md");
        let mine: Vec<_> = found.iter().filter(|d| d.1 == path).collect();
        assert_eq!(mine.len(), 1, "{name}: {mine:?}");
        assert_eq!(mine[0].0, "frontmatter/parse", "{name}");
        assert_eq!(mine[0].4, *message, "{name}");
    }
    for args in [
        &["check"][..],
        &["fmt", "--check"],
        &["fmt"],
        &["index"],
        &["search", "decision"],
        &["context"],
        &["report"],
    ] {
        let run = bounded(root, args, "");
        assert!(matches!(run.code, 0 | 1), "{args:?}: {}", run.stderr);
    }
}
