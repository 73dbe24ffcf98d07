//! The stored listing of the workspace's files is brought up to date by
//! reading again only the directories that changed (a record written by
//! `memlint new` changes its kind's directory and nothing else), not by
//! walking the whole workspace; what it lists stays what a walk lists.

use crate::common;

use common::{memlint, workspace, write};
use std::path::Path;

/// The directories a run of `memlint args` in `root` read entries of, as
/// `strace` saw its `getdents64` calls (root-relative); `None` when
/// `strace` cannot run here.
fn dirs_read(root: &Path, args: &[&str]) -> Option<Vec<String>> {
    // Outside the workspace: a file created in the root changes it.
    let logs = tempfile::tempdir().expect("tempdir");
    let log = logs.path().join("strace.log");
    let status = std::process::Command::new("strace")
        .args(["-f", "-qq", "-y", "-e", "trace=getdents64", "-o"])
        .arg(&log)
        .arg(common::BIN)
        .args(args)
        .current_dir(root)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    assert!(status.code().is_some());
    let trace = std::fs::read_to_string(&log).ok()?;
    std::fs::remove_file(&log).expect("remove the trace");
    let root = root.canonicalize().expect("root").display().to_string();
    let mut dirs: Vec<String> = trace
        .lines()
        .filter_map(|l| {
            let at = l.find("getdents64(")?;
            let rest = &l[at..];
            let path = &rest[rest.find('<')? + 1..rest.find('>')?];
            Some(
                path.strip_prefix(&root)?
                    .trim_start_matches('/')
                    .to_string(),
            )
        })
        // The cache directory is not the workspace's listing (a cache
        // written looks there for temporary files of killed runs).
        .filter(|d| d != ".memlint")
        .collect();
    dirs.sort();
    dirs.dedup();
    Some(dirs)
}

const DECISION: &str = "---\ntitle: Keep receipts for seven years\nstatus: active\ndate: 2026-10-28\nsources:\n  - file:docs/architecture.md\n---\n\nReceipts are kept for seven years, as the tax office asks.\n";

#[test]
fn a_file_added_to_one_directory_reads_only_that_directory_again() {
    if !common::strace_runs() {
        return;
    }
    let ws = workspace("example");
    let root = ws.path();
    assert_eq!(memlint(root, &["check"]).code, 0);
    // Stored, after the clock has moved past the directories' times.
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(memlint(root, &["check"]).code, 0);
    write(root, "memory/decisions/keep-receipts.md", DECISION);
    let read = dirs_read(root, &["check"]).expect("strace ran");
    assert_eq!(read, ["memory/decisions"], "directories read again");
    // And the listing stored again: nothing is read the next time.
    let read = dirs_read(root, &["check"]).expect("strace ran");
    assert!(read.is_empty(), "directories read again: {read:?}");
}

#[test]
fn a_directory_read_again_lists_what_a_walk_lists() {
    let ws = workspace("example");
    let root = ws.path();
    write(root, "memory/decisions/.memlintignore", "draft-*.md\n");
    assert_eq!(memlint(root, &["check"]).code, 0);
    std::thread::sleep(std::time::Duration::from_millis(50));
    // Added: a record with an error, one the ignore file leaves out, and
    // one file removed.
    write(
        root,
        "memory/decisions/keep-receipts.md",
        &DECISION.replace("status: active", "status: maybe"),
    );
    write(root, "memory/decisions/draft-receipts.md", "not a record\n");
    std::fs::remove_file(root.join("memory/decisions/use-float-amounts.md")).expect("rm");
    // A directory the listing never entered: walked.
    write(root, "memory/decisions/nested/odd.md", "not a record\n");
    let run = memlint(root, &["check", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let paths: Vec<&str> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["path"].as_str())
        .collect();
    assert!(
        paths.contains(&"memory/decisions/keep-receipts.md"),
        "{paths:?}"
    );
    assert!(
        !paths.iter().any(|p| p.contains("draft-receipts")),
        "{paths:?}"
    );
    assert!(
        !paths.iter().any(|p| p.contains("use-float-amounts")),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"memory/decisions/nested/odd.md"),
        "{paths:?}"
    );
    // The same as a walk from scratch finds.
    let again = memlint(root, &["check", "--format", "json"]);
    std::fs::remove_dir_all(root.join(".memlint")).expect("rm .memlint");
    let walked = memlint(root, &["check", "--format", "json"]);
    assert_eq!(again.stdout, walked.stdout);
    assert_eq!(run.stdout, walked.stdout);
}
