//! The history `sources/drifted` reads: the commits reachable from HEAD,
//! newest first, with the paths they changed under the root, walked once
//! per run through gix, and only as far back as the records judged need.

use crate::io::git::{Change, CommitInfo, GitError, Repo};
use crate::model::hashing::{Map as HashMap, Set as HashSet};
use gix::ObjectId;

use crate::store::drift::Step;

/// The commits reachable from HEAD, newest first: all of them, or the
/// newest down to the oldest a record judged needs.
pub(crate) struct History {
    /// The walk, newest first.
    pub steps: Vec<Step>,
    /// Commit id → index into `steps`.
    pub at: HashMap<ObjectId, usize>,
    /// Whether some commit has more than one parent.
    pub merges: bool,
    /// The index of the newest commit that changed each path the walk was
    /// asked to find, found in one pass over the steps.
    pub last: HashMap<String, usize>,
}

impl History {
    /// Walks the history from `head`, newest first, far enough to find the
    /// newest commit that changed each path of `needed` (the records whose
    /// last commit is asked, see [`History::last_change`]): from
    /// `.memlint/drift` when it holds them for this HEAD, else diffing only
    /// the commits it does not hold (and storing the new walk). A history
    /// with merges is walked whole ([`History::since`] needs every commit).
    pub(crate) fn walk(
        repo: &Repo,
        head: ObjectId,
        ws: &crate::model::workspace::Workspace,
        needed: &[&str],
    ) -> Result<History, GitError> {
        let root = &ws.root;
        let stored = crate::store::drift::load(root).filter(|s| s.prefix == repo.prefix);
        // A shallow clone's boundary moves without HEAD moving (`git fetch
        // --deepen`): its walk is checked against the commits it holds.
        let shallow = repo.repo.is_shallow().unwrap_or(true);
        let mut finder = Finder::new(needed);
        let reuse = match stored {
            Some(s) if s.head == head && !shallow => {
                for (i, step) in s.steps.iter().enumerate() {
                    finder.take(i, step);
                }
                if s.complete || finder.done() {
                    Ok(s.steps)
                } else {
                    finder = Finder::new(needed);
                    Err(Some(s))
                }
            }
            other => Err(other),
        };
        let steps = match reuse {
            Ok(steps) => steps,
            Err(stored) => {
                let mut known: HashMap<ObjectId, Step> = stored
                    .map(|s| {
                        s.steps
                            .into_iter()
                            .filter(|st| !st.boundary)
                            .map(|st| (st.id, st))
                            .collect()
                    })
                    .unwrap_or_default();
                let commits = repo.commit_parents(head)?;
                let merges = commits.iter().any(|(_, parents)| *parents > 1);
                let mut steps = Vec::new();
                let trees = crate::io::git::trees::Trees::new(TREES_KEPT);
                for (id, _) in &commits {
                    if finder.done() && !merges {
                        break;
                    }
                    let step = match known.remove(id) {
                        Some(st) => st,
                        None => {
                            trees.next_commit();
                            step(repo, &repo.commit(*id)?, &trees)?
                        }
                    };
                    finder.take(steps.len(), &step);
                    steps.push(step);
                }
                let stored = crate::store::drift::Stored {
                    head,
                    prefix: repo.prefix.clone(),
                    complete: steps.len() == commits.len(),
                    steps,
                };
                crate::store::drift::save(ws, &stored);
                stored.steps
            }
        };
        let at = steps.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        let merges = steps.iter().any(|s| s.parents > 1);
        Ok(History {
            steps,
            at,
            merges,
            last: finder.last,
        })
    }

    /// The index of the newest commit that changed `rel` (a root-relative
    /// path), if one did: one of the paths the walk was asked to find, or
    /// any path once the walk is whole.
    pub(crate) fn last_change(&self, rel: &str) -> Option<usize> {
        match self.last.get(rel) {
            Some(i) => Some(*i),
            None => self.steps.iter().position(|s| touches(&s.changes, rel)),
        }
    }

    /// The indexes of the commits reachable from HEAD but not from the
    /// commit at `index`, oldest first.
    pub(crate) fn since(&self, repo: &Repo, index: usize) -> Result<Vec<usize>, GitError> {
        if !self.merges {
            return Ok((0..index).rev().collect());
        }
        let head = self.steps[0].id;
        let hidden = self.steps[index].id;
        let ids: HashSet<ObjectId> = repo.commit_ids(&[head], &[hidden])?.into_iter().collect();
        let mut out: Vec<usize> = ids
            .iter()
            .filter_map(|id| self.at.get(id).copied())
            .collect();
        out.sort_unstable_by(|a, b| b.cmp(a));
        Ok(out)
    }
}

/// Finds, one step after the other (newest first), the newest step that
/// changed each path asked for: each step is matched from its smaller
/// side (its changes looked up among the paths still missing, or those
/// paths searched in its changes).
struct Finder<'n> {
    missing: HashSet<&'n str>,
    last: HashMap<String, usize>,
}

impl<'n> Finder<'n> {
    fn new(needed: &[&'n str]) -> Self {
        Finder {
            missing: needed.iter().copied().collect(),
            last: HashMap::default(),
        }
    }

    /// Takes in step `i` of the walk.
    fn take(&mut self, i: usize, step: &Step) {
        if self.missing.is_empty() {
            return;
        }
        if step.changes.len() <= self.missing.len() {
            for c in &step.changes {
                if self.missing.remove(c.path.as_str()) {
                    self.last.insert(c.path.clone(), i);
                }
            }
        } else {
            let last = &mut self.last;
            self.missing.retain(|p| {
                let touched = touches(&step.changes, p);
                if touched {
                    last.insert(p.to_string(), i);
                }
                !touched
            });
        }
    }

    /// Whether every path asked for was found.
    fn done(&self) -> bool {
        self.missing.is_empty()
    }
}

/// Whether `changes` (sorted by path) hold `rel`.
pub(crate) fn touches(changes: &[Change], rel: &str) -> bool {
    changes
        .binary_search_by(|c| c.path.as_str().cmp(rel))
        .is_ok()
}

/// The change of `rel` in `changes` (sorted by path).
pub(crate) fn change_of<'c>(changes: &'c [Change], rel: &str) -> Option<&'c Change> {
    changes
        .binary_search_by(|c| c.path.as_str().cmp(rel))
        .ok()
        .map(|i| &changes[i])
}

/// How many bytes of trees a walk keeps between the diffs of neighbouring
/// commits, at most.
const TREES_KEPT: usize = 64 << 20;

fn step(
    repo: &Repo,
    c: &CommitInfo,
    trees: &crate::io::git::trees::Trees,
) -> Result<Step, GitError> {
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
        parents: c.parents.len(),
    })
}
