//! Atomic writes: a temporary file in the same directory, fsync, rename. A
//! crash leaves the old file or the new one, never half of either. And
//! reads that never wait: only regular files are read.

use crate::io::regular::{kind_of, not_regular};
use crate::model::content::Content;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Calls `open` with the extra open flags `NOATIME` while `ask` holds,
/// and again with none when the kernel refuses them (EPERM: a file of
/// another owner), after which `ask` is cleared so that a caller opening
/// many files stops asking.
#[cfg(unix)]
pub(crate) fn open_noatime<T>(
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
pub(crate) fn open_read(path: &Path) -> std::io::Result<std::fs::File> {
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
pub(crate) fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    open_regular_named(path)
}

/// [`open_regular`], whose error for anything but a regular file names
/// what it is ("not a regular file (a FIFO)").
pub(crate) fn open_regular_named(path: &Path) -> std::io::Result<std::fs::File> {
    open_regular_with(path, || open_read(path))
}

/// Opens `path` for writing (or reading and writing) as `options` say,
/// when it is a regular file or does not exist yet: never waiting for a
/// FIFO's reader, and refusing anything but a regular file.
pub(crate) fn open_regular_options(
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
    let not_regular = |meta: &std::fs::Metadata| not_regular(kind_of(meta));
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
/// root (docs/configuration.md).
pub(crate) fn stays_inside(root: &Path, path: &Path) -> bool {
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
pub(crate) fn path_stays_inside(root: &Path, path: &Path) -> bool {
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
pub(crate) enum Resolved {
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
/// through such a link gets the one answer [`Resolved::Escapes`] (docs/guarantees.md:
/// nothing outside the root is read or revealed).
pub(crate) fn resolve_inside(root: &Path, rel: &Path) -> Resolved {
    resolve_below(
        &root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
        rel,
    )
}

/// [`resolve_inside`] below a root that is already canonical (as a
/// workspace's is), sparing the resolution of the root on every call.
pub(crate) fn resolve_below(root: &Path, rel: &Path) -> Resolved {
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

/// The most [`read_regular`] reads of a file people or tools keep small:
/// the configuration, an ignore file, an agent's settings, a commit
/// message, a lock or log memlint wrote.
pub(crate) const SMALL_FILE_MAX: u64 = 16 << 20;

/// The most [`read_regular`] reads of a cache memlint wrote under
/// `.memlint/` (the record table of 100,000 records is about 45 MB).
pub(crate) const CACHE_FILE_MAX: u64 = 2 << 30;

/// The bytes of the regular file at `path` (see [`open_regular`]), never
/// more than `max` of them: a larger file (or one that grows past `max`
/// while it is read) is not given, an error of kind
/// [`std::io::ErrorKind::FileTooLarge`] says so.
pub(crate) fn read_regular(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    if len > max {
        return Err(too_large(max));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    match bytes.len() as u64 > max {
        true => Err(too_large(max)),
        false => Ok(bytes),
    }
}

/// `e` with the setting that gave its bound named, when `e` is a file
/// over the bound `max` ([`read_regular`], [`Snapshot::read`]): "it has
/// more than 200 bytes (`max_file_bytes`), more than memlint reads of
/// it", so the user knows what to raise. Any other error is `e`.
pub(crate) fn name_bound(e: std::io::Error, max: u64, setting: &str) -> std::io::Error {
    match e.kind() {
        std::io::ErrorKind::FileTooLarge => std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("it has more than {max} bytes (`{setting}`), more than memlint reads of it"),
        ),
        _ => e,
    }
}

pub(crate) fn too_large(max: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        format!("it has more than {max} bytes, more than memlint reads of it"),
    )
}

/// Writes `bytes` to `path` atomically, keeping the permissions of an
/// existing file, whatever that file holds now: a file whose content was
/// read and worked on is replaced with [`replace_if_unchanged`] instead. A
/// symbolic link is written through: its target is replaced and the link
/// stays a link (callers never hand over a link that leads out of the
/// root; see [`stays_inside`]).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return replace(&path.canonicalize()?, &[bytes], true);
    }
    replace(path, &[bytes], true)
}

/// [`write_atomic`] for the caches under `.memlint/`: still a temporary file
/// and a rename, so readers never see half a file, but without waiting for
/// the disk. After a power loss a cache may come back empty or damaged;
/// every cache carries a checksum and is then rebuilt.
///
/// The temporary files runs killed while writing caches left in its
/// directory (a prompt hook ends its process when its time budget runs
/// out, whatever it is writing) are removed once it is written: those
/// whose writer no longer runs.
pub(crate) fn write_cache(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_cache_parts(path, &[bytes])
}

/// [`write_cache`] of the concatenation of `parts`, without concatenating
/// them in memory first.
pub(crate) fn write_cache_parts(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    replace(path, parts, false)?;
    super::temporaries::sweep(dir_and_name(path).0);
    Ok(())
}

fn replace(path: &Path, parts: &[&[u8]], durable: bool) -> std::io::Result<()> {
    let (dir, name) = dir_and_name(path);
    let mut tmp = tempfile_in(dir, &name)?;
    let result = (|| {
        for bytes in parts {
            tmp.1.write_all(bytes)?;
        }
        // The permissions of the file it replaces, never of what a link
        // there points to (a cache's place is not followed).
        let meta = if durable {
            std::fs::metadata(path)
        } else {
            std::fs::symlink_metadata(path)
        };
        if let Some(meta) = meta.ok().filter(|m| m.is_file()) {
            tmp.1.set_permissions(meta.permissions())?;
        }
        if durable {
            tmp.1.sync_all()?;
            std::fs::rename(&tmp.0, path)?;
            sync_dir(dir);
        } else {
            put_cache(&tmp.0, path)?;
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp.0);
    }
    result
}

/// Puts the finished temporary file `tmp` of a cache in the place of
/// `path`, in one step: exchanged with the regular file there (whose old
/// bytes, now under the temporary name, are then removed), else renamed.
/// A rename over an existing file makes ext4 write the new file's blocks
/// out at once (its `auto_da_alloc` guard for programs that never sync):
/// 0.4 ms for 30 KB and 2.3 ms for 5 MB here, on every prompt and every
/// check that rewrites a cache. A cache needs no such guard: each is
/// checksummed or parsed whole, and rebuilt when damaged.
fn put_cache(tmp: &Path, path: &Path) -> std::io::Result<()> {
    let regular = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_file());
    if EXCHANGE_WORKS.load(Ordering::Relaxed) && regular(path) {
        match exchange(tmp, path) {
            Ok(()) if regular(tmp) => {
                let _ = std::fs::remove_file(tmp);
                return Ok(());
            }
            // Another program put something else there in between (a
            // directory, a link): it goes back, and the rename below
            // meets it as it would have. Should the cache's name have gone
            // meanwhile too, what came out is put back there by name.
            Ok(()) => {
                if let Err(e) = exchange(tmp, path) {
                    let _ = std::fs::rename(tmp, path);
                    return Err(e);
                }
            }
            Err(e) if exchange_unsupported(&e) => {
                EXCHANGE_WORKS.store(false, Ordering::Relaxed);
            }
            // Gone in between: renamed into place below.
            Err(_) => {}
        }
    }
    std::fs::rename(tmp, path)
}

/// What a read-modify-write read: the file's bytes and its identity
/// (device, inode, size, modification time), so that the file is replaced
/// only while it still is what was read ([`replace_if_unchanged`]).
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    /// The bytes read.
    pub bytes: Vec<u8>,
    identity: Identity,
    /// False when the path held no regular file (a directory, a link):
    /// then `bytes` is empty and only the identity tells it apart.
    regular: bool,
    permissions: Option<std::fs::Permissions>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: Option<std::time::SystemTime>,
}

impl Identity {
    fn of(meta: &std::fs::Metadata) -> Identity {
        #[cfg(unix)]
        let (dev, ino) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let (dev, ino) = (0, 0);
        Identity {
            dev,
            ino,
            len: meta.len(),
            mtime: meta.modified().ok(),
        }
    }
}

impl Snapshot {
    /// Reads the regular file at `path` (see [`open_regular`]), never more
    /// than `max` bytes (a larger file is an error of kind
    /// [`std::io::ErrorKind::FileTooLarge`], as of [`read_regular`]). The
    /// identity is taken after the bytes, so that a write during the read
    /// shows as a change later.
    pub(crate) fn read(path: &Path, max: u64) -> std::io::Result<Snapshot> {
        match Snapshot::read_capped(path, max)? {
            Content::Bytes(seen) => Ok(seen),
            Content::TooLarge(_) => Err(too_large(max)),
        }
    }

    /// [`Snapshot::read`] under the size cap of [`crate::io::read::read_capped`]: over `max`
    /// bytes the file is not read and only its size is given.
    pub(crate) fn read_capped(path: &Path, max: u64) -> std::io::Result<Content<Snapshot>> {
        let mut file = open_regular(path)?;
        let len = file.metadata()?.len();
        if len > max {
            return Ok(Content::TooLarge(len));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        (&mut file)
            .take(max.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > max {
            return Ok(Content::TooLarge(bytes.len() as u64));
        }
        let meta = file.metadata()?;
        Ok(Content::Bytes(Snapshot {
            bytes,
            identity: Identity::of(&meta),
            regular: true,
            permissions: Some(meta.permissions()),
        }))
    }

    /// What is at `path` now, without following a final symbolic link;
    /// `None` when nothing is. A file of more than `max` bytes is not read:
    /// its identity (which holds its length) tells it apart.
    fn look(path: &Path, max: u64) -> std::io::Result<Option<Snapshot>> {
        let meta = match std::fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if !meta.is_file() || meta.len() > max {
            return Ok(Some(Snapshot {
                bytes: Vec::new(),
                identity: Identity::of(&meta),
                regular: meta.is_file(),
                permissions: None,
            }));
        }
        match Snapshot::read(path, max) {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            // Grown past `max` since it was looked at: changed.
            Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => Snapshot::look(path, max),
            Err(e) => Err(e),
        }
    }

    /// Whether `other` is the same file with the same bytes.
    fn same(&self, other: &Snapshot) -> bool {
        self.regular == other.regular
            && self.identity == other.identity
            && self.bytes == other.bytes
    }
}

/// What [`replace_if_unchanged`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replaced {
    /// The file still held what was read; it now holds the new bytes.
    Written,
    /// The file changed after it was read (another program wrote, replaced,
    /// moved or deleted it): it was left as that program made it.
    Changed,
}

/// How often [`replace_if_unchanged`] swaps back and forth while other
/// programs keep saving the file before it gives up (each swap back means
/// another save landed within microseconds).
const MAX_EXCHANGES: usize = 64;

/// Replaces the file at `path` with `bytes`, atomically, only if it still
/// is what `seen` read: the same file (device, inode, size, modification
/// time) with the same bytes. Otherwise it is left alone and the answer is
/// [`Replaced::Changed`]. A symbolic link is written through, as
/// [`write_atomic`] does.
///
/// The new bytes go to a synced temporary file in the same directory, and
/// the file is then compared with `seen` (a change found there leaves it
/// untouched). On Linux the temporary file is then exchanged with `path`
/// in one step (`renameat2(RENAME_EXCHANGE)`) and what was swapped out is
/// compared with `seen` again; when a save landed in the microseconds
/// between the two comparisons, it is swapped back (again, until what comes
/// out is what was put in), so a save that completed before the exchange,
/// or that replaces or truncates the file after it, is never undone; a
/// reader may see memlint's bytes for those microseconds. What remains
/// unguarded is a program that opened the file before the exchange without
/// truncating it and writes into it after the comparison: those writes go
/// to the old, now deleted, file. Where the exchange is not available
/// (other systems, some file systems), the file is renamed over right
/// after the comparison: a save between the two is lost (a window of
/// microseconds, longer when the process is descheduled there; a looping
/// `fmt` against an editor saving every 2 ms lost 12 of 1500 saves so, none
/// with the exchange, 196 before either). memlint writers take turns (an
/// exclusive `flock` on the file's directory, from the comparison to the
/// end of the exchange), so that of several replacing one file at once
/// each either wins over what the previous winner wrote or is told the
/// file changed, and none of them is undone by another.
pub(crate) fn replace_if_unchanged(
    path: &Path,
    seen: &Snapshot,
    bytes: &[u8],
) -> std::io::Result<Replaced> {
    let path = if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        path.canonicalize()?
    } else {
        path.to_path_buf()
    };
    replace_checked(&path, seen, bytes, &Probes::default())
}

/// How often [`update`] reads again when the file keeps changing.
const UPDATE_ATTEMPTS: usize = 8;

/// Read-modify-write of `path`: `change` gets the file's bytes (`None`
/// when it is absent) and returns its new bytes, or `None` to leave it as
/// it is. The file is replaced only while it still is what was read
/// ([`replace_if_unchanged`]), and created only where nothing is
/// ([`write_new`]); when another program changed it in between, it is read
/// and changed again. True when the file was written. I/O errors go
/// through `io_err` with what failed (`"read"` or `"write"`).
pub(crate) fn update<E>(
    path: &Path,
    mut change: impl FnMut(Option<&[u8]>) -> Result<Option<Vec<u8>>, E>,
    io_err: impl Fn(&'static str, std::io::Error) -> E,
) -> Result<bool, E> {
    let write_err = |e| io_err("write", e);
    for _ in 0..UPDATE_ATTEMPTS {
        let seen = match Snapshot::read(path, SMALL_FILE_MAX) {
            Ok(s) => Some(s),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_err("read", e)),
        };
        let Some(new) = change(seen.as_ref().map(|s| s.bytes.as_slice()))? else {
            return Ok(false);
        };
        match &seen {
            Some(seen) => match replace_if_unchanged(path, seen, &new) {
                Ok(Replaced::Written) => return Ok(true),
                Ok(Replaced::Changed) => continue,
                Err(e) => return Err(write_err(e)),
            },
            None => match write_new(path, &new) {
                Ok(()) => return Ok(true),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(write_err(e)),
            },
        }
    }
    Err(write_err(std::io::Error::other(
        "another program kept changing the file while memlint updated it",
    )))
}

/// Test probes of [`replace_checked`]: called before the file is compared,
/// after it was found unchanged, and after each exchange (with its number).
#[derive(Default)]
struct Probes<'a> {
    before: Option<&'a dyn Fn()>,
    checked: Option<&'a dyn Fn()>,
    swapped: Option<&'a dyn Fn(usize)>,
    no_exchange: bool,
}

fn replace_checked(
    path: &Path,
    seen: &Snapshot,
    bytes: &[u8],
    probes: &Probes,
) -> std::io::Result<Replaced> {
    let (dir, name) = dir_and_name(path);
    let (tmp, mut file) = tempfile_in(dir, &name)?;
    let written = (|| {
        file.write_all(bytes)?;
        if let Some(p) = &seen.permissions {
            file.set_permissions(p.clone())?;
        }
        file.sync_all()?;
        file.metadata()
    })();
    drop(file);
    let ours = match written {
        Ok(meta) => Snapshot {
            bytes: bytes.to_vec(),
            identity: Identity::of(&meta),
            regular: true,
            permissions: None,
        },
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
    };
    #[cfg(debug_assertions)]
    hold_for_tests(path);
    // memlint writers take turns from the comparison to the end of the
    // swap: two overlapping exchanges each judge what the other swapped
    // in, and with three a writer told "written" can end deleted while one
    // told "changed" ends on disk.
    let _turn = crate::io::turn::Turn::take(dir);
    if let Some(before) = probes.before {
        before();
    }
    // Compared first, so that a change found here (nearly every one) is
    // never swapped in and out where readers could see it.
    match Snapshot::look(path, seen.identity.len) {
        Ok(Some(now)) if now.same(seen) => {}
        other => {
            let _ = std::fs::remove_file(&tmp);
            return other.map(|_| Replaced::Changed);
        }
    }
    if let Some(checked) = probes.checked {
        checked();
    }
    let result = if probes.no_exchange || !EXCHANGE_WORKS.load(Ordering::Relaxed) {
        None
    } else {
        match exchange(&tmp, path) {
            Ok(()) => return settle(path, &tmp, seen, ours, probes),
            Err(e) if exchange_unsupported(&e) => {
                EXCHANGE_WORKS.store(false, Ordering::Relaxed);
                None
            }
            // The file is gone: deleted or moved away after it was read.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && tmp.exists() => {
                Some(Ok(Replaced::Changed))
            }
            Err(e) => Some(Err(e)),
        }
    };
    let result = result.unwrap_or_else(|| std::fs::rename(&tmp, path).map(|()| Replaced::Written));
    if result.as_ref().is_ok_and(|r| *r == Replaced::Written) {
        sync_dir(dir);
    } else {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// After `ours` (at `tmp`) was exchanged with `path`: keeps it there when
/// what came out is what `seen` read, and otherwise swaps back until what
/// comes out is what was put in last, so that the newest save of another
/// program ends at `path`.
fn settle(
    path: &Path,
    tmp: &Path,
    seen: &Snapshot,
    ours: Snapshot,
    probes: &Probes,
) -> std::io::Result<Replaced> {
    let (dir, _) = dir_and_name(path);
    let mut expected = std::borrow::Cow::Borrowed(seen);
    let mut holding = ours;
    for round in 0..MAX_EXCHANGES {
        if round > 0 {
            exchange(tmp, path).map_err(|e| kept(tmp, e))?;
        }
        if let Some(swapped) = probes.swapped {
            swapped(round);
        }
        let out = Snapshot::look(tmp, expected.identity.len)
            .map_err(|e| kept(tmp, e))?
            .ok_or_else(|| kept(tmp, std::io::ErrorKind::NotFound.into()))?;
        if out.same(&expected) {
            sync_dir(dir);
            let removed = match out.regular {
                true => std::fs::remove_file(tmp),
                false => std::fs::remove_dir(tmp).or_else(|_| std::fs::remove_file(tmp)),
            };
            removed.map_err(|e| kept(tmp, e))?;
            return Ok(match round {
                0 => Replaced::Written,
                _ => Replaced::Changed,
            });
        }
        // What came out is newer than what went in: put it back.
        expected = std::borrow::Cow::Owned(std::mem::replace(&mut holding, out));
    }
    Err(kept(
        tmp,
        std::io::Error::other("the file kept changing while memlint replaced it"),
    ))
}

/// The error of a replace that had to leave its temporary file, which may
/// hold another program's save.
fn kept(tmp: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(
        e.kind(),
        format!(
            "{e}; the file's other version was left in {}",
            tmp.display()
        ),
    )
}

/// False once the exchange failed as unsupported: the process stops trying.
static EXCHANGE_WORKS: AtomicBool = AtomicBool::new(true);

/// Swaps the names `a` and `b` in one step.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let a = std::ffi::CString::new(a.as_os_str().as_bytes())?;
    let b = std::ffi::CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both paths are NUL-terminated strings that outlive the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    match r {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// Whether the exchange failed because the system or file system lacks it.
fn exchange_unsupported(e: &std::io::Error) -> bool {
    #[cfg(target_os = "linux")]
    if let Some(code) = e.raw_os_error() {
        return [libc::EINVAL, libc::ENOSYS, libc::EOPNOTSUPP, libc::EPERM].contains(&code);
    }
    e.kind() == std::io::ErrorKind::Unsupported
}

/// Debug builds only, for tests: when `MEMLINT_TEST_HOLD_REPLACE` names a
/// directory, a replace of a file `NAME` creates `NAME.held` there and
/// waits (a minute at most) for `NAME.go` before it compares, so that a
/// test can change the file between the read and the replace.
#[cfg(debug_assertions)]
fn hold_for_tests(path: &Path) {
    let Some(dir) = std::env::var_os("MEMLINT_TEST_HOLD_REPLACE") else {
        return;
    };
    let dir = Path::new(&dir);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let _ = std::fs::write(dir.join(format!("{name}.held")), b"");
    let go = dir.join(format!("{name}.go"));
    let start = std::time::Instant::now();
    while !go.exists() && start.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

fn dir_and_name(path: &Path) -> (&Path, String) {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    (dir, name)
}

/// Syncs the directory `dir`, so that links made and files removed in it
/// survive a crash.
pub(crate) fn sync_dir(dir: &Path) {
    // Best effort: some file systems refuse to sync a directory.
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Creates `path` holding `bytes`, never replacing an existing file: the
/// bytes go to a temporary file in the same directory, which is then
/// hard-linked to `path`, so the file appears complete or not at all. Fails
/// with [`std::io::ErrorKind::AlreadyExists`] when `path` exists. Where hard
/// links are unsupported, falls back to an exclusive create and write.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (dir, name) = dir_and_name(path);
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
    sync_dir(dir);
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

#[cfg(test)]
mod replace_tests {
    use super::*;

    #[test]
    fn a_cache_written_over_another_replaces_it_whole_and_leaves_nothing_beside() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("cache");
        write_cache(&path, b"first").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let before = std::fs::metadata(&path).expect("meta");
        write_cache(&path, b"second, longer").expect("write over");
        assert_eq!(std::fs::read(&path).expect("read"), b"second, longer");
        let after = std::fs::metadata(&path).expect("meta");
        assert_eq!(after.permissions().mode() & 0o777, 0o600);
        // A new file took the name (a reader holding the old one keeps
        // reading whole bytes), and the old one is gone.
        use std::os::unix::fs::MetadataExt;
        assert_ne!(after.ino(), before.ino());
        assert_eq!(left(dir.path()), ["cache"]);
        // A directory in its place is not swapped out: the write fails as
        // a rename over it does, and the directory stays.
        let held = dir.path().join("held");
        std::fs::create_dir(&held).expect("mkdir");
        std::fs::write(held.join("inside"), b"x").expect("write inside");
        assert!(write_cache(&held, b"bytes").is_err());
        assert!(held.join("inside").is_file());
        assert_eq!(left(dir.path()), ["cache", "held"]);
        // A link in its place is replaced by the file, as a rename does.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("cache", &link).expect("symlink");
        write_cache(&link, b"third").expect("write over a link");
        assert!(std::fs::symlink_metadata(&link)
            .expect("meta")
            .file_type()
            .is_file());
        assert_eq!(std::fs::read(&path).expect("read"), b"second, longer");
        assert_eq!(left(dir.path()), ["cache", "held", "link"]);
    }

    fn setup(text: &str) -> (tempfile::TempDir, std::path::PathBuf, Snapshot) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("r.md");
        std::fs::write(&path, text).expect("write");
        let seen = Snapshot::read(&path, SMALL_FILE_MAX).expect("read");
        (dir, path, seen)
    }

    /// Writes `text` to `path` as an editor saving atomically does: a new
    /// file renamed over it.
    fn save_by_rename(path: &Path, text: &str) {
        let tmp = path.with_extension("editor");
        std::fs::write(&tmp, text).expect("write");
        std::fs::rename(&tmp, path).expect("rename");
    }

    fn left(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn modes() -> [Probes<'static>; 2] {
        [
            Probes::default(),
            Probes {
                no_exchange: true,
                ..Probes::default()
            },
        ]
    }

    #[test]
    fn an_unchanged_file_is_replaced() {
        for probes in modes() {
            let (dir, path, seen) = setup("old\n");
            let done = replace_checked(&path, &seen, b"new\n", &probes).expect("replace");
            assert_eq!(done, Replaced::Written);
            assert_eq!(std::fs::read_to_string(&path).expect("read"), "new\n");
            assert_eq!(left(dir.path()), ["r.md"]);
        }
    }

    #[test]
    fn a_save_between_the_read_and_the_replace_is_kept() {
        for no_exchange in [false, true] {
            for in_place in [false, true] {
                let (dir, path, seen) = setup("old\n");
                let save = || match in_place {
                    true => std::fs::write(&path, "user\n").expect("write"),
                    false => save_by_rename(&path, "user\n"),
                };
                let probes = Probes {
                    before: Some(&save),
                    no_exchange,
                    ..Probes::default()
                };
                let done = replace_checked(&path, &seen, b"new\n", &probes).expect("replace");
                assert_eq!(done, Replaced::Changed, "{no_exchange} {in_place}");
                assert_eq!(std::fs::read_to_string(&path).expect("read"), "user\n");
                assert_eq!(left(dir.path()), ["r.md"]);
            }
        }
    }

    #[test]
    fn a_deleted_file_stays_deleted() {
        for no_exchange in [false, true] {
            let (dir, path, seen) = setup("old\n");
            let delete = || std::fs::remove_file(&path).expect("rm");
            let probes = Probes {
                before: Some(&delete),
                no_exchange,
                ..Probes::default()
            };
            let done = replace_checked(&path, &seen, b"new\n", &probes).expect("replace");
            assert_eq!(done, Replaced::Changed);
            assert!(left(dir.path()).is_empty());
        }
    }

    /// With the exchange, a save that lands right after it replaces (or
    /// writes into) memlint's new file, and stays.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_save_right_after_the_exchange_is_kept() {
        for in_place in [false, true] {
            let (dir, path, seen) = setup("old\n");
            let save = |round: usize| {
                if round == 0 {
                    match in_place {
                        true => std::fs::write(&path, "user\n").expect("write"),
                        false => save_by_rename(&path, "user\n"),
                    }
                }
            };
            let probes = Probes {
                swapped: Some(&save),
                ..Probes::default()
            };
            let done = replace_checked(&path, &seen, b"new\n", &probes).expect("replace");
            assert_eq!(done, Replaced::Written);
            assert_eq!(std::fs::read_to_string(&path).expect("read"), "user\n");
            assert_eq!(left(dir.path()), ["r.md"]);
        }
    }

    /// A save between the comparison and the exchange is swapped back.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_save_right_before_the_exchange_is_swapped_back() {
        for in_place in [false, true] {
            let (dir, path, seen) = setup("old\n");
            let save = || match in_place {
                true => std::fs::write(&path, "user\n").expect("write"),
                false => save_by_rename(&path, "user\n"),
            };
            let probes = Probes {
                checked: Some(&save),
                ..Probes::default()
            };
            let done = replace_checked(&path, &seen, b"new\n", &probes).expect("replace");
            assert_eq!(done, Replaced::Changed);
            assert_eq!(std::fs::read_to_string(&path).expect("read"), "user\n");
            assert_eq!(left(dir.path()), ["r.md"]);
        }
    }

    /// A save before the exchange is swapped back; one more save landing
    /// while memlint's bytes stand there is the newest and wins.
    #[cfg(target_os = "linux")]
    #[test]
    fn saves_on_both_sides_of_the_exchange_end_with_the_newest() {
        let (dir, path, seen) = setup("old\n");
        let first = || std::fs::write(&path, "user 1\n").expect("write");
        let second = |round: usize| {
            if round == 0 {
                save_by_rename(&path, "user 2\n");
            }
        };
        let probes = Probes {
            checked: Some(&first),
            swapped: Some(&second),
            ..Probes::default()
        };
        let done = replace_checked(&path, &seen, b"new\n", &probes).expect("replace");
        assert_eq!(done, Replaced::Changed);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "user 2\n");
        assert_eq!(left(dir.path()), ["r.md"]);
    }
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
