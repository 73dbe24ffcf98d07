//! `memlint merge-file` (git's merge driver) and `memlint init --merge`,
//! driven by real `git merge`s: blocks and sources added on two branches
//! merge without a conflict, a key changed on both sides conflicts on that
//! key alone, bad input gives a conflict or a clear error and never a lost
//! or truncated `%A`, and random records never lose a line either side
//! added.

use crate::common;

use common::{ok_on_path as ok, run_on_path as run, BIN};
use memlint::engine::merge::{merge, How, Markers, What};
use memlint::model::kind::Kind;
use proptest::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};

const DECISION: &str = "---\ntitle: Use gix for git\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://github.com/GitoxideLabs/gitoxide\n---\n\nWe read git with gix.\n";

/// A repository with a memlint workspace (and the driver when `driver`), a
/// decision and one CONTEXT.md block, committed on `main`.
fn repo(driver: bool) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    ok(&root, "git", &["init", "-q", "-b", "main"]);
    ok(&root, BIN, &["init"]);
    if driver {
        ok(&root, BIN, &["init", "--merge"]);
    }
    fs::write(root.join("memory/decisions/use-gix.md"), DECISION).expect("write");
    let context = fs::read_to_string(root.join("CONTEXT.md")).expect("context");
    fs::write(
        root.join("CONTEXT.md"),
        format!(
            "{}\n\n## 2026-11-01 Start\n\nFirst block.\n",
            context.trim_end()
        ),
    )
    .expect("write");
    ok(&root, "git", &["add", "-A"]);
    ok(&root, "git", &["commit", "-q", "-m", "base"]);
    (tmp, root)
}

fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let path = root.join(rel);
    let text = fs::read_to_string(&path).expect("read");
    assert!(text.contains(from), "{rel} has no {from:?}");
    fs::write(&path, text.replacen(from, to, 1)).expect("write");
}

/// Two branches: each adds a CONTEXT.md block and a source to the decision.
fn diverge(root: &Path) {
    ok(root, "git", &["checkout", "-q", "-b", "other"]);
    edit(
        root,
        "CONTEXT.md",
        "## 2026-11-01 Start",
        "## 2026-11-02 Theirs\n\nTheir block.\n\n## 2026-11-01 Start",
    );
    edit(
        root,
        "memory/decisions/use-gix.md",
        "gitoxide\n",
        "gitoxide\n  - https://docs.rs/gix\n",
    );
    ok(root, "git", &["commit", "-q", "-am", "theirs"]);
    ok(root, "git", &["checkout", "-q", "main"]);
    edit(
        root,
        "CONTEXT.md",
        "## 2026-11-01 Start",
        "## 2026-11-03 Ours\n\nOur block.\n\n## 2026-11-01 Start",
    );
    edit(
        root,
        "memory/decisions/use-gix.md",
        "gitoxide\n",
        "gitoxide\n  - https://git-scm.com/docs/gitattributes\n",
    );
    ok(root, "git", &["commit", "-q", "-am", "ours"]);
}

#[test]
fn init_merge_registers_the_driver_and_keeps_existing_attributes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    ok(&root, "git", &["init", "-q", "-b", "main"]);
    fs::write(root.join(".gitattributes"), "*.png binary").expect("write");
    let said = ok(&root, BIN, &["init", "--merge"]);
    assert!(
        said.contains("wrote memlint's merge lines to .gitattributes"),
        "{said}"
    );
    assert!(said.contains("forges"), "{said}");
    assert_eq!(
        fs::read_to_string(root.join(".gitattributes")).expect("read"),
        "*.png binary\n\n# memlint's merge driver (memlint init --merge): CONTEXT.md by block, records by key.\n/CONTEXT.md merge=memlint\n/memory/**/*.md merge=memlint\n/knowledge/**/*.md merge=memlint\n"
    );
    assert_eq!(
        ok(&root, "git", &["config", "merge.memlint.driver"]).trim(),
        "memlint merge-file %O %A %B %P -L %L --base-label %S --ours-label %X --theirs-label %Y"
    );
    assert_eq!(
        ok(
            &root,
            "git",
            &["check-attr", "merge", "memory/decisions/a.md", "notes/a.md"]
        ),
        "memory/decisions/a.md: merge: memlint\nnotes/a.md: merge: unspecified\n"
    );
    let again = ok(&root, BIN, &["init", "--merge"]);
    assert!(
        again.contains(".gitattributes already sends memory files"),
        "{again}"
    );
    assert!(
        again.contains("merge.memlint.driver is already set"),
        "{again}"
    );
}

#[test]
fn blocks_and_sources_added_on_two_branches_merge_without_a_conflict() {
    let (_tmp, root) = repo(true);
    diverge(&root);
    let out = run(&root, "git", &["merge", "-q", "other", "-m", "merge"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let context = fs::read_to_string(root.join("CONTEXT.md")).expect("read");
    assert!(
        context.ends_with("\n\n## 2026-11-03 Ours\n\nOur block.\n\n## 2026-11-02 Theirs\n\nTheir block.\n\n## 2026-11-01 Start\n\nFirst block.\n"),
        "{context}"
    );
    assert_eq!(
        fs::read_to_string(root.join("memory/decisions/use-gix.md")).expect("read"),
        DECISION.replace(
            "gitoxide\n",
            "gitoxide\n  - https://git-scm.com/docs/gitattributes\n  - https://docs.rs/gix\n"
        )
    );
    let check = run(&root, BIN, &["check"]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn without_the_driver_the_same_branches_conflict() {
    let (_tmp, root) = repo(false);
    diverge(&root);
    let out = run(&root, "git", &["merge", "-q", "other", "-m", "merge"]);
    assert!(!out.status.success());
    let context = fs::read_to_string(root.join("CONTEXT.md")).expect("read");
    assert!(context.contains("<<<<<<< HEAD"), "{context}");
    let check = run(&root, BIN, &["check", "--format", "json"]);
    assert!(String::from_utf8_lossy(&check.stdout).contains("format/conflict-markers"));
}

#[test]
fn a_key_changed_on_both_branches_conflicts_on_that_key_alone() {
    let (_tmp, root) = repo(true);
    ok(&root, "git", &["checkout", "-q", "-b", "other"]);
    edit(
        &root,
        "memory/decisions/use-gix.md",
        "title: Use gix for git",
        "title: Use gix for every git read",
    );
    edit(
        &root,
        "memory/decisions/use-gix.md",
        "gitoxide\n",
        "gitoxide\n  - https://docs.rs/gix\n",
    );
    ok(&root, "git", &["commit", "-q", "-am", "theirs"]);
    ok(&root, "git", &["checkout", "-q", "main"]);
    edit(
        &root,
        "memory/decisions/use-gix.md",
        "title: Use gix for git",
        "title: Use gix, not libgit2",
    );
    ok(&root, "git", &["commit", "-q", "-am", "ours"]);
    let out = run(&root, "git", &["merge", "other", "-m", "merge"]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(
            "CONFLICT (memlint, merged by key): memory/decisions/use-gix.md: the key `title`"
        ),
        "{said}"
    );
    assert_eq!(
        fs::read_to_string(root.join("memory/decisions/use-gix.md")).expect("read"),
        "---\n<<<<<<< HEAD\ntitle: Use gix, not libgit2\n=======\ntitle: Use gix for every git read\n>>>>>>> other\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://github.com/GitoxideLabs/gitoxide\n  - https://docs.rs/gix\n---\n\nWe read git with gix.\n"
    );
}

/// `memlint merge-file` on three files written in a temporary directory.
fn driver(base: &[u8], ours: &[u8], theirs: &[u8], path: &str) -> (i32, Vec<u8>, String) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    fs::write(dir.join("O"), base).expect("write");
    fs::write(dir.join("A"), ours).expect("write");
    fs::write(dir.join("B"), theirs).expect("write");
    let out = run(dir, BIN, &["merge-file", "O", "A", "B", path]);
    let result = fs::read(dir.join("A")).expect("read %A");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !stderr.contains("panicked") && !stderr.contains("internal error"),
        "{stderr}"
    );
    (out.status.code().unwrap_or(-1), result, stderr)
}

#[test]
fn a_missing_side_is_an_error_that_leaves_ours_alone() {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join("A"), DECISION).expect("write");
    let out = run(
        tmp.path(),
        BIN,
        &["merge-file", "O", "A", "B", "memory/decisions/use-gix.md"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read O"));
    assert_eq!(
        fs::read_to_string(tmp.path().join("A")).expect("read"),
        DECISION
    );
}

#[test]
fn binary_content_keeps_ours_as_a_conflict() {
    let ours = b"---\ntitle: x\n---\n\0\x01binary";
    let (code, result, said) = driver(
        DECISION.as_bytes(),
        ours,
        DECISION.as_bytes(),
        "memory/decisions/use-gix.md",
    );
    assert_eq!(code, 1);
    assert_eq!(result, ours);
    assert!(said.contains("binary content"), "{said}");
}

#[test]
fn a_side_whose_front_matter_does_not_parse_is_merged_line_by_line() {
    let theirs = DECISION.replace("title: Use gix for git", "title: [unclosed");
    let ours = DECISION.replace(
        "We read git with gix.",
        "We read git with gix, and write with git.",
    );
    let (code, result, said) = driver(
        DECISION.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        "memory/decisions/use-gix.md",
    );
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("merged line by line: a side's front matter cannot be read"),
        "{said}"
    );
    assert_eq!(
        String::from_utf8(result).expect("utf-8"),
        DECISION
            .replace("title: Use gix for git", "title: [unclosed")
            .replace(
                "We read git with gix.",
                "We read git with gix, and write with git."
            )
    );
}

#[test]
fn a_crlf_side_and_an_lf_side_merge_into_canonical_lf() {
    let ours = DECISION
        .replace("title: Use gix for git", "title: Use gix for reads")
        .replace('\n', "\r\n");
    let theirs = DECISION.replace("gitoxide\n", "gitoxide\n  - https://docs.rs/gix\n");
    let (code, result, said) = driver(
        DECISION.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        "memory/decisions/use-gix.md",
    );
    assert_eq!(code, 0, "{said}");
    assert_eq!(
        String::from_utf8(result).expect("utf-8"),
        theirs.replace("title: Use gix for git", "title: Use gix for reads")
    );
}

#[test]
fn huge_sides_are_merged_line_by_line_and_never_truncated() {
    let body: String = (0..200_000).map(|i| format!("line {i}\n")).collect();
    let base = format!("{DECISION}{body}");
    let ours = base.replacen("line 10\n", "line 10 (ours)\n", 1);
    let theirs = base.replacen("line 199990\n", "line 199990 (theirs)\n", 1);
    assert!(base.len() > 1 << 20);
    let (code, result, said) = driver(
        base.as_bytes(),
        ours.as_bytes(),
        theirs.as_bytes(),
        "memory/decisions/use-gix.md",
    );
    assert_eq!(code, 0, "{said}");
    assert!(
        said.contains("merged line by line: a side has more than"),
        "{said}"
    );
    assert_eq!(
        String::from_utf8(result).expect("utf-8"),
        ours.replacen("line 199990\n", "line 199990 (theirs)\n", 1)
    );
}

#[test]
fn a_file_that_is_not_memory_is_merged_as_git_would() {
    let (code, result, _) = driver(b"a\nb\nc\n", b"A\nb\nc\n", b"a\nb\nC\n", "docs/notes.md");
    assert_eq!((code, result.as_slice()), (0, b"A\nb\nC\n".as_slice()));
    let (code, result, said) = driver(b"a\n", b"b\n", b"c\n", "docs/notes.md");
    assert_eq!(code, 1);
    assert_eq!(result, b"<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n");
    assert!(
        said.contains("CONFLICT (memlint, merged by line): docs/notes.md"),
        "{said}"
    );
}

/// A decision in canonical form with these sources, tags and body lines.
fn record(sources: &[String], tags: &[String], body: &[String]) -> String {
    let mut out = String::from("---\ntitle: A decision\nstatus: active\ndate: 2026-11-01\n");
    out.push_str("sources:\n");
    for s in sources {
        out.push_str(&format!("  - {s}\n"));
    }
    if !tags.is_empty() {
        out.push_str(&format!("tags: [{}]\n", tags.join(", ")));
    }
    out.push_str("---\n\n");
    for l in body {
        out.push_str(l);
        out.push('\n');
    }
    out
}

fn side() -> impl Strategy<Value = (Vec<String>, Vec<String>, Vec<String>)> {
    (
        prop::collection::btree_set(0u8..12, 1..6),
        prop::collection::btree_set(0u8..6, 0..4),
        prop::collection::vec(0u8..20, 0..8),
    )
        .prop_map(|(s, t, b)| {
            (
                s.iter().map(|i| format!("decision:d{i}")).collect(),
                t.iter().map(|i| format!("t{i}")).collect(),
                b.iter().map(|i| format!("Line {i}.")).collect(),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every line either side added is in the result: merged in, or kept
    /// between conflict markers.
    #[test]
    fn the_driver_never_loses_a_line_either_side_added(b in side(), o in side(), t in side()) {
        let (base, ours, theirs) = (record(&b.0, &b.1, &b.2), record(&o.0, &o.1, &o.2), record(&t.0, &t.1, &t.2));
        let out = merge(What::Record(Kind::Decision), base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), &Markers::default(), 1 << 20);
        let text = String::from_utf8(out.merge.bytes).expect("utf-8");
        let norm = |l: &str| l.trim().trim_start_matches("- ").to_string();
        let have: std::collections::HashSet<String> = text.lines().map(norm).collect();
        let lines_of = |s: &str| -> Vec<String> {
            // Flow-list tags are compared item by item.
            s.lines().flat_map(|l| match l.strip_prefix("tags: [") {
                Some(rest) => rest.trim_end_matches(']').split(", ").map(str::to_string).collect(),
                None => vec![norm(l)],
            }).collect()
        };
        let in_base: std::collections::HashSet<String> = lines_of(&base).into_iter().collect();
        let result: std::collections::HashSet<String> = lines_of(&text).into_iter().chain(have).collect();
        for line in lines_of(&ours).into_iter().chain(lines_of(&theirs)) {
            prop_assert!(
                line.is_empty() || in_base.contains(&line) || result.contains(&line),
                "{line:?} lost:\nbase\n{base}\nours\n{ours}\ntheirs\n{theirs}\nresult ({:?})\n{text}", out.how
            );
        }
        if out.merge.conflicts.is_empty() {
            prop_assert!(out.how == How::Keys || out.how == How::Lines);
            prop_assert!(!text.contains("<<<<<<<"));
        }
    }
}

#[test]
fn init_merge_never_writes_through_a_link_out_of_the_root() {
    let outside = tempfile::tempdir().expect("tempdir");
    let target = outside.path().join("attributes");
    fs::write(&target, "kept\n").expect("write");
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    ok(&root, "git", &["init", "-q", "-b", "main"]);
    std::os::unix::fs::symlink(&target, root.join(".gitattributes")).expect("symlink");
    let out = run(&root, BIN, &["init", "--merge"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("leads out of"));
    assert_eq!(fs::read_to_string(&target).expect("read"), "kept\n");
}
