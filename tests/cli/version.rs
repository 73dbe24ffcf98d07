//! `memlint --version` names the commit it was built from: the reader
//! `build.rs` uses (build/git_head.rs) on real repositories made by git
//! (a branch, a linked worktree, packed refs, a detached HEAD, no `.git`),
//! and the binary under test against `git rev-parse HEAD` of this tree.

use crate::common;

#[path = "../../build/git_head.rs"]
mod git_head;

use std::path::Path;

fn rev_parse(dir: &Path) -> String {
    common::git(dir, &["rev-parse", "HEAD"]).trim().to_string()
}

fn repo_with_commit(dir: &Path) -> String {
    std::fs::create_dir_all(dir).expect("mkdir");
    common::git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("a.txt"), "a\n").expect("write");
    common::git(dir, &["add", "-A"]);
    common::git(dir, &["commit", "-q", "-m", "one"]);
    rev_parse(dir)
}

#[test]
fn reads_head_of_a_branch_a_worktree_packed_refs_and_a_detached_head() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let main = tmp.path().join("main");
    let first = repo_with_commit(&main);
    let head = git_head::read(&main);
    assert_eq!(head.commit.as_deref(), Some(first.as_str()));
    assert!(head.watch.contains(&main.join(".git/HEAD")), "{head:?}");
    assert!(
        head.watch.contains(&main.join(".git/refs/heads/main")),
        "{head:?}"
    );
    assert_eq!(
        git_head::version_line("0.1.0", &head),
        format!("0.1.0 ({})", &first[..12])
    );

    // A linked worktree on a branch of its own, one commit ahead.
    let wt = tmp.path().join("wt");
    common::git(
        &main,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            &wt.display().to_string(),
        ],
    );
    std::fs::write(wt.join("b.txt"), "b\n").expect("write");
    common::git(&wt, &["add", "-A"]);
    common::git(&wt, &["commit", "-q", "-m", "two"]);
    let second = rev_parse(&wt);
    assert_ne!(first, second);
    let head = git_head::read(&wt);
    assert_eq!(head.commit.as_deref(), Some(second.as_str()), "{head:?}");
    // The main tree still reads its own branch.
    assert_eq!(
        git_head::read(&main).commit.as_deref(),
        Some(first.as_str())
    );

    // Packed refs: no loose file left for the branch.
    common::git(&main, &["pack-refs", "--all"]);
    assert!(!main.join(".git/refs/heads/main").exists());
    let head = git_head::read(&main);
    assert_eq!(head.commit.as_deref(), Some(first.as_str()), "{head:?}");
    assert!(
        head.watch.contains(&main.join(".git/packed-refs")),
        "{head:?}"
    );
    assert_eq!(git_head::read(&wt).commit.as_deref(), Some(second.as_str()));
    // Every file to watch exists: cargo would rerun on a missing one.
    assert!(head.watch.iter().all(|p| p.is_file()), "{head:?}");

    // A detached HEAD holds the object name itself.
    common::git(&main, &["checkout", "-q", "--detach", &second]);
    assert_eq!(
        git_head::read(&main).commit.as_deref(),
        Some(second.as_str())
    );
}

#[test]
fn a_tree_without_git_gives_the_plain_version() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let head = git_head::read(tmp.path());
    assert_eq!(head.commit, None);
    assert!(head.watch.is_empty());
    assert_eq!(git_head::version_line("0.1.0", &head), "0.1.0");

    // A repository without a commit yet, and a `.git` file pointing nowhere.
    common::git(tmp.path(), &["init", "-q"]);
    assert_eq!(git_head::read(tmp.path()).commit, None);
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).expect("mkdir");
    std::fs::write(other.join(".git"), "gitdir: /nonexistent/x\n").expect("write");
    assert_eq!(git_head::read(&other).commit, None);
}

#[test]
fn version_names_the_commit_this_binary_was_built_from() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = common::memlint(here, &["--version"]);
    assert_eq!(run.code, 0, "{run:?}");
    let version = env!("CARGO_PKG_VERSION");
    if !here.join(".git").exists() {
        assert_eq!(run.stdout, format!("memlint {version}\n"));
        return;
    }
    let commit = rev_parse(here);
    assert_eq!(
        run.stdout,
        format!("memlint {version} ({})\n", &commit[..12])
    );
}
