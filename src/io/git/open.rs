//! Opening the repository whose work tree holds the workspace, and the
//! files of it that are never read (they could hold the reader up).

use std::path::Path;

/// The repository whose work tree holds `root`, if any (and none when one
/// of its files would hold the reader up; see [`special_file`]).
pub(crate) fn open(root: &Path) -> Option<gix::Repository> {
    if special_file(root).is_some() {
        return None;
    }
    let repo = gix::discover(root).ok()?;
    repo.workdir()?;
    Some(repo)
}

/// The first file of the repository holding `root` that gix would open and
/// that is not a regular file (a FIFO would hold gix's blocking open up
/// for ever), as the path to show and what it is. The files looked at are
/// those every read opens: `.git` itself when it is a file, and in the git
/// directory and the common directory `HEAD`, the branch it names,
/// `config`, `config.worktree`, `index`, `packed-refs`, `shallow`,
/// `commondir` and `objects/info/alternates`. Loose objects and packs are
/// not looked at: git writes them, people do not.
pub(crate) fn special_file(root: &Path) -> Option<(String, String)> {
    let top = root
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())?;
    let shown = |p: &Path| match p.strip_prefix(root) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => p.display().to_string(),
    };
    // Absent, a directory (gix then fails) or a regular file: fine.
    let odd = |p: &Path| -> Option<(String, String)> {
        let m = std::fs::metadata(p).ok()?;
        (!m.is_file() && !m.is_dir()).then(|| {
            (
                shown(p),
                format!(
                    "is not a regular file ({})",
                    crate::io::regular::kind_of(&m)
                ),
            )
        })
    };
    let first_line = |p: &Path| -> Option<String> {
        use std::io::Read;
        let mut head = Vec::new();
        crate::io::fs::open_regular(p)
            .ok()?
            .take(4096)
            .read_to_end(&mut head)
            .ok()?;
        Some(
            String::from_utf8_lossy(&head)
                .lines()
                .next()?
                .trim()
                .to_string(),
        )
    };
    let dot_git = top.join(".git");
    if let Some(found) = odd(&dot_git) {
        return Some(found);
    }
    let git_dir = match first_line(&dot_git)
        .and_then(|l| l.strip_prefix("gitdir:").map(|d| top.join(d.trim())))
    {
        Some(dir) => dir,
        None => dot_git,
    };
    let names = [
        "HEAD",
        "config",
        "config.worktree",
        "index",
        "packed-refs",
        "shallow",
        "commondir",
        "objects/info/alternates",
    ];
    if let Some(found) = names.iter().find_map(|n| odd(&git_dir.join(n))) {
        return Some(found);
    }
    let common = first_line(&git_dir.join("commondir")).map(|c| git_dir.join(c));
    if let Some(found) = common
        .iter()
        .flat_map(|c| names.iter().map(move |n| c.join(n)))
        .find_map(|p| odd(&p))
    {
        return Some(found);
    }
    // The branch HEAD names, a loose ref in either directory.
    let branch = first_line(&git_dir.join("HEAD"))
        .and_then(|l| l.strip_prefix("ref:").map(|r| r.trim().to_string()))
        .filter(|r| r.starts_with("refs/") && !r.split('/').any(|c| c == ".." || c.is_empty()))?;
    std::iter::once(&git_dir)
        .chain(common.iter())
        .find_map(|d| odd(&d.join(&branch)))
}

/// Whether `hex` (7–40 hex digits) names an object in `repo` (an ambiguous
/// prefix counts as present).
pub(crate) fn object_exists(repo: &gix::Repository, hex: &str) -> bool {
    if hex.len() == 40 {
        return gix::ObjectId::from_hex(hex.as_bytes()).is_ok_and(|id| repo.has_object(id));
    }
    let Ok(prefix) = gix::hash::Prefix::from_hex(hex) else {
        return false;
    };
    matches!(repo.objects.lookup_prefix(prefix, None), Ok(Some(_)))
}
