//! A cold check's history walk, begun while the files are scanned.
//!
//! A cold check (no record table, no walk kept) scans every file on both
//! cores, then judges the records citing files, which walks the history
//! first: on a workspace whose records were written in large commits, the
//! walk alone was a fifth of a second on one core after the scan. The walk
//! does not depend on the scan: [`Early`] starts it on a thread of its own
//! when the check starts, from HEAD down, and the judging takes what it
//! diffed ([`Early::take`]) and goes on from there.
//!
//! It goes only as far as a walk could need: it stops once it has met the
//! commit that wrote every file of the workspace HEAD holds (the records
//! judged are some of those), when the judging takes it, or at the end of
//! the history. It is not waited for unless the judging takes it. So the
//! work it may do for nothing (no record cites a file) is bounded by the
//! scan's own time, and only a cold check of many files does it.

use super::ahead::{step, TREES_KEPT};
use super::history::{Begun, Finder, Listing};
use crate::io::git::trees::Trees;
use crate::io::git::{Asking, Object, Repo};
use crate::model::hashing::Map as HashMap;
use crate::model::rule::Rule;
use crate::model::workspace::Workspace;
use gix::ObjectId;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// HEAD's files under the root, by path, as the judging looks them up.
pub(crate) type HeadFiles = HashMap<String, Object>;

/// The walk begun on its own thread ([`Early::start`]).
pub(crate) struct Early {
    stop: Arc<AtomicBool>,
    /// HEAD and its files, as soon as the thread has them.
    files: Arc<Mutex<Option<(ObjectId, HeadFiles)>>>,
    thread: Mutex<Option<JoinHandle<Option<Begun>>>>,
}

/// Fewest files a cold check scans for its walk to begin early: a shorter
/// scan hides too little of it.
const EARLY_FROM: usize = 1000;

impl Early {
    /// Starts the walk when the check of `all` (every file of the
    /// workspace) is cold, scans many files, and `sources/drifted` is on;
    /// `None` else. The thread is not waited for unless the walk is taken:
    /// a check that needs no history ends without it.
    pub(crate) fn start(ws: &Workspace, all: &[String]) -> Option<Early> {
        let wanted = match crate::io::git::trees::early_walk_testing() {
            Some("off") => false,
            Some("whole") => true,
            _ => all.len() >= EARLY_FROM,
        };
        if !wanted || !ws.config.enabled(Rule::SourcesDrifted) || !cold(ws) {
            return None;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let files = Arc::new(Mutex::new(None));
        let (root, all) = (ws.root.clone(), all.to_vec());
        let (stopped, slot) = (Arc::clone(&stop), Arc::clone(&files));
        let thread = std::thread::Builder::new()
            .name("memlint-early-walk".into())
            .spawn(move || walk(&root, &all, &stopped, &slot))
            .ok()?;
        Some(Early {
            stop,
            files,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// HEAD's files, when the thread has read them and HEAD is `head`.
    pub(crate) fn head_files(&self, head: ObjectId) -> Option<HeadFiles> {
        let mut slot = self.files.lock().ok()?;
        match slot.take() {
            Some((at, files)) if at == head => Some(files),
            _ => None,
        }
    }

    /// Stops the walk after the commit it is diffing and takes what it
    /// diffed, when it began at `head`.
    pub(crate) fn take(&self, head: ObjectId) -> Option<Begun> {
        if crate::io::git::trees::early_walk_testing() != Some("whole") {
            self.stop.store(true, Ordering::Relaxed);
        }
        let thread = self.thread.lock().ok()?.take()?;
        thread.join().ok().flatten().filter(|b| b.head == head)
    }
}

impl Drop for Early {
    /// A walk nobody took is stopped after the commit it is diffing, and
    /// not waited for.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Whether nothing of an earlier check is kept: no record table and no
/// walk. (A workspace whose records cite no file never keeps a walk; its
/// table keeps this from being tried again.)
fn cold(ws: &Workspace) -> bool {
    let dir = ws.root.join(crate::io::cache::DIR);
    !dir.join(crate::store::table::FILE).exists() && !dir.join(crate::store::drift::DRIFT).exists()
}

/// The thread's walk: HEAD's files first (handed over at once), then the
/// commits from HEAD down, until told to stop or every file of `all`
/// HEAD holds has met the commit that wrote it as HEAD holds it.
fn walk(
    root: &Path,
    all: &[String],
    stop: &AtomicBool,
    slot: &Mutex<Option<(ObjectId, HeadFiles)>>,
) -> Option<Begun> {
    let repo = Repo::open(root, Asking::Drift).ok()?;
    // A shallow clone's walk is the judging's own business.
    if repo.repo.is_shallow().unwrap_or(true) {
        return None;
    }
    let head = repo.head().ok()??;
    let files: HeadFiles = repo
        .flatten(repo.tree_of(head).ok()?)
        .ok()?
        .into_iter()
        .collect();
    let needed: Vec<(&str, ObjectId)> = all
        .iter()
        .filter_map(|p| Some((p.as_str(), files.get(p.as_str())?.id)))
        .collect();
    if let Ok(mut slot) = slot.lock() {
        *slot = Some((head, files));
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let listing = Listing::of(&repo, head).ok()?;
    let mut finder = Finder::new(&needed);
    let trees = Trees::new(TREES_KEPT);
    let mut steps = Vec::new();
    for (id, _) in &listing.commits {
        if stop.load(Ordering::Relaxed) || finder.done() {
            break;
        }
        trees.next_commit();
        let Ok(step) = repo.commit(*id).and_then(|c| step(&repo, &c, &trees)) else {
            break;
        };
        finder.take(steps.len(), &step);
        steps.push(step);
    }
    Some(Begun {
        head,
        listing,
        steps,
    })
}
