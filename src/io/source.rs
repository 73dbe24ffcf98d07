//! Reading the files `file:` sources cite: inside the root only (links are
//! followed while they stay inside), regular files only, and never more
//! than [`MAX_SOURCE_BYTES`], so a cited file cannot hold a run up.

use std::io::Read;
use std::path::Path;

/// The largest cited file read whole; a larger one is not judged (its
/// line ranges and drift are left alone rather than guessed).
pub(crate) const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// The bytes of the file at root-relative, normalised `rel`, when it is a
/// regular file inside `root` of at most [`MAX_SOURCE_BYTES`] bytes.
pub(crate) fn read_source(root: &Path, rel: &str) -> Option<Vec<u8>> {
    let crate::io::fs::Resolved::Inside(path) = crate::io::fs::resolve_below(root, Path::new(rel))
    else {
        return None;
    };
    let file = crate::io::fs::open_regular(&path).ok()?;
    let size = file
        .metadata()
        .map_or(0, |m| m.len())
        .min(MAX_SOURCE_BYTES + 1);
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0) + 1);
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= MAX_SOURCE_BYTES).then_some(bytes)
}

/// How many lines `bytes` hold: a last line without a newline counts.
pub(crate) fn count_lines(bytes: &[u8]) -> usize {
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    newlines + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// What the work tree holds at a cited path ([`found`]).
#[derive(Clone)]
pub(crate) struct Found {
    /// The file a symbolic link on the way leads to, root-relative.
    pub(crate) target: Option<String>,
    pub(crate) directory: bool,
    pub(crate) size: u64,
}

/// The workspace root with every symbolic link on its way resolved.
pub(crate) fn real_root(root: &Path) -> Option<std::path::PathBuf> {
    std::fs::canonicalize(root).ok()
}

/// What the work tree holds at root-relative `rel` (`real_root` is
/// [`real_root`]): the file a symbolic link on its way leads to, whether it
/// is a directory, its size. `None` when a link leads out of the workspace;
/// a path that is gone holds an empty file. Most paths hold no link: one
/// lstat of the file and of each of its directories, as canonicalising
/// takes, and one stat.
pub(crate) fn found(root: &Path, real_root: &Path, rel: &str) -> Option<Found> {
    let Ok(real) = std::fs::canonicalize(root.join(rel)) else {
        return Some(Found {
            target: None,
            directory: false,
            size: 0,
        });
    };
    let target = match real == real_root.join(rel) {
        true => None,
        false => {
            let parts: Option<Vec<&str>> = real
                .strip_prefix(real_root)
                .ok()?
                .components()
                .map(|c| c.as_os_str().to_str())
                .collect();
            Some(parts?.join("/"))
        }
    };
    let meta = std::fs::metadata(&real).ok();
    Some(Found {
        target,
        directory: meta.as_ref().is_some_and(|m| m.is_dir()),
        size: meta.map_or(0, |m| m.len()),
    })
}

/// Whether root-relative `rel` is a directory in the work tree.
pub(crate) fn is_directory(root: &Path, rel: &str) -> bool {
    root.join(rel).is_dir()
}
