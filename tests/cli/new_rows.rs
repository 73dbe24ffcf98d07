//! `memlint new` answers from the rows of its kind (`.memlint/kind.<kind>`:
//! path, stat data, status and sketch of each record) instead of decoding
//! the record table, and still sees every change another program made
//! since the rows were written: a record edited in place (even with the
//! same size and mtime), a file added or removed in the kind's directory,
//! a record written a moment ago.

use crate::common;

use common::{memlint, workspace, write};
use std::path::Path;

fn decision(title: &str, status: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\nstatus: {status}\ndate: 2026-10-28\nsources:\n  - file:docs/architecture.md\n---\n\n{body}\n"
    )
}

/// `memlint new decision TITLE --slug SLUG --source file:docs/architecture.md`
/// with `body` on standard input.
fn new(root: &Path, title: &str, slug: &str, body: &str) -> common::Run {
    common::memlint_stdin(
        root,
        &[
            "new",
            "decision",
            title,
            "--slug",
            slug,
            "--source",
            "file:docs/architecture.md",
            "--body-file",
            "-",
        ],
        body,
    )
}

/// The run was refused (exit 1) with `said` in its message.
fn refused(run: &common::Run, said: &str) {
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stderr.contains(said), "{}", run.stderr);
}

const BODY: &str = "Ledger exports are signed with the release key kept in the\n\
hardware token, and the signature travels beside every CSV file as a detached\n\
armoured block, so that an auditor can check any month without our tools.\n";

const OTHER: &str = "Nightly jobs page the on-call engineer only after three\n\
consecutive failures of the same job, and the page names the runbook section\n\
that covers the job, so that a flaky network does not wake anyone at night.\n";

/// The example workspace, checked, with the decisions' rows written by a
/// first `new` and old enough (files and rows) to be trusted by stat data
/// alone.
fn with_rows() -> tempfile::TempDir {
    let ws = workspace("example");
    let root = ws.path();
    // Older than the two seconds within which a change could hide in the
    // file system's timestamp granularity.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_eq!(memlint(root, &["check"]).code, 0);
    let run = new(
        root,
        "Page on call after three failures",
        "page-after-three",
        OTHER,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(root.join(".memlint/kind.decision").is_file());
    ws
}

#[test]
fn new_answers_from_the_rows_without_opening_the_record_table() {
    let ws = with_rows();
    let root = ws.path();
    std::fs::write(root.join("body.md"), BODY).expect("body");
    let args = [
        "new",
        "decision",
        "Signed ledger exports",
        "--source",
        "file:docs/architecture.md",
        "--body-file",
        "body.md",
    ];
    let Some((_, trace)) = common::strace(root, "openat", &args) else {
        return;
    };
    assert!(
        trace.contains(".memlint/kind.decision\""),
        "the rows were not read:\n{trace}"
    );
    assert!(
        !trace.contains(".memlint/index\""),
        "the record table was opened:\n{trace}"
    );
    assert!(root
        .join("memory/decisions/signed-ledger-exports.md")
        .exists());
}

#[test]
fn a_record_edited_in_place_with_the_same_size_and_mtime_is_read_again() {
    let ws = with_rows();
    let root = ws.path();
    let rel = "memory/decisions/retry-bank-sync-with-backoff.md";
    let path = root.join(rel);
    let before = std::fs::metadata(&path).expect("stat");
    let old = std::fs::read_to_string(&path).expect("read");
    // The same number of bytes, saying what the new record will say (under
    // its title: two texts this short are compared on their word pairs
    // exactly, and another title leaves too few in common).
    let mut text = decision("Signed ledger exports", "active", BODY);
    assert!(text.len() <= old.len(), "the fixture record is long enough");
    text.push_str(&"x".repeat(old.len() - text.len() - 1));
    text.push('\n');
    assert_eq!(text.len(), old.len());
    std::fs::write(&path, &text).expect("rewrite");
    std::fs::File::options()
        .append(true)
        .open(&path)
        .and_then(|f| f.set_modified(before.modified().expect("mtime")))
        .expect("mtime back");
    let after = std::fs::metadata(&path).expect("stat");
    assert_eq!(
        (after.len(), after.modified().ok()),
        (before.len(), before.modified().ok())
    );
    let run = new(root, "Signed ledger exports", "signed-ledger-exports", BODY);
    refused(&run, "says nearly the same as `retry-bank-sync-with-backoff` (memory/decisions/retry-bank-sync-with-backoff.md, ");
    assert!(!root
        .join("memory/decisions/signed-ledger-exports.md")
        .exists());
}

#[test]
fn a_file_another_program_adds_to_the_kinds_directory_is_seen() {
    let ws = with_rows();
    let root = ws.path();
    write(
        root,
        "memory/decisions/sign-ledger-exports.md",
        &decision("Sign ledger exports", "active", BODY),
    );
    // A near-duplicate slug of the file just added.
    let run = new(
        root,
        "Sign ledger exports again",
        "sign-ledger-exports-v2",
        OTHER,
    );
    refused(&run, "looks like a near-duplicate of `sign-ledger-exports`");
    // Its content, under an unrelated slug.
    let run = new(root, "Export signatures", "detached-signatures", BODY);
    refused(&run, "says nearly the same as `sign-ledger-exports`");
}

#[test]
fn a_record_written_a_moment_ago_is_seen_at_once() {
    let ws = with_rows();
    let root = ws.path();
    let run = new(root, "Sign ledger exports", "sign-ledger-exports", BODY);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = new(root, "Export signatures", "detached-signatures", BODY);
    refused(&run, "says nearly the same as `sign-ledger-exports`");
}

#[test]
fn a_record_removed_or_replaced_since_the_rows_no_longer_refuses() {
    let ws = with_rows();
    let root = ws.path();
    // Replaced in place: no longer an active near-duplicate slug.
    let rel = "memory/decisions/page-after-three.md";
    let text = std::fs::read_to_string(root.join(rel)).expect("read");
    let replaced = text.replacen(
        "status: active\n",
        "status: replaced\nreplaced_by: use-float-amounts\n",
        1,
    );
    assert_ne!(text, replaced);
    write(root, rel, &replaced);
    let run = new(root, "Page after three again", "page-after-three-v2", BODY);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Removed: neither its slug nor its content refuses a new record.
    std::fs::remove_file(root.join("memory/decisions/page-after-three-v2.md")).expect("rm");
    let run = new(root, "Signed exports", "page-after-three-v3", BODY);
    assert_eq!(run.code, 0, "{}", run.stderr);
}
