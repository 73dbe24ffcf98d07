//! The pair search: which strings may reach a ratio with which, found with
//! two tries (forward and reversed), the exact check left to the caller.

use crate::syntax::similar::trie::{
    fits, frontier, search, Histogram, Query, Start, Symbols, Trie, NO_GROUP,
};

/// The exact check of [`search_pairs`]: the pairs it accepts of a query
/// and its candidates.
pub(super) type Verify<'a, S> = dyn Fn(&S, usize, &[u32]) -> Vec<(usize, usize)> + Sync + 'a;
/// How [`search_pairs`] folds a round's accepted pairs into its state.
pub(super) type Merge<'a, S> = dyn FnMut(&mut S, Vec<(usize, usize)>) + 'a;

/// Looks for the pairs of `strings` whose [`sequence_ratio`](super::ratio::sequence_ratio), in either
/// order, reaches `ratio`, and leaves the exact check to `verify`: it gets
/// `state`, a query and the candidates found for it (strings of another
/// group that the bounds below did not rule out; a pair may come twice),
/// and gives the pairs it accepts, which `merge` then folds into `state`.
/// The queries go in rounds of growing size, so that `verify` can skip
/// what earlier rounds settled.
///
/// difflib's matches never exceed the longest common subsequence, so a
/// pair at ratio r has 2·LCS ≥ r·(m + l): the strings are at most
/// τ = ⌊(1 − r)(m + l)⌋ insertions and deletions apart. Each string is
/// looked up in a trie of all of them, and in a trie of all of them
/// reversed, cutting branches by a bound on that distance. Split the query
/// in two parts: an alignment within τ spends at most ⌊τ/2⌋ on the first
/// part or else at most τ − ⌊τ/2⌋ − 1 on the second, so the forward walk
/// may demand the one of the first part and the backward walk the other of
/// the second, which keeps both walks near the query. The split is at the
/// hyphen nearest the middle: slugs made of the same words then share
/// parts, and the walk that finds where a part anchors is shared by every
/// query with that part. Below where it anchors, a small subtree is not
/// walked: its strings are checked one by one, most ruled out by how often
/// each symbol occurs (a lower bound on the distance). Exact: `verify`
/// checks the survivors with difflib's ratio itself. Sorted strings are
/// the fast case: the forward walk then skips every subtree of smaller ids
/// at once.
///
/// Subtrees of at most `enumerate_up_to` strings under where a part
/// anchors are checked one by one ([`ENUMERATE_UP_TO`](super::trie::ENUMERATE_UP_TO) in use; the tests
/// also try walking all and checking all, which must agree).
///
/// Pairs of the same `groups` entry (one per string) are already known to
/// share a cluster: they are neither checked nor reported, so that slugs
/// equal but for a numeric suffix (`note-1` … `note-99999`, each within
/// reach of dozens of others) cost no exact comparison and no memory.
pub(super) fn search_pairs<S: Sync>(
    strings: &[&str],
    ratio: f64,
    enumerate_up_to: u32,
    groups: &[u32],
    state: &mut S,
    verify: &Verify<'_, S>,
    merge: &mut Merge<'_, S>,
) {
    let search = PairSearch::new(strings, ratio, enumerate_up_to, groups);
    search.walks(false, state, verify, merge);
    search.walks(true, state, verify, merge);
}

/// What every walk of one search shares: the symbol strings, forward and
/// reversed, a trie of each, and what depends on a query's length alone.
struct PairSearch<'a> {
    /// How many strings there are.
    n: usize,
    ratio: f64,
    enumerate_up_to: u32,
    groups: &'a [u32],
    syms: Symbols,
    forward: Trie,
    reversed: Symbols,
    /// The ids in the order of the reversed strings.
    by_end: Vec<u32>,
    backward: Trie,
    /// For every length that fits a machine word: its partner lengths, and
    /// `tau[l]` for each.
    by_len: Vec<(i32, i32, Vec<i32>)>,
}

/// A walking thread's buffers, reused from query to query.
struct Scratch {
    masks: Vec<u64>,
    stack: Vec<(u32, u64, bool)>,
    near: Vec<u32>,
    seeds: Vec<u32>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            masks: vec![0u64; 256],
            stack: Vec::new(),
            near: Vec::new(),
            seeds: Vec::new(),
        }
    }
}

impl<'a> PairSearch<'a> {
    fn new(strings: &[&str], ratio: f64, enumerate_up_to: u32, groups: &'a [u32]) -> Self {
        let syms = Symbols::of(strings);
        let forward = Trie::new(&syms.trie_input(&syms.sorted_ids()), groups);
        let reversed = syms.reversed();
        // The backward walks go in the order of the reversed strings, so that
        // consecutive queries walk nearby parts of their trie.
        let by_end = reversed.sorted_ids();
        let backward = Trie::new(&reversed.trie_input(&by_end), groups);
        let mut search = PairSearch {
            n: strings.len(),
            ratio,
            enumerate_up_to,
            groups,
            syms,
            forward,
            reversed,
            by_end,
            backward,
            by_len: Vec::new(),
        };
        search.by_len = (0..=64)
            .map(|m| {
                let (min_len, max_len) = search.lengths(m);
                let taus = (0..=max_len.max(0) as usize)
                    .map(|l| search.tau(m, l))
                    .collect();
                (min_len, max_len, taus)
            })
            .collect();
        search
    }

    /// Partner lengths l with 2·min(m, l)/(m + l) ≥ r; the small slack
    /// keeps float rounding from losing a boundary case. The tries hold no
    /// string past 64 symbols (those are compared with every other), so
    /// neither does any walk look for one.
    fn lengths(&self, m: usize) -> (i32, i32) {
        let ratio = self.ratio;
        let min_len = ((ratio * m as f64) / (2.0 - ratio) - 1e-9).ceil().max(0.0) as i32;
        let max_len = ((2.0 - ratio) * m as f64 / ratio + 1e-9).floor() as i32;
        (min_len, max_len.min(64))
    }

    /// τ: the most insertions and deletions apart two strings of lengths
    /// `m` and `l` at the ratio may be.
    fn tau(&self, m: usize, l: usize) -> i32 {
        ((1.0 - self.ratio) * (m + l) as f64 + 1e-9).floor() as i32
    }

    /// The split of a query into a first part the forward walk anchors and
    /// the rest, which the backward walk anchors: at the hyphen nearest the
    /// middle, so that slugs sharing words share parts (and the frontier
    /// of each part is walked once), else the middle. Any split is exact.
    fn split(&self, i: usize) -> usize {
        let q = self.syms.get(i);
        let m = q.len();
        let Some(h) = self.syms.hyphen else {
            return m / 2;
        };
        q.iter()
            .enumerate()
            .filter(|(_, c)| **c == h)
            .map(|(k, _)| k)
            .min_by_key(|&k| (2 * k).abs_diff(m))
            .unwrap_or(m / 2)
    }

    /// The length of query `i`'s first part in a direction, and its budget.
    fn first_part(&self, i: usize, backwards: bool) -> (usize, i32) {
        let m = self.syms.get(i).len();
        let (_, max_len) = self.lengths(m);
        let tau_max = self.tau(m, max_len.max(0) as usize);
        let s = self.split(i);
        if backwards {
            (m - s, tau_max - tau_max / 2 - 1)
        } else {
            (s, tau_max / 2)
        }
    }

    /// The strings and the trie of a direction.
    fn direction(&self, backwards: bool) -> (&Trie, &Symbols) {
        if backwards {
            (&self.backward, &self.reversed)
        } else {
            (&self.forward, &self.syms)
        }
    }

    /// Looks up query `i` with its first part `(part, budget)`, starting
    /// where `start` says, and gives the pairs `verify` accepts.
    #[allow(clippy::too_many_arguments)]
    fn probe<S>(
        &self,
        s: &mut Scratch,
        state: &S,
        verify: &Verify<'_, S>,
        i: usize,
        backwards: bool,
        (part, budget): (usize, i32),
        start: Start,
    ) -> Vec<(usize, usize)> {
        let groups = self.groups;
        let q = self.syms.get(i);
        let m = q.len();
        if !fits(q) {
            if backwards {
                return Vec::new();
            }
            // Too long for one machine word: compared with every other
            // string (slugs are at most 64 characters, so this is rare).
            let all: Vec<u32> = (0..self.n)
                .filter(|&j| j != i && (fits(self.syms.get(j)) || j > i))
                .filter(|&j| groups[i] != groups[j])
                .map(|j| j as u32)
                .collect();
            return verify(state, i, &all);
        }
        let (min_len, max_len, taus) = &self.by_len[m];
        s.near.clear();
        let (trie, _) = self.direction(backwards);
        if budget < 0 {
            return Vec::new();
        }
        for (k, &c) in q.iter().enumerate() {
            s.masks[usize::from(c)] |= 1 << if backwards { m - 1 - k } else { k };
        }
        let query = Query {
            id: i as u32,
            m: m as i32,
            masks: &s.masks,
            min_len: *min_len,
            max_len: *max_len,
            tau: taus,
            part: part as i32,
            budget,
            histogram: Histogram::of(q),
            enumerate_up_to: self.enumerate_up_to,
            group: groups[i],
            groups,
        };
        search(trie, &query, start, &mut s.stack, &mut s.near);
        for &c in q {
            s.masks[usize::from(c)] = 0;
        }
        s.near.retain(|&j| groups[j as usize] != groups[i]);
        verify(state, i, &s.near)
    }

    /// The queries of a direction grouped by the symbols of their first
    /// part: `order` holds each group's members in turn, group `g` being
    /// `order[starts[g]..starts[g + 1]]`. Groups go in the order of their
    /// first strings in that direction, so that consecutive walks visit
    /// nearby parts of the trie.
    fn grouped(&self, backwards: bool, parts: &[(usize, i32)]) -> (Vec<u32>, Vec<usize>) {
        let (_, dir) = self.direction(backwards);
        // What the queries of a group share: the symbols of the first
        // part. Their budgets may differ (by the queries' lengths); the
        // group walks with the largest. A path within a smaller budget of
        // the part is within the larger, so its strings are still found,
        // with some more that the exact check then rules out.
        let key = |i: u32| &dir.get(i as usize)[..parts[i as usize].0];
        let walk_order: Vec<u32> = if backwards {
            self.by_end.clone()
        } else {
            (0..self.n as u32).collect()
        };
        // Groups numbered as they first come in that order (a hash per
        // string, not a sort of them all), then laid out by a counting
        // sort, each group's members in that order.
        let mut numbers: crate::model::hashing::Map<&[u8], u32> = Default::default();
        numbers.reserve(walk_order.len());
        let group_of: Vec<u32> = walk_order
            .iter()
            .map(|&i| {
                let next = numbers.len() as u32;
                *numbers.entry(key(i)).or_insert(next)
            })
            .collect();
        let mut starts = vec![0usize; numbers.len() + 1];
        group_of.iter().for_each(|&g| starts[g as usize + 1] += 1);
        for g in 1..starts.len() {
            starts[g] += starts[g - 1];
        }
        let mut order = vec![0u32; walk_order.len()];
        let mut fill = starts.clone();
        for (&i, &g) in walk_order.iter().zip(&group_of) {
            order[fill[g as usize]] = i;
            fill[g as usize] += 1;
        }
        (order, starts)
    }

    /// The walks of one direction. Queries with the same first part share
    /// its frontier, walked once ([`PairSearch::grouped`]).
    fn walks<S: Sync>(
        &self,
        backwards: bool,
        state: &mut S,
        verify: &Verify<'_, S>,
        merge: &mut Merge<'_, S>,
    ) {
        use rayon::prelude::*;
        let parts: Vec<(usize, i32)> = (0..self.n).map(|i| self.first_part(i, backwards)).collect();
        let (order, starts) = self.grouped(backwards, &parts);
        // Rounds of 256 queries, then twice as many each time: a large
        // cluster is settled in the first rounds, and the rest of its
        // pairs are then skipped by `verify`. A round is walked in tasks of
        // one group's queries each, at most TASK of them (a group of
        // thousands would be one round and one thread).
        const TASK: usize = 512;
        let (mut group, mut at, mut round) = (0, 0, 256);
        while group + 1 < starts.len() {
            let mut tasks: Vec<std::ops::Range<usize>> = Vec::new();
            let mut left = round;
            while left > 0 && group + 1 < starts.len() {
                let end = starts[group + 1];
                let take = (end - at).min(left).min(TASK);
                tasks.push(at..at + take);
                (at, left) = (at + take, left - take);
                if at == end {
                    group += 1;
                }
            }
            let seen: &S = state;
            let found: Vec<(usize, usize)> = tasks
                .par_iter()
                .map_init(Scratch::new, |s, g| {
                    self.walk_group(s, seen, verify, backwards, &parts, &order[g.clone()])
                })
                .flatten_iter()
                .collect();
            merge(state, found);
            round *= 2;
        }
    }

    /// The queries `members` of one group (one first part): the frontier
    /// of their part walked once, then each query from there.
    fn walk_group<S>(
        &self,
        s: &mut Scratch,
        seen: &S,
        verify: &Verify<'_, S>,
        backwards: bool,
        parts: &[(usize, i32)],
        members: &[u32],
    ) -> Vec<(usize, usize)> {
        let (trie, dir) = self.direction(backwards);
        let i0 = members[0] as usize;
        let part = parts[i0].0;
        let budget = members
            .iter()
            .map(|&i| parts[i as usize].1)
            .max()
            .unwrap_or(-1);
        // A part within its budget of the empty path anchors at the root:
        // then there is no frontier. A group of one has one too: walked once
        // all the same, its subtrees are then checked string by string.
        let seeded = fits(self.syms.get(i0)) && (part as i32) > budget && budget >= 0;
        if !seeded {
            return members
                .iter()
                .flat_map(|&i| {
                    let i = i as usize;
                    self.probe(s, seen, verify, i, backwards, parts[i], Start::Root)
                })
                .collect();
        }
        let head = &dir.get(i0)[..part];
        for (k, &c) in head.iter().enumerate() {
            s.masks[usize::from(c)] |= 1 << k;
        }
        let (mut lo, mut hi) = (i32::MAX, 0);
        for &i in members {
            let (a, b) = self.lengths(self.syms.get(i as usize).len());
            lo = lo.min(a);
            hi = hi.max(b);
        }
        let fq = Query {
            id: *members.iter().min().unwrap_or(&0),
            m: part as i32,
            masks: &s.masks,
            min_len: lo,
            max_len: hi,
            tau: &[],
            part: part as i32,
            budget,
            histogram: Histogram([0; 32]),
            enumerate_up_to: self.enumerate_up_to,
            // The members' groups may differ: nothing is skipped.
            group: NO_GROUP,
            groups: self.groups,
        };
        let mut seeds = std::mem::take(&mut s.seeds);
        seeds.clear();
        frontier(trie, &fq, &mut s.stack, &mut seeds);
        for &c in head {
            s.masks[usize::from(c)] = 0;
        }
        let out = members
            .iter()
            .flat_map(|&i| {
                let start = Start::Seeds(&seeds);
                self.probe(
                    s,
                    seen,
                    verify,
                    i as usize,
                    backwards,
                    (part, budget),
                    start,
                )
            })
            .collect();
        s.seeds = seeds;
        out
    }
}
