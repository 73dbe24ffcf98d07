//! Slug similarity, pure text work: difflib's ratio (`ratio.rs`), the
//! version-suffix key, and the clusters of near-duplicate slugs (a trie walk
//! with bounds on the indel distance, `trie.rs` and `pairs.rs`, exact in the
//! end). The rule `slug/similar` words the messages; the index caches the
//! clusters.

mod pairs;
mod ratio;
pub(crate) mod sketch;
mod trie;

use crate::syntax::similar::pairs::search_pairs;
use crate::syntax::similar::ratio::str_ratio;
use crate::syntax::similar::trie::ENUMERATE_UP_TO;

pub(crate) use crate::syntax::similar::ratio::sequence_ratio;

/// The slug without a version-like suffix (`-2`, `-v2`, `-new`, `-old`,
/// `-fix`, …), when it has one.
pub(crate) fn strip_suffix(slug: &str) -> Option<&str> {
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
pub(crate) fn suffix_key(slug: &str) -> &str {
    match strip_suffix(slug) {
        Some(base) => strip_suffix(base).unwrap_or(base),
        None => slug,
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

/// Clusters of near-duplicate slugs (each sorted, clusters sorted).
pub(crate) fn similar_clusters(slugs: &[&str], ratio: f64) -> Vec<Vec<String>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::similar::trie::*;

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
