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
    let version = last.len() > 1
        && last.starts_with('v')
        && last[1..].bytes().all(|b| b.is_ascii_digit());
    (numeric || version || WORDS.contains(&last)).then_some(base).filter(|b| !b.is_empty())
}

/// Candidate pairs (i < j) whose ratio may reach `ratio`: a PassJoin-style
/// filter. If two strings have ratio ≥ r, their edit distance is at most
/// τ = ⌊2(1−r)·len/r⌋ for the shorter-or-equal one of length `len`; cut it
/// into τ+1 segments and one segment must appear in the other string within
/// τ positions of where it stands. Indexing segments makes the rule close to
/// linear instead of comparing every pair.
fn candidates(slugs: &[Vec<char>], ratio: f64) -> Vec<(usize, usize)> {
    use std::collections::HashMap;
    let tau_of = |len: usize| ((2.0 * (1.0 - ratio) * len as f64 / ratio).floor() as usize).min(len);
    // (length, segment number, segment text) → slugs of that length.
    let mut index: HashMap<(usize, usize, &[char]), Vec<usize>> = HashMap::new();
    let mut short: HashMap<usize, Vec<usize>> = HashMap::new();
    let segments = |len: usize| -> Vec<(usize, usize)> {
        let parts = tau_of(len) + 1;
        let base = len / parts;
        let longer = len % parts;
        let mut out = Vec::with_capacity(parts);
        let mut start = 0;
        for p in 0..parts {
            let l = base + usize::from(p >= parts - longer);
            out.push((start, l));
            start += l;
        }
        out
    };
    for (id, s) in slugs.iter().enumerate() {
        let segs = segments(s.len());
        if segs.iter().any(|&(_, l)| l == 0) {
            short.entry(s.len()).or_default().push(id);
            continue;
        }
        for (n, &(start, l)) in segs.iter().enumerate() {
            index.entry((s.len(), n, &s[start..start + l])).or_default().push(id);
        }
    }
    let mut pairs = std::collections::HashSet::new();
    for (id, t) in slugs.iter().enumerate() {
        let m = t.len();
        // Partner lengths l ≤ m with 2l/(l+m) ≥ r.
        let min_len = ((ratio * m as f64) / (2.0 - ratio)).ceil() as usize;
        for l in min_len.max(1)..=m {
            let tau = tau_of(l);
            if let Some(ids) = short.get(&l) {
                for &o in ids {
                    if o != id {
                        pairs.insert((o.min(id), o.max(id)));
                    }
                }
            }
            for (n, (start, seg_len)) in segments(l).into_iter().enumerate() {
                if seg_len == 0 {
                    continue;
                }
                let lo = start.saturating_sub(tau);
                let hi = (start + tau).min(m.saturating_sub(seg_len));
                if lo > hi || seg_len > m {
                    continue;
                }
                for pos in lo..=hi {
                    if let Some(ids) = index.get(&(l, n, &t[pos..pos + seg_len])) {
                        for &o in ids {
                            if o != id {
                                pairs.insert((o.min(id), o.max(id)));
                            }
                        }
                    }
                }
            }
        }
    }
    let mut v: Vec<_> = pairs.into_iter().collect();
    v.sort_unstable();
    v
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
    for (i, j) in candidates(&chars, ratio) {
        let r = sequence_ratio(&chars[i], &chars[j]).max(sequence_ratio(&chars[j], &chars[i]));
        if r >= ratio {
            union(&mut parent, i, j);
        }
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
    for kind in crate::record::Kind::ALL.into_iter().filter(|k| k.has_slug()) {
        let slugs: Vec<&str> = view
            .slugs(kind)
            .into_iter()
            .filter(|s| crate::record::is_slug(s))
            .collect();
        for cluster in similar_clusters(&slugs, view.config.similar_slug_ratio) {
            for (n, member) in cluster.iter().enumerate().skip(1) {
                let others: Vec<String> = cluster
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != n)
                    .map(|(_, s)| format!("`{s}`"))
                    .collect();
                let Some(entry) = view.records.iter().find(|e| e.info.kind == Some(kind) && e.slug == member) else {
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
    fn suffixes() {
        assert_eq!(strip_suffix("use-gix-v2"), Some("use-gix"));
        assert_eq!(strip_suffix("use-gix-2"), Some("use-gix"));
        assert_eq!(strip_suffix("use-gix-new"), Some("use-gix"));
        assert_eq!(strip_suffix("use-gix"), None);
    }

    #[test]
    fn blocking_finds_what_naive_finds() {
        // Deterministic pseudo-random slugs with many near pairs.
        let words = ["pin", "rayon", "index", "cache", "walk", "lock", "use", "gix", "parse", "yaml", "mmap", "reads"];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let mut slugs = Vec::new();
        for _ in 0..1500 {
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
            let cands: std::collections::HashSet<_> = candidates(&chars, ratio).into_iter().collect();
            let mut naive = 0;
            for i in 0..chars.len() {
                for j in i + 1..chars.len() {
                    let r = sequence_ratio(&chars[i], &chars[j]).max(sequence_ratio(&chars[j], &chars[i]));
                    if r >= ratio {
                        naive += 1;
                        assert!(cands.contains(&(i, j)), "missed {} ~ {}", slugs[i], slugs[j]);
                    }
                }
            }
            assert!(naive > 10, "the sample should hold near pairs ({naive})");
        }
    }
}
