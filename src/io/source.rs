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
