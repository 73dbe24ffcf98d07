//! `sources/drifted` in long histories: a walk of more than a hundred
//! commits diffs them on two threads (every other block of commits on a
//! helper thread), and must name, for every record, the commits
//! `git log R..HEAD -- PATH` names, whether the walk goes to the first
//! commit, stops inside a block the helper diffed, or goes on from a
//! stored walk after HEAD moved; with and without merges.

use crate::common;

use common::{decision, git, TempWorkspace};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// A `git fast-import` stream of commits with fixed dates.
struct Stream {
    out: Vec<u8>,
    marks: usize,
    clock: u64,
}

impl Stream {
    fn new() -> Stream {
        Stream {
            out: Vec::new(),
            marks: 0,
            clock: 1_700_000_000,
        }
    }

    /// A commit on `branch` after `from` (a mark, or a commit id), also
    /// merging mark `merge`, writing `files`; its mark.
    fn commit(
        &mut self,
        branch: &str,
        from: &str,
        merge: Option<usize>,
        files: &[(String, String)],
    ) -> usize {
        self.marks += 1;
        self.clock += 60;
        let message = format!("Commit {}", self.marks);
        let mut text = format!(
            "commit refs/heads/{branch}\nmark :{}\ncommitter Test <test@example.com> {} +0000\ndata {}\n{message}\nfrom {from}\n",
            self.marks,
            self.clock,
            message.len()
        );
        if let Some(m) = merge {
            text.push_str(&format!("merge :{m}\n"));
        }
        for (path, body) in files {
            text.push_str(&format!(
                "M 100644 inline {path}\ndata {}\n{body}\n",
                body.len()
            ));
        }
        self.out.extend_from_slice(text.as_bytes());
        self.out.push(b'\n');
        self.marks
    }

    /// Feeds the stream to `git fast-import` in `root` and checks out
    /// `main`.
    fn import(self, root: &Path) {
        let mut cmd = Command::new("git");
        common::test_identity(
            cmd.args(["fast-import", "--quiet", "--force"])
                .current_dir(root),
        );
        let mut child = cmd.stdin(Stdio::piped()).spawn().expect("git fast-import");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(&self.out)
            .expect("stream");
        assert!(child.wait().expect("wait").success(), "git fast-import");
        git(root, &["reset", "-q", "--hard", "main"]);
    }
}

/// A workspace with `memlint init` committed: its root's commit id.
fn workspace() -> (TempWorkspace, String) {
    let dir = TempWorkspace::new().git().init();
    common::commit(dir.path(), "init");
    let head = git(dir.path(), &["rev-parse", "HEAD"]);
    (dir, head)
}

/// Source file `k` of five, as commit `n` writes it.
fn source(k: usize, n: usize) -> (String, String) {
    (format!("src/f{k}.txt"), format!("f{k} at {n}\n"))
}

/// Record `name` citing source file `k`, as commit `n` writes it.
fn record(name: &str, k: usize, n: usize) -> (String, String) {
    let text = decision(
        &format!("Record {name} {n}"),
        &[&format!("file:src/f{k}.txt")],
    );
    (format!("memory/decisions/{name}.md"), text)
}

/// Each drifted record's commits, sorted, by record path.
fn found(root: &Path) -> BTreeMap<String, Vec<String>> {
    found_with(root, &[])
}

/// [`found`], memlint run with the environment variables `env`.
fn found_with(root: &Path, env: &[(&str, &str)]) -> BTreeMap<String, Vec<String>> {
    let run = common::memlint_with(root, &["check", "--format", "json"], env);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "sources/drifted")
        .map(|d| {
            let mut commits: Vec<String> = d["commits"]
                .as_array()
                .expect("commits")
                .iter()
                .map(|c| c.as_str().expect("id").to_string())
                .collect();
            commits.sort();
            (d["path"].as_str().expect("path").to_string(), commits)
        })
        .collect()
}

/// What git says of each record in `memory/decisions` citing `src/fK.txt`:
/// the commits (not merges) that changed the file since the newest that
/// changed the record, sorted; records without any are left out.
fn oracle(root: &Path, cited: &[(&str, usize)]) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for (name, k) in cited {
        let path = format!("memory/decisions/{name}.md");
        let log = ["log", "--full-history", "--no-merges", "--format=%H"];
        let written = git(root, &[&log[..], &["-1", "--", &path]].concat());
        let range = format!("{written}..HEAD");
        let file = format!("src/f{k}.txt");
        let mut commits: Vec<String> = git(root, &[&log[..], &[&range, "--", &file]].concat())
            .lines()
            .map(str::to_string)
            .collect();
        commits.sort();
        if !commits.is_empty() {
            out.insert(path, commits);
        }
    }
    out
}

/// Commits `span` of a line of commits after `parent` in `root`, each
/// changing one source file, and `records` (name, cited file, commit)
/// written at their commit; then checks `main` out.
fn extend(
    root: &Path,
    parent: &str,
    span: std::ops::Range<usize>,
    records: &[(&str, usize, usize)],
) {
    let mut s = Stream::new();
    let mut last = parent.to_string();
    for n in span {
        let mut files = vec![source(n % 5, n)];
        files.extend(
            records
                .iter()
                .filter(|r| r.2 == n)
                .map(|r| record(r.0, r.1, n)),
        );
        last = format!(":{}", s.commit("main", &last, None, &files));
    }
    s.import(root);
}

#[test]
fn a_long_linear_walk_on_two_threads_names_what_git_log_names() {
    let (dir, init) = workspace();
    let root = dir.path();
    // Records written early (the walk goes to the first commits), in the
    // middle, and one rewritten late.
    let records = [
        ("early", 0, 1),
        ("middle", 1, 250),
        ("rewritten", 2, 5),
        ("rewritten", 2, 620),
        ("first", 3, 0),
    ];
    let cited = [("early", 0), ("middle", 1), ("rewritten", 2), ("first", 3)];
    extend(root, &init, 0..700, &records);
    let expected = oracle(root, &cited);
    assert_eq!(expected.len(), 4, "every record drifted: {expected:?}");
    assert_eq!(found(root), expected, "cold");
    // HEAD moves by 200 commits: the stored walk, and 200 diffed anew.
    let head = git(root, &["rev-parse", "HEAD"]);
    extend(root, &head, 700..900, &[("middle", 1, 810)]);
    assert_eq!(found(root), oracle(root, &cited), "after HEAD moved");
    std::fs::remove_dir_all(root.join(".memlint")).expect("no cache");
    assert_eq!(found(root), oracle(root, &cited), "cold again");
}

#[test]
fn a_walk_that_stops_inside_the_helpers_block_names_what_git_log_names() {
    let (dir, init) = workspace();
    let root = dir.path();
    // Records only of late: the walk stops about 300 commits back, past
    // the first blocks, among those the helper diffed ahead.
    let records = [("late", 0, 400), ("later", 1, 430), ("last", 2, 690)];
    let cited = [("late", 0), ("later", 1), ("last", 2)];
    extend(root, &init, 0..700, &records);
    let expected = oracle(root, &cited);
    assert_eq!(expected.len(), 3, "{expected:?}");
    assert_eq!(found(root), expected, "cold");
    // HEAD moves by 150 commits: the stored walk (which stopped early)
    // is walked again from the new HEAD, on two threads.
    let head = git(root, &["rev-parse", "HEAD"]);
    extend(root, &head, 700..850, &[]);
    assert_eq!(found(root), oracle(root, &cited), "after HEAD moved");
}

#[test]
fn a_long_walk_with_merges_on_two_threads_names_what_git_log_names() {
    let (dir, init) = workspace();
    let root = dir.path();
    // 120 pull requests of two commits, each merged with a merge commit
    // whose tree is the branch's (the branch starts at main's tip); some
    // write a record.
    let mut s = Stream::new();
    let mut state: BTreeMap<String, String> = BTreeMap::new();
    let mut main = init.clone();
    let writes = [(3, "early", 0), (40, "middle", 1), (95, "late", 2)];
    for pr in 0..120 {
        let branch = format!("pr{pr}");
        let mut tip = main.clone();
        let mut changed: Vec<(String, String)> = Vec::new();
        for c in 0..2 {
            let n = pr * 2 + c;
            let mut files = vec![source(n % 5, n)];
            if c == 1 {
                files.extend(
                    writes
                        .iter()
                        .filter(|w| w.0 == pr)
                        .map(|w| record(w.1, w.2, n)),
                );
            }
            tip = format!(":{}", s.commit(&branch, &tip, None, &files));
            changed.extend(files);
        }
        for (path, body) in &changed {
            state.insert(path.clone(), body.clone());
        }
        let Some(tip_mark) = tip.strip_prefix(':').and_then(|m| m.parse().ok()) else {
            unreachable!("a mark");
        };
        main = format!(":{}", s.commit("main", &main, Some(tip_mark), &changed));
    }
    s.import(root);
    let cited = [("early", 0), ("middle", 1), ("late", 2)];
    let expected = oracle(root, &cited);
    assert_eq!(expected.len(), 3, "{expected:?}");
    assert_eq!(found(root), expected, "cold");
    std::fs::remove_dir_all(root.join(".memlint")).expect("no cache");
    assert_eq!(found(root), expected, "cold again");
}

/// [`found`] of a cold check whose history walk begins early as `mode`
/// says (see `engine::drift::early`).
fn found_cold(root: &Path, mode: &str) -> BTreeMap<String, Vec<String>> {
    let _ = std::fs::remove_dir_all(root.join(".memlint"));
    found_with(root, &[("MEMLINT_TEST_EARLY_WALK", mode)])
}

/// A cold check of many files begins its walk while it scans them:
/// whether that walk did every commit before the records were judged
/// (`whole`) or none (`off`, and the default here: a workspace this small
/// begins none), the findings are what git names. How far it gets when
/// timed by a real scan is the race between the two; `whole` and `off`
/// are its two ends, the hand-over in between is the same code.
#[test]
fn a_cold_walk_begun_while_scanning_names_what_git_log_names() {
    let (dir, init) = workspace();
    let root = dir.path();
    let records = [("early", 0, 2), ("late", 1, 400), ("last", 2, 690)];
    let cited = [("early", 0), ("late", 1), ("last", 2)];
    extend(root, &init, 0..700, &records);
    let expected = oracle(root, &cited);
    assert_eq!(expected.len(), 3, "{expected:?}");
    for mode in ["whole", "off", ""] {
        assert_eq!(found_cold(root, mode), expected, "early walk: {mode:?}");
    }
}
