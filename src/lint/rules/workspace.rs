//! The view cross-record rules see: every record's path, kind, slug, status,
//! `replaced_by` and sources, plus a way to ask whether a `file:` or
//! `commit:` source exists. Built from the per-file results (or the index),
//! so cross-record rules never re-read files.

use crate::lint::info::{Located, RecordInfo};
use crate::model::config::Config;
use crate::model::diagnostic::Diagnostic;
use crate::model::hashing::Map;
use crate::model::kind::Kind;
use crate::model::rule::Rule;

/// One record as cross-record rules see it.
pub struct Entry<'a> {
    pub path: &'a str,
    pub slug: &'a str,
    pub info: &'a RecordInfo,
}

/// Answers existence questions that need the disk or git.
pub trait Resolver {
    /// Whether a root-relative, normalised path exists inside the root.
    fn file_exists(&self, rel: &str) -> bool;
    /// For a path [`Resolver::file_exists`] denies: the root-relative name
    /// of the symbolic link on its way that leads out of the root, after
    /// which nothing was looked at (so the answer is the same whatever
    /// exists out there).
    fn leads_out(&self, _rel: &str) -> Option<String> {
        None
    }
    /// Whether `hex` (7–40 hex digits) names an object; `None` when there is
    /// no git repository to ask.
    fn commit_exists(&self, hex: &str) -> Option<bool>;
    /// How many lines the file at root-relative `rel` has (a last line
    /// without a newline counts); `None` when it cannot be read, so a line
    /// range in it is not judged.
    fn file_lines(&self, _rel: &str) -> Option<usize> {
        None
    }
}

/// A resolver for views whose rules ask it nothing (`report` reads chains
/// and clusters only): every file exists, and there is no repository.
pub(crate) struct NoDisk;

impl Resolver for NoDisk {
    fn file_exists(&self, _rel: &str) -> bool {
        true
    }

    fn commit_exists(&self, _hex: &str) -> Option<bool> {
        None
    }
}

/// Whether the workspace has a record of a kind and slug beyond those a
/// [`View`] holds.
pub(crate) type Others<'a> = dyn Fn(Kind, &str) -> bool + 'a;

/// The whole workspace, for cross-record rules.
pub struct View<'a> {
    pub records: Vec<Entry<'a>>,
    /// Every (kind, slug) present on disk → the index into `records` of
    /// the first whose front matter could be read, if any (unreadable
    /// records still exist: see `exists`). One map, not two: building it
    /// is a hash insert per record.
    by_slug: Map<(Kind, &'a str), Option<usize>>,
    pub config: &'a Config,
    pub resolver: &'a dyn Resolver,
    /// Near-duplicate slug clusters per kind already known for exactly this
    /// workspace's slugs (the index keeps them between runs); `slug/similar`
    /// computes the kinds missing here.
    pub known_clusters: Vec<(Kind, Vec<Vec<String>>)>,
    /// The `content/duplicate` pairs already known for exactly these
    /// records' texts (the index keeps them between runs); `None`: computed.
    pub known_duplicates: Option<Vec<crate::lint::rules::content::Pair>>,
    /// Records the workspace has beyond `records`, known by name only (the
    /// git modes read only what changed): answers `exists` for them.
    pub others: Option<&'a Others<'a>>,
    /// When set, only the records it accepts are reported on, and rules
    /// may skip looking at the disk for the others (a write checks the
    /// records it writes, not each of the workspace's sources).
    pub reported: Option<&'a dyn Fn(&str) -> bool>,
}

impl<'a> View<'a> {
    /// Builds the view from (path, info) pairs of every record in the workspace.
    pub(crate) fn new(
        items: impl IntoIterator<Item = (&'a str, &'a RecordInfo)>,
        config: &'a Config,
        resolver: &'a dyn Resolver,
    ) -> View<'a> {
        let items = items.into_iter();
        let size = items.size_hint().1.unwrap_or(0);
        let mut records = Vec::with_capacity(size);
        let mut by_slug: Map<_, Option<usize>> =
            Map::with_capacity_and_hasher(size, Default::default());
        for (path, info) in items {
            let Some(kind) = info.kind else { continue };
            let slug = crate::model::kind::stem(path);
            let first = by_slug.entry((kind, slug)).or_default();
            if info.parsed && first.is_none() {
                *first = Some(records.len());
            }
            records.push(Entry { path, slug, info });
        }
        View {
            records,
            by_slug,
            config,
            resolver,
            known_clusters: Vec::new(),
            known_duplicates: None,
            others: None,
            reported: None,
        }
    }

    /// The slugs of `kind` that `slug/similar` compares (valid slugs only),
    /// sorted.
    pub(crate) fn comparable_slugs(&self, kind: Kind) -> Vec<&'a str> {
        let mut slugs = self.slugs(kind);
        slugs.retain(|s| crate::model::kind::is_slug(s));
        slugs
    }

    /// Clusters of near-duplicate slugs of `kind`: known ones, else computed.
    pub(crate) fn similar_clusters(&self, kind: Kind) -> Vec<Vec<String>> {
        match self.known_clusters.iter().find(|(k, _)| *k == kind) {
            Some((_, clusters)) => clusters.clone(),
            None => crate::syntax::similar::similar_clusters(
                &self.comparable_slugs(kind),
                self.config.similar_slug_ratio,
            ),
        }
    }

    /// The readable record of `kind` named `slug`.
    pub(crate) fn get(&self, kind: Kind, slug: &str) -> Option<&Entry<'a>> {
        self.by_index(kind, slug).map(|i| &self.records[i])
    }

    /// The index of the readable record of `kind` named `slug`.
    pub(crate) fn by_index(&self, kind: Kind, slug: &str) -> Option<usize> {
        self.by_slug.get(&(kind, slug)).copied().flatten()
    }

    /// Whether a record of `kind` named `slug` exists (readable or not).
    pub(crate) fn exists(&self, kind: Kind, slug: &str) -> bool {
        self.by_slug.contains_key(&(kind, slug)) || self.others.is_some_and(|more| more(kind, slug))
    }

    /// Slugs of every record of `kind`.
    pub(crate) fn slugs(&self, kind: Kind) -> Vec<&'a str> {
        let mut v: Vec<&str> = self
            .records
            .iter()
            .filter(|e| e.info.kind == Some(kind))
            .map(|e| e.slug)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Collects cross-record findings as located diagnostics.
pub struct WsSink<'c> {
    config: &'c Config,
    pub diagnostics: Vec<Diagnostic>,
}

impl<'c> WsSink<'c> {
    pub(crate) fn new(config: &'c Config) -> Self {
        WsSink {
            config,
            diagnostics: Vec::new(),
        }
    }

    /// Emits `rule` on `path` at `at` (or line 1, column 1).
    pub(crate) fn emit(&mut self, rule: Rule, path: &str, at: Option<&Located>, message: String) {
        self.emit_fixable(rule, path, at, message, true);
    }

    /// [`WsSink::emit`] for a finding of a fixable rule that `--fix` may
    /// not be able to repair: `fixable` says whether it can.
    pub(crate) fn emit_fixable(
        &mut self,
        rule: Rule,
        path: &str,
        at: Option<&Located>,
        message: String,
        fixable: bool,
    ) {
        let Some(severity) = self.config.severity(rule) else {
            return;
        };
        let (line, column, end_line, end_column, span) = match at {
            Some(l) => (l.line, l.column, l.end_line, l.end_column, l.span.clone()),
            None => (1, 1, 1, 1, 0..0),
        };
        self.diagnostics.push(Diagnostic {
            rule,
            severity,
            path: path.to_string(),
            line,
            column,
            end_line,
            end_column,
            message,
            fixable: rule.fixable() && fixable,
            span,
            omitted: 0,
            commits: Default::default(),
        });
    }
}

/// Whether `rule` reports anything under `config` (its level is not `off`),
/// so that a rule that is off costs nothing.
pub(crate) fn enabled(config: &Config, rule: Rule) -> bool {
    config.enabled(rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(kind: Kind, parsed: bool) -> RecordInfo {
        RecordInfo {
            kind: Some(kind),
            parsed,
            ..RecordInfo::default()
        }
    }

    #[test]
    fn unreadable_records_exist_but_are_not_found() {
        let config = Config::default();
        let (readable, unreadable) = (info(Kind::Decision, true), info(Kind::Decision, false));
        let other_kind = info(Kind::Knowledge, true);
        let items = [
            ("memory/decisions/broken.md", &unreadable),
            ("memory/decisions/fine.md", &readable),
            // The same slug again, readable this time: found, as the first
            // readable one.
            ("memory/decisions/old/broken.md", &readable),
            ("memory/decisions/old/fine.md", &readable),
            ("knowledge/only-knowledge.md", &other_kind),
            ("memory/decisions/only-broken.md", &unreadable),
        ];
        let view = View::new(items, &config, &NoDisk);
        assert_eq!(view.records.len(), items.len());
        assert!(view.exists(Kind::Decision, "only-broken"));
        assert_eq!(view.by_index(Kind::Decision, "only-broken"), None);
        assert!(view.get(Kind::Decision, "only-broken").is_none());
        assert_eq!(view.by_index(Kind::Decision, "broken"), Some(2));
        assert_eq!(view.by_index(Kind::Decision, "fine"), Some(1));
        assert_eq!(
            view.get(Kind::Decision, "fine").map(|e| e.path),
            Some("memory/decisions/fine.md")
        );
        assert!(view.exists(Kind::Knowledge, "only-knowledge"));
        assert!(!view.exists(Kind::Decision, "only-knowledge"));
        assert!(!view.exists(Kind::Decision, "absent"));
        assert_eq!(view.by_index(Kind::Decision, "absent"), None);
    }
}
