//! A warm `check` with `sources/drifted` on leaves the files under
//! `.memlint/` that nothing changed as they are (issue 45's warm target):
//! the stored verdicts while only a record not committed is edited, the
//! drift marks while they are the same. What is reported stays the same,
//! and a stored file is still replaced when HEAD moves.

use crate::common;

use common::{commit, decision, git, memlint, write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// (path, line, message) of the `sources/drifted` findings of a check.
fn drifted(root: &Path) -> Vec<(String, u64, String)> {
    common::rule_messages(root, "sources/drifted", &[])
}

/// The inode and bytes of a file under `.memlint/`: a file replaced (even
/// with the same bytes) has another inode.
fn stored(root: &Path, name: &str) -> (u64, Vec<u8>) {
    let path = root.join(".memlint").join(name);
    let meta = std::fs::metadata(&path).expect(name);
    (meta.ino(), std::fs::read(&path).expect(name))
}

/// A repository where two decisions cite `src/a.rs`, changed after them.
fn drifted_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "src/a.rs", "a\n");
    for name in ["one", "two"] {
        write(
            root,
            &format!("memory/decisions/{name}.md"),
            &decision(name, &["file:src/a.rs"]),
        );
    }
    commit(root, "Write the decisions");
    write(root, "src/a.rs", "a2\n");
    commit(root, "Change a");
    // A file changed within two seconds of a run is read again by the
    // next one (its stat data cannot vouch for it): past that.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    dir
}

#[test]
fn editing_an_uncommitted_record_leaves_the_stored_verdicts_and_marks_as_they_are() {
    let dir = drifted_repo();
    let root = dir.path();
    let cold = drifted(root);
    assert_eq!(cold.len(), 2, "{cold:?}");
    let (judged, marks) = (stored(root, "drift-judged"), stored(root, "drifted"));
    // Nothing changed: neither file is written again.
    assert_eq!(drifted(root), cold);
    assert_eq!(stored(root, "drift-judged"), judged);
    assert_eq!(stored(root, "drifted"), marks);
    // Record two is edited and not committed: not judged (said so), and
    // its verdict leaves the stored ones.
    let edit = |n: usize| {
        let body = decision("two", &["file:src/a.rs"]) + &"More.\n".repeat(n);
        write(root, "memory/decisions/two.md", &body);
    };
    edit(1);
    let edited = drifted(root);
    assert_eq!(edited, cold[..1].to_vec());
    let judged = stored(root, "drift-judged");
    let marks = stored(root, "drifted");
    // Edited again, and again: the stored verdicts and marks are kept as
    // they are (same file, same bytes).
    for n in 2..4 {
        edit(n);
        let run = memlint(root, &["check", "--format", "json"]);
        assert!(
            run.stderr.contains(
                "sources/drifted: 1 record citing files could not be judged for drift: 1 with changes not committed yet"
            ),
            "{}",
            run.stderr
        );
        assert_eq!(drifted(root), edited);
        assert_eq!(stored(root, "drift-judged"), judged, "edit {n}");
        assert_eq!(stored(root, "drifted"), marks, "edit {n}");
    }
    // Committed, the record is judged again (written after the change of
    // `src/a.rs`: not drifted), and HEAD moved: the stored verdicts are
    // replaced.
    commit(root, "Edit two");
    assert_eq!(drifted(root), edited);
    assert_ne!(stored(root, "drift-judged").1, judged.1);
    write(root, "src/a.rs", "a3\n");
    commit(root, "Change a again");
    let again = drifted(root);
    assert_eq!(again.len(), 2, "{again:?}");
    assert_eq!(again[1].0, "memory/decisions/two.md");
}

#[test]
fn stored_verdicts_of_an_old_head_are_not_reused_after_a_reset() {
    let dir = drifted_repo();
    let root = dir.path();
    assert_eq!(drifted(root).len(), 2);
    // Back to before the change of the cited file: nothing drifted.
    git(root, &["reset", "-q", "--hard", "HEAD~1"]);
    assert_eq!(drifted(root), vec![]);
    // And forward again.
    git(root, &["reset", "-q", "--hard", "HEAD@{1}"]);
    assert_eq!(drifted(root).len(), 2);
    assert!(!std::fs::read(root.join(".memlint/drifted"))
        .unwrap()
        .is_empty());
}

#[test]
fn the_stored_citations_are_not_written_again_while_the_committed_records_are_the_same() {
    let dir = drifted_repo();
    let root = dir.path();
    assert_eq!(drifted(root).len(), 2);
    let cites = stored(root, "cites");
    // A new record, not committed: not stored (no blob id the git index
    // vouches for), so the file is left as it is.
    write(
        root,
        "memory/decisions/three.md",
        &decision("three", &["file:src/a.rs"]),
    );
    drifted(root);
    assert_eq!(stored(root, "cites"), cites);
    // Edited again: still the same committed records.
    write(
        root,
        "memory/decisions/three.md",
        &(decision("three", &["file:src/a.rs"]) + "More.\n"),
    );
    drifted(root);
    assert_eq!(stored(root, "cites"), cites);
    // A committed record edited: the git index still holds the blob the
    // file stores for it, which the file says true things of, so it is
    // left as it is (it was written again at each such edit before).
    write(
        root,
        "memory/decisions/two.md",
        &(decision("two", &["file:src/a.rs"]) + "More.\n"),
    );
    drifted(root);
    assert_eq!(stored(root, "cites"), cites);
    // Edited again: still every record the table vouches for is stored.
    write(
        root,
        "memory/decisions/two.md",
        &(decision("two", &["file:src/a.rs"]) + "More.\nAnd more.\n"),
    );
    drifted(root);
    assert_eq!(stored(root, "cites"), cites);
    // Committed (and written out again, as a checkout would: the record
    // table takes a file's blob id when it reads the file), a blob id the
    // file does not store: it is written.
    commit(root, "Two, edited");
    write(
        root,
        "memory/decisions/two.md",
        &(decision("two", &["file:src/a.rs"]) + "More.\nAnd more.\n"),
    );
    drifted(root);
    let committed = stored(root, "cites");
    assert_ne!(committed.1, cites.1);
    // And left as it is again while nothing new is committed.
    drifted(root);
    assert_eq!(stored(root, "cites"), committed);
}

/// Whether `bytes` hold `s` as a stored string of its own (its length, one
/// byte, then its bytes), not only inside a longer one such as a message.
fn holds_string(bytes: &[u8], s: &str) -> bool {
    let mut needle = vec![u8::try_from(s.len()).expect("short")];
    needle.extend_from_slice(s.as_bytes());
    bytes.windows(needle.len()).any(|w| w == needle.as_slice())
}

#[test]
fn the_stored_verdicts_keep_only_the_mark_a_record_shows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    for f in ["src/alpha.rs", "src/beta.rs", "src/gamma.rs"] {
        write(root, f, "a\n");
    }
    write(
        root,
        "memory/decisions/one.md",
        &decision(
            "one",
            &["file:src/alpha.rs", "file:src/beta.rs", "file:src/gamma.rs"],
        ),
    );
    commit(root, "Write the decision");
    for f in ["src/alpha.rs", "src/beta.rs", "src/gamma.rs"] {
        write(root, f, "a2\n");
    }
    commit(root, "Change the sources");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let cold = drifted(root);
    assert_eq!(cold.len(), 3, "{cold:?}");
    // The record is marked with its first drifted source, as before...
    let marks = stored(root, "drifted").1;
    assert!(holds_string(&marks, "file:src/alpha.rs"));
    assert!(!holds_string(&marks, "file:src/beta.rs"));
    // ...and only that mark is stored with its verdict: the others were
    // never shown (each finding still names its source).
    let judged = stored(root, "drift-judged").1;
    assert!(holds_string(&judged, "file:src/alpha.rs"));
    for other in ["file:src/beta.rs", "file:src/gamma.rs"] {
        assert!(!holds_string(&judged, other), "{other} stored as a mark");
    }
    // A warm check reuses the verdict: the same findings and marks.
    assert_eq!(drifted(root), cold);
    assert_eq!(stored(root, "drifted").1, marks);
}

/// `(path, commits)` of the `sources/drifted` findings of a JSON check.
fn listed(root: &Path) -> Vec<(String, Vec<String>)> {
    common::rule_json(root, "sources/drifted", &[])
        .iter()
        .map(|d| {
            let commits = d["commits"].as_array().expect("commits");
            let ids = commits.iter().map(|c| c.as_str().expect("id").to_string());
            (d["path"].as_str().expect("path").to_string(), ids.collect())
        })
        .collect()
}

/// A file sixty commits changed: each finding lists every commit that
/// changed it after its record was last written, newest first, as
/// `git log` does — records written at different commits, whole file and
/// range, several records sharing one list — and a warm check, which reads
/// the findings back from `.memlint/drift-judged`, lists the same.
#[test]
fn each_finding_lists_every_commit_since_its_record_cold_and_warm() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    let lines = |changed: &[(usize, usize)]| -> String {
        (1..=30)
            .map(
                |l| match changed.iter().rev().find(|(line, _)| *line == l) {
                    Some((_, n)) => format!("line {l} changed by {n}\n"),
                    None => format!("line {l}\n"),
                },
            )
            .collect()
    };
    write(root, "src/a.rs", &lines(&[]));
    for (name, source) in [
        ("whole", "file:src/a.rs"),
        ("again", "file:src/a.rs"),
        ("top", "file:src/a.rs#L1-L3"),
    ] {
        write(
            root,
            &format!("memory/decisions/{name}.md"),
            &decision(name, &[source]),
        );
    }
    commit(root, "Write the decisions");
    let mut changed = Vec::new();
    for n in 0..60 {
        changed.push((1 + (n * 7) % 30, n));
        write(root, "src/a.rs", &lines(&changed));
        // A record written halfway, and a commit that leaves the file.
        if n == 30 {
            write(
                root,
                "memory/decisions/later.md",
                &decision("later", &["file:src/a.rs"]),
            );
            commit(root, "Write a later decision");
            write(root, "notes.txt", "unrelated\n");
        }
        commit(root, &format!("Change a, {n}"));
    }
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let expected = |record: &str| -> Vec<String> {
        let written = git(root, &["log", "-1", "--format=%H", "--", record]);
        let range = format!("{written}..HEAD");
        let log = git(root, &["log", "--format=%H", &range, "--", "src/a.rs"]);
        log.lines().map(str::to_string).collect()
    };
    let cold = listed(root);
    let paths: Vec<&str> = cold.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "memory/decisions/again.md",
            "memory/decisions/later.md",
            "memory/decisions/top.md",
            "memory/decisions/whole.md",
        ]
    );
    for (path, commits) in &cold {
        let want = expected(path);
        assert_eq!(commits, &want, "{path}");
    }
    assert_eq!(cold[0].1.len(), 60);
    assert_eq!(cold[1].1.len(), 29);
    // Warm, with an unrelated record added: the same lists, read back.
    write(root, "memory/decisions/other.md", &decision("other", &[]));
    assert_eq!(listed(root), cold);
    assert_eq!(listed(root), cold);
}
