//! The commit a source tree was checked out at, read from its `.git` files
//! without running git: `build.rs` puts it into `memlint --version`, and
//! `tests/version.rs` tests it on real repositories. Shared by `#[path]`,
//! so it uses std only.

use std::fs;
use std::path::{Path, PathBuf};

/// What the build read: the commit, if any, and the files whose change
/// means the commit may have changed (for `cargo:rerun-if-changed`).
#[derive(Debug, Default)]
pub struct GitHead {
    /// The full hexadecimal object name HEAD points at.
    pub commit: Option<String>,
    /// Existing files to watch: a missing one would make cargo rerun the
    /// build script on every build.
    pub watch: Vec<PathBuf>,
}

/// Reads HEAD of the repository whose work tree is `dir` (its `.git` a
/// directory, or a file `gitdir: …` as in a linked worktree or submodule).
/// A tree without `.git` (a source tarball, an sdist) gives no commit.
pub fn read(dir: &Path) -> GitHead {
    let mut head = GitHead::default();
    let Some(git_dir) = git_dir(dir) else {
        return head;
    };
    // A linked worktree keeps HEAD and its reflog in its own directory,
    // the branches in the common one.
    let common = fs::read_to_string(git_dir.join("commondir"))
        .map(|c| git_dir.join(c.trim()))
        .unwrap_or_else(|_| git_dir.clone());
    let head_file = git_dir.join("HEAD");
    let Ok(text) = fs::read_to_string(&head_file) else {
        return head;
    };
    head.watch.push(head_file);
    // Appended to on every commit, checkout and reset of this work tree,
    // also when the branch's ref is packed and a commit writes it loose.
    push_existing(&mut head.watch, git_dir.join("logs").join("HEAD"));
    let text = text.trim();
    let Some(name) = text.strip_prefix("ref:").map(str::trim) else {
        head.commit = is_object_name(text).then(|| text.to_string());
        return head;
    };
    if name.split('/').any(|part| part.is_empty() || part == "..") {
        return head; // not a ref name: never read outside the repository
    }
    for base in [&git_dir, &common] {
        let loose = base.join(name);
        if let Ok(id) = fs::read_to_string(&loose) {
            head.watch.push(loose);
            let id = id.trim();
            head.commit = is_object_name(id).then(|| id.to_string());
            return head;
        }
    }
    let packed = common.join("packed-refs");
    if let Ok(list) = fs::read_to_string(&packed) {
        head.watch.push(packed);
        head.commit = list
            .lines()
            .filter_map(|line| line.split_once(' '))
            .find(|(_, refname)| refname.trim() == name)
            .map(|(id, _)| id.to_string())
            .filter(|id| is_object_name(id));
    }
    head
}

/// `dir/.git` when it is a directory, else where the `gitdir:` line of a
/// `.git` file points (relative to `dir` when not absolute).
fn git_dir(dir: &Path) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    if dot_git.is_dir() {
        return Some(dot_git);
    }
    let text = fs::read_to_string(&dot_git).ok()?;
    let target = text.trim().strip_prefix("gitdir:")?.trim();
    Some(dir.join(target)).filter(|d| d.is_dir())
}

fn push_existing(watch: &mut Vec<PathBuf>, path: PathBuf) {
    if path.is_file() {
        watch.push(path);
    }
}

/// SHA-1 (40) or SHA-256 (64) hexadecimal digits.
fn is_object_name(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The version `memlint --version` prints: the crate's, followed by the
/// first 12 digits of the commit when the build had one.
pub fn version_line(pkg_version: &str, head: &GitHead) -> String {
    match &head.commit {
        Some(id) => format!("{pkg_version} ({})", &id[..12]),
        None => pkg_version.to_string(),
    }
}
