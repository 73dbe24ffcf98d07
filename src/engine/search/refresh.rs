//! Keeping the search index fresh: which records changed (stat data,
//! content hash, the record table's fingerprints, the watcher's stamp),
//! tokenizing them, and rebuilding the stored index from the old one.

use crate::io::stat::Stat;
use crate::model::hashing::Map;
use crate::model::kind::{classify, Kind, Place};
use crate::model::workspace::Workspace;
use crate::store::listing::Listing;
use crate::store::search::*;
use crate::syntax::fields::fields;
use crate::syntax::tokens::tokenize;
use rayon::prelude::*;
use std::borrow::Cow;
use xxhash_rust::xxh3::xxh3_64;

/// Term-frequency weights of the fields (BM25F-style: a title word counts
/// three times, a description or tag word twice).
const W_TITLE: u32 = 3;
const W_DESCRIPTION: u32 = 2;
const W_TAGS: u32 = 2;
const W_BODY: u32 = 1;

/// Records tokenized per batch when building: bounds the memory a cold build
/// holds in per-record term maps.
const BATCH: usize = 4096;

// ---------------------------------------------------------------------------
// Records

/// A record read and tokenized: its doc and weighted term frequencies.
pub(super) struct Tokenized<'t> {
    pub(super) doc: Doc,
    pub(super) terms: Map<Cow<'t, str>, u32>,
}

pub(super) fn tokenize_record<'t>(
    path: &str,
    kind: Kind,
    stat: Stat,
    text: &'t str,
    hash: u64,
) -> Tokenized<'t> {
    let valid = |key: &str, node: &crate::syntax::yaml::Node| {
        crate::lint::record::valid_value(kind, key, node)
    };
    let f = fields(text, kind, &valid);
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

/// The record files among the workspace's files.
pub(super) fn record_files<'f>(ws: &Workspace, files: &'f [String]) -> Vec<(&'f str, Kind)> {
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
pub(super) fn unchanged(ws: &Workspace, loaded: &Loaded, now: i64) -> Option<bool> {
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
pub(super) struct Unchanged<'w> {
    pub(super) ws: &'w Workspace,
    pub(super) now: i64,
    pub(super) settled: std::sync::atomic::AtomicBool,
}

impl<'w> Unchanged<'w> {
    pub(super) fn new(ws: &'w Workspace, now: i64) -> Self {
        Unchanged {
            ws,
            now,
            settled: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Whether every (path, document) of a batch, from an index scanned at
    /// `scanned_at`, is unchanged.
    pub(super) fn all<'d>(
        &self,
        mut docs: impl Iterator<Item = (&'d str, &'d DocMeta)>,
        scanned_at: i64,
    ) -> bool {
        let mut dirs = crate::io::stat::Dirs::new(&self.ws.root);
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

    pub(super) fn settled(self) -> bool {
        self.settled.into_inner()
    }
}

/// The bytes a record with stat data `stat` is indexed from: none when it
/// is too large or cannot be read (it is then indexed without terms, so
/// that it does not look changed on every search), never more than
/// `max_file_bytes`.
pub(super) fn indexed_bytes(ws: &Workspace, path: &str, stat: &Stat) -> Vec<u8> {
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
pub(super) fn same_records(loaded: &Loaded, records: &[(&str, Kind)]) -> bool {
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
pub(super) fn fresh_stored(ws: &Workspace, want: Want, watch: Option<u64>) -> Stored {
    let now = crate::io::stat::now_ns();
    let check = Unchanged::new(ws, now);
    // The files of each block are stat'ed as soon as it is decoded.
    let all = |block: &DocBlock, scanned_at| {
        let docs = block.docs.iter().enumerate();
        check.all(docs.map(|(i, d)| (block.path(i), d)), scanned_at)
    };
    let (listing_id, stored) = if watch.is_some() {
        let stored = load_checked(&ws.root, &all, want, watch);
        if let Some((loaded, _)) = stored.as_ref().filter(|(l, _)| l.watch == watch) {
            debug_assert!(loaded.watch.is_some());
            let (loaded, _) = stored.expect("just matched");
            return Stored::Fresh(loaded, None, None);
        }
        (crate::store::listing::listing_id(ws), stored)
    } else {
        rayon::join(
            || crate::store::listing::listing_id(ws),
            || load_checked(&ws.root, &all, want, None),
        )
    };
    let stored = stored.map(|(loaded, same)| (loaded, same.then(|| check.settled())));
    match stored {
        Some((loaded, Some(settled))) => {
            let settled = settled.then_some(now);
            if listing_id.is_some() && loaded.listing == listing_id {
                return Stored::Fresh(loaded, None, settled);
            }
            let listing = crate::store::listing::listing(ws);
            if same_records(&loaded, &record_files(ws, &listing.files)) {
                Stored::Fresh(loaded, Some(listing), settled)
            } else {
                Stored::Stale(listing, Some(loaded))
            }
        }
        Some((loaded, None)) => Stored::Stale(crate::store::listing::listing(ws), Some(loaded)),
        None => Stored::Stale(crate::store::listing::listing(ws), None),
    }
}

/// What [`fresh_stored`] found.
pub(super) enum Stored {
    /// A fresh index, with the listing when the files had to be listed,
    /// and the scan time to restamp it with when racy documents settled.
    Fresh(Loaded, Option<Listing>, Option<i64>),
    /// The listing to rebuild from, and the stale index to reuse, if any.
    Stale(Listing, Option<Loaded>),
}

/// What a refresh did.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Refreshed {
    /// Records in the search index.
    pub records: usize,
    /// Records read and tokenized in this run.
    pub tokenized: usize,
}

/// Brings the record table and the search index up to date for the listed
/// files (every file of the workspace, sorted, as [`crate::store::listing::listing`] gives
/// them), reading only what changed. The table's reports are dropped
/// before the search index is built (only its counts and save result are
/// returned), so the two are never in memory together. `watch` is the
/// watcher stamp taken before the files were listed
/// ([`crate::io::watch::stamp`]), which the index keeps.
pub(crate) fn refresh(
    ws: &Workspace,
    listing: &Listing,
    opts: &crate::engine::scan::Options,
    watch: Option<u64>,
) -> (crate::engine::scan::Refreshed, Refreshed) {
    let (table, done, _) = refresh_keeping(ws, listing, opts, 0, watch);
    (table, done)
}

/// [`refresh`], with a context material stored for lists of at least
/// `keep` items (see [`crate::store::material::keep_for`]); also returns that
/// material, encoded.
pub(crate) fn refresh_keeping(
    ws: &Workspace,
    listing: &Listing,
    opts: &crate::engine::scan::Options,
    keep: usize,
    watch: Option<u64>,
) -> (crate::engine::scan::Refreshed, Refreshed, Vec<u8>) {
    let now = crate::io::stat::now_ns();
    let mut table = crate::engine::scan::refresh(ws, &listing.files, opts);
    let keep = keep.max(crate::engine::context::settings::stored_keep(ws));
    let context = context_block(ws, &table.reports, keep);
    table.reports = Vec::new();
    let known = std::mem::take(&mut table.fingerprints);
    let old = if opts.force { None } else { load(&ws.root) };
    if let Some(old) = &old {
        // The stored material still holds when the records are unchanged,
        // unless it was gathered by another executable or configuration, or
        // keeps fewer items than asked for.
        let key = crate::io::cache::key(&ws.config);
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
pub(super) fn context_block(
    ws: &Workspace,
    reports: &[Box<crate::lint::FileReport>],
    keep: usize,
) -> Vec<u8> {
    let glances: Vec<crate::store::table::Glance> = reports
        .iter()
        .map(|r| crate::store::table::Glance::of(r))
        .collect();
    let material = crate::store::material::material(&glances, None, keep);
    crate::store::material::encode_material(&material, keep, crate::io::cache::key(&ws.config))
}

/// What `memlint context` finds in the stored search index.
pub(crate) enum StoredContext {
    /// The index describes the workspace as it is: its context material,
    /// encoded (see [`crate::store::material::decode_material`]), and what
    /// listing the workspace met when it had to be listed to tell.
    Fresh(Vec<u8>, Vec<crate::model::workspace::Problem>),
    /// The index is stale (`true`) or there is none to update (`false`):
    /// the workspace's listing, and the watcher stamp taken before it.
    Stale(Listing, bool, Option<u64>),
}

/// The context material stored in the search index, fresh or not (nothing
/// is stat'ed); `None` without a readable index.
pub(crate) fn stored_context_unchecked(ws: &Workspace) -> Option<Vec<u8>> {
    load_checked(&ws.root, &no_check, Want::Documents, None).map(|(loaded, _)| loaded.context)
}

/// The context material stored in the search index, when the index is
/// fresh: checked like a search's, without its term dictionary.
pub(crate) fn stored_context(ws: &Workspace) -> StoredContext {
    let watch = crate::io::watch::stamp(ws);
    match fresh_stored(ws, Want::Documents, watch) {
        Stored::Fresh(loaded, listed, settled) => {
            restamp(
                ws,
                loaded.sum,
                stamps(&loaded, listed.as_ref(), settled, watch),
            );
            let problems = listed.map(|l| l.problems).unwrap_or_default();
            StoredContext::Fresh(loaded.context, problems)
        }
        Stored::Stale(listing, old) => StoredContext::Stale(listing, old.is_some(), watch),
    }
}

/// What to do with one record when rebuilding.
pub(super) enum Step<'t> {
    /// Keep the old document of this id (with possibly new stat data).
    Keep(u32, Stat),
    /// Tokenized anew.
    New(Tokenized<'t>),
    /// Could not be read.
    Gone,
}

/// The old document of each record, by path (both sorted).
pub(super) fn old_ids(records: &[(&str, Kind)], old: Option<&Loaded>) -> Vec<Option<u32>> {
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
pub(super) fn read_changed(
    ws: &Workspace,
    files: &[String],
    known: Option<&crate::engine::scan::Fingerprints>,
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
pub(super) fn merge_terms(
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
pub(super) fn rebuild(
    ws: &Workspace,
    listing: &Listing,
    old: Option<&Loaded>,
    known: &crate::engine::scan::Fingerprints,
    context: &[u8],
    watch: Option<u64>,
) -> (Vec<u8>, Refreshed) {
    let (files, listing_id) = (&listing.files, listing.id);
    // Fingerprints of other files than the listing's say nothing here.
    let known = (known.of.len() == files.len()).then_some(known);
    let scanned_at = crate::io::stat::now_ns();
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
