//! Stat data and reads relative to directory file descriptors: [`Stat`]
//! (what a cache entry is valid for), `Dirs` (`openat`/`fstatat` under
//! the workspace root, without updating access times), the page-cache probe
//! and the pool of reader threads for a cold cache.

use crate::model::content::Content;
use rayon::prelude::*;
use std::path::Path;

/// Files modified this close (in nanoseconds) before the scan that recorded
/// them have their content verified on the next run.
pub const RACY_NS: i64 = 2_000_000_000;

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
    pub(crate) fn of_raw(st: &libc::stat) -> Stat {
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
    pub(crate) fn of_file(file: &std::fs::File) -> std::io::Result<(Stat, bool)> {
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
    pub(crate) fn many(root: &Path, rels: &[&str]) -> Vec<Option<Stat>> {
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
    /// more than `max` bytes: its stat data and what was read. The stat
    /// data come first, so a write that races the read shows as changed
    /// stat data on the next run.
    pub(crate) fn read(&mut self, rel: &str, max: u64) -> std::io::Result<(Stat, Content)> {
        use std::io::Read;
        let mut file = self.open(rel)?;
        let (stat, regular) = Stat::of_file(&file)?;
        if !regular {
            let kind = file
                .metadata()
                .map_or("not a regular file", |m| crate::io::regular::kind_of(&m));
            return Err(crate::io::regular::not_regular(kind));
        }
        if stat.size > max {
            return Ok((stat, Content::TooLarge(stat.size)));
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
                let size = len as u64;
                return Ok((Stat { size, ..stat }, Content::TooLarge(size)));
            }
            if len == buf.len() {
                // It grew since the stat: read on to the end.
                buf.resize(buf.len() * 2, 0);
            }
        }
        buf.truncate(len);
        Ok((stat, Content::Bytes(buf)))
    }
}

pub(crate) fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// Fewest files to read for [`cold_reader`] to look at the page cache.
const COLD_MIN: usize = 256;

/// Files [`cold_reader`] asks the page cache about.
const COLD_SAMPLE: usize = 32;

/// Threads that read when the files are not in the page cache.
pub(crate) const IO_THREADS: usize = 16;

/// A pool of [`IO_THREADS`] threads to read and lint in, when many files
/// are to be read and at least a quarter of a sample of them is not in the
/// page cache. Reading from the disk, two threads keep two requests in
/// flight and wait on each in turn; sixteen keep the device busy (on the
/// 100k-record workspace with the page cache dropped, `rg` takes 13.6 s
/// on two threads and 2.7 s on sixteen). The cache empties after a reboot,
/// under memory pressure, or, on virtual machines that hand idle memory
/// back to the host, after a minute without reads. A warm cache keeps the
/// two threads, and `RAYON_NUM_THREADS`, when set, always decides.
///
/// `to_read` are the files (relative to `root`) that will be read, `count`
/// of them.
pub(crate) fn cold_reader<'a>(
    root: &Path,
    to_read: impl Iterator<Item = &'a str>,
    count: usize,
) -> Option<rayon::ThreadPool> {
    // Rayon ignores a value that is no positive number, and so does this.
    let threads_set = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .is_some_and(|n| n > 0);
    if count < COLD_MIN || threads_set {
        return None;
    }
    let step = (count / COLD_SAMPLE).max(1);
    let mut dirs = Dirs::new(root);
    let (mut asked, mut cold) = (0, 0);
    for rel in to_read.step_by(step).take(COLD_SAMPLE) {
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
