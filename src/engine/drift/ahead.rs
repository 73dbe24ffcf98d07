//! The commits of a long walk diffed ahead, on a second thread.
//!
//! A walk diffs each commit against its parents, newest first, until it
//! has found what the records judged need. In a long history with records
//! written throughout, that is most of a cold check, on one core while
//! the other has nothing left to do. Past its first [`ALONE`] commits, the
//! commits left to diff go in blocks of [`BLOCK`]: this thread diffs every
//! other block as the walk reaches it, and a helper thread diffs the
//! blocks between, at most two ahead of the walk.
//!
//! Each thread keeps the trees of the commit before its current one
//! (a block is a run of neighbouring commits), and the helper reads
//! through a repository handle of its own. The steps come out in the
//! walk's order, the same as diffed one after the other; the helper's
//! blocks past where the walk stops are dropped (at most two blocks of
//! work on the other core, cut short when the walk is done).

use crate::io::git::trees::Trees;
use crate::io::git::{CommitInfo, GitError, Repo};
use crate::model::hashing::Set as HashSet;
use crate::store::drift::Step;
use gix::ObjectId;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

/// Commits diffed on this thread alone before the helper starts: a short
/// walk (a check a few commits after the last) starts no thread.
const ALONE: usize = 64;
/// Commits per block.
const BLOCK: usize = 64;

/// One of the helper's blocks: its steps in order, or `None` when the
/// helper could not open the repository (this thread diffs them then).
type Block = Option<Vec<Result<Step, GitError>>>;

/// The steps of the commits a walk diffs, in its order ([`Ahead::next`]).
pub(super) struct Ahead<'r> {
    repo: &'r Repo,
    trees: Trees,
    /// The commits to diff, in the walk's order.
    todo: Vec<ObjectId>,
    /// How many of them were handed out.
    next: usize,
    /// The rest of the helper's block being handed out.
    got: VecDeque<Result<Step, GitError>>,
    helper: Option<Helper>,
}

struct Helper {
    blocks: Receiver<Block>,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl<'r> Ahead<'r> {
    /// The commits `todo` of `repo` to diff, in the order a walk asks.
    pub(super) fn new(repo: &'r Repo, todo: Vec<ObjectId>) -> Ahead<'r> {
        Ahead {
            repo,
            trees: Trees::new(TREES_KEPT),
            todo,
            next: 0,
            got: VecDeque::new(),
            helper: None,
        }
    }

    /// The step of the next commit to diff, `id`.
    pub(super) fn next(&mut self, id: ObjectId) -> Result<Step, GitError> {
        let t = self.next;
        self.next += 1;
        debug_assert_eq!(self.todo.get(t), Some(&id));
        if t == ALONE {
            self.start();
        }
        let helpers = t >= ALONE && !((t - ALONE) / BLOCK).is_multiple_of(2);
        if helpers && self.helper.is_some() {
            if (t - ALONE).is_multiple_of(BLOCK) {
                self.receive();
            }
            if let Some(step) = self.got.pop_front() {
                return step;
            }
        }
        self.trees.next_commit();
        step(self.repo, &self.repo.commit(id)?, &self.trees)
    }

    /// Starts the helper on every other block after the first
    /// [`ALONE`] commits, when there is one.
    fn start(&mut self) {
        let blocks: Vec<Vec<ObjectId>> = self.todo[ALONE..]
            .chunks(BLOCK)
            .skip(1)
            .step_by(2)
            .map(<[ObjectId]>::to_vec)
            .collect();
        if blocks.is_empty() {
            return;
        }
        let place = self.repo.place();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        // One block done and waiting, one being diffed: no further ahead.
        let (send, receive) = sync_channel::<Block>(1);
        let spawned = std::thread::Builder::new()
            .name("memlint-walk".into())
            .spawn(move || {
                let Ok(repo) = Repo::again(place) else {
                    let _ = send.send(None);
                    return;
                };
                let trees = Trees::new(TREES_KEPT);
                for block in blocks {
                    let mut steps = Vec::with_capacity(block.len());
                    for id in block {
                        if stopped.load(Ordering::Relaxed) {
                            return;
                        }
                        trees.next_commit();
                        steps.push(repo.commit(id).and_then(|c| step(&repo, &c, &trees)));
                    }
                    if send.send(Some(steps)).is_err() {
                        return;
                    }
                }
            });
        // No thread to be had: this one diffs every block.
        if let Ok(thread) = spawned {
            self.helper = Some(Helper {
                blocks: receive,
                stop,
                thread,
            });
        }
    }

    /// Takes the helper's next block; without one (the helper could not
    /// open the repository, or stopped), this thread diffs the rest.
    fn receive(&mut self) {
        let block = self
            .helper
            .as_ref()
            .and_then(|h| h.blocks.recv().ok().flatten());
        match block {
            Some(steps) => self.got = steps.into(),
            None => self.finish(),
        }
    }

    /// Stops the helper and waits for it.
    fn finish(&mut self) {
        if let Some(h) = self.helper.take() {
            h.stop.store(true, Ordering::Relaxed);
            // A helper waiting to hand over a block sees no one takes it.
            drop(h.blocks);
            let _ = h.thread.join();
        }
    }
}

impl Drop for Ahead<'_> {
    fn drop(&mut self) {
        self.finish();
    }
}

/// How many bytes of trees a walk keeps between the diffs of neighbouring
/// commits, at most.
pub(super) const TREES_KEPT: usize = 64 << 20;

/// The step of commit `c`: the paths it changed under the root (a
/// merge: those it changed against every parent), nothing when a parent
/// is missing (a shallow clone's boundary).
pub(super) fn step(repo: &Repo, c: &CommitInfo, trees: &Trees) -> Result<Step, GitError> {
    let parent_trees: Vec<Option<ObjectId>> =
        c.parents.iter().map(|p| repo.tree_of(*p).ok()).collect();
    let boundary = parent_trees.iter().any(Option::is_none);
    let changes = match parent_trees.split_first() {
        _ if boundary => Vec::new(),
        None => repo.diff_trees_kept(None, Some(c.tree), trees)?,
        Some((first, others)) => {
            let mut changes = repo.diff_trees_kept(*first, Some(c.tree), trees)?;
            for other in others {
                let theirs: HashSet<String> = repo
                    .diff_trees_kept(*other, Some(c.tree), trees)?
                    .into_iter()
                    .map(|ch| ch.path)
                    .collect();
                changes.retain(|ch| theirs.contains(&ch.path));
            }
            changes
        }
    };
    Ok(Step {
        id: c.id,
        seconds: c.seconds,
        offset: c.offset,
        summary: c.summary().to_string(),
        changes,
        tree: c.tree,
        boundary,
        parents: c.parents.clone(),
    })
}
