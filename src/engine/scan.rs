//! Bringing the record table up to date: probe every file (stat), judge it
//! against its stored entry, plan what it needs, and execute the plan
//! (keep, verify, restate by git blob, or read and lint), in parallel. It
//! reads files (`io`), lints them (`lint`) and updates the table (`store`);
//! it never prints: progress goes to a [`Progress`] the caller gives.

use crate::io::cache::key;
use crate::io::git::{Said, Tracked};
use crate::io::stat::{cold_reader, now_ns, Dirs, Stat};
use crate::lint::{lint_file, FileReport};
use crate::model::content::Content;
use crate::model::kind::{classify, Place};
use crate::model::workspace::Workspace;
use crate::store::codec::{trailer as checksum, Reader};
use crate::store::table::{
    decode_delta, decode_main, glance_path, load_stored, merge, save, save_delta, stored,
    stored_bytes, Entry, Glance, Stored, Table,
};
use rayon::prelude::*;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// Below this many files to read, no progress is reported.
const PROGRESS_MIN: usize = 2000;

/// Told how the reading of a scan goes, so that a front end can show it
/// (the CLI draws a bar on a terminal). Only a scan that reads many files
/// reports.
pub trait Progress: Sync {
    /// `total` files are to be read.
    fn start(&self, total: usize);
    /// One more file was read.
    fn advance(&self);
    /// The reading is over.
    fn finish(&self);
}

/// How to refresh.
#[derive(Clone, Copy, Default)]
pub struct Options<'p> {
    /// Ignore the stored table and re-read every file.
    pub force: bool,
    /// Where to report progress when many files must be read.
    pub progress: Option<&'p dyn Progress>,
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
    /// page cache (see `io::stat::cold_reader`).
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
    pub(crate) fn hash(&self, i: usize, now: &Stat) -> Option<u64> {
        let (stat, hash) = (*self.of.get(i)?)?;
        (stat == *now && !stat.racy(self.scanned_at)).then_some(hash)
    }
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
/// sorted, as `io::walk::walk` gives them), writes it back when anything
/// changed, and returns their reports.
pub fn refresh(ws: &Workspace, files: &[String], opts: &Options) -> Refreshed {
    let scanned = scan(ws, files, opts);
    let saved = scanned.save(ws);
    scanned.finish(saved)
}

/// Brings the table up to date for `files` (every file of the workspace,
/// sorted) without writing it. Unchanged files are not re-read; changed
/// ones are read and linted in parallel.
pub(crate) fn scan(ws: &Workspace, files: &[String], opts: &Options) -> Scanned {
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
    let progress = opts.progress.filter(|_| to_read >= PROGRESS_MIN);
    if let Some(p) = progress {
        p.start(to_read);
    }
    let reads = files
        .iter()
        .zip(&plans)
        .filter(|(_, p)| p.reads())
        .map(|(f, _)| f.as_str());
    let io = cold_reader(&ws.root, reads, to_read);

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
                            if let Some(p) = progress.filter(|_| reads) {
                                p.advance();
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
    if let Some(p) = progress {
        p.finish();
    }
    let tracked = early.or(late);
    if let Some(tracked) = tracked.as_ref() {
        blob_ids(&ws.root, files, &mut done, tracked);
    }

    let reparsed = done.iter().filter(|(_, d)| *d == Done::Read).count();
    let unchanged = old_len == files.len() && unchanged(&done, scanned_at);
    let dirty = dirty(&done, &flags, scanned_at);
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
        tracked,
    }
}

/// The reports of `files` (sorted: part of the workspace, such as the
/// records of some kinds) brought up to date as [`scan`] would bring them,
/// from `stored`, their stored entries (sorted, from a scan that started
/// at `scanned_at`), without writing anything back: a file whose stat data
/// changed, or changed too close to that scan, is verified or read and
/// linted again; the others are kept. Each entry with the stat data its
/// report was read with.
pub(crate) fn refresh_picked(
    ws: &Workspace,
    files: &[String],
    stored: Vec<Entry>,
    scanned_at: i64,
) -> Vec<Entry> {
    let mut stored = stored.into_iter().peekable();
    let aligned: Vec<Option<Entry>> = files
        .iter()
        .map(|f| {
            while stored
                .next_if(|e| e.report.path.as_str() < f.as_str())
                .is_some()
            {}
            stored.next_if(|e| e.report.path == *f)
        })
        .collect();
    let plans: Vec<Plan> = probes(ws, files, true)
        .into_par_iter()
        .zip(aligned.into_par_iter())
        .map(|(probe, old)| plan(ws, &probe, old, scanned_at))
        .collect();
    let tracked = plans
        .iter()
        .any(|p| matches!(p, Plan::ByBlob(..)))
        .then(|| Tracked::open(&ws.root))
        .flatten();
    let done: Vec<(Entry, Done)> = files
        .par_iter()
        .zip(plans.into_par_iter())
        .map_init(
            || Dirs::new(&ws.root),
            |dirs, (rel, plan)| execute(ws, dirs, rel, plan, tracked.as_ref()),
        )
        .collect();
    done.into_iter().map(|(e, _)| e).collect()
}

/// Records the git blob id of every file read whose stat data the git index
/// vouches for, or whose content is the blob of its index entry: a work
/// tree copied or restored keeps its files' content but not the stat data
/// git recorded, until git refreshes its index; without the blob ids
/// `.memlint/cites` would hold no record and `check --base` would read
/// every record out of the object database. The files are sorted, as the
/// index is: each run of them walks along it.
fn blob_ids(root: &Path, files: &[String], done: &mut [(Entry, Done)], tracked: &Tracked) {
    files
        .par_chunks(BLOB_RUN)
        .zip(done.par_chunks_mut(BLOB_RUN))
        .for_each(|(files, done)| {
            let mut lookup = tracked.in_order();
            for (rel, (e, d)) in files.iter().zip(done) {
                if *d != Done::Read || e.hash.is_none() {
                    continue;
                }
                let Some(stat) = e.stat else { continue };
                e.blob = match lookup.said(rel, &stat) {
                    Said::Vouched(id) => Some(id),
                    Said::Unvouched(id) => hashed_blob(root, rel, e, id),
                    Said::Nothing => None,
                };
            }
        });
}

/// `id` when the file at `rel` still holds what `e` was read from (its
/// size and content hash) and that content is blob `id`.
fn hashed_blob(root: &Path, rel: &str, e: &Entry, id: gix::ObjectId) -> Option<gix::ObjectId> {
    let size = e.stat?.size;
    let bytes = crate::io::fs::read_regular(&root.join(rel), size).ok()?;
    let same = bytes.len() as u64 == size && Some(xxh3_64(&bytes)) == e.hash;
    (same && crate::io::git::holds_blob(&bytes, id)).then_some(id)
}

/// Whether an entry verified by its content is to be stored again: it was
/// racy for the last scan and is not for this one (else it would be read on
/// every run until something else changed).
fn settled(e: &Entry, scanned_at: i64) -> bool {
    e.stat.is_some_and(|s| !s.racy(scanned_at))
}

/// Whether every entry is as stored (given that the files are the same).
fn unchanged(done: &[(Entry, Done)], scanned_at: i64) -> bool {
    done.iter().all(|(e, d)| match d {
        Done::Kept => true,
        Done::Verified => !settled(e, scanned_at),
        _ => false,
    })
}

/// Per entry: whether the main file lacks it as it is now.
fn dirty(done: &[(Entry, Done)], flags: &[Flags], scanned_at: i64) -> Vec<bool> {
    done.iter()
        .zip(flags)
        .map(|((e, d), (_, was_dirty))| match d {
            Done::Kept => *was_dirty,
            Done::Verified => *was_dirty || settled(e, scanned_at),
            Done::Read | Done::Computed | Done::Restated => true,
        })
        .collect()
}

/// A refreshed table, not yet written back: [`Scanned::save`] can run while
/// the caller goes on with [`Scanned::reports`].
pub(crate) struct Scanned {
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
    /// The git index, when the scan read it.
    tracked: Option<Tracked>,
}

impl Scanned {
    /// One report per file given to [`scan`], in the same order.
    pub(crate) fn reports(&self) -> impl Iterator<Item = &FileReport> {
        self.table.entries.iter().map(|e| &*e.report)
    }

    /// One entry per file given to [`scan`], in the same order: its
    /// report, and what the table knows of its content (what
    /// [`Scanned::finish`] hands on as [`Refreshed`]).
    pub(crate) fn entries(&self) -> &[crate::store::table::Entry] {
        &self.table.entries
    }

    /// The git index, when the scan read it.
    pub(crate) fn tracked(&self) -> Option<&Tracked> {
        self.tracked.as_ref()
    }

    /// Writes the table back when anything changed: as a small delta next
    /// to the main file when few entries changed, else whole. `Ok(false)`
    /// when it was already up to date.
    pub(crate) fn save(&self, ws: &Workspace) -> std::io::Result<bool> {
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
                save_delta(ws, base, table, &self.removed, &entries)
            }
            _ => save(ws, table),
        }
        .map(|()| true)
    }

    /// Writes `.memlint/cites` ([`crate::store::cites`]) from the table
    /// when the table changed or the file is missing or not of this
    /// layout and configuration: each record whose entry holds the blob id
    /// the git index vouched for, with the `file:` sources it cites. Nothing when `sources/drifted` is off.
    pub(crate) fn save_cites(&self, ws: &Workspace) {
        use crate::store::cites;
        if !ws.config.enabled(crate::model::rule::Rule::SourcesDrifted) {
            return;
        }
        // A file of an earlier layout, or another configuration, is
        // written again even when the table did not change.
        if self.unchanged && cites::present(&ws.root, self.table.key) {
            return;
        }
        let stored = || {
            self.table
                .entries
                .iter()
                .filter(|e| e.report.info.kind.is_some() && e.report.info.parsed)
        };
        // Every record (path and blob id) stored already: the file holds
        // what would be written of them (see `cites::holds`).
        let known = cites::known(
            stored()
                .filter_map(|e| Some((e.report.path.as_str(), cites::short_id(e.blob.as_ref()?)))),
        );
        if cites::holds(&ws.root, self.table.key, &known) {
            return;
        }
        // A change modifying a record is no drift of the records citing it
        // (`check --staged` and `--base` judge only the other files): a
        // source naming a record is not stored.
        let banned = &ws.config.banned_dirs;
        let records: Vec<cites::Record> = stored()
            .filter_map(|e| {
                Some(cites::Record {
                    path: &e.report.path,
                    id: cites::short_id(e.blob.as_ref()?),
                    sources: crate::lint::rules::sources::drifted::cited_sources(&e.report.info)
                        .into_iter()
                        .filter(|(_, file)| !matches!(classify(file, banned), Place::Record(_)))
                        .collect(),
                })
            })
            .collect();
        // The directories whose records are all stored as the index holds
        // them, by tree id: `check --staged` and `--base` then look up none
        // of their paths.
        let opened;
        let tracked = match &self.tracked {
            Some(t) => Some(t),
            None => {
                opened = Tracked::open(&ws.root);
                opened.as_ref()
            }
        };
        let dirs = tracked.map_or_else(Vec::new, |t| {
            let is_record = |p: &str| matches!(classify(p, banned), Place::Record(_));
            let cached = t.cached_dirs(cites::DIR_DEPTH);
            cites::known_dirs(&records, &cached, &|i| t.entry(i), &is_record)
        });
        cites::save(ws, self.table.key, &records, &dirs);
    }

    /// The outcome, given what [`Scanned::save`] returned.
    pub(crate) fn finish(self, saved: std::io::Result<bool>) -> Refreshed {
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
            // A misplaced file's text is read too: it is checked for
            // credentials (it is committed like the records).
            classify(rel, &ws.config.banned_dirs) == Place::Outside
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
                None => Content::Bytes(&b""[..]),
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
            Ok((_, Content::Bytes(bytes))) if Some(xxh3_64(&bytes)) == e.hash => {
                (e, Done::Verified)
            }
            opened => (read_entry(ws, rel, opened), Done::Read),
        },
        Plan::Read | Plan::ByBlob(..) => (
            read_entry(ws, rel, dirs.read(rel, ws.config.max_file_bytes)),
            Done::Read,
        ),
    }
}

/// The entry of a file from what reading it gave.
pub(crate) fn read_entry(
    ws: &Workspace,
    rel: &str,
    opened: std::io::Result<(Stat, Content)>,
) -> Entry {
    let place = classify(rel, &ws.config.banned_dirs);
    let (stat, hash, read) = match &opened {
        Ok((stat, Content::Bytes(bytes))) => (
            Some(*stat),
            Some(xxh3_64(bytes)),
            Ok(Content::Bytes(&bytes[..])),
        ),
        Ok((stat, Content::TooLarge(size))) => (Some(*stat), None, Ok(Content::TooLarge(*size))),
        // Never reused: read again next time.
        Err(e) => (None, None, Err(e)),
    };
    Entry {
        stat,
        hash,
        blob: None,
        report: Box::new(crate::engine::workspace::lint_read(ws, rel, &place, read)),
    }
}
