//! `memlint export agents-md` and `context/export-stale`: every real
//! `AGENTS.md` of `../shared/import-samples/agents-md` (skipped with a
//! message when absent) keeps every byte outside the markers, LF and CRLF;
//! a second run changes nothing; a stale block is reported and `check
//! --fix` rewrites it; conflict markers are never written over; secrets
//! are masked; the budget holds.

use crate::common;

use common::{memlint, write, TempWorkspace};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- memlint:begin -->";
const END: &str = "<!-- memlint:end -->";

fn samples() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/import-samples/agents-md");
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipping: {} is absent (../shared is not beside the crate)",
            path.display()
        );
        None
    }
}

fn agents_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            agents_files(&p, out);
        } else if p.file_name().is_some_and(|n| n == "AGENTS.md") {
            out.push(p);
        }
    }
}

fn workspace() -> tempfile::TempDir {
    TempWorkspace::new()
        .init()
        .file("knowledge/house-style.md", "---\ntitle: House style\ndescription: Tabs, never spaces.\nmodel_invocation: true\ndate: 2026-04-01\nsources:\n  - https://example.com/style\n---\n\nIndent with tabs.\n")
        .file("memory/decisions/use-sqlite.md", "---\ntitle: Use SQLite for local state\nstatus: active\ndate: 2026-04-02\nsources:\n  - https://example.com/adr/1\n---\n\nOne file, no server.\n")
        .build()
}

fn check_json(root: &Path) -> (i32, Value) {
    let run = memlint(root, &["check", "--format", "json"]);
    (run.code, serde_json::from_str(&run.stdout).unwrap())
}

fn stale_paths(json: &Value) -> Vec<String> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "context/export-stale")
        .map(|d| d["path"].as_str().unwrap().to_string())
        .collect()
}

/// Every sample, as written and with CRLF line endings: the bytes before
/// the block are the file's own, byte for byte; a second export and a
/// check change and report nothing; a new decision makes the block stale
/// and `check --fix` brings it back, outside bytes still untouched.
#[test]
fn every_agents_md_sample_keeps_its_bytes_and_the_block_stays_fresh() {
    let Some(dir) = samples() else { return };
    let mut files = Vec::new();
    agents_files(&dir, &mut files);
    assert!(files.len() >= 40, "only {} samples", files.len());
    let tmp = workspace();
    let root = tmp.path();
    for (i, f) in files.iter().enumerate() {
        let original = fs::read(f).unwrap();
        let crlf = i % 2 == 1;
        let original = match crlf {
            true => String::from_utf8(original)
                .unwrap()
                .replace("\r\n", "\n")
                .replace('\n', "\r\n")
                .into_bytes(),
            false => original,
        };
        fs::write(root.join("AGENTS.md"), &original).unwrap();
        let run = memlint(root, &["export", "agents-md"]);
        assert_eq!(run.code, 0, "{}: {}", f.display(), run.stderr);
        assert_eq!(run.stdout, "AGENTS.md: memory block written\n");
        let after = fs::read(root.join("AGENTS.md")).unwrap();
        assert!(
            after.starts_with(&original),
            "{}: bytes before the block changed",
            f.display()
        );
        let text = String::from_utf8(after.clone()).unwrap();
        assert!(
            text.contains("> house-style — Tabs, never spaces.")
                && text.contains("> memory/decisions/use-sqlite.md — Use SQLite for local state"),
            "{text}"
        );
        if crlf {
            assert!(
                !text.replace("\r\n", "").contains('\n'),
                "{}: a bare LF in a CRLF file",
                f.display()
            );
        }
        let again = memlint(root, &["export", "agents-md"]);
        assert_eq!(
            again.stdout,
            "AGENTS.md: memory block up to date; nothing changed\n"
        );
        assert_eq!(fs::read(root.join("AGENTS.md")).unwrap(), after);
        let (code, json) = check_json(root);
        assert_eq!((code, stale_paths(&json)), (0, vec![]), "{}", f.display());
        if i % 10 == 0 {
            let slug = format!("decision-{i}");
            write(root, &format!("memory/decisions/{slug}.md"), &format!("---\ntitle: Decision {i}\nstatus: active\ndate: 2026-05-01\nsources:\n  - https://example.com/{i}\n---\n\nMade.\n"));
            let (_, json) = check_json(root);
            assert_eq!(stale_paths(&json), vec!["AGENTS.md"]);
            assert_eq!(memlint(root, &["check", "--fix"]).code, 0);
            let fixed = fs::read(root.join("AGENTS.md")).unwrap();
            assert!(fixed.starts_with(&original));
            assert!(String::from_utf8(fixed)
                .unwrap()
                .contains(&format!("memory/decisions/{slug}.md — Decision {i}")));
            assert!(stale_paths(&check_json(root).1).is_empty());
            fs::remove_file(root.join(format!("memory/decisions/{slug}.md"))).unwrap();
        }
    }
}

/// Text after the block stays too; the other target files work; a file
/// holding conflict markers is never written.
#[test]
fn text_after_the_block_stays_and_conflicts_are_refused() {
    let tmp = workspace();
    let root = tmp.path();
    let old = format!("# Claude\n\nIntro.\n\n{BEGIN}\nold stuff\n{END}\n\n## After\n\nKept.\n");
    fs::write(root.join("CLAUDE.md"), &old).unwrap();
    let run = memlint(root, &["export", "agents-md", "--file", "CLAUDE.md"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = fs::read_to_string(root.join("CLAUDE.md")).unwrap();
    assert!(
        text.starts_with(&format!("# Claude\n\nIntro.\n\n{BEGIN}\n")),
        "{text}"
    );
    assert!(
        text.ends_with(&format!("{END}\n\n## After\n\nKept.\n")),
        "{text}"
    );
    assert!(!text.contains("old stuff"));
    let run = memlint(
        root,
        &[
            "export",
            "agents-md",
            "--file",
            ".github/copilot-instructions.md",
        ],
    );
    assert_eq!(
        run.stdout,
        ".github/copilot-instructions.md: created with the memory block\n"
    );
    let conflict = "# A\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n";
    fs::write(root.join("GEMINI.md"), conflict).unwrap();
    let run = memlint(root, &["export", "agents-md", "--file", "GEMINI.md"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "memlint: error: GEMINI.md: it holds merge conflict markers; resolve the conflict first\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("GEMINI.md")).unwrap(),
        conflict
    );
    let run = memlint(root, &["export", "agents-md", "--file", "README.md"]);
    assert_eq!(run.code, 2);
}

/// The block holds no credential, and keeps to its budget.
#[test]
fn the_block_masks_secrets_and_keeps_to_its_budget() {
    let tmp = workspace();
    let root = tmp.path();
    let token = format!("ghp_{}", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
    write(root, "knowledge/token.md", &format!("---\ntitle: Token\ndescription: the token is {token}\nmodel_invocation: true\ndate: 2026-04-03\nsources:\n  - https://example.com/t\n---\n\nx\n"));
    for i in 0..60 {
        write(root, &format!("knowledge/fact-{i:02}.md"), &format!("---\ntitle: Fact {i}\ndescription: A lasting fact number {i} that every session should know about.\nmodel_invocation: true\ndate: 2026-04-01\nsources:\n  - https://example.com/{i}\n---\n\nx\n"));
    }
    fs::write(
        root.join(".memlint.yml"),
        "context: {export_max_chars: 1500}\n",
    )
    .unwrap();
    assert_eq!(memlint(root, &["export", "agents-md"]).code, 0);
    let text = fs::read_to_string(root.join("AGENTS.md")).unwrap();
    assert!(!text.contains(&token[4..]), "{text}");
    assert!(
        text.chars().count() <= 1500,
        "{} chars",
        text.chars().count()
    );
    assert!(text.contains(" more: `memlint search`)\n"), "{text}");
    assert!(text.ends_with(&format!("{END}\n")));
}

/// Markers shown inside fenced code (``` or ~~~) are an example, not the
/// block: `check` does not report them, `export` keeps the example byte
/// for byte and appends the real block after the fence, and a file that
/// documents the markers in a fence and also holds the real block is
/// exported (not refused as holding the marker twice).
#[test]
fn markers_inside_fenced_code_are_not_the_block() {
    let tmp = workspace();
    // One example in a fence, no block: nothing stale, nothing rewritten.
    let example = format!("# Agents\n\n```\n{BEGIN}\nexample text\n{END}\n```\n");
    fs::write(tmp.path().join("AGENTS.md"), &example).unwrap();
    let (_, json) = check_json(tmp.path());
    assert!(stale_paths(&json).is_empty(), "{json:#}");
    memlint(tmp.path(), &["check", "--fix"]);
    assert_eq!(
        fs::read_to_string(tmp.path().join("AGENTS.md")).unwrap(),
        example
    );
    let doc = format!(
        "# Agents\n\nThe block looks like this:\n\n```markdown\n{BEGIN}\nexample text\n{END}\n```\n\n~~~\n{BEGIN}\n~~~\n"
    );
    fs::write(tmp.path().join("AGENTS.md"), &doc).unwrap();
    let (_, json) = check_json(tmp.path());
    assert!(stale_paths(&json).is_empty(), "{json:#}");
    let fix = memlint(tmp.path(), &["check", "--fix"]);
    assert_eq!(
        fs::read_to_string(tmp.path().join("AGENTS.md")).unwrap(),
        doc,
        "{fix:?}"
    );
    let run = memlint(tmp.path(), &["export", "agents-md"]);
    assert_eq!(run.code, 0, "{run:?}");
    let text = fs::read_to_string(tmp.path().join("AGENTS.md")).unwrap();
    let (head, block) = text.split_at(doc.len());
    assert_eq!(head, doc);
    assert!(block.starts_with(&format!("\n{BEGIN}\n")), "{text}");
    assert!(
        block.contains("house-style — Tabs, never spaces."),
        "{text}"
    );
    assert!(block.ends_with(&format!("{END}\n")), "{text}");
    // Twice: the block is found again, nothing changes, nothing is stale.
    assert_eq!(memlint(tmp.path(), &["export", "agents-md"]).code, 0);
    assert_eq!(
        fs::read_to_string(tmp.path().join("AGENTS.md")).unwrap(),
        text
    );
    let (_, json) = check_json(tmp.path());
    assert!(stale_paths(&json).is_empty(), "{json:#}");
    // A stale real block is rewritten; the fenced example stays.
    write(tmp.path(), "memory/decisions/use-gix.md", "---\ntitle: Use gix for git reads\nstatus: active\ndate: 2026-04-03\nsources:\n  - https://example.com/adr/2\n---\n\nNo subprocess.\n");
    let (_, json) = check_json(tmp.path());
    assert_eq!(stale_paths(&json), vec!["AGENTS.md".to_string()]);
    memlint(tmp.path(), &["check", "--fix"]);
    let fixed = fs::read_to_string(tmp.path().join("AGENTS.md")).unwrap();
    assert!(fixed.starts_with(&doc), "{fixed}");
    assert!(
        fixed.contains("use-gix.md — Use gix for git reads"),
        "{fixed}"
    );
    // A fence never closed: the block appended would be code, found by
    // no later run; the file is left alone and the reason given.
    let open = "# Agents\n\n```\nnot closed\n";
    fs::write(tmp.path().join("CLAUDE.md"), open).unwrap();
    let run = memlint(tmp.path(), &["export", "agents-md", "--file", "CLAUDE.md"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: error: CLAUDE.md: it ends inside a fenced code block that is never closed; close the fence first\n"
    );
    assert_eq!(
        fs::read_to_string(tmp.path().join("CLAUDE.md")).unwrap(),
        open
    );
}
