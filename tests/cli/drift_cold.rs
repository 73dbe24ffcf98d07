//! What a cold `check` reads for `sources/drifted` (issue 45's speed): the
//! citing records are not read again after linting, and the history is
//! walked only as far back as the records judged need.

use crate::common;

use common::{commit, decision, git, write, TempWorkspace};
use std::path::Path;

/// (path, line, message) of the `sources/drifted` findings of a check.
fn drifted(root: &Path) -> Vec<(String, u64, String)> {
    common::rule_messages(root, "sources/drifted", &[])
}

/// The loose object file of `rev` (a fresh test repository packs nothing).
fn loose_object(root: &Path, rev: &str) -> std::path::PathBuf {
    let id = git(root, &["rev-parse", rev]);
    root.join(".git/objects").join(&id[..2]).join(&id[2..])
}

#[test]
fn drift_is_judged_when_history_older_than_every_citing_record_is_unreadable() {
    let dir = TempWorkspace::new()
        .git()
        .file("src/old.rs", "old\n")
        .commit("An old commit")
        .file("src/other.rs", "other\n")
        .commit("Another")
        .file("src/a.rs", "a\n")
        .file(
            "memory/decisions/cache.md",
            &decision("Cache", &["file:src/a.rs"]),
        )
        .commit("Write the decision")
        .build();
    let root = dir.path();
    write(root, "src/a.rs", "a2\n");
    commit(root, "Change a");
    // The first commit's tree is gone: only commits older than every
    // citing record's last change need it, and none of them is read.
    let tree = loose_object(root, "HEAD~3^{tree}");
    std::fs::remove_file(&tree).expect("remove the oldest tree");
    let found = drifted(root);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "memory/decisions/cache.md");
    assert!(found[0].2.contains("Change a"), "{}", found[0].2);
    // Warm, and again cold: the same.
    assert_eq!(drifted(root), found);
    std::fs::remove_dir_all(root.join(".memlint")).expect("rm .memlint");
    assert_eq!(drifted(root), found);
}

#[test]
fn a_stored_walk_that_stopped_early_is_walked_further_when_an_older_record_needs_it() {
    let dir = TempWorkspace::new()
        .git()
        .file("src/a.rs", "a\n")
        .file("src/b.rs", "b\n")
        .file(
            "memory/decisions/old.md",
            &decision("Old", &["file:src/b.rs"]),
        )
        .commit("Write the old decision")
        .file(
            "memory/decisions/new.md",
            &decision("New", &["file:src/a.rs"]),
        )
        .commit("Write the new decision")
        .build();
    let root = dir.path();
    write(root, "src/a.rs", "a2\n");
    write(root, "src/b.rs", "b2\n");
    commit(root, "Change a and b");
    // The old record is edited in the work tree: not judged, so the walk
    // needs only the newest two commits.
    let old = root.join("memory/decisions/old.md");
    let text = std::fs::read_to_string(&old).expect("read");
    write(root, "memory/decisions/old.md", &format!("{text}\nMore.\n"));
    let first = drifted(root);
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0].0, "memory/decisions/new.md");
    assert!(first[0].2.contains("Change a and b"), "{first:?}");
    // Back as committed, HEAD unmoved: the stored walk goes on to its
    // commit, as a cold run does.
    git(root, &["checkout", "--", "memory/decisions/old.md"]);
    let warm = drifted(root);
    std::fs::remove_dir_all(root.join(".memlint")).expect("rm .memlint");
    let cold = drifted(root);
    assert_eq!(warm, cold);
    assert_eq!(warm.len(), 2, "{warm:?}");
    assert!(
        warm.iter().all(|f| f.2.contains("Change a and b")),
        "{warm:?}"
    );
}

/// How many times `check --format json` opens `rel`, as `strace` sees it
/// (`None` when `strace` cannot run here).
fn opened(root: &Path, rel: &str) -> Option<usize> {
    let log = root.join(".git/memlint-strace.log");
    let status = std::process::Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat,openat2", "-o"])
        .arg(&log)
        .arg(common::BIN)
        .args(["check", "--format", "json"])
        .current_dir(root)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    assert!(status.code().is_some(), "{status:?}");
    let trace = std::fs::read_to_string(&log).ok()?;
    std::fs::remove_file(&log).expect("remove the trace");
    let name = Path::new(rel).file_name()?.to_str()?;
    Some(
        trace
            .lines()
            .filter(|l| l.contains(name) && !l.contains("= -1"))
            .count(),
    )
}

#[test]
fn a_cold_check_reads_each_citing_record_once() {
    if !common::strace_runs() {
        return;
    }
    let dir = TempWorkspace::new()
        .git()
        .file("src/a.rs", "a\n")
        .file(
            "memory/decisions/cache.md",
            &decision("Cache", &["file:src/a.rs"]),
        )
        .commit("Write the decision")
        .build();
    let root = dir.path();
    write(root, "src/a.rs", "a2\n");
    commit(root, "Change a");
    // The git index vouches for the record once its stat data are older
    // than the index file.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    git(root, &["update-index", "--really-refresh"]);
    assert_eq!(opened(root, "memory/decisions/cache.md"), Some(1));
    assert_eq!(drifted(root).len(), 1);
    // A record whose text could hold pins is read again for them.
    std::fs::remove_dir_all(root.join(".memlint")).expect("rm .memlint");
    write(
        root,
        "memory/decisions/cache.md",
        &decision("Cache, with pins mentioned", &["file:src/a.rs"]),
    );
    commit(root, "Mention pins");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    git(root, &["update-index", "--really-refresh"]);
    assert_eq!(opened(root, "memory/decisions/cache.md"), Some(2));
}

/// How many times a cold check opens the loose object of `src/a.rs` as it
/// was before a commit renamed it (and added a line), with `records`
/// records citing it, all written by one commit; each is found drifted.
/// `None` when `strace` cannot run here.
fn renamed_file_reads(records: usize) -> Option<usize> {
    let text: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    let mut ws = TempWorkspace::new().git().file("src/a.rs", &text);
    for i in 0..records {
        let record = decision(&format!("Decision {i}"), &["file:src/a.rs"]);
        ws = ws.file(&format!("memory/decisions/d{i}.md"), &record);
    }
    let dir = ws.commit("Write the decisions").build();
    let root = dir.path();
    git(root, &["mv", "src/a.rs", "src/b.rs"]);
    write(root, "src/b.rs", &format!("{text}line 41\n"));
    commit(root, "Rename a to b, with a line more");
    let old = loose_object(root, "HEAD~1:src/a.rs");
    let found = drifted(root);
    assert_eq!(found.len(), records, "{found:?}");
    assert!(found.iter().all(|f| f.2.contains("src/b.rs")), "{found:?}");
    std::fs::remove_dir_all(root.join(".memlint")).expect("rm .memlint");
    opened(root, old.to_str().expect("a UTF-8 path"))
}

#[test]
fn a_source_cited_by_records_written_by_one_commit_is_judged_once() {
    if !common::strace_runs() {
        return;
    }
    // Telling where a file went reads its old version: once for the
    // source, however many records (last written by the same commit)
    // cite it, not once per record.
    let one = renamed_file_reads(1);
    assert!(one.is_some_and(|n| n > 0), "{one:?}");
    assert_eq!(renamed_file_reads(3), one);
}

#[test]
fn the_history_walk_reads_each_tree_once() {
    if !common::strace_runs() {
        return;
    }
    // Three commits each change a file of `src/dir`: the walk diffs each
    // against its parent, so the directory's tree as the middle commits
    // left it is in two diffs, and read once.
    let dir = TempWorkspace::new()
        .git()
        .file("src/dir/x.rs", "x\n")
        .file("src/dir/y.rs", "y\n")
        .file("src/dir/z.rs", "z\n")
        .file(
            "memory/decisions/one.md",
            &decision("One", &["file:src/dir/x.rs"]),
        )
        .commit("Write the decision")
        .build();
    let root = dir.path();
    write(root, "src/dir/y.rs", "y2\n");
    commit(root, "Change y");
    write(root, "src/dir/z.rs", "z2\n");
    commit(root, "Change z");
    assert_eq!(drifted(root), Vec::new());
    for rev in ["HEAD~1:src/dir", "HEAD~2:src/dir"] {
        std::fs::remove_dir_all(root.join(".memlint")).expect("rm .memlint");
        let tree = loose_object(root, rev);
        let name = tree.to_str().expect("a UTF-8 path");
        assert_eq!(opened(root, name), Some(1), "{rev}");
    }
}

/// How many stat calls of a `check --format json` name `rel`'s file, as
/// `strace` sees them (`None` when `strace` cannot run here).
fn stated(root: &Path, rel: &str) -> Option<usize> {
    let calls = "stat,lstat,newfstatat,statx,fstatat64";
    let (_, trace) = common::strace(root, calls, &["check", "--format", "json"])?;
    let name = Path::new(rel).file_name()?.to_str()?;
    Some(
        trace
            .lines()
            .filter(|l| l.contains(&format!("{name}\"")) && !l.contains("= -1"))
            .count(),
    )
}

#[test]
fn a_cold_check_stats_no_citing_record_again_to_store_its_verdict() {
    if !common::strace_runs() {
        return;
    }
    let dir = TempWorkspace::new()
        .git()
        .file("src/a.rs", "a\n")
        .file(
            "memory/decisions/cache.md",
            &decision("Cache", &["file:src/a.rs"]),
        )
        .commit("Write the decision")
        .build();
    let root = dir.path();
    write(root, "src/a.rs", "a2\n");
    commit(root, "Change a");
    // The record's stat data are those it was read with (taken from the
    // open file): storing its verdict looks it up by name no more.
    assert_eq!(stated(root, "memory/decisions/cache.md"), Some(0));
    assert!(root.join(".memlint/drift-judged").exists());
    // The stored verdict holds: a warm check says the same, and an edit
    // of the record is seen.
    let found = drifted(root);
    assert_eq!(found.len(), 1, "{found:?}");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    write(
        root,
        "memory/decisions/cache.md",
        &decision("Cache", &["file:src/b.rs"]),
    );
    write(root, "src/b.rs", "b\n");
    commit(root, "Cite b instead");
    assert_eq!(drifted(root), Vec::new());
}

/// Twelve hundred records citing one file, whose answers are shared by
/// source and commit: each gets the finding its own history gives it —
/// written before or after the change, citing the whole file or lines
/// that changed or moved — and a warm check says the same.
#[test]
fn many_records_are_judged_as_each_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    let file = |first: &str| format!("{first}\nkeep 2\nkeep 3\nkeep 4\n");
    write(root, "src/a.rs", &file("one"));
    let source = |i: usize| match i % 3 {
        0 => "file:src/a.rs",
        1 => "file:src/a.rs#L1",
        _ => "file:src/a.rs#L3-L4",
    };
    let name = |i: usize| format!("memory/decisions/d{i:04}.md");
    for i in 0..1200 {
        write(root, &name(i), &decision(&format!("D {i}"), &[source(i)]));
    }
    commit(root, "Write the decisions");
    // Line 1 changes and a line goes in above lines 3-4: a whole-file
    // source drifts, line 1 drifts, lines 3-4 moved to 4-5.
    write(root, "src/a.rs", "two\nkeep 2\nnew\nkeep 3\nkeep 4\n");
    commit(root, "Change a");
    let changed = git(root, &["rev-parse", "HEAD"]);
    // Every fourth record is written again after the change.
    for i in (0..1200).step_by(4) {
        let text = decision(&format!("D {i}"), &[source(i)]) + "Again.\n";
        write(root, &name(i), &text);
    }
    commit(root, "Write some decisions again");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let expected: Vec<(String, String)> = (0..1200)
        .filter_map(|i| {
            let message = match (i % 4, i % 3) {
                (0, _) => return None,
                (_, 0) => "`file:src/a.rs` changed after this record was last written: 1 commit",
                (_, 1) => "the lines `file:src/a.rs#L1` cites changed after this record",
                _ => "the lines `file:src/a.rs#L3-L4` cites are unchanged but now sit at `#L4-L5`",
            };
            Some((name(i), message.to_string()))
        })
        .collect();
    let check = || -> Vec<(String, String, Vec<String>)> {
        let found = common::rule_json(root, "sources/drifted", &[]);
        let text = |v: &serde_json::Value| v.as_str().expect("text").to_string();
        found
            .iter()
            .map(|d| {
                let commits = d["commits"]
                    .as_array()
                    .map(|c| c.iter().map(text).collect());
                (
                    text(&d["path"]),
                    text(&d["message"]),
                    commits.unwrap_or_default(),
                )
            })
            .collect()
    };
    let cold = check();
    assert_eq!(cold.len(), expected.len());
    for ((path, message, commits), (want_path, want)) in cold.iter().zip(&expected) {
        assert_eq!(path, want_path);
        assert!(message.contains(want.as_str()), "{path}: {message}");
        match message.contains("changed after") {
            true => assert_eq!(commits, &[changed.clone()], "{path}"),
            false => assert!(commits.is_empty(), "{path}"),
        }
    }
    assert_eq!(check(), cold);
}
