//! `memlint search` (SPEC §7): recall with BM25 over title (weighted up),
//! description, tags and body, served from an inverted index kept in
//! `.memlint/search` beside the record table.
//!
//! Tokens ([`tokenize`]): text outside CJK runs is split into Unicode words
//! (UAX #29), lowercased, and a word joined by punctuation (`replaced_by`,
//! `Cargo.toml`) also yields its parts; runs of Han, Hiragana, Katakana and
//! Hangul become overlapping character bigrams (a one-character run is
//! itself), so Japanese and Chinese text, spaced or not, is found without a
//! dictionary.
//!
//! Freshness: the index stores every record's path, stat data and content
//! hash. A query stats every record (in parallel) and answers from the stored
//! postings only when all of them match; otherwise the record table and the
//! search index are refreshed together and only the records that changed are
//! read and tokenized again. Like the record table, a record modified within
//! [`index::RACY_NS`] of the scan that indexed it is verified by content.
//! A missing, damaged or older index is rebuilt silently.

use crate::engine::workspace::Workspace;
use crate::model::hashing::Map;
use crate::model::kind::{classify, stem, Kind, Place};
use crate::store::index::{self, Listing, Stat};
use crate::store::search::*;
use crate::syntax::fields::{fields, Fields};
use crate::syntax::tokens::{query_terms, tokenize};
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::Range;
use xxhash_rust::xxh3::xxh3_64;

/// Term-frequency weights of the fields (BM25F-style: a title word counts
/// three times, a description or tag word twice).
const W_TITLE: u32 = 3;
const W_DESCRIPTION: u32 = 2;
const W_TAGS: u32 = 2;
const W_BODY: u32 = 1;

/// BM25 parameters.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Records tokenized per batch when building: bounds the memory a cold build
/// holds in per-record term maps.
const BATCH: usize = 4096;

/// Longest snippet, in characters.
const SNIPPET_CHARS: usize = 160;

// ---------------------------------------------------------------------------
// Records

/// A record read and tokenized: its doc and weighted term frequencies.
struct Tokenized<'t> {
    doc: Doc,
    terms: Map<Cow<'t, str>, u32>,
}

fn tokenize_record<'t>(
    path: &str,
    kind: Kind,
    stat: Stat,
    text: &'t str,
    hash: u64,
) -> Tokenized<'t> {
    let f = fields(text, kind);
    // Records hold one distinct term per six to ten bytes: sized near
    // that up front rather than grown through every power of two
    // (rehashing was about 4% of a cold index build). Capped, so that a
    // large record of few words does not reserve a table for words it
    // does not have (a batch holds thousands of these maps at once).
    let mut terms: Map<Cow<'t, str>, u32> =
        Map::with_capacity_and_hasher((text.len() / 10).min(1024), Default::default());
    let mut len = 0u32;
    let mut count = |t: Cow<'t, str>, w: u32| {
        len = len.saturating_add(w);
        *terms.entry(t).or_insert(0) += w;
    };
    let weighted = f
        .title
        .iter()
        .map(|t| (t, W_TITLE))
        .chain(f.description.iter().map(|d| (d, W_DESCRIPTION)))
        .chain(f.tags.iter().map(|t| (t, W_TAGS)));
    for (value, w) in weighted {
        tokenize(value, |t, _| count(Cow::Owned(t.into_owned()), w));
    }
    // Body tokens that are slices of the text stay borrowed.
    let body = f.body;
    tokenize(body, |t, r| {
        let t = match t {
            Cow::Borrowed(_) => Cow::Borrowed(&body[r]),
            Cow::Owned(o) => Cow::Owned(o),
        };
        count(t, W_BODY);
    });
    let doc = Doc {
        path: path.to_string(),
        kind,
        replaced: f.status.as_deref() == Some("replaced"),
        stat,
        hash,
        len,
    };
    Tokenized { doc, terms }
}

// ---------------------------------------------------------------------------
// Freshness and refresh

/// Rewrites the stored index, when it is still the one loaded with head
/// checksum `loaded_sum`, with `stamps`.
fn restamp(ws: &Workspace, loaded_sum: u64, stamps: Stamps) {
    let Ok(mut bytes) = crate::io::fs::read_regular(&file(ws)) else {
        return;
    };
    if restamp_bytes(&mut bytes, loaded_sum, stamps) {
        save(ws, &bytes);
    }
}

/// The record files among the workspace's files.
fn record_files<'f>(ws: &Workspace, files: &'f [String]) -> Vec<(&'f str, Kind)> {
    files
        .par_iter()
        .filter_map(|f| match classify(f, &ws.config.banned_dirs) {
            Place::Record(kind) => Some((f.as_str(), kind)),
            _ => None,
        })
        .collect()
}

/// Whether every document of `loaded` is as it was when it was indexed
/// (see [`Unchanged`]); `Some(true)` when the index is worth restamping
/// with `now`.
fn unchanged(ws: &Workspace, loaded: &Loaded, now: i64) -> Option<bool> {
    const BATCH: usize = 512;
    let check = Unchanged::new(ws, now);
    let same = loaded.docs.par_chunks(BATCH).enumerate().all(|(c, chunk)| {
        let docs = chunk.iter().enumerate();
        check.all(
            docs.map(|(k, d)| (loaded.path(c * BATCH + k), d)),
            loaded.scanned_at,
        )
    });
    same.then(|| check.settled())
}

/// The check that documents are as they were when they were indexed: the
/// same stat data, and for a file changed within the timestamp granularity
/// of the scan, the same content. Stat'ed with each directory reached once
/// per batch, with nothing kept. It records whether a document had to be
/// verified by its content and would not have to be for a scan at `now`
/// (taken before the stats): the index is then worth restamping with that
/// time, or the file is read on every search.
struct Unchanged<'w> {
    ws: &'w Workspace,
    now: i64,
    settled: std::sync::atomic::AtomicBool,
}

impl<'w> Unchanged<'w> {
    fn new(ws: &'w Workspace, now: i64) -> Self {
        Unchanged {
            ws,
            now,
            settled: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Whether every (path, document) of a batch, from an index scanned at
    /// `scanned_at`, is unchanged.
    fn all<'d>(
        &self,
        mut docs: impl Iterator<Item = (&'d str, &'d DocMeta)>,
        scanned_at: i64,
    ) -> bool {
        let mut dirs = index::Dirs::new(&self.ws.root);
        docs.all(|(path, d)| match dirs.stat(path) {
            Some(s) if s == d.stat => {
                if !s.racy(scanned_at) {
                    return true;
                }
                if !s.racy(self.now) {
                    self.settled
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
                xxh3_64(&indexed_bytes(self.ws, path, &s)) == d.hash
            }
            _ => false,
        })
    }

    fn settled(self) -> bool {
        self.settled.into_inner()
    }
}

/// The bytes a record with stat data `stat` is indexed from: none when it
/// is too large or cannot be read (it is then indexed without terms, so
/// that it does not look changed on every search), never more than
/// `max_file_bytes`.
fn indexed_bytes(ws: &Workspace, path: &str, stat: &Stat) -> Vec<u8> {
    use std::io::Read;
    let max = ws.config.max_file_bytes;
    if stat.size > max {
        return Vec::new();
    }
    let mut bytes = Vec::new();
    match crate::io::fs::open_regular(&ws.root.join(path))
        .and_then(|f| f.take(max.saturating_add(1)).read_to_end(&mut bytes))
    {
        // Grown past the limit since it was stat'ed: too large after all.
        Ok(n) if n as u64 <= max => bytes,
        _ => Vec::new(),
    }
}

/// Whether the documents of `loaded` are exactly `records`.
fn same_records(loaded: &Loaded, records: &[(&str, Kind)]) -> bool {
    loaded.docs.len() == records.len()
        && records
            .par_iter()
            .enumerate()
            .all(|(i, (p, k))| loaded.path(i) == *p && loaded.docs[i].kind == *k)
}

/// The stored index, when it describes the workspace as it is now, and the
/// listing it was checked against (`None` when the stored listing still
/// holds and is the one the index was built from: the files are then the
/// same without being listed). The index is loaded and its files stat'ed
/// beside the listing check; its term dictionary only when `want` says so.
///
/// With a watcher stamp (`watch`, taken before anything was read) that the
/// index holds, nothing is stat'ed or listed: the watcher vouches that
/// nothing changed since the index was found fresh under it.
fn fresh_stored(ws: &Workspace, want: Want, watch: Option<u64>) -> Stored {
    let now = index::now_ns();
    let check = Unchanged::new(ws, now);
    // The files of each block are stat'ed as soon as it is decoded.
    let all = |block: &DocBlock, scanned_at| {
        let docs = block.docs.iter().enumerate();
        check.all(docs.map(|(i, d)| (block.path(i), d)), scanned_at)
    };
    let (listing_id, stored) = if watch.is_some() {
        let stored = load_checked(&file(ws), &all, want, watch);
        if let Some((loaded, _)) = stored.as_ref().filter(|(l, _)| l.watch == watch) {
            debug_assert!(loaded.watch.is_some());
            let (loaded, _) = stored.expect("just matched");
            return Stored::Fresh(loaded, None, None);
        }
        (index::listing_id(ws), stored)
    } else {
        rayon::join(
            || index::listing_id(ws),
            || load_checked(&file(ws), &all, want, None),
        )
    };
    let stored = stored.map(|(loaded, same)| (loaded, same.then(|| check.settled())));
    match stored {
        Some((loaded, Some(settled))) => {
            let settled = settled.then_some(now);
            if listing_id.is_some() && loaded.listing == listing_id {
                return Stored::Fresh(loaded, None, settled);
            }
            let listing = index::listing(ws);
            if same_records(&loaded, &record_files(ws, &listing.files)) {
                Stored::Fresh(loaded, Some(listing), settled)
            } else {
                Stored::Stale(listing, Some(loaded))
            }
        }
        Some((loaded, None)) => Stored::Stale(index::listing(ws), Some(loaded)),
        None => Stored::Stale(index::listing(ws), None),
    }
}

/// What [`fresh_stored`] found.
enum Stored {
    /// A fresh index, with the listing when the files had to be listed,
    /// and the scan time to restamp it with when racy documents settled.
    Fresh(Loaded, Option<Listing>, Option<i64>),
    /// The listing to rebuild from, and the stale index to reuse, if any.
    Stale(Listing, Option<Loaded>),
}

/// What a refresh did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Refreshed {
    /// Records in the search index.
    pub records: usize,
    /// Records read and tokenized in this run.
    pub tokenized: usize,
}

fn file(ws: &Workspace) -> std::path::PathBuf {
    ws.root.join(index::DIR).join(FILE)
}

/// Brings the record table and the search index up to date for the listed
/// files (every file of the workspace, sorted, as [`index::listing`] gives
/// them), reading only what changed. The table's reports are dropped
/// before the search index is built (only its counts and save result are
/// returned), so the two are never in memory together. `watch` is the
/// watcher stamp taken before the files were listed
/// ([`crate::io::watch::stamp`]), which the index keeps.
pub fn refresh(
    ws: &Workspace,
    listing: &Listing,
    opts: &index::Options,
    watch: Option<u64>,
) -> (index::Refreshed, Refreshed) {
    let (table, done, _) = refresh_keeping(ws, listing, opts, 0, watch);
    (table, done)
}

/// [`refresh`], with a context material stored for lists of at least
/// `keep` items (see [`crate::store::material::keep_for`]); also returns that
/// material, encoded.
pub fn refresh_keeping(
    ws: &Workspace,
    listing: &Listing,
    opts: &index::Options,
    keep: usize,
    watch: Option<u64>,
) -> (index::Refreshed, Refreshed, Vec<u8>) {
    let now = index::now_ns();
    let mut table = index::refresh(ws, &listing.files, opts);
    let keep = keep.max(crate::engine::context::settings::stored_keep(
        &ws.config.context,
    ));
    let context = context_block(ws, &table.reports, keep);
    table.reports = Vec::new();
    let known = std::mem::take(&mut table.fingerprints);
    let old = if opts.force { None } else { load(&file(ws)) };
    if let Some(old) = &old {
        // The stored material still holds when the records are unchanged,
        // unless it was gathered by another executable or configuration, or
        // keeps fewer items than asked for.
        let key = index::key(&ws.config);
        let unchanged = same_records(old, &record_files(ws, &listing.files))
            .then(|| unchanged(ws, old, now))
            .flatten()
            .filter(|_| crate::store::material::decode_material(&old.context, keep, key).is_some());
        if let Some(settled) = unchanged {
            restamp(
                ws,
                old.sum,
                stamps(old, Some(listing), settled.then_some(now), watch),
            );
            let done = Refreshed {
                records: old.docs.len(),
                tokenized: 0,
            };
            return (table, done, context);
        }
    }
    let (bytes, done) = rebuild(ws, listing, old.as_ref(), &known, &context, watch);
    save(ws, &bytes);
    (table, done, context)
}

/// The context material of the records of a refreshed table, encoded for
/// the search index, with lists of `keep` items.
fn context_block(ws: &Workspace, reports: &[Box<crate::lint::FileReport>], keep: usize) -> Vec<u8> {
    let glances: Vec<index::Glance> = reports.iter().map(|r| index::Glance::of(r)).collect();
    let material = crate::store::material::material(&glances, None, keep);
    crate::store::material::encode_material(&material, keep, index::key(&ws.config))
}

/// What `memlint context` finds in the stored search index.
pub enum StoredContext {
    /// The index describes the workspace as it is: its context material,
    /// encoded (see [`crate::store::material::decode_material`]).
    Fresh(Vec<u8>),
    /// The index is stale (`true`) or there is none to update (`false`):
    /// the workspace's listing, and the watcher stamp taken before it.
    Stale(Listing, bool, Option<u64>),
}

/// The context material stored in the search index, fresh or not (nothing
/// is stat'ed); `None` without a readable index.
pub fn stored_context_unchecked(ws: &Workspace) -> Option<Vec<u8>> {
    load_checked(&file(ws), &no_check, Want::Documents, None).map(|(loaded, _)| loaded.context)
}

/// The context material stored in the search index, when the index is
/// fresh: checked like a search's, without its term dictionary.
pub fn stored_context(ws: &Workspace) -> StoredContext {
    let watch = crate::io::watch::stamp(ws);
    match fresh_stored(ws, Want::Documents, watch) {
        Stored::Fresh(loaded, listed, settled) => {
            restamp(
                ws,
                loaded.sum,
                stamps(&loaded, listed.as_ref(), settled, watch),
            );
            StoredContext::Fresh(loaded.context)
        }
        Stored::Stale(listing, old) => StoredContext::Stale(listing, old.is_some(), watch),
    }
}

fn save(ws: &Workspace, bytes: &[u8]) {
    // A cache: when it cannot be written, the next run builds it again.
    let _ = index::make_dir(&ws.root)
        .and_then(|dir| crate::io::fs::write_cache(&dir.join(FILE), bytes));
}

/// What to do with one record when rebuilding.
enum Step<'t> {
    /// Keep the old document of this id (with possibly new stat data).
    Keep(u32, Stat),
    /// Tokenized anew.
    New(Tokenized<'t>),
    /// Could not be read.
    Gone,
}

/// The old document of each record, by path (both sorted).
fn old_ids(records: &[(&str, Kind)], old: Option<&Loaded>) -> Vec<Option<u32>> {
    let mut old_ids: Vec<Option<u32>> = Vec::with_capacity(records.len());
    if let Some(old) = old {
        let mut j = 0;
        for (p, _) in records {
            while j < old.docs.len() && old.path(j) < *p {
                j += 1;
            }
            old_ids.push((j < old.docs.len() && old.path(j) == *p).then_some(j as u32));
        }
    } else {
        old_ids.resize(records.len(), None);
    }
    old_ids
}

/// A batch of records stat'ed, and those that changed read, in parallel:
/// their stat data, text (empty when the old document stands) and hash;
/// `None` for a record that could not be stat'ed.
fn read_changed(
    ws: &Workspace,
    files: &[String],
    known: Option<&index::Fingerprints>,
    old: Option<&Loaded>,
    chunk: &[(&str, Kind)],
    ids: &[Option<u32>],
) -> Vec<Option<(Stat, String, u64)>> {
    let old_doc = |id: &Option<u32>| id.and_then(|i| old.map(|o| o.docs[i as usize]));
    let old_scanned_at = old.map_or(0, |o| o.scanned_at);
    let paths: Vec<&str> = chunk.iter().map(|(p, _)| *p).collect();
    let stats = Stat::many(&ws.root, &paths);
    chunk
        .par_iter()
        .zip(ids)
        .zip(stats)
        .map(|(((p, _), id), s)| {
            let s = s?;
            if let Some(d) = old_doc(id) {
                if d.stat == s && !s.racy(old_scanned_at) {
                    return Some((s, String::new(), d.hash));
                }
                // Too large a record is indexed from no bytes at all.
                let table = (s.size <= ws.config.max_file_bytes)
                    .then(|| files.binary_search_by(|f| f.as_str().cmp(p)).ok())
                    .flatten()
                    .and_then(|at| known?.hash(at, &s));
                if table == Some(d.hash) {
                    return Some((s, String::new(), d.hash));
                }
            }
            let bytes = indexed_bytes(ws, p, &s);
            let hash = xxh3_64(&bytes);
            Some((s, String::from_utf8_lossy(&bytes).into_owned(), hash))
        })
        .collect()
}

/// The kept documents' postings (renumbered by `remap`) merged with the
/// new ones, sorted by term.
fn merge_terms(
    old: Option<&Loaded>,
    remap: &[u32],
    mut fresh_terms: Map<String, Postings>,
) -> Vec<(String, Postings)> {
    let mut terms: Vec<(String, Postings)> = Vec::new();
    if let Some(old) = old {
        let lists: Vec<Option<Postings>> = (0..old.terms.len())
            .into_par_iter()
            .map(|i| old.postings(i))
            .collect();
        for (i, postings) in lists.into_iter().enumerate() {
            let term = old.term_str(i);
            let mut list: Postings = postings
                .unwrap_or_default()
                .into_iter()
                .filter_map(|(d, tf)| {
                    let to = remap[d as usize];
                    (to != u32::MAX).then_some((to, tf))
                })
                .collect();
            if let Some(extra) = fresh_terms.remove(term) {
                list.extend(extra);
                list.sort_unstable_by_key(|(d, _)| *d);
            }
            if !list.is_empty() {
                terms.push((term.to_string(), list));
            }
        }
    }
    terms.extend(fresh_terms);
    terms.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    terms
}

/// A new index for `files`, reusing the documents of `old` whose records did
/// not change: those with the same stat data, and those the record table,
/// just refreshed for the same files, holds with their hash as they are now
/// (it keeps a file whose stat data changed by its git blob id, as after a
/// checkout that rewrote it unchanged), neither read again. `known` holds
/// the table's fingerprints of `listing.files`, in order.
fn rebuild(
    ws: &Workspace,
    listing: &Listing,
    old: Option<&Loaded>,
    known: &index::Fingerprints,
    context: &[u8],
    watch: Option<u64>,
) -> (Vec<u8>, Refreshed) {
    let (files, listing_id) = (&listing.files, listing.id);
    // Fingerprints of other files than the listing's say nothing here.
    let known = (known.of.len() == files.len()).then_some(known);
    let scanned_at = index::now_ns();
    let records = record_files(ws, files);
    let old_ids = old_ids(&records, old);
    let old_doc = |id: &Option<u32>| id.and_then(|i| old.map(|o| (i, o.docs[i as usize])));

    let mut docs: Vec<Doc> = Vec::with_capacity(records.len());
    let mut remap: Vec<u32> = vec![u32::MAX; old.map_or(0, |o| o.docs.len())];
    let mut fresh_terms: Map<String, Postings> = Map::default();
    let mut tokenized = 0;
    for (chunk, ids) in records.chunks(BATCH).zip(old_ids.chunks(BATCH)) {
        let texts = read_changed(ws, files, known, old, chunk, ids);
        let steps: Vec<Step> = chunk
            .par_iter()
            .zip(ids)
            .zip(&texts)
            .map(|(((p, kind), id), t)| {
                let Some((s, text, hash)) = t else {
                    return Step::Gone;
                };
                match old_doc(id) {
                    Some((i, d)) if d.hash == *hash => Step::Keep(i, *s),
                    _ => Step::New(tokenize_record(p, *kind, *s, text, *hash)),
                }
            })
            .collect();
        for ((step, (p, _)), _) in steps.into_iter().zip(chunk).zip(ids) {
            let id = docs.len() as u32;
            match step {
                Step::Gone => {}
                Step::Keep(i, s) => {
                    let d = old.expect("kept from old").docs[i as usize];
                    remap[i as usize] = id;
                    docs.push(Doc {
                        path: p.to_string(),
                        kind: d.kind,
                        replaced: d.replaced,
                        stat: s,
                        hash: d.hash,
                        len: d.len,
                    });
                }
                Step::New(t) => {
                    tokenized += 1;
                    for (term, tf) in t.terms {
                        match fresh_terms.get_mut(term.as_ref()) {
                            Some(p) => p.push((id, tf)),
                            None => {
                                fresh_terms.insert(term.into_owned(), vec![(id, tf)]);
                            }
                        }
                    }
                    docs.push(t.doc);
                }
            }
        }
    }

    let terms = merge_terms(old, &remap, fresh_terms);
    let done = Refreshed {
        records: docs.len(),
        tokenized,
    };
    (
        encode(scanned_at, listing_id, watch, &docs, &terms, context),
        done,
    )
}

// ---------------------------------------------------------------------------
// Queries

/// A search request.
#[derive(Debug, Clone)]
pub struct Query {
    pub text: String,
    pub kind: Option<Kind>,
    pub limit: usize,
    /// Include replaced records.
    pub all: bool,
}

/// One result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub path: String,
    pub kind: Kind,
    /// The file stem for kinds named by a slug.
    pub slug: Option<String>,
    pub title: Option<String>,
    pub status: Option<String>,
    pub score: f64,
    /// One line of the record with a match (or its first line of text).
    pub snippet: String,
    /// Byte ranges of the matched tokens in `snippet`.
    pub marks: Vec<Range<usize>>,
}

/// Answers `query` from a fresh index, refreshing it first when any record
/// changed.
pub fn search(ws: &Workspace, query: &Query, opts: &index::Options) -> Vec<Hit> {
    // Before anything is read, so that any later change shows.
    let watch = crate::io::watch::stamp(ws);
    let (listing, old) = match fresh_stored(ws, Want::Terms, watch) {
        Stored::Fresh(loaded, listed, settled) => {
            if let Some(hits) = answer(ws, &loaded, query) {
                // Stamped with the listing now stored (and the watcher's
                // token), the next search need not list or stat the files.
                restamp(
                    ws,
                    loaded.sum,
                    stamps(&loaded, listed.as_ref(), settled, watch),
                );
                return hits;
            }
            // A posting list failed its checksum: build anew.
            (listed.unwrap_or_else(|| index::listing(ws)), None)
        }
        Stored::Stale(listing, old) => (listing, old),
    };
    let table = index::refresh(ws, &listing.files, opts);
    let keep = crate::engine::context::settings::stored_keep(&ws.config.context);
    let context = context_block(ws, &table.reports, keep);
    let known = table.fingerprints;
    drop(table.reports);
    let (bytes, _) = rebuild(ws, &listing, old.as_ref(), &known, &context, watch);
    save(ws, &bytes);
    let loaded = decode(bytes).expect("a freshly encoded index decodes");
    answer(ws, &loaded, query).expect("a freshly built index is intact")
}

/// The ranked hits, or `None` when a posting list read is damaged.
fn answer(ws: &Workspace, loaded: &Loaded, query: &Query) -> Option<Vec<Hit>> {
    let terms = query_terms(&query.text);
    let n = loaded.docs.len() as f64;
    if terms.is_empty() || loaded.docs.is_empty() {
        return Some(Vec::new());
    }
    let avg = loaded.docs.iter().map(|d| f64::from(d.len)).sum::<f64>() / n;
    let avg = avg.max(1.0);
    // Scores by document, and the documents scored (every term adds a
    // positive amount: idf > 0 and tf ≥ 1).
    let mut scores: Vec<f64> = vec![0.0; loaded.docs.len()];
    let mut scored: Vec<u32> = Vec::new();
    for term in &terms {
        let Some(postings) = loaded.matches(term)? else {
            continue;
        };
        let df = postings.len() as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for (doc, tf) in postings {
            let d = &loaded.docs[doc as usize];
            if query.kind.is_some_and(|k| k != d.kind) || (!query.all && d.replaced) {
                continue;
            }
            let tf = f64::from(tf);
            let norm = K1 * (1.0 - B + B * f64::from(d.len) / avg);
            let score = &mut scores[doc as usize];
            if *score == 0.0 {
                scored.push(doc);
            }
            *score += idf * tf * (K1 + 1.0) / (tf + norm);
        }
    }
    let mut ranked: Vec<(u32, f64)> = scored
        .into_iter()
        .map(|d| (d, scores[d as usize]))
        .collect();
    let order = |a: &(u32, f64), b: &(u32, f64)| {
        b.1.total_cmp(&a.1)
            .then_with(|| loaded.path(a.0 as usize).cmp(loaded.path(b.0 as usize)))
    };
    // Only the best `limit` are put in order: a common word may score
    // most of the records.
    if ranked.len() > query.limit {
        if let Some(last) = query.limit.checked_sub(1) {
            ranked.select_nth_unstable_by(last, order);
        }
        ranked.truncate(query.limit);
    }
    ranked.sort_unstable_by(order);
    let hits = ranked
        .into_par_iter()
        .map(|(doc, score)| {
            let path = loaded.path(doc as usize);
            let kind = loaded.docs[doc as usize].kind;
            let shown = shown(ws, path, kind, &terms);
            Hit {
                path: path.to_string(),
                kind,
                slug: kind.has_slug().then(|| stem(path).to_string()),
                title: shown.title,
                status: shown.status,
                score: (score * 10_000.0).round() / 10_000.0,
                snippet: shown.snippet,
                marks: shown.marks,
            }
        })
        .collect();
    Some(hits)
}

/// What a result shows of its record, read from the file.
struct Shown {
    title: Option<String>,
    status: Option<String>,
    snippet: String,
    marks: Vec<Range<usize>>,
}

fn shown(ws: &Workspace, path: &str, kind: Kind, terms: &[String]) -> Shown {
    let bytes = crate::io::fs::read_regular(&ws.root.join(path)).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let f = fields(&text, kind);
    // Secrets are masked before a line is chosen and cut, so that no
    // part of one is shown (a private key's lines between its `BEGIN` and
    // `END` lines hold the key material).
    let mask = |v: Option<Cow<str>>| {
        v.map(|v| Cow::Owned(crate::syntax::sanitize::secrets(&v).into_owned()))
    };
    let body = crate::syntax::sanitize::secrets(f.body);
    let f = Fields {
        title: mask(f.title),
        description: mask(f.description),
        body: &body,
        ..f
    };
    let (snippet, marks) = snippet(&f, terms);
    Shown {
        title: f.title.map(Cow::into_owned),
        status: f.status,
        snippet,
        marks,
    }
}

/// The line of the description or body that matches the most query terms
/// (the first of equals; the first line of text when none matches, the
/// title when there is none), cut to
/// [`SNIPPET_CHARS`] around its first match.
fn snippet(f: &Fields, terms: &[String]) -> (String, Vec<Range<usize>>) {
    let mut candidates: Vec<&str> = Vec::new();
    if let Some(desc) = &f.description {
        candidates.push(desc);
    }
    candidates.extend(f.body.lines());
    let mut best: Option<(usize, &str, Vec<Range<usize>>)> = None;
    for line in candidates {
        let line = line.trim();
        // Headings say little on their own.
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut marks = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        tokenize(line, |t, r| {
            if let Some(q) = terms.iter().find(|q| **q == *t) {
                if !seen.contains(&q.as_str()) {
                    seen.push(q);
                }
                marks.push(r);
            }
        });
        let better = match &best {
            None => true,
            Some((n, _, _)) => seen.len() > *n,
        };
        if better {
            best = Some((seen.len(), line, marks));
        }
    }
    let (line, marks) = match best {
        Some((n, line, marks)) if n > 0 => (line.to_string(), marks),
        Some((_, line, _)) => (line.to_string(), Vec::new()),
        None => (
            f.title.as_deref().unwrap_or_default().to_string(),
            Vec::new(),
        ),
    };
    cut(&line, marks)
}

/// `line` cut to at most [`SNIPPET_CHARS`] characters around its first mark
/// (with `…` where cut), the marks moved along.
fn cut(line: &str, marks: Vec<Range<usize>>) -> (String, Vec<Range<usize>>) {
    if line.chars().count() <= SNIPPET_CHARS {
        return (line.to_string(), marks);
    }
    let first = marks.first().map_or(0, |m| m.start);
    // Start a third of the window before the first match, on a char boundary.
    let before: Vec<usize> = line[..first].char_indices().map(|(i, _)| i).collect();
    let start = before
        .len()
        .checked_sub(SNIPPET_CHARS / 3)
        .map_or(0, |k| before[k]);
    let end = line[start..]
        .char_indices()
        .nth(SNIPPET_CHARS - 2)
        .map_or(line.len(), |(i, _)| start + i);
    let mut out = String::new();
    let shift = if start > 0 {
        out.push('…');
        '…'.len_utf8()
    } else {
        0
    };
    out.push_str(&line[start..end]);
    if end < line.len() {
        out.push('…');
    }
    let marks = marks
        .into_iter()
        .filter(|m| m.start >= start && m.end <= end)
        .map(|m| m.start - start + shift..m.end - start + shift)
        .collect();
    (out, marks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_are_cut_on_char_boundaries() {
        let line = "語".repeat(300) + "検索" + &"語".repeat(300);
        let at = line.find("検索").unwrap();
        let mark = at..at + "検索".len();
        let (s, marks) = cut(&line, vec![mark]);
        assert!(s.chars().count() <= SNIPPET_CHARS + 2);
        assert_eq!(&s[marks[0].clone()], "検索");
    }

    fn doc(path: &str, mtime: i64) -> Doc {
        Doc {
            path: path.into(),
            kind: Kind::Decision,
            replaced: mtime % 2 == 0,
            stat: Stat {
                size: 10,
                mtime,
                ctime: mtime - 5,
                ino: 1_000_000 - mtime as u64,
            },
            hash: 7,
            len: 3,
        }
    }

    #[test]
    fn the_index_round_trips_and_rejects_damage() {
        let docs = vec![
            doc("memory/decisions/a.md", 9),
            doc("memory/decisions/ab.md", 4),
            doc("memory/decisions/b.md", 11),
        ];
        let terms = vec![
            ("gix".to_string(), vec![(0, 3), (2, 1)]),
            ("検索".to_string(), vec![(1, 2)]),
            ("検証".to_string(), vec![(0, 1), (1, 1), (2, 5)]),
        ];
        let bytes = encode(42, Some(7), Some(9), &docs, &terms, b"material");
        let loaded = decode(bytes.clone()).expect("decodes");
        assert_eq!(loaded.scanned_at, 42);
        assert_eq!(loaded.listing, Some(7));
        assert_eq!(loaded.context, b"material");
        for (i, d) in docs.iter().enumerate() {
            assert_eq!(loaded.path(i), d.path);
            assert_eq!(loaded.docs[i].stat, d.stat);
            assert_eq!(loaded.docs[i].replaced, d.replaced);
        }
        for (term, postings) in &terms {
            let i = loaded.term(term).expect("term");
            assert_eq!(loaded.postings(i).as_ref(), Some(postings));
        }
        assert!(loaded.term("gi").is_none());
        assert!(decode(Vec::new()).is_none());
        assert!(decode(bytes[..bytes.len() / 2].to_vec()).is_none());
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        // A damaged posting list is refused when it is read.
        let damaged = decode(flipped).expect("the head is intact");
        assert!(damaged.postings(damaged.term("検証").unwrap()).is_none());
        let mut head = bytes;
        head[PREFIX + 3] ^= 0x40;
        assert!(decode(head).is_none());
    }

    #[test]
    fn a_rebuild_trusts_the_record_table_for_files_whose_stat_changed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("knowledge")).expect("mkdir");
        let rel = "knowledge/wal-notes.md";
        let write = |body: &str| {
            let text = format!("---\ntitle: Notes\n---\n{body}\n");
            std::fs::write(root.join(rel), text).expect("write");
        };
        write("the alpaca word");
        let ws = Workspace::load(Some(root), None).expect("workspace");
        let opts = index::Options {
            force: false,
            progress: false,
        };
        let _ = refresh(&ws, &index::listing(&ws), &opts, None);
        let old = load(&file(&ws)).expect("stored");
        let hash = old.docs[0].hash;
        // Different bytes and stat data; the table is made to vouch for the
        // old hash at the new stat data, so the file must not be read.
        write("the zebra word, longer now");
        let listing = index::listing(&ws);
        let at = listing.files.iter().position(|f| f == rel).expect("listed");
        let stat = Stat::many(&ws.root, &[rel])[0].expect("stat");
        let mut of = vec![None; listing.files.len()];
        of[at] = Some((stat, hash));
        let terms = |known: &index::Fingerprints| {
            let (bytes, done) = rebuild(&ws, &listing, Some(&old), known, &[], None);
            let loaded = decode(bytes).expect("decodes");
            let has = |t: &str| loaded.term(t).is_some();
            (
                done.tokenized,
                has("alpaca"),
                has("zebra"),
                loaded.docs[0].stat,
            )
        };
        let vouched = index::Fingerprints {
            scanned_at: i64::MAX,
            of: of.clone(),
        };
        assert_eq!(terms(&vouched), (0, true, false, stat));
        // Stat data too recent for the table's scan, another hash, or no
        // fingerprint: read and tokenized again.
        let recent = index::Fingerprints {
            scanned_at: stat.mtime,
            of,
        };
        assert_eq!(terms(&recent), (1, false, true, stat));
        let mut other = vec![None; listing.files.len()];
        other[at] = Some((stat, hash ^ 1));
        let other = index::Fingerprints {
            scanned_at: i64::MAX,
            of: other,
        };
        assert_eq!(terms(&other), (1, false, true, stat));
        assert_eq!(
            terms(&index::Fingerprints::default()),
            (1, false, true, stat)
        );
    }

    #[test]
    fn documents_span_blocks_each_checked_as_decoded() {
        let docs: Vec<Doc> = (0..DOC_BLOCK * 2 + 100)
            .map(|i| doc(&format!("memory/decisions/d{i:06}.md"), i as i64 + 1))
            .collect();
        let last = (docs.len() - 1) as u32;
        let terms = vec![("x".to_string(), vec![(0, 1), (last, 2)])];
        let bytes = encode(5, None, None, &docs, &terms, &[]);
        let loaded = decode(bytes.clone()).expect("decodes");
        assert_eq!(loaded.docs.len(), docs.len());
        for (i, d) in docs.iter().enumerate() {
            assert_eq!(loaded.path(i), d.path);
            assert_eq!(loaded.docs[i].stat, d.stat);
        }
        let x = loaded.term("x").expect("term");
        assert_eq!(loaded.postings(x), Some(terms[0].1.clone()));

        // Every block is checked, with the stored scan time; one failing
        // block fails the whole.
        let head_len = read_u64(&bytes[12..20]) as usize;
        let head = &bytes[PREFIX..PREFIX + head_len];
        let seen = std::sync::atomic::AtomicUsize::new(0);
        let count = |b: &DocBlock, scanned_at: i64| {
            assert_eq!(scanned_at, 5);
            seen.fetch_add(b.docs.len(), std::sync::atomic::Ordering::Relaxed);
            true
        };
        let blob = || Blob::Mem(Vec::new(), 0);
        let (_, passed) = decode_head(head, 0, blob(), &count, Want::Terms, None).expect("decodes");
        assert!(passed);
        assert_eq!(seen.into_inner(), docs.len());
        let changed = format!("memory/decisions/d{:06}.md", DOC_BLOCK * 2 + 7);
        let one_changed = |b: &DocBlock, _: i64| (0..b.docs.len()).all(|i| b.path(i) != changed);
        let (_, passed) =
            decode_head(head, 0, blob(), &one_changed, Want::Documents, None).expect("decodes");
        assert!(!passed);

        // Sorted within each block but not across two: refused.
        let mut swapped = docs.clone();
        swapped.swap(DOC_BLOCK - 1, DOC_BLOCK);
        assert!(decode(encode(5, None, None, &swapped, &terms, &[])).is_none());
    }

    #[test]
    fn the_smallest_documents_pass_the_count_guard() {
        // Paths that mostly differ from the last in their last byte, and
        // nothing else stored: about the fewest bytes real documents take.
        let docs: Vec<Doc> = (0..DOC_BLOCK + 5)
            .map(|i| Doc {
                path: format!("{i:04}"),
                kind: Kind::Decision,
                replaced: false,
                stat: Stat::default(),
                hash: 0,
                len: 0,
            })
            .collect();
        let loaded = decode(encode(0, None, None, &docs, &[], &[])).expect("decodes");
        assert_eq!(loaded.docs.len(), docs.len());
        assert_eq!(loaded.path(DOC_BLOCK + 4), format!("{:04}", DOC_BLOCK + 4));
    }
}
