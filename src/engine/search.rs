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
//! [`stat::RACY_NS`] of the scan that indexed it is verified by content.
//! A missing, damaged or older index is rebuilt silently.

use crate::engine::scan;
use crate::engine::workspace::Workspace;
use crate::io::stat::{self, Stat};
use crate::model::hashing::Map;
use crate::model::kind::{classify, stem, Kind, Place};
use crate::store::codec::{Reader, Writer};
use crate::store::listing::{self, Listing};
use crate::store::table;
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::Range;
use unicode_segmentation::UnicodeSegmentation;
use xxhash_rust::xxh3::xxh3_64;

/// The search index's name inside [`table::DIR`].
pub const FILE: &str = "search";

const MAGIC: &[u8; 8] = b"MLSEARCH";

/// The on-disk format version; an index of another version is rebuilt.
const FORMAT: u32 = 5;

/// Documents per block of the stored head: each block is front-coded on
/// its own and stored behind its length, so that blocks are decoded, and
/// their files stat'ed, in parallel.
const DOC_BLOCK: usize = 1024;

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
// Tokens

/// Whether `c` belongs to a Han, Hiragana, Katakana or Hangul run.
pub fn in_cjk_run(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF          // Hangul Jamo
        | 0x3130..=0x318F        // Hangul Compatibility Jamo
        | 0xA960..=0xA97F        // Hangul Jamo Extended-A
        | 0xAC00..=0xD7AF        // Hangul Syllables
        | 0xD7B0..=0xD7FF        // Hangul Jamo Extended-B
        | 0x3040..=0x309F        // Hiragana
        | 0x30A0..=0x30FF        // Katakana (with the prolonged sound mark)
        | 0x31F0..=0x31FF        // Katakana Phonetic Extensions
        | 0xFF66..=0xFF9F        // Halfwidth Katakana
        | 0x3005 | 0x3007 | 0x303B // 々 〇 〻
        | 0x2E80..=0x2FDF        // CJK Radicals, Kangxi Radicals
        | 0x3400..=0x4DBF        // CJK Extension A
        | 0x4E00..=0x9FFF        // CJK Unified Ideographs
        | 0xF900..=0xFAFF        // CJK Compatibility Ideographs
        | 0x20000..=0x323AF // CJK Extensions B–H and compatibility supplement
    )
}

/// Calls `emit` with every token of `text` and the byte range it came from.
pub fn tokenize(text: &str, mut emit: impl FnMut(Cow<'_, str>, Range<usize>)) {
    let mut start = 0;
    while start < text.len() {
        let rest = &text[start..];
        let cjk = rest.chars().next().is_some_and(in_cjk_run);
        let len = rest
            .char_indices()
            .find(|(_, c)| in_cjk_run(*c) != cjk)
            .map_or(rest.len(), |(i, _)| i);
        let run = &rest[..len];
        if cjk {
            bigrams(run, start, &mut emit);
        } else {
            words(run, start, &mut emit);
        }
        start += len;
    }
}

fn bigrams(run: &str, base: usize, emit: &mut impl FnMut(Cow<'_, str>, Range<usize>)) {
    let bounds: Vec<usize> = run
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(run.len()))
        .collect();
    if bounds.len() == 2 {
        emit(Cow::Borrowed(run), base..base + run.len());
        return;
    }
    for w in bounds.windows(3) {
        emit(Cow::Borrowed(&run[w[0]..w[2]]), base + w[0]..base + w[2]);
    }
}

fn words(run: &str, base: usize, emit: &mut impl FnMut(Cow<'_, str>, Range<usize>)) {
    word_indices(run, |at, word| word_and_parts(word, base + at, emit));
}

/// The words of `text` and their offsets, as `unicode_word_indices` finds
/// them. The text is cut at each lone ASCII white space between ASCII
/// characters (or an end): the word rules always break on both sides of
/// it there, and none looks across it. Pieces in ASCII then take
/// [`AsciiWords`]; the others, the general segmenter.
fn word_indices<'t>(text: &'t str, mut f: impl FnMut(usize, &'t str)) {
    let b = text.as_bytes();
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C);
    // Only a lone white space between ASCII characters that are not white
    // space. A mark after spaces joins them into one segment (an
    // alphabetic mark makes a word of it), so a space followed by a space
    // or by anything past ASCII is never cut. Before the space, UAX #29
    // also joins a space to spaces and marks before it; unicode-
    // segmentation does not, but a cut there would differ from the rules.
    let solid = |c: Option<&u8>| c.is_none_or(|c| c.is_ascii() && !space(*c));
    let cut =
        |i: usize| space(b[i]) && solid(i.checked_sub(1).map(|j| &b[j])) && solid(b.get(i + 1));
    let mut from = 0;
    while from < b.len() {
        let mut to = from;
        while to < b.len() && !cut(to) {
            to += 1;
        }
        let piece = &text[from..to];
        if piece.is_ascii() {
            AsciiWords::new(piece).for_each(|(at, w)| f(from + at, w));
        } else {
            piece
                .unicode_word_indices()
                .for_each(|(at, w)| f(from + at, w));
        }
        from = to + 1;
    }
}

/// The words of ASCII text exactly as `unicode_word_indices` finds them
/// (Unicode's word boundary rules, UAX #29, restricted to ASCII), without
/// looking up every character's class in a large table, which was nearly
/// half of a cold index build. In ASCII: letters, digits and
/// `_` join into one word; `:`, `.` and `'` join letters on both sides
/// (`e.g`, `don't`); `.`, `'`, `,` and `;` join digits on both sides
/// (`3.14`, `1,000`). A segment without a letter or digit is no word.
struct AsciiWords<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> AsciiWords<'a> {
    fn new(text: &'a str) -> Self {
        debug_assert!(text.is_ascii());
        AsciiWords { text, at: 0 }
    }
}

impl<'a> Iterator for AsciiWords<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let b = self.text.as_bytes();
        let letter = |i: usize| b.get(i).is_some_and(u8::is_ascii_alphabetic);
        let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
        let joined = |i: usize| {
            b.get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        };
        loop {
            // Skip to a letter, digit or `_`: anything else is a segment of
            // its own, or part of a run of spaces, and holds no word.
            while self.at < b.len() && !joined(self.at) {
                self.at += 1;
            }
            if self.at >= b.len() {
                return None;
            }
            let start = self.at;
            let mut i = start;
            loop {
                while joined(i) {
                    i += 1;
                }
                // `i` is past the run; a middle character joins it to the
                // next when letters or digits stand on both sides.
                let mid = b.get(i).copied();
                let joins_letters =
                    matches!(mid, Some(b':' | b'.' | b'\'')) && letter(i - 1) && letter(i + 1);
                let joins_digits =
                    matches!(mid, Some(b'.' | b'\'' | b',' | b';')) && digit(i - 1) && digit(i + 1);
                if joins_letters || joins_digits {
                    i += 1;
                } else {
                    break;
                }
            }
            self.at = i;
            let word = &self.text[start..i];
            if word.bytes().any(|c| c.is_ascii_alphanumeric()) {
                return Some((start, word));
            }
        }
    }
}

/// Emits a word, and the alphanumeric parts of a word joined by
/// punctuation.
fn word_and_parts(word: &str, start: usize, emit: &mut impl FnMut(Cow<'_, str>, Range<usize>)) {
    emit(lower(word), start..start + word.len());
    // A word joined by punctuation (`replaced_by`, `Cargo.toml`,
    // `don't`) also yields its alphanumeric parts.
    if word.chars().any(|c| !c.is_alphanumeric()) {
        let mut from = 0;
        for (i, c) in word
            .char_indices()
            .chain(std::iter::once((word.len(), ' ')))
        {
            if !c.is_alphanumeric() || i == word.len() {
                if i > from {
                    let part = &word[from..i];
                    emit(lower(part), start + from..start + i);
                }
                from = i + c.len_utf8();
            }
        }
    }
}

fn lower(word: &str) -> Cow<'_, str> {
    if word.bytes().any(|b| b.is_ascii_uppercase()) || !word.is_ascii() {
        let low = word.to_lowercase();
        if low == word {
            Cow::Borrowed(word)
        } else {
            Cow::Owned(low)
        }
    } else {
        Cow::Borrowed(word)
    }
}

/// The distinct tokens of a query, in order of first appearance.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    tokenize(query, |t, _| {
        if !out.iter().any(|o| *o == *t) {
            out.push(t.into_owned());
        }
    });
    out
}

// ---------------------------------------------------------------------------
// Records

/// What search keeps of a record besides its terms.
#[derive(Debug, Clone, PartialEq)]
struct Doc {
    path: String,
    kind: Kind,
    /// `status: replaced`: found only with `--all`.
    replaced: bool,
    stat: Stat,
    hash: u64,
    /// Weighted number of tokens (BM25 document length).
    len: u32,
}

/// The searchable fields of a record's text. A record whose front matter
/// cannot be read is searched as plain text: a broken record must still be
/// found.
struct Fields<'t> {
    title: Option<Cow<'t, str>>,
    description: Option<Cow<'t, str>>,
    tags: Vec<Cow<'t, str>>,
    status: Option<String>,
    body: &'t str,
}

fn fields(text: &str, kind: Kind) -> Fields<'_> {
    let plain = Fields {
        title: None,
        description: None,
        tags: Vec::new(),
        status: None,
        body: text,
    };
    let crate::syntax::frontmatter::Split::Found(parts) = crate::syntax::frontmatter::split(text)
    else {
        return plain;
    };
    let Ok(doc) = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start) else {
        return plain;
    };
    let Some(root) = doc.root else {
        return Fields {
            body: &text[parts.body],
            ..plain
        };
    };
    let scalar = |key: &str| -> Option<String> {
        root.get(key)
            .and_then(|e| e.value.as_scalar())
            .map(|s| s.text.clone())
            .filter(|s| !s.is_empty())
    };
    let tags = match root.get("tags").map(|e| &e.value.value) {
        Some(crate::syntax::yaml::Value::Seq { items, .. }) => items
            .iter()
            .filter_map(|n| n.as_scalar().map(|s| Cow::Owned(s.text.clone())))
            .collect(),
        Some(crate::syntax::yaml::Value::Scalar(s)) => vec![Cow::Owned(s.text.clone())],
        _ => Vec::new(),
    };
    let status = scalar("status").or_else(|| (kind == Kind::Knowledge).then(|| "active".into()));
    Fields {
        title: scalar("title").map(Cow::Owned),
        description: scalar("description").map(Cow::Owned),
        tags,
        status,
        body: &text[parts.body],
    }
}

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
const PREFIX: usize = 8 + 4 + 8 + 8;

/// A decoded head, with a way to read postings.
struct Loaded {
    scanned_at: i64,
    /// The identity of the workspace listing the documents came from.
    listing: Option<u64>,
    /// The stamp of the watcher token the index was last found fresh
    /// under (see [`crate::io::watch`]).
    watch: Option<u64>,
    /// The checksum of the head as loaded, so that a restamp leaves alone
    /// an index another run has replaced since.
    sum: u64,
    docs: Vec<DocMeta>,
    /// The paths of each block of [`DOC_BLOCK`] documents, one after the
    /// other; `DocMeta::end` marks where each ends in its block's.
    paths: Vec<String>,
    /// Sorted by term.
    terms: Vec<TermMeta>,
    term_text: String,
    blob: Blob,
    /// The context material of the records (see
    /// [`crate::engine::context::encode_material`]).
    context: Vec<u8>,
}

#[derive(Debug, Clone, Copy)]
struct DocMeta {
    end: usize,
    kind: Kind,
    replaced: bool,
    stat: Stat,
    hash: u64,
    len: u32,
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
struct TermMeta {
    end: usize,
    df: u32,
    offset: u64,
    len: usize,
    sum: u64,
}

/// Where the postings are: the index file, read on demand, or the bytes of
/// an index just built.
enum Blob {
    File(std::fs::File, u64),
    Mem(Vec<u8>, usize),
}

impl Blob {
    fn read(&self, offset: u64, len: usize) -> Option<Cow<'_, [u8]>> {
        match self {
            Blob::File(file, base) => {
                let mut buf = vec![0u8; len];
                read_at(file, &mut buf, base.checked_add(offset)?).ok()?;
                Some(Cow::Owned(buf))
            }
            Blob::Mem(bytes, base) => {
                let start = base.checked_add(usize::try_from(offset).ok()?)?;
                bytes.get(start..start.checked_add(len)?).map(Cow::Borrowed)
            }
        }
    }
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &std::fs::File, mut buf: &mut [u8], mut at: u64) -> std::io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, at)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
}

/// Postings in memory: (doc id, weighted tf), by doc id.
type Postings = Vec<(u32, u32)>;

fn shared_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

fn encode(
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
const LISTING_AT: usize = PREFIX + 8;

/// Where the watcher stamp sits: after the listing identity, the same way.
const WATCH_AT: usize = LISTING_AT + 9;

fn put_listing(at: &mut [u8], listing: Option<u64>) {
    at[0] = u8::from(listing.is_some());
    at[1..9].copy_from_slice(&listing.unwrap_or(0).to_le_bytes());
}

/// What [`restamp`] changes in a stored index found fresh.
#[derive(Debug, Default, Clone, Copy)]
struct Stamps {
    /// Another listing identity (a listing stored again after a directory
    /// changed, with the same records). Not restamped when no listing
    /// could be stored: the old stamp then matches no listing, which costs
    /// nothing but a listing of the files.
    listing: Option<u64>,
    /// A later scan time (every document was found unchanged at that time).
    scanned_at: Option<i64>,
    /// The stamp of the watcher token taken before the index was checked.
    watch: Option<u64>,
}

/// The stamps to give an index found fresh: the listing it was checked
/// against and the watcher stamp, where they differ from its own.
fn stamps(
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

/// Rewrites the stored index, when it is still the one loaded with head
/// checksum `loaded_sum`, with `stamps`.
fn restamp(ws: &Workspace, loaded_sum: u64, stamps: Stamps) {
    let Stamps {
        listing,
        scanned_at,
        watch,
    } = stamps;
    if listing.is_none() && scanned_at.is_none() && watch.is_none() {
        return;
    }
    let path = file(ws);
    let Ok(mut bytes) = crate::io::fs::read_regular(&path) else {
        return;
    };
    let Some(head_len) = bytes
        .get(12..20)
        .and_then(|b| usize::try_from(u64::from_le_bytes(b.try_into().ok()?)).ok())
    else {
        return;
    };
    let Some(end) = PREFIX.checked_add(head_len).filter(|e| *e <= bytes.len()) else {
        return;
    };
    let sum = read_u64(&bytes[20..28]);
    if end < WATCH_AT + 9 || sum != loaded_sum || xxh3_64(&bytes[PREFIX..end]) != sum {
        return;
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
    save(ws, &bytes);
}

fn read_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().unwrap_or_default())
}

/// Opens the index file at `path` and decodes its head; `None` when it is
/// missing, of another format, or damaged.
fn load(path: &std::path::Path) -> Option<Loaded> {
    load_checked(path, &no_check, Want::Terms, None).map(|(loaded, _)| loaded)
}

/// Whether a load decodes the term dictionary, which a query needs and
/// `context` does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Terms,
    Documents,
}

/// [`load`], running `check` on the blocks of documents as they are
/// decoded (see [`decode_head`]) unless the index holds the watcher stamp
/// `trusted`; without the term dictionary when `want` is
/// [`Want::Documents`].
fn load_checked(
    path: &std::path::Path,
    check: Check,
    want: Want,
    trusted: Option<u64>,
) -> Option<(Loaded, bool)> {
    use std::io::Read;
    let mut file = crate::io::fs::open_regular(path).ok()?;
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
fn decode(bytes: Vec<u8>) -> Option<Loaded> {
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
struct DocBlock<'d> {
    docs: &'d [DocMeta],
    paths: &'d str,
}

impl DocBlock<'_> {
    fn path(&self, i: usize) -> &str {
        nth_path(self.paths, self.docs, i)
    }
}

/// Path `i` of `docs`, whose paths lie one after the other in `paths`.
fn nth_path<'p>(paths: &'p str, docs: &[DocMeta], i: usize) -> &'p str {
    let start = if i == 0 { 0 } else { docs[i - 1].end };
    &paths[start..docs[i].end]
}

/// A check of the files of a block of documents of an index scanned at the
/// given time, run on each block as it is decoded; see [`decode_head`].
type Check<'c> = &'c (dyn Fn(&DocBlock<'_>, i64) -> bool + Sync);

/// Checks nothing.
fn no_check(_: &DocBlock<'_>, _: i64) -> bool {
    true
}

/// Decodes a head, its blocks of documents in parallel beside the term
/// dictionary, running `check` on each block as it is decoded until one
/// fails; also whether none failed.
fn decode_head(
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
const MIN_DOC_BYTES: usize = 16;

/// Decodes a block of `docs.len()` documents (front-coded from an empty
/// path, stat data delta-coded from zero) into `docs`; returns their paths.
fn decode_block(bytes: &[u8], docs: &mut [DocMeta]) -> Option<String> {
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
fn decode_terms(bytes: &[u8]) -> Option<(Vec<TermMeta>, String)> {
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
    fn path(&self, i: usize) -> &str {
        let first = i - i % DOC_BLOCK;
        let block = &self.docs[first..self.docs.len().min(first + DOC_BLOCK)];
        nth_path(&self.paths[i / DOC_BLOCK], block, i - first)
    }

    fn term_str(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.terms[i - 1].end };
        &self.term_text[start..self.terms[i].end]
    }

    /// The index of `term` in the dictionary.
    fn term(&self, term: &str) -> Option<usize> {
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
    fn matches(&self, term: &str) -> Option<Option<Postings>> {
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
    fn postings(&self, i: usize) -> Option<Postings> {
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

// ---------------------------------------------------------------------------
// Freshness and refresh

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
        let mut dirs = stat::Dirs::new(&self.ws.root);
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
    let now = stat::now_ns();
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
        (listing::listing_id(ws), stored)
    } else {
        rayon::join(
            || listing::listing_id(ws),
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
            let listing = listing::listing(ws);
            if same_records(&loaded, &record_files(ws, &listing.files)) {
                Stored::Fresh(loaded, Some(listing), settled)
            } else {
                Stored::Stale(listing, Some(loaded))
            }
        }
        Some((loaded, None)) => Stored::Stale(listing::listing(ws), Some(loaded)),
        None => Stored::Stale(listing::listing(ws), None),
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
    ws.root.join(table::DIR).join(FILE)
}

/// Brings the record table and the search index up to date for the listed
/// files (every file of the workspace, sorted, as [`listing::listing`] gives
/// them), reading only what changed. The table's reports are dropped
/// before the search index is built (only its counts and save result are
/// returned), so the two are never in memory together. `watch` is the
/// watcher stamp taken before the files were listed
/// ([`crate::io::watch::stamp`]), which the index keeps.
pub fn refresh(
    ws: &Workspace,
    listing: &Listing,
    opts: &scan::Options,
    watch: Option<u64>,
) -> (scan::Refreshed, Refreshed) {
    let (table, done, _) = refresh_keeping(ws, listing, opts, 0, watch);
    (table, done)
}

/// [`refresh`], with a context material stored for lists of at least
/// `keep` items (see [`crate::engine::context::keep_for`]); also returns that
/// material, encoded.
pub fn refresh_keeping(
    ws: &Workspace,
    listing: &Listing,
    opts: &scan::Options,
    keep: usize,
    watch: Option<u64>,
) -> (scan::Refreshed, Refreshed, Vec<u8>) {
    let now = stat::now_ns();
    let mut table = scan::refresh(ws, &listing.files, opts);
    let keep = keep.max(crate::engine::context::stored_keep(&ws.config.context));
    let context = context_block(ws, &table.reports, keep);
    table.reports = Vec::new();
    let known = std::mem::take(&mut table.fingerprints);
    let old = if opts.force { None } else { load(&file(ws)) };
    if let Some(old) = &old {
        // The stored material still holds when the records are unchanged,
        // unless it was gathered by another executable or configuration, or
        // keeps fewer items than asked for.
        let key = table::key(&ws.config);
        let unchanged = same_records(old, &record_files(ws, &listing.files))
            .then(|| unchanged(ws, old, now))
            .flatten()
            .filter(|_| crate::engine::context::decode_material(&old.context, keep, key).is_some());
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
    let glances: Vec<table::Glance> = reports.iter().map(|r| table::Glance::of(r)).collect();
    let material = crate::engine::context::material(&glances, None, keep);
    crate::engine::context::encode_material(&material, keep, table::key(&ws.config))
}

/// What `memlint context` finds in the stored search index.
pub enum StoredContext {
    /// The index describes the workspace as it is: its context material,
    /// encoded (see [`crate::engine::context::decode_material`]).
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
    let _ = table::make_dir(&ws.root)
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
    known: &scan::Fingerprints,
    context: &[u8],
    watch: Option<u64>,
) -> (Vec<u8>, Refreshed) {
    let (files, listing_id) = (&listing.files, listing.id);
    // Fingerprints of other files than the listing's say nothing here.
    let known = (known.of.len() == files.len()).then_some(known);
    let scanned_at = stat::now_ns();
    let records = record_files(ws, files);
    // The old document of each record, by path (both sorted).
    let mut old_ids: Vec<Option<u32>> = Vec::with_capacity(records.len());
    if let Some(old) = old {
        let mut j = 0;
        for (p, _) in &records {
            while j < old.docs.len() && old.path(j) < *p {
                j += 1;
            }
            old_ids.push((j < old.docs.len() && old.path(j) == *p).then_some(j as u32));
        }
    } else {
        old_ids.resize(records.len(), None);
    }
    let old_doc = |id: &Option<u32>| id.and_then(|i| old.map(|o| (i, o.docs[i as usize])));
    let old_scanned_at = old.map_or(0, |o| o.scanned_at);

    let mut docs: Vec<Doc> = Vec::with_capacity(records.len());
    let mut remap: Vec<u32> = vec![u32::MAX; old.map_or(0, |o| o.docs.len())];
    let mut fresh_terms: Map<String, Postings> = Map::default();
    let mut tokenized = 0;
    for (chunk, ids) in records.chunks(BATCH).zip(old_ids.chunks(BATCH)) {
        // Stat, and read what changed, in parallel.
        let paths: Vec<&str> = chunk.iter().map(|(p, _)| *p).collect();
        let stats = Stat::many(&ws.root, &paths);
        let texts: Vec<Option<(Stat, String, u64)>> = chunk
            .par_iter()
            .zip(ids)
            .zip(stats)
            .map(|(((p, _), id), s)| {
                let s = s?;
                if let Some((_, d)) = old_doc(id) {
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
            .collect();
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

    // Merge the kept documents' postings (renumbered) with the new ones.
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
pub fn search(ws: &Workspace, query: &Query, opts: &scan::Options) -> Vec<Hit> {
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
            (listed.unwrap_or_else(|| listing::listing(ws)), None)
        }
        Stored::Stale(listing, old) => (listing, old),
    };
    let table = scan::refresh(ws, &listing.files, opts);
    let keep = crate::engine::context::stored_keep(&ws.config.context);
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

/// The JSON of SPEC §4: `{"query", "results": [{"path", "kind", "slug",
/// "title", "status", "score", "snippet"}]}`.
pub fn json(query: &str, hits: &[Hit]) -> String {
    let results: Vec<serde_json::Value> = hits
        .iter()
        .map(|h| {
            serde_json::json!({
                "path": h.path,
                "kind": h.kind.name(),
                "slug": h.slug,
                "title": h.title,
                "status": h.status,
                "score": h.score,
                "snippet": h.snippet,
            })
        })
        .collect();
    crate::syntax::sanitize::json(&serde_json::json!({
        "query": query,
        "results": results,
    }))
}

/// Human output: rank, path, title, score (as in the JSON, two decimals),
/// and the snippet with its matches highlighted when `color` is set.
pub fn human(hits: &[Hit], color: bool) -> String {
    use std::fmt::Write;
    if hits.is_empty() {
        return "No matching records.\n".to_string();
    }
    let width = hits.len().to_string().len();
    let mut out = String::new();
    for (i, h) in hits.iter().enumerate() {
        // Control characters of a title, a file name or a snippet are
        // shown as symbols, never sent to the terminal.
        let title = crate::syntax::sanitize::line(h.title.as_deref().unwrap_or("(no title)"));
        let path = crate::syntax::sanitize::line(&h.path);
        let replaced = if h.status.as_deref() == Some("replaced") {
            " [replaced]"
        } else {
            ""
        };
        if color {
            let _ = writeln!(
                out,
                "{:>width$}. \x1b[1;36m{}\x1b[0m  {title}{replaced}  \x1b[2m(score {:.2})\x1b[0m",
                i + 1,
                path,
                h.score
            );
        } else {
            let _ = writeln!(
                out,
                "{:>width$}. {}  {title}{replaced}  (score {:.2})",
                i + 1,
                path,
                h.score
            );
        }
        let (shown, shift) = crate::syntax::sanitize::controls_shifted(
            &h.snippet,
            crate::syntax::sanitize::Mode::Line,
        );
        let mut snippet = String::new();
        let mut at = 0;
        for m in &h.marks {
            let m = shift.at(m.start)..shift.at(m.end);
            if m.start < at || !color {
                continue;
            }
            snippet.push_str(&shown[at..m.start]);
            snippet.push_str("\x1b[1;33m");
            snippet.push_str(&shown[m.clone()]);
            snippet.push_str("\x1b[0m");
            at = m.end;
        }
        snippet.push_str(&shown[at..]);
        let _ = writeln!(out, "{:width$}  {snippet}", "");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words the general segmenter finds in `text`.
    fn unicode_words(text: &str) -> Vec<(usize, &str)> {
        text.unicode_word_indices().collect()
    }

    #[test]
    fn ascii_words_are_the_unicode_words() {
        // Every class of character the word rules tell apart in ASCII
        // (letters, digits, `_`, the middle characters of letters, of
        // numbers and of both, `'`, `"`, space, line feed, carriage
        // return, form feed, and others), four at a time.
        let pieces = [
            "a", "Z", "1", "_", ".", ":", "'", ",", ";", " ", "\n", "\r", "\u{c}", "-", "\"", "\t",
        ];
        for t in crate::syntax::text::every_text_of(&pieces, 4) {
            let fast: Vec<(usize, &str)> = AsciiWords::new(&t).collect();
            assert_eq!(fast, unicode_words(&t), "{t:?}");
        }
    }

    #[test]
    fn words_of_mixed_texts_are_the_unicode_words() {
        // Where a space may be cut, and where not: between ASCII, and
        // before marks that join the spaces before them (a combining
        // accent, a zero-width joiner, and an alphabetic mark, which makes
        // a word of those spaces: `a  \u{345}` is `a` and `  \u{345}`).
        let pieces = [
            "a", "1", ".", "'", " ", "\n", "\t", "é", "\u{301}", "\u{345}", "\u{200D}", "。", "日",
            "_", ":",
        ];
        for t in crate::syntax::text::every_text_of(&pieces, 4) {
            let mut got = Vec::new();
            word_indices(&t, |at, w| got.push((at, w)));
            assert_eq!(got, unicode_words(&t), "{t:?}");
        }
    }

    #[test]
    fn ascii_words_of_longer_texts_are_the_unicode_words() {
        // Longer runs: words joined several times over, numbers with
        // separators, identifiers, prose.
        let texts = [
            "Use e.g. the v1.2.3 loader; don't re-read 1,000,000 rows: a:b:c 3.14.15",
            "replaced_by: __init__ foo_bar-baz Cargo.toml x.y.z. ..a.. 1.a a.1 1:2 a;b",
            "'quoted' \"dq\" it's 'tis rock'n'roll 12'34 12''34 a''b _1_ 1_a_2",
        ];
        for t in texts {
            let fast: Vec<(usize, &str)> = AsciiWords::new(t).collect();
            assert_eq!(fast, unicode_words(t), "{t:?}");
        }
        let mut n = 0u64;
        let mut next = || {
            n = n
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (n >> 33) as usize
        };
        let alphabet = b"aaabZ0019_.:',; \n-\"";
        for _ in 0..2000 {
            let len = next() % 40;
            let t: String = (0..len)
                .map(|_| char::from(alphabet[next() % alphabet.len()]))
                .collect();
            let fast: Vec<(usize, &str)> = AsciiWords::new(&t).collect();
            assert_eq!(fast, unicode_words(&t), "{t:?}");
        }
    }

    fn toks(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        tokenize(s, |t, _| out.push(t.into_owned()));
        out
    }

    #[test]
    fn latin_words_are_lowercased_and_split_at_punctuation() {
        assert_eq!(
            toks("Use gix for replaced_by, see Cargo.toml"),
            [
                "use",
                "gix",
                "for",
                "replaced_by",
                "replaced",
                "by",
                "see",
                "cargo.toml",
                "cargo",
                "toml"
            ]
        );
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(
            toks("日本語の検索"),
            ["日本", "本語", "語の", "の検", "検索"]
        );
        assert_eq!(
            toks("按二元组切分"),
            ["按二", "二元", "元组", "组切", "切分"]
        );
        assert_eq!(toks("の"), ["の"]);
        assert_eq!(
            toks("config loader の動作"),
            ["config", "loader", "の動", "動作"]
        );
        assert_eq!(toks("한국어"), ["한국", "국어"]);
    }

    #[test]
    fn token_ranges_point_into_the_text() {
        let text = "Das ÄRGER 検索 x";
        tokenize(text, |t, r| {
            assert_eq!(text[r].to_lowercase(), t.as_ref());
        });
    }

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
        let opts = scan::Options {
            force: false,
            progress: None,
        };
        let _ = refresh(&ws, &listing::listing(&ws), &opts, None);
        let old = load(&file(&ws)).expect("stored");
        let hash = old.docs[0].hash;
        // Different bytes and stat data; the table is made to vouch for the
        // old hash at the new stat data, so the file must not be read.
        write("the zebra word, longer now");
        let listing = listing::listing(&ws);
        let at = listing.files.iter().position(|f| f == rel).expect("listed");
        let stat = Stat::many(&ws.root, &[rel])[0].expect("stat");
        let mut of = vec![None; listing.files.len()];
        of[at] = Some((stat, hash));
        let terms = |known: &scan::Fingerprints| {
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
        let vouched = scan::Fingerprints {
            scanned_at: i64::MAX,
            of: of.clone(),
        };
        assert_eq!(terms(&vouched), (0, true, false, stat));
        // Stat data too recent for the table's scan, another hash, or no
        // fingerprint: read and tokenized again.
        let recent = scan::Fingerprints {
            scanned_at: stat.mtime,
            of,
        };
        assert_eq!(terms(&recent), (1, false, true, stat));
        let mut other = vec![None; listing.files.len()];
        other[at] = Some((stat, hash ^ 1));
        let other = scan::Fingerprints {
            scanned_at: i64::MAX,
            of: other,
        };
        assert_eq!(terms(&other), (1, false, true, stat));
        assert_eq!(
            terms(&scan::Fingerprints::default()),
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
