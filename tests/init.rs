//! `memlint init`: creates the layout, a `.memlint.yml` that parses, and the
//! `.gitignore` lines, never clobbering what exists; a second run changes
//! nothing.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_memlint");

/// Runs `memlint ARGS` in `dir`: (exit code, stdout).
fn memlint(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run memlint");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "memlint {args:?}: {stderr}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Every file and directory under `root` with its contents (`None` for a
/// directory).
fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            let rel = path
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                out.insert(format!("{rel}/"), None);
                walk(root, &path, out);
            } else {
                out.insert(rel, Some(std::fs::read(&path).expect("read")));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn init_creates_the_layout() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let (code, out) = memlint(root, &["init"]);
    assert_eq!(code, 0, "{out}");
    let files = tree(root);
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        vec![
            ".gitignore",
            ".memlint.yml",
            "CONTEXT.md",
            "knowledge/",
            "knowledge/.gitkeep",
            "memory/",
            "memory/decisions/",
            "memory/decisions/.gitkeep",
            "memory/requests/",
            "memory/requests/.gitkeep",
            "memory/sessions/",
            "memory/sessions/.gitkeep",
            "memory/summary.md",
            "staging/",
            "staging/.gitkeep",
        ]
    );
    for line in [
        "created memory/decisions/",
        "created .memlint.yml",
        "created CONTEXT.md",
    ] {
        assert!(out.contains(line), "{line:?} not in {out}");
    }
    let gitignore = String::from_utf8(files[".gitignore"].clone().expect("file")).expect("UTF-8");
    let lines: Vec<&str> = gitignore.lines().collect();
    assert!(lines.contains(&".memlint/"), "{gitignore}");
    assert!(
        lines.contains(&"staging/.consolidation.lock"),
        "{gitignore}"
    );

    // The new workspace lints clean, with the configuration it was given.
    let (code, out) = memlint(root, &["check", "--color", "never"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "No problems in 2 files.\n");
}

#[test]
fn init_config_parses_to_the_defaults() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (code, _) = memlint(tmp.path(), &["init"]);
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(tmp.path().join(".memlint.yml")).expect("config");
    let config = memlint::config::parse(&text, &memlint::rules::names())
        .unwrap_or_else(|e| panic!("the written .memlint.yml does not parse: {e}"));
    assert_eq!(config, memlint::config::Config::default());
    // Every key of SPEC §8 is spelled out for the user to edit.
    for key in [
        "banned_dirs:",
        "max_sources:",
        "max_body_chars:",
        "similar_slug_ratio:",
        "summary_max_tokens:",
        "max_file_bytes:",
        "rules:",
        "context:",
        "staging:",
        "post_write:",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(key)),
            "{key} missing from\n{text}"
        );
    }
}

#[test]
fn init_appends_to_an_existing_gitignore() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    // No final newline, and one of the two lines already there (without its
    // slash).
    std::fs::write(root.join(".gitignore"), "target/\n.memlint\n*.log").expect("write");
    let (code, out) = memlint(root, &["--root", ".", "init"]);
    assert_eq!(code, 0, "{out}");
    let text = std::fs::read_to_string(root.join(".gitignore")).expect("read");
    assert!(text.starts_with("target/\n.memlint\n*.log\n"), "{text:?}");
    let added: Vec<&str> = text
        .lines()
        .skip(3)
        .filter(|l| !l.starts_with('#'))
        .collect();
    assert_eq!(added, vec!["staging/.consolidation.lock"], "{text:?}");
    assert!(text.ends_with('\n'));
}

#[test]
fn init_keeps_existing_files() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    std::fs::write(root.join(".memlint.yml"), "max_sources: 4\n").expect("write");
    std::fs::write(root.join("CONTEXT.md"), "# Context\n\n## 2026-11-03 Kept\n").expect("write");
    let (code, out) = memlint(root, &["init"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("created .memlint.yml"), "{out}");
    assert_eq!(
        std::fs::read_to_string(root.join(".memlint.yml")).expect("read"),
        "max_sources: 4\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("CONTEXT.md")).expect("read"),
        "# Context\n\n## 2026-11-03 Kept\n"
    );
    assert!(root.join("memory/summary.md").is_file());
}

#[test]
fn second_init_changes_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    std::fs::write(root.join(".gitignore"), "node_modules/\n").expect("write");
    assert_eq!(memlint(root, &["init"]).0, 0);
    let before = tree(root);
    let (code, out) = memlint(root, &["init"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("already initialised; nothing changed"),
        "{out}"
    );
    assert_eq!(tree(root), before);
}
