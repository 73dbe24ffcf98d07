//! The trie the pair search walks: symbol strings of at most 64 symbols,
//! Hyyrö's bit-parallel LCS vector carried down its paths, and the lower
//! bounds on the indel distance (bit walks, symbol histograms) that cut it.

/// For each byte, the ±1 walk over its bits (low bit first; a set bit steps
/// up, a clear bit down): the sum and the lowest of its 9 prefix sums.
pub(super) const WALK: [(i8, i8); 256] = {
    let mut table = [(0i8, 0i8); 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut sum, mut low) = (0i8, 0i8);
        let mut bit = 0;
        while bit < 8 {
            sum += if byte >> bit & 1 == 1 { 1 } else { -1 };
            if sum < low {
                low = sum;
            }
            bit += 1;
        }
        table[byte] = (sum, low);
        byte += 1;
    }
    table
};

/// The set bits of `v` below bit `i` (0 ≤ i ≤ 64).
#[inline]
pub(super) fn ones(v: u64, i: i32) -> i32 {
    if i >= 64 {
        v.count_ones() as i32
    } else {
        (v & ((1u64 << i) - 1)).count_ones() as i32
    }
}

/// The least value of 2·ones(v, i) − i for i in [a, b] (0 ≤ a ≤ b ≤ 64).
#[inline]
pub(super) fn walk_min(v: u64, a: i32, b: i32) -> i32 {
    let start = 2 * ones(v, a) - a;
    if a >= 64 || a == b {
        return start;
    }
    let span = b - a;
    // Bits past the span step up only, so they never lower the minimum.
    let w = if span >= 64 {
        v >> a
    } else {
        (v >> a) | (!0u64 << span)
    };
    let (mut sum, mut low) = (0i32, 0i32);
    let mut k = 0;
    while k < span {
        let (s, l) = WALK[(w >> k) as u8 as usize];
        low = low.min(sum + l as i32);
        sum += s as i32;
        k += 8;
    }
    start + low
}

/// A lower bound on the indel distance between a query of length `m` and
/// any string p·s with |p·s| − m in [dlo, dhi], from Hyyrö's bit vector `v`
/// of the query against the prefix p of length `p` (bits at and above m
/// set). LCS(q[..i], p) = i − ones(v, i), so with t = p − i,
/// D(q, p·s) = min_i D(q[..i], p) + D(q[i..], s)
///           ≥ min_i t + 2·ones(v, i) + |t − (|s| − m + p)|.
#[inline]
pub(super) fn indel_lower_bound(v: u64, m: i32, p: i32, dlo: i32, dhi: i32) -> i32 {
    let mut best = i32::MAX;
    // t ≥ dhi: 2p − dhi − 2·zeros(i), least at the largest such i.
    let ia = (p - dhi).min(m);
    if ia >= 0 {
        best = best.min(2 * p - dhi - 2 * (ia - ones(v, ia)));
    }
    // dlo ≤ t ≤ dhi: p + 2·ones(v, i) − i.
    let (a, b) = ((p - dhi).max(0), (p - dlo).min(m));
    if a <= b {
        best = best.min(p + walk_min(v, a, b));
    }
    // t < dlo: dlo + 2·ones(v, i), least at the smallest such i.
    let ic = (p - dlo + 1).max(0);
    if ic <= m {
        best = best.min(dlo + 2 * ones(v, ic));
    }
    best
}

/// A node of a [`Trie`]: the edge into it spells
/// `syms[label..label + label_len]` and ends at depth `depth`.
pub(super) struct Node {
    /// The first symbols of the label, so that scanning a node's children
    /// reads one contiguous run of memory.
    pub(super) head: [u8; 8],
    pub(super) label: u32,
    pub(super) label_len: u8,
    pub(super) depth: u8,
    /// Shortest and longest string in the subtree.
    pub(super) min_len: u8,
    pub(super) max_len: u8,
    /// The ids of the strings ending here (several when strings share
    /// their symbols): `ends..ends + end_count` of the trie's `ids`.
    pub(super) ends: u32,
    pub(super) end_count: u32,
    /// The strings of the subtree are `ends..last` of the trie's `ids`.
    pub(super) last: u32,
    /// The largest id in the subtree.
    pub(super) max_id: u32,
    /// The group shared by every string of the subtree, or [`MIXED`]: a
    /// walk skips a subtree of its query's own group at once.
    pub(super) group: u32,
    /// The children are `children..children + child_count`.
    pub(super) children: u32,
    pub(super) child_count: u32,
}

impl Node {
    pub(super) fn empty() -> Node {
        Node {
            head: [0; 8],
            label: 0,
            label_len: 0,
            depth: 0,
            min_len: 0,
            max_len: 0,
            ends: 0,
            end_count: 0,
            last: 0,
            max_id: 0,
            group: MIXED,
            children: 0,
            child_count: 0,
        }
    }
}

/// The group of a trie subtree whose strings are of several groups.
pub(super) const MIXED: u32 = u32::MAX;
/// The group of a query that skips no subtree (no subtree is of it).
pub(super) const NO_GROUP: u32 = u32::MAX - 1;

/// A path-compressed trie over symbol strings of at most 64 symbols.
pub(super) struct Trie {
    pub(super) nodes: Vec<Node>,
    pub(super) syms: Vec<u8>,
    /// The ids of the strings ending at each node, node by node: the
    /// strings in the order given, so that a subtree's are a range.
    pub(super) ids: Vec<u32>,
    /// String `k` of that order is `syms[offsets[k]..offsets[k + 1]]`.
    pub(super) offsets: Vec<u32>,
    /// And its [`Histogram`].
    pub(super) histograms: Vec<Histogram>,
}

/// How many times each symbol occurs in a string, symbols folded into 32
/// classes (by their low bits). One insertion or deletion changes one
/// count by one, so the L1 distance of two histograms is a lower bound on
/// the indel distance of their strings (folding only lowers it).
#[derive(Clone, Copy)]
pub(super) struct Histogram(pub(super) [u8; 32]);

impl Histogram {
    pub(super) fn of(s: &[u8]) -> Histogram {
        let mut h = [0u8; 32];
        // At most 64 symbols: no count overflows.
        s.iter().for_each(|&c| h[usize::from(c & 31)] += 1);
        Histogram(h)
    }

    #[inline(always)]
    pub(super) fn distance(&self, other: &Histogram) -> u32 {
        self.0
            .iter()
            .zip(&other.0)
            .map(|(a, b)| u32::from(a.abs_diff(*b)))
            .sum()
    }
}

impl Trie {
    /// The trie of `strings`: sorted (equal ones allowed), each with its id;
    /// string `id` is of group `groups[id]`.
    pub(super) fn new(strings: &[(&[u8], u32)], groups: &[u32]) -> Trie {
        let total = strings.iter().map(|(s, _)| s.len()).sum();
        let mut syms = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(strings.len() + 1);
        for (s, _) in strings {
            offsets.push(syms.len() as u32);
            syms.extend_from_slice(s);
        }
        offsets.push(syms.len() as u32);
        // The root spells nothing; its one child holds every string (and
        // the prefix they all share). A path-compressed trie has fewer
        // nodes than twice its strings.
        let mut root = Node::empty();
        root.children = 1;
        root.child_count = u32::from(!strings.is_empty());
        let mut nodes = Vec::with_capacity(2 * strings.len() + 2);
        nodes.extend([root, Node::empty()]);
        let mut trie = Trie {
            nodes,
            syms,
            ids: Vec::with_capacity(strings.len()),
            offsets: Vec::new(),
            histograms: strings.iter().map(|(s, _)| Histogram::of(s)).collect(),
        };
        if !strings.is_empty() {
            trie.fill(1, strings, &offsets, 0..strings.len(), 0, groups);
        }
        trie.offsets = offsets;
        trie
    }

    /// Makes node `at` hold `strings[range]`, which share their first
    /// `from` symbols (the parent's depth).
    pub(super) fn fill(
        &mut self,
        at: usize,
        strings: &[(&[u8], u32)],
        offsets: &[u32],
        range: std::ops::Range<usize>,
        from: usize,
        groups: &[u32],
    ) {
        let group = &strings[range.clone()];
        let (first, last) = (group[0].0, group[group.len() - 1].0);
        // Sorted: the first and last strings share the least prefix.
        let depth = first.iter().zip(last).take_while(|(a, b)| a == b).count();
        // Sorted: the strings ending here, all equal, come first.
        let ending = group.iter().take_while(|(s, _)| s.len() == depth).count();
        let node = &mut self.nodes[at];
        node.label = offsets[range.start] + from as u32;
        node.label_len = (depth - from) as u8;
        node.depth = depth as u8;
        for (slot, &c) in node.head.iter_mut().zip(&first[from..depth]) {
            *slot = c;
        }
        node.ends = self.ids.len() as u32;
        node.end_count = ending as u32;
        self.ids.extend(group[..ending].iter().map(|(_, id)| *id));
        // One child per run of equal symbols at `depth`, stored together.
        let run_end = |start: usize| {
            let c = strings[start].0[depth];
            start + strings[start..range.end].partition_point(|(s, _)| s[depth] == c)
        };
        let mut count = 0;
        let mut start = range.start + ending;
        while start < range.end {
            start = run_end(start);
            count += 1;
        }
        let base = self.nodes.len();
        self.nodes.extend((0..count).map(|_| Node::empty()));
        start = range.start + ending;
        for k in 0..count {
            let end = run_end(start);
            self.fill(base + k, strings, offsets, start..end, depth, groups);
            start = end;
        }
        // The subtree's lengths and largest id, from the strings ending
        // here and the children's.
        let (mut min_len, mut max_len, mut max_id) = match ending {
            0 => (u8::MAX, 0, 0),
            _ => (depth as u8, depth as u8, 0),
        };
        let mut shared: Option<u32> = None;
        let mut join = |g: u32| {
            shared = match shared {
                None => Some(g),
                Some(h) if h == g => Some(h),
                Some(_) => Some(MIXED),
            }
        };
        for (_, id) in &group[..ending] {
            max_id = max_id.max(*id);
            join(groups[*id as usize]);
        }
        for child in &self.nodes[base..base + count] {
            min_len = min_len.min(child.min_len);
            max_len = max_len.max(child.max_len);
            max_id = max_id.max(child.max_id);
            join(child.group);
        }
        let node = &mut self.nodes[at];
        node.last = self.ids.len() as u32;
        node.children = base as u32;
        node.child_count = count as u32;
        node.min_len = min_len;
        node.max_len = max_len;
        node.max_id = max_id;
        node.group = shared.unwrap_or(MIXED);
    }
}

/// One string searched for in a [`Trie`].
pub(super) struct Query<'a> {
    /// Only partners with a larger id are reported.
    pub(super) id: u32,
    pub(super) m: i32,
    /// Bit masks of where each symbol occurs in the query (in the trie's
    /// reading direction).
    pub(super) masks: &'a [u64],
    /// Partner lengths that can reach the ratio.
    pub(super) min_len: i32,
    pub(super) max_len: i32,
    /// `tau[l]`: the largest indel distance to a partner of length `l`.
    pub(super) tau: &'a [i32],
    /// The length of the query's first part (in the trie's reading
    /// direction): while the trie path is at most `part − budget` long, it
    /// must be within `budget` insertions and deletions of a prefix of
    /// `query[..part]`, and a string is reported only past a path within
    /// `budget` of the whole part (the part is anchored).
    pub(super) part: i32,
    pub(super) budget: i32,
    /// The query's [`Histogram`].
    pub(super) histogram: Histogram,
    /// Subtrees under the seeds with at most this many strings are not
    /// walked but checked string by string ([`check_subtree`]).
    pub(super) enumerate_up_to: u32,
    /// The query's group ([`NO_GROUP`] for none): partners of the same
    /// group are not looked for.
    pub(super) group: u32,
    /// The group of each string, by id.
    pub(super) groups: &'a [u32],
}

/// Where a walk starts.
#[derive(Clone, Copy)]
pub(super) enum Start<'s> {
    /// At the root.
    Root,
    /// At these nodes, where [`frontier`] found the query's first part
    /// anchored (walks of queries with the same first part share it).
    Seeds(&'s [u32]),
}

/// Pushes onto `out` the ids of trie strings within `q.tau` insertions and
/// deletions of the query: every such string that passes the first-part
/// condition, and possibly others. A depth-first walk carrying Hyyrö's
/// bit-parallel LCS vector, cut once [`indel_lower_bound`] exceeds what the
/// subtree allows.
pub(super) fn search(
    trie: &Trie,
    q: &Query,
    start: Start,
    stack: &mut Vec<(u32, u64, bool)>,
    out: &mut Vec<u32>,
) {
    // The walk counts bits at every step; baseline x86-64 has no POPCNT
    // instruction, so the walk is also compiled with it, for CPUs that
    // have it (all but the oldest).
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports POPCNT, checked just above.
        return unsafe { search_popcnt::<false>(trie, q, start, stack, out) };
    }
    search_walk::<false>(trie, q, start, stack, out);
}

/// Pushes onto `out` the nodes where a walk for the first part of a query
/// (`q` describes that part alone, with the smallest id and the widest
/// length range of the queries that share it) first finds the part
/// within `q.budget` insertions and deletions of the path: from them
/// [`search`] goes on for each query, and every string it finds from the
/// root passing the first-part condition lies under one of them.
pub(super) fn frontier(
    trie: &Trie,
    q: &Query,
    stack: &mut Vec<(u32, u64, bool)>,
    out: &mut Vec<u32>,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports POPCNT, checked just above.
        return unsafe { search_popcnt::<true>(trie, q, Start::Root, stack, out) };
    }
    search_walk::<true>(trie, q, Start::Root, stack, out);
}

/// [`search_walk`] compiled with the POPCNT instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn search_popcnt<const FRONTIER: bool>(
    trie: &Trie,
    q: &Query,
    start: Start,
    stack: &mut Vec<(u32, u64, bool)>,
    out: &mut Vec<u32>,
) {
    search_walk::<FRONTIER>(trie, q, start, stack, out);
}

#[inline(always)]
pub(super) fn search_walk<const FRONTIER: bool>(
    trie: &Trie,
    q: &Query,
    start: Start,
    stack: &mut Vec<(u32, u64, bool)>,
    out: &mut Vec<u32>,
) {
    let m = q.m;
    let high = if m == 64 { 0 } else { !0u64 << m };
    stack.clear();
    match start {
        // The first part is anchored once some prefix of the path is
        // within `budget` of it; until then, no path prefix has been.
        Start::Root => stack.push((0, !0u64, q.part <= q.budget)),
        Start::Seeds(seeds) => {
            for &c in seeds {
                let child = &trie.nodes[c as usize];
                if !FRONTIER && child.group == q.group {
                    continue;
                }
                if !FRONTIER && child.last - child.ends <= q.enumerate_up_to {
                    check_subtree(trie, q, child, high, out);
                    continue;
                }
                let from = child.depth as usize - child.label_len as usize;
                let at = child.label as usize - from;
                let mut v = !0u64;
                for &sym in &trie.syms[at..at + from] {
                    let u = v & q.masks[sym as usize];
                    v = (v.wrapping_add(u) | v.wrapping_sub(u)) | high;
                }
                visit::<FRONTIER>(trie, q, c, v, false, high, stack, out);
            }
        }
    }
    while let Some((n, v0, anchored0)) = stack.pop() {
        let parent = &trie.nodes[n as usize];
        for c in parent.children..parent.children + parent.child_count {
            visit::<FRONTIER>(trie, q, c, v0, anchored0, high, stack, out);
        }
    }
}

/// Subtrees of at most this many strings under a seed are not walked: each
/// of their strings is checked by [`check_subtree`]. Past the part
/// anchored at the seed the walk still branches at every node and cuts
/// late (the distance allowed is the whole query's); the histogram bound
/// rules out nearly every string at once, for a few instructions. (On the
/// generated records, about a fifth less time for the rule than walking
/// them; any bound from 1,000 up did as well.)
pub(super) const ENUMERATE_UP_TO: u32 = 4096;

/// What [`search_walk`] reports from the subtree of `node`, where the
/// query's first part is anchored (every string there passes that
/// condition): the strings with a larger id, a length the query allows and
/// an indel distance within `q.tau`, each checked on its own.
#[inline(always)]
pub(super) fn check_subtree(trie: &Trie, q: &Query, node: &Node, high: u64, out: &mut Vec<u32>) {
    let m = q.m;
    // Larger ids and allowed lengths first, without a branch per string
    // (ids come in no order in the backward trie), then the histograms.
    let mut picked = [0u32; 64];
    let mut k = node.ends as usize;
    let end = node.last as usize;
    while k < end {
        let upto = (k + picked.len()).min(end);
        let mut n = 0;
        for j in k..upto {
            let l = (trie.offsets[j + 1] - trie.offsets[j]) as i32;
            let id = trie.ids[j];
            let ok = (id > q.id)
                & (l >= q.min_len)
                & (l <= q.max_len)
                & (q.groups[id as usize] != q.group);
            picked[n] = j as u32;
            n += usize::from(ok);
        }
        for &j in &picked[..n] {
            let j = j as usize;
            let (from, to) = (trie.offsets[j] as usize, trie.offsets[j + 1] as usize);
            let l = (to - from) as i32;
            let tau = q.tau[l as usize];
            if q.histogram.distance(&trie.histograms[j]) > tau as u32 {
                continue;
            }
            let mut v = !0u64;
            for &sym in &trie.syms[from..to] {
                let u = v & q.masks[sym as usize];
                v = (v.wrapping_add(u) | v.wrapping_sub(u)) | high;
            }
            let lcs = m - (v & !high).count_ones() as i32;
            if m + l - 2 * lcs <= tau {
                out.push(trie.ids[j]);
            }
        }
        k = upto;
    }
}

/// One step of [`search_walk`]: along the label of node `c` from the
/// vector `v0` of its parent's path.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn visit<const FRONTIER: bool>(
    trie: &Trie,
    q: &Query,
    c: u32,
    v0: u64,
    anchored0: bool,
    high: u64,
    stack: &mut Vec<(u32, u64, bool)>,
    out: &mut Vec<u32>,
) {
    let m = q.m;
    let earliest_anchor = q.part - q.budget;
    let child = &trie.nodes[c as usize];
    let lo = (child.min_len as i32).max(q.min_len);
    let hi = (child.max_len as i32).min(q.max_len);
    if child.max_id <= q.id || lo > hi || child.group == q.group {
        return;
    }
    let tau = if FRONTIER { 0 } else { q.tau[hi as usize] };
    let mut v = v0;
    let mut anchored = anchored0;
    let mut p = child.depth as i32 - child.label_len as i32;
    let label_len = child.label_len as usize;
    for k in 0..label_len {
        let sym = match child.head.get(k) {
            Some(&s) => s,
            None => trie.syms[child.label as usize + k],
        };
        let u = v & q.masks[sym as usize];
        v = (v.wrapping_add(u) | v.wrapping_sub(u)) | high;
        p += 1;

        // D(q[..part], path) = p − part + 2·ones(v, part); only a path
        // within `budget` of the part in length can be within `budget`.
        if !anchored && (p - q.part).abs() <= q.budget {
            anchored = p - q.part + 2 * ones(v, q.part) <= q.budget;
            if FRONTIER && anchored {
                out.push(c);
                return;
            }
        }
        // The bound costs several times the step: along a label
        // it is checked every fourth symbol and at the label's end
        // (the walk goes a few symbols past a dead end at most, and
        // every candidate is checked exactly anyway).
        if (k + 1) % BOUND_EVERY != 0 && k + 1 != label_len {
            continue;
        }
        // Unanchored, the path must still be able to anchor: every
        // longer path is at least min_i D(q[..i], path) from the
        // part, i ≤ part. Past where the part could first be anchored,
        // it must also be within reach of the whole query.
        let keep = (anchored
            || p <= q.budget
            || p + walk_min(v, (p - q.budget).min(q.part), (p + q.budget).min(q.part)) <= q.budget)
            && (FRONTIER
                || p <= earliest_anchor
                || indel_lower_bound(v, m, p, lo - m, hi - m) <= tau);
        if !keep {
            return;
        }
    }
    if !FRONTIER && anchored && child.end_count > 0 && (q.min_len..=q.max_len).contains(&p) {
        let lcs = m - (v & !high).count_ones() as i32;
        if m + p - 2 * lcs <= q.tau[p as usize] {
            let ends = child.ends as usize..(child.ends + child.end_count) as usize;
            out.extend(trie.ids[ends].iter().filter(|&&id| id > q.id));
        }
    }
    if child.child_count > 0 {
        stack.push((c, v, anchored));
    }
}

/// How often [`search_walk`] checks its bound along a label, in symbols
/// (4 was best on the generated decisions and knowledge, about 12% faster
/// than every symbol).
pub(super) const BOUND_EVERY: usize = 4;

/// Whether a symbol string fits the 64-bit vectors of the trie walk.
pub(super) fn fits(s: &[u8]) -> bool {
    s.len() <= 64
}

/// The symbol strings of many strings in one buffer: string `i` is
/// `buf[at[i]..at[i + 1]]`.
pub(super) struct Symbols {
    pub(super) buf: Vec<u8>,
    pub(super) at: Vec<u32>,
    /// The symbol of `-`, when some string has one.
    pub(super) hyphen: Option<u8>,
}

impl Symbols {
    /// Dense symbols for the characters of `strings`, numbered in the order
    /// of the characters, so that strings sorted by character are sorted by
    /// symbol. Past 255 distinct characters the greatest share symbol 255,
    /// which only weakens the cut (matches are checked exactly).
    pub(super) fn of(strings: &[&str]) -> Symbols {
        let mut ascii = [false; 128];
        let mut other: Vec<char> = Vec::new();
        for s in strings {
            if s.is_ascii() {
                s.bytes().for_each(|b| ascii[usize::from(b)] = true);
            } else {
                for c in s.chars() {
                    match u8::try_from(c) {
                        Ok(b) if b.is_ascii() => ascii[usize::from(b)] = true,
                        _ => other.push(c),
                    }
                }
            }
        }
        other.sort_unstable();
        other.dedup();
        let mut rank = [0u8; 128];
        let mut next = 0usize;
        for (b, seen) in ascii.iter().enumerate() {
            if *seen {
                rank[b] = next.min(255) as u8;
                next += 1;
            }
        }
        // Every character past ASCII is in `other`.
        let beyond = |c: char| (next + other.binary_search(&c).unwrap_or(0)).min(255) as u8;
        let mut buf = Vec::with_capacity(strings.iter().map(|s| s.len()).sum());
        let mut at = Vec::with_capacity(strings.len() + 1);
        at.push(0);
        for s in strings {
            if s.is_ascii() {
                buf.extend(s.bytes().map(|b| rank[usize::from(b)]));
            } else {
                buf.extend(s.chars().map(|c| match u8::try_from(c) {
                    Ok(b) if b.is_ascii() => rank[usize::from(b)],
                    _ => beyond(c),
                }));
            }
            at.push(buf.len() as u32);
        }
        let hyphen = ascii[usize::from(b'-')].then_some(rank[usize::from(b'-')]);
        Symbols { buf, at, hyphen }
    }

    pub(super) fn len(&self) -> usize {
        self.at.len() - 1
    }

    pub(super) fn get(&self, i: usize) -> &[u8] {
        &self.buf[self.at[i] as usize..self.at[i + 1] as usize]
    }

    /// Every string reversed.
    pub(super) fn reversed(&self) -> Symbols {
        let mut buf = Vec::with_capacity(self.buf.len());
        for i in 0..self.len() {
            buf.extend(self.get(i).iter().rev());
        }
        Symbols {
            buf,
            at: self.at.clone(),
            hyphen: self.hyphen,
        }
    }

    /// The ids of the strings in the order of their symbols (equal ones by
    /// id), as [`Trie::new`] takes them: the order they come in when that
    /// is already it.
    pub(super) fn sorted_ids(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = (0..self.len() as u32).collect();
        let get = |i: u32| self.get(i as usize);
        if !ids.windows(2).all(|w| get(w[0]) <= get(w[1])) {
            ids.sort_by(|&a, &b| get(a).cmp(get(b)));
        }
        ids
    }

    /// The strings that fit a machine word in the order of `ids`, each
    /// with its id.
    pub(super) fn trie_input(&self, ids: &[u32]) -> Vec<(&[u8], u32)> {
        ids.iter()
            .map(|&i| (self.get(i as usize), i))
            .filter(|(s, _)| fits(s))
            .collect()
    }
}
