//! Plain file-system calls, named in one place: the engine and the store
//! do no file-system work of their own (`tests/architecture.rs` holds them
//! to it); what they need beyond reading and writing files
//! (`crate::io::fs`, `crate::io::read`) and locks (`crate::io::lock`) is
//! here.

use std::io;
use std::path::Path;

/// An open file (see [`crate::io::fs::open_regular`]).
pub(crate) type File = std::fs::File;

/// Reads exactly `buf.len()` bytes of `file` at offset `at`, without
/// moving its cursor (so that threads can share the file).
#[cfg(unix)]
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(windows)]
pub(crate) fn read_exact_at(file: &File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, at)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
}

/// What is at `path`, without following a final symbolic link.
pub(crate) fn symlink_metadata(path: impl AsRef<Path>) -> io::Result<std::fs::Metadata> {
    std::fs::symlink_metadata(path)
}

/// What is at `path`, following symbolic links.
pub(crate) fn metadata(path: impl AsRef<Path>) -> io::Result<std::fs::Metadata> {
    std::fs::metadata(path)
}

/// The first `n` bytes of the file at `path` (fewer when it is shorter).
pub(crate) fn read_head(path: impl AsRef<Path>, n: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(n as usize);
    std::fs::File::open(path)?.take(n).read_to_end(&mut head)?;
    Ok(head)
}

/// Creates the directory `path` and those above it, as needed.
pub(crate) fn create_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::create_dir_all(path)
}

/// The entries of the directory `path`.
pub(crate) fn read_dir(path: impl AsRef<Path>) -> io::Result<std::fs::ReadDir> {
    std::fs::read_dir(path)
}

/// Removes the file (or symbolic link) at `path`.
pub(crate) fn remove_file(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::remove_file(path)
}

/// Makes the file at `path` executable by everyone who may read it
/// (`0o755`), on Unix.
pub(crate) fn set_executable(path: impl AsRef<Path>) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}
