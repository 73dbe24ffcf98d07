//! `content/duplicate`: two active records of one kind say nearly the same
//! thing.
//!
//! Each record's title and body are sketched when the file is read
//! ([`crate::syntax::similar::sketch`]); here the sketches of the active
//! records are put into buckets by band, and only records that share a
//! bucket are compared, so the work grows with the number of records, not
//! with the number of pairs.

use crate::lint::rules::workspace::{View, WsSink};
use crate::model::hashing::Map;
use crate::model::kind::Kind;
use crate::model::rule::Rule;
use crate::syntax::similar::sketch::{Likeness, Sketch, BANDS, BINS};

/// The rule's documentation, as `memlint rule content/duplicate` prints it.
pub(crate) const DOC: &str = r#"# content/duplicate

two active records of one kind say nearly the same thing

## What it does

Fires when two active records of the same kind (decision, request or knowledge; a request that is `open` or `done` counts as active, a record with `status: replaced` never does) have titles and bodies that say nearly the same thing, whatever their slugs. The title and body are normalised into words (lowercased, punctuation and markdown dropped; Japanese, Chinese and Korean text into overlapping character pairs, as search reads it), the words into pairs of neighbours, and the two sets of pairs compared: when their overlap (the Jaccard similarity of the two sets: exact for records of up to 128 word pairs, a pair that repeats counted each time, estimated from a sketch for longer ones) is at least `similar_content_ratio` (default 0.85), the record after the other in path order gets one diagnostic naming the other, how alike they are, and the `memlint replace` command that retires the older one. A record whose title and body hold fewer than 8 distinct word pairs is not compared: short texts agree by accident. The comparison is linear in the number of records (sketches put into buckets, never every pair), and its result is kept in `.memlint/` until a record's text, status or name changes.

## Why it matters

The same decision or fact written twice, usually by an agent that did not search before saving, splits the memory: recall returns both, the copies drift apart as one of them is updated, and the next agent cannot tell which one is in force. `slug/similar` catches copies whose names look alike; this rule catches those whose words do.

## Example

`memory/decisions/cache-product-pages.md`:

```markdown
---
title: Cache product pages at the CDN
status: active
date: 2026-03-20
sources:
  - staging:20260320-090000-4c4d
---

Product pages are cached at the CDN for five minutes and purged by surrogate key whenever a price changes, so the origin serves only misses.
```

`memory/decisions/edge-caching-for-catalogue.md`:

```markdown
---
title: Cache product pages at the edge
status: active
date: 2026-03-24
sources:
  - staging:20260324-163000-9e10
---

Product pages are cached at the CDN for five minutes and purged by surrogate key whenever a price changes, so the origin serves only misses.
```

## Fixed

The older record is marked replaced by the newer one (`memlint replace cache-product-pages edge-caching-for-catalogue`):

`memory/decisions/cache-product-pages.md`:

```markdown
---
title: Cache product pages at the CDN
status: replaced
date: 2026-03-20
sources:
  - staging:20260320-090000-4c4d
replaced_by: edge-caching-for-catalogue
---

Product pages are cached at the CDN for five minutes and purged by surrogate key whenever a price changes, so the origin serves only misses.
```

## Fix

Not fixed automatically: which copy to keep is a judgement. Mark the older one replaced by the newer (`memlint replace OLD NEW`), or merge the two into one record and delete the other (with a `Memlint-GC: merge … into …` trailer in the commit, so `history/unexplained-removal` accepts it). `memlint report` lists every pair. `memlint new` and the MCP tool `memory_write` refuse to write a record that says nearly the same as an active one unless forced (`--force`, `force: true`).

## Configuration

```yaml
# .memlint.yml
similar_content_ratio: 0.85   # default; higher reports only closer copies
rules:
  content/duplicate: error   # default: warning; or off
```
"#;

/// Two active records of one kind that say nearly the same thing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pair {
    /// The record first in path order.
    pub first: String,
    /// The other record.
    pub second: String,
    /// How alike they are, in percent (the Jaccard similarity of their
    /// word pairs; estimated when one of them is long).
    pub percent: u8,
}

/// Whether record `info` takes part: an active decision, request or
/// knowledge record whose text has a sketch; its kind and how it is
/// compared.
pub(crate) fn comparable<'a>(
    e: &crate::lint::rules::workspace::Entry<'a>,
) -> Option<(Kind, Likeness<'a>)> {
    let kind = e.info.kind?;
    if !matches!(kind, Kind::Decision | Kind::Request | Kind::Knowledge)
        || !e.info.parsed
        || e.info.status.as_deref() == Some("replaced")
    {
        return None;
    }
    Some((
        kind,
        Likeness {
            sketch: e.info.sketch.as_ref()?,
            shingles: e.info.shingles.as_deref(),
        },
    ))
}

/// Every pair of active records of one kind whose sketches are at least
/// `similar_content_ratio` alike, sorted by path. Records are put into one
/// bucket per band and band value, and each is compared only with the
/// first and the last record before it in each of its buckets: linear in
/// the number of records, whatever the texts. A pair that meets that way
/// in several bands is compared once.
pub(crate) fn duplicate_pairs(view: &View) -> Vec<Pair> {
    use rayon::prelude::*;
    // The sketches copied side by side: the buckets then read them from
    // one array, not from every record's own allocation (a cold check on
    // 100k records spent most of this function waiting for memory), each
    // on two whole cache lines of its own (beside the record's index and
    // kind, one in three took a third line).
    let (items, sketches): (Vec<(usize, Kind)>, Vec<Lined>) = view
        .records
        .iter()
        .enumerate()
        .filter_map(|(i, e)| comparable(e).map(|(k, s)| ((i, k), Lined(*s.sketch))))
        .unzip();
    // Short texts are compared on their exact shingles.
    let shingles: Vec<Option<&[u8]>> = items
        .iter()
        .map(|&(i, _)| view.records[i].info.shingles.as_deref())
        .collect();
    let like = |i: usize| Likeness {
        sketch: &sketches[i].0,
        shingles: shingles[i],
    };
    let ratio = view.config.similar_content_ratio;
    let n = items.len();
    // The bands are independent: each is bucketed on its own thread.
    let neighbours: Vec<Vec<[u32; 2]>> = (0..BANDS)
        .into_par_iter()
        .map(|band| band_neighbours(&items, &sketches, band))
        .collect();
    // Then each record is compared once with each distinct record it
    // meets in any band (alike records share many bands: the same pair
    // was compared in each), in their order as the sketches lie in memory.
    const CHUNK: usize = 1024;
    let mut found: Vec<(usize, usize)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|c| {
            let mut found = Vec::new();
            let mut met: Vec<u32> = Vec::with_capacity(2 * BANDS);
            for m in c * CHUNK..n.min((c + 1) * CHUNK) {
                met.clear();
                for band in &neighbours {
                    for other in band[m] {
                        if other != NONE && !met.contains(&other) {
                            met.push(other);
                        }
                    }
                }
                // Asked for all at once, the sketches arrive together
                // instead of one memory wait after another.
                for &other in &met {
                    prefetch(&sketches[other as usize]);
                }
                for &other in &met {
                    let other = other as usize;
                    if like(other).at_least(&like(m), ratio).is_some() {
                        found.push((other, m));
                    }
                }
            }
            found
        })
        .collect();
    found.sort_unstable();
    found.dedup();
    let mut pairs: Vec<Pair> = found
        .into_iter()
        .map(|(a, b)| {
            let (ea, eb) = (&view.records[items[a].0], &view.records[items[b].0]);
            let percent = (like(a).similarity(&like(b)) * 100.0).round() as u8;
            let (first, second) = if ea.path <= eb.path {
                (ea.path, eb.path)
            } else {
                (eb.path, ea.path)
            };
            Pair {
                first: first.to_string(),
                second: second.to_string(),
                percent,
            }
        })
        .collect();
    pairs.sort_by(|x, y| (&x.first, &x.second).cmp(&(&y.first, &y.second)));
    pairs.dedup();
    pairs
}

/// Tells the processor that `sketch` (its two cache lines) is read soon.
#[inline(always)]
fn prefetch(sketch: &Lined) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p: *const i8 = (sketch as *const Lined).cast();
        // SAFETY: a prefetch only hints; it never faults or reads into
        // the program, and both addresses lie within `sketch`.
        unsafe {
            _mm_prefetch(p, _MM_HINT_T0);
            _mm_prefetch(p.add(64), _MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = sketch;
}

/// No record (in [`band_neighbours`]).
const NONE: u32 = u32::MAX;

/// A sketch on cache lines of its own.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Lined(Sketch);
const _: () = assert!(std::mem::size_of::<Lined>() == BINS);

/// For each of `items`, the records band `band` compares it with: the
/// first of its bucket and the one before it in the bucket ([`NONE`] for
/// either that is not there or is the record itself).
fn band_neighbours(items: &[(usize, Kind)], sketches: &[Lined], band: usize) -> Vec<[u32; 2]> {
    // The band's keys (kind and band value) side by side, each with the
    // record's index below it, its buckets runs of them sorted instead of
    // hash-map entries probed at random (a cold check on 100k records
    // waited for memory most of this function's time).
    let sorted = sorted_keys(
        items
            .iter()
            .zip(sketches)
            .map(|((_, kind), sketch)| (*kind as u64) << 32 | u64::from(sketch.0.band(band))),
    );
    let mut before = vec![[NONE; 2]; items.len()];
    for bucket in sorted.chunk_by(|a, b| a.0 == b.0) {
        let first = bucket[0].1;
        for w in bucket.windows(2) {
            let prev = w[0].1;
            before[w[1].1 as usize] = [first, if prev == first { NONE } else { prev }];
        }
    }
    before
}

/// Bits of a bucket key (kind and band value, see [`band_neighbours`]).
const KEY_BITS: u32 = 36;
/// Bits left below a key for the index of its record.
const INDEX_BITS: u32 = 64 - KEY_BITS;
const _: () = assert!(Kind::ALL.len() <= 1 << (KEY_BITS - 32));

/// `(key, index)` of each of `keys` (in [`KEY_BITS`]), sorted by key, the
/// indexes ascending among equal keys. Each key is packed with its index
/// into one `u64` and sorted by a stable radix sort, twelve bits at a time
/// from the lowest bit of the key (three passes over 8-byte values instead
/// of five bytes' worth over 16-byte pairs, each over 100k keys per band
/// on a large workspace; a digit that is the same in every key is
/// skipped). More records than the index bits hold are sorted by
/// comparison.
fn sorted_keys(keys: impl ExactSizeIterator<Item = u64>) -> Vec<(u64, u32)> {
    if keys.len() >= 1 << INDEX_BITS {
        let mut all: Vec<(u64, u32)> = keys.zip(0..).collect();
        all.sort_unstable();
        return all;
    }
    let mut from: Vec<u64> = keys.zip(0u64..).map(|(k, i)| k << INDEX_BITS | i).collect();
    let mut to = vec![0u64; from.len()];
    const BITS: u32 = 12;
    const DIGITS: usize = 1 << BITS;
    for shift in (INDEX_BITS..64).step_by(BITS as usize) {
        let digit = |k: u64| ((k >> shift) as usize) & (DIGITS - 1);
        let mut starts = [0usize; DIGITS + 1];
        for k in &from {
            starts[digit(*k) + 1] += 1;
        }
        if starts.contains(&from.len()) {
            continue;
        }
        for d in 0..DIGITS {
            starts[d + 1] += starts[d];
        }
        for &k in &from {
            let d = digit(k);
            to[starts[d]] = k;
            starts[d] += 1;
        }
        std::mem::swap(&mut from, &mut to);
    }
    let index = (1u64 << INDEX_BITS) - 1;
    from.into_iter()
        .map(|k| (k >> INDEX_BITS, (k & index) as u32))
        .collect()
}

/// The pairs of each comparable record for which `chosen` is true, found by
/// comparing its sketch with every comparable record of its kind: one pass
/// over the sketches per chosen record, for the few records an edit
/// changed.
pub(crate) fn pairs_of(view: &View, chosen: impl Fn(&str) -> bool) -> Vec<Pair> {
    let items: Vec<(&str, Kind, Likeness)> = view
        .records
        .iter()
        .filter_map(|e| comparable(e).map(|(k, s)| (e.path, k, s)))
        .collect();
    let ratio = view.config.similar_content_ratio;
    let mut pairs = Vec::new();
    for (path, kind, sketch) in items.iter().filter(|(p, ..)| chosen(p)) {
        for (other, k, s) in &items {
            if k != kind || other == path {
                continue;
            }
            if let Some(alike) = sketch.at_least(s, ratio) {
                let (first, second) = if path <= other {
                    (path, other)
                } else {
                    (other, path)
                };
                pairs.push(Pair {
                    first: first.to_string(),
                    second: second.to_string(),
                    percent: (alike * 100.0).round() as u8,
                });
            }
        }
    }
    pairs.sort_by(|x, y| (&x.first, &x.second).cmp(&(&y.first, &y.second)));
    pairs.dedup();
    pairs
}

/// `content/duplicate`: each record that has an earlier (in path order)
/// near-copy gets one diagnostic naming the closest one.
pub(crate) fn check(view: &View, out: &mut WsSink) {
    if !crate::lint::rules::workspace::enabled(view.config, Rule::ContentDuplicate) {
        return;
    }
    let pairs = match &view.known_duplicates {
        Some(pairs) => std::borrow::Cow::Borrowed(pairs),
        None => std::borrow::Cow::Owned(duplicate_pairs(view)),
    };
    // The closest earlier record of each record, and how many it has.
    let mut best: Map<&str, (&Pair, usize)> = Map::default();
    for p in pairs.iter() {
        let slot = best.entry(p.second.as_str()).or_insert((p, 0));
        slot.1 += 1;
        if p.percent > slot.0.percent {
            slot.0 = p;
        }
    }
    if best.is_empty() {
        return;
    }
    let dates: Map<&str, Option<&str>> = view
        .records
        .iter()
        .map(|e| (e.path, e.info.date.as_deref()))
        .collect();
    let date_of = |p: &str| dates.get(p).copied().flatten();
    let mut reported: Vec<(&str, (&Pair, usize))> = best.into_iter().collect();
    reported.sort_by(|a, b| a.0.cmp(b.0));
    for (path, (pair, count)) in reported {
        out.emit(
            Rule::ContentDuplicate,
            path,
            None,
            message(pair, count, date_of(&pair.first), date_of(&pair.second)),
        );
    }
}

/// The message on `pair.second`: the other record, how alike, and the
/// `memlint replace` that retires the older one (by `date`, else the
/// first in path order).
fn message(
    pair: &Pair,
    count: usize,
    first_date: Option<&str>,
    second_date: Option<&str>,
) -> String {
    let kind = crate::model::kind::classify(&pair.second, &[]);
    let kind = match kind {
        crate::model::kind::Place::Record(k) => k.to_string(),
        _ => "record".to_string(),
    };
    let (this, other) = (
        crate::model::kind::stem(&pair.second),
        crate::model::kind::stem(&pair.first),
    );
    let (old, new) = match (first_date, second_date) {
        (Some(a), Some(b)) if b < a => (this, other),
        _ => (other, this),
    };
    let more = match count {
        0 | 1 => String::new(),
        n => format!("; {} more earlier record(s) alike too", n - 1),
    };
    format!(
        "{kind} `{this}` says nearly the same as `{other}` ({}, {}% alike{more}); keep one: merge them, or mark the older replaced with `memlint replace {old} {new}`",
        pair.first, pair.percent
    )
}

#[cfg(test)]
mod tests {
    use super::sorted_keys;

    #[test]
    fn keys_are_sorted_with_their_indexes_ascending_among_equal_keys() {
        // Keys differing in every byte a bucket key uses (kind in the
        // fifth, band value in the lower four), some equal.
        let keys = [
            3 << 32 | 0x0102_0304,
            1 << 32 | 0xff00_0000,
            3 << 32 | 0x0102_0304,
            1 << 32 | 0x0000_00ff,
            3 << 32 | 0x0102_0304,
            1 << 32 | 0xff00_0000,
        ];
        let mut expected: Vec<(u64, u32)> = keys.iter().copied().zip(0..).collect();
        expected.sort();
        assert_eq!(sorted_keys(keys.into_iter()), expected);
        // All equal: the indexes in order.
        assert_eq!(
            sorted_keys([7; 3].into_iter()),
            vec![(7, 0), (7, 1), (7, 2)]
        );
        assert_eq!(sorted_keys([0u64; 0].into_iter()), Vec::new());
    }

    #[test]
    fn random_keys_sort_as_a_comparison_sort_does() {
        // 36-bit keys of every kind, from few distinct values (long runs
        // of equal keys, digits the same in every key) to many, against
        // sorting (key, index) pairs.
        let mut state = 0x5851_f42d_4c95_7f2du64;
        for (n, distinct) in [(1usize, 1u64), (50, 3), (5_000, 40), (20_000, 1 << 36)] {
            let keys: Vec<u64> = (0..n)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let k = (state >> 20) % distinct;
                    // Spread over the key's bits: kind on top, band below.
                    (k.wrapping_mul(0x9_E377_9B97) & ((1 << 36) - 1)) | (k % 4) << 32
                })
                .collect();
            let mut expected: Vec<(u64, u32)> = keys.iter().copied().zip(0..).collect();
            expected.sort();
            assert_eq!(sorted_keys(keys.into_iter()), expected, "{n} keys");
        }
    }
}
