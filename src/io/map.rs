//! Cache files mapped into memory instead of read: see [`map_regular`].

use std::io::Read;
use std::path::Path;

/// The bytes of a cache file as [`map_regular`] gives them: mapped, or
/// read into memory where a mapping cannot be had.
pub(crate) enum Mapped {
    #[cfg(unix)]
    Map(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for Mapped {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            #[cfg(unix)]
            Mapped::Map(m) => m,
            Mapped::Read(v) => v,
        }
    }
}

/// The bytes of the regular file at `path` (see
/// [`crate::io::fs::open_regular`]), mapped into memory instead of
/// copied: a command that reads a large cache once (the record table of
/// 100k records is 45 MB) then neither has the kernel zero fresh pages
/// for a copy nor copies it. Only for the files under `.memlint/` that
/// memlint replaces whole, by putting a new file in their place
/// (exchanged with them or renamed over them, `io::fs::write_cache`):
/// the old file is unlinked, never truncated, so the mapping keeps the
/// file that was opened,
/// whatever replaces it. A program that truncated such a file in place
/// while memlint reads it would crash memlint (as it would git); nothing
/// of memlint's does. An empty file, and any file where mapping fails, is
/// read instead. A file of more than [`crate::io::fs::CACHE_FILE_MAX`]
/// bytes is refused unmapped, as `read_regular` refuses it: the mapping
/// is populated up front, so a huge (or sparse) file in its place would
/// otherwise be paged in whole.
pub(crate) fn map_regular(path: &Path) -> std::io::Result<Mapped> {
    let max = crate::io::fs::CACHE_FILE_MAX;
    let file = crate::io::fs::open_regular(path)?;
    let len = file.metadata()?.len();
    if len > max {
        return Err(crate::io::fs::too_large(max));
    }
    #[cfg(unix)]
    if len > 0 {
        // SAFETY: a read-only shared mapping of a file no more than `max`
        // bytes long; the caches mapped are replaced by rename, never
        // changed in place (see above), so its bytes do not change under
        // the borrow.
        if let Ok(map) = unsafe { memmap2::MmapOptions::new().populate().map(&file) } {
            return Ok(Mapped::Map(map));
        }
    }
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    match bytes.len() as u64 > max {
        true => Err(crate::io::fs::too_large(max)),
        false => Ok(Mapped::Read(bytes)),
    }
}
