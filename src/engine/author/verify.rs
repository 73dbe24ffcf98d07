//! The rules run on files before they are written: each changed file is
//! linted from its new text, and the cross-record rules run over the
//! workspace as it would be with those texts in place.

use crate::lint::rules::workspace::{View, WsSink};
use crate::lint::{lint_file, FileReport};
use crate::model::content::Content;
use crate::model::diagnostic::{self, Diagnostic};
use crate::model::kind::{classify, Kind};
use crate::model::severity::Severity;
use crate::model::workspace::{Problem, Workspace};

/// The workspace as it is: every file's report, from `.memlint/index`
/// (refreshed as `check` refreshes it).
pub(crate) struct Current {
    /// Boxed as `check::findings` gives them (moving 100k reports out of
    /// their boxes would copy them all).
    #[allow(clippy::vec_box)]
    pub reports: Vec<Box<FileReport>>,
    /// Paths of the records that exist but were not read (see
    /// [`Current::read_kinds`]), sorted: known by name only.
    pub unread: Vec<String>,
    /// What reading the workspace met (an unreadable directory, a
    /// `.memlint` that cannot hold the caches, a git repository not read),
    /// for the front end to report.
    pub problems: Vec<Problem>,
}

impl Current {
    /// Reads the workspace (from the index where it is fresh).
    pub(crate) fn read(ws: &Workspace) -> Current {
        let listing = crate::store::listing::listing(ws);
        let opts = crate::engine::scan::Options {
            force: false,
            progress: None,
        };
        let (reports, _, mut problems) =
            crate::engine::check::lint::findings(ws, &listing.files, &opts);
        problems.extend(listing.problems);
        Current {
            reports,
            unread: Vec::new(),
            problems,
        }
    }

    /// Reads what a record of the `kinds` about to be written needs: the
    /// reports of every record of those kinds (from the index where it is
    /// fresh, each file stat'ed and the changed ones read again), and every
    /// other record by name only (its kind and path: it exists, its fields
    /// are not read). Nothing is written back. Enough for the rules on a
    /// new record that names records of no other kind: its slug and
    /// content are compared within its kind, and `replaced_by` chains stay
    /// within a kind. Without a usable index, [`Current::read`].
    pub(crate) fn read_kinds(ws: &Workspace, kinds: &[Kind]) -> Current {
        use crate::model::kind::Place;
        let listing = crate::store::listing::listing(ws);
        let (all, problems) = (listing.files, listing.problems);
        // One pass, the names moved: the records of `kinds`, and the others.
        let (mut picked, mut unread) = (Vec::new(), Vec::new());
        for f in all {
            match classify(&f, &ws.config.banned_dirs) {
                Place::Record(k) if kinds.contains(&k) => picked.push(f),
                Place::Record(_) => unread.push(f),
                _ => {}
            }
        }
        let wanted: crate::model::hashing::Set<&str> = picked.iter().map(String::as_str).collect();
        let key = crate::io::cache::key(&ws.config);
        let kinds: Vec<Option<Kind>> = kinds.iter().copied().map(Some).collect();
        let pick = |p: &str| wanted.contains(p);
        let Some(stored) = crate::store::table::load_picked(&ws.root, key, &kinds, &pick) else {
            return Current::read(ws);
        };
        drop(wanted);
        let reports =
            crate::engine::scan::refresh_picked(ws, &picked, stored.entries, stored.scanned_at)
                .into_iter()
                .map(|e| e.report)
                .collect();
        Current {
            reports,
            unread,
            problems,
        }
    }

    /// The report of the record of `kind` named `slug`, if there is one.
    pub(crate) fn record(&self, kind: Kind, slug: &str) -> Option<&FileReport> {
        self.reports
            .iter()
            .map(|r| r.as_ref())
            .find(|r| r.info.kind == Some(kind) && crate::model::kind::stem(&r.path) == slug)
    }

    /// The reports of every record of `kind`.
    pub(crate) fn of_kind(&self, kind: Kind) -> impl Iterator<Item = &FileReport> {
        self.reports
            .iter()
            .map(|r| r.as_ref())
            .filter(move |r| r.info.kind == Some(kind))
    }
}

/// The diagnostics the changed files would have, sorted: their own rules,
/// and the cross-record rules over the workspace with them in place.
/// `slug/similar` is left out: whether a new slug is a near-duplicate is
/// the caller's question, asked of the one slug (clustering a large
/// workspace's slugs costs more than every other rule).
pub(crate) fn diagnostics(
    ws: &Workspace,
    current: &Current,
    changes: &[(String, String)],
) -> Vec<Diagnostic> {
    lint_changes(ws, current, changes).diagnostics
}

/// What [`lint_changes`] finds on texts that are not (or not yet) on disk.
#[derive(Debug, Default)]
pub(crate) struct Linted {
    /// The changed files' diagnostics, sorted, as [`diagnostics`] gives them.
    pub diagnostics: Vec<Diagnostic>,
    /// For each changed file with a `status/chain` finding: the slug of its
    /// chain's final record, which `check --fix` would write into
    /// `replaced_by` (see `engine::fix::chain_targets`).
    pub chain_targets: std::collections::HashMap<String, String>,
}

/// How many changed files [`lint_changes`] compares one by one with every
/// record for near-duplicates; above it, all pairs are found at once.
const MANY_CHANGES: usize = 64;

/// Lints `changes` ((path, text) pairs: an editor's open buffers, a record
/// about to be written) as if each text were the file at its path, the
/// cross-record rules resolved against the workspace with those texts in
/// place of the files on disk. Front ends that lint unsaved text (the
/// language server, the write path) call this.
pub(crate) fn lint_changes(
    ws: &Workspace,
    current: &Current,
    changes: &[(String, String)],
) -> Linted {
    use rayon::prelude::*;
    let changed: Vec<FileReport> = changes
        .par_iter()
        .map(|(path, text)| lint_text(ws, path, text))
        .collect();
    let changed_paths: std::collections::HashSet<&str> =
        changes.iter().map(|(c, _)| c.as_str()).collect();
    let is_changed = |p: &str| changed_paths.contains(p);
    let items = current
        .reports
        .iter()
        .filter(|r| !is_changed(&r.path))
        .map(|r| (r.path.as_str(), &r.info))
        .chain(changed.iter().map(|r| (r.path.as_str(), &r.info)));
    // A git repository left unread is reported where the workspace is
    // read whole ([`Current::read`]).
    let (resolver, _) = crate::io::git::DiskResolver::of(ws);
    let mut view = View::new(items, &ws.config, &resolver);
    view.known_clusters = Kind::ALL.into_iter().map(|k| (k, Vec::new())).collect();
    view.reported = Some(&is_changed);
    // Records known by name only exist, with fields no rule on the changed
    // records needs.
    let unread = |kind: Kind, slug: &str| {
        let path = format!("{}/{slug}.md", kind.dir());
        current.unread.binary_search(&path).is_ok()
    };
    if !current.unread.is_empty() {
        view.others = Some(&unread);
    }
    // Only the changed records' findings are kept: only their pairs are
    // looked for, one pass over the sketches each.
    // Many changed files at once (an import): the rule's own pair finder
    // over the whole workspace, rather than one pass per changed file.
    if changes.len() <= MANY_CHANGES {
        view.known_duplicates = Some(crate::lint::rules::content::pairs_of(&view, is_changed));
    }
    let mut sink = WsSink::new(&ws.config);
    crate::lint::registry::check_workspace(&view, None, &mut sink);
    let chained: Vec<&str> = sink
        .diagnostics
        .iter()
        .filter(|d| d.rule == crate::model::rule::Rule::StatusChain && is_changed(&d.path))
        .map(|d| d.path.as_str())
        .collect();
    // Only when a changed file has a chain: the walk covers every record.
    let chain_targets = if chained.is_empty() {
        Default::default()
    } else {
        crate::lint::rules::status::chain_fixes(&view)
            .into_iter()
            .filter(|(path, _)| chained.contains(&path.as_str()))
            .collect()
    };
    let mut diags: Vec<Diagnostic> = changed
        .into_iter()
        .flat_map(|r| r.diagnostics)
        .chain(sink.diagnostics.into_iter().filter(|d| is_changed(&d.path)))
        .collect();
    diagnostic::sort(&mut diags);
    Linted {
        diagnostics: diags,
        chain_targets,
    }
}

/// The per-file report of `text` as the file at `path`, read as `check`
/// would read it: a text over `max_file_bytes` is not parsed.
pub(crate) fn lint_text(ws: &Workspace, path: &str, text: &str) -> FileReport {
    let place = classify(path, &ws.config.banned_dirs);
    let content = match text.len() as u64 {
        n if n > ws.config.max_file_bytes => Content::TooLarge(n),
        _ => Content::Bytes(text.as_bytes()),
    };
    lint_file(path, &place, content, &ws.config)
}

/// Whether any of `diags` is an error.
pub(crate) fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.severity == Severity::Error)
}

/// Whether slugs `a` and `b` are near-duplicates as `slug/similar` sees
/// them: equal but for a version-like suffix, or similar enough.
pub(crate) fn near(a: &str, b: &str, ratio: f64) -> bool {
    use crate::syntax::similar::{sequence_ratio, suffix_key};
    if suffix_key(a) == suffix_key(b) {
        return true;
    }
    // The ratio is at most 2·min/(la+lb): most pairs end here.
    let (la, lb) = (a.len() as f64, b.len() as f64);
    if 2.0 * la.min(lb) / (la + lb) < ratio {
        return false;
    }
    // Nor more than the bytes the two have in common, counted with their
    // repeats (difflib's `quick_ratio`): most of the rest end here, before
    // the matching blocks are looked for (a `new` compares one slug with
    // every slug of its kind).
    // Counted by the low seven bits: bytes that share them count as one
    // (never fewer in common), and a count never passes 255.
    let mut left = [0u8; 128];
    for &c in a.as_bytes() {
        let n = &mut left[usize::from(c & 0x7f)];
        *n = n.saturating_add(1);
    }
    let mut common = 0usize;
    for &c in b.as_bytes() {
        let n = &mut left[usize::from(c & 0x7f)];
        if *n > 0 {
            *n -= 1;
            common += 1;
        }
    }
    if a.len() < 256 && 2.0 * common as f64 / (la + lb) < ratio {
        return false;
    }
    sequence_ratio(a.as_bytes(), b.as_bytes()) >= ratio
}

#[cfg(test)]
mod tests {
    use super::near;
    use crate::syntax::similar::{sequence_ratio, suffix_key};

    /// The bound that spares most pairs the matching never changes the
    /// answer: `near` is the suffix rule or the exact ratio.
    #[test]
    fn near_is_the_exact_ratio_whatever_it_skips() {
        let words = [
            "cache", "caches", "retry", "sync", "bank", "use", "sqlite", "redis", "v2", "new",
            "backoff", "with", "a", "ab", "ba", "store", "stored", "amounts", "x9", "9x",
        ];
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let slug = |next: &mut dyn FnMut(usize) -> usize| {
            let parts: Vec<&str> = (0..1 + next(4)).map(|_| words[next(words.len())]).collect();
            parts.join("-")
        };
        for _ in 0..20_000 {
            let (a, b) = (slug(&mut next), slug(&mut next));
            for ratio in [0.5, 0.8, 0.9, 0.95] {
                let exact = suffix_key(&a) == suffix_key(&b)
                    || sequence_ratio(a.as_bytes(), b.as_bytes()) >= ratio;
                assert_eq!(near(&a, &b, ratio), exact, "{a} {b} {ratio}");
            }
        }
    }
}
