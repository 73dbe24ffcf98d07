//! Checking a version other than the work tree: what the next commit holds
//! (`check --staged`, read from the git index) or the changes since a
//! revision (`check --base`). Each builds one [`Version`] with a small
//! constructor ([`staged`], [`base`]); [`run_version`] lints it against the
//! rest of that version.

use crate::engine::check::lint::Outcome;
use crate::engine::drift::change::{
    compared_of, judge_change, modified_files, reader_of, renamed_files, touched_by, PathId, Sides,
    Which,
};
use crate::engine::history::{
    not_judged_if_cut_short, rewritten_decisions, short, unexplained_removals, Found,
};
use crate::engine::log::renames;
use crate::io::git::{may_convert, work_tree_copy, GitError, Object, Repo, VersionResolver};
use crate::lint::rules::workspace::{self, View, WsSink};
use crate::lint::FileReport;
use crate::model::content::Content;
use crate::model::diagnostic::{self, Diagnostic};
use crate::model::hashing::{Map, Set};
use crate::model::kind::{classify, Kind, Place};
use crate::model::rule::Rule;
use crate::model::workspace::Workspace;
use crate::syntax::trailer::{trailers, TRAILER};
use std::collections::HashSet;

/// Reads a root-relative path from the work tree, from any thread; `None`
/// when the file may not hold the version's content.
pub(crate) type ReadFast<'a> = dyn Fn(&str) -> Option<Vec<u8>> + Sync + 'a;

/// A version of the workspace that git holds (the index, or a commit),
/// read blob by blob so that only what changed is linted (`check --staged`,
/// `check --base`).
pub(crate) struct Version<'a> {
    /// Every path of the version under the root, root-relative and sorted.
    pub paths: Vec<&'a str>,
    /// Paths added or modified in this version: they are linted and reported.
    pub changed: Vec<String>,
    /// Paths the previous version had and this one has not (deleted or
    /// renamed away): records pointing at them are reported too.
    pub removed: Vec<String>,
    /// Reads a path of this version.
    pub read: &'a dyn Fn(&str) -> Option<Content>,
    /// Reads a path from the work tree when the file certainly holds this
    /// version's content; thread-safe, for when many records are needed.
    pub read_fast: Option<&'a ReadFast<'a>>,
    /// Answers `file:` and `commit:` questions against this version.
    pub resolver: &'a dyn workspace::Resolver,
    /// Whether the texts of the files with findings are wanted (to show
    /// their lines): output that shows none reads no more files for them.
    pub texts: bool,
}

/// The `.memlintignore` files of a version, read from it, so that a
/// version's paths are excluded as `io::walk::walk` excludes the work
/// tree's. `.gitignore` files are not read: every path of a version is
/// tracked, and git ignores only untracked files (a record added with
/// `git add -f` is in the commit and is linted). Only the paths to report
/// are asked about.
struct Ignores<'v, 'a> {
    root: &'v std::path::Path,
    version: &'v Version<'a>,
    /// Directory (root-relative, with `/`) → its matcher, if it has ignore files.
    dirs: std::cell::RefCell<Map<String, Option<ignore::gitignore::Gitignore>>>,
}

impl<'v, 'a> Ignores<'v, 'a> {
    fn new(ws: &'v Workspace, version: &'v Version<'a>) -> Self {
        Ignores {
            root: &ws.root,
            version,
            dirs: Default::default(),
        }
    }

    fn matcher(&self, dir: &str) -> Option<ignore::gitignore::Gitignore> {
        if let Some(known) = self.dirs.borrow().get(dir) {
            return known.clone();
        }
        let mut builder = ignore::gitignore::GitignoreBuilder::new(self.root.join(dir));
        let mut any = false;
        if let Some(Content::Bytes(bytes)) = (self.version.read)(&format!("{dir}.memlintignore")) {
            any = true;
            for line in String::from_utf8_lossy(&bytes).lines() {
                let _ = builder.add_line(None, line);
            }
        }
        let matcher = if any { builder.build().ok() } else { None };
        self.dirs
            .borrow_mut()
            .insert(dir.to_string(), matcher.clone());
        matcher
    }

    /// Whether root-relative `rel` is excluded (the deepest matching rule decides).
    fn ignored(&self, rel: &str) -> bool {
        let mut dirs = vec![String::new()];
        let mut at = 0;
        while let Some(i) = rel[at..].find('/') {
            at += i + 1;
            dirs.push(rel[..at].to_string());
        }
        let path = self.root.join(rel);
        for dir in dirs.iter().rev() {
            if let Some(m) = self.matcher(dir) {
                match m.matched_path_or_any_parents(&path, false) {
                    ignore::Match::Ignore(_) => return true,
                    ignore::Match::Whitelist(_) => return false,
                    ignore::Match::None => {}
                }
            }
        }
        false
    }
}

/// How many blobs are held in memory at once when every record is read.
const CHUNK: usize = 2048;

fn lint_blob(ws: &Workspace, rel: &str, place: &Place, blob: &Content) -> FileReport {
    crate::engine::workspace::lint_read(ws, rel, place, Ok(blob.as_slice()))
}

/// Reads `paths` through `version.read` (one thread: git objects are not
/// shared between threads) and lints them in parallel, a chunk at a time.
fn lint_version(ws: &Workspace, version: &Version, paths: &[(&str, Place)]) -> Vec<FileReport> {
    use rayon::prelude::*;
    let mut out = Vec::with_capacity(paths.len());
    for chunk in paths.chunks(CHUNK) {
        let blobs: Vec<(&str, &Place, Content)> = chunk
            .iter()
            .filter_map(|(p, place)| Some((*p, place, (version.read)(p)?)))
            .collect();
        out.par_extend(
            blobs
                .par_iter()
                .map(|(p, place, blob)| lint_blob(ws, p, place, blob)),
        );
    }
    out
}

/// The unchanged records that may point at a removed path or at a changed
/// record that is now replaced, linted: those whose text mentions a removed
/// file name or record stem, or the stem of such a replaced record
/// (`replaced_stems`). Their text comes from the work tree where it matches
/// the version (in parallel), else from git.
fn pointing_at(
    ws: &Workspace,
    version: &Version,
    places: &[(&str, Place)],
    changed: &Set<&str>,
    replaced_stems: impl Iterator<Item = String>,
) -> Vec<FileReport> {
    let mut needles: Vec<String> = version
        .removed
        .iter()
        .map(|p| {
            let name = p.rsplit('/').next().unwrap_or(p);
            match classify(p, &ws.config.banned_dirs) {
                Place::Record(_) => crate::model::kind::stem(p).to_string(),
                _ => name.to_string(),
            }
        })
        .chain(replaced_stems)
        .filter(|n| !n.is_empty())
        .collect();
    mentioning(ws, version, places, changed, &mut needles, &lint_blob)
}

/// How [`mentioning`] reads a record it finds.
type Lint<'l> = &'l (dyn Fn(&Workspace, &str, &Place, &Content) -> FileReport + Sync);

/// The records of `places` not in `changed` whose text mentions one of
/// `needles`, read by `lint` (their text from the work tree where it
/// matches the version, in parallel, else from git).
pub(crate) fn mentioning(
    ws: &Workspace,
    version: &Version,
    places: &[(&str, Place)],
    changed: &Set<&str>,
    needles: &mut Vec<String>,
    lint: Lint,
) -> Vec<FileReport> {
    use rayon::prelude::*;
    needles.sort();
    needles.dedup();
    let pattern = needles
        .iter()
        .map(|n| regex::escape(n))
        .collect::<Vec<_>>()
        .join("|");
    let Ok(mentions) = regex::bytes::Regex::new(&pattern) else {
        return Vec::new();
    };
    let candidates: Vec<&(&str, Place)> = places
        .iter()
        .filter(|(p, place)| matches!(place, Place::Record(_)) && !changed.contains(p))
        .collect();
    let read_fast = version.read_fast;
    let mut out = Vec::new();
    for chunk in candidates.chunks(4 * CHUNK) {
        let fast: Vec<Option<Vec<u8>>> = chunk
            .par_iter()
            .map(|(p, _)| read_fast.and_then(|read| read(p)))
            .collect();
        let mut hits: Vec<(&str, &Place, Content)> = Vec::new();
        for ((p, place), bytes) in chunk.iter().map(|c| (c.0, &c.1)).zip(fast) {
            let blob = match bytes {
                Some(b) if b.len() as u64 > ws.config.max_file_bytes => continue,
                Some(b) => Content::Bytes(b),
                None => match (version.read)(p) {
                    Some(blob) => blob,
                    None => continue,
                },
            };
            if let Content::Bytes(b) = &blob {
                if mentions.is_match(b) {
                    hits.push((p, place, blob));
                }
            }
        }
        out.par_extend(
            hits.par_iter()
                .map(|(p, place, blob)| lint(ws, p, place, blob)),
        );
    }
    out
}

/// Whether a record's `replaced_by` or sources name one of the removed
/// paths (or a record among them).
fn points_at_removed(
    info: &crate::lint::RecordInfo,
    removed: &HashSet<&str>,
    removed_records: &HashSet<(Kind, &str)>,
) -> bool {
    if let (Some(kind), Some(target)) = (info.kind, &info.replaced_by) {
        if removed_records.contains(&(kind, target.value.as_str())) {
            return true;
        }
    }
    info.sources.iter().any(|s| {
        let Some((prefix, value)) = s.value.split_once(':') else {
            return false;
        };
        match prefix {
            "file" => crate::lint::rules::sources::file_target(value).is_ok_and(|rel| {
                removed.contains(rel.as_ref())
                    || removed.iter().any(|r| r.starts_with(&format!("{rel}/")))
            }),
            "cmem" => removed_records.contains(&(Kind::Session, value)),
            other => Kind::from_name(other).is_some_and(|k| removed_records.contains(&(k, value))),
        }
    })
}

/// Lints what changed in `version` against the whole of it: the changed
/// files (per-file and cross-record rules), plus the cross-record findings of
/// records that point at a removed path. Unchanged records are known by name
/// only, except those a changed record's `replaced_by` leads to and, when
/// something was removed, those whose text mentions it.
pub(crate) fn run_version(
    ws: &Workspace,
    version: &Version,
    selected: &dyn Fn(&str) -> bool,
) -> Outcome {
    let banned = &ws.config.banned_dirs;
    // `version.paths` is sorted: every question is a binary search, so
    // nothing is done per record of the workspace unless something was
    // removed.
    let find = |p: &str| {
        version
            .paths
            .binary_search(&p)
            .ok()
            .map(|i| version.paths[i])
    };
    let place_of = |p: &str| {
        let p = find(p)?;
        let place = classify(p, banned);
        (place != Place::Outside).then_some((p, place))
    };
    let ignores = Ignores::new(ws, version);
    let changed: Set<&str> = version
        .changed
        .iter()
        .map(String::as_str)
        .filter(|p| place_of(p).is_some() && selected(p) && !ignores.ignored(p))
        .collect();
    let mut to_read: Vec<(&str, Place)> = changed.iter().filter_map(|p| place_of(p)).collect();
    to_read.sort_by(|a, b| a.0.cmp(b.0));
    let mut reports: Map<String, FileReport> = lint_version(ws, version, &to_read)
        .into_iter()
        .map(|r| (r.path.clone(), r))
        .collect();
    // Changed records that are now replaced: a record whose `replaced_by`
    // leads to one of them is now on a chain.
    let replaced_changed: HashSet<(Kind, String)> = reports
        .values()
        .filter(|r| r.info.status.as_deref() == Some("replaced"))
        .filter_map(|r| Some((r.info.kind?, crate::model::kind::stem(&r.path).to_string())))
        .collect();
    let full = !version.removed.is_empty() || !replaced_changed.is_empty();
    if full {
        use rayon::prelude::*;
        let places: Vec<(&str, Place)> = version
            .paths
            .par_iter()
            .map(|p| (*p, classify(p, banned)))
            .filter(|(_, place)| *place != Place::Outside)
            .collect();
        let stems = replaced_changed.iter().map(|(_, stem)| stem.clone());
        for r in pointing_at(ws, version, &places, &changed, stems) {
            reports.insert(r.path.clone(), r);
        }
    }
    follow_replaced_by(ws, version, &mut reports, &place_of);
    let cross = workspace_findings(ws, version, &reports, &changed, &find);
    let removed: HashSet<&str> = version.removed.iter().map(String::as_str).collect();
    let removed_records: HashSet<(Kind, &str)> = version
        .removed
        .iter()
        .filter_map(|p| match classify(p, banned) {
            Place::Record(k) => Some((k, crate::model::kind::stem(p))),
            _ => None,
        })
        .collect();
    let leads_to_replaced = |info: &crate::lint::RecordInfo| match (info.kind, &info.replaced_by) {
        (Some(kind), Some(target)) => replaced_changed.contains(&(kind, target.value.clone())),
        _ => false,
    };
    let affected = |p: &str| {
        full && selected(p)
            && !ignores.ignored(p)
            && reports.get(p).is_some_and(|r| {
                points_at_removed(&r.info, &removed, &removed_records) || leads_to_replaced(&r.info)
            })
    };
    let mut diags = cross;
    // A cluster of similar slugs that holds a changed record is reported on
    // its members after the first, changed or not; a cycle through a
    // changed record on each of its members (the records read are the
    // changed ones and those their `replaced_by` leads to).
    diags.retain(|d| {
        changed.contains(d.path.as_str())
            || affected(&d.path)
            || (matches!(d.rule, Rule::SlugSimilar | Rule::StatusCycle)
                && selected(&d.path)
                && !ignores.ignored(&d.path))
    });
    outcome(version, reports, &changed, diags)
}

/// Lints the records the `replaced_by` of what was read leads to, and theirs,
/// until none is left, so chains and cycles through unchanged records are
/// seen.
fn follow_replaced_by<'a>(
    ws: &Workspace,
    version: &Version<'a>,
    reports: &mut Map<String, FileReport>,
    place_of: &dyn Fn(&str) -> Option<(&'a str, Place)>,
) {
    loop {
        let mut next: Vec<(&str, Place)> = Vec::new();
        for r in reports.values() {
            let (Some(kind), Some(target)) = (r.info.kind, &r.info.replaced_by) else {
                continue;
            };
            let path = format!("{}/{}.md", kind.dir(), target.value);
            if let Some((p, place)) = place_of(&path) {
                if !reports.contains_key(p) && !next.iter().any(|(q, _)| *q == p) {
                    next.push((p, place));
                }
            }
        }
        if next.is_empty() {
            break;
        }
        for r in lint_version(ws, version, &next) {
            reports.insert(r.path.clone(), r);
        }
    }
}

/// The cross-record findings over what was read (`reports`); every other
/// record of the version is known by name (`find`). `slug/similar` runs on
/// the clusters the changed records can belong to, drawn from every name of
/// their kinds.
fn workspace_findings<'a>(
    ws: &Workspace,
    version: &Version<'a>,
    reports: &Map<String, FileReport>,
    changed: &Set<&str>,
    find: &dyn Fn(&str) -> Option<&'a str>,
) -> Vec<Diagnostic> {
    let unread: Vec<crate::lint::RecordInfo> = Kind::ALL
        .iter()
        .map(|k| crate::lint::RecordInfo {
            kind: Some(*k),
            ..Default::default()
        })
        .collect();
    let unread_info = |k: Kind| Kind::ALL.iter().position(|x| *x == k).map(|i| &unread[i]);
    // The view holds what was read; every other record is known by name.
    let others = |kind: Kind, slug: &str| find(&format!("{}/{slug}.md", kind.dir())).is_some();
    let mut read: Vec<(&str, &crate::lint::RecordInfo)> = reports
        .values()
        .map(|r| (r.path.as_str(), &r.info))
        .collect();
    read.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut view = View::new(read, &ws.config, version.resolver);
    view.others = Some(&others);
    // `slug/similar` runs on the clusters the changed records can belong
    // to, drawn from every name of their kinds.
    let near = workspace::enabled(&ws.config, Rule::SlugSimilar).then(|| {
        let members = similar_closure(version, &view, changed);
        let mut near_items: Vec<(&str, &crate::lint::RecordInfo)> = Vec::new();
        for (kind, slug) in &members {
            let Some(p) = find(&format!("{}/{slug}.md", kind.dir())) else {
                continue;
            };
            let info = match reports.get(p) {
                Some(r) => &r.info,
                None => match unread_info(*kind) {
                    Some(info) => info,
                    None => continue,
                },
            };
            near_items.push((p, info));
        }
        near_items.sort_unstable_by(|a, b| a.0.cmp(b.0));
        View::new(near_items, &ws.config, version.resolver)
    });
    let mut sink = WsSink::new(&ws.config);
    crate::lint::registry::check_workspace(&view, near.as_ref(), &mut sink);
    sink.diagnostics
}

/// The outcome: the changed files' own reports and the findings kept
/// (`diags`), with the text of every file a finding is on.
fn outcome(
    version: &Version,
    mut reports: Map<String, FileReport>,
    changed: &Set<&str>,
    mut diags: Vec<Diagnostic>,
) -> Outcome {
    let mut out = Outcome {
        files: diags
            .iter()
            .map(|d| d.path.as_str())
            .filter(|p| !changed.contains(p))
            .collect::<Set<_>>()
            .len(),
        ..Outcome::default()
    };
    for p in changed {
        let Some(r) = reports.remove(*p) else {
            continue;
        };
        out.files += 1;
        if let Some(src) = r.source {
            out.sources.insert(r.path.clone(), src);
        }
        diags.extend(r.diagnostics);
    }
    for d in diags.iter().filter(|_| version.texts) {
        if !out.sources.contains_key(&d.path) {
            if let Some(Content::Bytes(b)) = (version.read)(&d.path) {
                out.sources
                    .insert(d.path.clone(), String::from_utf8_lossy(&b).into_owned());
            }
        }
    }
    diagnostic::sort(&mut diags);
    out.diagnostics = diags;
    out
}

/// Letter counts of a slug (`[a-z0-9-]`; anything else shares one slot).
fn letter_counts(s: &str) -> [u8; 38] {
    let mut counts = [0u8; 38];
    for b in s.bytes() {
        let slot = match b {
            b'a'..=b'z' => (b - b'a') as usize,
            b'0'..=b'9' => 26 + (b - b'0') as usize,
            b'-' => 36,
            _ => 37,
        };
        counts[slot] = counts[slot].saturating_add(1);
    }
    counts
}

/// The (kind, slug) pairs that may share a `slug/similar` cluster with a
/// changed record (of `view`, among the names of `version`): the changed
/// slugs, then, transitively, every slug whose
/// ratio with a member can reach `similar_slug_ratio` (bounded from above by
/// length and by common letters, as difflib's `quick_ratio` does) or that
/// shares its suffix key. The rule itself then runs on these few. Each
/// member looked at costs a pass over the kind's slugs, so past
/// [`CLOSURE_SCANS`] members, or once the candidates clustered reach half
/// the kind's slugs (a large cluster: `note-1` … `note-20000`), the kind's
/// clusters are computed whole instead, which is near-linear.
fn similar_closure<'a>(
    version: &Version<'a>,
    view: &View,
    changed: &Set<&str>,
) -> HashSet<(Kind, &'a str)> {
    let ratio = view.config.similar_slug_ratio;
    let mut members: HashSet<(Kind, &'a str)> = HashSet::new();
    for kind in Kind::ALL.into_iter().filter(|k| k.has_slug()) {
        // Every slug of the kind: the files directly in its directory.
        let dir = format!("{}/", kind.dir());
        let from = version.paths.partition_point(|p| *p < dir.as_str());
        let slugs: Vec<&'a str> = version.paths[from..]
            .iter()
            .take_while(|p| p.starts_with(&dir))
            .filter_map(|p| p[dir.len()..].strip_suffix(".md"))
            .filter(|s| !s.contains('/') && crate::model::kind::is_slug(s))
            .collect();
        let by_name: Set<&'a str> = slugs.iter().copied().collect();
        let mut frontier: Vec<&'a str> = view
            .records
            .iter()
            .filter(|e| e.info.kind == Some(kind) && changed.contains(e.path))
            .filter_map(|e| by_name.get(e.slug).copied())
            .collect();
        if frontier.is_empty() {
            continue;
        }
        let mut seen: Set<&'a str> = frontier.iter().copied().collect();
        // Every cluster that holds a slug reached so far, from the kind's
        // clusters computed whole.
        let whole = |seen: &Set<&'a str>, members: &mut HashSet<(Kind, &'a str)>| {
            for cluster in crate::syntax::similar::similar_clusters(&slugs, ratio) {
                if cluster.iter().any(|s| seen.contains(s.as_str())) {
                    let found = cluster.iter().filter_map(|s| by_name.get(s.as_str()));
                    members.extend(found.map(|b| (kind, *b)));
                }
            }
            members.extend(seen.iter().map(|b| (kind, *b)));
        };
        let (mut scans, mut clustered) = (0, 0);
        while let Some(a) = frontier.pop() {
            scans += 1;
            if scans > CLOSURE_SCANS {
                whole(&seen, &mut members);
                break;
            }
            members.insert((kind, a));
            let ca = letter_counts(a);
            let key = crate::syntax::similar::suffix_key(a);
            let mut near: Vec<&'a str> = vec![a];
            for b in &slugs {
                if *b == a {
                    continue;
                }
                let total = (a.len() + b.len()) as f64;
                let close = 2.0 * a.len().min(b.len()) as f64 / total >= ratio - 1e-9 && {
                    let cb = letter_counts(b);
                    let common: usize =
                        ca.iter().zip(&cb).map(|(x, y)| (*x).min(*y) as usize).sum();
                    2.0 * common as f64 / total >= ratio - 1e-9
                };
                if close || crate::syntax::similar::suffix_key(b) == key {
                    near.push(b);
                }
            }
            if near.len() == 1 {
                continue;
            }
            clustered += near.len();
            if clustered > slugs.len() / 2 {
                whole(&seen, &mut members);
                break;
            }
            // The rule's own clustering decides which candidates are similar.
            for cluster in crate::syntax::similar::similar_clusters(&near, ratio) {
                if !cluster.iter().any(|s| s == a) {
                    continue;
                }
                for s in cluster {
                    if let Some(b) = by_name.get(s.as_str()) {
                        if seen.insert(b) {
                            frontier.push(b);
                        }
                    }
                }
            }
        }
    }
    members
}

/// Members of `slug/similar` clusters [`similar_closure`] looks at one by
/// one before it clusters the whole kind instead.
const CLOSURE_SCANS: usize = 64;

/// `memlint check --staged`: lints what the next commit will contain, read
/// from the git index, against the staged view of the whole workspace.
/// The texts of the files with findings are kept in [`Outcome::sources`]
/// only when `texts` is true.
pub(crate) fn staged(
    ws: &Workspace,
    selected: &dyn Fn(&str) -> bool,
    texts: bool,
) -> Result<Outcome, GitError> {
    let repo = Repo::open(&ws.root, crate::io::git::Asking::Staged)?;
    let staged = repo.staged()?;
    let files: Vec<(&str, gix::ObjectId)> = staged
        .paths()
        .into_iter()
        .filter(|(_, o)| o.is_file())
        .map(|(p, o)| (p, o.id))
        .collect();
    let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
    let changed: Vec<String> = staged
        .changes
        .iter()
        .filter(|c| c.new.is_some_and(|n| n.is_file()))
        .map(|c| c.path.clone())
        .collect();
    let removed: Vec<String> = staged
        .changes
        .iter()
        .filter(|c| c.new.is_none())
        .map(|c| c.path.clone())
        .collect();
    let max = ws.config.max_file_bytes;
    let read = |rel: &str| -> Option<Content> {
        let object = staged.lookup(rel).filter(Object::is_file)?;
        repo.blob(object.id, max).ok()
    };
    let resolver = VersionResolver::Index(&staged, &repo.repo);
    let convert = may_convert(&repo.repo, &ws.root, staged.index());
    let fast = |rel: &str| -> Option<Vec<u8>> {
        if convert {
            return None;
        }
        let object = staged.lookup(rel).filter(Object::is_file)?;
        work_tree_copy(staged.index(), staged.prefix(), &ws.root, rel, object.id)
    };
    let version = Version {
        paths,
        changed,
        removed,
        read: &read,
        read_fast: Some(&fast),
        resolver: &resolver,
        texts,
    };
    let mut outcome = run_version(ws, &version, selected);
    if repo.head()?.is_some() {
        let read_head = reader_of(&repo, &staged.changes, false);
        let read_staged = reader_of(&repo, &staged.changes, true);
        let sides = Sides {
            old: &read_head,
            new: &read_staged,
            compared: &compared_of(&repo),
            record: &read,
            record_fast: None,
        };
        let judged = (Which::Staged, selected);
        let tree_of = |dir: &str| staged.cached_tree(dir);
        drift_of_change(
            ws,
            &version,
            &files,
            &staged.changes,
            &sides,
            &tree_of,
            judged,
            &mut outcome,
        );
    }
    Ok(outcome)
}

/// `sources/drifted` on a change: the records it leaves untouched whose
/// cited files (or lines) it modifies, added to `outcome`.
fn drift_of_change<T: PathId>(
    ws: &Workspace,
    version: &Version,
    ids: &[T],
    changes: &[crate::io::git::Change],
    sides: &Sides,
    tree_of: &dyn Fn(&str) -> Option<gix::ObjectId>,
    (which, selected): (Which, &dyn Fn(&str) -> bool),
    outcome: &mut Outcome,
) {
    let renamed = renamed_files(ws, changes, sides);
    let mut needles = modified_files(ws, changes, &renamed);
    needles.extend(renamed.keys().cloned());
    needles.sort_unstable();
    if needles.is_empty() {
        return;
    }
    let modified = needles.clone();
    let banned = &ws.config.banned_dirs;
    let touched = touched_by(ws, changes, sides, &modified);
    let bytes = crate::store::cites::load(&ws.root);
    let (unknown, known) = stored_citers(
        ws,
        &version.paths,
        ids,
        &modified,
        bytes.as_deref(),
        tree_of,
    );
    let places: Vec<(&str, Place)> = unknown
        .into_iter()
        .map(|p| (p, classify(p, banned)))
        .filter(|(_, place)| matches!(place, Place::Record(_)))
        .collect();
    let sources_only = |ws: &Workspace, rel: &str, place: &Place, blob: &Content| {
        let mut report = FileReport {
            path: rel.to_string(),
            ..FileReport::default()
        };
        if let (Place::Record(kind), Content::Bytes(b)) = (place, blob) {
            let content = Content::Bytes(b.as_slice());
            report.info.sources = crate::lint::sources_of(rel, *kind, content, &ws.config);
        }
        report
    };
    let read = mentioning(ws, version, &places, &touched, &mut needles, &sources_only);
    // Each record by its path and sources only (a whole report per stored
    // record would be kilobytes each).
    let mut records: Vec<(&str, &[crate::lint::Located])> = read
        .iter()
        .map(|r| (r.path.as_str(), r.info.sources.as_slice()))
        .collect();
    records.extend(
        known
            .iter()
            .filter(|c| !touched.contains(c.path))
            .filter(|c| matches!(classify(c.path, banned), Place::Record(_)))
            .map(|c| (c.path, c.sources.as_slice())),
    );
    let none = |_: &str| None;
    let sides = Sides {
        record: if version.texts { sides.record } else { &none },
        record_fast: version.read_fast.filter(|_| version.texts),
        ..*sides
    };
    judge_change(
        ws,
        &records,
        (&modified, changes),
        &renamed,
        &sides,
        (which, selected),
        outcome,
    );
}

/// Of the paths `paths` (sorted), those `.memlint/cites` (`stored`) does
/// not know, to be classified and read, and the stored records citing one
/// of the `modified` files, with their sources: a record whose blob id in
/// the version (`ids`, sorted by path) is the stored one is known by its
/// stored sources and not read, and so is every path of a directory whose
/// tree id in the version (`tree_of`) is the stored one, but for the
/// records the file lists there as not stored. Without a stored
/// file for this configuration, every path is unknown.
fn stored_citers<'p, 's, T: PathId>(
    ws: &Workspace,
    paths: &[&'p str],
    ids: &[T],
    modified: &[String],
    stored: Option<&'s [u8]>,
    tree_of: &dyn Fn(&str) -> Option<gix::ObjectId>,
) -> (Vec<&'p str>, Vec<crate::store::cites::Citer<'s>>) {
    use crate::store::cites;
    let Some(stored) = stored
        .and_then(cites::decode)
        .filter(|s| s.key == crate::io::cache::key(&ws.config))
    else {
        return (paths.to_vec(), Vec::new());
    };
    let files: Vec<&str> = modified.iter().map(String::as_str).collect();
    let Some(citing) = stored.citing(&files) else {
        return (paths.to_vec(), Vec::new());
    };
    let id_of = |p: &str| -> Option<u64> {
        let i = ids.binary_search_by(|q| q.path().cmp(p)).ok()?;
        Some(cites::short_id(ids[i].file_id()?))
    };
    let mut hits = vec![false; citing.len()];
    // The directories the version holds as they were stored: their paths
    // are known without a look-up each; a stored record citing a modified
    // file there is the version's.
    let whole = stored.known_dirs(tree_of);
    for (i, c) in citing.iter().enumerate() {
        if whole.iter().any(|d| c.path.starts_with(d.dir)) {
            hits[i] = id_of(c.path) == Some(c.id);
        }
    }
    let mut unknown = Vec::new();
    let mut from = 0;
    // `citing` is sorted by path, as `paths` is: walked along with them.
    let mut c = 0;
    for dir in whole.iter().map(Some).chain([None]) {
        // The paths before the next known directory, then past it.
        let (to, past) = match dir {
            Some(d) => {
                let start = from + paths[from..].partition_point(|p| *p < d.dir);
                (
                    start,
                    start + paths[start..].partition_point(|p| p.starts_with(d.dir)),
                )
            }
            None => (paths.len(), paths.len()),
        };
        let mut v = ids.partition_point(|q| q.path() < paths.get(from).copied().unwrap_or(""));
        unknown.extend(paths[from..to].iter().copied().filter(|p| {
            // Two lists sorted by path, walked together.
            while v < ids.len() && ids[v].path() < *p {
                v += 1;
            }
            let Some(id) = ids
                .get(v)
                .filter(|q| q.path() == *p)
                .and_then(|q| q.file_id())
                .map(cites::short_id)
            else {
                return true;
            };
            while c < citing.len() && citing[c].path < *p {
                c += 1;
            }
            match citing.get(c).filter(|s| s.path == *p).map(|s| (s.id, c)) {
                Some((stored_id, i)) if stored_id == id => {
                    hits[i] = true;
                    false
                }
                _ => !stored.knows(p, id),
            }
        }));
        // The records of the known directory that were not stored (edited
        // since their commit when the file was written) are read.
        if let Some(d) = dir {
            let inside = &paths[to..past];
            unknown.extend(
                d.unstored
                    .iter()
                    .filter_map(|u| inside.binary_search(u).ok().map(|i| inside[i])),
            );
        }
        from = past;
    }
    let known = citing
        .into_iter()
        .zip(hits)
        .filter_map(|(c, hit)| hit.then_some(c))
        .collect();
    (unknown, known)
}

/// The warnings about malformed trailers of the change's commits.
fn malformed_warnings(malformed: &[Found<crate::syntax::trailer::Malformed>]) -> Vec<String> {
    malformed
        .iter()
        .map(|m| {
            format!(
                "commit {}: malformed `{TRAILER}:` trailer `{}`: {}",
                m.commit.as_ref().map(short).unwrap_or_default(),
                crate::syntax::sanitize::line(&m.item.line),
                crate::syntax::sanitize::line(&m.item.reason)
            )
        })
        .collect()
}

/// `memlint check --base REV`: what changed between the merge base of REV
/// and HEAD, linted at HEAD against HEAD's whole workspace, plus the
/// `history/*` rules; the texts of the files with findings kept as by
/// [`staged`].
pub(crate) fn base(
    ws: &Workspace,
    rev: &str,
    selected: &dyn Fn(&str) -> bool,
    texts: bool,
) -> Result<Outcome, GitError> {
    let what = crate::io::git::Asking::Base;
    let repo = Repo::open(&ws.root, what)?;
    let head = repo.head()?.ok_or(GitError::NoCommits(what))?;
    let target = repo.resolve(rev)?;
    let base = repo.merge_base(target, head, rev)?;
    let base_tree = repo.tree_of(base)?;
    let head_tree = repo.tree_of(head)?;
    let changes = repo.diff_trees(Some(base_tree), Some(head_tree))?;
    let head_paths = repo.flatten(head_tree)?;
    let mut ops = Vec::new();
    let mut malformed = Vec::new();
    let commits = repo.commits(&[head], &[base])?;
    let cut_short = repo.cut_short(&commits);
    for c in commits {
        let (good, bad) = trailers(&c.message);
        let commit = Some(c.id);
        ops.extend(good.into_iter().map(|item| Found { commit, item }));
        malformed.extend(bad.into_iter().map(|item| Found { commit, item }));
    }
    let warnings = malformed_warnings(&malformed);
    let max = ws.config.max_file_bytes;
    let read = |rel: &str| -> Option<Content> {
        let object = crate::io::git::tree_lookup(&head_paths, rel).filter(Object::is_file)?;
        repo.blob(object.id, max).ok()
    };
    let resolver = VersionResolver::Tree(&head_paths, &repo.repo);
    // Needed when something was removed, or a changed record is now
    // replaced: then every record that may point at it is read, from the
    // work tree where it matches HEAD (reading 100k blobs out of a pack
    // instead took 18 s). Reading the git index costs a few milliseconds.
    let index = repo
        .index()
        .ok()
        .filter(|i| !crate::io::git::may_convert(&repo.repo, &ws.root, i));
    let fast = |rel: &str| -> Option<Vec<u8>> {
        let object = crate::io::git::tree_lookup(&head_paths, rel).filter(Object::is_file)?;
        crate::io::git::work_tree_copy(index.as_ref()?, &repo.prefix, &ws.root, rel, object.id)
    };
    let version = Version {
        paths: head_paths
            .iter()
            .filter(|(_, o)| o.is_file())
            .map(|(p, _)| p.as_str())
            .collect(),
        changed: changes
            .iter()
            .filter(|c| c.new.is_some_and(|n| n.is_file()))
            .map(|c| c.path.clone())
            .collect(),
        removed: changes
            .iter()
            .filter(|c| c.new.is_none())
            .map(|c| c.path.clone())
            .collect(),
        read: &read,
        read_fast: Some(&fast),
        resolver: &resolver,
        texts,
    };
    let mut outcome = run_version(ws, &version, selected);
    outcome.warnings = warnings;
    let read_base = reader_of(&repo, &changes, false);
    let read_head = reader_of(&repo, &changes, true);
    let sides = Sides {
        old: &read_base,
        new: &read_head,
        compared: &compared_of(&repo),
        record: &read,
        record_fast: None,
    };
    drift_of_change(
        ws,
        &version,
        &head_paths,
        &changes,
        &sides,
        &|dir: &str| repo.dir_tree(head_tree, dir),
        (Which::Base, selected),
        &mut outcome,
    );
    let renamed = renames(&repo, &changes, ws);
    let mut diags = unexplained_removals(
        ws,
        &repo,
        &changes,
        &renamed,
        &ops,
        &malformed,
        &base,
        selected,
        &mut outcome,
    );
    diags.extend(rewritten_decisions(
        ws,
        &repo,
        &changes,
        &renamed,
        &ops,
        &base,
        &read,
        selected,
        &mut outcome,
    ));
    not_judged_if_cut_short(cut_short, &mut diags, &base, &mut outcome);
    // A removed record is a file the report is about.
    outcome.files += diags
        .iter()
        .filter(|d| d.rule == Rule::HistoryUnexplainedRemoval)
        .count();
    outcome.diagnostics.extend(diags);
    diagnostic::sort(&mut outcome.diagnostics);
    Ok(outcome)
}
