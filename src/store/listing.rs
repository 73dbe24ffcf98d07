//! `.memlint/listing`: every file of the workspace as the walk listed them,
//! with the stat data of every directory and ignore file that could change
//! the list, so that an unchanged workspace is not walked again.

use crate::io::cache::FORMAT;
use crate::io::cache::{key, DIR};
use crate::io::fs::open_regular;
use crate::io::stat::{now_ns, Stat, RACY_NS};
use crate::model::workspace::{Problem, Workspace};
use crate::store::codec::{checked, trailer, Reader, Writer};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// The ignore files the walk reads in every directory (besides
/// `info/exclude` of the git directory).
pub(crate) const IGNORE_FILES: [&str; 3] = crate::io::ignores::NAMES;

/// The listing cache's name inside [`DIR`].
pub(crate) const LISTING: &str = "listing";

const LISTING_MAGIC: &[u8; 8] = b"MLLIST\0\0";

/// What a watched path looked like: absent, or its stat data.
type Seen = Option<Stat>;

fn seen(path: &Path) -> Seen {
    // An ignore file may be a link: what the walk reads is its target.
    let meta = crate::io::files::symlink_metadata(path).ok()?;
    match meta.file_type().is_symlink() {
        true => crate::io::files::metadata(path).ok().or(Some(meta)),
        false => Some(meta),
    }
    .map(|m| Stat::of(&m))
}

/// The directories and ignore files whose change could change what
/// `io::walk::walk` lists, given what a walk found: the root (with its
/// `.gitignore`, `.ignore`, `.memlintignore` and `.git/info/exclude`; no
/// ignore file above the root applies), the parents of every walked root up to the root
/// (so that a root created later is seen), and every directory the walk
/// entered, with its ignore files. A directory the walk left out as ignored
/// is not watched: nothing under it is listed whatever it holds, until an
/// ignore file that is watched changes. `None` when the walk was not
/// complete (a symbolic link, an unreadable entry).
fn watched(ws: &Workspace, walked: &crate::io::walk::Walked) -> Option<Vec<String>> {
    if !walked.complete {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    let ignore_files = |d: &Path, out: &mut Vec<String>| {
        for name in IGNORE_FILES {
            out.push(d.join(name).to_string_lossy().into_owned());
        }
        let exclude = crate::io::ignores::git_common_dir(d).join("info/exclude");
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

/// Every file of the workspace, as [`io::walk::walk`] lists them, and what
/// listing them met. The listing is kept in `.memlint/listing` with the
/// stat data of every directory the walk could have seen and of every
/// ignore file that could apply; while none of them changed (a file added,
/// removed or renamed changes its directory), the stored listing is used
/// instead of walking again. A directory modified within [`RACY_NS`] before the walk is
/// trusted only when the file system's clock shows it older than the walk
/// (`FsClock`).
#[derive(Debug, Default)]
pub(crate) struct Listing {
    /// Root-relative, sorted.
    pub files: Vec<String>,
    /// The stored listing's checksum, `None` when the files were not
    /// stored (a walk that saw a change, a read-only `.memlint/`).
    /// Something built from `files` can keep it, and [`listing_id`] then
    /// tells whether the files are still the same without listing them.
    pub id: Option<u64>,
    /// What listing the files met that the user must hear about: what the
    /// walk left out, and a `.memlint` that cannot hold the caches (every
    /// cache the command would keep is then not kept), in the order met.
    /// The front end reports them (see `model::workspace::reported`).
    pub problems: Vec<Problem>,
}

/// The workspace's files (see [`Listing`]), from the stored listing while
/// it holds.
pub(crate) fn listing(ws: &Workspace) -> Listing {
    let key = key(&ws.config);
    // Mapped: the listing of 100k files is 5 MB, of which only the names
    // are kept.
    if let Some(found) = crate::io::map::map_regular(&ws.root.join(DIR).join(LISTING))
        .ok()
        .and_then(|b| {
            let id = trailer(&b)?;
            decode_listing(&b, &ws.root, key).map(|files| Listing {
                files,
                id: Some(id),
                problems: crate::io::cache::refused(&ws.root).into_iter().collect(),
            })
        })
    {
        return found;
    }
    if let Some(found) = refreshed(ws, key) {
        return found;
    }
    new_listing(ws)
}

/// The stored listing brought up to date without walking, when what
/// changed since it was stored is only directories that the walk entered
/// (a file added, removed or renamed in them: `new` writing a record
/// changes its kind's directory): each is read again, alone, and the
/// listing stored again with its new stat data. `None` when anything else
/// changed (an ignore file, the root, a directory added or removed), or
/// a changed directory holds what the walk would not store (see
/// `io::walk::dir_entries`): the caller walks.
fn refreshed(ws: &Workspace, key: u64) -> Option<Listing> {
    let bytes = crate::io::map::map_regular(&ws.root.join(DIR).join(LISTING)).ok()?;
    let mut r = checked(&bytes, LISTING_MAGIC)?;
    let watched = stored_watched(&mut r, &ws.root, key)?;
    let changed: Vec<usize> = watched
        .par_iter()
        .enumerate()
        .filter(|(_, (p, s))| seen(Path::new(p)) != *s)
        .map(|(i, _)| i)
        .collect();
    let root = ws.root.to_string_lossy();
    let ignore_file = |p: &str| {
        IGNORE_FILES.iter().any(|n| p.ends_with(&format!("/{n}"))) || p.ends_with("info/exclude")
    };
    if changed.is_empty()
        || changed.len() > 8
        || changed.iter().any(|&i| {
            let (p, s) = &watched[i];
            s.is_none()
                || *p == root
                || ignore_file(p)
                || !crate::io::files::symlink_metadata(p).is_ok_and(|m| m.is_dir())
        })
    {
        return None;
    }
    // The clock first, then the directories' stat data, then their
    // entries: a change after the clock shows as a later mtime.
    let dir = crate::io::cache::make_dir(&ws.root).ok()?;
    let clock = FsClock::read(&dir, &ws.root);
    let scanned_at = now_ns();
    let mut now: Vec<Seen> = watched.iter().map(|(_, s)| *s).collect();
    let n = r.count()?;
    let mut files: Vec<String> = Vec::with_capacity(n + 1);
    for _ in 0..n {
        files.push(r.str()?);
    }
    if !r.at_end() {
        return None;
    }
    let dirs: crate::model::hashing::Set<&str> = watched.iter().map(|(p, _)| p.as_str()).collect();
    for &i in &changed {
        let p = &watched[i].0;
        now[i] = seen(Path::new(p));
        let rel = Path::new(p).strip_prefix(&ws.root).ok()?.to_str()?;
        let children: crate::model::hashing::Set<&str> = files
            .iter()
            .filter(|f| f.rsplit_once('/').is_some_and(|(parent, _)| parent == rel))
            .map(String::as_str)
            .collect();
        let known = |f: &str| children.contains(f);
        let (found, subdirs) = crate::io::walk::dir_entries(ws, rel, &known)?;
        drop(children);
        // A directory the listing never entered: the walk's to find.
        if subdirs
            .iter()
            .any(|d| d.to_str().is_none_or(|d| !dirs.contains(d)))
        {
            return None;
        }
        files.retain(|f| f.rsplit_once('/').is_none_or(|(parent, _)| parent != rel));
        files = merged(files, found);
    }
    let racy = changed.iter().any(|&i| {
        now[i].as_ref().is_none_or(|s| {
            s.mtime >= scanned_at.saturating_sub(RACY_NS)
                && clock
                    .as_ref()
                    .is_none_or(|c| !c.settled(Path::new(&watched[i].0), s))
        })
    });
    let problems: Vec<Problem> = crate::io::cache::refused(&ws.root).into_iter().collect();
    let paths: Vec<String> = watched.into_iter().map(|(p, _)| p).collect();
    let id = match racy {
        true => None,
        false => {
            let bytes = encode_listing(&ws.root, key, &paths, &now, &files);
            crate::io::fs::write_cache(&dir.join(LISTING), &bytes)
                .ok()
                .and_then(|_| trailer(&bytes))
        }
    };
    Some(Listing {
        files,
        id,
        problems,
    })
}

/// Walks the workspace and stores what it found as the listing (when
/// nothing changed during the walk), whatever listing was stored before.
pub(crate) fn new_listing(ws: &Workspace) -> Listing {
    let key = key(&ws.config);
    // `.memlint/` first, so that creating it does not change the root
    // directory after it was recorded.
    let dir = crate::io::cache::make_dir(&ws.root);
    let mut problems: Vec<Problem> = dir
        .as_ref()
        .err()
        .and_then(crate::io::cache::refusal)
        .into_iter()
        .collect();
    let dir = dir.ok();
    let clock = dir.as_deref().and_then(|d| FsClock::read(d, &ws.root));
    let scanned_at = now_ns();
    let walked = crate::io::walk::walk(ws);
    let watched = watched(ws, &walked);
    problems.extend(walked.problems);
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
            let saved = crate::io::cache::make_dir(&ws.root)
                .and_then(|dir| crate::io::fs::write_cache(&dir.join(LISTING), &bytes));
            if saved.is_ok() {
                return Listing {
                    files,
                    id: trailer(&bytes),
                    problems,
                };
            }
        }
    }
    Listing {
        files,
        id: None,
        problems,
    }
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
            let root_mtime = Stat::of(&crate::io::files::symlink_metadata(root).ok()?).mtime;
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
                let meta = crate::io::files::metadata(dir).ok()?;
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
                && crate::io::files::symlink_metadata(path).is_ok_and(|m| m.dev() == self.dev)
        }
        #[cfg(not(unix))]
        {
            let _ = (path, seen);
            false
        }
    }
}

/// The identity ([`Listing::id`]) of the stored listing when it still
/// describes the workspace, without reading its file list: a caller that
/// recorded the identity along with what it built from the files knows
/// then that the files are the same. Only the watched paths at its start
/// and the checksum that ends it are read: the watched paths decide
/// whether the files could have changed, and the checksum names the
/// listing (a damaged file list is caught where it is decoded).
pub(crate) fn listing_id(ws: &Workspace) -> Option<u64> {
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
    stored_watched(r, root, key)
        .is_some_and(|w| w.par_iter().all(|(p, s)| seen(Path::new(p)) == *s))
}

/// The sorted lists `a` and `b` as one sorted list without repeats.
fn merged(a: Vec<String>, b: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x < y => a.next(),
            (Some(x), Some(y)) if x > y => b.next(),
            (Some(_), Some(_)) => {
                b.next();
                a.next()
            }
            (Some(_), None) => a.next(),
            (None, _) => b.next(),
        };
        match next {
            Some(f) => out.push(f),
            None => return out,
        }
    }
}

/// A listing's watched paths with what each looked like, when its key is
/// `key` and its root `root`.
fn stored_watched(r: &mut Reader, root: &Path, key: u64) -> Option<Vec<(String, Seen)>> {
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
}
