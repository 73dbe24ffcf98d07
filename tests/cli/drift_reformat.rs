//! A commit that only reformats a record (`memlint fmt`, an editor's
//! formatter) does not make it written anew against the code it cites:
//! `sources/drifted` judges the record from the commit before, in the work
//! tree and on a change (`--base`, `--staged`).

use crate::common;

use common::{commit, git, memlint, write, TempWorkspace};
use std::path::Path;

const RECORD: &str = "memory/decisions/cache.md";

/// The decision, its keys out of memlint's order and its flow list
/// spaced: `memlint fmt` rewrites it.
fn untidy(body: &str) -> String {
    format!(
        "---\nsources:\n- file:src/a.rs\n- file:src/b.rs#L2\ntags: [cache,   io]\ntitle: Cache\nstatus: active\ndate: 2026-01-02\n---\n\n{body}\n"
    )
}

/// (line, message, commits) of the `sources/drifted` findings.
fn drifted(root: &Path, args: &[&str]) -> Vec<(u64, String, Vec<String>)> {
    common::rule_json(root, "sources/drifted", args)
        .iter()
        .map(|d| {
            let commits = d["commits"].as_array().map_or(Vec::new(), |c| {
                c.iter()
                    .map(|v| v.as_str().unwrap_or("").to_string())
                    .collect()
            });
            (
                d["line"].as_u64().unwrap_or(0),
                d["message"].as_str().unwrap_or("").to_string(),
                commits,
            )
        })
        .collect()
}

fn head(root: &Path) -> String {
    git(root, &["rev-parse", "HEAD"])
}

/// A repository holding the decision `record` and the two files it cites.
fn written(record: &str) -> tempfile::TempDir {
    TempWorkspace::new()
        .git()
        .file("src/a.rs", "a1\na2\n")
        .file("src/b.rs", "b1\nb2\nb3\n")
        .file(RECORD, record)
        .commit("Write the decision")
        .build()
}

/// [`written`] with `record`, then a commit changing both files (line 2
/// of `src/b.rs`): its id.
fn written_then_changed_with(record: &str) -> (tempfile::TempDir, String) {
    let dir = written(record);
    let root = dir.path();
    write(root, "src/a.rs", "a1\na2\na3\n");
    write(root, "src/b.rs", "b1\nB2\nb3\n");
    commit(root, "Change the code");
    let changed = head(root);
    (dir, changed)
}

/// [`written_then_changed_with`] the untidy decision.
fn written_then_changed() -> (tempfile::TempDir, String) {
    written_then_changed_with(&untidy("Body."))
}

/// Runs `memlint fmt` on the record; true when it rewrote it.
fn format(root: &Path) -> bool {
    let before = std::fs::read_to_string(root.join(RECORD)).expect("read");
    let run = memlint(root, &["fmt", RECORD]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    std::fs::read_to_string(root.join(RECORD)).expect("read") != before
}

#[test]
fn a_commit_that_only_reformats_the_record_does_not_hide_its_drift() {
    let (dir, changed) = written_then_changed();
    let root = dir.path();
    let date = git(root, &["log", "-1", "--format=%ad", "--date=short"]);
    let drift = |line: u64, source: &str| {
        let what = match source.contains("#L") {
            true => format!("the lines `{source}` cites"),
            false => format!("`{source}`"),
        };
        (
            line,
            format!("{what} changed after this record was last written: 1 commit, the newest {} ({date}, \"Change the code\"); check the record against it, then verify it or replace it", &changed[..7]),
            vec![changed.clone()],
        )
    };
    let both = vec![drift(3, "file:src/a.rs"), drift(4, "file:src/b.rs#L2")];
    assert_eq!(drifted(root, &[]), both);
    // Reformatted and committed: the keys move, the drift stays, named by
    // the commit that changed the code, cold (the walk stops at the
    // formatting commit and must go on) and warm.
    assert!(format(root));
    commit(root, "Format memory");
    let moved = vec![drift(6, "file:src/a.rs"), drift(7, "file:src/b.rs#L2")];
    std::fs::remove_dir_all(root.join(".memlint")).expect("no cache");
    assert_eq!(drifted(root, &[]), moved);
    assert_eq!(drifted(root, &[]), moved);
    // The record's line endings converted to CRLF and back, trailing
    // spaces and blank lines added to its body: still the same record.
    let text = std::fs::read_to_string(root.join(RECORD)).expect("read");
    write(
        root,
        RECORD,
        &text
            .replace('\n', "\r\n")
            .replace("Body.", "Body.   \r\n\r\n"),
    );
    commit(root, "Line endings");
    assert_eq!(drifted(root, &[]), moved);
    // A body edit is a write: the record was read against the code.
    write(root, RECORD, &text.replace("Body.", "Body, read again."));
    commit(root, "Read the decision again");
    assert_eq!(drifted(root, &[]), vec![]);
    std::fs::remove_dir_all(root.join(".memlint")).expect("no cache");
    assert_eq!(drifted(root, &[]), vec![]);
}

#[test]
fn a_reformatting_commit_that_changes_a_cited_file_counts_as_its_change() {
    let dir = written(&untidy("Body."));
    let root = dir.path();
    assert!(format(root));
    write(root, "src/a.rs", "a0\n");
    commit(root, "Format memory and change a");
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, &found[0].2), (6, &vec![head(root)]));
    assert!(
        found[0].1.contains("\"Format memory and change a\""),
        "{found:?}"
    );
}

#[test]
fn a_change_that_only_reformats_the_record_leaves_it_as_it_was() {
    let (dir, _) = written_then_changed();
    let root = dir.path();
    git(root, &["switch", "-q", "-c", "feature"]);
    assert!(format(root));
    write(root, "src/a.rs", "a1\n");
    commit(root, "Format memory and change a");
    let found = drifted(root, &["--base", "main"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 6);
    assert!(
        found[0]
            .1
            .starts_with("this change modifies `src/a.rs`, cited by `memory/decisions/cache.md`"),
        "{found:?}"
    );
    // Staged, the same.
    git(root, &["switch", "-q", "main"]);
    assert!(format(root));
    write(root, "src/b.rs", "b1\nb2 changed\nb3\n");
    git(root, &["add", "-A"]);
    let found = drifted(root, &["--staged"]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .1
            .starts_with("the staged change modifies `src/b.rs#L2`"),
        "{found:?}"
    );
    // A change that rewrites what the record says is its own judgement.
    let text = std::fs::read_to_string(root.join(RECORD)).expect("read");
    write(
        root,
        RECORD,
        &text.replace("title: Cache", "title: Cache, read again"),
    );
    git(root, &["add", "-A"]);
    assert_eq!(drifted(root, &["--staged"]), vec![]);
}

#[test]
fn fix_pins_the_sources_as_the_record_was_written_before_it_was_reformatted() {
    // The decision lists `src/a.rs` twice: `sources/duplicate`'s fix
    // rewrites the record, and pins its drifted sources as its last real
    // write held them, so that the drift outlives the fix.
    let twice = untidy("Body.").replace("- file:src/a.rs\n", "- file:src/a.rs\n- file:src/a.rs\n");
    let (dir, _) = written_then_changed_with(&twice);
    let root = dir.path();
    assert!(format(root));
    commit(root, "Format memory");
    let run = memlint(root, &["check", "--fix"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let pin = |bytes: &[u8]| format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(bytes));
    let fixed = std::fs::read_to_string(root.join(RECORD)).expect("read");
    assert!(
        fixed.contains(&format!(
            "pins:\n  - file:src/a.rs {}\n  - file:src/b.rs#L2 {}\n",
            pin(b"a1\na2\n"),
            pin(b"b2\n")
        )),
        "{fixed}"
    );
    commit(root, "Fix the record");
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found
            .iter()
            .all(|f| f.1.contains("no longer matches its pin")),
        "{found:?}"
    );
}

#[test]
fn lines_moved_or_a_file_renamed_after_the_reformatting_are_still_drift() {
    // The cited lines changed, memory was reformatted, then a line was
    // inserted above them: from the formatting commit they only moved, but
    // they changed since the record was written. `--fix` must not move the
    // range as if they had not.
    let (dir, changed) = written_then_changed();
    let root = dir.path();
    assert!(format(root));
    commit(root, "Format memory");
    write(root, "src/b.rs", "b0\nb1\nB2\nb3\n");
    git(root, &["mv", "src/a.rs", "src/c.rs"]);
    commit(root, "Insert a line and rename a");
    let moved = head(root);
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 2, "{found:?}");
    for (line, message, commits) in &found {
        assert!(
            message.contains("changed after this record was last written: 2 commits"),
            "{line}: {message}"
        );
        assert_eq!(commits, &vec![moved.clone(), changed.clone()]);
    }
    let run = memlint(root, &["check", "--fix"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(root.join(RECORD)).expect("read");
    assert!(text.contains("  - file:src/b.rs#L2\n"), "{text}");
    assert_eq!(drifted(root, &[]).len(), 2);
}

#[test]
fn a_reformatting_not_committed_yet_does_not_hide_drift() {
    let (dir, changed) = written_then_changed();
    let root = dir.path();
    assert!(format(root));
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found.iter().all(|f| f.2 == vec![changed.clone()]),
        "{found:?}"
    );
    // An edit not committed yet is still not judged.
    let text = std::fs::read_to_string(root.join(RECORD)).expect("read");
    write(root, RECORD, &text.replace("Body.", "Body, edited."));
    assert_eq!(drifted(root, &[]), vec![]);
}
