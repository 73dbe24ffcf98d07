//! Atomic writes: a temporary file in the same directory, fsync, rename. A
//! crash leaves the old file or the new one, never half of either. And
//! reads that never wait: only regular files are read.

use std::io::{Read, Write};
use std::path::Path;

/// The open flag that reads a file without updating its access time, on
/// Linux: a lint or an index refresh is no access by a person, and on a
/// file system mounted `relatime` the first read of each day would
/// otherwise write every record's inode (on 100k records, about a fifth more
/// kernel time in that cold check). The kernel allows it only to the
/// file's owner; see [`open_noatime`].
#[cfg(target_os = "linux")]
const NOATIME: libc::c_int = libc::O_NOATIME;
#[cfg(all(unix, not(target_os = "linux")))]
const NOATIME: libc::c_int = 0;

/// Calls `open` with the extra open flags [`NOATIME`] while `ask` holds,
/// and again with none when the kernel refuses them (EPERM: a file of
/// another owner), after which `ask` is cleared so that a caller opening
/// many files stops asking.
#[cfg(unix)]
pub fn open_noatime<T>(
    ask: &mut bool,
    open: impl Fn(libc::c_int) -> std::io::Result<T>,
) -> std::io::Result<T> {
    if *ask && NOATIME != 0 {
        match open(NOATIME) {
            Err(e) if e.raw_os_error() == Some(libc::EPERM) => *ask = false,
            other => return other,
        }
    }
    open(0)
}

/// Opens `path` for reading without blocking (a FIFO opened for reading
/// waits for a writer otherwise) and, where the owner may ask so, without
/// updating its access time.
pub fn open_read(path: &Path) -> std::io::Result<std::fs::File> {
    let open = |extra| {
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NONBLOCK | extra);
        }
        #[cfg(not(unix))]
        let _ = extra;
        options.open(path)
    };
    #[cfg(unix)]
    return open_noatime(&mut true, open);
    #[cfg(not(unix))]
    open(0)
}

/// Opens `path` for reading when it is a regular file (following symbolic
/// links); anything else is an error, never a wait (see [`open_read`]).
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let file = open_read(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// Whether `path` (a file directly under `root`, or anywhere below it)
/// stays inside `root`: true unless it is a symbolic link whose target lies
/// outside (or cannot be resolved). Links are never followed out of the
/// root (SPEC §1).
pub fn stays_inside(root: &Path, path: &Path) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
            path.canonicalize()
                .is_ok_and(|target| target.starts_with(root))
        }
        _ => true,
    }
}

/// Whether `path`, below `root`, and every directory on the way to it stay
/// inside `root` (see [`stays_inside`]).
pub fn path_stays_inside(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return true;
    };
    let mut at = root.to_path_buf();
    rel.components().all(|c| {
        at.push(c);
        stays_inside(root, &at)
    })
}

/// The bytes of the regular file at `path` (see [`open_regular`]).
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut file = open_regular(path)?;
    let mut bytes = Vec::with_capacity(
        file.metadata()
            .map_or(0, |m| usize::try_from(m.len()).unwrap_or(0)),
    );
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Writes `bytes` to `path` atomically, keeping the permissions of an
/// existing file. A symbolic link is written through: its target is
/// replaced and the link stays a link (callers never hand over a link that
/// leads out of the root; see [`stays_inside`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return replace(&path.canonicalize()?, &[bytes], true);
    }
    replace(path, &[bytes], true)
}

/// [`write_atomic`] for the caches under `.memlint/`: still a temporary file
/// and a rename, so readers never see half a file, but without waiting for
/// the disk. After a power loss a cache may come back empty or damaged;
/// every cache carries a checksum and is then rebuilt.
pub fn write_cache(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(path, &[bytes], false)
}

/// [`write_cache`] of the concatenation of `parts`, without concatenating
/// them in memory first.
pub fn write_cache_parts(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    replace(path, parts, false)
}

fn replace(path: &Path, parts: &[&[u8]], durable: bool) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile_in(dir, &name)?;
    let result = (|| {
        for bytes in parts {
            tmp.1.write_all(bytes)?;
        }
        if let Ok(meta) = std::fs::metadata(path) {
            tmp.1.set_permissions(meta.permissions())?;
        }
        if durable {
            tmp.1.sync_all()?;
        }
        std::fs::rename(&tmp.0, path)?;
        if durable {
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp.0);
    }
    result
}

/// Creates `path` holding `bytes`, never replacing an existing file: the
/// bytes go to a temporary file in the same directory, which is then
/// hard-linked to `path`, so the file appears complete or not at all. Fails
/// with [`std::io::ErrorKind::AlreadyExists`] when `path` exists. Where hard
/// links are unsupported, falls back to an exclusive create and write.
pub fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (tmp, mut file) = tempfile_in(dir, &name)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(e),
        Err(_) if !path.exists() => create_exclusive(path, bytes)?,
        Err(e) => return Err(e),
    }
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Exclusive create and write; the partly written file is removed on failure.
fn create_exclusive(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    let result = file.write_all(bytes).and_then(|()| file.sync_all());
    if result.is_err() {
        drop(file);
        let _ = std::fs::remove_file(path);
    }
    result
}

/// Creates a new, uniquely named hidden file in `dir`.
fn tempfile_in(dir: &Path, name: &str) -> std::io::Result<(std::path::PathBuf, std::fs::File)> {
    let pid = std::process::id();
    for attempt in 0..1000u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = dir.join(format!(".{name}.memlint-{pid}-{nanos:x}-{attempt}.tmp"));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("could not create a temporary file"))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Root may always ask for `O_NOATIME`, so the refusal a file of
    /// another owner meets is simulated: the open is tried again without
    /// the flag, and the caller stops asking.
    #[test]
    fn a_refused_noatime_open_is_retried_without_and_not_asked_again() {
        let tried = std::cell::RefCell::new(Vec::new());
        let open = |extra: libc::c_int| {
            tried.borrow_mut().push(extra);
            if extra != 0 {
                Err(std::io::Error::from_raw_os_error(libc::EPERM))
            } else {
                Ok("opened")
            }
        };
        let mut ask = true;
        assert_eq!(open_noatime(&mut ask, open).unwrap(), "opened");
        assert!(!ask);
        assert_eq!(open_noatime(&mut ask, open).unwrap(), "opened");
        assert_eq!(*tried.borrow(), [libc::O_NOATIME, 0, 0]);
        // Other errors are the open's own: not retried.
        let mut ask = true;
        let missing = open_noatime(&mut ask, |_| -> std::io::Result<()> {
            Err(std::io::Error::from_raw_os_error(libc::ENOENT))
        });
        assert_eq!(missing.unwrap_err().raw_os_error(), Some(libc::ENOENT));
        assert!(ask);
    }
}
