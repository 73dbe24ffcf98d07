//! Keeping memory true (issue 45): line-range `file:` sources and
//! `sources/drifted`, on workspaces in temporary directories with real git
//! histories (set up with the `git` program; memlint reads them through gix).

use crate::common;

use common::{commit, decision, git, memlint, write, TempWorkspace};
use std::path::Path;

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
                "file:src/a.rs#L4294967295",
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
            f(
                "sources/format",
                14,
                &format!("`file:src/a.rs#L4294967295` is not a source string: the line range `#L4294967295` is malformed (a line number has at most 9 digits): {form}")
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

/// (line, message) of the `sources/drifted` findings of `check ARGS`.
fn drifted_only(root: &Path, args: &[&str]) -> Vec<(u64, String)> {
    findings(root, args)
        .1
        .into_iter()
        .filter(|(rule, ..)| rule == "sources/drifted")
        .map(|(_, line, message)| (line, message))
        .collect()
}

fn head_of(root: &Path, rev: &str) -> String {
    git(root, &["rev-parse", rev])
}

/// (rule, line, message, fixable, commits) of the `sources/drifted` findings.
fn drifted(root: &Path, args: &[&str]) -> Vec<(u64, String, bool, Vec<String>)> {
    common::rule_json(root, "sources/drifted", args)
        .iter()
        .map(|d| {
            let commits = d["commits"]
                .as_array()
                .map(|c| {
                    c.iter()
                        .map(|v| v.as_str().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default();
            (
                d["line"].as_u64().unwrap_or(0),
                d["message"].as_str().unwrap_or("").to_string(),
                d["fixable"].as_bool().unwrap_or(false),
                commits,
            )
        })
        .collect()
}

/// A shallow clone (`git clone --depth DEPTH file://ROOT`) of the
/// repository at `root`: the directory holding it (kept while the clone is
/// used) and the clone's root.
fn shallow_clone(root: &Path, depth: u32) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", root.display());
    let depth = depth.to_string();
    git(
        dir.path(),
        &["clone", "-q", "--depth", &depth, &url, "shallow"],
    );
    let clone = dir.path().join("shallow");
    (dir, clone)
}

/// A repository with one decision citing `sources`, committed along with
/// `files`.
fn repo_with(files: &[(&str, &str)], sources: &[&str]) -> tempfile::TempDir {
    let mut repo = TempWorkspace::new().git();
    for (path, text) in files {
        repo = repo.file(path, text);
    }
    repo.file("memory/decisions/cache.md", &decision("Cache", sources))
        .commit("Write the decision")
        .build()
}

#[test]
fn drifted_whole_files_renames_and_moved_ranges() {
    let dir = repo_with(
        &[
            ("src/cache.rs", "1\n2\n3\n4\n5\n"),
            ("src/other.rs", "x\ny\n"),
            ("src/same.rs", "s\n"),
        ],
        &[
            "file:src/cache.rs",
            "file:src/cache.rs#L2-L3",
            "file:src/other.rs",
            "file:src/same.rs",
        ],
    );
    let root = dir.path();
    // Nothing changed since the record was written.
    assert_eq!(drifted(root, &[]), vec![]);
    write(root, "src/cache.rs", "0\n1\n2\n3\n4\n5\n");
    commit(root, "Prepend a line\n\nbody");
    let prepend = head_of(root, "HEAD");
    git(root, &["mv", "src/other.rs", "src/moved.rs"]);
    commit(root, "Rename other \u{1b}[31mred");
    let rename = head_of(root, "HEAD");
    let date = git(root, &["log", "-1", "--format=%ad", "--date=short"]);
    let expect = vec![
        (
            6,
            format!("`file:src/cache.rs` changed after this record was last written: 1 commit, the newest {} ({date}, \"Prepend a line\"); check the record against it, then verify it or replace it", &prepend[..7]),
            false,
            vec![prepend.clone()],
        ),
        (
            7,
            "the lines `file:src/cache.rs#L2-L3` cites are unchanged but now sit at `#L3-L4`; `--fix` moves the range".to_string(),
            true,
            vec![],
        ),
        (
            8,
            format!("`file:src/other.rs` was renamed to `src/moved.rs` by {} ({date}, \"Rename other ␛[31mred\"); `--fix` rewrites the path", &rename[..7]),
            true,
            vec![rename.clone()],
        ),
    ];
    assert_eq!(drifted(root, &[]), expect);
    // Uncommitted changes to a cited file count while the record has none.
    write(root, "src/same.rs", "t\n");
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 4, "{found:?}");
    assert_eq!(
        found[3].1,
        "`file:src/same.rs` changed after this record was last written: uncommitted changes; check the record against it, then verify it or replace it"
    );
    git(root, &["checkout", "--", "src/same.rs"]);
    // `--fix` moves the range and rewrites the renamed path; the file that
    // changed is pinned as the record's commit held it, so that its drift
    // outlives the fix, committed or not.
    let run = memlint(root, &["check", "--fix"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(root.join("memory/decisions/cache.md")).expect("read");
    let then = xxhash_rust::xxh3::xxh3_64(b"1\n2\n3\n4\n5\n");
    assert_eq!(
        text,
        decision(
            "Cache",
            &[
                "file:src/cache.rs",
                "file:src/cache.rs#L3-L4",
                "file:src/moved.rs",
                "file:src/same.rs",
            ]
        )
        .replace(
            "---\n\nBody.",
            &format!("pins:\n  - file:src/cache.rs xxh3:{then:016x}\n---\n\nBody.")
        )
    );
    let pinned = vec![(
        6,
        "`file:src/cache.rs` changed since this record was pinned: it no longer matches its pin; check the record against it, then verify it or replace it".to_string(),
        false,
        vec![],
    )];
    assert_eq!(drifted(root, &[]), pinned);
    commit(root, "Fix the sources");
    assert_eq!(drifted(root, &[]), pinned);
}

/// A record `--fix` rewrites for another rule keeps its drift too: each
/// drifted source (a whole file, a range whose lines are gone, a file the
/// record's commit did not have) is pinned as that commit held it, and a
/// source already pinned is left alone.
#[test]
fn a_fix_of_another_rule_keeps_the_record_drifted() {
    let dir = repo_with(
        &[
            ("src/a.rs", "1\n2\n3\n"),
            ("src/b.rs", "b\n"),
            ("src/c.rs", "c\n"),
        ],
        &[],
    );
    let root = dir.path();
    // A source listed twice (`sources/duplicate`, fixable), and one file
    // created later.
    let session = "session:4c1e9b2a-7d2f-4a51-9c3e-0b8f6d1a2e77";
    let record = "---\ntitle: Cache\nstatus: active\ndate: 2026-01-02\nsources:\n  - file:src/a.rs#L2\n  - file:src/b.rs\n  - file:src/c.rs\n  - file:src/new.rs\n  - SESSION\n  - SESSION\npins:\n  - file:src/c.rs xxh3:0000000000000000\n---\n\nBody.\n";
    let record = record.replace("SESSION", session);
    write(root, "memory/decisions/cache.md", &record);
    commit(root, "Write the record");
    write(root, "src/a.rs", "1\ntwo\n3\n");
    write(root, "src/b.rs", "B\n");
    write(root, "src/new.rs", "n\n");
    commit(root, "Change the sources");
    let before: Vec<u64> = drifted(root, &[]).iter().map(|d| d.0).collect();
    assert_eq!(before, vec![6, 7, 8, 9]);
    let run = memlint(root, &["check", "--fix"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(root.join("memory/decisions/cache.md")).expect("read");
    let hash = |b: &[u8]| format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(b));
    assert_eq!(text.matches(session).count(), 1, "{text}");
    assert!(
        text.ends_with(&format!(
            "pins:\n  - file:src/c.rs xxh3:0000000000000000\n  - file:src/a.rs#L2 {}\n  - file:src/b.rs {}\n  - file:src/new.rs {}\n---\n\nBody.\n",
            hash(b"2\n"),
            hash(b"b\n"),
            hash(b""),
        )),
        "{text}"
    );
    let after = |root: &Path| -> Vec<(u64, bool)> {
        drifted(root, &[]).iter().map(|d| (d.0, d.2)).collect()
    };
    assert_eq!(
        after(root),
        vec![(6, false), (7, false), (8, false), (9, false)]
    );
    commit(root, "Fix the sources");
    assert_eq!(
        after(root),
        vec![(6, false), (7, false), (8, false), (9, false)]
    );
}

#[test]
fn files_of_the_same_content_renamed_together_are_paired_as_git_pairs_them() {
    let dir = TempWorkspace::new()
        .git()
        .file("pkg1/__init__.py", "")
        .file("pkg2/__init__.py", "")
        .file("src/b.txt", "same\ntext\nhere\n")
        .file("src/c.txt", "same\ntext\nhere\n")
        .file(
            "memory/decisions/one.md",
            &decision("One", &["file:pkg1/__init__.py"]),
        )
        .file(
            "memory/decisions/two.md",
            &decision("Two", &["file:pkg2/__init__.py"]),
        )
        .file(
            "memory/decisions/bee.md",
            &decision("Bee", &["file:src/b.txt"]),
        )
        .file(
            "memory/decisions/sea.md",
            &decision("Sea", &["file:src/c.txt"]),
        )
        .commit("Write the decisions")
        .build();
    let root = dir.path();
    git(root, &["mv", "pkg1", "core"]);
    git(root, &["mv", "pkg2", "util"]);
    std::fs::create_dir_all(root.join("lib")).expect("mkdir");
    git(root, &["mv", "src/b.txt", "lib/b.txt"]);
    git(root, &["mv", "src/c.txt", "src/c2.txt"]);
    write(root, "src/c2.txt", "same\ntext\nhere\nand more\n");
    commit(root, "Move the packages");
    let messages: Vec<(String, String)> = common::rule_json(root, "sources/drifted", &[])
        .iter()
        .map(|d| {
            let message = d["message"].as_str().unwrap_or("");
            (
                d["path"].as_str().unwrap_or("").to_string(),
                message.split(" by ").next().unwrap_or(message).to_string(),
            )
        })
        .collect();
    let at = |p: &str| format!("memory/decisions/{p}.md");
    let renamed =
        |p: &str, from: &str, to: &str| (at(p), format!("`file:{from}` was renamed to `{to}`"));
    assert_eq!(messages.len(), 4, "{messages:?}");
    assert_eq!(messages[0], renamed("bee", "src/b.txt", "lib/b.txt"));
    assert_eq!(
        messages[1],
        renamed("one", "pkg1/__init__.py", "core/__init__.py")
    );
    assert_eq!(
        messages[3],
        renamed("two", "pkg2/__init__.py", "util/__init__.py")
    );
    // Renamed and changed: drifted, though a file of its old content was
    // renamed too.
    assert_eq!(messages[2].0, at("sea"));
    assert!(
        messages[2].1.starts_with("`file:src/c.txt` changed after this record was last written: 1 commit")
            && messages[2].1.ends_with("(the file is now `src/c2.txt`); check the record against it, then cite `src/c2.txt` instead and verify it or replace it"),
        "{messages:?}"
    );
    let run = memlint(root, &["check", "--fix"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let read = |p: &str| std::fs::read_to_string(root.join(at(p))).expect("read");
    assert!(read("one").contains("file:core/__init__.py"));
    assert!(read("two").contains("file:util/__init__.py"));
    assert!(read("bee").contains("file:lib/b.txt"));
    // Changed as well as renamed: not rewritten.
    assert!(read("sea").contains("file:src/c.txt"));
}

#[test]
fn cited_lines_the_file_did_not_have_when_the_record_was_written_have_drifted() {
    let dir = repo_with(&[("src/a.rs", "1\n2\n3\n")], &["file:src/a.rs#L5-L6"]);
    let root = dir.path();
    // Written past the end: `sources/dangling`'s business while it lasts.
    assert_eq!(drifted(root, &[]), vec![]);
    write(root, "src/a.rs", "1\n2\n3\n4\n5\n6\n");
    commit(root, "Grow");
    let grow = head_of(root, "HEAD");
    let date = git(root, &["log", "-1", "--format=%ad", "--date=short"]);
    // The lines it cites now were all written after it.
    assert_eq!(
        drifted(root, &[]),
        vec![(
            6,
            format!("the lines `file:src/a.rs#L5-L6` cites changed after this record was last written: 1 commit, the newest {} ({date}, \"Grow\"); check the record against it, then verify it or replace it", &grow[..7]),
            false,
            vec![grow.clone()],
        )]
    );
    // So were those of a file added after it.
    write(
        root,
        "memory/decisions/cache.md",
        &decision("Cache", &["file:src/new.rs#L1"]),
    );
    commit(root, "Cite a file to come");
    write(root, "src/new.rs", "fn main() {}\n");
    commit(root, "Add the file");
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.starts_with("the lines `file:src/new.rs#L1` cites changed after this record was last written: 1 commit"), "{found:?}");
}

#[test]
fn fixes_quote_the_paths_they_write_in_flow_and_block_lists() {
    let dir = TempWorkspace::new()
        .git()
        .file("src/p.rs", "1\n2\n")
        .file("src/r.rs", "1\n")
        .file(
            "memory/decisions/flow.md",
            "---\ntitle: Flow\nstatus: active\ndate: 2026-01-02\nsources: [file:src/p.rs, file:src/r.rs]\n---\n\nBody.\n",
        )
        .file("memory/decisions/block.md", &decision("Block", &["file:src/r.rs"]))
        .commit("Write the decisions")
        .build();
    let root = dir.path();
    let run = memlint(root, &["verify", "block"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    commit(root, "Verify");
    git(root, &["mv", "src/p.rs", "src/p,q.rs"]);
    git(root, &["mv", "src/r.rs", "src/r #2.rs"]);
    commit(root, "Rename with a comma and a hash");
    let run = memlint(root, &["check", "--fix"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let flow = std::fs::read_to_string(root.join("memory/decisions/flow.md")).expect("read");
    assert!(
        flow.contains("sources: ['file:src/p,q.rs', 'file:src/r #2.rs']\n"),
        "{flow}"
    );
    let block = std::fs::read_to_string(root.join("memory/decisions/block.md")).expect("read");
    assert!(block.contains("  - 'file:src/r #2.rs'\n"), "{block}");
    assert!(block.contains("  - 'file:src/r #2.rs xxh3:"), "{block}");
    // Read back, the records cite the files as they are named now.
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(json["diagnostics"], serde_json::json!([]), "{}", run.stdout);
}

#[test]
fn a_checkout_that_writes_crlf_is_judged_as_git_status_sees_it() {
    let dir = repo_with(&[("src/a.rs", "1\n2\n3\n")], &["file:src/a.rs#L2"]);
    let clones = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", dir.path().display());
    git(
        clones.path(),
        &["-c", "core.autocrlf=true", "clone", "-q", &url, "crlf"],
    );
    let root = clones.path().join("crlf");
    git(&root, &["config", "core.autocrlf", "true"]);
    let record = std::fs::read(root.join("memory/decisions/cache.md")).expect("read");
    assert!(
        record.windows(2).any(|w| w == b"\r\n"),
        "not a CRLF checkout"
    );
    // Unchanged: nothing to say, and no note that it is not committed.
    let run = memlint(&root, &["check"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", run.stdout);
    write(&root, "src/a.rs", "1\r\n2x\r\n3\r\n");
    commit(&root, "Change line 2");
    let found = drifted(&root, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.starts_with("the lines `file:src/a.rs#L2` cites changed after this record was last written: 1 commit"), "{found:?}");
}

#[test]
fn drifted_ranges_judge_the_cited_text_reverts_and_crlf() {
    let dir = repo_with(
        &[("src/a.rs", "a\nb\nc\nd\n")],
        &["file:src/a.rs#L2-L3", "file:src/a.rs#L4"],
    );
    let root = dir.path();
    // Another line changes: the cited ones are the same.
    write(root, "src/a.rs", "A\nb\nc\nd\n");
    commit(root, "Change line 1");
    assert_eq!(drifted(root, &[]), vec![]);
    // A cited line changes, then a revert restores it: not drift.
    write(root, "src/a.rs", "A\nB\nc\nd\n");
    commit(root, "Change line 2");
    let changed = head_of(root, "HEAD");
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, 6);
    assert!(
        found[0].1.starts_with("the lines `file:src/a.rs#L2-L3` cites changed after this record was last written: 2 commits, the newest"),
        "{}",
        found[0].1
    );
    assert_eq!(found[0].3.len(), 2);
    assert_eq!(found[0].3[0], changed);
    git(root, &["revert", "--no-edit", "HEAD"]);
    assert_eq!(drifted(root, &[]), vec![]);
    // A CRLF checkout of the same text is not drift either.
    write(root, ".gitattributes", "*.rs text eol=crlf\n");
    commit(root, "CRLF checkouts");
    std::fs::remove_file(root.join("src/a.rs")).expect("rm");
    git(root, &["checkout", "--", "src/a.rs"]);
    let bytes = std::fs::read(root.join("src/a.rs")).expect("read");
    assert!(bytes.windows(2).any(|w| w == b"\r\n"), "a CRLF checkout");
    assert_eq!(drifted(root, &[]), vec![]);
}

/// `--format github`: the note that records could not be judged for drift
/// is a workflow command of the output, not a line on standard error
/// (which the Actions page does not show); `--quiet` leaves it out.
#[test]
fn drift_not_judged_is_a_notice_in_github_format() {
    let dir = repo_with(&[("src/a.rs", "a\n")], &["file:src/a.rs"]);
    let root = dir.path();
    write(
        root,
        "memory/decisions/new-one.md",
        &decision("New one", &["file:src/a.rs"]),
    );
    let note = "sources/drifted: 1 record citing files could not be judged for drift: 1 with changes not committed yet";
    let run = memlint(root, &["check", "--format", "github"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout.lines().next(),
        Some(format!("::notice title=memlint::{note}").as_str()),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.lines().count(), 2, "{}", run.stdout);
    assert_eq!(run.stderr, "");
    let run = memlint(root, &["check", "--format", "github", "--quiet"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("::notice"), "{}", run.stdout);
    assert_eq!(run.stderr, "");
}

#[test]
fn drift_not_judged_is_said_once() {
    let dir = repo_with(&[("src/a.rs", "a\n")], &["file:src/a.rs"]);
    let root = dir.path();
    write(
        root,
        "memory/decisions/new-one.md",
        &decision("New one", &["file:src/a.rs"]),
    );
    write(
        root,
        "memory/decisions/new-two.md",
        &decision("New two", &["file:src/a.rs"]),
    );
    let run = memlint(root, &["check"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr
            .lines()
            .filter(|l| l.contains("sources/drifted"))
            .collect::<Vec<_>>(),
        vec!["memlint: note: sources/drifted: 2 records citing files could not be judged for drift: 2 with changes not committed yet"],
        "{}",
        run.stderr
    );
    // A shallow clone whose history begins after the record was written.
    commit(root, "Two more");
    write(root, "src/a.rs", "b\n");
    commit(root, "Change a");
    write(root, "src/z.rs", "z\n");
    commit(root, "Unrelated");
    let (_clone, shallow) = shallow_clone(root, 1);
    let run = memlint(&shallow, &["check", "--format", "json"]);
    assert!(!run.stdout.contains("sources/drifted"), "{}", run.stdout);
    assert!(
        run.stderr.contains("sources/drifted: 3 records citing files could not be judged for drift: 3 last written before the history of this shallow clone begins (fetch more history)"),
        "{}",
        run.stderr
    );
    // Deep enough: judged.
    git(&shallow, &["fetch", "-q", "--deepen", "3"]);
    let found = drifted(&shallow, &[]);
    assert_eq!(found.len(), 3, "{found:?}");
}

/// A cited directory, or cited lines of a file larger than memlint reads,
/// cannot be judged: said in the note, never silence; a record citing a
/// directory can still be verified (a directory has no content to pin).
#[test]
fn drift_of_a_directory_or_lines_of_a_huge_file_is_said_not_judged() {
    let dir = repo_with(
        &[("docs/a.md", "a\n"), ("src/a.rs", "1\n2\n")],
        &["file:docs", "file:src/a.rs"],
    );
    let root = dir.path();
    write(
        root,
        "memory/decisions/huge.md",
        &decision("Huge", &["file:big.txt#L2"]),
    );
    let big = std::fs::File::create(root.join("big.txt")).expect("create");
    big.set_len((16 << 20) + 1).expect("grow");
    commit(root, "Cite a huge file");
    write(root, "docs/a.md", "b\n");
    write(root, "big.txt", "x\n");
    let big = std::fs::OpenOptions::new()
        .append(true)
        .open(root.join("big.txt"))
        .expect("open");
    big.set_len((16 << 20) + 2).expect("grow");
    commit(root, "Change both");
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("sources/drifted"), "{}", run.stdout);
    assert!(
        run.stderr.contains("memlint: note: sources/drifted: 2 records citing files could not be judged for drift: 2 citing what cannot be read as a file (a directory, or lines of a file over 16 MiB)"),
        "{}",
        run.stderr
    );
    // Its other source is judged still.
    write(root, "src/a.rs", "1\n2\n3\n");
    let found: Vec<u64> = drifted(root, &[]).iter().map(|d| d.0).collect();
    assert_eq!(found, vec![7]);
    let run = memlint(root, &["verify", "cache"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(root.join("memory/decisions/cache.md")).expect("read");
    assert!(text.contains("\npins:\n  - file:src/a.rs xxh3:"), "{text}");
    assert!(!text.contains("  - file:docs xxh3:"), "{text}");
}

#[test]
fn drifted_on_a_change_staged_and_base_land_on_the_record() {
    let dir = repo_with(
        &[
            ("src/a.rs", "1\n2\n3\n"),
            ("src/b.rs", "b1\nb2\n"),
            ("src/c.rs", "c\n"),
        ],
        &["file:src/a.rs", "file:src/b.rs#L1", "file:src/c.rs#L1"],
    );
    let root = dir.path();
    git(root, &["switch", "-q", "-c", "feature"]);
    write(root, "src/a.rs", "1\n2\n3\n4\n");
    write(root, "src/b.rs", "b0\nb1\nb2\n");
    write(root, "src/c.rs", "c\nd\n");
    commit(root, "Change the sources");
    let run = memlint(root, &["check", "--base", "main", "--format", "github"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "::warning file=memory/decisions/cache.md,line=6,col=5,endLine=6,endColumn=18,title=sources/drifted::this change modifies `src/a.rs`, cited by `memory/decisions/cache.md`, and leaves the record as it was; check the record against the change, then verify it or replace it\n\
         ::warning file=memory/decisions/cache.md,line=7,col=5,endLine=7,endColumn=21,title=sources/drifted::the lines `file:src/b.rs#L1` cites are unchanged but now sit at `#L2`; `--fix` moves the range\n\
         memlint: Found 0 errors and 2 warnings in 1 file.\n"
    );
    let sarif = memlint(root, &["check", "--base", "main", "--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_str(&sarif.stdout).expect("sarif");
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for r in results {
        assert_eq!(r["ruleId"], "sources/drifted");
        assert_eq!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "memory/decisions/cache.md"
        );
    }
    // A change that also rewrites the record leaves nothing to report.
    write(
        root,
        "memory/decisions/cache.md",
        &decision("Cache again", &["file:src/a.rs"]),
    );
    commit(root, "Rewrite the record");
    let (_, found) = findings(root, &["--base", "main"]);
    assert!(
        found.iter().all(|(rule, ..)| rule != "sources/drifted"),
        "{found:?}"
    );
    // The staged change: the pre-commit hook names the records it leaves stale.
    git(root, &["switch", "-q", "main"]);
    write(root, "src/b.rs", "B1\nb2\n");
    git(root, &["add", "-A"]);
    let (_, found) = findings(root, &["--staged"]);
    assert_eq!(
        found,
        vec![f(
            "sources/drifted",
            7,
            "the staged change modifies `src/b.rs#L1`, cited by `memory/decisions/cache.md`, and leaves the record as it was; check the record against the change, then verify it or replace it"
        )]
    );
}

#[test]
fn a_change_that_renames_a_cited_file_is_reported_on_the_record() {
    let lines = |p: &str| (1..=30).map(|i| format!("{p} {i}\n")).collect::<String>();
    let dir = repo_with(
        &[
            ("src/a.rs", &lines("a")),
            ("src/c.rs", &lines("c")),
            ("src/d.rs", &lines("d")),
        ],
        &[
            "file:src/a.rs",
            "file:src/c.rs#L10-L12",
            "file:src/d.rs#L10-L12",
        ],
    );
    let root = dir.path();
    git(root, &["switch", "-q", "-c", "feature"]);
    git(root, &["mv", "src/a.rs", "src/a2.rs"]);
    write(root, "src/a2.rs", &lines("a").replace("a 5\n", "x\n"));
    git(root, &["mv", "src/c.rs", "src/c2.rs"]);
    write(root, "src/c2.rs", &format!("top\n{}", lines("c")));
    git(root, &["mv", "src/d.rs", "lib.rs"]);
    commit(root, "Move the sources");
    let expect = |change: &str| {
        vec![
            (6, format!("{change} modifies `src/a.rs` (renaming it to `src/a2.rs`), cited by `memory/decisions/cache.md`, and leaves the record as it was; check the record against the change, then verify it or replace it")),
            (7, "the lines `file:src/c.rs#L10-L12` cites are unchanged but now sit at `src/c2.rs#L11-L13`; `--fix` rewrites the source".to_string()),
            (8, format!("`file:src/d.rs#L10-L12` is renamed to `lib.rs` by {change}; once it is committed, `check --fix` rewrites the path")),
        ]
    };
    assert_eq!(
        drifted_only(root, &["--base", "main"]),
        expect("this change")
    );
    // The same change staged, as the pre-commit hook sees it.
    git(root, &["reset", "-q", "--soft", "main"]);
    assert_eq!(
        drifted_only(root, &["--staged"]),
        expect("the staged change")
    );
    // Committed, the work tree check agrees, and `--fix` rewrites what it can.
    commit(root, "Move the sources");
    let run = memlint(root, &["check", "--fix"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(root.join("memory/decisions/cache.md")).expect("read");
    assert!(
        text.contains("  - file:src/a.rs\n  - file:src/c2.rs#L11-L13\n  - file:lib.rs#L10-L12\n"),
        "{text}"
    );
}

/// A cited file renamed without change is said once, by `sources/drifted`
/// (where it went, and that `--fix` rewrites the path), not also by
/// `sources/dangling` (its old name names no file); unless the latter is
/// configured more severe: its exit code stands.
#[test]
fn a_renamed_source_is_reported_once_by_drift() {
    let dir = repo_with(&[("src/a.txt", "a\n")], &["file:src/a.txt"]);
    let root = dir.path();
    git(root, &["mv", "src/a.txt", "src/b.txt"]);
    commit(root, "Rename a");
    let (code, found) = findings(root, &[]);
    assert_eq!(code, 0);
    assert_eq!(
        found
            .iter()
            .map(|(rule, line, _)| (rule.as_str(), *line))
            .collect::<Vec<_>>(),
        vec![("sources/drifted", 6)],
        "{found:?}"
    );
    assert!(
        found[0].2.contains("was renamed to `src/b.txt`"),
        "{found:?}"
    );
    write(root, ".memlint.yml", "rules:\n  sources/dangling: error\n");
    let (code, found) = findings(root, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        found
            .iter()
            .map(|(rule, line, _)| (rule.as_str(), *line))
            .collect::<Vec<_>>(),
        vec![("sources/dangling", 6), ("sources/drifted", 6)],
        "{found:?}"
    );
}

/// A file over 1 MiB renamed and changed is not compared with the added
/// files (its blob is not even read: its size is in the object's header),
/// so it is a removal (`sources/dangling`), not a rename, in every mode;
/// a small one beside it is still followed.
#[test]
fn a_renamed_and_changed_file_over_1_mib_is_a_removal() {
    let big: String = (0..40_000)
        .map(|i| format!("line number {i:06} of the big file\n"))
        .collect();
    assert!(big.len() > 1 << 20);
    let small: String = (0..30).map(|i| format!("line {i}\n")).collect();
    let dir = repo_with(
        &[("src/big.txt", &big), ("src/small.txt", &small)],
        &["file:src/big.txt", "file:src/small.txt"],
    );
    let root = dir.path();
    git(root, &["switch", "-q", "-c", "feature"]);
    git(root, &["mv", "src/big.txt", "src/big2.txt"]);
    git(root, &["mv", "src/small.txt", "src/small2.txt"]);
    write(
        root,
        "src/big2.txt",
        &big.replace("number 000005 of", "changed"),
    );
    write(root, "src/small2.txt", &small.replace("line 5\n", "x\n"));
    commit(root, "Move the sources");
    let dangling = |line: u64, path: &str| {
        f(
            "sources/dangling",
            line,
            &format!("`file:{path}` names no file in the workspace"),
        )
    };
    let renamed = |change: &str| {
        f(
            "sources/drifted",
            7,
            &format!("{change} modifies `src/small.txt` (renaming it to `src/small2.txt`), cited by `memory/decisions/cache.md`, and leaves the record as it was; check the record against the change, then verify it or replace it"),
        )
    };
    let expect = |change: &str| {
        vec![
            dangling(6, "src/big.txt"),
            dangling(7, "src/small.txt"),
            renamed(change),
        ]
    };
    assert_eq!(
        findings(root, &["--base", "main"]),
        (0, expect("this change"))
    );
    git(root, &["reset", "-q", "--soft", "main"]);
    assert_eq!(
        findings(root, &["--staged"]),
        (0, expect("the staged change"))
    );
    commit(root, "Move the sources");
    let (code, found) = findings(root, &[]);
    assert_eq!(code, 0);
    assert_eq!(
        found[..2],
        [dangling(6, "src/big.txt"), dangling(7, "src/small.txt")]
    );
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(
        found[2].2.ends_with("(the file is now `src/small2.txt`); check the record against it, then cite `src/small2.txt` instead and verify it or replace it"),
        "{found:?}"
    );
}

/// A record citing a file that did not exist (`sources/dangling`) is left
/// stale by the change that creates the file, as by one that modifies it:
/// `check --staged` and `check --base` say so, and so does `check` while
/// the file is created in the work tree but not committed.
#[test]
fn a_change_that_creates_a_cited_file_is_reported_on_the_record() {
    let dir = repo_with(
        &[("src/x.rs", "x\n")],
        &[
            "file:src/new.rs",
            "file:src/lines.rs#L1-L2",
            "file:src/short.rs#L9",
        ],
    );
    let root = dir.path();
    // Judged once while the files do not exist (the judgement is kept).
    assert_eq!(drifted_only(root, &[]), vec![]);
    for file in ["src/new.rs", "src/lines.rs", "src/short.rs"] {
        write(root, file, "a\nb\nc\n");
    }
    // Git holds no version of them yet: whether they were there when the
    // record was written, it cannot tell.
    let run = memlint(root, &["check", "--format", "json"]);
    assert!(!run.stdout.contains("sources/drifted"), "{}", run.stdout);
    assert!(run.stderr.contains(NEVER_COMMITTED), "{}", run.stderr);
    let created = |change: &str, cited: &str| {
        format!("{change} creates `{cited}`, cited by `memory/decisions/cache.md`, and leaves the record as it was; check the record against the change, then verify it or replace it")
    };
    // A line the created file lacks is `sources/dangling`'s business.
    let expect = |change: &str| {
        vec![
            (6, created(change, "src/new.rs")),
            (7, created(change, "src/lines.rs#L1-L2")),
        ]
    };
    git(root, &["add", "-A"]);
    assert_eq!(
        drifted_only(root, &["--staged"]),
        expect("the staged change")
    );
    let run = memlint(root, &["check", "--format", "json"]);
    assert!(run.stderr.contains(NEVER_COMMITTED), "{}", run.stderr);
    git(root, &["switch", "-q", "-c", "feature"]);
    commit(root, "Create the cited files");
    assert_eq!(
        drifted_only(root, &["--base", "main"]),
        expect("this change")
    );
    // Committed, they were created after the record: the commit says so.
    let created_by = format!("1 commit, the newest {}", &head_of(root, "HEAD")[..7]);
    let found = drifted_only(root, &[]);
    assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), vec![6, 7, 8]);
    assert!(found.iter().all(|f| f.1.contains(&created_by)), "{found:?}");
    let run = memlint(root, &["check", "--base", "main", "--format", "github"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with(&format!(
            "::warning file=memory/decisions/cache.md,line=6,col=5,endLine=6,endColumn=20,title=sources/drifted::{}\n",
            created("this change", "src/new.rs")
        )),
        "{}",
        run.stdout
    );
}

/// The note of a check where one record cites a file git has never
/// committed.
const NEVER_COMMITTED: &str = "memlint: note: sources/drifted: 1 record citing files could not be judged for drift: 1 citing files git has never committed (commit them, or verify the record to pin them)";

/// A cited file git has never committed (ignored here) has no version
/// to compare with: the record is said not judged, warm or cold, until
/// `verify` pins the file; its other sources are judged all along.
#[test]
fn a_cited_file_git_has_never_committed_is_said_not_judged() {
    let dir = repo_with(
        &[(".gitignore", "local.cfg\n"), ("src/a.rs", "a\n")],
        &["file:src/a.rs", "file:local.cfg"],
    );
    let root = dir.path();
    write(root, "local.cfg", "x\n");
    for _ in 0..2 {
        let run = memlint(root, &["check", "--format", "json"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(!run.stdout.contains("sources/drifted"), "{}", run.stdout);
        assert!(run.stderr.contains(NEVER_COMMITTED), "{}", run.stderr);
    }
    write(root, "src/a.rs", "b\n");
    commit(root, "Change a");
    let found = drifted_only(root, &[]);
    assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), vec![6]);
    let run = memlint(root, &["check"]);
    assert!(run.stderr.contains(NEVER_COMMITTED), "{}", run.stderr);
    let run = memlint(root, &["verify", "cache"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(root.join("memory/decisions/cache.md")).expect("read");
    assert!(text.contains("  - file:local.cfg xxh3:"), "{text}");
    let run = memlint(root, &["check", "--format", "json"]);
    assert!(
        !run.stderr.contains("could not be judged"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("sources/drifted"), "{}", run.stdout);
    write(root, "local.cfg", "y\n");
    assert_eq!(
        drifted_only(root, &[]),
        vec![(7, format!("`file:local.cfg` changed since this record was verified on {}: it no longer matches its pin; check the record against it, then verify it or replace it", today()))]
    );
}

/// A change that gives a file the lines a record cites, which it lacked,
/// is reported on the record as creating them, staged and in a pull
/// request, as the work tree check reports them drifted.
#[test]
fn a_change_that_creates_the_cited_lines_is_reported_on_the_record() {
    let twenty: String = (1..=20).map(|n| format!("{n}\n")).collect();
    let dir = repo_with(&[("src/f.rs", twenty.as_str())], &["file:src/f.rs#L25"]);
    let root = dir.path();
    let thirty: String = (1..=30).map(|n| format!("{n}\n")).collect();
    write(root, "src/f.rs", &thirty);
    git(root, &["add", "-A"]);
    let created = |change: &str| {
        vec![(
            6,
            format!("{change} creates `src/f.rs#L25`, cited by `memory/decisions/cache.md`, and leaves the record as it was; check the record against the change, then verify it or replace it"),
        )]
    };
    assert_eq!(
        drifted_only(root, &["--staged"]),
        created("the staged change")
    );
    git(root, &["switch", "-q", "-c", "feature"]);
    commit(root, "Extend the file");
    assert_eq!(
        drifted_only(root, &["--base", "main"]),
        created("this change")
    );
    assert_eq!(drifted(root, &[]).len(), 1);
}

#[test]
fn drifted_on_a_pull_request_in_a_depth_1_checkout() {
    let dir = repo_with(&[("src/a.rs", "1\n")], &["file:src/a.rs"]);
    let root = dir.path();
    git(root, &["switch", "-q", "-c", "feature"]);
    write(root, "src/a.rs", "2\n");
    commit(root, "Change a");
    let ci = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", root.display());
    git(
        ci.path(),
        &[
            "clone", "-q", "--depth", "1", "--branch", "feature", &url, "work",
        ],
    );
    let work = ci.path().join("work");
    git(
        &work,
        &[
            "fetch",
            "-q",
            "--depth",
            "1",
            "origin",
            "main:refs/remotes/origin/main",
        ],
    );
    let (code, found) = findings(&work, &["--base", "origin/main"]);
    assert_eq!(code, 0);
    assert_eq!(
        found,
        vec![f(
            "sources/drifted",
            6,
            "this change modifies `src/a.rs`, cited by `memory/decisions/cache.md`, and leaves the record as it was; check the record against the change, then verify it or replace it"
        )]
    );
}

/// One step of a random history.
#[derive(Debug, Clone, Copy)]
enum Op {
    /// Append a line to the cited file.
    Modify,
    /// Change another file.
    Other,
    /// Rewrite the record (it is written again).
    Touch,
    /// Rename the cited file, content unchanged.
    Rename,
    /// Revert the last commit.
    Revert,
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        Just(Op::Modify),
        Just(Op::Other),
        Just(Op::Touch),
        Just(Op::Rename),
        Just(Op::Revert)
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 12, ..Default::default() })]

    /// Whole-file `sources/drifted` names the commits `git log --follow
    /// R..HEAD -- PATH` lists (R: the record's last commit), renames too;
    /// renames alone are not drift, and name the newest of them.
    #[test]
    fn whole_file_drift_agrees_with_git_log_follow(ops in proptest::collection::vec(op(), 1..7)) {
        let dir = repo_with(&[("src/a.txt", "a\n"), ("src/other.txt", "o\n")], &["file:src/a.txt"]);
        let root = dir.path();
        let mut name = "src/a.txt".to_string();
        let mut renames: Vec<String> = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            match op {
                Op::Modify => {
                    let mut text = std::fs::read_to_string(root.join(&name)).expect("read");
                    text.push_str(&format!("line {i}\n"));
                    write(root, &name, &text);
                    commit(root, &format!("Modify {i}"));
                }
                Op::Other => {
                    write(root, "src/other.txt", &format!("o{i}\n"));
                    commit(root, &format!("Other {i}"));
                }
                Op::Touch => {
                    let source = format!("file:{name}");
                    write(root, "memory/decisions/cache.md", &decision(&format!("Cache {i}"), &[&source]));
                    commit(root, &format!("Touch {i}"));
                }
                Op::Rename => {
                    let to = format!("src/a{i}.txt");
                    git(root, &["mv", &name, &to]);
                    commit(root, &format!("Rename {i}"));
                    renames.push(head_of(root, "HEAD"));
                    name = to;
                }
                Op::Revert => {
                    // Only changes of the files are reverted (reverting the
                    // record or a rename would make it cite a path gone).
                    let subject = git(root, &["log", "-1", "--format=%s"]);
                    if !subject.starts_with("Modify") && !subject.starts_with("Other") {
                        continue;
                    }
                    git(root, &["revert", "--no-edit", "HEAD"]);
                }
            }
        }
        let record = git(root, &["log", "-1", "--format=%H", "--", "memory/decisions/cache.md"]);
        let range = format!("{record}..HEAD");
        let oracle: Vec<String> = git(root, &["log", "--follow", "--format=%H", &range, "--", &name])
            .lines()
            .map(str::to_string)
            .collect();
        let found = drifted(root, &[]);
        let commits: Vec<Vec<String>> = found.iter().map(|(.., c)| c.clone()).collect();
        if oracle.iter().all(|c| renames.contains(c)) {
            // Renamed only (or untouched): not drift; a rename names the
            // newest commit that renamed it.
            let expected: Vec<Vec<String>> = oracle.first().map(|c| vec![c.clone()]).into_iter().collect();
            proptest::prop_assert!(found.iter().all(|(_, m, ..)| m.contains("was renamed")), "{:?} {:?}", ops, found);
            proptest::prop_assert_eq!(commits, expected, "{:?} {:?}", ops, found);
        } else {
            // Changed: every commit `git log --follow` lists, renames too.
            proptest::prop_assert_eq!(commits, vec![oracle], "{:?} {:?}", ops, found);
        }
    }
}

#[test]
fn drifted_through_a_merge_names_the_branch_commit() {
    let dir = repo_with(&[("src/a.rs", "a\n")], &["file:src/a.rs"]);
    let root = dir.path();
    git(root, &["switch", "-q", "-c", "side"]);
    write(root, "src/a.rs", "b\n");
    git(root, &["add", "-A"]);
    // Older than the record's rewrite on main, yet not its ancestor.
    let old = [
        ("GIT_AUTHOR_DATE", "2020-01-01T00:00:00Z"),
        ("GIT_COMMITTER_DATE", "2020-01-01T00:00:00Z"),
    ];
    common::git_with(root, &["commit", "-q", "-m", "Change a on a branch"], &old);
    let side = head_of(root, "HEAD");
    git(root, &["switch", "-q", "main"]);
    write(
        root,
        "memory/decisions/cache.md",
        &decision("Cache again", &["file:src/a.rs"]),
    );
    commit(root, "Rewrite the record");
    let record = head_of(root, "HEAD");
    git(root, &["merge", "-q", "--no-edit", "side"]);
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].3, vec![side.clone()]);
    let oracle = git(
        root,
        &[
            "log",
            "--follow",
            "--format=%H",
            &format!("{record}..HEAD"),
            "--",
            "src/a.rs",
        ],
    );
    assert_eq!(oracle, side);
}

/// A history packed as `git gc` packs it (a tree's newest version whole,
/// older ones as deltas of the next) is judged as the same history in
/// loose objects: memlint keeps the objects deltas were resolved into, and
/// reads the next version through them.
#[test]
fn a_packed_history_is_judged_as_the_same_history_loose() {
    let dir = repo_with(&[("src/f0.rs", "0\n")], &["file:src/f0.rs"]);
    let root = dir.path();
    // Forty decisions citing five files, a third of them rewritten in
    // each of twelve commits, and a cited file changed in each: many
    // versions of the decisions' tree and of the cited files.
    for round in 0..12 {
        for k in 0..40 {
            if (k + round) % 3 == 0 {
                let cited = format!("file:src/f{}.rs", k % 5);
                let text = decision(&format!("Decision {k} round {round}"), &[&cited]);
                write(root, &format!("memory/decisions/d{k:02}.md"), &text);
            }
        }
        write(
            root,
            &format!("src/f{}.rs", round % 5),
            &format!("{round}\n"),
        );
        commit(root, &format!("Round {round}"));
    }
    let check = || {
        let _ = std::fs::remove_dir_all(root.join(".memlint"));
        let run = memlint(root, &["check", "--format", "json"]);
        (run.code, run.stdout)
    };
    let loose = check();
    assert!(loose.1.contains("sources/drifted"), "{}", loose.1);
    git(root, &["gc", "-q", "--aggressive", "--prune=now"]);
    let packs = std::fs::read_dir(root.join(".git/objects/pack"))
        .expect("packs")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "pack"))
        })
        .count();
    assert_eq!(packs, 1, "git gc packed the history");
    assert!(
        git(root, &["count-objects", "-v"]).starts_with("count: 0\n"),
        "no loose object left"
    );
    assert_eq!(check(), loose);
}

fn today() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .expect("date")
}

#[test]
fn verify_pins_sources_and_drift_is_judged_by_the_pins() {
    let dir = repo_with(
        &[("src/a.rs", "a\nb\nc\n"), ("src/b.rs", "x\n")],
        &["file:src/a.rs", "file:src/a.rs#L2-L3", "file:src/b.rs"],
    );
    let root = dir.path();
    write(root, "src/a.rs", "a\nB\nc\n");
    write(root, "src/b.rs", "y\n");
    commit(root, "Change the sources");
    assert_eq!(drifted(root, &[]).len(), 3);
    let run = memlint(root, &["verify", "--drifted"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "verified memory/decisions/cache.md (3 pins)\n");
    let text = std::fs::read_to_string(root.join("memory/decisions/cache.md")).expect("read");
    // Named twice, by slug and by path, a record is verified once.
    let again = memlint(root, &["verify", "cache", "memory/decisions/cache.md"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        again.stdout,
        "verified memory/decisions/cache.md (3 pins)\n"
    );
    let body = decision(
        "Cache",
        &["file:src/a.rs", "file:src/a.rs#L2-L3", "file:src/b.rs"],
    );
    let (head, rest) = body.split_once("---\n\nBody.").expect("closing");
    let pin_a = "xxh3:7f2a62c9609aecb0";
    assert_eq!(
        text,
        format!(
            "{head}verified: {}\npins:\n  - file:src/a.rs {pin_a}\n  - file:src/a.rs#L2-L3 {}\n  - file:src/b.rs {}\n---\n\nBody.{rest}",
            today(),
            pin_of(root, &["check"], "file:src/a.rs#L2-L3", &text),
            pin_of(root, &["check"], "file:src/b.rs", &text),
        )
    );
    // The verified record is not committed, yet it is judged: by its pins.
    let run = memlint(root, &["check"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stderr.contains("could not be judged"),
        "{}",
        run.stderr
    );
    assert_eq!(drifted(root, &[]), vec![]);
    commit(root, "Verify the cache decision");
    // A later change: a shallow clone, without the record's history,
    // judges it by the pins.
    write(root, "src/a.rs", "z\na\nB\nc\n");
    commit(root, "Prepend to a");
    let (_clone, shallow) = shallow_clone(root, 1);
    let found = drifted(&shallow, &[]);
    assert_eq!(
        found.iter().map(|(l, m, fixable, _)| (*l, m.clone(), *fixable)).collect::<Vec<_>>(),
        vec![
            (6, format!("`file:src/a.rs` changed since this record was verified on {}: it no longer matches its pin; check the record against it, then verify it or replace it", today()), false),
            (7, "the lines `file:src/a.rs#L2-L3` cites are unchanged but now sit at `#L3-L4`; `--fix` moves the range".to_string(), true),
        ]
    );
    // A CRLF checkout of the same content matches the pins.
    write(root, ".gitattributes", "*.rs text eol=crlf\n");
    git(root, &["checkout", "HEAD~1", "--", "src/a.rs"]);
    commit(root, "Back, with CRLF checkouts");
    std::fs::remove_file(root.join("src/a.rs")).expect("rm");
    git(root, &["checkout", "--", "src/a.rs"]);
    assert!(std::fs::read(root.join("src/a.rs"))
        .expect("read")
        .starts_with(b"a\r\n"));
    assert_eq!(drifted(root, &[]), vec![]);
    // A source that cannot be pinned: nothing is written.
    std::fs::remove_file(root.join("src/b.rs")).expect("rm");
    let before = std::fs::read(root.join("memory/decisions/cache.md")).expect("read");
    let run = memlint(root, &["verify", "cache"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("memory/decisions/cache.md: `file:src/b.rs` cannot be pinned"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read(root.join("memory/decisions/cache.md")).expect("read"),
        before
    );
}

#[test]
fn verify_moves_a_moved_range_first_and_fixes_carry_the_pins() {
    let dir = repo_with(
        &[("src/a.rs", "a\nb\nc\nd\n"), ("src/c.rs", "keep\n")],
        &["file:src/a.rs#L2-L3", "file:src/c.rs"],
    );
    let root = dir.path();
    let record = root.join("memory/decisions/cache.md");
    write(root, "src/a.rs", "top\na\nb\nc\nd\n");
    commit(root, "Prepend to a");
    // Verified where the cited lines are now, not at the lines they left.
    let run = memlint(root, &["verify", "cache", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(
        json["verified"][0]["moved"],
        serde_json::json!([{"from": "file:src/a.rs#L2-L3", "to": "file:src/a.rs#L3-L4"}])
    );
    let text = std::fs::read_to_string(&record).expect("read");
    let range_pin = pin_of(root, &[], "file:src/a.rs#L3-L4", &text);
    let file_pin = pin_of(root, &[], "file:src/c.rs", &text);
    assert!(
        text.contains("  - file:src/a.rs#L3-L4\n  - file:src/c.rs\n"),
        "{text}"
    );
    assert!(!text.contains("#L2-L3"), "{text}");
    assert_eq!(drifted(root, &[]), vec![]);
    commit(root, "Verify");
    // The human line says what moved.
    write(root, "src/a.rs", "top\ntop\na\nb\nc\nd\n");
    let run = memlint(root, &["verify", "cache"]);
    assert_eq!(
        run.stdout,
        "verified memory/decisions/cache.md (2 pins; moved `file:src/a.rs#L3-L4` to `file:src/a.rs#L4-L5`)\n"
    );
    git(root, &["checkout", "--", "memory/decisions/cache.md"]);
    // A pinned file renamed is found by history, as an unpinned one is;
    // `--fix` rewrites both sources and their pins follow them.
    git(root, &["mv", "src/c.rs", "src/d.rs"]);
    commit(root, "Prepend again, rename c");
    let found: Vec<(u64, bool)> = drifted(root, &[]).iter().map(|d| (d.0, d.2)).collect();
    assert_eq!(found, vec![(6, true), (7, true)]);
    let run = memlint(root, &["check", "--fix"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&record).expect("read");
    assert!(
        text.contains("  - file:src/a.rs#L4-L5\n  - file:src/d.rs\n"),
        "{text}"
    );
    assert_eq!(pin_of(root, &[], "file:src/a.rs#L4-L5", &text), range_pin);
    assert_eq!(pin_of(root, &[], "file:src/d.rs", &text), file_pin);
    assert!(!text.contains("src/c.rs"), "{text}");
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    commit(root, "Fixed");
    // Judged by the pins alone (a shallow clone), the record is fresh.
    let (_clone, shallow) = shallow_clone(root, 1);
    assert_eq!(drifted(&shallow, &[]), vec![]);
}

/// `verify --drifted` picks the records whose only `sources/drifted`
/// findings are a range whose lines moved or a file renamed (what `check
/// --fix` repairs): it moves the range and follows the rename first, then
/// pins.
#[test]
fn verify_drifted_picks_records_with_only_moved_ranges_or_renames() {
    let dir = repo_with(
        &[("src/a.rs", "a\nb\nc\n"), ("src/c.rs", "keep\n")],
        &["file:src/a.rs#L2-L3"],
    );
    let root = dir.path();
    write(
        root,
        "memory/decisions/other.md",
        &decision("Other", &["file:src/c.rs"]),
    );
    commit(root, "Another decision");
    write(root, "src/a.rs", "top\na\nb\nc\n");
    git(root, &["mv", "src/c.rs", "src/d.rs"]);
    commit(root, "Prepend to a, rename c");
    let fixable: Vec<(u64, bool)> = drifted(root, &[]).iter().map(|d| (d.0, d.2)).collect();
    assert_eq!(fixable, vec![(6, true), (6, true)]);
    let run = memlint(root, &["verify", "--drifted"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "verified memory/decisions/cache.md (1 pin; moved `file:src/a.rs#L2-L3` to `file:src/a.rs#L3-L4`)\n\
         verified memory/decisions/other.md (1 pin; moved `file:src/c.rs` to `file:src/d.rs`)\n"
    );
    let cache = std::fs::read_to_string(root.join("memory/decisions/cache.md")).expect("read");
    assert!(cache.contains("  - file:src/a.rs#L3-L4 xxh3:"), "{cache}");
    let other = std::fs::read_to_string(root.join("memory/decisions/other.md")).expect("read");
    assert!(other.contains("sources:\n  - file:src/d.rs\n"), "{other}");
    assert!(other.contains("  - file:src/d.rs xxh3:"), "{other}");
    assert_eq!(drifted(root, &[]), vec![]);
}

/// `verify` keeps the user's bytes: a comment on the `pins:` line stays,
/// and a record with CRLF line endings keeps them, the lines it writes
/// ending so too; only those lines change.
#[test]
fn verify_keeps_a_pins_comment_and_crlf_line_endings() {
    let head = "---\ntitle: Cache\nstatus: active\ndate: 2026-01-02\nsources:\n  - file:src/a.rs\n";
    let dir = TempWorkspace::new()
        .git()
        .file("src/a.rs", "a\n")
        .file(
            "memory/decisions/cache.md",
            &format!("{head}pins: []  # none yet\n---\n\nBody.\n"),
        )
        .file(
            "memory/decisions/crlf.md",
            &decision("Crlf", &["file:src/a.rs#L1"]).replace('\n', "\r\n"),
        )
        .commit("Write the decisions")
        .build();
    let root = dir.path();
    let run = memlint(root, &["verify", "cache", "crlf"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let cache = std::fs::read_to_string(root.join("memory/decisions/cache.md")).expect("read");
    let pin = pin_of(root, &[], "file:src/a.rs", &cache);
    assert_eq!(
        cache,
        format!(
            "{head}verified: {}\npins:  # none yet\n  - file:src/a.rs {pin}\n---\n\nBody.\n",
            today()
        )
    );
    let crlf = std::fs::read_to_string(root.join("memory/decisions/crlf.md")).expect("read");
    let crlf_record = |line: &str, pin: &str| {
        let (front, body) = decision("Crlf", &[&format!("file:src/a.rs{line}")])
            .split_once("---\n\n")
            .map(|(f, b)| (f.to_string(), b.to_string()))
            .expect("closing");
        format!(
            "{front}verified: {}\npins:\n  - file:src/a.rs{line} {pin}\n---\n\n{body}",
            today()
        )
        .replace('\n', "\r\n")
    };
    let line_pin = pin_of(root, &[], "file:src/a.rs#L1", &crlf);
    assert_eq!(crlf, crlf_record("#L1", &line_pin));
    // `check --fix` moves the range and its pin in place: the CRLF stays
    // (where the user keeps it, `format/crlf` off).
    write(root, ".memlint.yml", "rules:\n  format/crlf: off\n");
    commit(root, "Verify, CRLF kept");
    write(root, "src/a.rs", "top\na\n");
    commit(root, "Prepend to a");
    let run = memlint(root, &["check", "--fix"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let crlf = std::fs::read_to_string(root.join("memory/decisions/crlf.md")).expect("read");
    assert_eq!(crlf, crlf_record("#L2", &line_pin));
}

/// The hash `verify` wrote for `source` in `text`.
fn pin_of(_root: &Path, _args: &[&str], source: &str, text: &str) -> String {
    let prefix = format!("  - {source} ");
    text.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .expect("pinned")
        .to_string()
}

#[test]
fn the_stored_history_follows_head_through_amend_reset_and_rebase() {
    let dir = repo_with(
        &[("src/a.rs", "a\n"), ("src/b.rs", "b\n")],
        &["file:src/a.rs"],
    );
    let root = dir.path();
    write(root, "src/a.rs", "a2\n");
    commit(root, "Change a");
    let first = drifted(root, &[]);
    assert_eq!(first[0].3, vec![head_of(root, "HEAD")]);
    assert!(root.join(".memlint/drift").is_file(), "the walk is stored");
    // Amend: HEAD moves to a commit the store has not seen.
    git(
        root,
        &["commit", "-q", "--amend", "-m", "Change a, amended"],
    );
    let amended = drifted(root, &[]);
    assert_eq!(amended[0].3, vec![head_of(root, "HEAD")]);
    assert!(
        amended[0].1.contains("\"Change a, amended\""),
        "{}",
        amended[0].1
    );
    // Reset: the change is gone, and so is the drift.
    git(root, &["reset", "-q", "--hard", "HEAD~1"]);
    assert_eq!(drifted(root, &[]), vec![]);
    // Rebase: a branch that changed a, replayed onto one that changed b.
    git(root, &["switch", "-q", "-c", "topic"]);
    write(root, "src/a.rs", "a3\n");
    commit(root, "Change a on topic");
    git(root, &["switch", "-q", "main"]);
    write(root, "src/b.rs", "b2\n");
    commit(root, "Change b");
    git(root, &["switch", "-q", "topic"]);
    let before = drifted(root, &[]);
    git(root, &["rebase", "-q", "main"]);
    let after = drifted(root, &[]);
    assert_eq!(after[0].3, vec![head_of(root, "HEAD")]);
    assert_ne!(after[0].3, before[0].3);
}

#[test]
fn report_lists_drifted_records() {
    let dir = repo_with(&[("src/a.rs", "a\n")], &["file:src/a.rs"]);
    let root = dir.path();
    write(root, "src/a.rs", "b\n");
    commit(root, "Change a");
    let run = memlint(root, &["report", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    assert_eq!(
        json["drifted"],
        serde_json::json!(["memory/decisions/cache.md"])
    );
    assert!(json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .any(|d| d["rule"] == "sources/drifted"));
    let human = memlint(root, &["report"]);
    assert!(
        human
            .stdout
            .contains("Drifted records (1):\n  memory/decisions/cache.md\n"),
        "{}",
        human.stdout
    );
}

#[test]
fn show_says_which_source_changed_in_which_commit() {
    let dir = repo_with(&[("src/a.rs", "a\n")], &["file:src/a.rs"]);
    let root = dir.path();
    let fresh = memlint(root, &["show", "cache", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&fresh.stdout).expect(&fresh.stdout);
    assert_eq!(json["drifted"], serde_json::json!([]));
    write(root, "src/a.rs", "b\n");
    commit(root, "Change a");
    let id = head_of(root, "HEAD");
    let date = git(root, &["log", "-1", "--format=%ad", "--date=short"]);
    let message = format!("`file:src/a.rs` changed after this record was last written: 1 commit, the newest {} ({date}, \"Change a\"); check the record against it, then verify it or replace it", &id[..7]);
    let run = memlint(root, &["show", "cache", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    assert_eq!(json["drifted"], serde_json::json!([message]));
    let human = memlint(root, &["show", "cache"]);
    assert!(
        human.stdout.contains(&format!("> drifted: {message}\n")),
        "{}",
        human.stdout
    );
}

/// Moves `.git/objects` aside (an empty object store in its place) while
/// `f` runs: what a run reads of the history then shows.
fn without_git_objects<T>(root: &Path, f: impl FnOnce() -> T) -> T {
    let objects = root.join(".git/objects");
    let away = root.join(".git/objects-away");
    std::fs::rename(&objects, &away).expect("move the objects");
    std::fs::create_dir_all(objects.join("pack")).expect("mkdir");
    std::fs::create_dir_all(objects.join("info")).expect("mkdir");
    let out = f();
    std::fs::remove_dir_all(&objects).expect("rm");
    std::fs::rename(&away, &objects).expect("restore the objects");
    out
}

#[test]
fn drift_verdicts_are_kept_and_judged_again_only_when_their_files_change() {
    let dir = repo_with(
        &[("src/a.rs", "a\n"), ("src/b.rs", "b1\nb2\n")],
        &["file:src/a.rs", "file:src/b.rs#L2"],
    );
    let root = dir.path();
    write(root, "src/a.rs", "a2\n");
    commit(root, "Change a");
    let first = drifted(root, &[]);
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(root.join(".memlint/drift-judged").is_file());
    // Nothing changed: the stored verdicts are reported without reading
    // the history (the git objects are out of reach).
    let warm = without_git_objects(root, || drifted(root, &[]));
    assert_eq!(warm, first);
    // A cited file changes in the work tree: its record is judged again.
    write(root, "src/b.rs", "b1\nB2\n");
    let edited = drifted(root, &[]);
    assert_eq!(edited.len(), 2, "{edited:?}");
    assert!(edited[1].1.contains("uncommitted"), "{}", edited[1].1);
    // And back: the first verdict again.
    write(root, "src/b.rs", "b1\nb2\n");
    assert_eq!(drifted(root, &[]), first);
    // The record changes (uncommitted): not judged, and said so.
    write(
        root,
        "memory/decisions/cache.md",
        &decision("Cache, edited", &["file:src/a.rs"]),
    );
    let run = memlint(root, &["check", "--format", "json"]);
    assert!(
        run.stderr.contains(
            "1 record citing files could not be judged for drift: 1 with changes not committed yet"
        ),
        "{}",
        run.stderr
    );
    // A damaged store is judged again, not trusted.
    commit(root, "Edit the record");
    let clean = drifted(root, &[]);
    assert_eq!(clean, vec![]);
    std::fs::write(root.join(".memlint/drift-judged"), b"MLJUDGE\0garbage").unwrap();
    assert_eq!(drifted(root, &[]), vec![]);
    write(root, "src/a.rs", "a3\n");
    assert_eq!(drifted(root, &[]).len(), 1);
}

#[test]
fn staged_and_base_find_the_citing_records_from_the_stored_citations() {
    let dir = repo_with(
        &[("src/a.rs", "a\n"), ("src/b.rs", "b\n")],
        &["file:src/a.rs"],
    );
    let root = dir.path();
    write(
        root,
        "memory/decisions/other.md",
        &decision("Other", &["https://example.com/other"]),
    );
    commit(root, "Another decision");
    // A full check stores which records cite which files.
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(root.join(".memlint/cites").is_file());
    // The other record starts citing b after that check: its stored
    // citations are stale, and it is read.
    write(
        root,
        "memory/decisions/other.md",
        &decision("Other", &["file:src/b.rs"]),
    );
    commit(root, "Cite b");
    git(root, &["switch", "-q", "-c", "feature"]);
    write(root, "src/a.rs", "a2\n");
    write(root, "src/b.rs", "b2\n");
    git(root, &["add", "-A"]);
    let staged: Vec<(String, u64)> = staged_findings(root, &["--staged"]);
    assert_eq!(
        staged,
        vec![
            ("memory/decisions/cache.md".to_string(), 6),
            ("memory/decisions/other.md".to_string(), 6),
        ]
    );
    commit(root, "Change a and b");
    assert_eq!(staged_findings(root, &["--base", "main"]), staged);
    // After a full check the stored citations are current again.
    memlint(root, &["check", "--format", "json"]);
    assert_eq!(staged_findings(root, &["--base", "main"]), staged);
}

/// (path, line) of the `sources/drifted` findings of `check ARGS`.
fn staged_findings(root: &Path, args: &[&str]) -> Vec<(String, u64)> {
    common::rule_findings(root, "sources/drifted", args)
}

/// Occurrences of `needle` in `hay`.
fn occurrences(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}

#[test]
fn drift_verdicts_store_each_message_and_commit_once() {
    // Forty records cite one file that changed since: forty findings with
    // one message naming one commit.
    let dir = repo_with(&[("src/a.rs", "a\n")], &["file:src/a.rs"]);
    let root = dir.path();
    for i in 0..40 {
        write(
            root,
            &format!("memory/decisions/d{i:02}.md"),
            &decision(&format!("Decision {i}"), &["file:src/a.rs"]),
        );
    }
    commit(root, "Forty decisions");
    write(root, "src/a.rs", "a2\n");
    commit(root, "Change a");
    let changed = head_of(root, "HEAD");
    let cold = drifted(root, &[]);
    assert_eq!(cold.len(), 41, "{cold:?}");
    assert!(
        cold.iter().all(|d| d.3 == vec![changed.clone()]),
        "{cold:?}"
    );
    let stored = std::fs::read(root.join(".memlint/drift-judged")).expect("stored verdicts");
    assert_eq!(occurrences(&stored, changed.as_bytes()), 1);
    assert_eq!(
        occurrences(&stored, cold[0].1.as_bytes()),
        1,
        "{}",
        cold[0].1
    );
    assert!(stored.len() < 41 * 150, "{} bytes", stored.len());
    // Read back, the same findings, without the history.
    let warm = without_git_objects(root, || drifted(root, &[]));
    assert_eq!(warm, cold);
}

#[test]
fn records_citing_one_file_from_different_commits_each_get_their_own_message() {
    // Thirty records written before two changes of the cited file, thirty
    // more between them: one message is formatted per cited source and
    // commit the record was last written at, and no record gets another's.
    let dir = repo_with(&[("src/a.rs", "a\n")], &["file:src/a.rs"]);
    let root = dir.path();
    for i in 0..30 {
        write(
            root,
            &format!("memory/decisions/early{i:02}.md"),
            &decision(&format!("Early {i}"), &["file:src/a.rs"]),
        );
    }
    commit(root, "Early decisions");
    write(root, "src/a.rs", "a1\n");
    commit(root, "First change");
    let first = head_of(root, "HEAD");
    for i in 0..30 {
        write(
            root,
            &format!("memory/decisions/late{i:02}.md"),
            &decision(&format!("Late {i}"), &["file:src/a.rs"]),
        );
    }
    commit(root, "Late decisions");
    write(root, "src/a.rs", "a2\n");
    commit(root, "Second change");
    let second = head_of(root, "HEAD");
    let date = git(root, &["log", "-1", "--format=%ad", "--date=short"]);
    let paths: Vec<String> = common::rule_json(root, "sources/drifted", &[])
        .iter()
        .map(|d| d["path"].as_str().unwrap_or("").to_string())
        .collect();
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 61, "{found:?}");
    let two = format!("`file:src/a.rs` changed after this record was last written: 2 commits, the newest {} ({date}, \"Second change\"); check the record against it, then verify it or replace it", &second[..7]);
    let one = format!("`file:src/a.rs` changed after this record was last written: 1 commit, the newest {} ({date}, \"Second change\"); check the record against it, then verify it or replace it", &second[..7]);
    for (path, d) in paths.iter().zip(&found) {
        if path.contains("/late") {
            assert_eq!((&d.1, &d.3), (&one, &vec![second.clone()]), "{path}");
        } else {
            assert_eq!(
                (&d.1, &d.3),
                (&two, &vec![second.clone(), first.clone()]),
                "{path}"
            );
        }
    }
    // The same from the stored verdicts.
    assert_eq!(drifted(root, &[]), found);
}

#[test]
fn stored_citations_keep_records_citing_nothing_as_fingerprints() {
    // One record cites a file, sixty cite none.
    let dir = repo_with(
        &[("src/a.rs", "a\n"), ("src/b.rs", "b\n")],
        &["file:src/a.rs"],
    );
    let root = dir.path();
    for i in 0..60 {
        write(
            root,
            &format!("memory/decisions/plain-{i:02}.md"),
            &decision(&format!("Plain {i}"), &["https://example.com/x"]),
        );
    }
    commit(root, "Sixty decisions citing no file");
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let stored = std::fs::read(root.join(".memlint/cites")).expect("stored citations");
    assert_eq!(occurrences(&stored, b"memory/decisions/cache.md"), 1);
    assert_eq!(occurrences(&stored, b"plain-"), 0);
    assert!(stored.len() < 60 * 12, "{} bytes", stored.len());
    // A record citing nothing then starts citing b, without a full check:
    // it is no longer the one stored, and it is read.
    write(
        root,
        "memory/decisions/plain-07.md",
        &decision("Plain 7", &["file:src/b.rs"]),
    );
    commit(root, "Cite b");
    write(root, "src/a.rs", "a2\n");
    write(root, "src/b.rs", "b2\n");
    git(root, &["add", "-A"]);
    assert_eq!(
        staged_findings(root, &["--staged"]),
        vec![
            ("memory/decisions/cache.md".to_string(), 6),
            ("memory/decisions/plain-07.md".to_string(), 6),
        ]
    );
}

/// In a shallow clone whose history begins after the record was last
/// written, a pinned file renamed within that history is followed (every
/// commit the clone holds came after the record) and judged by its pin
/// under its new name: renamed only, `--fix` rewrites the source and its
/// pin; renamed and changed, drifted. (It was only `sources/dangling`.)
#[test]
fn a_pinned_file_renamed_within_a_shallow_clone_is_followed() {
    let dir = repo_with(
        &[
            ("src/a.rs", "a\nb\n"),
            ("src/c.rs", "c\n"),
            ("src/x.rs", "x\n"),
        ],
        &["file:src/a.rs", "file:src/c.rs#L1"],
    );
    let root = dir.path();
    let run = memlint(root, &["verify", "cache"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    commit(root, "Verify");
    write(root, "src/x.rs", "x2\n");
    commit(root, "Unrelated");
    git(root, &["mv", "src/a.rs", "src/b.rs"]);
    git(root, &["mv", "src/c.rs", "src/d.rs"]);
    write(root, "src/d.rs", "top\nc\n");
    commit(root, "Rename a and c");
    let (_clone, shallow) = shallow_clone(root, 2);
    let found = drifted(&shallow, &[]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!((found[0].0, found[0].2), (6, true), "{found:?}");
    assert!(
        found[0]
            .1
            .contains("`file:src/a.rs` was renamed to `src/b.rs` by "),
        "{}",
        found[0].1
    );
    assert_eq!((found[1].0, found[1].2), (7, true), "{found:?}");
    assert!(found[1].1.contains("src/d.rs"), "{}", found[1].1);
    let run = memlint(&shallow, &["check", "--fix"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let text = std::fs::read_to_string(shallow.join("memory/decisions/cache.md")).expect("read");
    assert!(
        text.contains("  - file:src/b.rs\n  - file:src/d.rs#L2\n"),
        "{text}"
    );
    assert!(text.contains("  - file:src/b.rs xxh3:"), "{text}");
    assert!(text.contains("  - file:src/d.rs#L2 xxh3:"), "{text}");
    // Renamed and changed: drift, naming the commits the clone holds.
    git(&shallow, &["checkout", "--", "."]);
    write(&shallow, "src/b.rs", "a\nB\n");
    commit(&shallow, "Change b");
    let found = drifted(&shallow, &[]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!((found[0].0, found[0].2), (6, false), "{found:?}");
    assert!(
        found[0]
            .1
            .contains("changed after this record was last written: at least 2 commits (the history of this clone begins after the record), the newest "),
        "{}",
        found[0].1
    );
}

/// In a shallow clone whose history begins after the record was last
/// written, a cited file that a commit the clone holds changed has
/// drifted for certain (that commit came after the record): reported,
/// naming it. What the clone cannot tell (a file no such commit changed, a
/// range) is still said in the note, not guessed.
#[test]
fn a_file_changed_within_a_shallow_clone_has_drifted() {
    let dir = repo_with(
        &[
            ("src/a.rs", "a\n"),
            ("src/e.rs", "e\n"),
            ("src/x.rs", "x\n"),
        ],
        &["file:src/a.rs", "file:src/e.rs#L1"],
    );
    let root = dir.path();
    write(
        root,
        "memory/decisions/other.md",
        &decision("Other", &["file:src/x.rs"]),
    );
    commit(root, "Another decision");
    write(root, "src/a.rs", "a2\n");
    commit(root, "Change a");
    let (_clone, shallow) = shallow_clone(root, 2);
    let found = drifted(&shallow, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    let (line, message, fixable, commits) = &found[0];
    assert_eq!((*line, *fixable), (6, false));
    assert!(
        message.contains(
            "`file:src/a.rs` changed after this record was last written: at least 1 commit (the history of this clone begins after the record), the newest "
        ),
        "{message}"
    );
    assert!(message.contains("\"Change a\""), "{message}");
    assert_eq!(commits.len(), 1);
    let run = memlint(&shallow, &["check"]);
    assert!(
        run.stderr.contains("sources/drifted: 2 records citing files could not be judged for drift: 2 last written before the history of this shallow clone begins (fetch more history)"),
        "{}",
        run.stderr
    );
    // A change in the work tree counts too.
    write(&shallow, "src/x.rs", "x2\n");
    let found = drifted(&shallow, &[]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[1].1.contains("`file:src/x.rs`"), "{}", found[1].1);
    let run = memlint(&shallow, &["check"]);
    assert!(
        run.stderr.contains("sources/drifted: 1 record citing files could not be judged for drift: 1 last written before"),
        "{}",
        run.stderr
    );
}

/// A file renamed and renamed back to its name is not renamed (nothing to
/// fix); one deleted and brought back was changed by both commits, as `git
/// log -- PATH` lists them. In a shallow clone that holds only the commit
/// bringing a file back, whether it came back as it was cannot be told:
/// not judged, not drifted.
#[test]
fn renamed_back_and_deleted_and_restored_files() {
    let dir = repo_with(
        &[
            ("src/u.rs", "u\n"),
            ("src/v.rs", "v\n"),
            ("src/x.rs", "x\n"),
        ],
        &["file:src/u.rs", "file:src/v.rs"],
    );
    let root = dir.path();
    write(root, "src/x.rs", "x2\n");
    commit(root, "Unrelated");
    git(root, &["mv", "src/u.rs", "src/tmp.rs"]);
    git(root, &["rm", "-q", "src/v.rs"]);
    commit(root, "Move u away, delete v");
    git(root, &["mv", "src/tmp.rs", "src/u.rs"]);
    write(root, "src/v.rs", "v\n");
    commit(root, "Move u back, restore v");
    write(root, "src/x.rs", "x3\n");
    commit(root, "Unrelated again");
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    let (line, message, fixable, commits) = &found[0];
    assert_eq!((*line, *fixable, commits.len()), (7, false, 2), "{message}");
    assert!(
        message.contains(
            "`file:src/v.rs` changed after this record was last written: 2 commits, the newest "
        ),
        "{message}"
    );
    let (_clone, shallow) = shallow_clone(root, 3);
    assert_eq!(drifted(&shallow, &[]), vec![]);
    let run = memlint(&shallow, &["check"]);
    assert!(
        run.stderr.contains("1 record citing files could not be judged for drift: 1 last written before the history of this shallow clone begins"),
        "{}",
        run.stderr
    );
}

/// A source read through a symbolic link is judged as the file it leads
/// to: no drift while that file is as the record's commit held it, drift
/// (whole file or cited lines) once it changes, committed or not.
#[cfg(unix)]
#[test]
fn a_source_through_a_symbolic_link_is_judged_as_the_file_it_leads_to() {
    let dir = repo_with(&[("src/f.rs", "1\n2\n3\n")], &[]);
    let root = dir.path();
    std::fs::create_dir_all(root.join("docs")).expect("mkdir");
    std::os::unix::fs::symlink("src/f.rs", root.join("link.rs")).expect("link");
    std::os::unix::fs::symlink("../src", root.join("docs/code")).expect("link");
    write(
        root,
        "memory/decisions/cache.md",
        &decision("Cache", &["file:link.rs", "file:docs/code/f.rs#L2"]),
    );
    commit(root, "Cite through links");
    assert_eq!(drifted(root, &[]), vec![]);
    // Another line: the whole file has drifted, the cited line has not.
    write(root, "src/f.rs", "1\n2\n3\n4\n");
    let lines = |root: &Path| -> Vec<(u64, bool)> {
        drifted(root, &[]).iter().map(|d| (d.0, d.2)).collect()
    };
    assert_eq!(lines(root), vec![(6, false)]);
    commit(root, "Add a line");
    let found = drifted(root, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].3, vec![head_of(root, "HEAD")]);
    write(root, "src/f.rs", "1\ntwo\n3\n4\n");
    assert_eq!(lines(root), vec![(6, false), (7, false)]);
}
