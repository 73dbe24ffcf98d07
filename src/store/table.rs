//! `.memlint/index` (SPEC §7): the record table, a disposable shadow of the
//! workspace keyed by content.
//!
//! One entry per workspace file: its path, stat data (size, mtime, ctime,
//! inode), a content fingerprint (xxh3-64 of the bytes, and the git blob id
//! when git vouches for one), the record fields cross-record rules need
//! (`RecordInfo`) and the file's per-file diagnostics, so a warm `check`
//! re-reads only the files that changed. The
//! whole table is also keyed by the effective configuration, the memlint
//! version and the identity of the running executable: any of them changing
//! invalidates every cached diagnostic.
//!
//! The file is a compact binary format written here: magic, format version,
//! key, scan time, the entries as length-prefixed fields with LEB128
//! integers, and a trailing xxh3-64 checksum of everything before it. Any
//! decoding problem (truncation, garbage, an older format) means the index is
//! rebuilt silently; deleting `.memlint/` is always safe. The file is
//! replaced atomically, and when it cannot be written (a read-only tree) the
//! commands work without it.
//!
//! Freshness: the stat data of every walked file is compared with its entry.
//! A file whose stat data changed is re-read and re-linted, in parallel,
//! unless the git index vouches for the blob id the entry recorded: a
//! tracked file is fingerprinted by the blob id of its git index entry when
//! the entry's stat data match the file (SPEC §7), and git keeps that
//! entry up to date across checkouts that rewrite files unchanged. A
//! file modified less than [`RACY_NS`] before the scan that recorded it could
//! have changed again within the file system's timestamp granularity, so its
//! content is hashed and compared with the fingerprint (git's "racily clean"
//! problem).

use crate::engine::workspace::Workspace;
use crate::io::fs::{open_regular, read_regular};
use crate::io::git::Tracked;
use crate::lint::{lint_file, Content, FileReport, Located, RecordInfo};
use crate::model::config::Config;
use crate::model::diagnostic::{Diagnostic, Severity};
use crate::model::kind::{classify, Kind, Place};
use crate::model::rule::Rule;
use rayon::prelude::*;
use std::io::IsTerminal;
use std::ops::Range;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// The directory of the index and caches, under the workspace root.
pub const DIR: &str = ".memlint";

/// The index file's name inside [`DIR`].
pub const FILE: &str = "index";

/// The delta file's name inside [`DIR`]: the entries changed since the index
/// file was written, so a run that finds a few changes writes a few entries
/// instead of the whole table. It names the checksum of the index file it
/// applies to and is ignored when that file changed.
pub const DELTA: &str = "index.delta";

const DELTA_MAGIC: &[u8; 8] = b"MLDELTA\0";

const MAGIC: &[u8; 8] = b"MLINDEX\0";

/// The on-disk format version; an index of another version is rebuilt.
const FORMAT: u32 = 6;

/// Files modified this close (in nanoseconds) before the scan that recorded
/// them have their content verified on the next run.
pub const RACY_NS: i64 = 2_000_000_000;

/// Below this many files to read, no progress bar is shown.
const PROGRESS_MIN: usize = 2000;

/// The stat data an entry is valid for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stat {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: i64,
    /// Status-change time, nanoseconds since the epoch (0 where unknown).
    pub ctime: i64,
    /// Inode number (0 where unknown).
    pub ino: u64,
}

impl Stat {
    /// The stat data of `meta`.
    pub fn of(meta: &std::fs::Metadata) -> Stat {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
            Stat {
                size: meta.len(),
                mtime: ns(meta.mtime(), meta.mtime_nsec()),
                ctime: ns(meta.ctime(), meta.ctime_nsec()),
                ino: meta.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            let mtime = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
            Stat {
                size: meta.len(),
                mtime,
                ctime: 0,
                ino: 0,
            }
        }
    }

    /// The stat data of a `stat` structure.
    // `time_t` and `off_t` are not 64-bit on every Unix.
    #[cfg(unix)]
    #[allow(clippy::unnecessary_cast)]
    fn of_raw(st: &libc::stat) -> Stat {
        let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
        Stat {
            size: st.st_size as u64,
            mtime: ns(st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime: ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
            ino: st.st_ino as u64,
        }
    }

    /// The stat data of an open file and whether it is a regular file:
    /// `fstat` on Unix, which costs less than the `statx` that
    /// `File::metadata` makes there.
    fn of_file(file: &std::fs::File) -> std::io::Result<(Stat, bool)> {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
            // SAFETY: `file` is open; `st` is written by the call before it
            // is read.
            if unsafe { libc::fstat(file.as_raw_fd(), st.as_mut_ptr()) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: fstat succeeded, so `st` is initialised.
            let st = unsafe { st.assume_init() };
            Ok((
                Stat::of_raw(&st),
                st.st_mode & libc::S_IFMT == libc::S_IFREG,
            ))
        }
        #[cfg(not(unix))]
        {
            let meta = file.metadata()?;
            Ok((Stat::of(&meta), meta.is_file()))
        }
    }

    /// The stat data of many root-relative files (following symbolic links,
    /// like `std::fs::metadata`), in parallel. On Unix each directory is
    /// opened once per batch and its files are stat'ed relative to it,
    /// which spares the kernel most of the path walk.
    pub fn many(root: &Path, rels: &[&str]) -> Vec<Option<Stat>> {
        // An indexed collect writes straight into the result: collecting
        // per-batch vectors grew it by doubling, and fresh memory is dear
        // on a short run (a tenth of a warm `context` on 100k records).
        rels.par_iter()
            .with_min_len(512)
            .map_init(|| Dirs::new(root), |dirs, rel| dirs.stat(rel))
            .collect()
    }

    /// Whether the file may have changed within the timestamp granularity
    /// after a scan that started at `scanned_at`.
    pub(crate) fn racy(&self, scanned_at: i64) -> bool {
        self.mtime.max(self.ctime) >= scanned_at.saturating_sub(RACY_NS)
    }
}

/// Reaches root-relative files through their directory: on Unix the last
/// directory stays open and its files are stat'ed and opened relative to
/// it, which spares the kernel the walk from `/` for each file of a run in
/// one directory. Symbolic links are followed, as `std::fs` does.
pub(crate) struct Dirs<'r> {
    root: &'r Path,
    #[cfg(unix)]
    dir: Option<(String, Option<std::os::fd::OwnedFd>)>,
    #[cfg(unix)]
    name: Vec<u8>,
    /// Whether to open files without updating their access time, until the
    /// kernel refuses it (see [`crate::io::fs::open_noatime`]).
    #[cfg(unix)]
    noatime: bool,
}

/// A file read through [`Dirs::read`].
pub(crate) enum Opened {
    /// Its stat data (taken before reading) and its bytes.
    Bytes(Stat, Vec<u8>),
    /// Larger than the limit given: not read.
    TooLarge(Stat),
}

impl<'r> Dirs<'r> {
    pub(crate) fn new(root: &'r Path) -> Self {
        Dirs {
            root,
            #[cfg(unix)]
            dir: None,
            #[cfg(unix)]
            name: Vec::with_capacity(128),
            #[cfg(unix)]
            noatime: true,
        }
    }

    /// The open directory of `rel` and its file name as a C string; `None`
    /// when either cannot be had (the caller then goes by the whole path).
    #[cfg(unix)]
    fn at(&mut self, rel: &str) -> Option<(std::os::fd::RawFd, &std::ffi::CStr)> {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        use std::os::unix::ffi::OsStrExt;
        // Paths are short: a plain scan beats the general searcher.
        let (parent, name) = match rel.bytes().rposition(|b| b == b'/') {
            Some(at) => (&rel[..at], &rel[at + 1..]),
            None => ("", rel),
        };
        if self.dir.as_ref().is_none_or(|(p, _)| p != parent) {
            let fd = std::ffi::CString::new(self.root.join(parent).as_os_str().as_bytes())
                .ok()
                .and_then(|c| {
                    // SAFETY: a valid C string; the descriptor is owned below.
                    let fd = unsafe {
                        libc::open(
                            c.as_ptr(),
                            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
                        )
                    };
                    // SAFETY: `fd` was just opened and is not shared.
                    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
                });
            self.dir = Some((parent.to_string(), fd));
        }
        let fd = self.dir.as_ref()?.1.as_ref()?.as_raw_fd();
        self.name.clear();
        self.name.extend_from_slice(name.as_bytes());
        self.name.push(0);
        let name = std::ffi::CStr::from_bytes_with_nul(&self.name).ok()?;
        Some((fd, name))
    }

    /// The stat data of `rel`, `None` when it cannot be stat'ed.
    pub(crate) fn stat(&mut self, rel: &str) -> Option<Stat> {
        #[cfg(unix)]
        if let Some((fd, name)) = self.at(rel) {
            let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
            // SAFETY: `fd` is an open directory, `name` a C string, `st` is
            // written by the call before it is read.
            let r = unsafe { libc::fstatat(fd, name.as_ptr(), st.as_mut_ptr(), 0) };
            if r != 0 {
                return None;
            }
            // SAFETY: fstatat succeeded, so `st` is initialised.
            return Some(Stat::of_raw(&unsafe { st.assume_init() }));
        }
        std::fs::metadata(self.root.join(rel))
            .ok()
            .map(|m| Stat::of(&m))
    }

    fn open(&mut self, rel: &str) -> std::io::Result<std::fs::File> {
        #[cfg(unix)]
        let mut noatime = self.noatime;
        #[cfg(unix)]
        if let Some((fd, name)) = self.at(rel) {
            use std::os::fd::FromRawFd;
            // Non-blocking, so that a FIFO in place of a record fails the
            // regular-file test below instead of waiting for a writer; reads
            // of regular files are unaffected.
            let flags = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NONBLOCK;
            let opened = crate::io::fs::open_noatime(&mut noatime, |extra| {
                // SAFETY: `fd` is an open directory and `name` a C string.
                let file = unsafe { libc::openat(fd, name.as_ptr(), flags | extra) };
                if file < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // SAFETY: `file` was just opened and is owned by the result.
                Ok(unsafe { std::fs::File::from_raw_fd(file) })
            });
            self.noatime = noatime;
            return opened;
        }
        crate::io::fs::open_read(&self.root.join(rel))
    }

    /// Whether the start of `rel` is in the page cache, asked without
    /// waiting for the disk; `None` when that cannot be told (another
    /// system, a file system without it, a file that cannot be opened).
    fn cached(&mut self, rel: &str) -> Option<bool> {
        #[cfg(all(target_os = "linux", any(target_env = "gnu", target_env = "musl")))]
        {
            use std::os::fd::AsRawFd;
            let file = self.open(rel).ok()?;
            let mut byte = 0u8;
            let iov = libc::iovec {
                iov_base: (&raw mut byte).cast(),
                iov_len: 1,
            };
            // SAFETY: one valid one-byte buffer and an open descriptor.
            let n = unsafe { libc::preadv2(file.as_raw_fd(), &iov, 1, 0, libc::RWF_NOWAIT) };
            if n >= 0 {
                return Some(true);
            }
            let e = std::io::Error::last_os_error().raw_os_error();
            (e == Some(libc::EAGAIN)).then_some(false)
        }
        #[cfg(not(all(target_os = "linux", any(target_env = "gnu", target_env = "musl"))))]
        {
            let _ = rel;
            None
        }
    }

    /// Stats `rel` through its open descriptor and reads it unless it has
    /// more than `max` bytes. The stat data come first, so a write that
    /// races the read shows as changed stat data on the next run.
    pub(crate) fn read(&mut self, rel: &str, max: u64) -> std::io::Result<Opened> {
        use std::io::Read;
        let mut file = self.open(rel)?;
        let (stat, regular) = Stat::of_file(&file)?;
        if !regular {
            let kind = file
                .metadata()
                .map_or("not a regular file", |m| crate::io::fs::kind_of(&m));
            return Err(std::io::Error::other(format!(
                "not a regular file ({kind})"
            )));
        }
        if stat.size > max {
            return Ok(Opened::TooLarge(stat));
        }
        // One byte of room past the size, so that a file read whole in one
        // call is known to be whole without a second call.
        let mut buf = vec![0u8; stat.size as usize + 1];
        let mut len = 0;
        loop {
            let n = match file.read(&mut buf[len..]) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            len += n;
            if n == 0 || (len as u64 == stat.size && len < buf.len()) {
                break;
            }
            if len as u64 > max {
                // It grew past the limit since the stat: not read further.
                return Ok(Opened::TooLarge(Stat {
                    size: len as u64,
                    ..stat
                }));
            }
            if len == buf.len() {
                // It grew since the stat: read on to the end.
                buf.resize(buf.len() * 2, 0);
            }
        }
        buf.truncate(len);
        Ok(Opened::Bytes(stat, buf))
    }
}

/// One file of the table.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The stat data the entry was read with; `None` for entries that are
    /// never reused (a file that could not be read).
    pub stat: Option<Stat>,
    /// xxh3-64 of the file's bytes, when they were read.
    pub hash: Option<u64>,
    /// The blob id the git index recorded for the file, when its stat data
    /// matched the git index entry as the file was read: a file whose stat
    /// data changed is still the same content while the git index vouches
    /// for that blob.
    pub blob: Option<gix::ObjectId>,
    /// The per-file lint result (its `source` is never stored), boxed so
    /// that the table's many passes move a pointer, not the whole report.
    pub report: Box<FileReport>,
}

/// What `context` needs of a stored entry, borrowed from the stored bytes
/// without decoding the rest (see [`with_fresh`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Glance<'a> {
    pub path: &'a str,
    pub stat: Option<Stat>,
    /// The file's bytes were read and hashed.
    pub hashed: bool,
    /// The whole front matter could be read.
    pub parsed: bool,
    pub kind: Option<Kind>,
    pub status: Option<&'a str>,
    pub date: Option<&'a str>,
    pub model_invocation: Option<bool>,
    pub description: Option<&'a str>,
}

impl<'a> Glance<'a> {
    /// The same view of a report.
    pub fn of(r: &'a FileReport) -> Glance<'a> {
        Glance {
            path: &r.path,
            stat: None,
            hashed: false,
            parsed: r.info.parsed,
            kind: r.info.kind,
            status: r.info.status.as_deref(),
            date: r.info.date.as_deref(),
            model_invocation: r.info.model_invocation,
            description: r.info.description.as_deref(),
        }
    }
}

/// The fields an entry starts with, and the length of the rest.
struct Head<'a> {
    glance: Glance<'a>,
    hash: Option<u64>,
    blob: Option<gix::ObjectId>,
    parsed: bool,
    tail: usize,
}

/// The table as loaded from or written to disk.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Configuration, version and executable key the diagnostics are valid for.
    pub key: u64,
    /// When the scan that produced the entries started (ns since the epoch).
    pub scanned_at: i64,
    /// Entries sorted by path.
    pub entries: Vec<Entry>,
}

/// How to refresh.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Ignore the stored table and re-read every file.
    pub force: bool,
    /// Show a progress bar on standard error when it is a terminal and many
    /// files must be read.
    pub progress: bool,
}

/// What a refresh produced.
#[derive(Debug)]
pub struct Refreshed {
    /// One report per file given, in the same order. Reports of files that
    /// were re-read keep their `source` when they have diagnostics; reports
    /// from the table have none.
    pub reports: Vec<Box<FileReport>>,
    /// What the table knows of each file's content, in the same order.
    pub fingerprints: Fingerprints,
    /// Files read and linted in this run.
    pub reparsed: usize,
    /// Whether they were read by many threads because they were not in the
    /// page cache (see [`cold_reader`]).
    pub from_disk: bool,
    /// `Ok(true)` when the table was written, `Ok(false)` when it was already
    /// up to date, `Err` when it could not be written.
    pub saved: std::io::Result<bool>,
}

/// The stat data and content hash (xxh3-64 of the whole file) the table
/// holds for each file of a refresh: read in this run, or kept from an
/// earlier one because the stat data (or the git blob id) showed it
/// unchanged. `None` for a file that could not be read or was too large
/// to be.
#[derive(Debug, Default)]
pub struct Fingerprints {
    /// When the refresh started.
    pub scanned_at: i64,
    pub of: Vec<Option<(Stat, u64)>>,
}

impl Fingerprints {
    /// The hash of the bytes of file `i` if it still has stat data `now`:
    /// `None` when the table has none, the stat data differ, or they are
    /// too recent for the scan to vouch that the bytes did not change
    /// after they were read.
    pub fn hash(&self, i: usize, now: &Stat) -> Option<u64> {
        let (stat, hash) = (*self.of.get(i)?)?;
        (stat == *now && !stat.racy(self.scanned_at)).then_some(hash)
    }
}

impl Refreshed {
    /// Number of records (files of a record kind) among the reports.
    pub fn records(&self) -> usize {
        self.reports
            .iter()
            .filter(|r| r.info.kind.is_some())
            .count()
    }
}

/// The path of the index file of `root`.
pub fn path(root: &Path) -> PathBuf {
    root.join(DIR).join(FILE)
}

/// The key the stored diagnostics depend on: the format, memlint's version,
/// the running executable (a rebuilt binary may lint differently under the
/// same version) and the effective configuration.
pub fn key(config: &Config) -> u64 {
    let mut h = Xxh3::new();
    h.update(&FORMAT.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    if let Some(meta) = std::env::current_exe()
        .ok()
        .and_then(|exe| std::fs::metadata(exe).ok())
    {
        let stat = Stat::of(&meta);
        h.update(&stat.size.to_le_bytes());
        h.update(&stat.mtime.to_le_bytes());
    }
    h.update(format!("{config:?}").as_bytes());
    h.digest()
}

pub(crate) fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// Loads the stored table of `root` (with its delta applied) if it is
/// intact, of this format and for this key; `None` otherwise (the caller
/// rebuilds).
pub fn load(root: &Path, key: u64) -> Option<Table> {
    load_stored(root, Some(key)).map(|s| s.table)
}

/// The stored table of `root` with its delta applied, whatever its key (for
/// inspection: its diagnostics may be stale).
pub fn read(root: &Path) -> Option<Table> {
    load_stored(root, None).map(|s| s.table)
}

/// A loaded index: the main file with the delta applied, and where each
/// entry came from, so the next write can be a delta again.
struct Stored {
    table: Table,
    /// Checksum of the main file, which a delta names as its base.
    base: u64,
    /// Per entry: the main file holds this path.
    in_main: Vec<bool>,
    /// Per entry: the entry is not the main file's (it came from the delta).
    dirty: Vec<bool>,
    /// Paths of the main file that the delta removes, sorted.
    removed: Vec<String>,
}

fn load_stored(root: &Path, key: Option<u64>) -> Option<Stored> {
    let (bytes, delta) = stored_bytes(root)?;
    let table = decode(&bytes)?;
    if key.is_some_and(|k| k != table.key) {
        return None;
    }
    let key = table.key;
    let base = checksum(&bytes)?;
    drop(bytes);
    let n = table.entries.len();
    let delta = delta
        .as_deref()
        .and_then(|d| decode_delta(d, Reader::entry, entry_path))
        .filter(|d| d.base == base && d.key == key);
    let Some(delta) = delta else {
        return Some(Stored {
            table,
            base,
            in_main: vec![true; n],
            dirty: vec![false; n],
            removed: Vec::new(),
        });
    };
    let len = n + delta.entries.len();
    let (mut entries, mut in_main, mut dirty) = (
        Vec::with_capacity(len),
        Vec::with_capacity(len),
        Vec::with_capacity(len),
    );
    merge(
        table.entries,
        &delta.removed,
        delta.entries,
        entry_path,
        |e, main, from_delta| {
            entries.push(e);
            in_main.push(main);
            dirty.push(from_delta);
        },
    );
    Some(Stored {
        table: Table {
            key,
            scanned_at: delta.scanned_at,
            entries,
        },
        base,
        in_main,
        dirty,
        removed: delta.removed.iter().map(|p| p.to_string()).collect(),
    })
}

/// What `f` makes of a glance at every stored entry, in the order of
/// `files` (every file of the workspace, sorted), when the stored table is
/// fresh for them: when [`refresh`] would keep every entry without reading
/// a file. Only the start of each entry is decoded, and `f` runs while the
/// files are stat'ed. `None` when anything changed or nothing usable is
/// stored; the caller then refreshes.
pub fn with_fresh<R: Send>(
    ws: &Workspace,
    files: &[String],
    f: impl FnOnce(&[Glance]) -> R + Send,
) -> Option<R> {
    // Without a stored table, stat'ing every file would be wasted.
    if !stored(&ws.root) {
        return None;
    }
    let key = key(&ws.config);
    let mut bytes = None;
    let slot = &mut bytes;
    let (seen, probes) = rayon::join(
        move || {
            let (main, delta) = &*slot.insert(stored_bytes(&ws.root)?);
            let m = decode_main(main, Reader::glance, glance_path)?;
            if m.key != key {
                return None;
            }
            let base = checksum(main)?;
            let delta = delta
                .as_deref()
                .and_then(|d| decode_delta(d, Reader::glance, glance_path))
                .filter(|d| d.base == base && d.key == key);
            let (glances, scanned_at) = match delta {
                None => (m.items, m.scanned_at),
                Some(d) => {
                    let mut all = Vec::with_capacity(m.items.len() + d.entries.len());
                    merge(m.items, &d.removed, d.entries, glance_path, |g, _, _| {
                        all.push(g)
                    });
                    (all, d.scanned_at)
                }
            };
            // Made before it is known to be needed, beside the stats.
            let made = (glances.len() == files.len()).then(|| f(&glances));
            Some((glances, scanned_at, made?))
        },
        || probes(ws, files, true),
    );
    let (glances, scanned_at, made) = seen?;
    let max = ws.config.max_file_bytes;
    let fresh = glances
        .par_iter()
        .zip(files)
        .zip(&probes)
        .all(|((g, f), probe)| {
            let held = Held {
                stat: g.stat,
                hashed: g.hashed,
                blob: false,
            };
            g.path == f.as_str() && judge(max, probe, Some(held), scanned_at) == Judged::Keep
        });
    fresh.then_some(made)
}

/// Creates `.memlint/` (with a `.gitignore` that keeps it out of commits)
/// when it is missing.
///
/// A `.memlint` that is a symbolic link is never written through: it
/// could lead out of the root, or to `.git` (whose `index` the cache's
/// would replace). Commands then run without their cache.
pub(crate) fn make_dir(root: &Path) -> std::io::Result<PathBuf> {
    let dir = root.join(DIR);
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(m) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            let what = match m.file_type().is_symlink() {
                true => "a symbolic link",
                false => "not a directory",
            };
            SAID.call_once(|| {
                eprintln!(
                    "memlint: warning: {DIR} is {what}; memlint keeps no cache there (every run checks every file)"
                );
            });
            return Err(std::io::Error::other(format!("{DIR} is {what}")));
        }
        Err(_) => {
            std::fs::create_dir_all(&dir)?;
            // Best effort: the directory is a cache even where `init` never ran.
            let _ = std::fs::write(dir.join(".gitignore"), "*\n");
        }
    }
    Ok(dir)
}

/// Writes `table` as `root`'s whole index file atomically (dropping any
/// delta), creating `.memlint/` as needed.
pub fn save(root: &Path, table: &Table) -> std::io::Result<()> {
    let dir = make_dir(root)?;
    let parts = encode_parts(table);
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    crate::io::fs::write_cache_parts(&dir.join(FILE), &parts)?;
    match std::fs::remove_file(dir.join(DELTA)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// What a delta file holds: the changes to the main file whose checksum is
/// `base`, with its entries decoded as `T` (borrowing from the bytes).
struct Delta<'a, T> {
    base: u64,
    key: u64,
    scanned_at: i64,
    /// Paths of the main file that are gone, sorted.
    removed: Vec<&'a str>,
    /// New or changed entries, sorted by path.
    entries: Vec<T>,
}

/// The main file's items with a delta's applied, both sorted by path: `out`
/// gets each item of the result in order, with whether the main file holds
/// its path and whether it came from the delta.
fn merge<T>(
    main: Vec<T>,
    removed: &[&str],
    delta: Vec<T>,
    path: fn(&T) -> &str,
    mut out: impl FnMut(T, bool, bool),
) {
    let kept = |m: &T| removed.binary_search(&path(m)).is_err();
    let mut main = main.into_iter().peekable();
    for d in delta {
        while let Some(m) = main.next_if(|m| path(m) < path(&d)) {
            if kept(&m) {
                out(m, true, false);
            }
        }
        let replaces = main.next_if(|m| path(m) == path(&d)).is_some();
        out(d, replaces, true);
    }
    for m in main {
        if kept(&m) {
            out(m, true, false);
        }
    }
}

/// The stored main file and delta of `root`, read.
fn stored_bytes(root: &Path) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    let main = read_regular(&path(root)).ok()?;
    let delta = read_regular(&root.join(DIR).join(DELTA)).ok();
    Some((main, delta))
}

/// The checksum a delta names to apply to `main`.
fn checksum(main: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(
        main.get(main.len().checked_sub(8)?..)?.try_into().ok()?,
    ))
}

/// What phase one decided for a file.
enum Plan {
    /// The stored entry is still valid.
    Keep(Entry),
    /// The stat data matches but the file is racy: verify its content hash.
    Verify(Entry),
    /// Read and lint it (stat'ing it as it is opened).
    Read,
    /// Its stat data changed: keep the entry with the new stat data if the
    /// git index vouches for the same blob, else read it.
    ByBlob(Entry, Stat),
    /// Its lint result depends on its path (and size) only.
    Compute(Option<Stat>),
}

impl Plan {
    /// Whether the file may be read.
    fn reads(&self) -> bool {
        matches!(self, Plan::Read | Plan::Verify(..) | Plan::ByBlob(..))
    }
}

/// What phase two did with a file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Done {
    /// The stored entry was kept without reading the file.
    Kept,
    /// The file was read and found unchanged.
    Verified,
    /// Its stat data changed but the git index vouches for the same blob:
    /// kept with the new stat data, without reading the file.
    Restated,
    /// The file was read and linted.
    Read,
    /// The entry was made from the path and size alone.
    Computed,
}

/// How many files one walk along the git index looks up (see
/// [`Tracked::in_order`]).
const BLOB_RUN: usize = 2048;

/// Brings the table up to date for `files` (every file of the workspace,
/// sorted, as `Workspace::files` gives them), writes it back when anything
/// changed, and returns their reports.
pub fn refresh(ws: &Workspace, files: &[String], opts: &Options) -> Refreshed {
    let scanned = scan(ws, files, opts);
    let saved = scanned.save(&ws.root);
    scanned.finish(saved)
}

/// Brings the table up to date for `files` (every file of the workspace,
/// sorted) without writing it. Unchanged files are not re-read; changed
/// ones are read and linted in parallel.
pub fn scan(ws: &Workspace, files: &[String], opts: &Options) -> Scanned {
    let scanned_at = now_ns();
    let key = key(&ws.config);
    // Stat every file while the stored table loads. Without a stored
    // table every record is read anyway, and stat'ed then, through the
    // open file.
    let stored_exists = !opts.force && stored(&ws.root);
    let (stored, stats) = rayon::join(
        || {
            stored_exists
                .then(|| load_stored(&ws.root, Some(key)))
                .flatten()
        },
        || probes(ws, files, stored_exists),
    );
    let old_scanned_at = stored.as_ref().map_or(0, |s| s.table.scanned_at);
    let old_len = stored.as_ref().map_or(0, |s| s.table.entries.len());
    let base = stored.as_ref().map(|s| s.base);
    let (aligned, flags, mut removed) = align(files, stored);

    // Phase one: decide what each file needs.
    let plans: Vec<Plan> = stats
        .into_par_iter()
        .zip(aligned.into_par_iter())
        .map(|(probe, old)| plan(ws, &probe, old, old_scanned_at))
        .collect();
    let to_read = plans.iter().filter(|p| p.reads()).count();
    let by_blob = plans.iter().any(|p| matches!(p, Plan::ByBlob(..)));
    if to_read >= PROGRESS_MIN {
        no_huge_pages();
    }
    let bar = progress_bar(opts.progress && to_read >= PROGRESS_MIN, to_read);
    let io = cold_reader(ws, files, &plans, to_read);

    // Phase two: read, verify and lint what needs it. The git index is
    // read first when a file whose stat data changed may still be the blob
    // it was; otherwise it is read beside the files, only to fingerprint
    // those read.
    let early = by_blob.then(|| Tracked::open(&ws.root)).flatten();
    let (late, mut done) = rayon::join(
        || {
            (to_read > 0 && !by_blob)
                .then(|| Tracked::open(&ws.root))
                .flatten()
        },
        || {
            let run = || {
                files
                    .par_iter()
                    .zip(plans.into_par_iter())
                    .map_init(
                        || Dirs::new(&ws.root),
                        |dirs, (rel, plan)| {
                            let reads = plan.reads();
                            let out = execute(ws, dirs, rel, plan, early.as_ref());
                            if reads {
                                bar.inc(1);
                            }
                            out
                        },
                    )
                    .collect::<Vec<(Entry, Done)>>()
            };
            match &io {
                Some(pool) => pool.install(run),
                None => run(),
            }
        },
    );
    bar.finish_and_clear();
    if let Some(tracked) = early.as_ref().or(late.as_ref()) {
        // The files are sorted, as the index is: each run of them walks
        // along it.
        files
            .par_chunks(BLOB_RUN)
            .zip(done.par_chunks_mut(BLOB_RUN))
            .for_each(|(files, done)| {
                let mut lookup = tracked.in_order();
                for (rel, (e, d)) in files.iter().zip(done) {
                    if *d == Done::Read && e.hash.is_some() {
                        e.blob = e.stat.and_then(|s| lookup.blob(rel, &s));
                    }
                }
            });
    }

    let reparsed = done.iter().filter(|(_, d)| *d == Done::Read).count();
    // A file verified by its content because it was racy for the last scan
    // is stored again once it is not for this one: else it would be read
    // on every run until something else changed.
    let settled = |e: &Entry| e.stat.is_some_and(|s| !s.racy(scanned_at));
    let unchanged = old_len == files.len()
        && done.iter().all(|(e, d)| match d {
            Done::Kept => true,
            Done::Verified => !settled(e),
            _ => false,
        });
    let dirty: Vec<bool> = done
        .iter()
        .zip(&flags)
        .map(|((e, d), (_, was_dirty))| match d {
            Done::Kept => *was_dirty,
            Done::Verified => *was_dirty || settled(e),
            Done::Read | Done::Computed | Done::Restated => true,
        })
        .collect();
    removed.retain(|p| files.binary_search(p).is_err());
    removed.sort_unstable();
    removed.dedup();
    Scanned {
        table: Table {
            key,
            scanned_at,
            entries: done.into_iter().map(|(e, _)| e).collect(),
        },
        dirty,
        removed,
        base,
        unchanged,
        reparsed,
        from_disk: io.is_some(),
    }
}

/// Fewest files to read for [`cold_reader`] to look at the page cache.
const COLD_MIN: usize = 256;

/// Files [`cold_reader`] asks the page cache about.
const COLD_SAMPLE: usize = 32;

/// Threads that read when the files are not in the page cache.
pub const IO_THREADS: usize = 16;

/// A pool of [`IO_THREADS`] threads to read and lint in, when many files
/// are to be read and at least a quarter of a sample of them is not in the
/// page cache. Reading from the disk, two threads keep two requests in
/// flight and wait on each in turn; sixteen keep the device busy (on the
/// 100k-record workspace with the page cache dropped, `rg` takes 13.6 s
/// on two threads and 2.7 s on sixteen). The cache empties after a reboot,
/// under memory pressure, or, on virtual machines that hand idle memory
/// back to the host, after a minute without reads. A warm cache keeps the
/// two threads, and `RAYON_NUM_THREADS`, when set, always decides.
fn cold_reader(
    ws: &Workspace,
    files: &[String],
    plans: &[Plan],
    to_read: usize,
) -> Option<rayon::ThreadPool> {
    // Rayon ignores a value that is no positive number, and so does this.
    let threads_set = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .is_some_and(|n| n > 0);
    if to_read < COLD_MIN || threads_set {
        return None;
    }
    let step = (to_read / COLD_SAMPLE).max(1);
    let mut dirs = Dirs::new(&ws.root);
    let (mut asked, mut cold) = (0, 0);
    let sample = files
        .iter()
        .zip(plans)
        .filter(|(_, p)| p.reads())
        .step_by(step)
        .take(COLD_SAMPLE);
    for (rel, _) in sample {
        if let Some(cached) = dirs.cached(rel) {
            asked += 1;
            cold += usize::from(!cached);
        }
    }
    if asked == 0 || cold * 4 < asked {
        return None;
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(IO_THREADS)
        .thread_name(|i| format!("memlint-read-{i}"))
        .build()
        .ok()
}

/// A refreshed table, not yet written back: [`Scanned::save`] can run while
/// the caller goes on with [`Scanned::reports`].
pub struct Scanned {
    table: Table,
    /// Per entry: whether the main file lacks it as it is now.
    dirty: Vec<bool>,
    /// Paths the main file holds that are gone.
    removed: Vec<String>,
    /// The main file's checksum, when it was read.
    base: Option<u64>,
    /// Nothing differs from the stored table.
    unchanged: bool,
    reparsed: usize,
    from_disk: bool,
}

impl Scanned {
    /// One report per file given to [`scan`], in the same order.
    pub fn reports(&self) -> impl Iterator<Item = &FileReport> {
        self.table.entries.iter().map(|e| &*e.report)
    }

    /// Writes the table back when anything changed: as a small delta next
    /// to the main file when few entries changed, else whole. `Ok(false)`
    /// when it was already up to date.
    pub fn save(&self, root: &Path) -> std::io::Result<bool> {
        if self.unchanged {
            return Ok(false);
        }
        let table = &self.table;
        let changes = self.dirty.iter().filter(|d| **d).count() + self.removed.len();
        match self.base {
            Some(base) if changes <= (table.entries.len() / 8).max(256) => {
                let entries: Vec<&Entry> = table
                    .entries
                    .iter()
                    .zip(&self.dirty)
                    .filter(|(_, d)| **d)
                    .map(|(e, _)| e)
                    .collect();
                save_delta(root, base, table, &self.removed, &entries)
            }
            _ => save(root, table),
        }
        .map(|()| true)
    }

    /// The outcome, given what [`Scanned::save`] returned.
    pub fn finish(self, saved: std::io::Result<bool>) -> Refreshed {
        let entries = self.table.entries;
        let mut reports = Vec::with_capacity(entries.len());
        let mut fingerprints = Vec::with_capacity(entries.len());
        for e in entries {
            fingerprints.push(e.stat.zip(e.hash));
            reports.push(e.report);
        }
        Refreshed {
            reports,
            fingerprints: Fingerprints {
                scanned_at: self.table.scanned_at,
                of: fingerprints,
            },
            reparsed: self.reparsed,
            from_disk: self.from_disk,
            saved,
        }
    }
}

/// Per file: whether the main file holds its path, and whether its stored
/// entry is not the main file's.
type Flags = (bool, bool);

/// The stored entries lined up with `files` (both sorted by path), their
/// flags, and the main file's paths that are no longer in `files` (with
/// those the delta already removed).
fn align(
    files: &[String],
    stored: Option<Stored>,
) -> (Vec<Option<Entry>>, Vec<Flags>, Vec<String>) {
    let mut out: Vec<Option<Entry>> = Vec::with_capacity(files.len());
    let mut flags: Vec<Flags> = Vec::with_capacity(files.len());
    let Some(stored) = stored else {
        out.resize_with(files.len(), || None);
        flags.resize(files.len(), (false, false));
        return (out, flags, Vec::new());
    };
    let mut removed = stored.removed;
    let mut stored = stored
        .table
        .entries
        .into_iter()
        .zip(stored.in_main.into_iter().zip(stored.dirty))
        .peekable();
    for f in files {
        while let Some((gone, (in_main, _))) =
            stored.next_if(|(e, _)| e.report.path.as_str() < f.as_str())
        {
            if in_main {
                removed.push(gone.report.path);
            }
        }
        match stored.next_if(|(e, _)| e.report.path == *f) {
            Some((e, fl)) => {
                out.push(Some(e));
                flags.push(fl);
            }
            None => {
                out.push(None);
                flags.push((false, false));
            }
        }
    }
    for (gone, (in_main, _)) in stored {
        if in_main {
            removed.push(gone.report.path);
        }
    }
    (out, flags, removed)
}

/// What a look at a file's path and stat data found.
enum Probe {
    /// Judged by its path alone (outside, banned, unknown).
    PathOnly,
    /// A record or `CONTEXT.md` that could not be stat'ed, or that was not
    /// (there is no stored entry to compare with).
    Unknown,
    /// A record or `CONTEXT.md` and its stat data.
    Stat(Stat),
}

/// Looks at every file: its path, and the stat data of the records when
/// `stat` (when there are stored entries to compare them with).
fn probes(ws: &Workspace, files: &[String], stat: bool) -> Vec<Probe> {
    let by_path: Vec<bool> = files
        .par_iter()
        .map(|rel| {
            matches!(
                classify(rel, &ws.config.banned_dirs),
                Place::Outside | Place::Banned(_) | Place::Unknown
            )
        })
        .collect();
    let mut to_stat: Vec<&str> = Vec::with_capacity(files.len());
    to_stat.extend(
        files
            .iter()
            .zip(&by_path)
            .filter(|(_, p)| !**p)
            .map(|(f, _)| f.as_str()),
    );
    let mut stats = if stat {
        Stat::many(&ws.root, &to_stat)
    } else {
        Vec::new()
    }
    .into_iter();
    by_path
        .into_iter()
        .map(|path_only| {
            if path_only {
                Probe::PathOnly
            } else {
                match stats.next().flatten() {
                    Some(s) => Probe::Stat(s),
                    None => Probe::Unknown,
                }
            }
        })
        .collect()
}

/// What a file needs, judged from its probe and what is stored of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Judged {
    Keep,
    Verify,
    Read,
    ByBlob(Stat),
    Compute(Option<Stat>),
}

/// What is stored of a file: its stat data, whether its bytes were hashed
/// and whether it has a blob id.
#[derive(Clone, Copy)]
struct Held {
    stat: Option<Stat>,
    hashed: bool,
    blob: bool,
}

impl Held {
    fn of(e: &Entry) -> Held {
        Held {
            stat: e.stat,
            hashed: e.hash.is_some(),
            blob: e.blob.is_some(),
        }
    }
}

fn judge(max_file_bytes: u64, probe: &Probe, held: Option<Held>, old_scanned_at: i64) -> Judged {
    let stat = match probe {
        // The result depends on the path only.
        Probe::PathOnly => {
            return match held {
                Some(_) => Judged::Keep,
                None => Judged::Compute(None),
            }
        }
        Probe::Unknown => return Judged::Read,
        Probe::Stat(stat) => *stat,
    };
    if stat.size > max_file_bytes {
        return match held {
            Some(h) if h.stat == Some(stat) => Judged::Keep,
            _ => Judged::Compute(Some(stat)),
        };
    }
    match held {
        Some(h) if h.stat == Some(stat) && h.hashed => {
            if stat.racy(old_scanned_at) {
                Judged::Verify
            } else {
                Judged::Keep
            }
        }
        Some(h) if h.blob && h.hashed => Judged::ByBlob(stat),
        _ => Judged::Read,
    }
}

fn plan(ws: &Workspace, probe: &Probe, old: Option<Entry>, old_scanned_at: i64) -> Plan {
    let held = old.as_ref().map(Held::of);
    match (
        judge(ws.config.max_file_bytes, probe, held, old_scanned_at),
        old,
    ) {
        (Judged::Keep, Some(e)) => Plan::Keep(e),
        (Judged::Verify, Some(e)) => Plan::Verify(e),
        (Judged::ByBlob(stat), Some(e)) => Plan::ByBlob(e, stat),
        (Judged::Compute(stat), _) => Plan::Compute(stat),
        _ => Plan::Read,
    }
}

/// Carries out a plan; `tracked` is the git index when some plan needs it.
fn execute(
    ws: &Workspace,
    dirs: &mut Dirs,
    rel: &str,
    plan: Plan,
    tracked: Option<&Tracked>,
) -> (Entry, Done) {
    match plan {
        Plan::Keep(e) => (e, Done::Kept),
        Plan::ByBlob(e, stat) if tracked.and_then(|t| t.blob(rel, &stat)) == e.blob => (
            Entry {
                stat: Some(stat),
                ..e
            },
            Done::Restated,
        ),
        Plan::Compute(stat) => {
            let place = classify(rel, &ws.config.banned_dirs);
            let content = match stat {
                Some(s) => Content::TooLarge(s.size),
                None => Content::Bytes(b""),
            };
            let report = lint_file(rel, &place, content, &ws.config);
            (
                Entry {
                    stat,
                    hash: None,
                    blob: None,
                    report: Box::new(report),
                },
                Done::Computed,
            )
        }
        Plan::Verify(e) => match dirs.read(rel, ws.config.max_file_bytes) {
            Ok(Opened::Bytes(_, bytes)) if Some(xxh3_64(&bytes)) == e.hash => (e, Done::Verified),
            opened => (read_entry(ws, rel, opened), Done::Read),
        },
        Plan::Read | Plan::ByBlob(..) => (
            read_entry(ws, rel, dirs.read(rel, ws.config.max_file_bytes)),
            Done::Read,
        ),
    }
}

/// The entry of a file from what reading it gave.
fn read_entry(ws: &Workspace, rel: &str, opened: std::io::Result<Opened>) -> Entry {
    match opened {
        Ok(Opened::Bytes(stat, bytes)) => lint_bytes(ws, rel, Some(stat), &bytes),
        Ok(Opened::TooLarge(stat)) => {
            let place = classify(rel, &ws.config.banned_dirs);
            Entry {
                stat: Some(stat),
                hash: None,
                blob: None,
                report: Box::new(lint_file(
                    rel,
                    &place,
                    Content::TooLarge(stat.size),
                    &ws.config,
                )),
            }
        }
        // Never reused: read again next time.
        Err(e) => Entry {
            stat: None,
            hash: None,
            blob: None,
            report: Box::new(ws.unreadable(rel, &e)),
        },
    }
}

fn lint_bytes(ws: &Workspace, rel: &str, stat: Option<Stat>, bytes: &[u8]) -> Entry {
    let place = classify(rel, &ws.config.banned_dirs);
    let report = lint_file(rel, &place, Content::Bytes(bytes), &ws.config);
    Entry {
        stat,
        hash: Some(xxh3_64(bytes)),
        blob: None,
        report: Box::new(report),
    }
}

/// Whether `root` has a stored table (whole, or a delta), intact or not.
fn stored(root: &Path) -> bool {
    [FILE, DELTA]
        .iter()
        .any(|f| root.join(DIR).join(f).exists())
}

/// Turns transparent huge pages off for the rest of the process, on Linux
/// (`MIMALLOC_ALLOW_THP` in the environment keeps them). Walking and
/// linting thousands of files allocates from every thread at once, thinly
/// spread, and the kernel zeroes each 2 MiB huge page whole on its first
/// touch: on 100k records that was a tenth of the cold check. Warm runs
/// decode the index densely and are faster with huge pages, so they keep
/// them.
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: sets a flag of this process; no memory is touched.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}

/// The ignore files the walk reads in every directory (besides
/// `info/exclude` of the git directory).
pub const IGNORE_FILES: [&str; 3] = crate::io::ignores::NAMES;

/// The listing cache's name inside [`DIR`].
pub const LISTING: &str = "listing";

const LISTING_MAGIC: &[u8; 8] = b"MLLIST\0\0";

/// What a watched path looked like: absent, or its stat data.
type Seen = Option<Stat>;

fn seen(path: &Path) -> Seen {
    // An ignore file may be a link: what the walk reads is its target.
    let meta = std::fs::symlink_metadata(path).ok()?;
    match meta.file_type().is_symlink() {
        true => std::fs::metadata(path).ok().or(Some(meta)),
        false => Some(meta),
    }
    .map(|m| Stat::of(&m))
}

/// The directories and ignore files whose change could change what
/// `Workspace::files` lists, given what a walk found: the root (with its
/// `.gitignore`, `.ignore`, `.memlintignore` and `.git/info/exclude`; no
/// ignore file above the root applies), the parents of every walked root up to the root
/// (so that a root created later is seen), and every directory the walk
/// entered, with its ignore files. A directory the walk left out as ignored
/// is not watched: nothing under it is listed whatever it holds, until an
/// ignore file that is watched changes. `None` when the walk was not
/// complete (a symbolic link, an unreadable entry).
fn watched(ws: &Workspace, walked: &crate::engine::workspace::Walked) -> Option<Vec<String>> {
    if !walked.complete {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    let ignore_files = |d: &Path, out: &mut Vec<String>| {
        for name in IGNORE_FILES {
            out.push(d.join(name).to_string_lossy().into_owned());
        }
        let exclude = crate::engine::workspace::git_common_dir(d).join("info/exclude");
        out.push(exclude.to_string_lossy().into_owned());
    };
    let mut dirs: Vec<&Path> = vec![&ws.root];
    let mut parents: Vec<PathBuf> = Vec::new();
    let roots = crate::model::kind::RECORD_ROOTS
        .iter()
        .copied()
        .chain(ws.config.banned_dirs.iter().map(String::as_str));
    for r in roots {
        let mut at = ws.root.clone();
        for part in r.split('/') {
            at.push(part);
            parents.push(at.clone());
        }
    }
    dirs.extend(parents.iter().map(PathBuf::as_path));
    dirs.extend(walked.dirs.iter().map(PathBuf::as_path));
    for d in dirs {
        ignore_files(d, &mut out);
        out.push(d.to_string_lossy().into_owned());
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// Every file of the workspace, as [`Workspace::files`] lists them. The
/// listing is kept in `.memlint/listing` with the stat data of every
/// directory the walk could have seen and of every ignore file that could
/// apply; while none of them changed (a file added, removed or renamed
/// changes its directory), the stored listing is used instead of walking
/// again. A directory modified within [`RACY_NS`] before the walk is
/// trusted only when the file system's clock shows it older than the walk
/// ([`FsClock`]).
pub fn files(ws: &Workspace) -> Vec<String> {
    listing(ws).files
}

/// The workspace's files, and which stored listing they came from.
#[derive(Debug, Default)]
pub struct Listing {
    /// As [`files`] gives them.
    pub files: Vec<String>,
    /// The stored listing's checksum, `None` when the files were not
    /// stored (a walk that saw a change, a read-only `.memlint/`).
    /// Something built from `files` can keep it, and [`listing_id`] then
    /// tells whether the files are still the same without listing them.
    pub id: Option<u64>,
}

/// [`files`], with the identity of the stored listing.
pub fn listing(ws: &Workspace) -> Listing {
    let key = key(&ws.config);
    if let Some(found) = read_regular(&ws.root.join(DIR).join(LISTING))
        .ok()
        .and_then(|b| {
            let id = trailer(&b)?;
            decode_listing(&b, &ws.root, key).map(|files| Listing {
                files,
                id: Some(id),
            })
        })
    {
        return found;
    }
    new_listing(ws)
}

/// Walks the workspace and stores what it found as the listing (when
/// nothing changed during the walk), whatever listing was stored before.
pub fn new_listing(ws: &Workspace) -> Listing {
    let key = key(&ws.config);
    if !stored(&ws.root) {
        // Every record will be read and linted.
        no_huge_pages();
    }
    // `.memlint/` first, so that creating it does not change the root
    // directory after it was recorded.
    let dir = make_dir(&ws.root).ok();
    let clock = dir.as_deref().and_then(|d| FsClock::read(d, &ws.root));
    let scanned_at = now_ns();
    let walked = ws.walk();
    let watched = watched(ws, &walked);
    let files = walked.files;
    if let Some(paths) = watched.filter(|_| dir.is_some()) {
        let seen: Vec<Seen> = paths.par_iter().map(|p| seen(Path::new(p))).collect();
        // A change during the walk shows in the mtime (the ctime also
        // moves when a test or tool sets an old mtime, which is harmless:
        // any later change still differs from what is recorded).
        let racy = paths.iter().zip(&seen).any(|(p, s)| {
            s.as_ref().is_some_and(|s| {
                s.mtime >= scanned_at.saturating_sub(RACY_NS)
                    && clock.as_ref().is_none_or(|c| !c.settled(Path::new(p), s))
            })
        });
        if !racy {
            let bytes = encode_listing(&ws.root, key, &paths, &seen, &files);
            // A cache: when it cannot be written, the next run walks again.
            let saved = make_dir(&ws.root)
                .and_then(|dir| crate::io::fs::write_cache(&dir.join(LISTING), &bytes));
            if saved.is_ok() {
                return Listing {
                    files,
                    id: trailer(&bytes),
                };
            }
        }
    }
    Listing { files, id: None }
}

/// The file system's clock at the start of a walk, read from the
/// timestamp it gives `.memlint/` when touched: a directory modified before
/// that instant shows any later change as a later mtime, so it is trusted
/// at once instead of [`RACY_NS`] later. That spares a second walk after
/// the run that created `.memlint/` (which modifies the root) and after a
/// record was written just before a run, as an agent's hook does.
#[cfg_attr(not(unix), allow(dead_code))]
struct FsClock {
    /// The touched directory's mtime.
    now: i64,
    /// Its device: directories on other file systems keep the
    /// [`RACY_NS`] margin.
    #[cfg(unix)]
    dev: u64,
}

impl FsClock {
    /// Touches `dir` until its mtime passes `root`'s (which creating `dir`
    /// just modified), for at most a few milliseconds; `None` when the
    /// clock cannot be read this way (not Unix, no write access, or
    /// timestamps coarser than that).
    fn read(dir: &Path, root: &Path) -> Option<FsClock> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            use std::os::unix::fs::MetadataExt;
            let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
            let root_mtime = Stat::of(&std::fs::symlink_metadata(root).ok()?).mtime;
            // Waiting only makes sense for a root modified a moment ago.
            let now = now_ns();
            let recent = (now - 100_000_000..=now).contains(&root_mtime);
            for _ in 0..if recent { 20 } else { 1 } {
                // SAFETY: a valid C string; null times mean "now".
                if unsafe { libc::utimensat(libc::AT_FDCWD, c.as_ptr(), std::ptr::null(), 0) } != 0
                {
                    return None;
                }
                // Followed, as `utimensat` follows it.
                let meta = std::fs::metadata(dir).ok()?;
                let now = Stat::of(&meta).mtime;
                if now > root_mtime {
                    return Some(FsClock {
                        now,
                        dev: meta.dev(),
                    });
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            None
        }
        #[cfg(not(unix))]
        {
            let _ = (dir, root);
            None
        }
    }

    /// Whether `path`, seen with stat data `seen`, was last modified before
    /// this clock was read, on the same file system.
    fn settled(&self, path: &Path, seen: &Stat) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            seen.mtime < self.now
                && std::fs::symlink_metadata(path).is_ok_and(|m| m.dev() == self.dev)
        }
        #[cfg(not(unix))]
        {
            let _ = (path, seen);
            false
        }
    }
}

/// The checksum that ends a cache file.
fn trailer(bytes: &[u8]) -> Option<u64> {
    let at = bytes.len().checked_sub(8)?;
    Some(u64::from_le_bytes(bytes[at..].try_into().ok()?))
}

/// The identity ([`Listing::id`]) of the stored listing when it still
/// describes the workspace, without reading its file list: a caller that
/// recorded the identity along with what it built from the files knows
/// then that the files are the same. Only the watched paths at its start
/// and the checksum that ends it are read: the watched paths decide
/// whether the files could have changed, and the checksum names the
/// listing (a damaged file list is caught where it is decoded).
pub fn listing_id(ws: &Workspace) -> Option<u64> {
    use std::io::{Read, Seek, SeekFrom};
    /// How much of the listing's start is read for the watched paths.
    const HEAD_MAX: u64 = 1 << 20;
    let mut file = open_regular(&ws.root.join(DIR).join(LISTING)).ok()?;
    let body_len = file.metadata().ok()?.len().checked_sub(8)?;
    let mut head = vec![0u8; usize::try_from(body_len.min(HEAD_MAX)).ok()?];
    file.read_exact(&mut head).ok()?;
    let mut sum = [0u8; 8];
    file.seek(SeekFrom::Start(body_len)).ok()?;
    file.read_exact(&mut sum).ok()?;
    let mut r = Reader { buf: &head, pos: 0 };
    if r.bytes(LISTING_MAGIC.len())? != LISTING_MAGIC
        || u32::from_le_bytes(r.bytes(4)?.try_into().ok()?) != FORMAT
    {
        return None;
    }
    watched_unchanged(&mut r, &ws.root, key(&ws.config)).then_some(u64::from_le_bytes(sum))
}

fn encode_listing(
    root: &Path,
    key: u64,
    paths: &[String],
    seen: &[Seen],
    files: &[String],
) -> Vec<u8> {
    let mut w = Writer {
        buf: Vec::with_capacity(64 + files.len() * 48),
    };
    w.buf.extend_from_slice(LISTING_MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.buf.extend_from_slice(&key.to_le_bytes());
    // The watched paths are absolute: a copy of the workspace (with its
    // `.memlint/`) must not watch the original's directories.
    w.str(&root.to_string_lossy());
    w.usize(paths.len());
    for (p, s) in paths.iter().zip(seen) {
        w.str(p);
        w.opt_stat(s.as_ref());
    }
    w.usize(files.len());
    for f in files {
        w.str(f);
    }
    w.finish()
}

/// The stored listing, when it is intact, for `key`, and every watched path
/// still looks as it did.
fn decode_listing(bytes: &[u8], root: &Path, key: u64) -> Option<Vec<String>> {
    let mut r = checked(bytes, LISTING_MAGIC)?;
    if !watched_unchanged(&mut r, root, key) {
        return None;
    }
    let n = r.count()?;
    let mut files = Vec::with_capacity(n);
    for _ in 0..n {
        files.push(r.str()?);
    }
    r.at_end().then_some(files)
}

/// Reads a listing's key and watched paths: whether the key is `key` and
/// every watched path still looks as it did.
fn watched_unchanged(r: &mut Reader, root: &Path, key: u64) -> bool {
    let read = |r: &mut Reader| -> Option<Vec<(String, Seen)>> {
        if r.fixed64()? != key || r.str_ref()? != root.to_string_lossy() {
            return None;
        }
        let n = r.count()?;
        let mut watched = Vec::with_capacity(n);
        for _ in 0..n {
            let p = r.str()?;
            let s = r.opt_stat()?;
            watched.push((p, s));
        }
        Some(watched)
    };
    read(r).is_some_and(|w| w.par_iter().all(|(p, s)| seen(Path::new(p)) == *s))
}

/// The near-duplicate slug cache's name inside [`DIR`].
pub const SLUGS: &str = "slugs";

const SLUGS_MAGIC: &[u8; 8] = b"MLSLUGS\0";

/// One kind's clusters and the key of the slug set they were computed for.
type KindClusters = (Kind, u64, Vec<Vec<String>>);

/// The key of one kind's slug set: the ratio and every slug, in order.
fn slugs_key(ratio: f64, slugs: &[&str]) -> u64 {
    let mut h = Xxh3::new();
    h.update(&ratio.to_bits().to_le_bytes());
    for s in slugs {
        h.update(s.as_bytes());
        h.update(b"\n");
    }
    h.digest()
}

/// Near-duplicate slug clusters for every kind with slugs, from the
/// workspace's file list (every file, as [`files`] gives it) alone, so that
/// they can be computed while the files are read: a record's slug is its
/// file name, whether or not it can be read. `slug/similar` compares every
/// pair of slugs of a kind that could be similar, which is the costliest
/// cross-record rule on a large workspace, so its result is kept in
/// `.memlint/slugs` keyed by the kind's slug set and the ratio, and
/// recomputed only when either changed (an edit of a record's content
/// changes neither).
pub fn slug_clusters(ws: &Workspace, files: &[String]) -> Vec<(Kind, Vec<Vec<String>>)> {
    let mut by_kind: Vec<(Kind, Vec<&str>)> = Vec::new();
    for f in files {
        let Place::Record(kind) = classify(f, &ws.config.banned_dirs) else {
            continue;
        };
        let slug = crate::model::kind::stem(f);
        if !kind.has_slug() || !crate::model::kind::is_slug(slug) {
            continue;
        }
        match by_kind.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, slugs)) => slugs.push(slug),
            None => by_kind.push((kind, vec![slug])),
        }
    }
    for (_, slugs) in &mut by_kind {
        slugs.sort_unstable();
        slugs.dedup();
    }
    let (root, ratio) = (&ws.root, ws.config.similar_slug_ratio);
    let stored = read_regular(&root.join(DIR).join(SLUGS))
        .ok()
        .and_then(|b| decode_slugs(&b))
        .unwrap_or_default();
    let mut changed = false;
    let mut out: Vec<KindClusters> = Vec::new();
    for kind in Kind::ALL.into_iter().filter(|k| k.has_slug()) {
        let slugs = by_kind
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(&[][..], |(_, s)| s.as_slice());
        let key = slugs_key(ratio, slugs);
        match stored.iter().find(|(k, h, _)| *k == kind && *h == key) {
            Some((_, _, clusters)) => out.push((kind, key, clusters.clone())),
            None => {
                changed = true;
                let clusters = crate::lint::rules::slug::similar_clusters(slugs, ratio);
                out.push((kind, key, clusters));
            }
        }
    }
    if changed {
        // A cache: when it cannot be written, the next run computes again.
        let _ = make_dir(root)
            .and_then(|dir| crate::io::fs::write_cache(&dir.join(SLUGS), &encode_slugs(&out)));
    }
    out.into_iter().map(|(k, _, c)| (k, c)).collect()
}

fn encode_slugs(kinds: &[KindClusters]) -> Vec<u8> {
    let mut w = Writer { buf: Vec::new() };
    w.buf.extend_from_slice(SLUGS_MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.usize(kinds.len());
    for (kind, key, clusters) in kinds {
        w.u8(Kind::ALL
            .iter()
            .position(|k| k == kind)
            .map_or(0, |i| i as u8));
        w.buf.extend_from_slice(&key.to_le_bytes());
        w.usize(clusters.len());
        for c in clusters {
            w.usize(c.len());
            for s in c {
                w.str(s);
            }
        }
    }
    w.finish()
}

fn decode_slugs(bytes: &[u8]) -> Option<Vec<KindClusters>> {
    let mut r = checked(bytes, SLUGS_MAGIC)?;
    let n = r.count()?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let kind = *Kind::ALL.get(usize::from(r.u8()?))?;
        let key = r.fixed64()?;
        let clusters_n = r.count()?;
        let mut clusters = Vec::with_capacity(clusters_n);
        for _ in 0..clusters_n {
            let m = r.count()?;
            let mut c = Vec::with_capacity(m);
            for _ in 0..m {
                c.push(r.str()?);
            }
            clusters.push(c);
        }
        out.push((kind, key, clusters));
    }
    r.at_end().then_some(out)
}

/// The text human output shows under a diagnostic of `rel`, as `lint_file`
/// keeps it: empty for files judged by their path or size alone, the bytes
/// decoded lossily with NUL shown as `␀` otherwise. `None` when the file
/// cannot be read.
pub fn source_text(ws: &Workspace, rel: &str) -> Option<String> {
    if matches!(
        classify(rel, &ws.config.banned_dirs),
        Place::Outside | Place::Banned(_) | Place::Unknown
    ) {
        return Some(String::new());
    }
    let path = ws.root.join(rel);
    // Only regular files are read: a FIFO would wait for a writer.
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > ws.config.max_file_bytes {
        return Some(String::new());
    }
    let bytes = read_regular(&path).ok()?;
    Some(match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => text,
        Ok(text) => text.replace('\0', "\u{2400}"),
        Err(e) => String::from_utf8_lossy(e.as_bytes()).replace('\0', "\u{2400}"),
    })
}

fn progress_bar(show: bool, len: usize) -> indicatif::ProgressBar {
    progress(show, len, "indexing")
}

/// A progress bar on standard error for `len` files, hidden unless `show`
/// is set and standard error is a terminal.
pub fn progress(show: bool, len: usize, doing: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    if !show || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    let template = format!("memlint: {doing} {{bar:30}} {{pos}}/{{len}} files, {{eta}} left");
    let style =
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

// ---------------------------------------------------------------------------
// Encoding.

pub(crate) struct Writer {
    pub(crate) buf: Vec<u8>,
}

impl Writer {
    pub(crate) fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub(crate) fn uint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    pub(crate) fn int(&mut self, v: i64) {
        self.uint(((v << 1) ^ (v >> 63)) as u64);
    }

    pub(crate) fn usize(&mut self, v: usize) {
        self.uint(v as u64);
    }

    pub(crate) fn str(&mut self, s: &str) {
        self.usize(s.len());
        self.buf.extend_from_slice(s.as_bytes());
    }

    fn opt_stat(&mut self, s: Option<&Stat>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.uint(s.size);
                self.int(s.mtime);
                self.int(s.ctime);
                self.uint(s.ino);
            }
        }
    }

    pub(crate) fn opt_str(&mut self, s: Option<&str>) {
        match s {
            None => self.u8(0),
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
        }
    }

    fn span(&mut self, span: &Range<usize>) {
        self.usize(span.start);
        self.usize(span.end);
    }

    fn located(&mut self, l: &Located) {
        self.str(&l.value);
        self.span(&l.span);
        self.usize(l.line);
        self.usize(l.column);
        self.usize(l.end_line);
        self.usize(l.end_column);
    }
}

/// The bytes of the index file for `table`.
pub fn encode(table: &Table) -> Vec<u8> {
    encode_parts(table).concat()
}

/// The bytes of the index file for `table` in consecutive parts: the
/// entries are encoded in parallel, in chunks, and never copied into one
/// buffer on their way to the file.
fn encode_parts(table: &Table) -> Vec<Vec<u8>> {
    let mut head = Writer {
        buf: Vec::with_capacity(64),
    };
    head.buf.extend_from_slice(MAGIC);
    head.buf.extend_from_slice(&FORMAT.to_le_bytes());
    head.buf.extend_from_slice(&table.key.to_le_bytes());
    head.buf.extend_from_slice(&table.scanned_at.to_le_bytes());
    head.usize(table.entries.len());
    let mut parts = vec![head.buf];
    parts.par_extend(table.entries.par_chunks(1024).map(|chunk| {
        let mut part = Writer {
            buf: Vec::with_capacity(chunk.len() * 400),
        };
        for e in chunk {
            part.entry(e);
        }
        part.buf
    }));
    let mut sum = Xxh3::new();
    for p in &parts {
        sum.update(p);
    }
    parts.push(sum.digest().to_le_bytes().to_vec());
    parts
}

/// The bytes of a delta file.
fn encode_delta(base: u64, table: &Table, removed: &[String], entries: &[&Entry]) -> Vec<u8> {
    let mut w = Writer {
        buf: Vec::with_capacity(64 + entries.len() * 320),
    };
    w.buf.extend_from_slice(DELTA_MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.buf.extend_from_slice(&base.to_le_bytes());
    w.buf.extend_from_slice(&table.key.to_le_bytes());
    w.buf.extend_from_slice(&table.scanned_at.to_le_bytes());
    w.usize(removed.len());
    for p in removed {
        w.str(p);
    }
    w.usize(entries.len());
    for e in entries {
        w.entry(e);
    }
    w.finish()
}

/// Writes the delta file atomically.
fn save_delta(
    root: &Path,
    base: u64,
    table: &Table,
    removed: &[String],
    entries: &[&Entry],
) -> std::io::Result<()> {
    let dir = make_dir(root)?;
    crate::io::fs::write_cache(
        &dir.join(DELTA),
        &encode_delta(base, table, removed, entries),
    )
}

impl Writer {
    /// One entry: first the fields a [`Glance`] reads (path, fingerprint,
    /// and what `context` shows), then the rest behind its length in four
    /// bytes, so that a glance skips it in one step.
    fn entry(&mut self, e: &Entry) {
        let w = self;
        let r = &e.report;
        let info = &r.info;
        w.str(&r.path);
        w.opt_stat(e.stat.as_ref());
        match e.hash {
            None => w.u8(0),
            Some(h) => {
                w.u8(1);
                w.buf.extend_from_slice(&h.to_le_bytes());
            }
        }
        match &e.blob {
            None => w.u8(0),
            Some(id) => {
                let id = id.as_slice();
                w.u8(id.len() as u8);
                w.buf.extend_from_slice(id);
            }
        }
        w.u8(info
            .kind
            .and_then(|k| Kind::ALL.iter().position(|x| *x == k))
            .map_or(0, |i| i as u8 + 1));
        w.u8(u8::from(info.parsed));
        w.opt_str(info.status.as_deref());
        w.opt_str(info.date.as_deref());
        w.u8(match info.model_invocation {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        });
        w.opt_str(info.description.as_deref());

        let at = w.buf.len();
        w.buf.extend_from_slice(&[0; 4]);
        w.opt_str(info.title.as_deref());
        match &info.replaced_by {
            None => w.u8(0),
            Some(l) => {
                w.u8(1);
                w.located(l);
            }
        }
        w.usize(info.sources.len());
        for s in &info.sources {
            w.located(s);
        }
        w.usize(info.tags.len());
        for t in &info.tags {
            w.str(t);
        }
        w.usize(r.diagnostics.len());
        for d in &r.diagnostics {
            w.str(d.rule.as_str());
            w.u8(match d.severity {
                Severity::Warning => 0,
                Severity::Error => 1,
            });
            w.opt_str((d.path != r.path).then_some(d.path.as_str()));
            w.usize(d.line);
            w.usize(d.column);
            w.usize(d.end_line);
            w.usize(d.end_column);
            w.span(&d.span);
            w.str(&d.message);
            w.u8(u8::from(d.fixable));
            w.usize(d.omitted);
        }
        // An entry's tail beyond 4 GiB cannot be stored: the file would be
        // refused on reading as damaged and rebuilt.
        let len = u32::try_from(w.buf.len() - at - 4).unwrap_or(u32::MAX);
        w.buf[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }

    /// Appends the checksum of everything written.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        let sum = xxh3_64(&self.buf);
        self.buf.extend_from_slice(&sum.to_le_bytes());
        self.buf
    }
}

pub(crate) struct Reader<'a> {
    pub(crate) buf: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let out = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(out)
    }

    pub(crate) fn u8(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    pub(crate) fn flag(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    pub(crate) fn fixed64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }

    pub(crate) fn uint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    pub(crate) fn int(&mut self) -> Option<i64> {
        let v = self.uint()?;
        Some(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    pub(crate) fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.uint()?).ok()
    }

    pub(crate) fn str(&mut self) -> Option<String> {
        self.str_ref().map(str::to_string)
    }

    /// A string borrowed from the buffer.
    pub(crate) fn str_ref(&mut self) -> Option<&'a str> {
        let n = self.usize()?;
        simdutf8::basic::from_utf8(self.bytes(n)?).ok()
    }

    fn opt_stat(&mut self) -> Option<Option<Stat>> {
        if !self.flag()? {
            return Some(None);
        }
        Some(Some(Stat {
            size: self.uint()?,
            mtime: self.int()?,
            ctime: self.int()?,
            ino: self.uint()?,
        }))
    }

    fn opt_str_ref(&mut self) -> Option<Option<&'a str>> {
        if self.flag()? {
            self.str_ref().map(Some)
        } else {
            Some(None)
        }
    }

    pub(crate) fn opt_str(&mut self) -> Option<Option<String>> {
        if self.flag()? {
            self.str().map(Some)
        } else {
            Some(None)
        }
    }

    fn span(&mut self) -> Option<Range<usize>> {
        Some(self.usize()?..self.usize()?)
    }

    fn located(&mut self) -> Option<Located> {
        Some(Located {
            value: self.str()?,
            span: self.span()?,
            line: self.usize()?,
            column: self.usize()?,
            end_line: self.usize()?,
            end_column: self.usize()?,
        })
    }

    /// A count of items each at least one byte long: never more than what
    /// is left, so garbage cannot make us allocate without bound.
    pub(crate) fn count(&mut self) -> Option<usize> {
        let n = self.usize()?;
        (n <= self.buf.len() - self.pos).then_some(n)
    }

    /// The fields every entry starts with.
    fn head(&mut self) -> Option<Head<'a>> {
        let path = self.str_ref()?;
        let stat = self.opt_stat()?;
        let hash = if self.flag()? {
            Some(self.fixed64()?)
        } else {
            None
        };
        let blob = match self.u8()? {
            0 => None,
            n => Some(gix::ObjectId::try_from(self.bytes(usize::from(n))?).ok()?),
        };
        let kind = match self.u8()? {
            0 => None,
            k => Some(*Kind::ALL.get(usize::from(k) - 1)?),
        };
        let parsed = self.flag()?;
        let status = self.opt_str_ref()?;
        let date = self.opt_str_ref()?;
        let model_invocation = match self.u8()? {
            0 => None,
            1 => Some(false),
            2 => Some(true),
            _ => return None,
        };
        let description = self.opt_str_ref()?;
        let tail = u32::from_le_bytes(self.bytes(4)?.try_into().ok()?) as usize;
        Some(Head {
            glance: Glance {
                path,
                stat,
                hashed: hash.is_some(),
                parsed,
                kind,
                status,
                date,
                model_invocation,
                description,
            },
            hash,
            blob,
            parsed,
            tail,
        })
    }

    /// An entry's head, its tail skipped.
    fn glance(&mut self) -> Option<Glance<'a>> {
        let head = self.head()?;
        self.bytes(head.tail)?;
        Some(head.glance)
    }

    fn entry(&mut self) -> Option<Entry> {
        let Head {
            glance: g,
            hash,
            blob,
            parsed,
            tail,
        } = self.head()?;
        let end = self.pos.checked_add(tail)?;
        let path = g.path.to_string();
        let title = self.opt_str()?;
        let replaced_by = if self.flag()? {
            Some(self.located()?)
        } else {
            None
        };
        let n = self.count()?;
        let mut sources = Vec::with_capacity(n);
        for _ in 0..n {
            sources.push(self.located()?);
        }
        let n = self.count()?;
        let mut tags = Vec::with_capacity(n.min(64));
        for _ in 0..n {
            tags.push(self.str()?);
        }
        let n = self.count()?;
        let mut diagnostics = Vec::with_capacity(n);
        for _ in 0..n {
            let rule = Rule::from_name(&self.str()?)?;
            let severity = match self.u8()? {
                0 => Severity::Warning,
                1 => Severity::Error,
                _ => return None,
            };
            let other_path = self.opt_str()?;
            diagnostics.push(Diagnostic {
                rule,
                severity,
                path: other_path.unwrap_or_else(|| path.clone()),
                line: self.usize()?,
                column: self.usize()?,
                end_line: self.usize()?,
                end_column: self.usize()?,
                span: self.span()?,
                message: self.str()?,
                fixable: self.flag()?,
                omitted: self.usize()?,
            });
        }
        if self.pos != end {
            return None;
        }
        Some(Entry {
            stat: g.stat,
            hash,
            blob,
            report: Box::new(FileReport {
                path,
                diagnostics,
                source: None,
                info: RecordInfo {
                    kind: g.kind,
                    title,
                    status: g.status.map(str::to_string),
                    date: g.date.map(str::to_string),
                    replaced_by,
                    sources,
                    description: g.description.map(str::to_string),
                    model_invocation: g.model_invocation,
                    tags,
                    parsed,
                },
            }),
        })
    }
}

/// The body of `bytes` when its trailing checksum is right and it starts
/// with `magic` and this format's version.
fn checked<'a>(bytes: &'a [u8], magic: &[u8; 8]) -> Option<Reader<'a>> {
    let body_len = bytes.len().checked_sub(8)?;
    let (body, sum) = bytes.split_at(body_len);
    if u64::from_le_bytes(sum.try_into().ok()?) != xxh3_64(body) {
        return None;
    }
    let mut r = Reader { buf: body, pos: 0 };
    if r.bytes(magic.len())? != magic {
        return None;
    }
    let format = u32::from_le_bytes(r.bytes(4)?.try_into().ok()?);
    (format == FORMAT).then_some(r)
}

impl<'a> Reader<'a> {
    /// `n` items in strictly increasing path order.
    fn sorted<T>(
        &mut self,
        item: fn(&mut Reader<'a>) -> Option<T>,
        path: fn(&T) -> &str,
    ) -> Option<Vec<T>> {
        let n = self.count()?;
        let mut items: Vec<T> = Vec::with_capacity(n);
        for _ in 0..n {
            let e = item(self)?;
            if items.last().is_some_and(|prev| path(prev) >= path(&e)) {
                return None;
            }
            items.push(e);
        }
        Some(items)
    }

    fn at_end(&self) -> bool {
        self.pos == self.buf.len()
    }
}

fn entry_path(e: &Entry) -> &str {
    &e.report.path
}

fn glance_path<'g>(g: &'g Glance<'_>) -> &'g str {
    g.path
}

/// A main file decoded: its key, scan time and items.
struct Main<T> {
    key: u64,
    scanned_at: i64,
    items: Vec<T>,
}

fn decode_main<'a, T>(
    bytes: &'a [u8],
    item: fn(&mut Reader<'a>) -> Option<T>,
    path: fn(&T) -> &str,
) -> Option<Main<T>> {
    let mut r = checked(bytes, MAGIC)?;
    let key = r.fixed64()?;
    let scanned_at = i64::from_le_bytes(r.bytes(8)?.try_into().ok()?);
    let items = r.sorted(item, path)?;
    r.at_end().then_some(Main {
        key,
        scanned_at,
        items,
    })
}

/// The table held in `bytes`, or `None` when they are not an intact index of
/// this format (entries out of order count as damage too).
pub fn decode(bytes: &[u8]) -> Option<Table> {
    let m = decode_main(bytes, Reader::entry, entry_path)?;
    Some(Table {
        key: m.key,
        scanned_at: m.scanned_at,
        entries: m.items,
    })
}

fn decode_delta<'a, T>(
    bytes: &'a [u8],
    item: fn(&mut Reader<'a>) -> Option<T>,
    path: fn(&T) -> &str,
) -> Option<Delta<'a, T>> {
    let mut r = checked(bytes, DELTA_MAGIC)?;
    let base = r.fixed64()?;
    let key = r.fixed64()?;
    let scanned_at = i64::from_le_bytes(r.bytes(8)?.try_into().ok()?);
    let n = r.count()?;
    let mut removed: Vec<&str> = Vec::with_capacity(n);
    for _ in 0..n {
        let p = r.str_ref()?;
        if removed.last().is_some_and(|prev| *prev >= p) {
            return None;
        }
        removed.push(p);
    }
    let entries = r.sorted(item, path)?;
    r.at_end().then_some(Delta {
        base,
        key,
        scanned_at,
        removed,
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_whole_at_every_size_and_refused_past_the_limit() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sizes = [0usize, 1, 4095, 4096, 4097, 65_536, 300_001];
        for n in sizes {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
            std::fs::create_dir_all(dir.path().join("d")).expect("mkdir");
            std::fs::write(dir.path().join(format!("d/f{n}")), &bytes).expect("write");
        }
        let mut dirs = Dirs::new(dir.path());
        for n in sizes {
            let rel = format!("d/f{n}");
            match dirs.read(&rel, 1 << 20).expect("read") {
                Opened::Bytes(stat, got) => {
                    assert_eq!(stat.size, n as u64);
                    assert_eq!(got.len(), n, "{rel}");
                    assert!(got
                        .iter()
                        .enumerate()
                        .all(|(i, b)| *b == (i * 7 % 251) as u8));
                }
                Opened::TooLarge(_) => panic!("{rel} refused"),
            }
        }
        assert!(matches!(
            dirs.read("d/f4097", 4096).expect("read"),
            Opened::TooLarge(s) if s.size == 4097
        ));
        assert!(dirs.read("d/missing", 4096).is_err());
    }

    fn sample() -> Table {
        let loc = |v: &str, line| Located {
            value: v.to_string(),
            span: 10..20,
            line,
            column: 3,
            end_line: line,
            end_column: 13,
        };
        let report = FileReport {
            path: "memory/decisions/use-gix.md".into(),
            diagnostics: vec![Diagnostic {
                rule: Rule::StatusChain,
                severity: Severity::Warning,
                path: "memory/decisions/use-gix.md".into(),
                line: 4,
                column: 14,
                end_line: 4,
                end_column: 20,
                message: "replaced_by … 日本".into(),
                fixable: true,
                span: 40..46,
                omitted: 3,
            }],
            source: Some("not stored".into()),
            info: RecordInfo {
                kind: Some(Kind::Decision),
                title: Some("Use gix".into()),
                status: Some("replaced".into()),
                date: None,
                replaced_by: Some(loc("use-gix-v2", 5)),
                sources: vec![loc("commit:abc1234", 7), loc("file:x.md", 8)],
                description: Some("説明".into()),
                model_invocation: Some(true),
                tags: vec!["git".into(), "日本".into()],
                parsed: true,
            },
        };
        Table {
            key: 42,
            scanned_at: -5,
            entries: vec![
                Entry {
                    stat: None,
                    hash: None,
                    blob: None,
                    report: Box::new(FileReport {
                        path: "CONTEXT.md".into(),
                        ..FileReport::default()
                    }),
                },
                Entry {
                    stat: Some(Stat {
                        size: 300,
                        mtime: 1_700_000_000_123_456_789,
                        ctime: -1,
                        ino: 77,
                    }),
                    hash: Some(u64::MAX),
                    blob: Some(
                        gix::ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567")
                            .expect("hex"),
                    ),
                    report: Box::new(report),
                },
            ],
        }
    }

    #[test]
    fn round_trip() {
        let table = sample();
        let back = decode(&encode(&table)).expect("decodes");
        assert_eq!(back.key, 42);
        assert_eq!(back.scanned_at, -5);
        assert_eq!(back.entries.len(), 2);
        let (a, b) = (&table.entries[1], &back.entries[1]);
        assert_eq!(a.stat, b.stat);
        assert_eq!(a.hash, b.hash);
        assert_eq!(a.blob, b.blob);
        assert_eq!(back.entries[0].blob, None);
        assert_eq!(a.report.info, b.report.info);
        assert_eq!(a.report.diagnostics, b.report.diagnostics);
        assert_eq!(b.report.source, None);
    }

    #[test]
    fn damage_is_detected() {
        let bytes = encode(&sample());
        for cut in [0, 1, 8, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        for i in [0, 9, 30, bytes.len() / 2, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[i] ^= 0x40;
            assert!(decode(&bad).is_none(), "flipped byte {i}");
        }
        assert!(decode(b"garbage garbage garbage").is_none());
    }

    #[test]
    fn other_format_is_rejected() {
        let mut bytes = encode(&sample());
        bytes[8] = 0;
        let body = bytes.len() - 8;
        let sum = xxh3_64(&bytes[..body]).to_le_bytes();
        bytes[body..].copy_from_slice(&sum);
        assert!(decode(&bytes).is_none());
    }
}
