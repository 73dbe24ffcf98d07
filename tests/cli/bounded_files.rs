//! Files memlint reads besides records are read within a bound too: the
//! configuration, ignore files, a commit message, `CONTEXT.md` when it is
//! rotated. A file over its bound is refused unread, with its name, and
//! nothing is written.
#![cfg(unix)]

use crate::common;

use common::{memlint, TempWorkspace};
use std::path::Path;

/// Makes `rel` a sparse file of `len` bytes: large on paper, nothing on
/// disk, so that a reader that ignores the bound reads it all (zeros).
fn sparse(root: &Path, rel: &str, len: u64) {
    let file = std::fs::File::create(root.join(rel)).expect("create");
    file.set_len(len).expect("set_len");
}

const OVER_SMALL: u64 = (16 << 20) + 1;

#[test]
fn an_oversized_configuration_is_refused_unread() {
    let ws = TempWorkspace::new().init().build();
    sparse(ws.path(), ".memlint.yml", OVER_SMALL);
    let run = memlint(ws.path(), &["check"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: error: cannot read .memlint.yml: it has more than 16777216 bytes, more than memlint reads of it\n"
    );
}

#[test]
fn an_oversized_ignore_file_is_not_applied_and_said_so() {
    let ws = TempWorkspace::new().init().build();
    sparse(ws.path(), ".gitignore", OVER_SMALL);
    let run = memlint(ws.path(), &["check"]);
    assert!(
        run.stderr.contains(
            "memlint: warning: .gitignore cannot be read (it has more than 16777216 bytes, more than memlint reads of it); its rules are not applied"
        ),
        "{run:?}"
    );
}

#[test]
fn an_oversized_commit_message_is_refused_unread() {
    let ws = TempWorkspace::new().git().init().build();
    sparse(ws.path(), "MSG", OVER_SMALL);
    let run = memlint(ws.path(), &["check", "--staged", "--commit-msg", "MSG"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: error: cannot read MSG: it has more than 16777216 bytes, more than memlint reads of it\n"
    );
}

#[test]
fn rotating_a_context_over_max_file_bytes_reads_and_writes_nothing() {
    let ws = TempWorkspace::new()
        .init()
        .config("max_file_bytes: 200\n")
        .build();
    let blocks: String = (1..=9)
        .map(|d| format!("## 2026-01-0{d}\n\n{}\n\n", "x".repeat(60)))
        .collect();
    let text = format!("# Context\n\n{blocks}");
    std::fs::write(ws.path().join("CONTEXT.md"), &text).unwrap();
    let run = memlint(ws.path(), &["context", "rotate", "--keep", "2"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: error: cannot read CONTEXT.md: it has more than 200 bytes (`max_file_bytes`), more than memlint reads of it\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.path().join("CONTEXT.md")).unwrap(),
        text
    );
}

/// A record over `max_file_bytes` that a command would change is refused
/// unread, and the message names the setting to raise.
#[test]
fn verifying_a_record_over_max_file_bytes_names_the_setting() {
    let ws = TempWorkspace::new()
        .init()
        .config("max_file_bytes: 200\n")
        .build();
    let text = format!(
        "---\ntitle: Use SQLite\nstatus: active\ndate: 2026-01-02\nsources:\n  - https://example.com/x\n---\n\n{}\n",
        "word ".repeat(60)
    );
    let rel = "memory/decisions/use-sqlite.md";
    std::fs::write(ws.path().join(rel), &text).unwrap();
    let run = memlint(ws.path(), &["verify", "use-sqlite"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: error: cannot read memory/decisions/use-sqlite.md: it has more than 200 bytes (`max_file_bytes`), more than memlint reads of it\n"
    );
    assert_eq!(std::fs::read_to_string(ws.path().join(rel)).unwrap(), text);
}
