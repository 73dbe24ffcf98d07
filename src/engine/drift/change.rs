//! `sources/drifted` on a change: `check --staged` (the index against
//! HEAD) and `check --base REF` (HEAD against the merge base). A record the
//! change leaves untouched whose cited file, or cited lines, the change
//! modifies is reported on the record, so that the committer (the
//! pre-commit hook) and the reviewer (GitHub annotations, SARIF) see which
//! memories the change leaves stale. Only the two versions are read, never
//! the history between them: it works in a CI checkout of depth 1 with the
//! base fetched.

use crate::engine::check::lint::Outcome;
use crate::io::git::{Change, Repo};
use crate::lint::rules::sources::drifted as rule;
use crate::model::content::Content;
use crate::model::diagnostic::{self, Diagnostic};
use crate::model::hashing::{Map, Set};
use crate::model::kind::{classify, Place};
use crate::model::rule::Rule;
use crate::model::workspace::Workspace;

/// Which change is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    /// What is staged (`check --staged`).
    Staged,
    /// The pull request (`check --base`).
    Base,
}

/// The files (not records) `changes` modifies in place or creates (a
/// record citing one that did not exist is left as stale by the change as
/// by a modification) but for those `renamed` names as where a file went,
/// sorted; empty when the rule is off.
pub(crate) fn modified_files(
    ws: &Workspace,
    changes: &[Change],
    renamed: &Map<String, Renamed>,
) -> Vec<String> {
    if !ws.config.enabled(Rule::SourcesDrifted) {
        return Vec::new();
    }
    let banned = &ws.config.banned_dirs;
    let went: Set<&str> = renamed.values().map(|r| r.to.as_str()).collect();
    changes
        .iter()
        .filter(|c| c.new.is_some_and(|n| n.is_file()))
        .filter(|c| c.old.is_some_and(|o| o.is_file()) || !went.contains(c.path.as_str()))
        .filter(|c| !matches!(classify(&c.path, banned), Place::Record(_)))
        .map(|c| c.path.clone())
        .collect()
}

/// The paths `changes` touch, but for the records it only reformats
/// ([`only_reformats`]): those it leaves as they were.
pub(crate) fn touched_by<'c>(
    ws: &Workspace,
    changes: &'c [Change],
    sides: &Sides,
    needles: &[String],
) -> Set<&'c str> {
    changes
        .iter()
        .filter(|c| !only_reformats(ws, c, sides, needles))
        .map(|c| c.path.as_str())
        .collect()
}

/// Whether change `c` only reformats a record that mentions one of
/// `needles` (the files the change modifies): the same front matter and
/// body, as [`crate::fmt::same_record`] compares them. Such a record is left
/// as it was, as far as its sources are concerned.
fn only_reformats(ws: &Workspace, c: &Change, sides: &Sides, needles: &[String]) -> bool {
    let (Some(old), Some(new)) = (c.old, c.new) else {
        return false;
    };
    if !(old.is_file() && new.is_file()) {
        return false;
    }
    let Place::Record(kind) = classify(&c.path, &ws.config.banned_dirs) else {
        return false;
    };
    let Some(Content::Bytes(after)) = (sides.compared)(new.id) else {
        return false;
    };
    if !needles
        .iter()
        .any(|n| memchr::memmem::find(&after, n.as_bytes()).is_some())
    {
        return false;
    }
    let Some(Content::Bytes(before)) = (sides.compared)(old.id) else {
        return false;
    };
    crate::fmt::same_record(&before, &after, kind)
}

/// Of `changes` (sorted by path), whether the change creates the file
/// `rel`: no file there before, one after.
fn creates(changes: &[Change], rel: &str) -> bool {
    changes
        .binary_search_by(|c| c.path.as_str().cmp(rel))
        .is_ok_and(|i| {
            let c = &changes[i];
            !c.old.is_some_and(|o| o.is_file()) && c.new.is_some_and(|n| n.is_file())
        })
}

/// Where a file the change removes went.
#[derive(Debug, Clone)]
pub(crate) struct Renamed {
    /// Its name after the change.
    pub to: String,
    /// Whether its content is the same.
    pub exact: bool,
}

/// Most pairs of a removed and an added file whose contents are compared
/// to find a rename that changed the file (a diff each).
const RENAME_PAIRS_UP_TO: usize = 1_000;

/// The files (not records) of `changes` (sorted by path) the change
/// renames, by their old names, as git pairs them: the same content first
/// (see [`crate::engine::renames::exact_renames`]), then the added file sharing most of the
/// removed one's lines, at least half.
pub(crate) fn renamed_files(
    ws: &Workspace,
    changes: &[Change],
    sides: &Sides,
) -> Map<String, Renamed> {
    if !ws.config.enabled(Rule::SourcesDrifted) {
        return Map::default();
    }
    let banned = &ws.config.banned_dirs;
    let file = |c: &&Change| !matches!(classify(&c.path, banned), Place::Record(_));
    let removed: Vec<&Change> = changes
        .iter()
        .filter(|c| c.new.is_none() && c.old.is_some_and(|o| o.is_file()))
        .filter(file)
        .collect();
    let mut out = Map::default();
    if removed.is_empty() {
        return out;
    }
    let mut taken: Set<&str> = Set::default();
    for (from, to) in crate::engine::renames::all_exact_renames(changes) {
        if !matches!(classify(from, banned), Place::Record(_)) {
            taken.insert(to);
            out.insert(
                from.to_string(),
                Renamed {
                    to: to.to_string(),
                    exact: true,
                },
            );
        }
    }
    let added: Vec<&Change> = changes
        .iter()
        .filter(|c| c.old.is_none() && c.new.is_some_and(|n| n.is_file()))
        .filter(file)
        .filter(|c| !taken.contains(c.path.as_str()))
        .collect();
    let rest: Vec<&&Change> = removed
        .iter()
        .filter(|c| !out.contains_key(&c.path))
        .collect();
    if rest.is_empty() || added.is_empty() || rest.len() * added.len() > RENAME_PAIRS_UP_TO {
        return out;
    }
    // Each text read once; those too large to compare are not read (their
    // size is in the object's header).
    let text = |object: Option<crate::io::git::Object>| match (sides.compared)(object?.id) {
        Some(Content::Bytes(b)) if b.len() <= crate::engine::renames::COMPARED_BYTES => {
            Some(String::from_utf8_lossy(&b).into_owned())
        }
        _ => None,
    };
    let added_text: Vec<Option<String>> = added.iter().map(|c| text(c.new)).collect();
    let mut used = vec![false; added.len()];
    for c in rest {
        let Some(old_text) = text(c.old) else {
            continue;
        };
        let free = added_text
            .iter()
            .enumerate()
            .filter(|(i, _)| !used[*i])
            .filter_map(|(i, t)| Some((i, t.as_deref()?)));
        if let Some(i) = crate::engine::renames::most_alike(&old_text, free) {
            used[i] = true;
            out.insert(
                c.path.clone(),
                Renamed {
                    to: added[i].path.clone(),
                    exact: false,
                },
            );
        }
    }
    out
}

/// How a change is read.
pub(crate) struct Sides<'a> {
    /// A path as it was before the change.
    pub old: &'a dyn Fn(&str) -> Option<Content>,
    /// A path as the change leaves it.
    pub new: &'a dyn Fn(&str) -> Option<Content>,
    /// A blob of either version by its id, when it is small enough to be
    /// compared with another (see [`compared_of`]).
    pub compared: &'a dyn Fn(gix::ObjectId) -> Option<Content>,
    /// A record as the change leaves it (for showing it).
    pub record: &'a dyn Fn(&str) -> Option<Content>,
    /// A record as the change leaves it, from the work tree when the file
    /// certainly holds it (any thread); `record` reads the others.
    pub record_fast: Option<&'a (dyn Fn(&str) -> Option<Vec<u8>> + Sync + 'a)>,
}

/// A path of a version and the blob id of the file it holds there (`None`
/// for what is no file): the paths as the staged index or HEAD's tree list
/// them, walked as they are (no copy of 100k of them).
pub(crate) trait PathId {
    fn path(&self) -> &str;
    fn file_id(&self) -> Option<&gix::ObjectId>;
}

impl PathId for (&str, gix::ObjectId) {
    fn path(&self) -> &str {
        self.0
    }
    fn file_id(&self) -> Option<&gix::ObjectId> {
        Some(&self.1)
    }
}

impl PathId for (String, crate::io::git::Object) {
    fn path(&self) -> &str {
        &self.0
    }
    fn file_id(&self) -> Option<&gix::ObjectId> {
        self.1.is_file().then_some(&self.1.id)
    }
}

/// Adds to `outcome` the `sources/drifted` findings of a change
/// (`changes`, sorted by path): of `records` (the records the change
/// leaves untouched that mention a `modified` file, each with its
/// sources), those whose cited file or lines it modifies or creates, or
/// whose cited file it renames (`renamed`, by old name; those names are
/// among `modified`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn judge_change(
    ws: &Workspace,
    records: &[(&str, &[crate::lint::Located])],
    (modified, changes): (&[String], &[Change]),
    renamed: &Map<String, Renamed>,
    sides: &Sides,
    (which, selected): (Which, &dyn Fn(&str) -> bool),
    outcome: &mut Outcome,
) {
    let modified: Set<&str> = modified.iter().map(String::as_str).collect();
    let reports = records;
    // The citations of a modified file, in order, each with its lines.
    let mut cited = Vec::new();
    // Many records cite lines of one file: each file is read once.
    let mut texts: Map<String, Option<(String, String)>> = Map::default();
    for (path, sources) in reports {
        if !selected(path) {
            continue;
        }
        for at in *sources {
            let Some((rel, lines)) = crate::lint::rules::sources::cited_file(&at.value) else {
                continue;
            };
            if !modified.contains(rel.as_ref()) {
                continue;
            }
            let to = renamed.get(rel.as_ref()).map(|r| r.to.as_str());
            if lines.is_some() {
                texts.entry(rel.to_string()).or_insert_with(|| {
                    let created = creates(changes, &rel);
                    both_texts(sides, &rel, to.unwrap_or(&rel), created)
                });
            }
            cited.push((*path, at, rel, lines));
        }
    }
    // Each file's two versions split into lines once, for all the
    // citations of its lines.
    let split: Map<&str, (Vec<&str>, Vec<&str>)> = texts
        .iter()
        .filter_map(|(rel, both)| {
            let (old, new) = both.as_ref()?;
            Some((rel.as_str(), (old.lines().collect(), new.lines().collect())))
        })
        .collect();
    let mut found = Vec::new();
    for (path, at, rel, lines) in cited {
        let renamed = renamed.get(rel.as_ref());
        let created = creates(changes, &rel);
        let finding = match (lines, renamed) {
            // Renamed as it was: the path only.
            (_, Some(r)) if r.exact => Some(Judged::Renamed(&r.to)),
            (None, _) if created => Some(Judged::Created),
            (None, _) => Some(Judged::Modified),
            (Some(lines), _) => {
                let Some((old, new)) = split.get(rel.as_ref()) else {
                    continue;
                };
                // Lines the file lacked before the change (a file created
                // lacks them all) are all new, once it has them (before,
                // `sources/dangling` says so).
                let gained = created || rule::cited_in(old, lines).is_none();
                match (judge_lines(old, new, lines), renamed) {
                    _ if gained => rule::cited_in(new, lines).map(|_| Judged::Created),
                    (None, None) => None,
                    (None, Some(r)) => Some(Judged::Renamed(&r.to)),
                    (Some(Some(at)), _) => Some(Judged::Moved(at)),
                    (Some(None), _) => Some(Judged::Modified),
                }
            }
        };
        let Some(judged) = finding else { continue };
        let to = renamed.map(|r| r.to.as_str());
        found.extend(diagnostic_of(ws, path, at, &rel, to, judged, which));
    }
    record_texts(ws, &found, sides, outcome);
    let reported: Set<&str> = outcome
        .diagnostics
        .iter()
        .map(|d| d.path.as_str())
        .collect();
    let mut new_paths: Vec<&str> = found
        .iter()
        .map(|d| d.path.as_str())
        .filter(|p| !reported.contains(p))
        .collect();
    new_paths.dedup();
    outcome.files += new_paths.len();
    outcome.diagnostics.extend(found);
    diagnostic::sort(&mut outcome.diagnostics);
}

/// Keeps in `outcome` the text of each record with a finding of `found`
/// (to show its lines): read from the work tree where it holds the
/// change's version (in parallel), else from git objects.
fn record_texts(ws: &Workspace, found: &[Diagnostic], sides: &Sides, outcome: &mut Outcome) {
    use rayon::prelude::*;
    let mut wanted: Vec<&str> = found
        .iter()
        .map(|d| d.path.as_str())
        .filter(|p| !outcome.sources.contains_key(*p))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let fast: Vec<Option<Vec<u8>>> = match sides.record_fast {
        Some(read) => wanted.par_iter().map(|p| read(p)).collect(),
        None => vec![None; wanted.len()],
    };
    let max = ws.config.max_file_bytes;
    for (p, fast) in wanted.into_iter().zip(fast) {
        let bytes = match fast {
            // Too large to show, as the git object would be.
            Some(b) if b.len() as u64 > max => continue,
            Some(b) => b,
            None => match (sides.record)(p) {
                Some(Content::Bytes(b)) => b,
                _ => continue,
            },
        };
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        outcome.sources.insert(p.to_string(), text);
    }
}

/// The text of `rel` before the change and of `now` (its name after a
/// rename, else `rel`) after it, when both are files; none before when the
/// change `created` it.
fn both_texts(sides: &Sides, rel: &str, now: &str, created: bool) -> Option<(String, String)> {
    let text = |b: Option<Content>| match b {
        Some(Content::Bytes(b)) => Some(String::from_utf8_lossy(&b).into_owned()),
        _ => None,
    };
    let old = match created {
        true => String::new(),
        false => text((sides.old)(rel))?,
    };
    Some((old, text((sides.new)(now))?))
}

/// What a change does to a cited file or lines.
enum Judged<'a> {
    /// Renames the file, leaving what is cited as it was.
    Renamed(&'a str),
    /// Moves the cited lines (in the file as renamed, if it is).
    Moved(crate::model::kind::Lines),
    /// Modifies the file or the cited lines.
    Modified,
    /// Creates the file (whose cited lines it has).
    Created,
}

/// For cited `lines` of a file whose lines were `old` before the change
/// and are `new` after it: `None` when the change leaves them as they were,
/// `Some(None)` when it modifies them, `Some(Some(at))` when they only
/// moved to `at`.
fn judge_lines(
    old: &[&str],
    new: &[&str],
    lines: crate::model::kind::Lines,
) -> Option<Option<crate::model::kind::Lines>> {
    let cited = rule::cited_in(old, lines)?;
    match rule::find_in(cited, new, lines) {
        Some(at) if at == lines => None,
        Some(at) => Some(Some(at)),
        None => Some(None),
    }
}

fn diagnostic_of(
    ws: &Workspace,
    record: &str,
    at: &crate::lint::info::Located,
    rel: &str,
    renamed_to: Option<&str>,
    judged: Judged,
    which: Which,
) -> Option<Diagnostic> {
    let severity = ws.config.severity(Rule::SourcesDrifted)?;
    let staged = which == Which::Staged;
    let (message, fixable) = match judged {
        Judged::Renamed(to) => (rule::change_rename_message(&at.value, to, staged), true),
        Judged::Moved(lines) => {
            let finding = rule::Finding::Moved {
                to: renamed_to.map(str::to_string),
                lines,
            };
            (rule::message(&at.value, &finding), true)
        }
        Judged::Modified => (
            rule::change_message(&at.value, rel, renamed_to, record, (staged, false)),
            false,
        ),
        Judged::Created => (
            rule::change_message(&at.value, rel, None, record, (staged, true)),
            false,
        ),
    };
    Some(rule::diagnostic(
        record,
        at,
        severity,
        message,
        fixable,
        Default::default(),
    ))
}

/// Reads a blob by its id when it is at most
/// [`crate::engine::renames::COMPARED_BYTES`], its size read from the object's
/// header first: a larger file, never compared to find a rename, is not
/// inflated.
pub(crate) fn compared_of(repo: &Repo) -> impl Fn(gix::ObjectId) -> Option<Content> + '_ {
    move |id| {
        repo.blob(id, crate::engine::renames::COMPARED_BYTES as u64)
            .ok()
            .filter(|c| matches!(c, Content::Bytes(_)))
    }
}

/// Reads the paths `changes` (sorted by path) modify, as the change found
/// them before (`new` false) or after it: by the blob ids the change
/// carries, at most [`crate::io::source::MAX_SOURCE_BYTES`], without
/// looking the paths up in a tree again.
pub(crate) fn reader_of<'r>(
    repo: &'r Repo,
    changes: &'r [Change],
    new: bool,
) -> impl Fn(&str) -> Option<Content> + 'r {
    move |rel: &str| {
        let i = changes
            .binary_search_by(|c| c.path.as_str().cmp(rel))
            .ok()?;
        let c = &changes[i];
        let object = if new { c.new } else { c.old }.filter(|o| o.is_file())?;
        repo.blob(object.id, crate::io::source::MAX_SOURCE_BYTES)
            .ok()
    }
}
