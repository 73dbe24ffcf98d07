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
/// it is missing (its content is never read or changed). Anything but a
/// regular file there is an error, never a wait and never a way out: a
/// symbolic link is not followed (nothing is created where it points), a
/// FIFO is not waited on.
pub(crate) fn lock_file(path: &Path) -> io::Result<Held> {
    let file = open_lock_file(path)?;
    file.lock()?;
    Ok(Held { _file: file })
}

fn open_lock_file(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| match std::fs::symlink_metadata(path) {
            Ok(m) if !m.file_type().is_file() => {
                crate::io::regular::not_regular(crate::io::regular::kind_of(&m))
            }
            _ => e,
        })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(crate::io::regular::not_regular(
            crate::io::regular::kind_of(&meta),
        ));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_lock_file_that_is_a_fifo_or_a_link_is_an_error_not_a_wait_or_a_way_out() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo.lock");
        let c = std::ffi::CString::new(fifo.to_str().expect("utf-8")).expect("path");
        // SAFETY: a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let Err(e) = lock_file(&fifo) else {
            panic!("a FIFO is no lock file");
        };
        assert!(e.to_string().contains("FIFO"), "{e}");
        let outside = tempfile::tempdir().expect("tempdir");
        let target = outside.path().join("made-here");
        let link = dir.path().join("link.lock");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        assert!(lock_file(&link).is_err());
        assert!(!target.exists(), "nothing is created where the link points");
        let plain = dir.path().join("plain.lock");
        let held = lock_file(&plain).expect("a regular lock file");
        drop(held);
        assert!(plain.is_file());
    }

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
