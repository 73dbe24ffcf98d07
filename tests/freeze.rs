//! Behaviour frozen in snapshots before the engine is redesigned: the rule
//! registry, `check --format json` over every fixture workspace, and
//! `report`, `search` and `context` on the example workspaces. A change to
//! any of these is a change users see, so it must be deliberate: review the
//! snapshot diff (`INSTA_UPDATE=always cargo test --test freeze`, then
//! `git diff tests/snapshots`).

mod common;

use common::{copy_dir, fixture, memlint};
use std::path::{Path, PathBuf};

/// Every directory under `fixtures/` that is a workspace: the ones with a
/// record directory, `CONTEXT.md` or a configuration in them.
fn workspaces() -> Vec<String> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) {
        let is_workspace = [
            "memory",
            "knowledge",
            "staging",
            "CONTEXT.md",
            ".memlint.yml",
        ]
        .iter()
        .any(|n| dir.join(n).exists());
        if is_workspace {
            out.push(rel.to_string());
            return;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("read fixtures")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.is_dir())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).expect("name");
            let rel = if rel.is_empty() {
                name.to_string()
            } else {
                format!("{rel}/{name}")
            };
            walk(&path, &rel, out);
        }
    }
    let mut out = Vec::new();
    walk(&fixture(""), "", &mut out);
    out
}

/// A copy of `fixtures/<name>` (without caches) in a temporary directory.
fn copy(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture(name), dir.path());
    dir
}

/// Output and exit code of one run, as a snapshot records them.
fn shown(root: &Path, args: &[&str]) -> String {
    let run = memlint(root, args);
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        run.code, run.stdout, run.stderr
    )
}

fn snapshot_name(prefix: &str, rel: &str) -> String {
    format!("{prefix}__{}", rel.replace(['/', '-'], "_"))
}

#[test]
fn rule_list_is_frozen() {
    let run = memlint(Path::new("."), &["rule"]);
    assert_eq!(run.code, 0);
    insta::assert_snapshot!("rule_list", run.stdout);
}

#[test]
fn every_rule_document_is_frozen() {
    let list = memlint(Path::new("."), &["rule"]);
    let names: Vec<&str> = list
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.len() >= 40, "too few rules listed:\n{}", list.stdout);
    let mut all = String::new();
    for name in names {
        let run = memlint(Path::new("."), &["rule", name]);
        assert_eq!(run.code, 0, "memlint rule {name}: {}", run.stderr);
        all.push_str(&format!("=== memlint rule {name}\n{}\n", run.stdout));
    }
    insta::assert_snapshot!("rule_documents", all);
}

#[test]
fn check_json_over_every_fixture_is_frozen() {
    let list = workspaces();
    assert!(list.len() >= 40, "fixture workspaces: {list:?}");
    for rel in list {
        let dir = copy(&rel);
        insta::assert_snapshot!(
            snapshot_name("check", &rel),
            shown(dir.path(), &["check", "--format", "json"])
        );
    }
}

#[test]
fn report_json_is_frozen() {
    for rel in ["example", "report"] {
        let dir = copy(rel);
        insta::assert_snapshot!(
            snapshot_name("report", rel),
            shown(dir.path(), &["report", "--format", "json"])
        );
    }
}

#[test]
fn search_json_is_frozen() {
    let cases: &[(&str, &[&str])] = &[
        ("example", &["sqlite", "cache"]),
        ("example", &["amounts"]),
        ("example", &["--all", "amounts"]),
        ("example", &["--kind", "knowledge", "rate", "limit"]),
        ("example", &["丸め"]),
        ("search", &["検索"]),
        ("search", &["git", "reads"]),
        ("search", &["中文"]),
        ("search", &["--limit", "1", "index"]),
    ];
    let mut all = String::new();
    for (rel, query) in cases {
        let dir = copy(rel);
        let mut args = vec!["search", "--format", "json"];
        args.extend_from_slice(query);
        all.push_str(&format!(
            "=== {rel}: {}\n{}\n",
            query.join(" "),
            shown(dir.path(), &args)
        ));
    }
    insta::assert_snapshot!("search_json", all);
}

#[test]
fn context_is_frozen() {
    for rel in ["example", "context"] {
        let dir = copy(rel);
        insta::assert_snapshot!(
            snapshot_name("context", rel),
            shown(dir.path(), &["context"])
        );
        insta::assert_snapshot!(
            snapshot_name("context_brief", rel),
            shown(dir.path(), &["context", "--brief"])
        );
    }
}
