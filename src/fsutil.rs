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
/// file's owner; see [`refused`].
#[cfg(target_os = "linux")]
pub const NOATIME: libc::c_int = libc::O_NOATIME;
#[cfg(all(unix, not(target_os = "linux")))]
pub const NOATIME: libc::c_int = 0;

/// Whether an open failed because [`NOATIME`] is not allowed for the file
/// (it belongs to another user): open it again without.
#[cfg(unix)]
pub fn refused(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::EPERM)
}

/// Opens `path` for reading when it is a regular file (following symbolic
/// links); anything else is an error, never a wait. The open itself does
/// not block (a FIFO opened for reading waits for a writer otherwise), nor
/// does it update the access time where the owner may ask so.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
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
    let file = match open(NOATIME) {
        Err(e) if NOATIME != 0 && refused(&e) => open(0)?,
        other => other?,
    };
    #[cfg(not(unix))]
    let file = open(0)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
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
/// existing file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
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
