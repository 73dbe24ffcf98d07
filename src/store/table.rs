//! `.memlint/index` (docs/recall.md): the record table, a disposable shadow of the
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
//! the entry's stat data match the file (docs/recall.md), and git keeps that
//! entry up to date across checkouts that rewrite files unchanged. A
//! file modified less than [`crate::io::stat::RACY_NS`] before the scan that recorded it could
//! have changed again within the file system's timestamp granularity, so its
//! content is hashed and compared with the fingerprint (git's "racily clean"
//! problem).

use crate::io::cache::FORMAT;
use crate::io::fs::read_regular;
use crate::io::stat::Stat;
use crate::lint::{FileReport, RecordInfo};
use crate::model::diagnostic::Diagnostic;
use crate::model::kind::Kind;
use crate::model::rule::Rule;
use crate::model::severity::Severity;
use crate::model::workspace::Workspace;
use crate::store::codec::{checked, trailer, Reader, Writer};

use crate::io::cache::DIR;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// The index file's name inside [`DIR`].
pub(crate) const FILE: &str = "index";

/// The delta file's name inside [`DIR`]: the entries changed since the index
/// file was written, so a run that finds a few changes writes a few entries
/// instead of the whole table. It names the checksum of the index file it
/// applies to and is ignored when that file changed.
pub(crate) const DELTA: &str = "index.delta";

const DELTA_MAGIC: &[u8; 8] = b"MLDELTA\0";

const MAGIC: &[u8; 8] = b"MLINDEX\0";

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
/// without decoding the rest (see `engine::scan::with_fresh`).
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
    /// The title (for the context's memory index).
    pub title: Option<&'a str>,
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
            title: r.info.title.as_deref(),
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

/// The path of the index file of `root`.
pub(crate) fn path(root: &Path) -> PathBuf {
    root.join(DIR).join(FILE)
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
pub(crate) struct Stored {
    pub(crate) table: Table,
    /// Checksum of the main file, which a delta names as its base.
    pub(crate) base: u64,
    /// Per entry: the main file holds this path.
    pub(crate) in_main: Vec<bool>,
    /// Per entry: the entry is not the main file's (it came from the delta).
    pub(crate) dirty: Vec<bool>,
    /// Paths of the main file that the delta removes, sorted.
    pub(crate) removed: Vec<String>,
}

pub(crate) fn load_stored(root: &Path, key: Option<u64>) -> Option<Stored> {
    let (bytes, delta) = stored_bytes(root)?;
    let table = decode(&bytes)?;
    if key.is_some_and(|k| k != table.key) {
        return None;
    }
    let key = table.key;
    let base = trailer(&bytes)?;
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

/// The stored entries a command needs, as [`load_picked`] gives them.
pub(crate) struct Picked {
    /// When the scan that produced them started (ns since the epoch).
    pub scanned_at: i64,
    /// The entries of the paths picked, sorted by path.
    pub entries: Vec<Entry>,
}

/// The stored entries (delta applied) of the paths `pick` accepts among
/// the entries of `kinds` (a record's kind, `None` for other files), for
/// `key`, with their record fields and without their diagnostics (a
/// command about to write a record judges it by the other records'
/// fields): every other entry is skipped by its length without being
/// decoded (a command about one kind of record need not decode the
/// others). The index file is mapped, not read (see
/// `io::map::map_regular`). `None` when nothing intact of this format and
/// key is stored.
pub(crate) fn load_picked(
    root: &Path,
    key: u64,
    kinds: &[Option<Kind>],
    pick: &dyn Fn(&str) -> bool,
) -> Option<Picked> {
    let bytes = crate::io::map::map_regular(&path(root)).ok()?;
    let delta = read_regular(&root.join(DIR).join(DELTA), crate::io::fs::CACHE_FILE_MAX).ok();
    let mut r = checked(&bytes, MAGIC)?;
    if r.fixed64()? != key {
        return None;
    }
    let mut scanned_at = i64::from_le_bytes(r.bytes(8)?.try_into().ok()?);
    let n = r.count()?;
    let mut main: Vec<Entry> = Vec::new();
    let mut last: Option<&[u8]> = None;
    for _ in 0..n {
        let start = r.pos;
        let (path, kind) = r.skim()?;
        // Out of order is damage, as for a whole decode.
        if last.is_some_and(|prev| prev >= path) {
            return None;
        }
        last = Some(path);
        if kinds.contains(&kind) && pick(simdutf8::basic::from_utf8(path).ok()?) {
            r.pos = start;
            main.push(r.fields()?);
        }
    }
    if !r.at_end() {
        return None;
    }
    let base = trailer(&bytes)?;
    let delta = delta
        .as_deref()
        .and_then(|d| decode_delta(d, Reader::fields, entry_path))
        .filter(|d| d.base == base && d.key == key);
    let Some(delta) = delta else {
        return Some(Picked {
            scanned_at,
            entries: main,
        });
    };
    scanned_at = delta.scanned_at;
    let changed: Vec<Entry> = delta
        .entries
        .into_iter()
        .filter(|e| pick(entry_path(e)))
        .collect();
    let mut entries = Vec::with_capacity(main.len() + changed.len());
    merge(main, &delta.removed, changed, entry_path, |e, _, _| {
        entries.push(e)
    });
    Some(Picked {
        scanned_at,
        entries,
    })
}

/// Writes `table` as `root`'s whole index file atomically (dropping any
/// delta), creating `.memlint/` as needed.
pub fn save(ws: &Workspace, table: &Table) -> std::io::Result<()> {
    let dir = crate::io::cache::make_dir(&ws.root)?;
    let parts = encode_parts(table);
    let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    crate::io::fs::write_cache_parts(&dir.join(FILE), &parts)?;
    match crate::io::files::remove_file(dir.join(DELTA)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// What a delta file holds: the changes to the main file whose checksum is
/// `base`, with its entries decoded as `T` (borrowing from the bytes).
pub(crate) struct Delta<'a, T> {
    pub(crate) base: u64,
    pub(crate) key: u64,
    pub(crate) scanned_at: i64,
    /// Paths of the main file that are gone, sorted.
    pub(crate) removed: Vec<&'a str>,
    /// New or changed entries, sorted by path.
    pub(crate) entries: Vec<T>,
}

/// The main file's items with a delta's applied, both sorted by path: `out`
/// gets each item of the result in order, with whether the main file holds
/// its path and whether it came from the delta.
pub(crate) fn merge<T>(
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
pub(crate) fn stored_bytes(root: &Path) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    let main = read_regular(&path(root), crate::io::fs::CACHE_FILE_MAX).ok()?;
    let delta = read_regular(&root.join(DIR).join(DELTA), crate::io::fs::CACHE_FILE_MAX).ok();
    Some((main, delta))
}

/// Whether `root` has a stored table (whole, or a delta), intact or not.
pub(crate) fn stored(root: &Path) -> bool {
    [FILE, DELTA]
        .iter()
        .any(|f| root.join(DIR).join(f).exists())
}

/// Whether `root`'s stored index was written for `key`, by its head alone
/// (the rest may still prove damaged): when it was not, every record is
/// read and linted again.
pub(crate) fn stored_for(root: &Path, key: u64) -> bool {
    use std::io::Read;
    let mut head = [0u8; 20];
    crate::io::fs::open_regular(&path(root))
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && head[..8] == MAGIC[..]
        && head[8..12] == FORMAT.to_le_bytes()
        && head[12..20] == key.to_le_bytes()
}

/// The bytes of the index file for `table`.
#[cfg(test)] // only the unit tests call it
pub(crate) fn encode(table: &Table) -> Vec<u8> {
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
pub(crate) fn save_delta(
    ws: &Workspace,
    base: u64,
    table: &Table,
    removed: &[String],
    entries: &[&Entry],
) -> std::io::Result<()> {
    let dir = crate::io::cache::make_dir(&ws.root)?;
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
        match &info.sketch {
            None => w.u8(0),
            Some(sketch) => {
                w.u8(1);
                w.buf.extend_from_slice(&sketch.0);
            }
        }
        match &info.shingles {
            None => w.u8(0),
            Some(set) => {
                w.u8(1);
                w.usize(set.len() / 4);
                w.buf.extend_from_slice(set);
            }
        }
        w.u8(u8::from(info.may_pin));
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
}

impl<'a> Reader<'a> {
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
                title: None,
            },
            hash,
            blob,
            parsed,
            tail,
        })
    }

    /// An entry's path (its bytes, not checked to be UTF-8) and kind, the
    /// rest skipped: to find the entries of some kinds among many at the
    /// least cost.
    fn skim(&mut self) -> Option<(&'a [u8], Option<Kind>)> {
        let n = self.usize()?;
        let path = self.bytes(n)?;
        self.opt_stat()?;
        if self.flag()? {
            self.bytes(8)?;
        }
        let blob = self.u8()?;
        self.bytes(usize::from(blob))?;
        let kind = match self.u8()? {
            0 => None,
            k => Some(*Kind::ALL.get(usize::from(k) - 1)?),
        };
        self.flag()?;
        for _ in 0..2 {
            if self.flag()? {
                let n = self.usize()?;
                self.bytes(n)?;
            }
        }
        self.u8()?;
        if self.flag()? {
            let n = self.usize()?;
            self.bytes(n)?;
        }
        let tail = u32::from_le_bytes(self.bytes(4)?.try_into().ok()?) as usize;
        self.bytes(tail)?;
        Some((path, kind))
    }

    /// An entry's head, its tail skipped.
    pub(crate) fn glance(&mut self) -> Option<Glance<'a>> {
        let mut head = self.head()?;
        let end = self.pos.checked_add(head.tail)?;
        // The title opens the tail.
        head.glance.title = self.opt_str_ref()?;
        (self.pos <= end && end <= self.buf.len()).then_some(())?;
        self.pos = end;
        Some(head.glance)
    }

    fn entry(&mut self) -> Option<Entry> {
        self.entry_with(true)
    }

    /// An entry without its diagnostics: they are skipped by the tail's
    /// length (the file's checksum vouches for them).
    fn fields(&mut self) -> Option<Entry> {
        self.entry_with(false)
    }

    fn entry_with(&mut self, diagnosed: bool) -> Option<Entry> {
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
        let sketch = if self.flag()? {
            let bytes = self.bytes(crate::syntax::similar::sketch::BINS)?;
            Some(crate::syntax::similar::sketch::Sketch(
                bytes.try_into().ok()?,
            ))
        } else {
            None
        };
        let shingles = if self.flag()? {
            let n = self.count()?;
            if n > crate::syntax::similar::sketch::EXACT_UP_TO {
                return None;
            }
            // Checked by the file's checksum: as written, sorted.
            Some(Box::from(self.bytes(4 * n)?))
        } else {
            None
        };
        let may_pin = self.flag()?;
        if !diagnosed {
            (self.pos <= end && end <= self.buf.len()).then_some(())?;
            self.pos = end;
        }
        let n = if diagnosed { self.count()? } else { 0 };
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
                commits: Default::default(),
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
                    sketch,
                    shingles,
                    may_pin,
                },
            }),
        })
    }
}
pub(crate) fn entry_path(e: &Entry) -> &str {
    &e.report.path
}

pub(crate) fn glance_path<'g>(g: &'g Glance<'_>) -> &'g str {
    g.path
}

/// A main file decoded: its key, scan time and items.
pub(crate) struct Main<T> {
    pub(crate) key: u64,
    pub(crate) scanned_at: i64,
    pub(crate) items: Vec<T>,
}

pub(crate) fn decode_main<'a, T>(
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

pub(crate) fn decode_delta<'a, T>(
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
    use crate::io::stat::Dirs;
    use crate::lint::Located;
    use crate::model::content::Content;
    use xxhash_rust::xxh3::xxh3_64;

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
                (stat, Content::Bytes(got)) => {
                    assert_eq!(stat.size, n as u64);
                    assert_eq!(got.len(), n, "{rel}");
                    assert!(got
                        .iter()
                        .enumerate()
                        .all(|(i, b)| *b == (i * 7 % 251) as u8));
                }
                (_, Content::TooLarge(_)) => panic!("{rel} refused"),
            }
        }
        assert!(matches!(
            dirs.read("d/f4097", 4096).expect("read"),
            (s, Content::TooLarge(4097)) if s.size == 4097
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
                commits: Default::default(),
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
                sketch: crate::syntax::similar::sketch::Sketch::of(
                    "Use gix for every git read: blobs, trees, the index and history.",
                ),
                shingles: crate::syntax::similar::sketch::Sketch::of_parts(&[
                    "Use gix for every git read: blobs, trees, the index and history.",
                ])
                .and_then(|(_, set)| set),
                may_pin: true,
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
    fn picked_entries_are_those_of_the_kinds_asked_without_diagnostics() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join(DIR)).expect("mkdir");
        let table = sample();
        std::fs::write(path(dir.path()), encode(&table)).expect("write");
        let all = |_: &str| true;
        let decisions = load_picked(dir.path(), 42, &[Some(Kind::Decision)], &all).expect("loads");
        assert_eq!(decisions.scanned_at, -5);
        assert_eq!(decisions.entries.len(), 1);
        let (want, got) = (&table.entries[1], &decisions.entries[0]);
        assert_eq!(got.report.path, "memory/decisions/use-gix.md");
        assert_eq!(got.report.info, want.report.info);
        assert_eq!(
            (got.stat, got.hash, got.blob),
            (want.stat, want.hash, want.blob)
        );
        assert!(got.report.diagnostics.is_empty());
        let none = |_: &str| false;
        let picked = load_picked(dir.path(), 42, &[Some(Kind::Decision)], &none).expect("loads");
        assert!(picked.entries.is_empty());
        let context = load_picked(dir.path(), 42, &[None], &all).expect("loads");
        assert_eq!(context.entries.len(), 1);
        assert_eq!(context.entries[0].report.path, "CONTEXT.md");
        assert!(load_picked(dir.path(), 41, &[None], &all).is_none());
        // Damage anywhere, in an entry skimmed or not, is refused.
        let mut bad = encode(&table);
        let at = bad.len() / 2;
        bad[at] ^= 0x40;
        std::fs::write(path(dir.path()), bad).expect("write");
        assert!(load_picked(dir.path(), 42, &[None], &all).is_none());
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
