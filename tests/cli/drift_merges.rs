//! `sources/drifted` in histories with merges: pull requests merged into
//! main, branches older (by their dates) than the commits they are merged
//! after, records written on a branch. Whole-file drift must name the
//! commits `git log --full-history R..HEAD -- PATH` names.

use crate::common;

use common::{decision, git, git_with, write, TempWorkspace};
use std::path::Path;

/// The commits (sorted) of each `sources/drifted` finding of a check.
fn drifted_commits(root: &Path) -> Vec<Vec<String>> {
    common::rule_json(root, "sources/drifted", &[])
        .iter()
        .map(|d| {
            let mut commits: Vec<String> = d["commits"]
                .as_array()
                .map(|c| {
                    c.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            commits.sort();
            commits
        })
        .collect()
}

/// Commits everything in `root` with `message`, dated `seconds` after
/// 2021-01-01 (author and committer).
fn commit_at(root: &Path, message: &str, seconds: u64) {
    git(root, &["add", "-A"]);
    let date = format!("{} +0000", 1_609_459_200 + seconds);
    let env = [
        ("GIT_AUTHOR_DATE", date.as_str()),
        ("GIT_COMMITTER_DATE", date.as_str()),
    ];
    git_with(root, &["commit", "-q", "-m", message], &env);
}

/// Whether commit `c` changed `path` against each of its parents.
fn changed_against_every_parent(root: &Path, c: &str, path: &str) -> bool {
    let parents = git(root, &["rev-list", "--parents", "-n", "1", c]);
    parents.split_whitespace().skip(1).all(|p| {
        let spec = format!("{p}:{path}");
        let ours = format!("{c}:{path}");
        git(root, &["rev-parse", "-q", "--verify", &spec])
            != git(root, &["rev-parse", "-q", "--verify", &ours])
    })
}

/// Rewrites line `line` of `path` (twelve lines) to `text`.
fn set_line(root: &Path, path: &str, line: usize, text: &str) {
    let old = std::fs::read_to_string(root.join(path)).expect("read");
    let mut lines: Vec<String> = old.lines().map(String::from).collect();
    lines[line] = text.to_string();
    write(root, path, &(lines.join("\n") + "\n"));
}

/// One step of a random history with a side branch.
#[derive(Debug, Clone, Copy)]
enum Op {
    /// Change the cited file's first line on main.
    Main,
    /// Change its last line on the side branch (made from main first).
    Side,
    /// Rewrite the record on main.
    TouchMain,
    /// Rewrite the record on the side branch.
    TouchSide,
    /// Change another file on main.
    Other,
    /// Merge the side branch into main (`--no-ff`, its side of a
    /// conflict winning) and delete it.
    Merge,
}

fn op() -> impl proptest::strategy::Strategy<Value = (Op, u8)> {
    use proptest::prelude::*;
    let op = prop_oneof![
        Just(Op::Main),
        Just(Op::Side),
        Just(Op::TouchMain),
        Just(Op::TouchSide),
        Just(Op::Other),
        Just(Op::Merge)
    ];
    // The day of the commit: branches dated before what they are merged
    // after, and after, so that dates and ancestry disagree.
    (op, 0u8..20)
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 16, ..Default::default() })]

    /// Whole-file drift names, with merges, the commits `git log
    /// --full-history R..HEAD -- PATH` lists, but merges that took the
    /// file from one side (R: the commit `git log -1 -- RECORD` names).
    #[test]
    fn whole_file_drift_with_merges_agrees_with_git_log(
        ops in proptest::collection::vec(op(), 2..12)
    ) {
        let lines: String = (0..12).map(|i| format!("line {i}\n")).collect();
        let dir = TempWorkspace::new()
            .git()
            .file("src/a.txt", &lines)
            .file("src/other.txt", "o\n")
            .file("memory/decisions/cache.md", &decision("Cache", &["file:src/a.txt"]))
            .build();
        let root = dir.path();
        commit_at(root, "Write the decision", 0);
        let mut side = false;
        let mut on_side = false;
        for (i, &(op, day)) in ops.iter().enumerate() {
            // Unique seconds: no two commits share a date.
            let when = 86_400 * (1 + u64::from(day)) + i as u64;
            let to = |root: &Path, branch: bool, on_side: &mut bool| {
                if branch != *on_side {
                    git(root, &["switch", "-q", if branch { "side" } else { "main" }]);
                    *on_side = branch;
                }
            };
            if matches!(op, Op::Side | Op::TouchSide) && !side {
                to(root, false, &mut on_side);
                git(root, &["branch", "side"]);
                side = true;
            }
            match op {
                Op::Main => {
                    to(root, false, &mut on_side);
                    set_line(root, "src/a.txt", 0, &format!("main {i}"));
                }
                Op::Side => {
                    to(root, true, &mut on_side);
                    set_line(root, "src/a.txt", 11, &format!("side {i}"));
                }
                Op::TouchMain | Op::TouchSide => {
                    to(root, matches!(op, Op::TouchSide), &mut on_side);
                    let text = decision(&format!("Cache {i}"), &["file:src/a.txt"]);
                    write(root, "memory/decisions/cache.md", &text);
                }
                Op::Other => {
                    to(root, false, &mut on_side);
                    write(root, "src/other.txt", &format!("o{i}\n"));
                }
                Op::Merge => {
                    if !side {
                        continue;
                    }
                    to(root, false, &mut on_side);
                    let date = format!("{} +0000", 1_609_459_200 + when);
                    let env = [("GIT_AUTHOR_DATE", date.as_str()), ("GIT_COMMITTER_DATE", date.as_str())];
                    let message = format!("Merge {i}");
                    git_with(root, &["merge", "-q", "--no-ff", "-X", "theirs", "-m", &message, "side"], &env);
                    git(root, &["branch", "-q", "-D", "side"]);
                    side = false;
                    continue;
                }
            }
            commit_at(root, &format!("{op:?} {i}"), when);
        }
        if on_side {
            git(root, &["switch", "-q", "main"]);
        }
        // R: the commit that wrote the record as HEAD holds it, as `git log
        // -1` finds it (through a merge, down the side whose text it took).
        let record = git(root, &["log", "-1", "--format=%H", "--", "memory/decisions/cache.md"]);
        let range = format!("{record}..HEAD");
        // `--full-history` lists a merge that one side changed the file in;
        // what changed it is the side's commit: only a merge whose file
        // differs from every parent's changed it.
        let mut oracle: Vec<String> = git(root, &["log", "--full-history", "--format=%H", &range, "--", "src/a.txt"])
            .lines()
            .map(str::to_string)
            .filter(|c| changed_against_every_parent(root, c, "src/a.txt"))
            .collect();
        oracle.sort();
        let expected: Vec<Vec<String>> = if oracle.is_empty() { Vec::new() } else { vec![oracle] };
        proptest::prop_assert_eq!(drifted_commits(root), expected, "{:?}", ops);
    }
}

/// `git OP` in `root` with author and committer dated `date`.
fn git_at(root: &Path, args: &[&str], date: &str) {
    let env = [("GIT_AUTHOR_DATE", date), ("GIT_COMMITTER_DATE", date)];
    git_with(root, args, &env);
}

/// The loose object file of `rev` (a fresh test repository packs nothing).
fn loose_object(root: &Path, rev: &str) -> std::path::PathBuf {
    let id = git(root, &["rev-parse", rev]);
    root.join(".git/objects").join(&id[..2]).join(&id[2..])
}

/// The commit ids of the one `sources/drifted` finding, as listed.
fn commits_listed(root: &Path) -> Vec<Vec<String>> {
    common::rule_json(root, "sources/drifted", &[])
        .iter()
        .map(|d| {
            d["commits"]
                .as_array()
                .map(|c| {
                    c.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

/// In a history with merges, the walk stops once it holds the commit that
/// last wrote each record and every commit since it (a branch merged
/// after the record, dated before it, among them): older history, merges
/// included, is never diffed, so its objects need not be readable. Cold,
/// warm, and after HEAD moved.
#[test]
fn a_history_with_merges_is_walked_only_as_far_as_its_records_need() {
    let dir = TempWorkspace::new()
        .git()
        .file("src/a.rs", "a\n")
        .file("src/old.rs", "old\n")
        .file("src/other.rs", "other\n")
        .build();
    let root = dir.path();
    let day = |d: u32| format!("2024-01-{d:02}T12:00:00Z");
    git(root, &["add", "-A"]);
    git_at(root, &["commit", "-q", "-m", "Start"], &day(1));
    git(root, &["branch", "side"]);
    git(root, &["branch", "old-side"]);
    // An old pull request, merged before the record was written.
    git(root, &["switch", "-q", "old-side"]);
    write(root, "src/other.rs", "other 2\n");
    git(root, &["add", "-A"]);
    git_at(root, &["commit", "-q", "-m", "Old side"], &day(2));
    let old_side = git(root, &["rev-parse", "HEAD"]);
    git(root, &["switch", "-q", "main"]);
    write(root, "src/old.rs", "old 2\n");
    git(root, &["add", "-A"]);
    git_at(root, &["commit", "-q", "-m", "Old main"], &day(3));
    git_at(
        root,
        &["merge", "-q", "--no-ff", "-m", "Merge old side", "old-side"],
        &day(4),
    );
    write(
        root,
        "memory/decisions/cache.md",
        &decision("Cache", &["file:src/a.rs"]),
    );
    git(root, &["add", "-A"]);
    git_at(root, &["commit", "-q", "-m", "Write the decision"], &day(6));
    // A pull request that branched before the record and changed the
    // cited file, dated before the record, merged after it.
    git(root, &["switch", "-q", "side"]);
    write(root, "src/a.rs", "a on a branch\n");
    git(root, &["add", "-A"]);
    git_at(
        root,
        &["commit", "-q", "-m", "Change a on a branch"],
        &day(5),
    );
    let side = git(root, &["rev-parse", "HEAD"]);
    git(root, &["switch", "-q", "main"]);
    git_at(
        root,
        &["merge", "-q", "--no-ff", "-m", "Merge side", "side"],
        &day(7),
    );
    // Diffing the old pull request's commit or its merge would read its
    // tree: gone.
    std::fs::remove_file(loose_object(root, &format!("{old_side}^{{tree}}")))
        .expect("remove the old side's tree");
    assert_eq!(commits_listed(root), vec![vec![side.clone()]]);
    // Warm, then cold again: the same.
    assert_eq!(commits_listed(root), vec![vec![side.clone()]]);
    std::fs::remove_dir_all(root.join(".memlint")).expect("rm .memlint");
    assert_eq!(commits_listed(root), vec![vec![side.clone()]]);
    // HEAD moves: the stored walk is kept and the new commit diffed.
    write(root, "src/a.rs", "a on main\n");
    git(root, &["add", "-A"]);
    git_at(root, &["commit", "-q", "-m", "Change a on main"], &day(8));
    let newest = git(root, &["rev-parse", "HEAD"]);
    assert_eq!(
        commits_listed(root),
        vec![vec![newest.clone(), side.clone()]]
    );
    std::fs::remove_dir_all(root.join(".memlint")).expect("rm .memlint");
    assert_eq!(commits_listed(root), vec![vec![newest, side]]);
}

/// When both sides of a merge rewrote a record, the record was last
/// written by the commit whose text the merge kept, even when the other
/// side's commit is the newer: `git log -1 -- RECORD` names the same
/// commit. Taking the newer one warned of a change the kept text was
/// written after (a false warning) and missed one it was not (silence
/// that looks like "fresh").
#[test]
fn a_record_both_sides_rewrote_was_written_by_the_side_the_merge_kept() {
    let (kept_main, kept_side) = (
        "memory/decisions/kept-main.md",
        "memory/decisions/kept-side.md",
    );
    let dir = TempWorkspace::new()
        .git()
        .file("src/a.txt", "a\n")
        .file("src/b.txt", "b\n")
        .file(kept_main, &decision("Kept main", &["file:src/a.txt"]))
        .file(kept_side, &decision("Kept side", &["file:src/b.txt"]))
        .build();
    let root = dir.path();
    let day = 86_400;
    commit_at(root, "Start", 0);
    git(root, &["branch", "side"]);
    // Writes `text` to `path` and commits it on day `d`: the commit's id.
    let write_at = |path: &str, text: &str, d: u64| {
        write(root, path, text);
        commit_at(root, &format!("Write {path}"), d * day);
        git(root, &["rev-parse", "HEAD"])
    };
    let (a, b) = (["file:src/a.txt"], ["file:src/b.txt"]);
    // Main changes both cited files, then rewrites both records.
    write_at("src/a.txt", "a 2\n", 1);
    let change_b = write_at("src/b.txt", "b 2\n", 2);
    let main_wrote = write_at(kept_main, &decision("Kept main, main", &a), 3);
    write_at(kept_side, &decision("Kept side, main", &b), 5);
    // The side branch rewrites both records, interleaved by date.
    git(root, &["switch", "-q", "side"]);
    let side_wrote = write_at(kept_side, &decision("Kept side, side", &b), 4);
    write_at(kept_main, &decision("Kept main, side", &a), 6);
    // The merge keeps main's kept-main and the side's kept-side.
    git(root, &["switch", "-q", "main"]);
    git(
        root,
        &[
            "merge",
            "-q",
            "--no-ff",
            "--no-commit",
            "-X",
            "ours",
            "side",
        ],
    );
    git(root, &["checkout", "side", "--", kept_side]);
    commit_at(root, "Merge side", 7 * day);
    for (record, wrote) in [(kept_main, &main_wrote), (kept_side, &side_wrote)] {
        assert_eq!(
            git(root, &["rev-parse", &format!("HEAD:{record}")]),
            git(root, &["rev-parse", &format!("{wrote}:{record}")]),
            "the merge kept {record} as {wrote} wrote it"
        );
        assert_eq!(
            &git(root, &["log", "-1", "--format=%H", "--", record]),
            wrote
        );
    }
    // Since main wrote kept-main, nothing changed src/a.txt; since the
    // side wrote kept-side, main changed src/b.txt.
    let since = |from: &str, path: &str| {
        git(
            root,
            &["log", "--format=%H", &format!("{from}..HEAD"), "--", path],
        )
    };
    assert_eq!(since(&main_wrote, "src/a.txt"), "");
    assert_eq!(since(&side_wrote, "src/b.txt"), change_b);
    let found = common::rule_json(root, "sources/drifted", &[]);
    let paths: Vec<&str> = found.iter().filter_map(|d| d["path"].as_str()).collect();
    assert_eq!(paths, [kept_side], "{found:#?}");
    assert_eq!(commits_listed(root), [[change_b]]);
    assert_eq!(
        (&found[0]["line"], &found[0]["column"]),
        (&6.into(), &5.into()),
        "{found:#?}"
    );
}
