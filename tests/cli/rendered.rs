//! Human `check` output keeps each file's reports rendered in
//! `.memlint/rendered`: a warm check shows the reports of unchanged files
//! without reading those files again, and what it prints is what
//! rendering everything would print: after an edit, at another width or
//! with colours, and whatever state the kept file is in.

use crate::common;

use common::{age, age_directories, decision, write, Memlint};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Ten decisions with a dangling source each (a report showing a line of
/// the record), their files and directories aged so that a warm check
/// trusts their stat data.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    for name in NAMES {
        let rel = format!("memory/decisions/{name}.md");
        write(
            root,
            &rel,
            &decision(name, &[&format!("file:src/{name}.rs")]),
        );
        age(&root.join(rel));
    }
    age_directories(root);
    dir
}

const NAMES: [&str; 10] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
];

/// Standard output of a human `check` with `env`.
fn check(root: &Path, env: &[(&str, &str)]) -> String {
    let run = Memlint::new(root).arg("check").envs(env).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

/// What a check with `env` prints when nothing is kept rendered.
fn rendered_afresh(root: &Path, env: &[(&str, &str)]) -> String {
    let kept = root.join(".memlint/rendered");
    let _ = std::fs::remove_file(&kept);
    check(root, env)
}

fn kept(root: &Path) -> (u64, Vec<u8>) {
    let path = root.join(".memlint/rendered");
    let meta = std::fs::metadata(&path).expect("the reports are kept");
    (meta.ino(), std::fs::read(&path).expect("kept"))
}

#[test]
fn a_warm_check_shows_the_kept_reports_without_reading_their_files() {
    let dir = workspace();
    let root = dir.path();
    // Files changed (their ctime) less than two seconds before a scan are
    // read again to check their hashes: past that, a warm check opens a
    // record only to show it.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let cold = check(root, &[]);
    assert_eq!(cold.matches("names no file").count(), 10, "{cold}");
    let Some((out, trace)) = common::strace(root, "open,openat", &["check"]) else {
        return;
    };
    assert_eq!(out, cold);
    let opened: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains("memory/decisions/"))
        .collect();
    assert!(opened.is_empty(), "records read again: {opened:?}");
}

#[test]
fn an_edited_record_another_width_and_colours_are_rendered_anew() {
    let dir = workspace();
    let root = dir.path();
    let cold = check(root, &[]);
    let before = kept(root);
    // One record of ten edited: its reports show its new text, the nine
    // others come from the kept file, which is left as it is.
    let rel = "memory/decisions/delta.md";
    let text = std::fs::read_to_string(root.join(rel)).expect("read");
    write(
        root,
        rel,
        &text.replace("file:src/delta.rs", "file:src/delta-two.rs"),
    );
    let edited = check(root, &[]);
    assert_ne!(edited, cold);
    assert!(edited.contains("file:src/delta-two.rs"), "{edited}");
    assert_eq!(kept(root), before, "the kept reports were written again");
    assert_eq!(edited, rendered_afresh(root, &[]));
    // Another width, then colours: rendered anew, and the same as without
    // anything kept.
    let narrow = [("COLUMNS", "40")];
    let at_40 = check(root, &narrow);
    assert_ne!(at_40, edited);
    assert_eq!(check(root, &narrow), at_40);
    assert_eq!(at_40, rendered_afresh(root, &narrow));
    let colour = Memlint::new(root)
        .args(["check", "--color", "always"])
        .env_remove("NO_COLOR")
        .run()
        .stdout;
    assert!(colour.contains('\u{1b}'), "{colour}");
    let again = Memlint::new(root)
        .args(["check", "--color", "always"])
        .env_remove("NO_COLOR")
        .run()
        .stdout;
    assert_eq!(again, colour);
    assert_eq!(check(root, &[]), edited);
}

#[test]
fn a_damaged_or_older_kept_file_is_ignored_and_rebuilt() {
    let dir = workspace();
    let root = dir.path();
    let cold = check(root, &[]);
    let (_, good) = kept(root);
    let path = root.join(".memlint/rendered");
    let mut older = good.clone();
    // The layout version, after the magic and the format.
    older[12] = older[12].wrapping_add(1);
    let mut flipped = good.clone();
    let middle = good.len() / 2;
    flipped[middle] ^= 0x20;
    let damaged = [
        good[..good.len() / 2].to_vec(),
        good[..good.len() - 1].to_vec(),
        flipped,
        older,
        b"not a cache".to_vec(),
        Vec::new(),
    ];
    for bytes in damaged {
        std::fs::write(&path, &bytes).expect("damage");
        assert_eq!(check(root, &[]), cold);
        assert_eq!(kept(root).1, good, "not rebuilt from {bytes:?}");
    }
}

#[test]
fn a_check_of_some_paths_shows_their_reports_as_rendered_afresh() {
    let dir = workspace();
    let root = dir.path();
    check(root, &[]);
    let some = |root: &Path| {
        let run = Memlint::new(root)
            .args([
                "check",
                "memory/decisions/bravo.md",
                "memory/decisions/golf.md",
            ])
            .run();
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let kept_then = some(root);
    assert_eq!(kept_then.matches("names no file").count(), 2, "{kept_then}");
    let _ = std::fs::remove_file(root.join(".memlint/rendered"));
    assert_eq!(some(root), kept_then);
    // And the whole check after it, whatever the selection kept.
    let whole = check(root, &[]);
    assert_eq!(whole, rendered_afresh(root, &[]));
}

/// A check of a few paths (a pre-commit hook's, an editor's) uses the kept
/// reports but does not rewrite them: before, checking one edited record
/// left `.memlint/rendered` holding that record's reports alone, and the
/// next whole check read and rendered every other record again.
#[test]
fn a_check_of_some_paths_leaves_the_kept_reports_whole() {
    let dir = workspace();
    let root = dir.path();
    let whole = check(root, &[]);
    let (ino, bytes) = kept(root);
    // One record edited (its report changes) and checked alone.
    let rel = "memory/decisions/bravo.md";
    write(root, rel, &decision("bravo", &["file:src/bravo-two.rs"]));
    let run = Memlint::new(root).args(["check", rel]).run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("src/bravo-two.rs"), "{}", run.stdout);
    assert_eq!(kept(root), (ino, bytes), "the kept reports were rewritten");
    // The whole check after it prints what rendering everything prints.
    let after = check(root, &[]);
    assert_ne!(after, whole);
    assert_eq!(after, rendered_afresh(root, &[]));
}

#[test]
fn a_warm_check_prints_kept_reports_masked_and_with_controls_shown_as_cold() {
    // A credential in a URL's password and a BEL in a record with a
    // finding: the cold check masks the one and shows the other as a
    // symbol; the warm check, whose reports come from `.memlint/rendered`,
    // prints the same bytes (kept reports take the last output pass too).
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let token = format!("ghp_{}", "0123456789abcdefghijABCDEFGHIJ012345");
    let rel = "memory/decisions/r1.md";
    write(
        root,
        rel,
        &format!(
            "---\ntitle: t1\nstatus: active\ndate: 2026-01-02\nsources:\n  - https://example.com\n---\n\nhttps://u:{token}@host.com x \u{7}\n"
        ),
    );
    age(&root.join(rel));
    age_directories(root);
    let run = |root: &Path| Memlint::new(root).args(["check", "--color", "never"]).run();
    let cold = run(root);
    assert_eq!(cold.code, 1, "{cold:?}");
    assert!(!cold.stdout.contains(&token), "{}", cold.stdout);
    assert!(!cold.stdout.contains('\u{7}'), "{}", cold.stdout);
    assert!(cold.stdout.contains('\u{2407}'), "{}", cold.stdout);
    assert!(!kept(root).1.is_empty(), "the reports are kept");
    let warm = run(root);
    assert_eq!(warm.code, 1, "{warm:?}");
    assert_eq!(warm.stdout, cold.stdout);
}

#[test]
fn control_characters_planted_in_the_kept_reports_are_shown_as_symbols() {
    // Kept reports are stored as the last output pass made them; a file
    // written by someone else (its checksum made right) may hold anything:
    // its control characters still reach the terminal as symbols.
    let dir = workspace();
    let root = dir.path();
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let cold = check(root, &[]);
    assert!(cold.contains("src/alpha.rs"), "{cold}");
    let (_, mut bytes) = kept(root);
    let body = bytes.len() - 8;
    let at = bytes[..body]
        .windows(b"src/alpha.rs".len())
        .position(|w| w == b"src/alpha.rs")
        .expect("the report of alpha is kept");
    // `src/` becomes ESC ] 0 ; (a terminal title) and a BEL follows `alpha`.
    bytes[at..at + 4].copy_from_slice(b"\x1b]0;");
    bytes[at + 9] = 0x07;
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(root.join(".memlint/rendered"), &bytes).expect("plant");
    let warm = check(root, &[]);
    assert!(
        !warm.contains('\u{1b}') && !warm.contains('\u{7}'),
        "{warm:?}"
    );
    assert!(warm.contains("\u{241b}]0;alpha\u{2407}rs"), "{warm}");
}
