//! `slug/*` rules on one record.

use super::{Record, Sink};

/// `slug/mismatch`: a `slug` key differs from the file stem.
pub fn mismatch(r: &Record, out: &mut Sink) {
    let Some((slug, span)) = r.str_field("slug") else {
        return;
    };
    let stem = r.stem();
    if slug != stem {
        out.emit(
            "slug/mismatch",
            span,
            format!("`slug` is `{slug}` but the file is named `{stem}.md`; make them equal (or delete `slug`)"),
        );
    }
}

/// Why a file stem is not a slug, for `slug/format`.
pub fn stem_problem(stem: &str) -> Option<String> {
    if crate::record::is_slug(stem) {
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
    let hint = if crate::record::is_slug(&suggestion) && suggestion != stem {
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
pub fn sequence_ratio(a: &[char], b: &[char]) -> f64 {
    let total = a.len() + b.len();
    if total == 0 {
        return 1.0;
    }
    2.0 * matched(a, b) as f64 / total as f64
}

fn matched(a: &[char], b: &[char]) -> usize {
    let mut total = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    let mut row = vec![0usize; b.len() + 1];
    let mut prev = vec![0usize; b.len() + 1];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        // Longest common block, earliest in `a`, then earliest in `b`.
        let (mut bi, mut bj, mut bk) = (alo, blo, 0);
        prev[blo..=bhi].iter_mut().for_each(|x| *x = 0);
        for i in alo..ahi {
            row[blo..=bhi].iter_mut().for_each(|x| *x = 0);
            for j in blo..bhi {
                if a[i] == b[j] {
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

/// Candidate pairs (i < j) whose ratio may reach `ratio`: a PassJoin-style
/// segment filter. If two strings have ratio ≥ r, the shorter one (length
/// `l`) is at most τ = ⌊2(1−r)·l/r⌋ insertions and deletions away from the
/// other. Cut it into τ+2 segments: an edit touches at most one segment, so
/// at least two segments appear unchanged in the other string, each within τ
/// positions of where it stands. Indexing segments makes the rule close to
/// linear instead of comparing every pair.
fn candidates(
    slugs: &[Vec<char>],
    ratio: f64,
    keep: &(dyn Fn(usize, usize) -> bool + Sync),
) -> Vec<(usize, usize)> {
    use rayon::prelude::*;
    use rustc_hash::FxHashMap as HashMap;
    const MUST_MATCH: usize = 2;
    // The small slack keeps float rounding from losing a boundary case.
    let tau_of = |len: usize| (2.0 * (1.0 - ratio) * len as f64 / ratio + 1e-9).floor() as usize;
    let segments = |len: usize| -> Option<Vec<(usize, usize)>> {
        let parts = tau_of(len) + MUST_MATCH;
        if parts > len || parts > 64 {
            return None;
        }
        let base = len / parts;
        let longer = len % parts;
        let mut out = Vec::with_capacity(parts);
        let mut start = 0;
        for p in 0..parts {
            let l = base + usize::from(p >= parts - longer);
            out.push((start, l));
            start += l;
        }
        Some(out)
    };
    // (length, segment number, segment text) → ids of slugs of that length.
    let mut index: HashMap<(usize, usize, &[char]), Vec<usize>> = HashMap::default();
    // Slugs too short to cut: compared with every partner of a fitting length.
    let mut short: HashMap<usize, Vec<usize>> = HashMap::default();
    let mut cuts: HashMap<usize, Option<Vec<(usize, usize)>>> = HashMap::default();
    for (id, s) in slugs.iter().enumerate() {
        let segs = cuts.entry(s.len()).or_insert_with(|| segments(s.len()));
        match segs {
            None => short.entry(s.len()).or_default().push(id),
            Some(segs) => {
                for (n, &(start, l)) in segs.iter().enumerate() {
                    index
                        .entry((s.len(), n, &s[start..start + l]))
                        .or_default()
                        .push(id);
                }
            }
        }
    }
    // Probes run in parallel; each thread keeps, per slug, the bit set of
    // its segments found in the current probe, and the slugs to reset.
    let probe = |(hits, touched): &mut (Vec<u64>, Vec<usize>), id: usize| -> Vec<(usize, usize)> {
        let t = &slugs[id];
        let m = t.len();
        let mut found = Vec::new();
        // Partner lengths l ≤ m with 2l/(l+m) ≥ r.
        let min_len = ((ratio * m as f64) / (2.0 - ratio) - 1e-9).ceil() as usize;
        for l in min_len.max(1)..=m {
            // Each unordered pair once: the shorter finds the longer, equal
            // lengths by id.
            let counts = |o: usize| o != id && (l < m || o < id);
            if let Some(ids) = short.get(&l) {
                for &o in ids.iter().filter(|&&o| counts(o)) {
                    if keep(o.min(id), o.max(id)) {
                        found.push((o.min(id), o.max(id)));
                    }
                }
            }
            let Some(Some(segs)) = cuts.get(&l) else {
                continue;
            };
            let tau = tau_of(l);
            for (n, &(start, seg_len)) in segs.iter().enumerate() {
                if seg_len > m {
                    continue;
                }
                let lo = start.saturating_sub(tau);
                let hi = (start + tau).min(m - seg_len);
                for pos in lo..=hi.max(lo) {
                    if pos + seg_len > m {
                        break;
                    }
                    if let Some(ids) = index.get(&(l, n, &t[pos..pos + seg_len])) {
                        for &o in ids {
                            if counts(o) {
                                if hits[o] == 0 {
                                    touched.push(o);
                                }
                                hits[o] |= 1 << n;
                            }
                        }
                    }
                }
            }
        }
        for o in touched.drain(..) {
            if hits[o].count_ones() as usize >= MUST_MATCH && keep(o.min(id), o.max(id)) {
                found.push((o.min(id), o.max(id)));
            }
            hits[o] = 0;
        }
        found
    };
    let mut out: Vec<(usize, usize)> = (0..slugs.len())
        .into_par_iter()
        .map_init(|| (vec![0u64; slugs.len()], Vec::new()), probe)
        .flatten()
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Bit masks of where each slug character occurs, for Hyyrö's bit-parallel
/// LCS length (slugs are ASCII `[a-z0-9-]` and at most 64 characters).
struct PositionMasks {
    masks: [u64; 37],
    len: usize,
}

fn slot(c: char) -> Option<usize> {
    match c {
        'a'..='z' => Some(c as usize - 'a' as usize),
        '0'..='9' => Some(26 + c as usize - '0' as usize),
        '-' => Some(36),
        _ => None,
    }
}

impl PositionMasks {
    fn new(s: &[char]) -> Option<PositionMasks> {
        if s.len() > 64 {
            return None;
        }
        let mut masks = [0u64; 37];
        for (i, &c) in s.iter().enumerate() {
            masks[slot(c)?] |= 1 << i;
        }
        Some(PositionMasks {
            masks,
            len: s.len(),
        })
    }

    /// Length of the longest common subsequence with `other`.
    fn lcs_len(&self, other: &[char]) -> usize {
        let mut v: u64 = !0;
        for &c in other {
            let Some(k) = slot(c) else { continue };
            let u = v & self.masks[k];
            v = v.wrapping_add(u) | (v.wrapping_sub(u));
        }
        let mask = if self.len == 64 {
            !0
        } else {
            (1u64 << self.len) - 1
        };
        self.len - (v & mask).count_ones() as usize
    }
}

/// Clusters of near-duplicate slugs (each sorted, clusters sorted).
pub fn similar_clusters(slugs: &[&str], ratio: f64) -> Vec<Vec<String>> {
    let mut sorted: Vec<&str> = slugs.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let chars: Vec<Vec<char>> = sorted.iter().map(|s| s.chars().collect()).collect();
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
    let masks: Vec<Option<PositionMasks>> = chars.iter().map(|c| PositionMasks::new(c)).collect();
    let similar = |i: usize, j: usize| {
        // difflib's matches never exceed the longest common subsequence, so
        // a bit-parallel LCS bound discards most candidates cheaply.
        if let (Some(mi), Some(_)) = (&masks[i], &masks[j]) {
            let lcs = mi.lcs_len(&chars[j]);
            if (2 * lcs) as f64 / ((chars[i].len() + chars[j].len()) as f64) < ratio {
                return false;
            }
        }
        sequence_ratio(&chars[i], &chars[j]).max(sequence_ratio(&chars[j], &chars[i])) >= ratio
    };
    for (i, j) in candidates(&chars, ratio, &similar) {
        union(&mut parent, i, j);
    }
    // Equal but for a version-like suffix.
    let mut by_base: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, s) in sorted.iter().enumerate() {
        by_base.entry(s).or_insert(i);
    }
    for (i, s) in sorted.iter().enumerate() {
        if let Some(base) = strip_suffix(s) {
            let key = strip_suffix(base).unwrap_or(base);
            match by_base.get(key).copied() {
                Some(j) if j != i => union(&mut parent, i, j),
                _ => {
                    by_base.insert(key, i);
                }
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
    for i in 0..sorted.len() {
        let r = find(&mut parent, i);
        groups.entry(r).or_default().push(sorted[i].to_string());
    }
    let mut out: Vec<Vec<String>> = groups.into_values().filter(|g| g.len() > 1).collect();
    out.iter_mut().for_each(|g| g.sort());
    out.sort();
    out
}

/// `slug/similar`: near-duplicate slugs of one kind, reported once per
/// cluster on each member after the first in sorted order.
pub fn similar(view: &super::workspace::View, out: &mut super::workspace::WsSink) {
    for kind in crate::record::Kind::ALL
        .into_iter()
        .filter(|k| k.has_slug())
    {
        for cluster in view.similar_clusters(kind) {
            for (n, member) in cluster.iter().enumerate().skip(1) {
                let others: Vec<String> = cluster
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != n)
                    .map(|(_, s)| format!("`{s}`"))
                    .collect();
                let Some(entry) = view
                    .records
                    .iter()
                    .find(|e| e.info.kind == Some(kind) && e.slug == member)
                else {
                    continue;
                };
                out.emit(
                    "slug/similar",
                    entry.path,
                    None,
                    format!(
                        "{kind} `{member}` looks like a near-duplicate of {}; merge them or replace one with the other",
                        others.join(", ")
                    ),
                );
            }
        }
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
    fn bit_parallel_lcs() {
        let m = PositionMasks::new(&"pin-rayon-index".chars().collect::<Vec<_>>()).unwrap();
        assert_eq!(
            m.lcs_len(&"pin-rayon-cache".chars().collect::<Vec<_>>()),
            11
        );
        assert_eq!(m.lcs_len(&"qqq".chars().collect::<Vec<_>>()), 0);
    }

    #[test]
    fn suffixes() {
        assert_eq!(strip_suffix("use-gix-v2"), Some("use-gix"));
        assert_eq!(strip_suffix("use-gix-2"), Some("use-gix"));
        assert_eq!(strip_suffix("use-gix-new"), Some("use-gix"));
        assert_eq!(strip_suffix("use-gix"), None);
    }

    #[test]
    fn blocking_finds_what_naive_finds() {
        // Deterministic pseudo-random slugs with many near pairs.
        let words = [
            "pin", "rayon", "index", "cache", "walk", "lock", "use", "gix", "parse", "yaml",
            "mmap", "reads",
        ];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let mut slugs = Vec::new();
        for _ in 0..700 {
            let n = 2 + next() % 3;
            let mut s: Vec<&str> = (0..n).map(|_| words[next() % words.len()]).collect();
            if next() % 4 == 0 {
                s.push(["s", "x", "v2", "2"][next() % 4]);
            }
            slugs.push(s.join("-"));
        }
        slugs.sort();
        slugs.dedup();
        let chars: Vec<Vec<char>> = slugs.iter().map(|s| s.chars().collect()).collect();
        for ratio in [0.9, 0.8] {
            let cands: std::collections::HashSet<_> = candidates(&chars, ratio, &|_, _| true)
                .into_iter()
                .collect();
            let mut naive = 0;
            for i in 0..chars.len() {
                for j in i + 1..chars.len() {
                    let r = sequence_ratio(&chars[i], &chars[j])
                        .max(sequence_ratio(&chars[j], &chars[i]));
                    if r >= ratio {
                        naive += 1;
                        assert!(
                            cands.contains(&(i, j)),
                            "missed {} ~ {}",
                            slugs[i],
                            slugs[j]
                        );
                    }
                }
            }
            assert!(naive > 10, "the sample should hold near pairs ({naive})");
        }
    }
}
