//! `memlint new` reads only what the new record needs (issue 46 item 3):
//! the records of its kind, and of the kinds its sources name, proved
//! fresh file by file; every other record by name only. What it refuses
//! and warns about stays what the whole workspace says.

use crate::common;

use common::{age, age_directories, memlint, workspace, write};
use std::path::Path;

fn decision(title: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\nstatus: active\ndate: 2026-10-28\nsources:\n  - file:docs/architecture.md\n---\n\n{body}\n"
    )
}

/// `memlint new decision TITLE --slug SLUG --source SOURCE --body-file BODY`.
fn new(root: &Path, title: &str, slug: &str, source: &str, body: &str) -> common::Run {
    std::fs::write(root.join("body.md"), body).expect("body");
    memlint(
        root,
        &[
            "new",
            "decision",
            title,
            "--slug",
            slug,
            "--source",
            source,
            "--body-file",
            "body.md",
        ],
    )
}

const BODY: &str = "Ledger exports are signed with the release key kept in the\n\
hardware token, and the signature travels beside every CSV file as a detached\n\
armoured block, so that an auditor can check any month without our tools.\n";

#[test]
fn a_record_rewritten_in_place_since_the_index_is_seen_as_it_is_now() {
    let ws = workspace("example");
    let root = ws.path();
    assert_eq!(memlint(root, &["check"]).code, 0);
    age_directories(root);
    // Rewritten in place: no directory changes, only the file's stat data.
    let rel = "memory/decisions/retry-bank-sync-with-backoff.md";
    write(root, rel, &decision("Sign every ledger export", BODY));
    age(&root.join(rel));
    let run = new(
        root,
        "Signed ledger exports",
        "signed-ledger-exports",
        "file:docs/architecture.md",
        BODY,
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("says nearly the same as `retry-bank-sync-with-backoff` (memory/decisions/retry-bank-sync-with-backoff.md, "),
        "{}",
        run.stderr
    );
    assert!(!root
        .join("memory/decisions/signed-ledger-exports.md")
        .exists());
}

#[test]
fn sources_naming_records_of_other_kinds_are_judged_against_them() {
    let ws = workspace("example");
    let root = ws.path();
    assert_eq!(memlint(root, &["check"]).code, 0);
    // A knowledge record replaced since the index, and cited.
    let rel = "knowledge/sqlite-wal-pitfalls.md";
    let text = std::fs::read_to_string(root.join(rel)).expect("read");
    let text = text.replacen(
        "---\n",
        "---\nstatus: replaced\nreplaced_by: minor-unit-rounding\n",
        1,
    );
    write(root, rel, &text);
    let run = new(
        root,
        "Checkpoint the WAL after every sync",
        "checkpoint-wal-after-sync",
        "knowledge:sqlite-wal-pitfalls",
        "The sync ends with a full checkpoint so the exporter never reads a long WAL.\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("sources/replaced") && run.stderr.contains("`minor-unit-rounding`"),
        "{}",
        run.stderr
    );
    // A session memory, known by name only, exists.
    let run = new(
        root,
        "Sync retries stop after five attempts",
        "sync-retries-stop-after-five",
        "cmem:CMEM-20261102-174500",
        "The bank sync gives up after the fifth attempt and says so in the log.\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("sources/dangling"), "{}", run.stderr);
    // A request that does not exist, with the one that does as the hint.
    let run = new(
        root,
        "Amounts in yen use no minor unit",
        "yen-has-no-minor-unit",
        "request:show-amount-in-yen",
        "Yen amounts are whole numbers; the minor unit exponent is zero.\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("`request:show-amount-in-yen` names no request (did you mean `request:show-amounts-in-yen`?)"),
        "{}",
        run.stderr
    );
}

/// Twelve words that differ from note to note.
fn words(i: u64) -> String {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..12)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!("w{:x}", x % 0xFFFFF)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn records_of_other_kinds_changed_since_the_index_are_not_read_again() {
    // Two copies of one workspace of many knowledge records; in one, every
    // knowledge record changed after the index was built.
    let (fresh, stale) = (workspace("example"), workspace("example"));
    for ws in [&fresh, &stale] {
        for i in 0..3000u64 {
            let w = words(i);
            let slug = w.split(' ').take(3).collect::<Vec<_>>().join("-");
            write(
                ws.path(),
                &format!("knowledge/{slug}.md"),
                &format!(
                    "---\ntitle: Note {i}\ndescription: note number {i}\nmodel_invocation: false\nstatus: active\ndate: 2026-10-28\nsources:\n  - file:docs/architecture.md\n---\n\n{w} about the ledger.\n"
                ),
            );
        }
        let run = memlint(ws.path(), &["check"]);
        assert_eq!(run.code, 0, "{}", run.stdout);
    }
    for i in 0..3000u64 {
        let w = words(i);
        let slug = w.split(' ').take(3).collect::<Vec<_>>().join("-");
        let rel = format!("knowledge/{slug}.md");
        let text = std::fs::read_to_string(stale.path().join(&rel)).expect("read");
        write(stale.path(), &rel, &text.replace("about", "on"));
    }
    // The first `new` in the changed copy (one that reads them stores
    // them, and the next would not) opens none of them, as in the other.
    for ws in [&fresh, &stale] {
        std::fs::write(
            ws.path().join("body.md"),
            "The statement cache is one SQLite database, opened in WAL mode.\n",
        )
        .expect("body");
        let args = [
            "new",
            "decision",
            "Use SQLite with WAL for the statement cache",
            "--slug",
            "use-sqlite-statement-cache-v2",
            "--source",
            "file:docs/architecture.md",
            "--body-file",
            "body.md",
        ];
        let Some((_, trace)) = common::strace(ws.path(), "openat", &args) else {
            return;
        };
        let opened: Vec<&str> = trace
            .lines()
            .filter(|l| l.contains("/knowledge") && l.contains(".md"))
            .collect();
        assert!(
            opened.is_empty(),
            "new opened {} knowledge records:\n{}",
            opened.len(),
            opened.join("\n")
        );
        // Refused as a near-duplicate: nothing was written.
        assert!(!ws
            .path()
            .join("memory/decisions/use-sqlite-statement-cache-v2.md")
            .exists());
    }
}

/// What happened to the file named `name` while it was open, as `strace`
/// saw a run of `memlint args` in `root`: the reads and mappings of it.
/// `strace -y` names the file behind each descriptor, so that a call split
/// across lines by another thread's call (`<unfinished ...>`) is still
/// told by its file. `None` when `strace` cannot run here.
fn calls_on(root: &Path, args: &[&str], stdin: &str, name: &str) -> Option<Vec<String>> {
    use std::io::Write;
    let log = root.join(".memlint-strace.log");
    let mut child = std::process::Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-y",
            "-e",
            "trace=openat,read,pread64,mmap,close",
            "-o",
        ])
        .arg(&log)
        .arg(common::BIN)
        .args(args)
        .current_dir(root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait().ok()?;
    let trace = std::fs::read_to_string(&log).ok()?;
    std::fs::remove_file(&log).expect("remove the trace");
    let opened = format!("{name}\"");
    let on_it = format!("{name}>");
    assert!(
        trace
            .lines()
            .any(|l| l.contains("openat(") && l.contains(&opened)),
        "{name} was never opened:\n{trace}"
    );
    let calls = trace
        .lines()
        // `PID call(args) = result`
        .map(|line| line.split_once(' ').map_or(line, |(_, c)| c.trim_start()))
        .filter(|call| {
            ["read(", "pread64(", "mmap("]
                .iter()
                .any(|c| call.starts_with(c))
                && call.contains(&on_it)
        })
        .map(str::to_string)
        .collect();
    Some(calls)
}

#[test]
fn the_record_table_is_mapped_not_copied() {
    if !common::strace_runs() {
        return;
    }
    let ws = workspace("example");
    let root = ws.path();
    assert_eq!(memlint(root, &["check"]).code, 0);
    let args = [
        "new",
        "decision",
        "Mapped tables are not copied",
        "--source",
        "file:docs/architecture.md",
        "--body-file",
        "-",
    ];
    let calls = calls_on(
        root,
        &args,
        "The record table is mapped.\n",
        ".memlint/index",
    )
    .expect("strace ran");
    // Mapped whole (`mmap(NULL, SIZE, PROT_READ, MAP_PRIVATE|…, FD, 0)`),
    // and never read into memory.
    assert!(
        calls.iter().any(|c| c.starts_with("mmap(")),
        "the table was not mapped: {calls:#?}"
    );
    assert!(
        !calls
            .iter()
            .any(|c| c.starts_with("read(") || c.starts_with("pread64(")),
        "the table was read: {calls:#?}"
    );
    assert!(root
        .join("memory/decisions/mapped-tables-are-not-copied.md")
        .exists());
}

/// The `prctl` calls of a run of `memlint new` in `root` with `env`, as
/// `strace` saw them.
fn prctls(root: &Path, slug: &str, env: &[(&str, &str)]) -> Vec<String> {
    let log = root.join(".memlint-strace.log");
    let mut cmd = std::process::Command::new("strace");
    cmd.args(["-f", "-qq", "-e", "trace=prctl", "-o"])
        .arg(&log)
        .arg(common::BIN)
        .args([
            "new",
            "decision",
            &format!("Huge pages for {slug}"),
            "--slug",
            slug,
            "--source",
            "file:docs/architecture.md",
        ])
        .current_dir(root)
        .env_remove("MIMALLOC_ALLOW_THP")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    assert!(cmd.status().expect("strace").success());
    let trace = std::fs::read_to_string(&log).expect("trace");
    std::fs::remove_file(&log).expect("remove the trace");
    trace
        .lines()
        .filter(|l| l.contains("prctl(PR_SET_THP_DISABLE"))
        .map(str::to_string)
        .collect()
}

#[test]
fn new_turns_transparent_huge_pages_off_unless_told_to_keep_them() {
    if !cfg!(target_os = "linux") || !common::strace_runs() {
        return;
    }
    let ws = workspace("example");
    let root = ws.path();
    assert_eq!(memlint(root, &["check"]).code, 0);
    let off = prctls(root, "pages-off", &[]);
    assert_eq!(off.len(), 1, "{off:?}");
    assert!(off[0].contains("PR_SET_THP_DISABLE, 1"), "{off:?}");
    let kept = prctls(root, "pages-kept", &[("MIMALLOC_ALLOW_THP", "1")]);
    assert!(kept.is_empty(), "{kept:?}");
    for slug in ["pages-off", "pages-kept"] {
        assert!(root.join(format!("memory/decisions/{slug}.md")).exists());
    }
}
