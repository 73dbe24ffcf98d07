//! Atomic writes: a temporary file in the same directory, fsync, rename. A
//! crash leaves the old file or the new one, never half of either. And
//! reads that never wait: only regular files are read.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

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
    open_regular_named(path)
}

/// What kind of file `meta` describes, for messages about a file that is
/// not a regular one ("a FIFO", "a directory").
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// [`open_regular`], whose error for anything but a regular file names
/// what it is ("not a regular file (a FIFO)").
pub fn open_regular_named(path: &Path) -> std::io::Result<std::fs::File> {
    open_regular_with(path, || open_read(path))
}

/// Opens `path` for writing (or reading and writing) as `options` say,
/// when it is a regular file or does not exist yet: never waiting for a
/// FIFO's reader, and refusing anything but a regular file.
pub fn open_regular_options(
    path: &Path,
    options: &mut std::fs::OpenOptions,
) -> std::io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    open_regular_with(path, || options.open(path))
}

/// The file `open` opens, when it is a regular file; an error naming what
/// it is otherwise.
fn open_regular_with(
    path: &Path,
    open: impl FnOnce() -> std::io::Result<std::fs::File>,
) -> std::io::Result<std::fs::File> {
    let not_regular = |meta: &std::fs::Metadata| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind_of(meta)),
        )
    };
    let file = match open() {
        Ok(file) => file,
        // A socket cannot be opened at all (ENXIO): say what it is.
        Err(e) => {
            return Err(match std::fs::metadata(path) {
                Ok(m) if !m.is_file() && !m.is_dir() => not_regular(&m),
                _ => e,
            })
        }
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
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

/// Whether `path` lies below `root` once every component is resolved
/// (`..` and symbolic links included; see [`resolve_inside`]): a path that
/// does not exist yet counts as inside when what exists of it does.
pub fn path_stays_inside(root: &Path, path: &Path) -> bool {
    let rel = match path.strip_prefix(root) {
        Ok(rel) => rel,
        Err(_) if path.is_relative() => path,
        Err(_) => return false,
    };
    !matches!(resolve_inside(root, rel), Resolved::Escapes(_))
}

/// Where a root-relative path leads, resolved one component at a time
/// (see [`resolve_inside`]).
#[derive(Debug)]
pub enum Resolved {
    /// It exists; the path, inside the root, with every link resolved.
    Inside(PathBuf),
    /// A component does not exist (inside the root); nothing beyond it was
    /// looked at.
    Missing,
    /// The component named (root-relative, `/`-separated) leads out of the
    /// root: a symbolic link whose target lies outside, or a `..` above
    /// the root. Nothing beyond it was looked at.
    Escapes(String),
    /// A component could not be looked at (permissions, a loop of links).
    Unreadable(std::io::Error),
}

/// How many symbolic links [`resolve_inside`] follows before it gives up,
/// as the kernel does (`ELOOP`).
const MAX_LINKS: usize = 40;

/// Resolves `rel` below `root` component by component, following symbolic
/// links only while they stay inside the root. A link's target is judged
/// by its text, never by looking outside: whatever exists out there, a path
/// through such a link gets the one answer [`Resolved::Escapes`] (SPEC §10:
/// nothing outside the root is read or revealed).
pub fn resolve_inside(root: &Path, rel: &Path) -> Resolved {
    resolve_below(
        &root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
        rel,
    )
}

/// [`resolve_inside`] below a root that is already canonical (as a
/// workspace's is), sparing the resolution of the root on every call.
pub fn resolve_below(root: &Path, rel: &Path) -> Resolved {
    use std::path::Component;
    let root = root.to_path_buf();
    // Components still to resolve, and for each the root-relative name
    // reported when it leads out: its own, or the link it came from.
    let mut todo: std::collections::VecDeque<(std::ffi::OsString, Option<String>)> =
        std::collections::VecDeque::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => todo.push_back((n.to_os_string(), None)),
            Component::ParentDir => todo.push_back(("..".into(), None)),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => {
                return Resolved::Escapes(rel.to_string_lossy().into_owned())
            }
        }
    }
    let shown = |at: &Path| -> String {
        at.strip_prefix(&root)
            .map(|r| {
                r.components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .unwrap_or_default()
    };
    let mut at = root.clone();
    let mut links = 0;
    while let Some((name, via)) = todo.pop_front() {
        if name == ".." {
            if at == root {
                return Resolved::Escapes(
                    via.unwrap_or_else(|| rel.to_string_lossy().into_owned()),
                );
            }
            at.pop();
            continue;
        }
        let next = at.join(&name);
        let meta = match std::fs::symlink_metadata(&next) {
            Ok(m) => m,
            Err(e) if is_missing(&e) => return Resolved::Missing,
            Err(e) => return Resolved::Unreadable(e),
        };
        if !meta.file_type().is_symlink() {
            at = next;
            continue;
        }
        links += 1;
        if links > MAX_LINKS {
            return Resolved::Unreadable(std::io::Error::other(
                "too many levels of symbolic links",
            ));
        }
        let target = match std::fs::read_link(&next) {
            Ok(t) => t,
            Err(e) => return Resolved::Unreadable(e),
        };
        let link = via.unwrap_or_else(|| shown(&next));
        let mut parts = Vec::new();
        let target_rel = if target.is_absolute() {
            // Judged by its text: an absolute target must name the root.
            match target.strip_prefix(&root) {
                Ok(r) => {
                    at = root.clone();
                    r.to_path_buf()
                }
                Err(_) => return Resolved::Escapes(link),
            }
        } else {
            target
        };
        for c in target_rel.components() {
            match c {
                Component::Normal(n) => parts.push((n.to_os_string(), Some(link.clone()))),
                Component::ParentDir => parts.push(("..".into(), Some(link.clone()))),
                Component::CurDir => {}
                Component::RootDir | Component::Prefix(_) => return Resolved::Escapes(link),
            }
        }
        for p in parts.into_iter().rev() {
            todo.push_front(p);
        }
    }
    Resolved::Inside(at)
}

/// Whether an error of `symlink_metadata` means the path is not there (a
/// component missing, or one that is not a directory).
fn is_missing(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
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

    /// Every component is resolved, links included, and a link out of the
    /// root gives one answer whatever exists out there.
    #[test]
    fn resolving_inside_the_root_never_looks_past_a_link_out() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("ws");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("real")).expect("mkdir");
        std::fs::create_dir_all(&outside).expect("mkdir");
        std::fs::write(outside.join("shadow"), "x").expect("write");
        std::fs::write(root.join("real/file"), "x").expect("write");
        std::os::unix::fs::symlink(&outside, root.join("docs")).expect("symlink");
        std::os::unix::fs::symlink("real", root.join("alias")).expect("symlink");
        std::os::unix::fs::symlink("../outside/shadow", root.join("up")).expect("symlink");
        std::os::unix::fs::symlink("real/../..", root.join("climb")).expect("symlink");
        let at = |rel: &str| resolve_inside(&root, Path::new(rel));
        for rel in ["docs/shadow", "docs/nope", "docs"] {
            assert!(
                matches!(at(rel), Resolved::Escapes(ref l) if l == "docs"),
                "{rel}: {:?}",
                at(rel)
            );
        }
        assert!(matches!(at("up"), Resolved::Escapes(ref l) if l == "up"));
        assert!(matches!(at("climb/x"), Resolved::Escapes(ref l) if l == "climb"));
        assert!(matches!(at("../ws/real"), Resolved::Escapes(_)));
        assert!(matches!(at("/etc"), Resolved::Escapes(_)));
        let real = root.canonicalize().expect("canonical").join("real/file");
        assert!(matches!(at("alias/file"), Resolved::Inside(ref p) if *p == real));
        assert!(matches!(at("real/../real/file"), Resolved::Inside(ref p) if *p == real));
        assert!(matches!(at("alias/nope"), Resolved::Missing));
        assert!(matches!(at("real/file/below"), Resolved::Missing));
        assert!(path_stays_inside(&root, &root.join("new/dir/file")));
        assert!(!path_stays_inside(&root, &root.join("docs/new")));
        assert!(!path_stays_inside(&root, &root.join("../x")));
    }

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
