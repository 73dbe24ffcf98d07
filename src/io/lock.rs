//! The primitives of locks kept as files: a temporary written whole and
//! synced, then made the lock by a hard link (which never replaces one) or
//! a rename (which does); an advisory lock held on a directory or a file
//! (`crate::io::fs::sync_dir` makes a link or a removal durable). The
//! staging lock (`crate::engine::staging`) and the hook state
//! (`crate::store::prompted`, `crate::store::failures`) are built on them.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A new file written whole and synced, removed on drop unless kept.
pub(crate) struct Temp {
    path: PathBuf,
    keep: bool,
}

impl Temp {
    /// Writes `bytes` to a new file in `dir` named `prefix`, this process's
    /// id and a unique tail, and syncs it, so that once linked into place
    /// it is complete even after a crash.
    pub(crate) fn write(dir: &Path, prefix: &str, bytes: &[u8]) -> io::Result<Temp> {
        let pid = std::process::id();
        for attempt in 0..1000u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let path = dir.join(format!("{prefix}{pid}.{nanos:x}.{attempt}"));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    let tmp = Temp { path, keep: false };
                    file.write_all(bytes)?;
                    file.sync_all()?;
                    return Ok(tmp);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::other("could not create a temporary file"))
    }

    /// Makes the temporary the file at `to`, unless something is there
    /// already (`AlreadyExists`): a hard link, which never replaces a file.
    /// The temporary is still removed on drop.
    pub(crate) fn link_to(&self, to: &Path) -> io::Result<()> {
        std::fs::hard_link(&self.path, to)
    }

    /// Makes the temporary the file at `to`, replacing a file there, and
    /// keeps it.
    pub(crate) fn rename_to(&mut self, to: &Path) -> io::Result<()> {
        std::fs::rename(&self.path, to)?;
        self.keep = true;
        Ok(())
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Removes the empty directory at `path` (an error when it holds anything).
pub(crate) fn remove_empty_dir(path: &Path) -> io::Result<()> {
    std::fs::remove_dir(path)
}

/// An exclusive advisory lock, released when dropped or when the process
/// exits or dies.
pub(crate) struct Held {
    _file: std::fs::File,
}

/// Waits for the exclusive lock of the directory `dir` itself (on Unix an
/// `flock` on the directory, which needs no file of its own); where a
/// directory cannot be opened as a file, of the file `fallback` instead
/// (created, with its directory, as needed).
pub(crate) fn lock_dir(dir: &Path, fallback: &Path) -> io::Result<Held> {
    #[cfg(unix)]
    let file = {
        let _ = fallback;
        std::fs::File::open(dir)?
    };
    #[cfg(not(unix))]
    let file = {
        let _ = dir;
        if let Some(parent) = fallback.parent() {
            std::fs::create_dir_all(parent)?;
        }
        open_lock_file(fallback)?
    };
    file.lock()?;
    Ok(Held { _file: file })
}

/// Waits for the exclusive lock of the file at `path`, created empty when
/// it is missing (its content is never read or changed).
pub(crate) fn lock_file(path: &Path) -> io::Result<Held> {
    let file = open_lock_file(path)?;
    file.lock()?;
    Ok(Held { _file: file })
}

fn open_lock_file(path: &Path) -> io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_never_replaces_a_rename_does_and_a_dropped_temporary_goes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lock = dir.path().join("lock");
        let first = Temp::write(dir.path(), ".tmp.", b"one").expect("temp");
        first.link_to(&lock).expect("link");
        let mut second = Temp::write(dir.path(), ".tmp.", b"two").expect("temp");
        let e = second.link_to(&lock).expect_err("a lock is there");
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        second.rename_to(&lock).expect("rename");
        drop((first, second));
        assert_eq!(std::fs::read(&lock).expect("read"), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["lock"]);
    }
}
