//! `slug/*` rules on one record.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// `slug/mismatch`: a `slug` key differs from the file stem.
pub fn mismatch(r: &Record, out: &mut Sink) {
    let Some((slug, span)) = r.str_field("slug") else {
        return;
    };
    let stem = r.stem();
    if slug != stem {
        out.emit(
            Rule::SlugMismatch,
            span,
            format!("`slug` is `{slug}` but the file is named `{stem}.md`; make them equal (or delete `slug`)"),
        );
    }
}

/// Why a file stem is not a slug, for `slug/format`.
pub fn stem_problem(stem: &str) -> Option<String> {
    if crate::model::kind::is_slug(stem) {
        return None;
    }
    let n = stem.chars().count();
    let why = if n > 64 {
        format!("it is {n} characters long (at most 64)")
    } else if stem.chars().any(|c| c.is_uppercase()) {
        "it has uppercase letters".to_string()
    } else if stem.contains('_') {
        "it has `_` (use `-`)".to_string()
    } else if stem.contains(' ') {
        "it has spaces".to_string()
    } else {
        "a slug is lowercase letters and digits joined by single `-`".to_string()
    };
    let suggestion = suggest(stem);
    // A name holding a credential gets no suggestion: lowercased, the
    // credential would no longer be recognised, and masked.
    let secret = !crate::syntax::secrets::find(stem).is_empty();
    let hint = if crate::model::kind::is_slug(&suggestion) && suggestion != stem && !secret {
        format!("; rename it to `{suggestion}.md`")
    } else {
        String::new()
    };
    Some(format!("file name `{stem}` is not a slug: {why}{hint}"))
}

/// A slug close to `stem`.
fn suggest(stem: &str) -> String {
    let mut out = String::new();
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let trimmed: String = out.trim_end_matches('-').chars().take(64).collect();
    trimmed.trim_end_matches('-').to_string()
}

/// The ratio of Python's `difflib.SequenceMatcher(None, a, b).ratio()` (no
/// junk heuristics, which only apply to strings of 200 characters or more):
/// twice the matched characters over the total length.
pub fn sequence_ratio<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * matched(a, b) as f64 / total as f64
}

/// [`sequence_ratio`] of two strings, in either order, the greater.
fn str_ratio(a: &str, b: &str) -> f64 {
    if a.is_ascii() && b.is_ascii() {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        return sequence_ratio(a, b).max(sequence_ratio(b, a));
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    sequence_ratio(&a, &b).max(sequence_ratio(&b, &a))
}

fn matched<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut total = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    let mut row = vec![0usize; b.len() + 1];
    let mut prev = vec![0usize; b.len() + 1];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        // Longest common block, earliest in `a`, then earliest in `b`.
        let (mut bi, mut bj, mut bk) = (alo, blo, 0);
        prev[blo..=bhi].iter_mut().for_each(|x| *x = 0);
        for (i, ai) in a.iter().enumerate().take(ahi).skip(alo) {
            row[blo..=bhi].iter_mut().for_each(|x| *x = 0);
            for j in blo..bhi {
                if *ai == b[j] {
                    // prev[j] holds the run ending at (i - 1, j - 1).
                    let k = prev[j] + 1;
                    row[j + 1] = k;
                    if k > bk {
                        bi = i + 1 - k;
                        bj = j + 1 - k;
                        bk = k;
                    }
                }
            }
            std::mem::swap(&mut row, &mut prev);
        }
        if bk == 0 {
            continue;
        }
        total += bk;
        queue.push((alo, bi, blo, bj));
        queue.push((bi + bk, ahi, bj + bk, bhi));
    }
    total
}

/// The slug without a version-like suffix (`-2`, `-v2`, `-new`, `-old`,
/// `-fix`, …), when it has one.
pub fn strip_suffix(slug: &str) -> Option<&str> {
    const WORDS: [&str; 10] = [
        "new", "old", "fix", "fixed", "copy", "final", "draft", "tmp", "bak", "alt",
    ];
    let (base, last) = slug.rsplit_once('-')?;
    let numeric = !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit());
    let version =
        last.len() > 1 && last.starts_with('v') && last[1..].bytes().all(|b| b.is_ascii_digit());
    (numeric || version || WORDS.contains(&last))
        .then_some(base)
        .filter(|b| !b.is_empty())
}

/// The key under which `slug/similar` joins slugs that are equal but for a
/// version-like suffix (up to two: `use-gix-v2-new` → `use-gix`); a slug
/// without one is its own key.
pub fn suffix_key(slug: &str) -> &str {
    match strip_suffix(slug) {
        Some(base) => strip_suffix(base).unwrap_or(base),
        None => slug,
    }
}

/// For each byte, the ±1 walk over its bits (low bit first; a set bit steps
/// up, a clear bit down): the sum and the lowest of its 9 prefix sums.
const WALK: [(i8, i8); 256] = {
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
fn ones(v: u64, i: i32) -> i32 {
    if i >= 64 {
        v.count_ones() as i32
    } else {
        (v & ((1u64 << i) - 1)).count_ones() as i32
    }
}

/// The least value of 2·ones(v, i) − i for i in [a, b] (0 ≤ a ≤ b ≤ 64).
#[inline]
fn walk_min(v: u64, a: i32, b: i32) -> i32 {
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
fn indel_lower_bound(v: u64, m: i32, p: i32, dlo: i32, dhi: i32) -> i32 {
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
struct Node {
    /// The first symbols of the label, so that scanning a node's children
    /// reads one contiguous run of memory.
    head: [u8; 8],
    label: u32,
    label_len: u8,
    depth: u8,
    /// Shortest and longest string in the subtree.
    min_len: u8,
    max_len: u8,
    /// The ids of the strings ending here (several when strings share
    /// their symbols): `ends..ends + end_count` of the trie's `ids`.
    ends: u32,
    end_count: u32,
    /// The strings of the subtree are `ends..last` of the trie's `ids`.
    last: u32,
    /// The largest id in the subtree.
    max_id: u32,
    /// The group shared by every string of the subtree, or [`MIXED`]: a
    /// walk skips a subtree of its query's own group at once.
    group: u32,
    /// The children are `children..children + child_count`.
    children: u32,
    child_count: u32,
}

impl Node {
    fn empty() -> Node {
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
const MIXED: u32 = u32::MAX;
/// The group of a query that skips no subtree (no subtree is of it).
const NO_GROUP: u32 = u32::MAX - 1;

/// A path-compressed trie over symbol strings of at most 64 symbols.
struct Trie {
    nodes: Vec<Node>,
    syms: Vec<u8>,
    /// The ids of the strings ending at each node, node by node: the
    /// strings in the order given, so that a subtree's are a range.
    ids: Vec<u32>,
    /// String `k` of that order is `syms[offsets[k]..offsets[k + 1]]`.
    offsets: Vec<u32>,
    /// And its [`Histogram`].
    histograms: Vec<Histogram>,
}

/// How many times each symbol occurs in a string, symbols folded into 32
/// classes (by their low bits). One insertion or deletion changes one
/// count by one, so the L1 distance of two histograms is a lower bound on
/// the indel distance of their strings (folding only lowers it).
#[derive(Clone, Copy)]
struct Histogram([u8; 32]);

impl Histogram {
    fn of(s: &[u8]) -> Histogram {
        let mut h = [0u8; 32];
        // At most 64 symbols: no count overflows.
        s.iter().for_each(|&c| h[usize::from(c & 31)] += 1);
        Histogram(h)
    }

    #[inline(always)]
    fn distance(&self, other: &Histogram) -> u32 {
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
    fn new(strings: &[(&[u8], u32)], groups: &[u32]) -> Trie {
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
    fn fill(
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
struct Query<'a> {
    /// Only partners with a larger id are reported.
    id: u32,
    m: i32,
    /// Bit masks of where each symbol occurs in the query (in the trie's
    /// reading direction).
    masks: &'a [u64],
    /// Partner lengths that can reach the ratio.
    min_len: i32,
    max_len: i32,
    /// `tau[l]`: the largest indel distance to a partner of length `l`.
    tau: &'a [i32],
    /// The length of the query's first part (in the trie's reading
    /// direction): while the trie path is at most `part − budget` long, it
    /// must be within `budget` insertions and deletions of a prefix of
    /// `query[..part]`, and a string is reported only past a path within
    /// `budget` of the whole part (the part is anchored).
    part: i32,
    budget: i32,
    /// The query's [`Histogram`].
    histogram: Histogram,
    /// Subtrees under the seeds with at most this many strings are not
    /// walked but checked string by string ([`check_subtree`]).
    enumerate_up_to: u32,
    /// The query's group ([`NO_GROUP`] for none): partners of the same
    /// group are not looked for.
    group: u32,
    /// The group of each string, by id.
    groups: &'a [u32],
}

/// Where a walk starts.
#[derive(Clone, Copy)]
enum Start<'s> {
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
fn search(
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
fn frontier(trie: &Trie, q: &Query, stack: &mut Vec<(u32, u64, bool)>, out: &mut Vec<u32>) {
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
fn search_walk<const FRONTIER: bool>(
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
const ENUMERATE_UP_TO: u32 = 4096;

/// What [`search_walk`] reports from the subtree of `node`, where the
/// query's first part is anchored (every string there passes that
/// condition): the strings with a larger id, a length the query allows and
/// an indel distance within `q.tau`, each checked on its own.
#[inline(always)]
fn check_subtree(trie: &Trie, q: &Query, node: &Node, high: u64, out: &mut Vec<u32>) {
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
fn visit<const FRONTIER: bool>(
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
const BOUND_EVERY: usize = 4;

/// Whether a symbol string fits the 64-bit vectors of the trie walk.
fn fits(s: &[u8]) -> bool {
    s.len() <= 64
}

/// The symbol strings of many strings in one buffer: string `i` is
/// `buf[at[i]..at[i + 1]]`.
struct Symbols {
    buf: Vec<u8>,
    at: Vec<u32>,
    /// The symbol of `-`, when some string has one.
    hyphen: Option<u8>,
}

impl Symbols {
    /// Dense symbols for the characters of `strings`, numbered in the order
    /// of the characters, so that strings sorted by character are sorted by
    /// symbol. Past 255 distinct characters the greatest share symbol 255,
    /// which only weakens the cut (matches are checked exactly).
    fn of(strings: &[&str]) -> Symbols {
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

    fn len(&self) -> usize {
        self.at.len() - 1
    }

    fn get(&self, i: usize) -> &[u8] {
        &self.buf[self.at[i] as usize..self.at[i + 1] as usize]
    }

    /// Every string reversed.
    fn reversed(&self) -> Symbols {
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
    fn sorted_ids(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = (0..self.len() as u32).collect();
        let get = |i: u32| self.get(i as usize);
        if !ids.windows(2).all(|w| get(w[0]) <= get(w[1])) {
            ids.sort_by(|&a, &b| get(a).cmp(get(b)));
        }
        ids
    }

    /// The strings that fit a machine word in the order of `ids`, each
    /// with its id.
    fn trie_input(&self, ids: &[u32]) -> Vec<(&[u8], u32)> {
        ids.iter()
            .map(|&i| (self.get(i as usize), i))
            .filter(|(s, _)| fits(s))
            .collect()
    }
}

/// The pairs (i < j) of `strings` of different `groups` whose
/// [`sequence_ratio`], in either order, reaches `ratio`: [`search_pairs`]
/// with every candidate checked, which the tests compare with all pairs.
#[cfg(test)]
fn similar_pairs(
    strings: &[&str],
    ratio: f64,
    enumerate_up_to: u32,
    groups: &[u32],
) -> Vec<(usize, usize)> {
    let mut all: Vec<(usize, usize)> = Vec::new();
    let verify = |_: &Vec<(usize, usize)>, i: usize, near: &[u32]| -> Vec<(usize, usize)> {
        near.iter()
            .map(|&j| j as usize)
            .filter(|&j| str_ratio(strings[i], strings[j]) >= ratio)
            .map(|j| (i.min(j), i.max(j)))
            .collect()
    };
    search_pairs(
        strings,
        ratio,
        enumerate_up_to,
        groups,
        &mut all,
        &verify,
        &mut |all, found| all.extend(found),
    );
    all.sort_unstable();
    all.dedup();
    all
}

/// The exact check of [`search_pairs`]: the pairs it accepts of a query
/// and its candidates.
type Verify<'a, S> = dyn Fn(&S, usize, &[u32]) -> Vec<(usize, usize)> + Sync + 'a;
/// How [`search_pairs`] folds a round's accepted pairs into its state.
type Merge<'a, S> = dyn FnMut(&mut S, Vec<(usize, usize)>) + 'a;

/// Looks for the pairs of `strings` whose [`sequence_ratio`], in either
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
/// anchors are checked one by one ([`ENUMERATE_UP_TO`] in use; the tests
/// also try walking all and checking all, which must agree).
///
/// Pairs of the same `groups` entry (one per string) are already known to
/// share a cluster: they are neither checked nor reported, so that slugs
/// equal but for a numeric suffix (`note-1` … `note-99999`, each within
/// reach of dozens of others) cost no exact comparison and no memory.
fn search_pairs<S: Sync>(
    strings: &[&str],
    ratio: f64,
    enumerate_up_to: u32,
    groups: &[u32],
    state: &mut S,
    verify: &Verify<'_, S>,
    merge: &mut Merge<'_, S>,
) {
    use rayon::prelude::*;
    let syms = Symbols::of(strings);
    let forward = Trie::new(&syms.trie_input(&syms.sorted_ids()), groups);
    let reversed = syms.reversed();
    // The backward walks go in the order of the reversed strings, so that
    // consecutive queries walk nearby parts of their trie.
    let by_end = reversed.sorted_ids();
    let backward = Trie::new(&reversed.trie_input(&by_end), groups);
    // Partner lengths l with 2·min(m, l)/(m + l) ≥ r; the small slack
    // keeps float rounding from losing a boundary case. The tries hold no
    // string past 64 symbols (those are compared with every other), so
    // neither does any walk look for one.
    let lengths = |m: usize| {
        let min_len = ((ratio * m as f64) / (2.0 - ratio) - 1e-9).ceil().max(0.0) as i32;
        let max_len = ((2.0 - ratio) * m as f64 / ratio + 1e-9).floor() as i32;
        (min_len, max_len.min(64))
    };
    let tau = move |m: usize, l: usize| ((1.0 - ratio) * (m + l) as f64 + 1e-9).floor() as i32;
    // What depends on a query's length alone, for every length that fits
    // a machine word: its partner lengths, and `tau[l]` for each.
    let by_len: Vec<(i32, i32, Vec<i32>)> = (0..=64)
        .map(|m| {
            let (min_len, max_len) = lengths(m);
            let taus = (0..=max_len.max(0) as usize).map(|l| tau(m, l)).collect();
            (min_len, max_len, taus)
        })
        .collect();
    // The split of a query into a first part the forward walk anchors and
    // the rest, which the backward walk anchors: at the hyphen nearest the
    // middle, so that slugs sharing words share parts (and the frontier
    // of each part is walked once), else the middle. Any split is exact.
    let split = |i: usize| -> usize {
        let q = syms.get(i);
        let m = q.len();
        let Some(h) = syms.hyphen else { return m / 2 };
        q.iter()
            .enumerate()
            .filter(|(_, c)| **c == h)
            .map(|(k, _)| k)
            .min_by_key(|&k| (2 * k).abs_diff(m))
            .unwrap_or(m / 2)
    };
    // The length of query `i`'s first part in a direction, and its budget.
    let first_part = |i: usize, backwards: bool| -> (usize, i32) {
        let m = syms.get(i).len();
        let (_, max_len) = lengths(m);
        let tau_max = tau(m, max_len.max(0) as usize);
        let s = split(i);
        if backwards {
            (m - s, tau_max - tau_max / 2 - 1)
        } else {
            (s, tau_max / 2)
        }
    };
    struct Scratch {
        masks: Vec<u64>,
        stack: Vec<(u32, u64, bool)>,
        near: Vec<u32>,
        seeds: Vec<u32>,
    }
    // Looks up query `i` with its first part `(part, budget)`, starting where
    // `start` says.
    let probe = |s: &mut Scratch,
                 state: &S,
                 i: usize,
                 backwards: bool,
                 (part, budget): (usize, i32),
                 start: Start|
     -> Vec<(usize, usize)> {
        let q = syms.get(i);
        let m = q.len();
        if !fits(q) {
            if backwards {
                return Vec::new();
            }
            // Too long for one machine word: compared with every other
            // string (slugs are at most 64 characters, so this is rare).
            let all: Vec<u32> = (0..strings.len())
                .filter(|&j| j != i && (fits(syms.get(j)) || j > i))
                .filter(|&j| groups[i] != groups[j])
                .map(|j| j as u32)
                .collect();
            return verify(state, i, &all);
        }
        let (min_len, max_len, taus) = &by_len[m];
        s.near.clear();
        let trie = if backwards { &backward } else { &forward };
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
            enumerate_up_to,
            group: groups[i],
            groups,
        };
        search(trie, &query, start, &mut s.stack, &mut s.near);
        for &c in q {
            s.masks[usize::from(c)] = 0;
        }
        s.near.retain(|&j| groups[j as usize] != groups[i]);
        verify(state, i, &s.near)
    };
    let init = || Scratch {
        masks: vec![0u64; 256],
        stack: Vec::new(),
        near: Vec::new(),
        seeds: Vec::new(),
    };
    // The walks of one direction. Queries with the same first part share
    // its frontier, walked once; groups go in the order of
    // their first strings in that direction, so that consecutive walks
    // visit nearby parts of the trie.
    let walks = |backwards: bool, state: &mut S, merge: &mut Merge<'_, S>| {
        let (trie, dir) = if backwards {
            (&backward, &reversed)
        } else {
            (&forward, &syms)
        };
        let parts: Vec<(usize, i32)> = (0..strings.len())
            .map(|i| first_part(i, backwards))
            .collect();
        // What the queries of a group share: the symbols of the first
        // part. Their budgets may differ (by the queries' lengths); the
        // group walks with the largest. A path within a smaller budget of
        // the part is within the larger, so its strings are still found,
        // with some more that the exact check then rules out.
        let key = |i: u32| &dir.get(i as usize)[..parts[i as usize].0];
        let walk_order: Vec<u32> = if backwards {
            by_end.clone()
        } else {
            (0..strings.len() as u32).collect()
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
                .map_init(init, |s, g| {
                    let members = &order[g.clone()];
                    let i0 = members[0] as usize;
                    let part = parts[i0].0;
                    let budget = members
                        .iter()
                        .map(|&i| parts[i as usize].1)
                        .max()
                        .unwrap_or(-1);
                    // A part within its budget of the empty path anchors at
                    // the root: then there is no frontier. A group of one has
                    // one too: walked once all the same, its subtrees are then
                    // checked string by string.
                    let seeded = fits(syms.get(i0)) && (part as i32) > budget && budget >= 0;
                    if !seeded {
                        return members
                            .iter()
                            .flat_map(|&i| {
                                probe(
                                    s,
                                    seen,
                                    i as usize,
                                    backwards,
                                    parts[i as usize],
                                    Start::Root,
                                )
                            })
                            .collect::<Vec<_>>();
                    }
                    let head = &dir.get(i0)[..part];
                    for (k, &c) in head.iter().enumerate() {
                        s.masks[usize::from(c)] |= 1 << k;
                    }
                    let (mut lo, mut hi) = (i32::MAX, 0);
                    for &i in members {
                        let (a, b) = lengths(syms.get(i as usize).len());
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
                        enumerate_up_to,
                        // The members' groups may differ: nothing is skipped.
                        group: NO_GROUP,
                        groups,
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
                            probe(
                                s,
                                seen,
                                i as usize,
                                backwards,
                                (part, budget),
                                Start::Seeds(&seeds),
                            )
                        })
                        .collect::<Vec<_>>();
                    s.seeds = seeds;
                    out
                })
                .flatten_iter()
                .collect();
            merge(state, found);
            round *= 2;
        }
    };
    walks(false, state, merge);
    walks(true, state, merge);
}

/// Clusters of near-duplicate slugs (each sorted, clusters sorted).
pub fn similar_clusters(slugs: &[&str], ratio: f64) -> Vec<Vec<String>> {
    let mut sorted: Vec<&str> = slugs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parent: Vec<usize> = (0..sorted.len()).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let union = |p: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (find(p, a), find(p, b));
        if ra != rb {
            p[ra.max(rb)] = ra.min(rb);
        }
    };
    // Equal but for a version-like suffix: joined to the slug named by the
    // key, else to the first slug with that key.
    let mut by_base: crate::model::hashing::Map<&str, usize> = Default::default();
    by_base.reserve(sorted.len());
    for (i, s) in sorted.iter().enumerate() {
        by_base.entry(s).or_insert(i);
    }
    for (i, s) in sorted.iter().enumerate() {
        let key = suffix_key(s);
        if key == *s {
            continue;
        }
        match by_base.get(key).copied() {
            Some(j) if j != i => union(&mut parent, i, j),
            _ => {
                by_base.insert(key, i);
            }
        }
    }
    // The pair search skips what these joined, and each round of it what
    // the rounds before joined: once a large cluster is one, its pairs
    // need no exact check (20,000 slugs of one cluster: 44 s to check them
    // all).
    let groups: Vec<u32> = (0..sorted.len())
        .map(|i| find(&mut parent, i) as u32)
        .collect();
    struct Joined {
        parent: Vec<usize>,
        /// Each string's cluster as the round began.
        roots: Vec<u32>,
    }
    let mut joined = Joined {
        parent,
        roots: groups.clone(),
    };
    let verify = |c: &Joined, i: usize, near: &[u32]| -> Vec<(usize, usize)> {
        // The clusters `i` has joined this round: one pair into each is enough.
        let mut into: Vec<u32> = vec![c.roots[i]];
        let mut out = Vec::new();
        for &j in near {
            let root = c.roots[j as usize];
            if !into.contains(&root) && str_ratio(sorted[i], sorted[j as usize]) >= ratio {
                into.push(root);
                out.push((i, j as usize));
            }
        }
        out
    };
    search_pairs(
        &sorted,
        ratio,
        ENUMERATE_UP_TO,
        &groups,
        &mut joined,
        &verify,
        &mut |c, found| {
            if found.is_empty() {
                return;
            }
            for (i, j) in found {
                union(&mut c.parent, i, j);
            }
            for k in 0..c.roots.len() {
                c.roots[k] = find(&mut c.parent, k) as u32;
            }
        },
    );
    let mut parent = joined.parent;
    // Most slugs are alone: only the members of clusters are copied.
    let roots: Vec<usize> = (0..sorted.len()).map(|i| find(&mut parent, i)).collect();
    let mut size = vec![0u32; sorted.len()];
    roots.iter().for_each(|&r| size[r] += 1);
    let mut groups: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
    for (slug, &r) in sorted.iter().zip(&roots) {
        if size[r] > 1 {
            groups.entry(r).or_default().push(slug.to_string());
        }
    }
    let mut out: Vec<Vec<String>> = groups.into_values().filter(|g| g.len() > 1).collect();
    out.iter_mut().for_each(|g| g.sort());
    out.sort();
    out
}

/// Most other members a `slug/similar` message names; the rest are
/// counted. Naming them all made a cluster of n slugs n² bytes of output
/// (20,000 `note-N` records: gigabytes).
pub const SIMILAR_NAMED: usize = 5;

/// `slug/similar`: near-duplicate slugs of one kind, reported once per
/// cluster on each member after the first in sorted order, naming the first
/// [`SIMILAR_NAMED`] others and counting the rest.
pub fn similar(view: &super::workspace::View, out: &mut super::workspace::WsSink) {
    // The clusters are the costliest cross-record work: skipped when off.
    if !super::workspace::enabled(view.config, Rule::SlugSimilar) {
        return;
    }
    for kind in crate::model::kind::Kind::ALL
        .into_iter()
        .filter(|k| k.has_slug())
    {
        let clusters = view.similar_clusters(kind);
        if clusters.is_empty() {
            continue;
        }
        // The first record of each slug, found once (not a scan per member).
        let mut paths: crate::model::hashing::Map<&str, &str> = Default::default();
        for e in view.records.iter().filter(|e| e.info.kind == Some(kind)) {
            paths.entry(e.slug).or_insert(e.path);
        }
        for cluster in &clusters {
            for (n, member) in cluster.iter().enumerate().skip(1) {
                let Some(path) = paths.get(member.as_str()) else {
                    continue;
                };
                let others = cluster
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != n)
                    .map(|(_, s)| s.as_str());
                out.emit(
                    Rule::SlugSimilar,
                    path,
                    None,
                    format!(
                        "{kind} `{member}` looks like a near-duplicate of {}; merge them or replace one with the other",
                        named_list(others, cluster.len() - 1, SIMILAR_NAMED)
                    ),
                );
            }
        }
    }
}

/// `a`, `b` and `c`, or `a`, `b`, `c` and 17 more when `count` (the length
/// of `names`) exceeds `most`.
pub fn named_list<'s>(names: impl Iterator<Item = &'s str>, count: usize, most: usize) -> String {
    let shown: Vec<String> = names.take(most).map(|s| format!("`{s}`")).collect();
    let rest = count - shown.len();
    match shown.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, init)) if rest == 0 => format!("{} and {last}", init.join(", ")),
        Some(_) => format!("{} and {rest} more", shown.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratio(a: &str, b: &str) -> f64 {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        sequence_ratio(&a, &b)
    }

    #[test]
    fn matches_difflib() {
        // Values from Python's difflib.SequenceMatcher(None, a, b).ratio().
        assert!((ratio("abcd", "bcde") - 0.75).abs() < 1e-9);
        assert!((ratio("use-gix", "use-gix-v2") - 0.8235294117647058).abs() < 1e-9);
        assert!((ratio("pin-rayon-index", "pin-rayon-indexes") - 0.9375).abs() < 1e-9);
        assert!((ratio("qabxcd", "abycdf") - 0.6666666666666666).abs() < 1e-9);
    }

    #[test]
    fn the_smallest_ratio_allowed_needs_no_huge_tables() {
        // Every partner length up to the longest string that fits is
        // looked for, not up to what the ratio alone would allow.
        let clusters = similar_clusters(&["a-b", "c-d", "xyz"], 1e-300);
        assert_eq!(clusters, vec![vec!["a-b".to_string(), "c-d".to_string()]]);
    }

    #[test]
    fn suffixes() {
        assert_eq!(strip_suffix("use-gix-v2"), Some("use-gix"));
        assert_eq!(strip_suffix("use-gix-2"), Some("use-gix"));
        assert_eq!(strip_suffix("use-gix-new"), Some("use-gix"));
        assert_eq!(strip_suffix("use-gix"), None);
    }

    #[test]
    fn indel_bound_never_exceeds_the_distance() {
        let mut next = numbers(11);
        for _ in 0..2000 {
            let q: Vec<u8> = (0..1 + next() % 64).map(|_| (next() % 3) as u8).collect();
            let s: Vec<u8> = (0..next() % 70).map(|_| (next() % 3) as u8).collect();
            // lcs[p][i]: LCS of s[..p] and q[..i].
            let mut lcs = vec![vec![0i32; q.len() + 1]; s.len() + 1];
            for p in 1..=s.len() {
                for i in 1..=q.len() {
                    lcs[p][i] = if s[p - 1] == q[i - 1] {
                        lcs[p - 1][i - 1] + 1
                    } else {
                        lcs[p - 1][i].max(lcs[p][i - 1])
                    };
                }
            }
            let m = q.len() as i32;
            let mut masks = [0u64; 3];
            for (k, &c) in q.iter().enumerate() {
                masks[c as usize] |= 1 << k;
            }
            let high = if m == 64 { 0 } else { !0u64 << m };
            let distance = m + s.len() as i32 - 2 * lcs[s.len()][q.len()];
            let delta = s.len() as i32 - m;
            let mut v = !0u64;
            for (p, &c) in s.iter().enumerate() {
                let u = v & masks[c as usize];
                v = (v.wrapping_add(u) | v.wrapping_sub(u)) | high;
                let p = p + 1;
                let (lo, hi) = (delta - (next() % 3) as i32, delta + (next() % 3) as i32);
                assert!(indel_lower_bound(v, m, p as i32, lo, hi) <= distance);
                assert_eq!(m - (v & !high).count_ones() as i32, lcs[p][q.len()]);
                // The distance of s[..p] to the closest prefix of q[..half].
                let half = next() % (q.len() + 1);
                let best = (0..=half).map(|i| (i + p) as i32 - 2 * lcs[p][i]).min();
                assert_eq!(Some(p as i32 + walk_min(v, 0, half as i32)), best);
            }
        }
    }

    /// Every pair of `slugs` at `ratio` or above, by comparing all pairs.
    fn naive_pairs(slugs: &[String], ratios: &[f64]) -> Vec<Vec<(usize, usize)>> {
        let chars: Vec<Vec<char>> = slugs.iter().map(|s| s.chars().collect()).collect();
        let mut out = vec![Vec::new(); ratios.len()];
        for i in 0..chars.len() {
            for j in i + 1..chars.len() {
                let r =
                    sequence_ratio(&chars[i], &chars[j]).max(sequence_ratio(&chars[j], &chars[i]));
                for (k, ratio) in ratios.iter().enumerate() {
                    if r >= *ratio {
                        out[k].push((i, j));
                    }
                }
            }
        }
        out
    }

    fn same_pairs_as_naive(mut slugs: Vec<String>, min_pairs_at_09: usize) {
        slugs.sort();
        slugs.dedup();
        let ratios = [0.95, 0.9, 0.85, 0.8, 0.7, 0.5, 1.0];
        let naive = naive_pairs(&slugs, &ratios);
        let refs: Vec<&str> = slugs.iter().map(String::as_str).collect();
        let distinct: Vec<u32> = (0..refs.len() as u32).collect();
        let at_09 = naive[1].len();
        for (ratio, expected) in ratios.iter().zip(naive) {
            // Walked all the way, checked one by one under every seed, and
            // the mix of both the rule uses.
            for enumerate_up_to in [0, u32::MAX, 8] {
                let found = similar_pairs(&refs, *ratio, enumerate_up_to, &distinct);
                for (i, j) in &expected {
                    assert!(
                        found.contains(&(*i, *j)),
                        "missed {} ~ {} at {ratio} (up to {enumerate_up_to})",
                        slugs[*i],
                        slugs[*j]
                    );
                }
                assert_eq!(
                    found, expected,
                    "extra pairs at {ratio} (up to {enumerate_up_to})"
                );
            }
        }
        assert!(at_09 >= min_pairs_at_09, "too few near pairs ({at_09})");
        // Grouped by their first three characters (so that whole subtrees
        // of the forward trie are of one group, and some of the backward):
        // the pairs across groups, no fewer, no more.
        let groups: Vec<u32> = refs
            .iter()
            .map(|s| {
                let head: String = s.chars().take(3).collect();
                refs.iter().position(|t| t.starts_with(&head)).unwrap_or(0) as u32
            })
            .collect();
        let across = naive_pairs(&slugs, &[0.9, 0.7]);
        for (ratio, expected) in [0.9, 0.7].iter().zip(across) {
            let expected: Vec<(usize, usize)> = expected
                .into_iter()
                .filter(|&(i, j)| groups[i] != groups[j])
                .collect();
            for enumerate_up_to in [0, u32::MAX, 8] {
                let found = similar_pairs(&refs, *ratio, enumerate_up_to, &groups);
                assert_eq!(
                    found, expected,
                    "grouped at {ratio} (up to {enumerate_up_to})"
                );
            }
        }
    }

    #[test]
    fn similar_pairs_skip_pairs_of_one_group() {
        let slugs = ["note-1", "note-2", "note-3", "notes-1", "other"];
        let distinct = [0, 1, 2, 3, 4];
        let all = similar_pairs(&slugs, 0.8, ENUMERATE_UP_TO, &distinct);
        assert!(all.contains(&(0, 1)) && all.contains(&(0, 3)), "{all:?}");
        // The first three joined already: only pairs across groups remain.
        let grouped = similar_pairs(&slugs, 0.8, ENUMERATE_UP_TO, &[0, 0, 0, 3, 4]);
        let expected: Vec<(usize, usize)> = all
            .iter()
            .copied()
            .filter(|&(i, j)| !(i < 3 && j < 3))
            .collect();
        assert_eq!(grouped, expected);
    }

    #[test]
    fn numeric_suffixes_form_one_cluster_whatever_their_number() {
        let slugs: Vec<String> = (0..3000).map(|i| format!("note-{i}")).collect();
        let refs: Vec<&str> = slugs.iter().map(String::as_str).collect();
        let clusters = similar_clusters(&refs, 0.9);
        assert_eq!(clusters.len(), 1);
        assert_eq!(clusters[0].len(), 3000);
        // Suffixes on suffixes join through the slug their key names.
        let clusters = similar_clusters(&["a-2", "a-2-3-4", "b"], 0.99);
        assert_eq!(
            clusters,
            vec![vec!["a-2".to_string(), "a-2-3-4".to_string()]]
        );
    }

    /// The clusters by definition: every pair compared, suffixes joined
    /// to the slug their key names or else to each other.
    fn naive_clusters(slugs: &[&str], ratio: f64) -> Vec<Vec<String>> {
        let mut sorted: Vec<&str> = slugs.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let n = sorted.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(p: &mut [usize], x: usize) -> usize {
            if p[x] != x {
                p[x] = find(p, p[x]);
            }
            p[x]
        }
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (sorted[i], sorted[j]);
                let (ka, kb) = (suffix_key(a), suffix_key(b));
                let suffixed = ka != a && kb != b && ka == kb;
                if suffixed || ka == b || kb == a || str_ratio(a, b) >= ratio {
                    let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                    parent[ri.max(rj)] = ri.min(rj);
                }
            }
        }
        let mut groups: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
        for (i, s) in sorted.iter().enumerate() {
            let r = find(&mut parent, i);
            groups.entry(r).or_default().push(s.to_string());
        }
        let mut out: Vec<Vec<String>> = groups.into_values().filter(|g| g.len() > 1).collect();
        out.sort();
        out
    }

    #[test]
    fn clusters_are_the_naive_clusters() {
        // Big clusters (numbered slugs with and without a suffix rule,
        // settled in the first rounds), small ones and lone slugs.
        let mut slugs: Vec<String> = (0..250)
            .map(|i| format!("use-the-cache-layer-{i:05}x"))
            .collect();
        slugs.extend((0..150).map(|i| format!("note-{i}")));
        slugs.extend((0..150).map(|i| format!("notes-{i}")));
        slugs.extend(["a-2", "a-2-3-4", "a-new", "b-v2", "b"].map(String::from));
        let words = [
            "pin", "rayon", "index", "cache", "walk", "lock", "use", "gix", "parse",
        ];
        let mut base = |next: &mut dyn FnMut() -> usize| {
            let n = 1 + next() % 4;
            (0..n)
                .map(|_| words[next() % words.len()])
                .collect::<Vec<_>>()
                .join("-")
        };
        slugs.extend(mutated(&mut base, 400, 3));
        let refs: Vec<&str> = slugs.iter().map(String::as_str).collect();
        for ratio in [0.9, 0.8] {
            assert_eq!(
                similar_clusters(&refs, ratio),
                naive_clusters(&refs, ratio),
                "at {ratio}"
            );
        }
    }

    #[test]
    fn similar_pairs_past_255_distinct_characters() {
        // Past 255 distinct characters the greatest share one symbol, so
        // `X1b` sorts before `X2a` by character (X1 < X2) but after it by
        // symbol when X1 and X2 both read as the shared one: the trie's
        // input must be sorted again.
        let cjk = |k: u32| char::from_u32(0x4E00 + k).unwrap_or('x');
        let mut slugs = vec!["!C".to_string(), "aB".into(), "aC".into(), "aD".into()];
        slugs.extend((0..300u32).map(|k| format!("!{}", cjk(k))));
        slugs.extend([
            format!("{}b", cjk(298)),
            format!("{}a", cjk(299)),
            format!("{}b", cjk(299)),
        ]);
        let refs: Vec<&str> = slugs.iter().map(String::as_str).collect();
        let syms = Symbols::of(&refs);
        let n = slugs.len();
        assert_eq!(syms.get(n - 3)[0], 255);
        assert!(syms.get(n - 3) > syms.get(n - 2), "not the case meant");
        same_pairs_as_naive(slugs, 0);
    }

    /// A deterministic pseudo-random number source.
    fn numbers(mut seed: u64) -> impl FnMut() -> usize {
        move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        }
    }

    /// Some strings of `base`, each either new or an earlier one with a
    /// few characters inserted, deleted or replaced.
    fn mutated(
        base: &mut dyn FnMut(&mut dyn FnMut() -> usize) -> String,
        n: usize,
        seed: u64,
    ) -> Vec<String> {
        let mut next = numbers(seed);
        let alphabet: Vec<char> = "abcdefghijklmnopqrstuvwxyz0123456789-".chars().collect();
        let mut out: Vec<String> = Vec::new();
        while out.len() < n {
            let mut s: Vec<char> = if !out.is_empty() && next().is_multiple_of(2) {
                out[next() % out.len()].chars().collect()
            } else {
                base(&mut next).chars().collect()
            };
            for _ in 0..next() % 4 {
                let at = next() % (s.len() + 1);
                let c = alphabet[next() % alphabet.len()];
                match next() % 3 {
                    0 if at < s.len() => {
                        s.remove(at);
                    }
                    1 => s.insert(at, c),
                    _ if at < s.len() => s[at] = c,
                    _ => {}
                }
            }
            out.push(s.into_iter().collect());
        }
        out
    }

    #[test]
    fn similar_pairs_are_the_naive_pairs_on_word_slugs() {
        // Words of a small vocabulary, some non-ASCII, some strings over 64
        // characters, so every path of the search is taken.
        let words = [
            "pin", "rayon", "index", "cache", "walk", "lock", "use", "gix", "parse", "yaml",
            "mmap", "reads", "a", "file", "cli", "é", "日本",
        ];
        for seed in 0..2 {
            let mut base = |next: &mut dyn FnMut() -> usize| {
                let n = 1 + next() % 7;
                let mut s: Vec<&str> = (0..n).map(|_| words[next() % words.len()]).collect();
                if next().is_multiple_of(4) {
                    s.push(["s", "x", "v2", "2", "new"][next() % 5]);
                }
                let s = s.join("-");
                if next().is_multiple_of(40) {
                    s.repeat(1 + 70 / s.len())
                } else {
                    s
                }
            };
            same_pairs_as_naive(mutated(&mut base, 200, seed), 15);
        }
    }

    #[test]
    fn similar_pairs_are_the_naive_pairs_on_generated_slugs() {
        // Like the benchmark generator's: verb, object and component drawn
        // from small vocabularies, so slugs share long prefixes and
        // suffixes; all share one first letter too.
        let verbs = ["adopt", "add", "avoid", "allow", "audit", "apply"];
        let objects = [
            "a-lock-file",
            "a-config-file",
            "activity-logs",
            "alias-bombs",
            "atomic-renames",
            "a-watch-mode",
            "absolute-paths",
        ];
        let components = [
            "cli",
            "cache",
            "parser",
            "sync-job",
            "search",
            "telemetry",
            "rule-engine",
            "ci-pipeline",
            "lock-manager",
        ];
        let mut base = |next: &mut dyn FnMut() -> usize| {
            format!(
                "{}-{}-{}",
                verbs[next() % verbs.len()],
                objects[next() % objects.len()],
                components[next() % components.len()]
            )
        };
        same_pairs_as_naive(mutated(&mut base, 300, 5), 20);
    }
}
