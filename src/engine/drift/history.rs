//! The history `sources/drifted` reads: the commits reachable from HEAD,
//! newest first, with the paths they changed under the root, walked once
//! per run through gix, and only as far back as the records judged need.

use crate::io::git::{Change, GitError, Repo};
use crate::model::hashing::Map as HashMap;
use gix::ObjectId;

use crate::store::drift::Step;

/// The commits reachable from HEAD, newest first: all of them, or the
/// newest down to the oldest a record judged needs.
pub(crate) struct History {
    /// The walk, newest first.
    pub steps: Vec<Step>,
    /// Commit id → index into `steps`.
    pub at: HashMap<ObjectId, usize>,
    /// Whether some commit walked has more than one parent.
    pub merges: bool,
    /// Whether every commit HEAD reaches was walked.
    pub complete: bool,
    /// The first commit walked (newest first) with more than one parent:
    /// before it the history is one line.
    first_merge: Option<usize>,
    /// The index of the newest commit that wrote each path the walk was
    /// asked to find as HEAD holds it, found in one pass over the steps.
    pub last: HashMap<String, usize>,
    /// The commits' parents as indexes, and their generations: those of
    /// every commit when the walk stopped early, else built from the
    /// steps when [`History::since`] first needs them.
    graph: std::cell::OnceCell<Graph>,
}

impl History {
    /// Walks the history from `head`, newest first, far enough to find the
    /// newest commit that wrote each path of `needed` as HEAD holds it (the
    /// records whose last commit is asked, with their blob ids in HEAD; see
    /// [`History::last_change`]) and every commit
    /// since each of those ([`History::since`]): from `.memlint/drift` when
    /// it holds them for this HEAD, else diffing only the commits it does
    /// not hold (and storing the new walk). `whole`: every commit HEAD
    /// reaches, whatever is needed.
    pub(crate) fn walk(
        repo: &Repo,
        head: ObjectId,
        ws: &crate::model::workspace::Workspace,
        needed: &[(&str, ObjectId)],
        (begun, whole): (Option<Begun>, bool),
    ) -> Result<History, GitError> {
        let root = &ws.root;
        let stored = crate::store::drift::load(root).filter(|s| s.prefix == repo.prefix);
        // A shallow clone's boundary moves without HEAD moving (`git fetch
        // --deepen`): its walk is checked against the commits it holds.
        let shallow = repo.repo.is_shallow().unwrap_or(true);
        let mut finder = Finder::new(needed);
        // Every commit with its parents, listed when a walk that stops
        // early holds merges (or has to go on).
        let mut listing: Option<Listing> = None;
        // The commits a cold check began to diff while it scanned.
        let mut early: Vec<Step> = Vec::new();
        if let Some(b) = begun.filter(|b| b.head == head) {
            listing = Some(b.listing);
            early = b.steps;
        }
        let reuse = match stored {
            Some(s) if s.head == head && !shallow => {
                for (i, step) in s.steps.iter().enumerate() {
                    finder.take(i, step);
                }
                let enough = s.complete
                    || (!whole
                        && finder.done()
                        && holds_all_since(repo, head, &s.steps, &finder, &mut listing)?);
                if enough {
                    Ok((s.steps, s.complete))
                } else {
                    finder = Finder::new(needed);
                    Err(Some(s))
                }
            }
            other => Err(other),
        };
        let (steps, complete) = match reuse {
            Ok(walked) => walked,
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
                known.extend(early.into_iter().map(|st| (st.id, st)));
                let l = match listing.take() {
                    Some(l) => l,
                    None => Listing::of(repo, head)?,
                };
                let mut steps = Vec::new();
                let todo = l.commits.iter().map(|(id, _)| *id);
                let todo = todo.filter(|id| !known.contains_key(id)).collect();
                let mut ahead = super::ahead::Ahead::new(repo, todo);
                // With merges, the walk goes on past the last commit of
                // each record until it holds every commit since them.
                let mut horizon: Option<Option<usize>> = None;
                for (id, _) in &l.commits {
                    if finder.done() && !whole {
                        if l.graph.is_none() {
                            break;
                        }
                        let h = *horizon.get_or_insert_with(|| l.horizon(&finder));
                        if h.is_none_or(|h| steps.len() > h) {
                            break;
                        }
                    }
                    let step = match known.remove(id) {
                        Some(st) => st,
                        None => ahead.next(*id)?,
                    };
                    finder.take(steps.len(), &step);
                    steps.push(step);
                }
                drop(ahead);
                let stored = crate::store::drift::Stored {
                    head,
                    prefix: repo.prefix.clone(),
                    complete: steps.len() == l.commits.len(),
                    steps,
                };
                crate::store::drift::save(ws, &stored);
                listing = Some(l);
                (stored.steps, stored.complete)
            }
        };
        let at: HashMap<ObjectId, usize> =
            steps.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        let first_merge = first_merge(&steps);
        // A walk that stopped early paints with the whole graph; a whole
        // one with its own steps, when first asked.
        let graph = std::cell::OnceCell::new();
        if let (false, Some(_)) = (complete, first_merge) {
            let l = match listing {
                Some(l) => l,
                None => Listing::of(repo, head)?,
            };
            if let Some(g) = l.graph {
                let _ = graph.set(g);
            }
        }
        Ok(History {
            steps,
            at,
            merges: first_merge.is_some(),
            complete,
            first_merge,
            last: finder.last,
            graph,
        })
    }

    /// The index of the newest commit that wrote `rel` (a root-relative
    /// path) as blob `id`, HEAD's, if one did: one of the paths the walk
    /// was asked to find, or any path once the walk is whole.
    ///
    /// Not merely the newest that changed it: when both sides of a merge
    /// rewrote a record and the merge kept one side's text, the other
    /// side's commit may be the newer, and what it wrote is not what HEAD
    /// holds (`git log -1 -- PATH` follows the side the merge took, too).
    pub(crate) fn last_change(&self, rel: &str, id: ObjectId) -> Option<usize> {
        match self.last.get(rel) {
            Some(i) => Some(*i),
            None => self.steps.iter().position(|s| writes(&s.changes, rel, id)),
        }
    }

    /// A history of no steps.
    pub(crate) fn empty() -> History {
        History {
            steps: Vec::new(),
            at: HashMap::default(),
            merges: false,
            complete: false,
            first_merge: None,
            last: HashMap::default(),
            graph: Default::default(),
        }
    }

    /// The commits reachable from HEAD but not from the commit at `index`
    /// (as indexes of the walk). Without merges before it, every commit
    /// walked before it; else found in the walked steps by
    /// [`Graph::since`] (it used to be a walk of the repository per commit
    /// asked: 20 s for a thousand records written in as many commits of a
    /// history of pull requests merged).
    pub(crate) fn since(&self, index: usize) -> Since {
        // Up to the first merge, the walk is one line of commits.
        if self.first_merge.is_none_or(|m| m >= index) {
            return Since::Before(index);
        }
        let graph = self
            .graph
            .get_or_init(|| Graph::of(self.steps.iter().map(|s| s.parents.as_slice()), &self.at));
        let n = self.steps.len();
        let mut bits = vec![0u64; n.div_ceil(64)];
        for i in graph.since(index) {
            // The walk held every commit since the records it was asked
            // for.
            debug_assert!(i < n);
            if i < n {
                bits[i / 64] |= 1 << (i % 64);
            }
        }
        Since::Among(bits.into())
    }
}

/// The commits since one ([`History::since`]): a set of indexes of the
/// walk, kept small (a history of 12k commits held 200 MB of them as
/// lists of indexes, one per record commit).
#[derive(Debug, Clone)]
pub(crate) enum Since {
    /// Those walked before this one.
    Before(usize),
    /// Those whose bit is set.
    Among(std::rc::Rc<[u64]>),
}

impl Since {
    /// Whether commit `i` (an index of the walk) is one of them.
    pub(crate) fn contains(&self, i: usize) -> bool {
        match self {
            Since::Before(n) => i < *n,
            Since::Among(bits) => bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1),
        }
    }
}

/// The commits of a walk as a graph: each one's parents among the steps
/// (a parent the walk does not hold, beyond a shallow clone's boundary,
/// is left out), and its generation (one more than its parents' highest,
/// 1 for a commit without parents): a commit's generation is higher than
/// each of its ancestors', whatever the commit dates say.
struct Graph {
    parents: Vec<Vec<u32>>,
    generation: Vec<u32>,
    /// [`Graph::since`]'s paint of each commit, all zero between calls
    /// (one allocation for the thousand records of a history).
    flags: std::cell::RefCell<Vec<u8>>,
}

impl Graph {
    /// The graph of commits given by their parents, in the walk's order
    /// (`at`: each commit's index).
    fn of<'p>(
        parents: impl Iterator<Item = &'p [ObjectId]>,
        at: &HashMap<ObjectId, usize>,
    ) -> Graph {
        let parents: Vec<Vec<u32>> = parents
            .map(|ps| {
                ps.iter()
                    .filter_map(|p| at.get(p).map(|&i| i as u32))
                    .collect()
            })
            .collect();
        // Depth first from every commit, a commit's generation set once
        // all its parents' are (no recursion: histories are deep).
        // A commit being worked on is marked so: parents that loop back to
        // it (a damaged or forged `.memlint/drift`; git cannot make a
        // loop) count as none instead of looping forever.
        const OPEN: u32 = u32::MAX;
        let mut generation = vec![0u32; parents.len()];
        let mut stack: Vec<(u32, bool)> = Vec::new();
        for start in 0..parents.len() as u32 {
            if generation[start as usize] != 0 {
                continue;
            }
            stack.push((start, false));
            while let Some((c, expanded)) = stack.pop() {
                let ci = c as usize;
                if expanded {
                    let highest = parents[ci]
                        .iter()
                        .map(|&p| generation[p as usize])
                        .filter(|&g| g != OPEN)
                        .max();
                    generation[ci] = highest.unwrap_or(0).saturating_add(1).min(OPEN - 1);
                    continue;
                }
                if generation[ci] != 0 {
                    continue;
                }
                generation[ci] = OPEN;
                stack.push((c, true));
                for &p in &parents[ci] {
                    if generation[p as usize] == 0 {
                        stack.push((p, false));
                    }
                }
            }
        }
        Graph {
            flags: std::cell::RefCell::new(vec![0; parents.len()]),
            parents,
            generation,
        }
    }

    /// The commits reachable from commit 0 (HEAD) but not from commit
    /// `index`, by falling index: both painted down their parents, highest
    /// generation first (so a commit is taken once all its children are),
    /// until every commit left to take is an ancestor of `index` (as git
    /// tells `A..B`, without walking the history below).
    fn since(&self, index: usize) -> Vec<usize> {
        use std::collections::BinaryHeap;
        let mut out = Vec::new();
        if index == 0 || index >= self.parents.len() {
            return out;
        }
        let mut flags = self.flags.borrow_mut();
        let mut paint = Paint {
            flags: &mut flags,
            met: Vec::new(),
            queue: BinaryHeap::new(),
            open: 0,
            generation: &self.generation,
        };
        paint.add(0, HEAD);
        paint.add(index as u32, HIDDEN);
        while paint.open > 0 {
            let Some((_, c)) = paint.queue.pop() else {
                break;
            };
            let f = paint.flags[c as usize];
            paint.flags[c as usize] |= TAKEN;
            if f == HEAD {
                paint.open -= 1;
                out.push(c as usize);
            }
            let flag = if f & HIDDEN != 0 { HIDDEN } else { HEAD };
            for &p in &self.parents[c as usize] {
                paint.add(p, flag);
            }
        }
        for c in std::mem::take(&mut paint.met) {
            paint.flags[c as usize] = 0;
        }
        out.sort_unstable_by(|a, b| b.cmp(a));
        out
    }
}

/// Every commit reachable from HEAD, newest first, with its parents; and
/// their graph when some commit has more than one.
pub(super) struct Listing {
    pub(super) commits: Vec<(ObjectId, Vec<ObjectId>)>,
    graph: Option<Graph>,
}

/// A walk begun before the records were known (see `early`): every commit
/// from `head`, and the steps of the newest of them.
pub(crate) struct Begun {
    pub(super) head: ObjectId,
    pub(super) listing: Listing,
    pub(super) steps: Vec<Step>,
}

impl Listing {
    pub(super) fn of(repo: &Repo, head: ObjectId) -> Result<Listing, GitError> {
        let commits = repo.commit_parents(head)?;
        let graph = commits.iter().any(|(_, p)| p.len() > 1).then(|| {
            let at = commits
                .iter()
                .enumerate()
                .map(|(i, (id, _))| (*id, i))
                .collect();
            Graph::of(commits.iter().map(|(_, p)| p.as_slice()), &at)
        });
        Ok(Listing { commits, graph })
    }

    /// The oldest commit (highest index) since any commit `finder` found,
    /// when there are merges; `None` when none is since any.
    fn horizon(&self, finder: &Finder) -> Option<usize> {
        // (Its own painting: the indexes here are the listing's.)
        let graph = self.graph.as_ref()?;
        let mut written: Vec<usize> = finder.last.values().copied().collect();
        written.sort_unstable();
        written.dedup();
        written
            .into_iter()
            .filter_map(|w| graph.since(w).first().copied())
            .max()
    }
}

/// Whether the walk `steps` stored for `head`, in which `finder` met every
/// record it looks for, holds every commit since each of them: always
/// when no merge comes before them; else told by the list of every commit
/// (kept in `listing` for the walk to go on with).
fn holds_all_since(
    repo: &Repo,
    head: ObjectId,
    steps: &[Step],
    finder: &Finder,
    listing: &mut Option<Listing>,
) -> Result<bool, GitError> {
    if first_merge(steps).is_none() {
        return Ok(true);
    }
    let l = Listing::of(repo, head)?;
    // The stored steps are the listing's first.
    let same = steps.len() <= l.commits.len()
        && steps
            .iter()
            .zip(&l.commits)
            .all(|(st, (id, _))| st.id == *id);
    let within = same && l.horizon(finder).is_none_or(|h| h < steps.len());
    *listing = Some(l);
    Ok(within)
}

/// The index of the first of `steps` with more than one parent.
fn first_merge(steps: &[Step]) -> Option<usize> {
    steps.iter().position(|s| s.parents.len() > 1)
}

/// Reachable from HEAD ([`Graph::since`]).
const HEAD: u8 = 1;
/// Reachable from the commit whose descendants are asked.
const HIDDEN: u8 = 2;
/// Taken off the queue.
const TAKEN: u8 = 4;

/// [`Graph::since`]'s painting: each commit met, with its flags; the
/// commits to take, highest generation first; how many of those are
/// reachable from HEAD alone so far.
struct Paint<'g> {
    flags: &'g mut [u8],
    /// The commits painted, to clear after.
    met: Vec<u32>,
    queue: std::collections::BinaryHeap<(u32, u32)>,
    open: usize,
    generation: &'g [u32],
}

impl Paint<'_> {
    /// Paints commit `c` with `flag`, queueing it when first met.
    fn add(&mut self, c: u32, flag: u8) {
        let f = &mut self.flags[c as usize];
        if *f == 0 {
            *f = flag;
            self.met.push(c);
            self.queue.push((self.generation[c as usize], c));
            if flag == HEAD {
                self.open += 1;
            }
        } else if *f & flag != flag {
            // Only a commit still queued counts as open (one taken can be
            // painted again only through parents that loop).
            if *f == HEAD {
                self.open -= 1;
            }
            *f |= flag;
        }
    }
}

/// Finds, one step after the other (newest first), the newest step that
/// wrote each path asked for as the blob asked for: each step is matched
/// from its smaller side (its changes looked up among the paths still
/// missing, or those paths searched in its changes).
pub(super) struct Finder<'n> {
    missing: HashMap<&'n str, ObjectId>,
    last: HashMap<String, usize>,
}

impl<'n> Finder<'n> {
    pub(super) fn new(needed: &[(&'n str, ObjectId)]) -> Self {
        Finder {
            missing: needed.iter().copied().collect(),
            last: HashMap::default(),
        }
    }

    /// Takes in step `i` of the walk.
    pub(super) fn take(&mut self, i: usize, step: &Step) {
        if self.missing.is_empty() {
            return;
        }
        if step.changes.len() <= self.missing.len() {
            for c in &step.changes {
                let wanted = self.missing.get(c.path.as_str());
                if wanted.is_some_and(|&id| c.new.is_some_and(|o| o.id == id)) {
                    self.missing.remove(c.path.as_str());
                    self.last.insert(c.path.clone(), i);
                }
            }
        } else {
            let last = &mut self.last;
            self.missing.retain(|p, id| {
                let wrote = writes(&step.changes, p, *id);
                if wrote {
                    last.insert(p.to_string(), i);
                }
                !wrote
            });
        }
    }

    /// Whether every path asked for was found.
    pub(super) fn done(&self) -> bool {
        self.missing.is_empty()
    }
}

/// Whether `changes` (sorted by path) hold `rel`.
pub(crate) fn touches(changes: &[Change], rel: &str) -> bool {
    changes
        .binary_search_by(|c| c.path.as_str().cmp(rel))
        .is_ok()
}

/// Whether `changes` (sorted by path) leave `rel` as blob `id`.
pub(crate) fn writes(changes: &[Change], rel: &str, id: ObjectId) -> bool {
    change_of(changes, rel).is_some_and(|c| c.new.is_some_and(|o| o.id == id))
}

/// The change of `rel` in `changes` (sorted by path).
pub(crate) fn change_of<'c>(changes: &'c [Change], rel: &str) -> Option<&'c Change> {
    changes
        .binary_search_by(|c| c.path.as_str().cmp(rel))
        .ok()
        .map(|i| &changes[i])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hashing::Set as HashSet;

    /// A history of `parents` (commit k's parents, as indexes; commit 0 is
    /// HEAD), its steps in the order given.
    fn graph_of(parents: &[Vec<usize>]) -> (Vec<Step>, HashMap<ObjectId, usize>) {
        let id = |k: usize| {
            let mut b = [0u8; 20];
            b[..8].copy_from_slice(&(k as u64 + 1).to_le_bytes());
            ObjectId::from_bytes_or_panic(&b)
        };
        let steps: Vec<Step> = parents
            .iter()
            .enumerate()
            .map(|(k, ps)| Step {
                id: id(k),
                seconds: 0,
                offset: 0,
                summary: String::new(),
                changes: Vec::new(),
                tree: id(0),
                boundary: false,
                parents: ps.iter().map(|&p| id(p)).collect(),
            })
            .collect();
        let at = steps.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        (steps, at)
    }

    /// The history of `parents` (see [`graph_of`]), as a walk with merges.
    fn history_of(parents: &[Vec<usize>]) -> History {
        let (steps, at) = graph_of(parents);
        History {
            first_merge: first_merge(&steps),
            merges: true,
            complete: true,
            steps,
            at,
            last: HashMap::default(),
            graph: Default::default(),
        }
    }

    /// The ancestors of `c`, itself included.
    fn ancestors(parents: &[Vec<usize>], c: usize) -> HashSet<usize> {
        let (mut seen, mut stack) = (HashSet::default(), vec![c]);
        while let Some(c) = stack.pop() {
            if seen.insert(c) {
                stack.extend(parents[c].iter().copied());
            }
        }
        seen
    }

    /// Parents that loop (a damaged or forged stored walk) neither hang
    /// the painting nor stop it answering.
    #[test]
    fn parents_in_a_loop_are_painted_without_hanging() {
        let parents = vec![vec![1], vec![2, 3], vec![1], vec![]];
        let history = history_of(&parents);
        for w in 0..4 {
            let since = history.since(w);
            assert!(!since.contains(w), "{w}");
        }
        assert!(history.since(3).contains(0));
    }

    proptest::proptest! {
        /// Whatever order the walk met the commits in (newest first by
        /// their dates, which may say a parent is newer than its child),
        /// the commits since one are those HEAD reaches and it does not.
        #[test]
        fn since_is_what_head_reaches_and_the_commit_does_not(
            edges in proptest::collection::vec((0usize..1000, 0usize..1000, proptest::bool::ANY), 2..40),
            dates in proptest::collection::vec(0u32..50, 40),
        ) {
            // A DAG: commit k's parents come after it (commit 0 is HEAD).
            let n = edges.len();
            let mut dag: Vec<Vec<usize>> = vec![Vec::new(); n];
            for (k, &(a, b, merge)) in edges.iter().enumerate().take(n - 1) {
                dag[k].push(k + 1 + a % (n - k - 1));
                if merge {
                    let p = k + 1 + b % (n - k - 1);
                    if !dag[k].contains(&p) {
                        dag[k].push(p);
                    }
                }
            }
            // The walk git and gix make: the newest commit met so far
            // first (the first met among equal dates).
            let mut order = Vec::new();
            let mut met = vec![false; n];
            let mut queue = std::collections::BinaryHeap::new();
            let mut seq = 0usize;
            queue.push((dates[0], std::cmp::Reverse(seq), 0usize));
            met[0] = true;
            while let Some((_, _, k)) = queue.pop() {
                order.push(k);
                for &p in &dag[k] {
                    if !met[p] {
                        met[p] = true;
                        seq += 1;
                        queue.push((dates[p], std::cmp::Reverse(seq), p));
                    }
                }
            }
            let mut place = vec![usize::MAX; n];
            for (i, &k) in order.iter().enumerate() {
                place[k] = i;
            }
            let parents: Vec<Vec<usize>> = order
                .iter()
                .map(|&k| dag[k].iter().map(|&p| place[p]).collect())
                .collect();
            let n = parents.len();
            let history = history_of(&parents);
            let all = ancestors(&parents, 0);
            for w in 0..n {
                let hidden = ancestors(&parents, w);
                let mut expected: Vec<usize> = all.difference(&hidden).copied().collect();
                expected.sort_unstable();
                let since = history.since(w);
                let found: Vec<usize> = (0..n + 70).filter(|&i| since.contains(i)).collect();
                proptest::prop_assert_eq!(found, expected, "w {}", w);
            }
        }
    }
}
