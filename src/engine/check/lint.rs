//! Linting the work tree: per-file rules on every file (in parallel), then
//! the cross-record rules on the whole workspace, then the selection the
//! user asked for; and the [`Outcome`] every mode of `check` returns.

use crate::engine::drift::early::Early;
use crate::lint::rules::workspace::{self, View, WsSink};
use crate::lint::FileReport;
use crate::model::content::Content;
use crate::model::diagnostic::{self, Diagnostic};
use crate::model::kind::{classify, Kind, Place};
use crate::model::rule::Rule;
use crate::model::workspace::{Problem, Workspace};
use std::collections::HashMap;

/// What `check` found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Files linted (in the selection).
    pub files: usize,
    /// Sorted diagnostics of the selected files.
    pub diagnostics: Vec<Diagnostic>,
    /// Texts of the selected files that have diagnostics, for rendering.
    pub sources: HashMap<String, String>,
    /// With [`Texts::Deferred`]: the hash of the content the record table
    /// holds (xxh3-64 of the file's bytes) of each selected file with
    /// diagnostics whose text was not kept, for the caller to read with
    /// [`read_texts`] only those it needs.
    pub(crate) contents: HashMap<String, u64>,
    /// The report of every file of the workspace the diagnostics came
    /// from, kept so that the caller decides when to free them: a command
    /// about to exit need not free 100k reports one by one.
    pub reports: Vec<Box<FileReport>>,
    /// What the user should hear besides the diagnostics (a malformed GC
    /// trailer in `--base`'s commits), one line each.
    pub warnings: Vec<String>,
    /// What reading the workspace met that the front end reports (a git
    /// repository left unread); those of listing the files are the
    /// listing's.
    pub(crate) problems: Vec<Problem>,
}

/// Runs the cross-record rules over the reports of the whole workspace,
/// given its near-duplicate slug clusters (`None` when `slug/similar` is
/// off); and the problem of a git repository that is not read.
fn cross_record<'r>(
    ws: &Workspace,
    reports: impl Iterator<Item = &'r FileReport>,
    clusters: Option<Vec<(Kind, Vec<Vec<String>>)>>,
) -> (Vec<Diagnostic>, Option<Problem>) {
    let (resolver, problem) = crate::io::git::DiskResolver::of(ws);
    let mut view = View::new(
        reports.map(|r| (r.path.as_str(), &r.info)),
        &ws.config,
        &resolver,
    );
    view.known_clusters = clusters.unwrap_or_default();
    if workspace::enabled(&ws.config, Rule::ContentDuplicate) {
        view.known_duplicates = Some(crate::store::duplicates::pairs(ws, &view));
    }
    let mut sink = WsSink::new(&ws.config);
    crate::lint::registry::check_workspace(&view, None, &mut sink);
    (sink.diagnostics, problem)
}

/// The report of every file of `all` (every file of the workspace), from
/// `.memlint/index` refreshed with `opts`, the cross-record findings, and
/// what reading met that the front end reports (see [`Outcome::problems`]).
#[allow(clippy::type_complexity)]
pub(crate) fn findings(
    ws: &Workspace,
    all: &[String],
    opts: &crate::engine::scan::Options,
) -> (Vec<Box<FileReport>>, Vec<Diagnostic>, Vec<Problem>) {
    let (refreshed, cross, problems, ()) = refreshed_findings(ws, all, opts, |_| ());
    (refreshed.reports, cross, problems)
}

/// [`findings`], with what the record table knows of each file's content
/// (stat data and hash), in the order of the reports; and what `beside`
/// made of the scanned table while the table was written and the
/// cross-record rules ran (on two cores, the wall time of a cold check is
/// the longest of the three, not their sum).
fn refreshed_findings<T: Send>(
    ws: &Workspace,
    all: &[String],
    opts: &crate::engine::scan::Options,
    beside: impl FnOnce(&crate::engine::scan::Scanned) -> T + Send,
) -> (
    crate::engine::scan::Refreshed,
    Vec<Diagnostic>,
    Vec<Problem>,
    T,
) {
    // Near-duplicate slugs depend on the file names alone: they are
    // clustered while the files are read.
    let (scanned, clusters) = rayon::join(
        || crate::engine::scan::scan(ws, all, opts),
        || {
            workspace::enabled(&ws.config, Rule::SlugSimilar)
                .then(|| crate::store::slugs::slug_clusters(ws, all))
        },
    );
    // The index is written while the cross-record rules run, and
    // `beside` runs on this thread from the start: it is the longest of
    // the three on a cold check (left to be stolen, it waited for the
    // table to be written, a seventh of a second on 100k records).
    let (made, (saved, (cross, problem))) = rayon::join(
        || beside(&scanned),
        || {
            rayon::join(
                || {
                    let saved = scanned.save(ws);
                    scanned.save_cites(ws);
                    saved
                },
                || cross_record(ws, scanned.reports(), clusters),
            )
        },
    );
    let problems = problem.into_iter().collect();
    (scanned.finish(saved), cross, problems, made)
}

/// `sources/drifted` over the scanned `entries` (every file of the
/// workspace, sorted by path), the blob ids and stat data taken from the
/// record table; and the marks that context, search and the prompt hook
/// read (every record was judged), with the hashes of the records the
/// table just vouched for.
fn drift(
    ws: &Workspace,
    entries: &[crate::store::table::Entry],
    early: Option<&Early>,
    index: Option<&crate::io::git::Tracked>,
) -> crate::engine::drift::Drift {
    let paths: Vec<&str> = entries.iter().map(|e| e.report.path.as_str()).collect();
    let finder = Finder {
        paths: &paths,
        hint: std::sync::atomic::AtomicUsize::new(0),
    };
    let at = |rel: &str| finder.at(rel);
    let print = |rel: &str| at(rel).and_then(|i| entries[i].stat.zip(entries[i].hash));
    let stat = |rel: &str| print(rel).map(|(s, _)| s);
    let blob = |rel: &str| at(rel).and_then(|i| entries[i].blob);
    let mut drift = crate::engine::drift::drifted_with(
        ws,
        entries
            .iter()
            .map(|e| (e.report.path.as_str(), &e.report.info)),
        crate::engine::drift::Mode::WorkTree,
        crate::engine::drift::Known {
            stats: &stat,
            blobs: &blob,
            early,
            index,
        },
    );
    let known = |rel: &str| print(rel).map(|(_, h)| h);
    crate::engine::drift_marks::keep(ws, std::mem::take(&mut drift.marks), &known);
    drift
}

/// Lints `all` (every file of the workspace) with the index options `opts`
/// and reports on those for which `selected` is true. Per-file results of
/// unchanged files come from `.memlint/index` (docs/recall.md); the
/// cross-record rules run over every record each time.
pub(crate) fn run_with(
    ws: &Workspace,
    all: &[String],
    selected: &dyn Fn(&str) -> bool,
    opts: &crate::engine::scan::Options,
) -> Outcome {
    run_texts(ws, all, selected, opts, Texts::All)
}

/// Which texts of the files with findings a check keeps in
/// [`Outcome::sources`], for output that shows source lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Texts {
    /// None: output that shows no source lines, such as JSON (on a
    /// workspace with many findings, reading them again was a good part
    /// of a warm check).
    None,
    /// Every one.
    All,
    /// Those at hand (files read in this run) and those the record table
    /// holds no hash of; for the others [`Outcome::contents`] gives the
    /// hash, and the caller reads what it needs with [`read_texts`] (human
    /// output whose reports of unchanged files are kept rendered).
    Deferred,
}

impl From<bool> for Texts {
    fn from(texts: bool) -> Texts {
        match texts {
            true => Texts::All,
            false => Texts::None,
        }
    }
}

/// [`run_with`], keeping the texts of the files with findings in
/// [`Outcome::sources`] as `texts` says.
pub(crate) fn run_texts(
    ws: &Workspace,
    all: &[String],
    selected: &dyn Fn(&str) -> bool,
    opts: &crate::engine::scan::Options,
    texts: Texts,
) -> Outcome {
    // The history is walked and the citing records judged while the
    // table is written and the cross-record rules run.
    // A cold check begins the walk as it starts, on a thread of its own
    // (`engine::drift::early`).
    let early = Early::start(ws, all);
    let (mut refreshed, mut cross, problems, drift) =
        refreshed_findings(ws, all, opts, |scanned| {
            drift(ws, scanned.entries(), early.as_ref(), scanned.tracked())
        });
    drop(early);
    let reports = std::mem::take(&mut refreshed.reports);
    // The `sources/drifted` findings are most of them (18.7k of 19.5k on
    // the 100k workspace): the others join their vector, grown once,
    // instead of all of them being moved into another. (Their order is
    // the sort's below: no finding of one group has a rule of another.)
    let per_file: usize = reports.iter().map(|r| r.diagnostics.len()).sum();
    // A renamed source is said once, by `sources/drifted`.
    let renamed = crate::engine::drift::Renamed::of(ws, &drift.fixes);
    cross.retain(|d| !renamed.covers(d));
    let mut diags = drift.diagnostics;
    diags.reserve_exact(cross.len() + per_file);
    diags.append(&mut cross);
    diags.extend(crate::engine::export::stale_findings(ws));
    diags.retain(|d| selected(&d.path));
    let mut out = Outcome {
        warnings: drift.notes,
        problems,
        ..Outcome::default()
    };
    for r in &reports {
        if !selected(&r.path) {
            continue;
        }
        out.files += 1;
        if let Some(src) = r.source.as_ref().filter(|_| texts != Texts::None) {
            out.sources.insert(r.path.clone(), src.clone());
        }
        diags.extend(r.diagnostics.iter().filter(|d| !renamed.covers(d)).cloned());
    }
    if texts == Texts::None {
        diagnostic::sort(&mut diags);
        out.diagnostics = diags;
        out.reports = reports;
        return out;
    }
    // Findings from the index, and cross-record findings on files without
    // per-file findings, need their text too.
    let mut missing: Vec<&str> = diags
        .iter()
        .map(|d| d.path.as_str())
        .filter(|p| !out.sources.contains_key(*p))
        .collect();
    missing.sort_unstable();
    missing.dedup();
    if texts == Texts::Deferred {
        // The reports are in the order of `all`, sorted by path.
        let paths: Vec<&str> = reports.iter().map(|r| r.path.as_str()).collect();
        let finder = Finder {
            paths: &paths,
            hint: std::sync::atomic::AtomicUsize::new(0),
        };
        let prints = &refreshed.fingerprints;
        let print = |rel: &str| {
            finder
                .at(rel)
                .and_then(|i| prints.of.get(i).copied().flatten())
        };
        missing.retain(|p| match print(p) {
            Some((_, hash)) => {
                out.contents.insert(p.to_string(), hash);
                false
            }
            None => true,
        });
    }
    out.sources.extend(read_texts(ws, &missing));
    diagnostic::sort(&mut diags);
    out.diagnostics = diags;
    out.reports = reports;
    out
}

/// The texts of `paths` human output shows ([`source_text`]), read in
/// parallel; a file that cannot be read is left out.
pub(crate) fn read_texts(ws: &Workspace, paths: &[&str]) -> Vec<(String, String)> {
    use rayon::prelude::*;
    paths
        .par_iter()
        .filter_map(|p| Some((p.to_string(), source_text(ws, p)?)))
        .collect()
}

/// Finds a path among reports sorted by path, galloping from the last one
/// found: the stored verdicts and the drift marks ask for thousands of
/// records in increasing order, and a binary search over 100k reports for
/// each (a cache miss per step) was a good part of a warm check.
struct Finder<'r> {
    /// The paths, sorted.
    paths: &'r [&'r str],
    /// Where the last path asked for was found.
    hint: std::sync::atomic::AtomicUsize,
}

impl Finder<'_> {
    fn at(&self, rel: &str) -> Option<usize> {
        use std::cmp::Ordering::{Equal, Greater, Less};
        use std::sync::atomic::Ordering::Relaxed;
        let n = self.paths.len();
        if n == 0 {
            return None;
        }
        let key = |i: usize| self.paths[i];
        let h = self.hint.load(Relaxed).min(n - 1);
        // The range the path would be in, found by doubling steps away
        // from the hint.
        let (lo, hi) = match key(h).cmp(rel) {
            Equal => return Some(h),
            Less => {
                let (mut lo, mut step) = (h, 1);
                loop {
                    let next = lo + step;
                    if next >= n {
                        break (lo + 1, n);
                    }
                    match key(next).cmp(rel) {
                        Less => (lo, step) = (next, step * 2),
                        Equal => break (next, next + 1),
                        Greater => break (lo + 1, next),
                    }
                }
            }
            Greater => {
                let (mut hi, mut step) = (h, 1);
                loop {
                    if step > hi {
                        break (0, hi);
                    }
                    let next = hi - step;
                    match key(next).cmp(rel) {
                        Greater => (hi, step) = (next, step * 2),
                        Equal => break (next, next + 1),
                        Less => break (next + 1, hi),
                    }
                }
            }
        };
        let found = self.paths[lo..hi]
            .binary_search_by(|p| (*p).cmp(rel))
            .ok()
            .map(|i| lo + i);
        // A path not found (a cited file outside the records) leaves the
        // hint where the records asked for are.
        if let Some(i) = found {
            self.hint.store(i, Relaxed);
        }
        found
    }
}

/// The text human output shows under a diagnostic of `rel`, as `lint_file`
/// keeps it: empty for files outside the memory or over the size limit, the bytes
/// decoded lossily with NUL shown as `␀` otherwise. `None` when the file
/// cannot be read.
pub(crate) fn source_text(ws: &Workspace, rel: &str) -> Option<String> {
    if classify(rel, &ws.config.banned_dirs) == Place::Outside {
        return Some(String::new());
    }
    // Only regular files are read: a FIFO would wait for a writer.
    let bytes = match crate::io::read::read_capped(&ws.root.join(rel), ws.config.max_file_bytes) {
        Ok(Content::Bytes(bytes)) => bytes,
        Ok(Content::TooLarge(_)) => return Some(String::new()),
        Err(e) if crate::io::regular::is_not_regular(&e) => return Some(String::new()),
        Err(_) => return None,
    };
    Some(match String::from_utf8(bytes) {
        Ok(text) if !text.contains('\0') => text,
        Ok(text) => text.replace('\0', "\u{2400}"),
        Err(e) => String::from_utf8_lossy(e.as_bytes()).replace('\0', "\u{2400}"),
    })
}
