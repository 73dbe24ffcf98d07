//! The persistent search index, `.memlint/search`: its binary format (a
//! head of documents and a front-coded term dictionary, then the postings
//! of every term), what it stores of each record, the context material it
//! carries, and the stamps a fresh index is given. Search's freshness
//! planning and ranking live in `engine::search`.

use crate::io::stat::Stat;
use crate::model::hashing::Map;
use crate::model::kind::Kind;
use crate::store::codec::{Reader, Writer};
use crate::store::listing::Listing;
use crate::syntax::cjk::in_cjk_run;
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::Range;
use xxhash_rust::xxh3::xxh3_64;

/// The search index's name inside [`crate::io::cache::DIR`].
pub(crate) const FILE: &str = "search";

pub(crate) const MAGIC: &[u8; 8] = b"MLSEARCH";

// The on-disk format version is that of every file under `.memlint/`: an
// index of another version is rebuilt.
use crate::io::cache::FORMAT;

/// Documents per block of the stored head: each block is front-coded on
/// its own and stored behind its length, so that blocks are decoded, and
/// their files stat'ed, in parallel.
pub(crate) const DOC_BLOCK: usize = 1024;

/// What search keeps of a record besides its terms.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Doc {
    pub(crate) path: String,
    pub(crate) kind: Kind,
    /// `status: replaced`: found only with `--all`.
    pub(crate) replaced: bool,
    pub(crate) stat: Stat,
    pub(crate) hash: u64,
    /// Weighted number of tokens (BM25 document length).
    pub(crate) len: u32,
}

// ---------------------------------------------------------------------------
// The stored index
//
// Layout: a fixed prefix (magic, format, head length, head checksum), the
// head (scan time, the listing identity, the documents, the material of
// `memlint context` gathered from the same records, the term dictionary),
// then the postings of
// every term one after the other. A query reads the prefix and the head and
// then only the postings of its own terms, each checked against the
// checksum the dictionary holds for it. Paths and terms are front-coded
// (sorted, each stored as the length shared with the previous one and the
// rest); stat data is delta-coded from the previous document. Documents
// come in blocks of `DOC_BLOCK`, each coded from scratch behind its length
// in bytes (eight bytes, little-endian).

/// Bytes before the head.
pub(crate) const PREFIX: usize = 8 + 4 + 8 + 8;

/// A decoded head, with a way to read postings.
pub(crate) struct Loaded {
    pub(crate) scanned_at: i64,
    /// The identity of the workspace listing the documents came from.
    pub(crate) listing: Option<u64>,
    /// The stamp of the watcher token the index was last found fresh
    /// under (see [`crate::io::watch`]).
    pub(crate) watch: Option<u64>,
    /// The checksum of the head as loaded, so that a restamp leaves alone
    /// an index another run has replaced since.
    pub(crate) sum: u64,
    pub(crate) docs: Vec<DocMeta>,
    /// The paths of each block of [`DOC_BLOCK`] documents, one after the
    /// other; `DocMeta::end` marks where each ends in its block's.
    pub(crate) paths: Vec<String>,
    /// Sorted by term.
    pub(crate) terms: Vec<TermMeta>,
    pub(crate) term_text: String,
    pub(crate) blob: Blob,
    /// The context material of the records (see
    /// [`crate::store::material::encode_material`]).
    pub(crate) context: Vec<u8>,
    /// The documents' mean length, once asked for (see [`Loaded::avg_len`]).
    avg_len: std::sync::OnceLock<f64>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct DocMeta {
    pub(crate) end: usize,
    pub(crate) kind: Kind,
    pub(crate) replaced: bool,
    pub(crate) stat: Stat,
    pub(crate) hash: u64,
    pub(crate) len: u32,
}

impl DocMeta {
    /// A placeholder, overwritten as its block is decoded.
    const EMPTY: DocMeta = DocMeta {
        end: 0,
        kind: Kind::ALL[0],
        replaced: false,
        stat: Stat {
            size: 0,
            mtime: 0,
            ctime: 0,
            ino: 0,
        },
        hash: 0,
        len: 0,
    };
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct TermMeta {
    pub(crate) end: usize,
    pub(crate) df: u32,
    pub(crate) offset: u64,
    pub(crate) len: usize,
    pub(crate) sum: u64,
}

/// Where the postings are: the index file, read on demand, or the bytes of
/// an index just built.
pub(crate) enum Blob {
    File(crate::io::files::File, u64),
    Mem(Vec<u8>, usize),
}

impl Blob {
    pub(crate) fn read(&self, offset: u64, len: usize) -> Option<Cow<'_, [u8]>> {
        match self {
            Blob::File(file, base) => {
                let mut buf = vec![0u8; len];
                crate::io::files::read_exact_at(file, &mut buf, base.checked_add(offset)?).ok()?;
                Some(Cow::Owned(buf))
            }
            Blob::Mem(bytes, base) => {
                let start = base.checked_add(usize::try_from(offset).ok()?)?;
                bytes.get(start..start.checked_add(len)?).map(Cow::Borrowed)
            }
        }
    }
}

/// Postings in memory: (doc id, weighted tf), by doc id.
pub(crate) type Postings = Vec<(u32, u32)>;

pub(crate) fn shared_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

pub(crate) fn encode(
    scanned_at: i64,
    listing: Option<u64>,
    watch: Option<u64>,
    docs: &[Doc],
    terms: &[(String, Postings)],
    context: &[u8],
) -> Vec<u8> {
    let mut head = Writer {
        buf: Vec::with_capacity(64 + docs.len() * 56 + terms.len() * 24),
    };
    head.buf.extend_from_slice(&scanned_at.to_le_bytes());
    head.buf.extend_from_slice(&[0; 18]);
    put_listing(&mut head.buf[8..17], listing);
    put_listing(&mut head.buf[17..26], watch);
    head.usize(docs.len());
    let mut block = Writer { buf: Vec::new() };
    for chunk in docs.chunks(DOC_BLOCK) {
        block.buf.clear();
        let (mut prev_path, mut prev) = ("", Stat::default());
        for d in chunk {
            let shared = shared_prefix(prev_path, &d.path);
            block.usize(shared);
            block.str(&d.path[shared..]);
            let kind = Kind::ALL.iter().position(|k| *k == d.kind).unwrap_or(0) as u8;
            block.u8(kind | u8::from(d.replaced) << 4);
            block.uint(d.stat.size);
            block.int(d.stat.mtime.wrapping_sub(prev.mtime));
            block.int(d.stat.ctime.wrapping_sub(prev.ctime));
            block.int((d.stat.ino as i64).wrapping_sub(prev.ino as i64));
            block.buf.extend_from_slice(&d.hash.to_le_bytes());
            block.uint(u64::from(d.len));
            prev_path = &d.path;
            prev = d.stat;
        }
        head.buf
            .extend_from_slice(&(block.buf.len() as u64).to_le_bytes());
        head.buf.extend_from_slice(&block.buf);
    }
    head.buf
        .extend_from_slice(&(context.len() as u64).to_le_bytes());
    head.buf.extend_from_slice(context);
    head.usize(terms.len());
    let mut blob = Writer { buf: Vec::new() };
    let mut prev_term = "";
    for (term, postings) in terms {
        let start = blob.buf.len();
        let mut prev_doc = 0u32;
        for &(doc, tf) in postings {
            blob.uint(u64::from(doc - prev_doc));
            blob.uint(u64::from(tf));
            prev_doc = doc;
        }
        let shared = shared_prefix(prev_term, term);
        head.usize(shared);
        head.str(&term[shared..]);
        head.usize(postings.len());
        head.usize(blob.buf.len() - start);
        head.buf
            .extend_from_slice(&xxh3_64(&blob.buf[start..]).to_le_bytes());
        prev_term = term;
    }
    head.usize(blob.buf.len());
    let mut out = Vec::with_capacity(PREFIX + head.buf.len() + blob.buf.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&(head.buf.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxh3_64(&head.buf).to_le_bytes());
    out.extend_from_slice(&head.buf);
    out.extend_from_slice(&blob.buf);
    out
}

/// Where the listing identity sits in a stored index: after the scan time,
/// as a flag byte and eight bytes.
pub(crate) const LISTING_AT: usize = PREFIX + 8;

/// Where the watcher stamp sits: after the listing identity, the same way.
pub(crate) const WATCH_AT: usize = LISTING_AT + 9;

pub(crate) fn put_listing(at: &mut [u8], listing: Option<u64>) {
    at[0] = u8::from(listing.is_some());
    at[1..9].copy_from_slice(&listing.unwrap_or(0).to_le_bytes());
}

/// What [`restamp`] changes in a stored index found fresh.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Stamps {
    /// Another listing identity (a listing stored again after a directory
    /// changed, with the same records). Not restamped when no listing
    /// could be stored: the old stamp then matches no listing, which costs
    /// nothing but a listing of the files.
    pub(crate) listing: Option<u64>,
    /// A later scan time (every document was found unchanged at that time).
    pub(crate) scanned_at: Option<i64>,
    /// The stamp of the watcher token taken before the index was checked.
    pub(crate) watch: Option<u64>,
}

impl Stamps {
    /// Whether there is nothing to restamp: the stored index need not
    /// even be read (it is tens of megabytes on a large workspace, read
    /// on every warm search otherwise).
    pub(crate) fn is_empty(&self) -> bool {
        self.listing.is_none() && self.scanned_at.is_none() && self.watch.is_none()
    }
}

/// The stamps to give an index found fresh: the listing it was checked
/// against and the watcher stamp, where they differ from its own.
pub(crate) fn stamps(
    loaded: &Loaded,
    listed: Option<&Listing>,
    settled: Option<i64>,
    watch: Option<u64>,
) -> Stamps {
    Stamps {
        listing: listed
            .and_then(|l| l.id)
            .filter(|id| Some(*id) != loaded.listing),
        scanned_at: settled,
        watch: watch.filter(|w| Some(*w) != loaded.watch),
    }
}

/// Restamps `bytes`, a stored index, with `stamps` when it is still the
/// one loaded with head checksum `loaded_sum`; `false` when it is not (or
/// there is nothing to change), and nothing is to be saved.
pub(crate) fn restamp_bytes(bytes: &mut [u8], loaded_sum: u64, stamps: Stamps) -> bool {
    if stamps.is_empty() {
        return false;
    }
    let Stamps {
        listing,
        scanned_at,
        watch,
    } = stamps;
    let Some(head_len) = bytes
        .get(12..20)
        .and_then(|b| usize::try_from(u64::from_le_bytes(b.try_into().ok()?)).ok())
    else {
        return false;
    };
    let Some(end) = PREFIX.checked_add(head_len).filter(|e| *e <= bytes.len()) else {
        return false;
    };
    let sum = read_u64(&bytes[20..28]);
    if end < WATCH_AT + 9 || sum != loaded_sum || xxh3_64(&bytes[PREFIX..end]) != sum {
        return false;
    }
    if let Some(t) = scanned_at {
        bytes[PREFIX..PREFIX + 8].copy_from_slice(&t.to_le_bytes());
    }
    if listing.is_some() {
        put_listing(&mut bytes[LISTING_AT..LISTING_AT + 9], listing);
    }
    if watch.is_some() {
        put_listing(&mut bytes[WATCH_AT..WATCH_AT + 9], watch);
    }
    let sum = xxh3_64(&bytes[PREFIX..end]);
    bytes[20..28].copy_from_slice(&sum.to_le_bytes());
    true
}

pub(crate) fn read_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().unwrap_or_default())
}

/// The search index's path in the workspace at `root`.
pub(crate) fn path(root: &std::path::Path) -> std::path::PathBuf {
    root.join(crate::io::cache::DIR).join(FILE)
}

/// Opens the index of the workspace at `root` and decodes its head; `None`
/// when it is missing, of another format, or damaged.
pub(crate) fn load(root: &std::path::Path) -> Option<Loaded> {
    load_checked(root, &no_check, Want::Terms, None).map(|(loaded, _)| loaded)
}

/// Stores `bytes` (an [`encode`]d index) as the index of `ws`; a cache, so
/// a failure to write is ignored (the next run builds it again).
pub(crate) fn save(ws: &crate::model::workspace::Workspace, bytes: &[u8]) {
    let _ = crate::io::cache::make_dir(&ws.root)
        .and_then(|dir| crate::io::fs::write_cache(&dir.join(FILE), bytes));
}

/// Rewrites the stored index of `ws` with `stamps`, when it is still the
/// one loaded with head checksum `loaded_sum` (see [`restamp_bytes`]).
pub(crate) fn restamp(ws: &crate::model::workspace::Workspace, loaded_sum: u64, stamps: Stamps) {
    if stamps.is_empty() {
        return;
    }
    let Ok(mut bytes) = crate::io::fs::read_regular(&path(&ws.root), crate::io::fs::CACHE_FILE_MAX)
    else {
        return;
    };
    if restamp_bytes(&mut bytes, loaded_sum, stamps) {
        save(ws, &bytes);
    }
}

/// Whether a load decodes the term dictionary, which a query needs and
/// `context` does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    Terms,
    Documents,
}

/// [`load`], running `check` on the blocks of documents as they are
/// decoded (see [`decode_head`]) unless the index holds the watcher stamp
/// `trusted`; without the term dictionary when `want` is
/// [`Want::Documents`].
pub(crate) fn load_checked(
    root: &std::path::Path,
    check: Check,
    want: Want,
    trusted: Option<u64>,
) -> Option<(Loaded, bool)> {
    use std::io::Read;
    let mut file = crate::io::fs::open_regular(&path(root)).ok()?;
    let size = file.metadata().ok()?.len();
    let mut prefix = [0u8; PREFIX];
    file.read_exact(&mut prefix).ok()?;
    if &prefix[..8] != MAGIC || prefix[8..12] != FORMAT.to_le_bytes() {
        return None;
    }
    let head_len = u64::from_le_bytes(prefix[12..20].try_into().ok()?);
    let sum = u64::from_le_bytes(prefix[20..28].try_into().ok()?);
    if head_len > size {
        return None;
    }
    let mut head = vec![0u8; usize::try_from(head_len).ok()?];
    file.read_exact(&mut head).ok()?;
    if xxh3_64(&head) != sum {
        return None;
    }
    let base = PREFIX as u64 + head_len;
    let (loaded, passed) = decode_head(&head, sum, Blob::File(file, base), check, want, trusted)?;
    let blob_len = loaded.terms.last().map_or(0, |t| t.offset + t.len as u64);
    (want == Want::Documents || base.checked_add(blob_len)? == size).then_some((loaded, passed))
}

/// Decodes a whole index held in memory.
pub(crate) fn decode(bytes: Vec<u8>) -> Option<Loaded> {
    let prefix = bytes.get(..PREFIX)?;
    if &prefix[..8] != MAGIC || prefix[8..12] != FORMAT.to_le_bytes() {
        return None;
    }
    let head_len = usize::try_from(u64::from_le_bytes(prefix[12..20].try_into().ok()?)).ok()?;
    let sum = u64::from_le_bytes(prefix[20..28].try_into().ok()?);
    let head = bytes.get(PREFIX..PREFIX.checked_add(head_len)?)?.to_vec();
    if xxh3_64(&head) != sum {
        return None;
    }
    let base = PREFIX + head_len;
    let size = bytes.len();
    let (loaded, _) = decode_head(
        &head,
        sum,
        Blob::Mem(bytes, base),
        &no_check,
        Want::Terms,
        None,
    )?;
    let blob_len = loaded.terms.last().map_or(0, |t| t.offset + t.len as u64);
    (base as u64 + blob_len == size as u64).then_some(loaded)
}

/// The documents of one stored block, their paths one after the other
/// (`DocMeta::end` counts from the block's first path).
pub(crate) struct DocBlock<'d> {
    pub(crate) docs: &'d [DocMeta],
    pub(crate) paths: &'d str,
}

impl DocBlock<'_> {
    pub(crate) fn path(&self, i: usize) -> &str {
        nth_path(self.paths, self.docs, i)
    }
}

/// Path `i` of `docs`, whose paths lie one after the other in `paths`.
pub(crate) fn nth_path<'p>(paths: &'p str, docs: &[DocMeta], i: usize) -> &'p str {
    let start = if i == 0 { 0 } else { docs[i - 1].end };
    &paths[start..docs[i].end]
}

/// A check of the files of a block of documents of an index scanned at the
/// given time, run on each block as it is decoded; see [`decode_head`].
pub(crate) type Check<'c> = &'c (dyn Fn(&DocBlock<'_>, i64) -> bool + Sync);

/// Checks nothing.
pub(crate) fn no_check(_: &DocBlock<'_>, _: i64) -> bool {
    true
}

/// Decodes a head, its blocks of documents in parallel beside the term
/// dictionary, running `check` on each block as it is decoded until one
/// fails; also whether none failed.
pub(crate) fn decode_head(
    head: &[u8],
    sum: u64,
    blob: Blob,
    check: Check,
    want: Want,
    trusted: Option<u64>,
) -> Option<(Loaded, bool)> {
    let mut r = Reader { buf: head, pos: 0 };
    let scanned_at = i64::from_le_bytes(r.bytes(8)?.try_into().ok()?);
    let mut flagged = || match (r.u8()?, r.fixed64()?) {
        (0, _) => Some(None),
        (1, id) => Some(Some(id)),
        _ => None,
    };
    let listing = flagged()?;
    let watch = flagged()?;
    // The watcher vouches that nothing changed since the index was found
    // fresh under this stamp.
    let check = if trusted.is_some() && watch == trusted {
        &no_check
    } else {
        check
    };
    let n = r.count()?;
    // Block k holds documents k·DOC_BLOCK.., as `docs.chunks(DOC_BLOCK)`.
    let mut blocks: Vec<Range<usize>> = Vec::with_capacity(n.div_ceil(DOC_BLOCK));
    for _ in 0..n.div_ceil(DOC_BLOCK) {
        let len = usize::try_from(r.fixed64()?).ok()?;
        let start = r.pos;
        r.bytes(len)?;
        blocks.push(start..r.pos);
    }
    let context_len = usize::try_from(r.fixed64()?).ok()?;
    let context = r.bytes(context_len)?.to_vec();
    // A crafted count cannot make the table below outgrow the file.
    let block_bytes: usize = blocks.iter().map(Range::len).sum();
    if n > block_bytes / MIN_DOC_BYTES {
        return None;
    }
    let failed = std::sync::atomic::AtomicBool::new(false);
    // Each block is decoded straight into its place in the one table of
    // documents: no table per block to copy from (fresh memory is dear on
    // a short run).
    let mut docs: Vec<DocMeta> = vec![DocMeta::EMPTY; n];
    let (paths, terms) = rayon::join(
        || {
            docs.par_chunks_mut(DOC_BLOCK)
                .zip(blocks.par_iter())
                .map(|(slots, range)| {
                    let paths = decode_block(&head[range.clone()], slots)?;
                    let block = DocBlock {
                        docs: slots,
                        paths: &paths,
                    };
                    use std::sync::atomic::Ordering::Relaxed;
                    if !failed.load(Relaxed) && !check(&block, scanned_at) {
                        failed.store(true, Relaxed);
                    }
                    Some(paths)
                })
                .collect::<Option<Vec<String>>>()
        },
        || match want {
            Want::Terms => decode_terms(&head[r.pos..]),
            Want::Documents => Some((Vec::new(), String::new())),
        },
    );
    let (paths, (terms, term_text)) = (paths?, terms?);
    if paths.len() != n.div_ceil(DOC_BLOCK) {
        return None;
    }
    let loaded = Loaded {
        scanned_at,
        listing,
        watch,
        sum,
        docs,
        paths,
        terms,
        term_text,
        blob,
        context,
        avg_len: std::sync::OnceLock::new(),
    };
    // Sorted across blocks too.
    let sorted = (DOC_BLOCK..n)
        .step_by(DOC_BLOCK)
        .all(|first| loaded.path(first - 1) < loaded.path(first));
    if !sorted {
        return None;
    }
    Some((loaded, !failed.into_inner()))
}

/// The fewest bytes a stored document takes: a byte each for the shared
/// prefix length, the rest of the path (its length, at least), the kind,
/// the size, the three stat deltas and the length, and eight for the hash.
pub(crate) const MIN_DOC_BYTES: usize = 16;

/// Decodes a block of `docs.len()` documents (front-coded from an empty
/// path, stat data delta-coded from zero) into `docs`; returns their paths.
pub(crate) fn decode_block(bytes: &[u8], docs: &mut [DocMeta]) -> Option<String> {
    let mut r = Reader { buf: bytes, pos: 0 };
    let mut paths = String::with_capacity(bytes.len() + docs.len() * 24);
    let mut prev_start = 0;
    let mut prev = Stat::default();
    for slot in docs.iter_mut() {
        let shared = r.usize()?;
        let last = &paths[prev_start..];
        if shared > last.len() || !last.is_char_boundary(shared) {
            return None;
        }
        let start = paths.len();
        paths.extend_from_within(prev_start..prev_start + shared);
        paths.push_str(r.str_ref()?);
        if start > 0 && paths[prev_start..start] >= paths[start..] {
            return None;
        }
        let byte = r.u8()?;
        let kind = *Kind::ALL.get(usize::from(byte & 0x0f))?;
        let stat = Stat {
            size: r.uint()?,
            mtime: prev.mtime.wrapping_add(r.int()?),
            ctime: prev.ctime.wrapping_add(r.int()?),
            ino: (prev.ino as i64).wrapping_add(r.int()?) as u64,
        };
        prev = stat;
        *slot = DocMeta {
            end: paths.len(),
            kind,
            replaced: byte & 0x10 != 0,
            stat,
            hash: r.fixed64()?,
            len: u32::try_from(r.uint()?).ok()?,
        };
        prev_start = start;
    }
    (r.pos == bytes.len()).then_some(paths)
}

/// Decodes the term dictionary and the postings length that end a head.
pub(crate) fn decode_terms(bytes: &[u8]) -> Option<(Vec<TermMeta>, String)> {
    let mut r = Reader { buf: bytes, pos: 0 };
    let n = r.count()?;
    let mut terms: Vec<TermMeta> = Vec::with_capacity(n);
    let mut term_text = String::with_capacity(n * 8);
    let mut prev_start = 0;
    let mut offset = 0u64;
    for _ in 0..n {
        let shared = r.usize()?;
        let last = &term_text[prev_start..];
        if shared > last.len() || !last.is_char_boundary(shared) {
            return None;
        }
        let start = term_text.len();
        term_text.extend_from_within(prev_start..prev_start + shared);
        term_text.push_str(r.str_ref()?);
        if start > 0 && term_text[prev_start..start] >= term_text[start..] {
            return None;
        }
        let df = u32::try_from(r.usize()?).ok()?;
        let len = r.usize()?;
        terms.push(TermMeta {
            end: term_text.len(),
            df,
            offset,
            len,
            sum: r.fixed64()?,
        });
        offset = offset.checked_add(len as u64)?;
        prev_start = start;
    }
    let blob_len = r.uint()?;
    (blob_len == offset && r.pos == r.buf.len()).then_some((terms, term_text))
}

impl Loaded {
    /// The documents' mean length in tokens, at least 1: summed once,
    /// on first use (a process that holds the index, the MCP server,
    /// answers many queries from it without going over every document
    /// for each).
    pub(crate) fn avg_len(&self) -> f64 {
        *self.avg_len.get_or_init(|| {
            let n = self.docs.len().max(1) as f64;
            let avg = self.docs.iter().map(|d| f64::from(d.len)).sum::<f64>() / n;
            avg.max(1.0)
        })
    }

    pub(crate) fn path(&self, i: usize) -> &str {
        let first = i - i % DOC_BLOCK;
        let block = &self.docs[first..self.docs.len().min(first + DOC_BLOCK)];
        nth_path(&self.paths[i / DOC_BLOCK], block, i - first)
    }

    pub(crate) fn term_str(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.terms[i - 1].end };
        &self.term_text[start..self.terms[i].end]
    }

    /// The index of `term` in the dictionary.
    pub(crate) fn term(&self, term: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.terms.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.term_str(mid).cmp(term) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The postings of a query term, `Some(None)` when no record has it,
    /// `None` when a posting list is damaged. Records hold CJK text as
    /// bigrams, so a one-character CJK query term matches every bigram that
    /// holds the character (with its own bigram counts summed).
    pub(crate) fn matches(&self, term: &str) -> Option<Option<Postings>> {
        let mut chars = term.chars();
        let single_cjk = matches!((chars.next(), chars.next()), (Some(c), None) if in_cjk_run(c));
        if !single_cjk {
            return match self.term(term) {
                Some(i) => self.postings(i).map(Some),
                None => Some(None),
            };
        }
        let c = term.chars().next().expect("one character");
        let mut merged: Map<u32, u32> = Map::default();
        for i in 0..self.terms.len() {
            let t = self.term_str(i);
            if t == term || (t.chars().count() == 2 && t.contains(c)) {
                for (doc, tf) in self.postings(i)? {
                    *merged.entry(doc).or_insert(0) += tf;
                }
            }
        }
        if merged.is_empty() {
            return Some(None);
        }
        let mut list: Postings = merged.into_iter().collect();
        list.sort_unstable_by_key(|(d, _)| *d);
        Some(Some(list))
    }

    /// The postings of term `i`, read from the file and checked.
    pub(crate) fn postings(&self, i: usize) -> Option<Postings> {
        let t = self.terms[i];
        let bytes = self.blob.read(t.offset, t.len)?;
        if xxh3_64(&bytes) != t.sum {
            return None;
        }
        let mut r = Reader {
            buf: &bytes,
            pos: 0,
        };
        let mut out = Vec::with_capacity((t.df as usize).min(bytes.len()));
        let mut doc = 0u64;
        for k in 0..t.df {
            let delta = r.uint()?;
            if k > 0 && delta == 0 {
                return None;
            }
            doc = doc.checked_add(delta)?;
            if doc >= self.docs.len() as u64 {
                return None;
            }
            out.push((doc as u32, u32::try_from(r.uint()?).ok()?));
        }
        (r.pos == r.buf.len()).then_some(out)
    }
}
