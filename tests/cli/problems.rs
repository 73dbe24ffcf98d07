//! What reading the workspace meets and the user must hear about (a
//! `.memlint` that cannot hold the caches), told by each front end once:
//! every command that reads the records warns, the commands that never
//! read them say nothing, the agent hooks say it on standard error.

#![cfg(unix)]

use crate::common;

use common::{Memlint, Run, TempWorkspace};
use std::path::Path;

/// The warning of a `.memlint` that is a symbolic link.
const WARNING: &str = "memlint: warning: .memlint is a symbolic link; memlint keeps no cache there (every run checks every file)\n";

/// A git repository made a workspace, one decision citing a file,
/// committed; its `.memlint` a symbolic link to `elsewhere`.
fn linked(elsewhere: &Path) -> tempfile::TempDir {
    let ws = TempWorkspace::new()
        .git()
        .init()
        .file("README.md", "The storage layer.\n")
        .file(
            "memory/decisions/use-sqlite.md",
            &common::decision("Use sqlite", &["file:README.md"]),
        )
        .commit("snapshot")
        .build();
    let dir = ws.path().join(".memlint");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("remove .memlint");
    }
    std::os::unix::fs::symlink(elsewhere, &dir).expect("symlink");
    ws
}

fn run(root: &Path, args: &[&str], stdin: &str) -> Run {
    Memlint::new(root).args(args).stdin(stdin).run()
}

#[test]
fn a_refused_cache_is_told_once_by_each_command_that_reads_the_records() {
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let ws = linked(elsewhere.path());
    let root = ws.path();
    let page = root.join("review.html");
    let page = page.to_str().expect("UTF-8");
    common::write(root, "body.md", "We also keep a Postgres replica.\n");
    // In order: each one after the first writes or reads what the one
    // before wrote.
    let told: [&[&str]; 9] = [
        &["show", "use-sqlite"],
        &["verify", "use-sqlite"],
        &[
            "new",
            "decision",
            "Use postgres",
            "--body-file",
            "body.md",
            "--source",
            "file:README.md",
        ],
        &["replace", "use-sqlite", "use-postgres"],
        &["export", "agents-md"],
        &["fmt"],
        &["check", "--fix"],
        &["report", "--html", page],
        &["search", "postgres"],
    ];
    for args in told {
        let r = run(root, args, "");
        assert_eq!(r.code, 0, "{args:?}: {r:?}");
        assert_eq!(r.stderr.matches(WARNING).count(), 1, "{args:?}: {r:?}");
    }
    // A refusal after the records were read still says it, after the error.
    let missing = run(root, &["show", "no-such-record"], "");
    assert_eq!(missing.code, 2, "{missing:?}");
    assert_eq!(
        missing.stderr,
        format!("memlint: error: no record named `no-such-record`\n{WARNING}")
    );
    // Commands that never read the records keep no cache either, and have
    // nothing to say about it.
    for args in [&["log"][..], &["staging", "status"], &["check", "--staged"]] {
        let r = run(root, args, "");
        assert_eq!(r.code, 0, "{args:?}: {r:?}");
        assert!(!r.stderr.contains("keeps no cache"), "{args:?}: {r:?}");
    }
    let hook_warning = WARNING.replacen("memlint:", "memlint hook:", 1);
    let written = root.join("memory/decisions/use-postgres.md");
    let post_write = serde_json::json!({
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": written},
        "cwd": root,
    })
    .to_string();
    for (args, input) in [
        (
            &["hook", "session-start"][..],
            r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
        ),
        (&["hook", "stop"], "{}"),
        (&["hook", "post-write"], post_write.as_str()),
    ] {
        let r = run(root, args, input);
        assert_eq!(r.code, 0, "{args:?}: {r:?}");
        assert_eq!(
            r.stderr.matches(&hook_warning).count(),
            1,
            "{args:?}: {r:?}"
        );
    }
    // Nothing was written through the link.
    assert_eq!(
        std::fs::read_dir(elsewhere.path())
            .expect("read_dir")
            .count(),
        0
    );
}
