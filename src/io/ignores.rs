//! The ignore rules the walk honours: `.gitignore`, `.ignore` and
//! `.memlintignore` in the root and every directory below it, and the git
//! directory's `info/exclude`. memlint reads these files itself instead of
//! letting the `ignore` crate open them, so that only regular files are
//! read (a FIFO would hold every command up, waiting for a writer) and a
//! link out of the root is never followed. An ignore file that cannot be
//! read is left out with a warning, as git does; the precedence is the
//! `ignore` crate's: `.memlintignore` over `.ignore` over `.gitignore` over
//! `info/exclude`, and within each, the deepest file with a match decides.

use crate::io::fs::{resolve_inside, Resolved};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The ignore files read in every directory, lowest precedence first.
pub(crate) const NAMES: [&str; 3] = [".gitignore", ".ignore", ".memlintignore"];

use crate::model::workspace::Problem;

/// One directory's ignore rules, linked to its parent's.
#[derive(Debug)]
pub(crate) struct Rules {
    parent: Option<Arc<Rules>>,
    /// `.gitignore`, `.ignore`, `.memlintignore`, `info/exclude`: each
    /// empty when the file is absent.
    files: [Gitignore; 4],
    /// Whether this directory or one above it has any rule.
    any: bool,
}

/// Index of `info/exclude` in [`Rules::files`].
const EXCLUDE: usize = 3;

impl Rules {
    /// The rules of `dir` (the root, or a directory below it that the walk
    /// enters), under `parent`'s. `root` is the workspace root: ignore
    /// files are read only inside it (the git directory's `info/exclude`
    /// excepted: git keeps it there). Files left out are added to
    /// `problems`.
    pub(crate) fn of_dir(
        root: &Path,
        dir: &Path,
        parent: Option<Arc<Rules>>,
        problems: &mut Vec<Problem>,
    ) -> Arc<Rules> {
        let mut files: [Gitignore; 4] = std::array::from_fn(|_| Gitignore::empty());
        for (slot, name) in files.iter_mut().zip(NAMES) {
            let path = dir.join(name);
            if let Some(bytes) = read_inside(root, &path, problems) {
                *slot = build(dir, &path, &bytes);
            }
        }
        // `.git` as git finds it: a directory, a link to one, or a file
        // naming one (a linked worktree).
        if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            let path = git_common_dir(dir).join("info/exclude");
            if let Some(bytes) = read_git_file(root, &path, problems) {
                files[EXCLUDE] = build(dir, &path, &bytes);
            }
        }
        let any = parent.as_ref().is_some_and(|p| p.any) || files.iter().any(|g| !g.is_empty());
        Arc::new(Rules { parent, files, any })
    }

    /// Whether `path` (inside the directory these rules belong to) is
    /// ignored.
    pub(crate) fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        if !self.any {
            return false;
        }
        // The deepest match of each kind of file, then the kinds in order
        // of precedence.
        let mut found: [Option<bool>; 4] = [None; 4];
        let mut at = Some(self);
        while let Some(rules) = at {
            for (i, gi) in rules.files.iter().enumerate() {
                if found[i].is_none() {
                    found[i] = match gi.matched(path, is_dir) {
                        Match::None => None,
                        Match::Ignore(_) => Some(true),
                        Match::Whitelist(_) => Some(false),
                    };
                }
            }
            at = rules.parent.as_deref();
        }
        [2, 1, 0, EXCLUDE]
            .iter()
            .find_map(|&i| found[i])
            .unwrap_or(false)
    }
}

/// Builds a matcher for the lines of one ignore file, read as git reads
/// it (a BOM before the first line is skipped; a line that is no valid
/// pattern is skipped, as the `ignore` crate does).
fn build(dir: &Path, path: &Path, bytes: &[u8]) -> Gitignore {
    let mut builder = GitignoreBuilder::new(dir);
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Ok(line) = std::str::from_utf8(line) {
            let _ = builder.add_line(Some(path.to_path_buf()), line);
        }
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The bytes of the ignore file at `path` (below `root`), when it is a
/// regular file inside the root, or a link to one; `None` when it is
/// absent. Anything else is left out with a problem naming it.
fn read_inside(root: &Path, path: &Path, problems: &mut Vec<Problem>) -> Option<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    let rel = path.strip_prefix(root).unwrap_or(path);
    let shown = || shown(root, path);
    if meta.file_type().is_symlink() {
        match resolve_inside(root, rel) {
            Resolved::Inside(_) => {}
            // A dangling link is an absent file.
            Resolved::Missing => return None,
            Resolved::Escapes(_) => {
                problems.push(Problem::IgnoreFile {
                    path: shown(),
                    reason: "is a symbolic link leading out of the workspace root, which memlint never follows".into(),
                });
                return None;
            }
            Resolved::Unreadable(e) => {
                problems.push(Problem::IgnoreFile {
                    path: shown(),
                    reason: format!("cannot be read ({e})"),
                });
                return None;
            }
        }
    }
    read_regular_or_say(path, shown, problems)
}

/// The bytes of `info/exclude` in the git directory (which a linked
/// worktree keeps outside the root), when it is a regular file.
fn read_git_file(root: &Path, path: &Path, problems: &mut Vec<Problem>) -> Option<Vec<u8>> {
    std::fs::metadata(path).ok()?;
    read_regular_or_say(path, || shown(root, path), problems)
}

/// Reads a regular file; anything else, or a failed read, is a problem
/// naming it (`None` when it vanished meanwhile).
fn read_regular_or_say(
    path: &Path,
    shown: impl Fn() -> String,
    problems: &mut Vec<Problem>,
) -> Option<Vec<u8>> {
    match crate::io::fs::read_regular(path, crate::io::fs::SMALL_FILE_MAX) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            let reason = match std::fs::metadata(path) {
                Ok(m) if !m.is_file() => {
                    format!(
                        "is not a regular file ({})",
                        crate::io::regular::kind_of(&m)
                    )
                }
                _ => format!("cannot be read ({e})"),
            };
            problems.push(Problem::IgnoreFile {
                path: shown(),
                reason,
            });
            None
        }
    }
}

/// `path` relative to `root` with `/` separators, or whole when it lies
/// outside (a worktree's git directory).
fn shown(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.display().to_string(),
    }
}

/// Whether the ignore files from the root down to `rel`'s directory
/// exclude root-relative `rel` or a directory on the way to it, as the walk
/// would decide. Problems with the ignore files are not reported here (the
/// walk reports them).
pub(crate) fn excludes(root: &Path, rel: &str) -> bool {
    let mut problems = Vec::new();
    let mut rules = Rules::of_dir(root, root, None, &mut problems);
    let parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
    let mut at = root.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let is_dir = i + 1 < parts.len();
        if rules.ignored(&at, is_dir) {
            return true;
        }
        if is_dir {
            // Never through a link: the walk does not enter one.
            if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
                return true;
            }
            rules = Rules::of_dir(root, &at, Some(rules), &mut problems);
        }
    }
    false
}

/// The git directory whose `info/exclude` the walk applies below `dir`, as
/// the `ignore` crate finds it: `dir/.git`, or, when `.git` is a file (a
/// linked worktree), the common directory of the repository it names.
pub(crate) fn git_common_dir(dir: &Path) -> PathBuf {
    let dot_git = dir.join(".git");
    // These files hold one short line; a larger one is not git's.
    let first_line = |path: &Path| -> Option<String> {
        use std::io::Read;
        let mut head = Vec::new();
        crate::io::fs::open_regular(path)
            .ok()?
            .take(4096)
            .read_to_end(&mut head)
            .ok()?;
        let text = std::str::from_utf8(&head).ok()?;
        Some(text.lines().next()?.to_string())
    };
    if !std::fs::metadata(&dot_git).is_ok_and(|m| m.is_file()) {
        return dot_git;
    }
    let Some(real) =
        first_line(&dot_git).and_then(|l| l.strip_prefix("gitdir: ").map(PathBuf::from))
    else {
        return dot_git;
    };
    match first_line(&real.join("commondir")) {
        Some(common) if common.starts_with('.') => real.join(common),
        Some(common) => PathBuf::from(common),
        None => dot_git,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules_for(root: &Path, dirs: &[&str]) -> Arc<Rules> {
        let mut problems = Vec::new();
        let mut rules = Rules::of_dir(root, root, None, &mut problems);
        let mut at = root.to_path_buf();
        for d in dirs {
            at.push(d);
            rules = Rules::of_dir(root, &at, Some(rules), &mut problems);
        }
        assert!(problems.is_empty(), "{problems:?}");
        rules
    }

    #[test]
    fn deeper_files_and_stronger_kinds_decide() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("memory/decisions")).expect("mkdir");
        std::fs::write(root.join(".gitignore"), "*.md\n").expect("write");
        std::fs::write(root.join("memory/.gitignore"), "!keep.md\n").expect("write");
        std::fs::write(root.join(".memlintignore"), "drop.md\n").expect("write");
        let rules = rules_for(&root, &["memory", "decisions"]);
        let at = |name: &str| root.join("memory/decisions").join(name);
        assert!(rules.ignored(&at("other.md"), false));
        assert!(!rules.ignored(&at("keep.md"), false));
        assert!(!rules.ignored(&at("notes.txt"), false));
        // `.memlintignore` outranks the deeper `.gitignore`.
        std::fs::write(root.join("memory/.gitignore"), "!drop.md\n").expect("write");
        let rules = rules_for(&root, &["memory", "decisions"]);
        assert!(rules.ignored(&at("drop.md"), false));
        assert!(excludes(&root, "memory/decisions/drop.md"));
        assert!(!excludes(&root, "memory/decisions/notes.txt"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_link_out_of_the_root_is_left_out_and_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("memory")).expect("mkdir");
        let root = root.canonicalize().expect("canonical");
        std::fs::write(dir.path().join("outside"), "*\n").expect("write");
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join(".gitignore"))
            .expect("symlink");
        let fifo = std::ffi::CString::new(root.join("memory/.ignore").to_str().expect("utf-8"))
            .expect("c string");
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let mut problems = Vec::new();
        let top = Rules::of_dir(&root, &root, None, &mut problems);
        let memory = Rules::of_dir(&root, &root.join("memory"), Some(top), &mut problems);
        assert!(!memory.ignored(&root.join("memory/a.md"), false));
        assert_eq!(
            problems,
            [
                Problem::IgnoreFile {
                    path: ".gitignore".into(),
                    reason: "is a symbolic link leading out of the workspace root, which memlint never follows".into()
                },
                Problem::IgnoreFile {
                    path: "memory/.ignore".into(),
                    reason: "is not a regular file (a FIFO)".into()
                }
            ]
        );
    }
}
