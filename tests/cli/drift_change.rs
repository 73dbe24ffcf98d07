//! `sources/drifted` on a change (`check --staged`, `check --base`) read
//! from `.memlint/cites`: the records a full check stored are known by
//! their stored sources, and what is reported is what reading every
//! record reports, in every format.

use crate::common;

use common::{commit, decision, git, memlint, write, Run};
use std::path::Path;

/// The lines `first..=last` of a source file, one word each.
fn lines(word: &str, n: usize) -> String {
    (1..=n).map(|i| format!("{word} {i}\n")).collect()
}

/// (path, line) of the `sources/drifted` findings of `check ARGS`.
fn drift_findings(root: &Path, args: &[&str]) -> Vec<(String, u64)> {
    common::rule_findings(root, "sources/drifted", args)
}

/// LEB128, as memlint's caches write integers.
fn leb128(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn read_leb128(bytes: &[u8]) -> u64 {
    let mut v = 0u64;
    for (i, b) in bytes.iter().enumerate() {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            break;
        }
    }
    v
}

#[test]
fn an_older_layout_of_the_stored_citations_is_ignored_and_written_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "src/a.rs", "a\n");
    write(
        root,
        "memory/decisions/cache.md",
        &decision("Cache", &["file:src/a.rs"]),
    );
    commit(root, "Write the decision");
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let file = root.join(".memlint/cites");
    let stored = std::fs::read(&file).expect("stored citations");
    // The layout before this one: magic, format, configuration key, the
    // citing records, then the fingerprints of the others. Written with
    // this workspace's format and key, it says (wrongly) that the decision
    // cites nothing: a reader that took it would miss the finding.
    let (format, key) = (&stored[8..12], read_leb128(&stored[12..]));
    let blob = git(root, &["rev-parse", "HEAD:memory/decisions/cache.md"]);
    let mut short = [0u8; 8];
    for (i, b) in short.iter_mut().enumerate() {
        *b = u8::from_str_radix(&blob.trim()[2 * i..2 * i + 2], 16).expect("hex");
    }
    let id = u64::from_le_bytes(short);
    let fingerprint = xxhash_rust::xxh3::xxh3_64_with_seed(b"memory/decisions/cache.md", id);
    let mut second = b"MLCITES2".to_vec();
    second.extend_from_slice(format);
    leb128(key, &mut second);
    leb128(0, &mut second);
    leb128(1, &mut second);
    second.extend_from_slice(&fingerprint.to_le_bytes());
    // The third: no cited file, no citing record (offsets, data), then the
    // fingerprints, without the directories known by their tree id.
    let mut third = b"MLCITES3".to_vec();
    third.extend_from_slice(format);
    leb128(key, &mut third);
    for _ in 0..3 {
        leb128(0, &mut third);
    }
    leb128(1, &mut third);
    third.extend_from_slice(&fingerprint.to_le_bytes());
    // The fourth: as the third, with no directory known by its tree id
    // (each of which then had no list of records not stored).
    let mut fourth = b"MLCITES4".to_vec();
    fourth.extend_from_slice(format);
    leb128(key, &mut fourth);
    for _ in 0..4 {
        leb128(0, &mut fourth);
    }
    leb128(1, &mut fourth);
    fourth.extend_from_slice(&fingerprint.to_le_bytes());
    for (i, mut old) in [second, third, fourth].into_iter().enumerate() {
        let sum = xxhash_rust::xxh3::xxh3_64(&old);
        old.extend_from_slice(&sum.to_le_bytes());
        std::fs::write(&file, &old).expect("write the old layout");
        write(root, "src/a.rs", &format!("a{i}\n"));
        git(root, &["add", "-A"]);
        assert_eq!(
            drift_findings(root, &["--staged"]),
            vec![("memory/decisions/cache.md".to_string(), 6)]
        );
        git(root, &["reset", "-q", "--hard"]);
        // A full check writes the file again, though no record changed.
        let run = memlint(root, &["check", "--format", "json"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let again = std::fs::read(&file).expect("stored citations");
        assert_eq!(&again[..8], b"MLCITES5");
        assert_eq!(again, stored);
    }
}

/// Everything `check ARGS` prints, in every format.
fn outputs(root: &Path, args: &[&str]) -> Vec<(String, i32, String, String)> {
    ["human", "json", "github", "sarif"]
        .iter()
        .map(|format| {
            let mut all = vec!["check", "--format", format];
            all.extend_from_slice(args);
            let Run {
                code,
                stdout,
                stderr,
            } = memlint(root, &all);
            (format.to_string(), code, stdout, stderr)
        })
        .collect()
}

/// The outputs of `check ARGS` with the citations a full check stored,
/// checked against those of reading every record (the store removed).
fn same_without_the_store(root: &Path, args: &[&str]) -> Vec<(String, i32, String, String)> {
    let stored = std::fs::read(root.join(".memlint/cites")).expect("stored citations");
    assert_eq!(&stored[..8], b"MLCITES5");
    let with = outputs(root, args);
    std::fs::remove_file(root.join(".memlint/cites")).expect("remove");
    let without = outputs(root, args);
    assert_eq!(with, without);
    std::fs::write(root.join(".memlint/cites"), stored).expect("restore");
    with
}

#[test]
fn staged_and_base_report_what_reading_every_record_reports() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "src/a.rs", &lines("a", 10));
    write(root, "src/b.rs", &lines("b", 10));
    write(root, "src/c.rs", &lines("c", 3));
    let d = "memory/decisions";
    let record = |name: &str, title: &str, sources: &[&str]| {
        write(root, &format!("{d}/{name}.md"), &decision(title, sources));
    };
    record("whole", "Whole", &["file:src/a.rs"]);
    record(
        "range",
        "Range",
        &["https://example.com/x", "file:src/a.rs#L2-L3"],
    );
    record("moved", "Moved", &["file:src/b.rs#L5-L6"]);
    record(
        "twice",
        "Twice",
        &[
            "file:src/a.rs#L8",
            "file:src/a.rs#Lx",
            "file:src/b.rs",
            "file:src/c.rs",
        ],
    );
    record("plain", "Plain", &["https://example.com/y"]);
    record("unchanged", "Unchanged", &["file:src/a.rs#L5"]);
    // CRLF line endings and a non-ASCII title: columns and spans as the
    // record reads.
    let crlf = decision("Différent", &["file:src/a.rs#L9", "file:src/b.rs#L1"]);
    write(root, &format!("{d}/crlf.md"), &crlf.replace('\n', "\r\n"));
    commit(root, "Records citing sources");
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Committed after the full check: not in the store, read.
    record("late", "Late", &["file:src/c.rs#L1-L2"]);
    commit(root, "A record the store does not know");
    git(root, &["switch", "-q", "-c", "feature"]);
    let a = lines("a", 10)
        .replace("a 2\n", "a two\n")
        .replace("a 8\n", "a eight\n")
        .replace("a 9\n", "a nine\n");
    write(root, "src/a.rs", &a);
    write(root, "src/b.rs", &format!("b 0\n{}", lines("b", 10)));
    write(root, "src/c.rs", "c one\nc 2\nc 3\n");
    // A record the change rewrites is not reported.
    record("plain", "Plain", &["file:src/b.rs#L2"]);
    git(root, &["add", "-A"]);
    let expected: Vec<(String, u64)> = [
        ("crlf", 6),
        ("crlf", 7),
        ("late", 6),
        ("moved", 6),
        ("range", 7),
        ("twice", 6),
        ("twice", 8),
        ("twice", 9),
        ("whole", 6),
    ]
    .iter()
    .map(|(name, line)| (format!("{d}/{name}.md"), *line))
    .collect();
    let staged = same_without_the_store(root, &["--staged"]);
    assert_eq!(drift_findings(root, &["--staged"]), expected);
    assert!(staged[0].2.contains("crlf.md"), "{}", staged[0].2);
    commit(root, "Change the sources");
    let base = same_without_the_store(root, &["--base", "main"]);
    assert_eq!(drift_findings(root, &["--base", "main"]), expected);
    assert!(
        base[2].2.contains("file=memory/decisions/moved.md,line=6"),
        "{}",
        base[2].2
    );
}

#[test]
fn sources_naming_records_are_not_stored() {
    // A change modifying a record is no drift of the records citing it: the
    // store keeps only the sources naming other files.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "src/a.rs", "a\n");
    let d = "memory/decisions";
    write(
        root,
        &format!("{d}/base.md"),
        &decision("Base", &["file:src/a.rs"]),
    );
    write(
        root,
        &format!("{d}/on-a-record.md"),
        &decision("On a record", &["file:memory/decisions/base.md"]),
    );
    commit(root, "Two decisions");
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let stored = std::fs::read(root.join(".memlint/cites")).expect("stored citations");
    let has = |needle: &[u8]| stored.windows(needle.len()).any(|w| w == needle);
    assert!(has(b"memory/decisions/base.md"));
    assert!(has(b"file:src/a.rs"));
    assert!(!has(b"on-a-record"));
    // The record and the file change: only the file is drift of base.md.
    write(root, "src/a.rs", "a2\n");
    write(
        root,
        &format!("{d}/base.md"),
        &decision("Base, edited", &["file:src/a.rs"]),
    );
    git(root, &["add", "-A"]);
    assert_eq!(drift_findings(root, &["--staged"]), vec![]);
}

/// Whether the stored citations hold the directory `dir` with the tree id
/// `tree` (hex) as git gives it.
fn stores_tree(root: &Path, dir: &str, tree: &str) -> bool {
    let stored = std::fs::read(root.join(".memlint/cites")).expect("stored citations");
    let id: Vec<u8> = (0..tree.len() / 2)
        .map(|i| u8::from_str_radix(&tree[2 * i..2 * i + 2], 16).expect("hex"))
        .collect();
    let mut needle = dir.as_bytes().to_vec();
    needle.push(id.len() as u8);
    needle.extend_from_slice(&id);
    stored.windows(needle.len()).any(|w| w == needle)
}

/// A knowledge record citing `source`.
fn knowledge(title: &str, source: &str) -> String {
    format!(
        "---\ntitle: {title}\ndescription: About {title}\nmodel_invocation: true\n\
         date: 2026-01-02\nsources:\n  - {source}\n---\n\nBody.\n"
    )
}

#[test]
fn directories_the_store_knows_whole_are_not_looked_up_path_by_path() {
    // A full check stores the tree id of each directory whose records it
    // all stored; a change leaving such a directory as it was finds its
    // records by the stored citations alone, and a directory the change
    // touches (a record added, edited, or removed from the index) is
    // looked at path by path: the findings are those of reading every
    // record.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "src/a.rs", &lines("a", 6));
    write(root, "src/b.rs", &lines("b", 6));
    let d = "memory/decisions";
    write(
        root,
        &format!("{d}/whole.md"),
        &decision("Whole", &["file:src/a.rs"]),
    );
    write(
        root,
        &format!("{d}/lines.md"),
        &decision("Lines", &["file:src/a.rs#L2"]),
    );
    write(
        root,
        &format!("{d}/other.md"),
        &decision("Other", &["file:src/b.rs"]),
    );
    write(
        root,
        "knowledge/guide.md",
        &knowledge("Guide", "file:src/a.rs#L5-L6"),
    );
    write(
        root,
        "memory/requests/ask.md",
        "---\ntitle: Ask\nstatus: open\ndate: 2026-01-02\nsources:\n  - file:src/b.rs\n---\n\nBody.\n",
    );
    commit(root, "Records");
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for dir in ["memory/decisions", "knowledge", "memory", "src"] {
        let tree = git(root, &["rev-parse", &format!("HEAD:{dir}")]);
        assert!(stores_tree(root, &format!("{dir}/"), &tree), "{dir}");
    }
    // Only a cited file changes: every record directory is known whole.
    write(
        root,
        "src/a.rs",
        &lines("a", 6)
            .replace("a 2\n", "a two\n")
            .replace("a 5\n", "a five\n"),
    );
    git(root, &["add", "-A"]);
    let expected = vec![
        ("knowledge/guide.md".to_string(), 7),
        (format!("{d}/lines.md"), 6),
        (format!("{d}/whole.md"), 6),
    ];
    same_without_the_store(root, &["--staged"]);
    assert_eq!(drift_findings(root, &["--staged"]), expected);
    // A record committed beside the stored ones after the full check: its
    // directory is read path by path, the others are still known whole.
    let added = format!("{d}/added.md");
    write(root, &added, &decision("Added", &["file:src/a.rs#L2"]));
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "Add a record", "--", &added]);
    let mut with_added = expected.clone();
    with_added.insert(1, (format!("{d}/added.md"), 6));
    same_without_the_store(root, &["--staged"]);
    assert_eq!(drift_findings(root, &["--staged"]), with_added);
    // A stored record edited to cite the file no more, another removed
    // from the index: neither is reported.
    write(
        root,
        &format!("{d}/whole.md"),
        &decision("Whole", &["file:src/b.rs"]),
    );
    git(root, &["add", "-A"]);
    git(root, &["rm", "-q", "--cached", "knowledge/guide.md"]);
    let fewer = vec![(format!("{d}/added.md"), 6), (format!("{d}/lines.md"), 6)];
    same_without_the_store(root, &["--staged"]);
    assert_eq!(drift_findings(root, &["--staged"]), fewer);
    // The same on a pull request: HEAD's trees are compared with the
    // stored ones; a record committed after the full check makes its
    // directory one to look at path by path.
    git(root, &["reset", "-q", "--hard", "HEAD"]);
    write(
        root,
        "knowledge/late.md",
        &knowledge("Late", "file:src/a.rs"),
    );
    commit(root, "A record the store does not know");
    git(root, &["switch", "-q", "-c", "feature"]);
    write(
        root,
        "src/a.rs",
        &lines("a", 6).replace("a 5\n", "a five\n"),
    );
    commit(root, "Change a cited range");
    let base = vec![
        ("knowledge/guide.md".to_string(), 7),
        ("knowledge/late.md".to_string(), 7),
        (format!("{d}/whole.md"), 6),
    ];
    same_without_the_store(root, &["--base", "main"]);
    assert_eq!(drift_findings(root, &["--base", "main"]), base);
}

#[test]
fn a_directory_with_an_edited_record_is_still_known_whole_but_for_it() {
    // A record edited in the work tree since its commit is not stored (its
    // text is not the committed blob); its directory is stored whole all
    // the same, with that record listed to be read from the version: a
    // pull request or a staged change finds what reading every record
    // finds, from the committed text of the edited record.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "src/a.rs", &lines("a", 6));
    let d = "memory/decisions";
    write(
        root,
        &format!("{d}/kept.md"),
        &decision("Kept", &["file:src/a.rs"]),
    );
    write(
        root,
        &format!("{d}/edited.md"),
        &decision("Edited", &["file:src/a.rs#L2"]),
    );
    write(
        root,
        &format!("{d}/other.md"),
        &decision("Other", &["https://example.com/other"]),
    );
    commit(root, "Records");
    git(root, &["switch", "-q", "-c", "feature"]);
    write(root, "src/a.rs", &lines("a", 6).replace("a 2\n", "a two\n"));
    commit(root, "Change a cited line");
    // Edited in the work tree, not committed: it cites the file no more,
    // and the one that did not cite it now does; the committed texts are
    // what a pull request holds.
    write(
        root,
        &format!("{d}/edited.md"),
        &decision("Edited again", &["https://example.com/edited"]),
    );
    write(
        root,
        &format!("{d}/other.md"),
        &decision("Other, edited", &["file:src/a.rs"]),
    );
    let run = memlint(root, &["check", "--format", "json"]);
    assert!(run.code <= 1, "{}", run.stderr);
    let tree = git(root, &["rev-parse", &format!("HEAD:{d}")]);
    assert!(stores_tree(root, &format!("{d}/"), tree.trim()), "{d}");
    let stored = std::fs::read(root.join(".memlint/cites")).expect("stored citations");
    // The two edited records are listed as not stored.
    for name in ["edited.md", "other.md"] {
        let path = format!("{d}/{name}");
        let mut needle = vec![path.len() as u8];
        needle.extend_from_slice(path.as_bytes());
        assert!(stored.windows(needle.len()).any(|w| w == needle), "{name}");
    }
    let expected = vec![(format!("{d}/edited.md"), 6), (format!("{d}/kept.md"), 6)];
    same_without_the_store(root, &["--base", "main"]);
    assert_eq!(drift_findings(root, &["--base", "main"]), expected);
    // Staged: the file's change against HEAD, the edited records as the
    // index holds them (their commit).
    git(root, &["reset", "-q", "--soft", "main"]);
    same_without_the_store(root, &["--staged"]);
    assert_eq!(drift_findings(root, &["--staged"]), expected);
}

#[test]
fn a_work_tree_git_has_not_refreshed_still_fills_the_store() {
    // A work tree copied or restored keeps its files' content but not the
    // stat data the git index recorded (every file's status change time
    // moves), until git refreshes its index. A full check then still
    // stores the committed records (their content is their index entry's
    // blob), so a pull request finds them without reading every record
    // out of git's objects, and reads the records it shows from the work
    // tree. Git's index is left as it was.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "src/a.rs", &lines("a", 6));
    let d = "memory/decisions";
    write(
        root,
        &format!("{d}/cache.md"),
        &decision("Cache", &["file:src/a.rs#L2"]),
    );
    write(
        root,
        &format!("{d}/other.md"),
        &decision("Other", &["https://example.com/other"]),
    );
    commit(root, "Records");
    git(root, &["switch", "-q", "-c", "feature"]);
    write(root, "src/a.rs", &lines("a", 6).replace("a 2\n", "a two\n"));
    commit(root, "Change a cited line");
    // Past the second git recorded the status change times in (it may
    // keep no nanoseconds).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    for rel in [
        "src/a.rs",
        "memory/decisions/cache.md",
        "memory/decisions/other.md",
    ] {
        let path = root.join(rel);
        let perms = std::fs::metadata(&path).expect("stat").permissions();
        std::fs::set_permissions(&path, perms).expect("chmod");
    }
    let index = std::fs::read(root.join(".git/index")).expect("git index");
    let run = memlint(root, &["check", "--format", "json"]);
    assert!(run.code <= 1, "{}", run.stderr);
    assert_eq!(
        std::fs::read(root.join(".git/index")).expect("git index"),
        index
    );
    let stored = std::fs::read(root.join(".memlint/cites")).expect("stored citations");
    // Stored as a citing record: its path, then its blob id (short).
    let path = format!("{d}/cache.md");
    let blob = git(root, &["rev-parse", &format!("HEAD:{path}")]);
    let mut needle = vec![path.len() as u8];
    needle.extend_from_slice(path.as_bytes());
    needle.extend(
        (0..8).map(|i| u8::from_str_radix(&blob.trim()[2 * i..2 * i + 2], 16).expect("hex")),
    );
    assert!(stored.windows(needle.len()).any(|w| w == needle), "{path}");
    let expected = vec![(path.clone(), 6)];
    same_without_the_store(root, &["--base", "main"]);
    assert_eq!(drift_findings(root, &["--base", "main"]), expected);
    if let Some((out, trace)) = common::strace(root, "openat", &["check", "--base", "main"]) {
        assert!(out.contains("a two") || out.contains(&path), "{out}");
        let opened = trace
            .lines()
            .any(|l| l.contains(&path) && !l.contains("ENOENT"));
        assert!(opened, "{path} not read from the work tree:\n{trace}");
    }
    assert_eq!(
        std::fs::read(root.join(".git/index")).expect("git index"),
        index
    );
}
