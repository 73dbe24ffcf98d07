//! Keeping memory true (issue 45): line-range `file:` sources and
//! `sources/drifted`, on workspaces in temporary directories with real git
//! histories (set up with the `git` program; memlint reads them through gix).

mod common;

use common::{git, memlint, write};
use std::path::Path;

/// A decision citing `sources`, one per line.
fn decision(title: &str, sources: &[&str]) -> String {
    let mut text = format!("---\ntitle: {title}\nstatus: active\ndate: 2026-01-02\nsources:\n");
    for s in sources {
        text.push_str(&format!("  - {s}\n"));
    }
    text.push_str("---\n\nBody.\n");
    text
}

/// (rule, line, message) of every diagnostic of `check ARGS --format json`.
fn findings(root: &Path, args: &[&str]) -> (i32, Vec<(String, u64, String)>) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let run = memlint(root, &all);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    let found = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    (run.code, found)
}

fn f(rule: &str, line: u64, message: &str) -> (String, u64, String) {
    (rule.to_string(), line, message.to_string())
}

#[test]
fn line_range_sources_are_checked_against_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "src/a.rs", "a\nb\nc\n");
    write(root, "docs/a#Lx.md", "x\n");
    write(
        root,
        "memory/decisions/use-a.md",
        &decision(
            "Use a",
            &[
                "file:src/a.rs#L2-L3",
                "file:src/a.rs#L3",
                "file:src/a.rs#L3-L9",
                "file:src/a.rs#L4",
                "file:src/a.rs#L0",
                "file:src/a.rs#L3-L1",
                "file:src/a.rs#L2-9",
                "file:docs/a#Lx.md",
            ],
        ),
    );
    let (code, found) = findings(root, &[]);
    assert_eq!(code, 1, "{found:?}");
    let form = "write `#L<line>` or `#L<first>-L<last>`, lines counted from 1";
    assert_eq!(
        found,
        vec![
            f(
                "sources/dangling",
                8,
                "`file:src/a.rs#L3-L9` cites lines 3-9, but `src/a.rs` has 3 lines"
            ),
            f(
                "sources/dangling",
                9,
                "`file:src/a.rs#L4` cites line 4, but `src/a.rs` has 3 lines"
            ),
            f(
                "sources/format",
                10,
                &format!("`file:src/a.rs#L0` is not a source string: the line range `#L0` is malformed (there is no line 0): {form}")
            ),
            f(
                "sources/format",
                11,
                &format!("`file:src/a.rs#L3-L1` is not a source string: the line range `#L3-L1` is malformed (it ends before it starts): {form}")
            ),
            f(
                "sources/format",
                12,
                &format!("`file:src/a.rs#L2-9` is not a source string: the line range `#L2-9` is malformed: {form}")
            ),
        ]
    );
    // The staged version is judged by the staged blob: two lines there.
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "src/a.rs", "a\nb");
    git(root, &["add", "-A"]);
    let (_, staged) = findings(root, &["--staged"]);
    assert!(
        staged.contains(&f(
            "sources/dangling",
            7,
            "`file:src/a.rs#L3` cites line 3, but `src/a.rs` has 2 lines"
        )),
        "{staged:?}"
    );
}
