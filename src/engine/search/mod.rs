//! `memlint search` (docs/recall.md): recall with BM25 over title (weighted up),
//! description, tags and body, served from an inverted index kept in
//! `.memlint/search` beside the record table.
//!
//! Tokens (`tokenize`): text outside CJK runs is split into Unicode words
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
//! [`crate::io::stat::RACY_NS`] of the scan that indexed it is verified by content.
//! A missing, damaged or older index is rebuilt silently.

mod refresh;
pub(crate) mod served;

use crate::model::kind::{stem, Kind};
use crate::model::workspace::Workspace;

use crate::store::search::*;
use crate::syntax::fields::{fields, Fields};
use crate::syntax::tokens::{query_terms, tokenize};
use rayon::prelude::*;
use refresh::*;
pub(crate) use refresh::{
    refresh, refresh_keeping, stored_context, stored_context_unchecked, StoredContext,
};
use std::borrow::Cow;
use std::ops::Range;

/// BM25 parameters.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Longest snippet, in characters.
const SNIPPET_CHARS: usize = 160;

// ---------------------------------------------------------------------------
// Queries

/// A search request.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    /// The query as typed.
    pub text: String,
    /// Only records of this kind.
    pub kind: Option<Kind>,
    /// At most this many hits.
    pub limit: usize,
    /// Include replaced records.
    pub all: bool,
    /// Only records of this day or later (`YYYY-MM-DD`; a record without a
    /// date is left out).
    pub since: Option<String>,
}

/// One result.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Root-relative path.
    pub path: String,
    /// Its kind.
    pub kind: Kind,
    /// The file stem for kinds named by a slug.
    pub slug: Option<String>,
    /// `title`, when it has one.
    pub title: Option<String>,
    /// `status`, when it has one.
    pub status: Option<String>,
    /// The record's day (`date`, or a session's `created`), when it has one.
    pub date: Option<String>,
    /// BM25 score.
    pub score: f64,
    /// One line of the record with a match (or its first line of text).
    pub snippet: String,
    /// Byte ranges of the matched tokens in `snippet`.
    pub marks: Vec<Range<usize>>,
    /// Which cited file changed since the record was written or verified,
    /// as the last `memlint check` found (see `engine::drift_marks`).
    pub drifted: Option<crate::store::drift_marks::DriftMark>,
}

/// What [`search_answer`] found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    /// The ranked hits.
    pub hits: Vec<Hit>,
    /// Whether replaced records matched too (they are hits only with
    /// [`Query::all`]): a front end says so when nothing else matched.
    pub replaced_matched: bool,
    /// What listing the workspace met (see
    /// [`crate::store::listing::Listing::problems`]), for the front end to
    /// report.
    pub problems: Vec<crate::model::workspace::Problem>,
}

/// Answers `query` from a fresh index, refreshing it first when any record
/// changed, also telling whether replaced records matched.
///
/// # Examples
///
/// ```ignore
/// use memlint::engine::search::{search_answer, Query};
/// use std::path::Path;
///
/// let cwd = std::env::current_dir().expect("the current directory");
/// let at = memlint::engine::workspace::Surroundings { cwd: &cwd, env: &|name| std::env::var(name).ok() };
/// let ws = memlint::engine::workspace::load(&at, Some(Path::new("fixtures/example")), None)?;
/// let query = Query { text: "retry backoff".into(), kind: None, limit: 5, all: false, since: None };
/// for hit in search_answer(&ws, &query, &Default::default()).hits {
///     println!("{:.2} {} {}", hit.score, hit.path, hit.snippet);
/// }
/// # Ok::<(), memlint::engine::workspace::WorkspaceError>(())
/// ```
pub(crate) fn search_answer(
    ws: &Workspace,
    query: &Query,
    opts: &crate::engine::scan::Options,
) -> Answer {
    marked(ws, ranked(ws, query, opts))
}

/// `answer` with the drift marks of its hits, as the last `memlint check`
/// found them (see [`crate::engine::drift_marks`]).
pub(crate) fn marked(ws: &Workspace, mut answer: Answer) -> Answer {
    if !answer.hits.is_empty() {
        let shown: std::collections::HashSet<&str> =
            answer.hits.iter().map(|h| h.path.as_str()).collect();
        let mut marks = crate::engine::drift_marks::current(ws, |p| shown.contains(p));
        for h in &mut answer.hits {
            h.drifted = marks.remove(&h.path);
        }
    }
    answer
}

/// The ranked hits, without their drift marks.
fn ranked(ws: &Workspace, query: &Query, opts: &crate::engine::scan::Options) -> Answer {
    // Before anything is read, so that any later change shows.
    let watch = crate::io::watch::stamp(ws);
    load_and_answer(ws, query, opts, watch, true).0 .0
}

/// [`search_answer`] without reading the hits' files: each hit has its path,
/// kind, slug, score and drift mark, and no title, status, date or
/// snippet; [`read_hit`] with the terms returned (the query's, and the
/// index words that stood for its typos) completes one as [`search_answer`]
/// would have. For a caller that shows only some of many hits (the
/// prompt hook). Without [`Query::since`] only (that reads every day).
pub(crate) fn search_unread(
    ws: &Workspace,
    query: &Query,
    opts: &crate::engine::scan::Options,
) -> (Vec<Hit>, Vec<String>) {
    let watch = crate::io::watch::stamp(ws);
    let ((answer, terms), _) = load_and_answer(ws, query, opts, watch, query.since.is_some());
    (marked(ws, answer).hits, terms)
}

/// [`search_unread`], with `then` run on its hits while the records are
/// still being checked against the stored index. As each block of the
/// index's documents is decoded, the stat calls of its records are queued
/// on the pool (as [`search_unread`] makes them); once the head is
/// decoded, the query is answered from it and `then` runs on this thread
/// while the queued stat calls go on. `then`'s result comes back only when
/// the index proved fresh, so that the hits are the ones
/// [`search_unread`] gives; otherwise it is dropped and the search runs as
/// [`search_unread`] does. For a caller that waits for the answer and
/// what it does with it (the prompt hook): the two overlap, instead of
/// the answer waiting for the last stat call.
pub(crate) fn search_unread_overlapped<T: Send>(
    ws: &Workspace,
    query: &Query,
    opts: &crate::engine::scan::Options,
    then: &(dyn Fn(&[Hit], &[String]) -> T + Sync),
) -> (Vec<Hit>, Vec<String>, Option<T>) {
    let watch = crate::io::watch::stamp(ws);
    // A watcher's stamp spares the stat calls; `--since` reads every day.
    if watch.is_none() && query.since.is_none() {
        if let Some(found) = overlapped(ws, query, then) {
            return found;
        }
    }
    let (hits, terms) = search_unread(ws, query, opts);
    (hits, terms, None)
}

/// [`search_unread_overlapped`] from a stored index that proves fresh;
/// `None` when there is none or it is stale.
fn overlapped<T: Send>(
    ws: &Workspace,
    query: &Query,
    then: &(dyn Fn(&[Hit], &[String]) -> T + Sync),
) -> Option<(Vec<Hit>, Vec<String>, Option<T>)> {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    let now = crate::io::stat::now_ns();
    let check = Unchanged::new(ws, now);
    let changed = AtomicBool::new(false);
    let (listing, found) = rayon::join(
        || crate::store::listing::listing_id(ws),
        || {
            // Decoded whole first (on every thread), then each block's
            // records are stat'ed by a task that borrows the decoded table
            // while this thread answers the query and runs `then`: no copy
            // of the blocks for the tasks (fresh memory is dear on a run
            // this short).
            let (loaded, _) = load_checked(&ws.root, &no_check, Want::Terms, None)?;
            let (check, changed, table) = (&check, &changed, &loaded);
            let found = rayon::scope(|scope| {
                for (k, paths) in table.paths.iter().enumerate() {
                    let first = k * DOC_BLOCK;
                    let docs = &table.docs[first..table.docs.len().min(first + DOC_BLOCK)];
                    scope.spawn(move |_| {
                        if changed.load(Relaxed) {
                            return;
                        }
                        let all = docs
                            .iter()
                            .enumerate()
                            .map(|(i, d)| (nth_path(paths, docs, i), d));
                        if !check.all(all, table.scanned_at) {
                            changed.store(true, Relaxed);
                        }
                    });
                }
                let (answer, terms) = answer(ws, table, query, false)?;
                let hits = marked(ws, answer).hits;
                let done = then(&hits, &terms);
                Some((hits, terms, done))
            });
            let (hits, terms, done) = found?;
            Some((loaded, hits, terms, done))
        },
    );
    // The scope has waited for every queued stat call.
    let (loaded, hits, terms, done) = found?;
    let fresh = listing.is_some() && loaded.listing == listing && !changed.into_inner();
    if !fresh {
        return None;
    }
    let settled = check.settled().then_some(now);
    restamp(ws, loaded.sum, stamps(&loaded, None, settled, None));
    Some((hits, terms, Some(done)))
}

/// `hit` as [`search_answer`] returns it, its file read for what it shows:
/// `terms` as [`search_unread`] returned them.
pub(crate) fn read_hit(ws: &Workspace, hit: &Hit, terms: &[String]) -> Hit {
    let shown = shown(ws, &hit.path, hit.kind, terms);
    Hit {
        title: shown.title,
        status: shown.status,
        date: shown.date,
        snippet: shown.snippet,
        marks: shown.marks,
        ..hit.clone()
    }
}

/// A search index kept in memory between queries by a process that
/// answers many (the MCP server), and what it was last found fresh
/// against. See [`search_held`].
pub(crate) struct Held {
    loaded: Loaded,
    root: std::path::PathBuf,
    /// The configuration and executable it was built for.
    key: u64,
    /// The listing identity it matches.
    listing: Option<u64>,
    /// The watcher stamp under which it was last found fresh.
    watch: Option<u64>,
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held")
            .field("root", &self.root)
            .field("records", &self.loaded.docs.len())
            .field("listing", &self.listing)
            .field("watch", &self.watch)
            .finish()
    }
}

/// [`search_answer`] for a process that answers many queries: the index
/// is kept in `held` and answers again while nothing it depends on
/// changed. The watcher's stamp vouches for that without a file being
/// looked at; without a watcher (or under another stamp), every record is
/// stat'ed and the listing checked, as a search does, but the index is not
/// read again. Anything changed (a record written, edited or deleted by
/// any process, another configuration): the stored index is refreshed as
/// [`search_answer`] refreshes it, reading only the records that changed,
/// and kept.
pub(crate) fn search_held(
    ws: &Workspace,
    held: &mut Option<Held>,
    query: &Query,
    opts: &crate::engine::scan::Options,
) -> Answer {
    let watch = crate::io::watch::stamp(ws);
    if let Some(h) = held.as_mut() {
        if still_fresh(ws, h, watch) {
            h.watch = watch.or(h.watch);
            if let Some((answer, _)) = answer(ws, &h.loaded, query, true) {
                return marked(ws, answer);
            }
        }
    }
    *held = None;
    let ((answer, _), kept) = load_and_answer(ws, query, opts, watch, true);
    *held = kept.map(|(loaded, listing)| Held {
        loaded,
        root: ws.root.clone(),
        key: crate::io::cache::key(&ws.config),
        listing,
        watch,
    });
    marked(ws, answer)
}

/// Whether `held` still describes the workspace: the same root and
/// configuration, and the watcher's stamp it was found fresh under, or
/// else the same listing and every record's stat data (and, for a record
/// changed within the timestamp granularity of the scan, its content).
fn still_fresh(ws: &Workspace, held: &mut Held, watch: Option<u64>) -> bool {
    if held.root != ws.root || held.key != crate::io::cache::key(&ws.config) {
        return false;
    }
    if watch.is_some() && watch == held.watch {
        return true;
    }
    let now = crate::io::stat::now_ns();
    let (listing, same) = rayon::join(
        || crate::store::listing::listing_id(ws),
        || unchanged(ws, &held.loaded, now),
    );
    let Some(settled) = same.filter(|_| listing.is_some() && listing == held.listing) else {
        return false;
    };
    if settled {
        // Every record was found as indexed at `now`: the next check need
        // not read the ones changed just before the index was built.
        held.loaded.scanned_at = now;
    }
    true
}

/// The answer to `query` from the stored index, refreshed first when any
/// record changed, and the index it came from with the listing identity
/// it matches (`None` when a freshly built index failed to decode); the
/// hits' files read only when `read` (see [`answer`]).
fn load_and_answer(
    ws: &Workspace,
    query: &Query,
    opts: &crate::engine::scan::Options,
    watch: Option<u64>,
    read: bool,
) -> ((Answer, Vec<String>), Option<(Loaded, Option<u64>)>) {
    let (listing, old) = match fresh_stored(ws, Want::Terms, watch) {
        Stored::Fresh(loaded, listed, settled) => {
            if let Some(mut hits) = answer(ws, &loaded, query, read) {
                if let Some(listed) = &listed {
                    hits.0.problems.clone_from(&listed.problems);
                }
                // Stamped with the listing now stored (and the watcher's
                // token), the next search need not list or stat the files.
                restamp(
                    ws,
                    loaded.sum,
                    stamps(&loaded, listed.as_ref(), settled, watch),
                );
                let id = listed.map_or(loaded.listing, |l| l.id);
                return (hits, Some((loaded, id)));
            }
            // A posting list failed its checksum: build anew.
            (
                listed.unwrap_or_else(|| crate::store::listing::listing(ws)),
                None,
            )
        }
        Stored::Stale(listing, old) => (listing, old),
    };
    let table = crate::engine::scan::refresh(ws, &listing.files, opts);
    let keep = crate::engine::context::settings::stored_keep(ws);
    let context = context_block(ws, &table.reports, keep);
    let known = table.fingerprints;
    drop(table.reports);
    let (bytes, _) = rebuild(ws, &listing, old.as_ref(), &known, &context, watch);
    save(ws, &bytes);
    let loaded = decode(bytes).expect("a freshly encoded index decodes");
    let mut hits = answer(ws, &loaded, query, read).expect("a freshly built index is intact");
    hits.0.problems = listing.problems;
    (hits, Some((loaded, listing.id)))
}

/// The ranked hits, or `None` when a posting list read is damaged, and
/// the terms searched (the query's, then the index words that stood for
/// its typos). Without `read`, no hit's file is read: they have no title,
/// status, date or snippet (see [`search_unread`]).
fn answer(
    ws: &Workspace,
    loaded: &Loaded,
    query: &Query,
    read: bool,
) -> Option<(Answer, Vec<String>)> {
    let terms = query_terms(&query.text);
    let n = loaded.docs.len() as f64;
    let mut answer = Answer {
        hits: Vec::new(),
        replaced_matched: false,
        problems: Vec::new(),
    };
    if terms.is_empty() || loaded.docs.is_empty() {
        return Some((answer, terms));
    }
    let avg = loaded.avg_len();
    // Scores by document, and the documents scored (every term adds a
    // positive amount: idf > 0 and tf ≥ 1).
    let mut scores: Vec<f64> = vec![0.0; loaded.docs.len()];
    let mut scored: Vec<u32> = Vec::new();
    let mut terms = terms;
    for t in 0..terms.len() {
        let postings = match loaded.matches(&terms[t])? {
            Some(p) => p,
            // A word no record has: the closest word of the index within
            // a typo or two stands for it (and is marked in snippets).
            None => match closest_term(loaded, &terms[t]) {
                Some(i) => {
                    terms.push(loaded.term_str(i).to_string());
                    loaded.postings(i)?
                }
                None => continue,
            },
        };
        let df = postings.len() as f64;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for (doc, tf) in postings {
            let d = &loaded.docs[doc as usize];
            if query.kind.is_some_and(|k| k != d.kind) {
                continue;
            }
            if !query.all && d.replaced {
                answer.replaced_matched = true;
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
    let hit = |(doc, score): (u32, f64)| {
        let path = loaded.path(doc as usize);
        let kind = loaded.docs[doc as usize].kind;
        let shown = if read {
            shown(ws, path, kind, &terms)
        } else {
            Shown::default()
        };
        Hit {
            path: path.to_string(),
            kind,
            slug: kind.has_slug().then(|| stem(path).to_string()),
            title: shown.title,
            status: shown.status,
            date: shown.date,
            score: (score * 10_000.0).round() / 10_000.0,
            snippet: shown.snippet,
            marks: shown.marks,
            drifted: None,
        }
    };
    if let Some(since) = &query.since {
        // The day is read from the file: the best first, a few at a time,
        // until `limit` are recent enough.
        ranked.sort_unstable_by(order);
        let mut hits = Vec::with_capacity(query.limit);
        for chunk in ranked.chunks(query.limit.max(1) * 2) {
            let found: Vec<Hit> = chunk.par_iter().copied().map(hit).collect();
            hits.extend(
                found
                    .into_iter()
                    .filter(|h| h.date.as_deref().is_some_and(|d| d >= since.as_str())),
            );
            if hits.len() >= query.limit {
                break;
            }
        }
        hits.truncate(query.limit);
        answer.hits = hits;
        return Some((answer, terms));
    }
    // Only the best `limit` are put in order: a common word may score
    // most of the records.
    if ranked.len() > query.limit {
        if let Some(last) = query.limit.checked_sub(1) {
            ranked.select_nth_unstable_by(last, order);
        }
        ranked.truncate(query.limit);
    }
    ranked.sort_unstable_by(order);
    answer.hits = ranked.into_par_iter().map(hit).collect();
    Some((answer, terms))
}

/// The index term within [`typo_budget`] edits of `term` (Latin words
/// only) that the most records hold, fewer edits first.
fn closest_term(loaded: &Loaded, term: &str) -> Option<usize> {
    let budget = crate::syntax::tokens::typo_budget(term);
    if budget == 0 || !term.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    (1..=budget).find_map(|edits| {
        (0..loaded.terms.len())
            .filter(|&i| {
                let t = loaded.term_str(i);
                t.len().abs_diff(term.len()) <= edits
                    && crate::syntax::tokens::within_edits(term, t, edits)
            })
            .max_by_key(|&i| loaded.terms[i].df)
    })
}

/// What a result shows of its record, read from the file.
#[derive(Default)]
struct Shown {
    title: Option<String>,
    status: Option<String>,
    date: Option<String>,
    snippet: String,
    marks: Vec<Range<usize>>,
}

fn shown(ws: &Workspace, path: &str, kind: Kind, terms: &[String]) -> Shown {
    let bytes = crate::io::fs::read_regular(&ws.root.join(path), ws.config.max_file_bytes)
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let valid = |key: &str, node: &crate::syntax::yaml::Node| {
        crate::lint::record::valid_value(kind, key, node)
    };
    let f = fields(&text, kind, &valid);
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
    // A session has no title: its description stands for one, else the
    // first line of its objective.
    let title = match (f.title, kind) {
        (Some(t), _) => Some(t.into_owned()),
        (None, Kind::Session) => f
            .description
            .as_deref()
            .map(str::to_string)
            .or_else(|| objective(f.body)),
        (None, _) => None,
    };
    Shown {
        title,
        status: f.status,
        date: f.date,
        snippet,
        marks,
    }
}

/// The first line of text of a session's `## Objective` section.
fn objective(body: &str) -> Option<String> {
    let mut lines = body
        .lines()
        .skip_while(|l| l.trim() != "## Objective")
        .skip(1);
    lines
        .find(|l| !l.trim().is_empty())
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.trim().to_string())
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
    use crate::io::stat::Stat;

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
        let at = crate::engine::workspace::Surroundings {
            cwd: root,
            env: &|_| None,
        };
        let ws = crate::engine::workspace::load(&at, Some(root), None).expect("workspace");
        let opts = crate::engine::scan::Options {
            force: false,
            progress: None,
        };
        let _ = refresh(&ws, &crate::store::listing::listing(&ws), &opts, None);
        let old = load(&ws.root).expect("stored");
        let hash = old.docs[0].hash;
        // Different bytes and stat data; the table is made to vouch for the
        // old hash at the new stat data, so the file must not be read.
        write("the zebra word, longer now");
        let listing = crate::store::listing::listing(&ws);
        let at = listing.files.iter().position(|f| f == rel).expect("listed");
        let stat = Stat::many(&ws.root, &[rel])[0].expect("stat");
        let mut of = vec![None; listing.files.len()];
        of[at] = Some((stat, hash));
        let terms = |known: &crate::engine::scan::Fingerprints| {
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
        let vouched = crate::engine::scan::Fingerprints {
            scanned_at: i64::MAX,
            of: of.clone(),
        };
        assert_eq!(terms(&vouched), (0, true, false, stat));
        // Stat data too recent for the table's scan, another hash, or no
        // fingerprint: read and tokenized again.
        let recent = crate::engine::scan::Fingerprints {
            scanned_at: stat.mtime,
            of,
        };
        assert_eq!(terms(&recent), (1, false, true, stat));
        let mut other = vec![None; listing.files.len()];
        other[at] = Some((stat, hash ^ 1));
        let other = crate::engine::scan::Fingerprints {
            scanned_at: i64::MAX,
            of: other,
        };
        assert_eq!(terms(&other), (1, false, true, stat));
        assert_eq!(
            terms(&crate::engine::scan::Fingerprints::default()),
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
