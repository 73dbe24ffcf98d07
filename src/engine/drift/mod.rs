//! `sources/drifted`: a `file:` source changed after the record citing it
//! was last written. The git history says when the record was last
//! written (the newest commit that changed it) and which later commits
//! changed the cited file, following renames; a line range drifts only
//! when the text of its lines, as of the record's commit, is no longer in
//! the file. Uncommitted (or staged) changes to a cited file count when
//! the record has none.
//!
//! The rule's text (documentation, messages, the search for moved lines)
//! is in `crate::lint::rules::sources::drifted`; this module reads git.

mod ahead;
mod as_written;
pub(crate) mod change;
pub(crate) mod early;
mod files;
mod follow;
pub(crate) mod history;
mod reuse;
mod shallow;
mod verdicts;
mod written;

use crate::io::git::{Object, Repo};
use crate::lint::info::{Located, RecordInfo};
use crate::lint::rules::sources::drifted::{self as rule, Commit, Finding};
use crate::model::content::Content;
use crate::model::diagnostic::{Commits, Diagnostic};
use crate::model::hashing::Map as HashMap;
use crate::model::kind::Lines;
use crate::model::rule::Rule;
use crate::model::workspace::Workspace;
use crate::store::judged::{Unjudged as Why, Verdict};
pub(crate) use as_written::pins_as_written;
use files::{count_records, file_sources, pins_of, work_tree_ids, Pinned};
use follow::{Followed, Trail};
use gix::ObjectId;
use history::{History, Since};
use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;
use verdicts::{findings, note, verdict, Unjudged};
use written::Written;

/// Which version of the cited files is compared with the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The work tree (`check`): uncommitted changes count.
    WorkTree,
    /// The git index (`check --staged`): staged changes count.
    // No caller picks it today (`check --staged` judges drift against the
    // work tree); kept with its match arms for when it does.
    #[allow(dead_code)]
    Staged,
}

/// A rewrite `--fix` makes to a source entry: the cited path after a
/// rename, or the line range where the cited lines now sit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceFix {
    /// The record, root-relative.
    pub path: String,
    /// The entry's bytes in the record (quotes included, if any).
    pub span: Range<usize>,
    /// The entry as written.
    pub old: String,
    /// The entry as it should read.
    pub new: String,
}

/// What the drift check found.
#[derive(Debug, Default)]
pub(crate) struct Drift {
    /// `sources/drifted` diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// The rewrites `--fix` makes.
    pub fixes: Vec<SourceFix>,
    /// One line when records could not be judged, saying how many and why.
    pub notes: Vec<String>,
    /// Each record whose cited file (or lines) changed, with the first
    /// such source (sorted by record): what `.memlint/drifted` keeps for
    /// the commands that serve memory.
    pub marks: Vec<(String, crate::store::drift_marks::DriftMark)>,
}

/// The source entries whose file `sources/drifted` followed to its new
/// name (a fix rewrites the path), by record and the entry's first byte:
/// there `sources/drifted` says where the file went and `--fix` repairs
/// it, and `sources/dangling`'s finding that the old name names no file
/// says less of the same ([`Renamed::covers`]). None when `sources/dangling`
/// is configured more severe than `sources/drifted`: its exit code stands.
pub(crate) struct Renamed<'a>(crate::model::hashing::Set<(&'a str, usize)>);

impl<'a> Renamed<'a> {
    pub(crate) fn of(ws: &Workspace, fixes: &'a [SourceFix]) -> Renamed<'a> {
        let (dangling, drifted) = (
            ws.config.severity(Rule::SourcesDangling),
            ws.config.severity(Rule::SourcesDrifted),
        );
        let stronger = matches!(
            (dangling, drifted),
            (
                Some(crate::model::severity::Severity::Error),
                Some(crate::model::severity::Severity::Warning)
            )
        );
        let path = |source: &str| {
            crate::lint::rules::sources::cited_file(source).map(|(p, _)| p.into_owned())
        };
        Renamed(match stronger {
            true => Default::default(),
            false => fixes
                .iter()
                .filter(|f| path(&f.old) != path(&f.new))
                .map(|f| (f.path.as_str(), f.span.start))
                .collect(),
        })
    }

    /// Whether `d` is `sources/dangling`'s finding on such an entry.
    pub(crate) fn covers(&self, d: &Diagnostic) -> bool {
        d.rule == Rule::SourcesDangling && self.0.contains(&(d.path.as_str(), d.span.start))
    }
}

/// One `file:` source of a record.
struct Cited<'a> {
    record: &'a str,
    at: &'a Located,
    /// The cited file, root-relative (borrowed from the source where it
    /// is written as it is: no copy for each of the 100k records' sources
    /// a warm check reuses the verdicts of).
    path: std::borrow::Cow<'a, str>,
    lines: Option<Lines>,
    /// The record's text could hold pins (`RecordInfo::may_pin`).
    may_pin: bool,
    /// The work tree holds a directory there, or the cited lines of a
    /// file too large to read ([`files::through_links`]): not judged.
    unreadable: bool,
}

/// Judges every `file:` source of `records` (path, fields) against the git
/// history of the workspace. Nothing when the rule is off, no record cites
/// a file, or the workspace is not in a git repository.
///
/// In the work tree, what was concluded of each record is kept in
/// `.memlint/drift-judged` (see [`crate::store::judged`]): a record is
/// judged again only when HEAD moved or a file its conclusion read (the
/// record, its cited files) changed, and the history is read only when
/// some record is.
pub(crate) fn drifted<'a>(
    ws: &Workspace,
    records: impl Iterator<Item = (&'a str, &'a RecordInfo)>,
    mode: Mode,
) -> Drift {
    drifted_with(
        ws,
        records,
        mode,
        Known {
            stats: &|_| None,
            blobs: &|_| None,
            early: None,
            index: None,
        },
    )
}

/// What the caller already knows of some files this run (`check`'s record
/// table), so that they are not stat'ed, read or hashed again.
#[derive(Clone, Copy)]
pub(crate) struct Known<'k> {
    /// A file's stat data.
    pub stats: reuse::Stats<'k>,
    /// A record's git blob id, where the git index vouched for it with the
    /// stat data it was read with.
    pub blobs: &'k (dyn Fn(&str) -> Option<ObjectId> + Sync),
    /// The history walk a cold check began while it scanned.
    pub early: Option<&'k early::Early>,
    /// The git index as the caller read it: where its cache tree holds a
    /// directory as HEAD does, a file of it is found there
    /// ([`Judge::head_id`]) instead of in HEAD's tree.
    pub index: Option<&'k crate::io::git::Tracked>,
}

/// [`drifted`], given what the caller already knows of some files.
pub(crate) fn drifted_with<'a>(
    ws: &Workspace,
    records: impl Iterator<Item = (&'a str, &'a RecordInfo)>,
    mode: Mode,
    known: Known,
) -> Drift {
    let mut out = Drift::default();
    if !ws.config.enabled(Rule::SourcesDrifted) {
        return out;
    }
    // The records that may cite a file; their sources are parsed only for
    // those judged now: a stored verdict that holds stands for its
    // record's very text (the record is among the files it read), so its
    // sources are those it was judged with (on a warm check, 41k records
    // whose sources were parsed again for nothing).
    let candidates: Vec<(&str, &RecordInfo)> = records
        .filter(|(_, info)| {
            info.parsed && info.sources.iter().any(|at| at.value.starts_with("file:"))
        })
        .collect();
    if candidates.is_empty() {
        return out;
    }
    let Ok(repo) = Repo::open(&ws.root, crate::io::git::Asking::Drift) else {
        return out;
    };
    let head = match repo.head() {
        Ok(Some(head)) => head,
        _ => {
            let unjudged = Unjudged {
                uncommitted: count_records(&file_sources(candidates.into_iter())),
                ..Unjudged::default()
            };
            out.notes.extend(note(&unjudged));
            return out;
        }
    };
    // A shallow clone's boundary moves without HEAD moving: no reuse.
    let mut caching = mode == Mode::WorkTree && !repo.repo.is_shallow().unwrap_or(true);
    let mut reuse = reuse::Reuse::load(ws, &repo, head, caching, known.stats);
    let (kept, unkept) = reuse.split(candidates);
    let cited = files::through_links(&ws.root, file_sources(unkept.into_iter()));
    // No record cites a file with a well-formed source: nothing to say,
    // nor to store.
    if kept.is_empty() && cited.is_empty() {
        return out;
    }
    // The sources come grouped by record: each record's are a slice.
    let mut to_judge: Vec<(&str, &[Cited])> = Vec::new();
    let mut start = 0;
    while start < cited.len() {
        let record = cited[start].record;
        let n = cited[start..]
            .iter()
            .take_while(|c| c.record == record)
            .count();
        to_judge.push((record, &cited[start..start + n]));
        start += n;
    }
    let mut judged: Vec<reuse::Judgement> = Vec::new();
    if !to_judge.is_empty() {
        if let Ok(tree) = repo.tree_of(head) {
            let judge = Judge::new(
                ws,
                &repo,
                (head, tree),
                mode,
                to_judge.len(),
                known.early,
                known.index,
            );
            judge.prepare(
                to_judge.iter().map(|(r, sources)| (*r, sources[0].may_pin)),
                known.blobs,
            );
            judged = to_judge
                .iter()
                .map(|(record, sources)| judge.record(record, sources))
                .collect();
            reuse.judged(&judged);
            reuse.learn(&judge);
            // A history that could not be read judged nothing: not stored.
            caching &= !judge.failed.get();
        }
    }
    // The verdicts that say something (most records citing a file draw no
    // finding), by path.
    let says = |v: &Verdict| {
        !(v.diagnostics.is_empty() && v.fixes.is_empty() && v.marks.is_empty())
            || v.unjudged != Why::No
    };
    let mut verdicts: Vec<Verdict> = reuse.saying(&kept);
    let found = if caching {
        // Stored while the findings are put together (the verdicts drawn
        // now copied for them, not taken): the last tenth of a second of
        // a cold check on 100k records ran on one core.
        rayon::join(
            || reuse.save(ws, &kept, &judged, known.stats),
            || {
                verdicts.extend(judged.iter().map(|(v, _)| v).filter(|&v| says(v)).cloned());
                findings(verdicts)
            },
        )
        .1
    } else {
        verdicts.extend(judged.into_iter().map(|(v, _)| v).filter(says));
        findings(verdicts)
    };
    found
}

/// Past this many records to judge, HEAD's tree is flattened once instead
/// of looking each path up in it.
const LOOKUPS_UP_TO: usize = 64;

/// A finding of a source, shared, with the commit the record was last
/// written at when history judged it.
type Found<'c> = (&'c Cited<'c>, Rc<Finding>, Option<usize>);

/// A file's bytes, shared by the sources that cite it.
type Bytes = Option<Rc<Vec<u8>>>;

/// What one run knows to judge a source.
struct Judge<'r> {
    ws: &'r Workspace,
    repo: &'r Repo,
    /// HEAD and its tree.
    head: (ObjectId, ObjectId),
    /// The history, read when a record committed as it is needs it
    /// ([`Judge::load_history`]); [`Judge::h`] is empty until then.
    history: std::cell::OnceCell<History>,
    /// The whole history, when a record's last writes only reformatted
    /// it and the walk stopped before the one that wrote it
    /// ([`Judge::deepen`]): the first walk's steps lead it, in order.
    whole: std::cell::OnceCell<History>,
    empty: History,
    /// The history could not be read.
    failed: std::cell::Cell<bool>,
    mode: Mode,
    /// HEAD's files under the root, when many records are judged; else
    /// each path is looked up in HEAD's tree ([`Judge::head_id`]).
    head_files: Option<HashMap<String, Object>>,
    /// The walk a cold check began while it scanned.
    early: Option<&'r early::Early>,
    /// [`Judge::head_id`]'s answers when HEAD is not flattened.
    head_looked: RefCell<HashMap<String, Option<ObjectId>>>,
    /// The git index as the caller read it ([`Known::index`]).
    index: Option<&'r crate::io::git::Tracked>,
    staged: Option<crate::io::git::Staged>,
    /// [`Judge::current_id`]'s answers.
    ids: RefCell<HashMap<String, Option<ObjectId>>>,
    /// The id each work-tree file with CRLF line endings would have with
    /// LF ones: the blob a checkout that writes CRLF came from.
    lf_ids: RefCell<HashMap<String, ObjectId>>,
    /// [`Judge::current_bytes`]'s answers.
    bytes: RefCell<HashMap<String, Bytes>>,
    /// [`Judge::blob_at`]'s answers.
    then: RefCell<HashMap<(ObjectId, String), Bytes>>,
    /// The pins of the records read ahead ([`Judge::prepare`]).
    pins: RefCell<HashMap<String, Pinned>>,
    /// The records read ahead: the history is walked as far as those
    /// committed as they are need.
    records: RefCell<Vec<String>>,
    /// [`History::since`]'s answers.
    since: RefCell<HashMap<usize, Since>>,
    /// The steps that touched each path asked ([`Judge::touching`]).
    touching: RefCell<HashMap<String, Rc<[usize]>>>,
    /// [`Judge::trail`]'s answers.
    trails: RefCell<HashMap<(String, usize), Option<Rc<Trail>>>>,
    /// [`Judge::commit_ids`]'s answers, by the address of the list of
    /// commits.
    commit_ids: RefCell<HashMap<usize, (Rc<[Commit]>, Commits)>>,
    /// The paths read since the record being judged began: what its
    /// conclusion depends on.
    consulted: RefCell<Vec<String>>,
    /// [`Judge::source`]'s answers, by the source as written and then by
    /// the commit that last wrote the record, with the paths each read:
    /// thousands of records cite the same file and were last written by
    /// the same commit, and each answer searches every later commit.
    shared: RefCell<HashMap<String, Vec<Shared>>>,
    /// [`Judge::message`]'s answers, by the source as written and then by
    /// the commit that last wrote the record.
    messages: RefCell<HashMap<String, Vec<(usize, String)>>>,
}

/// One of [`Judge::shared`]'s answers.
struct Shared {
    /// The commit the record was last written at (an index of the walk).
    written: usize,
    /// Shared by the records it is the answer of, not copied to each.
    finding: Option<Rc<Finding>>,
    /// The paths reading it consulted.
    consulted: Vec<String>,
}

impl<'r> Judge<'r> {
    fn new(
        ws: &'r Workspace,
        repo: &'r Repo,
        head: (ObjectId, ObjectId),
        mode: Mode,
        n: usize,
        early: Option<&'r early::Early>,
        index: Option<&'r crate::io::git::Tracked>,
    ) -> Self {
        let head_files = early.and_then(|e| e.head_files(head.0)).or_else(|| {
            (n > LOOKUPS_UP_TO).then(|| {
                repo.flatten(head.1)
                    .unwrap_or_default()
                    .into_iter()
                    .collect()
            })
        });
        Judge {
            ws,
            repo,
            head,
            history: Default::default(),
            whole: Default::default(),
            empty: History::empty(),
            failed: Default::default(),
            mode,
            head_files,
            early,
            head_looked: Default::default(),
            index,
            staged: match mode {
                Mode::Staged => repo.staged().ok(),
                Mode::WorkTree => None,
            },
            ids: Default::default(),
            lf_ids: Default::default(),
            bytes: Default::default(),
            then: Default::default(),
            pins: Default::default(),
            records: Default::default(),
            since: Default::default(),
            touching: Default::default(),
            trails: Default::default(),
            commit_ids: Default::default(),
            consulted: Default::default(),
            shared: Default::default(),
            messages: Default::default(),
        }
    }

    /// Reads the records ahead, in parallel in the work tree: their blob
    /// ids and pins (a cold check judges every record that cites a file).
    /// A record (`path`, whether its text could hold pins) whose text holds
    /// none and whose blob id `blobs` knows is not read at all.
    fn prepare<'a>(
        &self,
        records: impl Iterator<Item = (&'a str, bool)>,
        blobs: &(dyn Fn(&str) -> Option<ObjectId> + Sync),
    ) {
        let records: Vec<(&str, bool)> = records.collect();
        let now: Vec<((Option<ObjectId>, Option<ObjectId>), Pinned)> = match self.mode {
            Mode::Staged => records
                .iter()
                .map(|(r, _)| {
                    let id = self.compute_id(r);
                    let bytes = id.and_then(|id| self.blob(id));
                    ((id, None), pins_of(bytes.as_deref()))
                })
                .collect(),
            Mode::WorkTree => {
                use rayon::prelude::*;
                let (root, kind) = (&self.ws.root, self.repo.repo.object_hash());
                records
                    .par_iter()
                    .map(|&(r, may_pin)| {
                        if let Some(id) = blobs(r).filter(|_| !may_pin) {
                            return ((Some(id), None), Pinned::default());
                        }
                        let bytes = crate::io::source::read_source(root, r);
                        let ids = bytes.as_ref().map(|b| work_tree_ids(kind, b));
                        let (id, lf) = ids.unwrap_or_default();
                        ((id, lf), pins_of(bytes.as_deref()))
                    })
                    .collect()
            }
        };
        let (mut ids, mut pins) = (self.ids.borrow_mut(), self.pins.borrow_mut());
        for ((r, _), ((id, lf), pinned)) in records.iter().zip(now) {
            ids.insert(r.to_string(), id);
            if let Some(lf) = lf {
                self.lf_ids.borrow_mut().insert(r.to_string(), lf);
            }
            pins.insert(r.to_string(), pinned);
        }
        *self.records.borrow_mut() = records.iter().map(|(r, _)| r.to_string()).collect();
    }

    /// Judges every `file:` source of `record`; the verdict, and the paths
    /// it read.
    fn record(&self, record: &str, sources: &[Cited]) -> (Verdict, Vec<String>) {
        self.consulted.borrow_mut().clear();
        let id = self.current_id(record);
        let pinned = match self.pins.borrow_mut().remove(record) {
            Some(p) => p,
            None => pins_of(self.current_bytes(record).as_deref().map(Vec::as_slice)),
        };
        let mut found = Vec::new();
        // Pinned sources are judged by their pins; the others by history,
        // and so is a pinned file that is gone, which history may find
        // renamed (gone for good, it is `sources/dangling`'s business, and
        // a record left unjudged for it is not worth a note).
        let (mut rest, mut gone) = (Vec::new(), Vec::new());
        let mut unreadable = false;
        let mut not_committed = false;
        for c in sources {
            if c.unreadable {
                self.consulted.borrow_mut().push(c.path.to_string());
                unreadable = true;
                continue;
            }
            match pinned.hashes.get(c.at.value.as_str()) {
                Some(_) if self.current_bytes(&c.path).is_none() => gone.push(c),
                Some(hash) => found.extend(
                    self.by_pin(c, hash, &pinned.verified)
                        .map(|f| (c, Rc::new(f), None)),
                ),
                None => rest.push(c),
            }
        }
        // Judged fresh from a commit that may only have reformatted the
        // record: judged again from the one that wrote it.
        let written = self.written(record, id);
        let (mut more, mut unjudged, mut nc) = self.by_history(written, &rest, &gone, &pinned);
        // Unless each source has changed since that commit anyway (what
        // changed between the two goes uncounted then): a range moved or a
        // file renamed since may have changed before it.
        let changed = |c: &Cited| {
            more.iter()
                .any(|(m, f, _)| std::ptr::eq(*m, c) && matches!(**f, Finding::Changed { .. }))
        };
        let unsettled = rest.iter().chain(&gone).any(|c| !changed(c));
        if let (true, Why::No, Written::At(i)) = (unsettled, unjudged, written) {
            let before = self.unformatted(record, i);
            if before != written {
                (more, unjudged, nc) = self.by_history(before, &rest, &gone, &pinned);
            }
        }
        found.extend(more);
        not_committed |= nc;
        let mut v = verdict(
            self.ws,
            record,
            found,
            &|c, f, w| self.message(c, f, w),
            &|f| self.commit_ids(f),
        );
        v.unjudged = match unjudged {
            Why::No if unreadable => Why::Unreadable,
            Why::No if not_committed => Why::NotCommitted,
            why => why,
        };
        let mut deps = std::mem::take(&mut *self.consulted.borrow_mut());
        deps.sort_unstable();
        deps.dedup();
        (v, deps)
    }

    /// The findings by history of the sources `rest` (unpinned) and
    /// `gone` (pinned, their file gone) of a record last written as
    /// `written` says; why the record is not judged; whether a cited file
    /// git has never committed left it so.
    fn by_history<'c>(
        &self,
        written: Written,
        rest: &[&'c Cited<'c>],
        gone: &[&'c Cited<'c>],
        pinned: &Pinned,
    ) -> (Vec<Found<'c>>, Why, bool) {
        let (mut found, mut not_committed) = (Vec::new(), false);
        let why = match (rest.is_empty() && gone.is_empty(), written) {
            (true, _) => Why::No,
            (false, Written::At(i)) if !self.h().steps[i].boundary => {
                let since = self.since_of(i);
                for c in rest.iter().chain(gone).copied() {
                    if self.never_committed(c, Some((i, &since))) {
                        not_committed = true;
                        continue;
                    }
                    found.extend(self.shared_source(c, i, &since).map(|f| (c, f, Some(i))));
                }
                Why::No
            }
            // Last written before the history this (shallow) clone holds:
            // what that history shows came after the record.
            (false, Written::At(_) | Written::BeyondHistory) => {
                for &c in gone {
                    let Some(hash) = pinned.hashes.get(c.at.value.as_str()) else {
                        continue;
                    };
                    found.extend(
                        self.gone_by_pin(c, hash, &pinned.verified)
                            .map(|f| (c, Rc::new(f), None)),
                    );
                }
                let mut unknown = false;
                for &c in rest {
                    if self.never_committed(c, None) {
                        not_committed = true;
                        continue;
                    }
                    match self.changed_within_history(c) {
                        Some(f) => found.push((c, Rc::new(f), None)),
                        None => unknown = true,
                    }
                }
                match unknown {
                    true => Why::Shallow,
                    false => Why::No,
                }
            }
            _ if rest.is_empty() => Why::No,
            (false, Written::NotYet) => Why::Uncommitted,
            (false, Written::Unknown) => Why::No,
        };
        (found, why, not_committed)
    }

    /// The message of `finding` of source `c`: formatted (and masked) once
    /// for each source as written and commit `written` the record was last
    /// written at, on which the finding alone depends (a cold check on
    /// 100k records formatted 18,763 messages, a few hundred of them
    /// distinct); a finding by pin (`written` none) each time.
    fn message(&self, c: &Cited, finding: &Finding, written: Option<usize>) -> String {
        let Some(written) = written else {
            return rule::message(&c.at.value, finding);
        };
        if let Some(known) = self
            .messages
            .borrow()
            .get(c.at.value.as_str())
            .and_then(|list| list.iter().find(|(w, _)| *w == written))
        {
            return known.1.clone();
        }
        let message = rule::message(&c.at.value, finding);
        self.messages
            .borrow_mut()
            .entry(c.at.value.clone())
            .or_default()
            .push((written, message.clone()));
        message
    }

    /// The history, once read; empty before.
    fn h(&self) -> &History {
        self.whole
            .get()
            .or(self.history.get())
            .unwrap_or(&self.empty)
    }

    fn since_of(&self, written: usize) -> Since {
        if let Some(s) = self.since.borrow().get(&written) {
            return s.clone();
        }
        let s = self.h().since(written);
        self.since.borrow_mut().insert(written, s.clone());
        s
    }

    /// The blob id of `rel` in HEAD.
    fn head_id(&self, rel: &str) -> Option<ObjectId> {
        if let Some(all) = &self.head_files {
            return all.get(rel).map(|o| o.id);
        }
        if let Some(known) = self.head_looked.borrow().get(rel) {
            return *known;
        }
        let id = self.indexed(rel).unwrap_or_else(|| {
            let tree = self.repo.repo.find_tree(self.head.1).ok()?;
            let entry = tree
                .lookup_entry_by_path(format!("{}{rel}", self.repo.prefix))
                .ok()??;
            (!entry.mode().is_tree()).then(|| entry.object_id())
        });
        self.head_looked.borrow_mut().insert(rel.to_string(), id);
        id
    }

    /// [`Judge::head_id`] from the git index, where its cache tree holds
    /// `rel`'s directory as HEAD does: HEAD's trees are read only down to
    /// that directory (whose own tree, thousands of records, is the one
    /// that costs).
    fn indexed(&self, rel: &str) -> Option<Option<ObjectId>> {
        let index = self.index?;
        let dir = &rel[..=rel.rfind('/')?];
        let tree = self.repo.dir_tree(self.head.1, dir)?;
        index.in_tree(rel, dir, tree)
    }

    /// Whether `rel`, now blob `id` (see [`Judge::current_id`]), is the
    /// file HEAD holds: the same blob, or the same with LF line endings.
    fn same_as_head(&self, rel: &str, id: Option<ObjectId>) -> bool {
        let Some(head) = self.head_id(rel) else {
            return false;
        };
        id == Some(head) || self.lf_ids.borrow().get(rel) == Some(&head)
    }

    /// Judges a pinned source by its pin.
    fn by_pin(&self, c: &Cited, hash: &str, verified: &Option<String>) -> Option<Finding> {
        // A file gone is `sources/dangling`'s business.
        let now = self.current_bytes(&c.path)?;
        let unpinned = Finding::Unpinned {
            verified: verified.clone(),
        };
        match c.lines {
            None => (rule::pin(&now, None).as_deref() != Some(hash)).then_some(unpinned),
            Some(lines) => match rule::find_pinned(&now, hash, lines) {
                Some(at) if at == lines => None,
                Some(at) => Some(Finding::Moved {
                    to: None,
                    lines: at,
                }),
                None => Some(unpinned),
            },
        }
    }

    /// The blob id of `rel` as the mode sees it now (each path hashed
    /// once per run: many records cite the same file).
    fn current_id(&self, rel: &str) -> Option<ObjectId> {
        self.consulted.borrow_mut().push(rel.to_string());
        if let Some(known) = self.ids.borrow().get(rel) {
            return *known;
        }
        let id = self.compute_id(rel);
        self.ids.borrow_mut().insert(rel.to_string(), id);
        id
    }

    fn compute_id(&self, rel: &str) -> Option<ObjectId> {
        match self.mode {
            Mode::Staged => self.staged.as_ref()?.lookup(rel).map(|o| o.id),
            Mode::WorkTree => {
                let bytes = self.current_bytes(rel)?;
                let (id, lf) = work_tree_ids(self.repo.repo.object_hash(), &bytes);
                if let Some(lf) = lf {
                    self.lf_ids.borrow_mut().insert(rel.to_string(), lf);
                }
                id
            }
        }
    }

    /// The bytes of `rel` as the mode sees it now (each path read once
    /// per run).
    fn current_bytes(&self, rel: &str) -> Bytes {
        self.consulted.borrow_mut().push(rel.to_string());
        if let Some(known) = self.bytes.borrow().get(rel) {
            return known.clone();
        }
        let bytes = match self.mode {
            Mode::Staged => self.blob(self.staged.as_ref()?.lookup(rel)?.id),
            Mode::WorkTree => crate::io::source::read_source(&self.ws.root, rel),
        }
        .map(Rc::new);
        self.bytes
            .borrow_mut()
            .insert(rel.to_string(), bytes.clone());
        bytes
    }

    fn blob(&self, id: ObjectId) -> Option<Vec<u8>> {
        self.blob_up_to(id, crate::io::source::MAX_SOURCE_BYTES)
    }

    /// The bytes of the blob `id` when it holds at most `max` (its size
    /// read from the object's header first: a larger one is not inflated).
    fn blob_up_to(&self, id: ObjectId, max: u64) -> Option<Vec<u8>> {
        match self.repo.blob(id, max).ok()? {
            Content::Bytes(b) => Some(b),
            Content::TooLarge(_) => None,
        }
    }

    fn pending(&self) -> rule::Pending {
        match self.mode {
            Mode::WorkTree => rule::Pending::WorkTree,
            Mode::Staged => rule::Pending::Staged,
        }
    }

    fn commit(&self, index: usize) -> Commit {
        let s = &self.h().steps[index];
        Commit {
            id: s.id.to_string(),
            date: crate::model::clock::date(s.seconds + i64::from(s.offset)),
            summary: s.summary.clone(),
        }
    }

    /// The ids of the commits `finding` names: once per list of commits,
    /// shared by the findings naming it (each of thousands of records
    /// citing a file that a hundred commits changed lists them all).
    fn commit_ids(&self, finding: &Finding) -> Commits {
        let Finding::Changed { commits, .. } = finding else {
            return finding.commits().iter().map(|c| c.id.clone()).collect();
        };
        if commits.is_empty() {
            return Commits::default();
        }
        // The list is kept beside its ids, so its address stays its own.
        let at = commits.as_ptr() as usize;
        if let Some((_, ids)) = self.commit_ids.borrow().get(&at) {
            return ids.clone();
        }
        let ids: Commits = commits.iter().map(|c| c.id.clone()).collect();
        self.commit_ids
            .borrow_mut()
            .insert(at, (commits.clone(), ids.clone()));
        ids
    }

    /// [`Judge::source`], answered once for each source as written and
    /// commit `written`: the answer depends on nothing else (`since` is
    /// that commit's), and the paths it read are consulted again.
    fn shared_source(&self, c: &Cited, written: usize, since: &Since) -> Option<Rc<Finding>> {
        if let Some(known) = self
            .shared
            .borrow()
            .get(c.at.value.as_str())
            .and_then(|list| list.iter().find(|s| s.written == written))
        {
            self.consulted
                .borrow_mut()
                .extend(known.consulted.iter().cloned());
            return known.finding.clone();
        }
        let before = self.consulted.borrow().len();
        let finding = self.source(c, written, since).map(Rc::new);
        let consulted = self.consulted.borrow()[before..].to_vec();
        self.shared
            .borrow_mut()
            .entry(c.at.value.clone())
            .or_default()
            .push(Shared {
                written,
                finding: finding.clone(),
                consulted,
            });
        finding
    }

    /// Judges one source of a record last written at commit `written`;
    /// `since` are the later commits, oldest first.
    fn source(&self, c: &Cited, written: usize, since: &Since) -> Option<Finding> {
        let trail = self.trail(&c.path, written, since)?;
        let Followed {
            name,
            changed,
            renamed,
            ..
        } = &trail.followed;
        let changed_commits = || trail.commits.clone();
        let renamed_to = renamed.map(|i| (name.clone(), self.commit(i)));
        let uncommitted = self.uncommitted(name);
        match c.lines {
            None => {
                if changed.is_empty() && !uncommitted {
                    return renamed_to.map(|(to, commit)| Finding::Renamed { to, commit });
                }
                Some(Finding::Changed {
                    commits: changed_commits(),
                    uncommitted: uncommitted.then_some(self.pending()),
                    renamed_to: renamed_to.map(|(to, _)| to),
                    cut: false,
                })
            }
            Some(lines) => {
                if changed.is_empty() && !uncommitted && renamed_to.is_none() {
                    return None;
                }
                let now = self.current_bytes(name)?;
                // Lines the file did not have when the record was written
                // (or a file it did not have) were written since: changed,
                // as a whole file added since is.
                let cited = self
                    .blob_at(self.h().steps[written].tree, &c.path)
                    .and_then(|then| rule::cited_lines(&String::from_utf8_lossy(&then), lines));
                let found = cited.and_then(|cited| {
                    rule::find_lines(&cited, &String::from_utf8_lossy(&now), lines)
                });
                match found {
                    Some(at) if at == lines && renamed_to.is_none() => None,
                    Some(at) => Some(Finding::Moved {
                        to: renamed_to.map(|(to, _)| to),
                        lines: at,
                    }),
                    None => Some(Finding::Changed {
                        commits: changed_commits(),
                        uncommitted: uncommitted.then_some(self.pending()),
                        renamed_to: renamed_to.map(|(to, _)| to),
                        cut: false,
                    }),
                }
            }
        }
    }

    /// Whether source `c` of a record last written at step `written` (with
    /// the commits since; `None`: before the history held) is a file git
    /// holds no version of to compare with: in the work tree, not in HEAD,
    /// touched by no commit since (untracked, ignored, or only added).
    /// Whether it changed since the record was written, git cannot tell;
    /// once committed, the commit that added it tells.
    fn never_committed(&self, c: &Cited, written: Option<(usize, &Since)>) -> bool {
        if self.mode != Mode::WorkTree
            || self.head_id(&c.path).is_some()
            || self.current_id(&c.path).is_none()
        {
            return false;
        }
        let untouched = |f: &Followed| f.touched.is_empty() && f.renamed.is_none();
        match written {
            Some((i, since)) => self
                .trail(&c.path, i, since)
                .is_some_and(|t| untouched(&t.followed)),
            None => self
                .follow(&c.path, &self.held())
                .is_some_and(|f| untouched(&f)),
        }
    }

    /// Whether `rel` differs now (work tree or index) from HEAD: changed,
    /// or created and not committed yet.
    fn uncommitted(&self, rel: &str) -> bool {
        let now = self.current_id(rel);
        now.is_some() && !self.same_as_head(rel, now)
    }

    /// The bytes of `rel` in `tree`.
    /// (Each pair read once per run.)
    fn blob_at(&self, tree: ObjectId, rel: &str) -> Bytes {
        let key = (tree, rel.to_string());
        if let Some(known) = self.then.borrow().get(&key) {
            return known.clone();
        }
        let bytes = (|| {
            let tree = self.repo.repo.find_tree(tree).ok()?;
            let entry = tree
                .lookup_entry_by_path(format!("{}{rel}", self.repo.prefix))
                .ok()??;
            if !entry.mode().is_blob() {
                return None;
            }
            self.blob(entry.object_id())
        })()
        .map(Rc::new);
        self.then.borrow_mut().insert(key, bytes.clone());
        bytes
    }
}
