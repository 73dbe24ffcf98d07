//! `.memlint/duplicates`: the `content/duplicate` pairs and what they were
//! computed from (each comparable record's path and a hash of its kind,
//! path, sketch and short text's shingles; `similar_content_ratio`). A run whose comparable records
//! are the same reads the pairs; a run where a few records changed, came or
//! went keeps the pairs of the others and compares only those few with
//! every record (a scan of the sketches, no buckets); otherwise every
//! sketch is bucketed again. So a warm `check` after an edit costs a hash
//! per record, not the buckets.

use crate::io::cache::DIR;
use crate::io::cache::FORMAT;
use crate::lint::rules::content::{comparable, duplicate_pairs, pairs_of, Pair};
use crate::lint::rules::workspace::View;
use crate::model::hashing::Set;
use crate::model::workspace::Workspace;
use crate::store::codec::{checked, Writer};
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

/// The duplicate cache's name inside [`DIR`].
pub(crate) const DUPLICATES: &str = "duplicates";

const MAGIC: &[u8; 8] = b"MLDUPS\0\0";

/// Most changed records compared one by one with every record; past this,
/// the buckets are cheaper.
const INCREMENTAL_UP_TO: usize = 64;

/// (hash of the path, hash of kind, path and sketch) of each comparable
/// record, in the view's order (by path).
type Table = Vec<(u64, u64)>;

/// What the cache holds.
struct Stored {
    ratio: u64,
    table: Table,
    pairs: Vec<Pair>,
}

/// The comparable records of the view, as the cache keys them, in the
/// view's order: a run that finds the same records in the same order
/// compares the two tables row by row, unsorted.
fn table(view: &View) -> Table {
    use rayon::prelude::*;
    view.records
        .par_iter()
        .filter_map(|e| {
            let (kind, like) = comparable(e)?;
            // Two one-shot hashes: a streaming hasher for each of 78k
            // records cost more than hashing.
            let path = xxh3_64(e.path.as_bytes());
            let row = xxh3_64_with_seed(&like.sketch.0, path.rotate_left(8) ^ kind as u64);
            // A short text's shingles, which decide its pairs, may change
            // while its sketch does not.
            let row = match like.shingles {
                None => row,
                Some(set) => xxh3_64_with_seed(set, row),
            };
            Some((path, row))
        })
        .collect()
}

/// The `content/duplicate` pairs of the view's records: from
/// `.memlint/duplicates` when it was written for the same records, updated
/// there when a few changed, else computed and written there.
pub(crate) fn pairs(ws: &Workspace, view: &View) -> Vec<Pair> {
    let root = &ws.root;
    let ratio = view.config.similar_content_ratio.to_bits();
    let now = table(view);
    // Mapped, not copied into fresh memory.
    let stored = crate::io::map::map_regular(&root.join(DIR).join(DUPLICATES))
        .ok()
        .and_then(|b| decode(&b))
        .filter(|s| s.ratio == ratio);
    let pairs = match stored {
        Some(s) if s.table == now => return s.pairs,
        Some(s) => match changed(&s.table, &now) {
            Some(changed) if changed.len() <= INCREMENTAL_UP_TO => update(view, s.pairs, &changed),
            _ => duplicate_pairs(view),
        },
        None => duplicate_pairs(view),
    };
    let stored = Stored {
        ratio,
        table: now,
        pairs,
    };
    // A cache: when it cannot be written, the next run computes again.
    let _ = crate::io::cache::make_dir(&ws.root)
        .and_then(|dir| crate::io::fs::write_cache(&dir.join(DUPLICATES), &encode(&stored)));
    stored.pairs
}

/// The path hashes of the records that came, went or changed between two
/// tables; `None` when there are too many to list. Tables of the same
/// records in the same order (a warm check after an edit) are compared
/// row by row; others sorted and merged.
fn changed(old: &Table, now: &Table) -> Option<Set<u64>> {
    if old.len() == now.len() && old.iter().zip(now).all(|(a, b)| a.0 == b.0) {
        let mut out: Set<u64> = Set::default();
        for (a, b) in old.iter().zip(now) {
            if a.1 != b.1 {
                out.insert(a.0);
                if out.len() > INCREMENTAL_UP_TO {
                    return None;
                }
            }
        }
        return Some(out);
    }
    let (mut old, mut now) = (old.clone(), now.clone());
    old.sort_unstable();
    now.sort_unstable();
    merged(&old, &now)
}

/// [`changed`] of two tables sorted by path hash.
fn merged(old: &Table, now: &Table) -> Option<Set<u64>> {
    let mut out: Set<u64> = Set::default();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < now.len() {
        let (a, b) = (old.get(i), now.get(j));
        match (a, b) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                if x.1 != y.1 {
                    out.insert(x.0);
                }
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                out.insert(x.0);
                i += 1;
            }
            (Some(_), Some(y)) => {
                out.insert(y.0);
                j += 1;
            }
            (Some(x), None) => {
                out.insert(x.0);
                i += 1;
            }
            (None, Some(y)) => {
                out.insert(y.0);
                j += 1;
            }
            (None, None) => break,
        }
        if out.len() > INCREMENTAL_UP_TO {
            return None;
        }
    }
    Some(out)
}

/// The stored pairs without those of changed records, and the pairs of
/// each changed record still present, found by comparing its sketch with
/// every comparable record's.
fn update(view: &View, mut pairs: Vec<Pair>, changed: &Set<u64>) -> Vec<Pair> {
    let touched = |p: &str| changed.contains(&xxh3_64(p.as_bytes()));
    pairs.retain(|p| !touched(&p.first) && !touched(&p.second));
    pairs.extend(pairs_of(view, touched));
    pairs.sort_by(|x, y| (&x.first, &x.second).cmp(&(&y.first, &y.second)));
    pairs.dedup();
    pairs
}

fn encode(s: &Stored) -> Vec<u8> {
    // At least the bytes written (each integer in at most ten): allocated
    // once, never copied to a larger buffer.
    let pairs: usize = s
        .pairs
        .iter()
        .map(|p| p.first.len() + p.second.len() + 21)
        .sum();
    let mut w = Writer {
        buf: Vec::with_capacity(64 + s.table.len() * 16 + pairs),
    };
    w.buf.extend_from_slice(MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.buf.extend_from_slice(&s.ratio.to_le_bytes());
    w.usize(s.table.len());
    for (p, c) in &s.table {
        w.buf.extend_from_slice(&p.to_le_bytes());
        w.buf.extend_from_slice(&c.to_le_bytes());
    }
    w.usize(s.pairs.len());
    for p in &s.pairs {
        w.str(&p.first);
        w.str(&p.second);
        w.u8(p.percent);
    }
    w.finish()
}

fn decode(bytes: &[u8]) -> Option<Stored> {
    let mut r = checked(bytes, MAGIC)?;
    let ratio = r.fixed64()?;
    let n = r.count()?;
    let mut table = Vec::with_capacity(n.min(bytes.len() / 16));
    for _ in 0..n {
        table.push((r.fixed64()?, r.fixed64()?));
    }
    let n = r.count()?;
    let mut pairs = Vec::with_capacity(n.min(bytes.len()));
    for _ in 0..n {
        pairs.push(Pair {
            first: r.str()?,
            second: r.str()?,
            percent: r.u8()?,
        });
    }
    r.at_end().then_some(Stored {
        ratio,
        table,
        pairs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let s = Stored {
            ratio: 0.85f64.to_bits(),
            table: vec![(1, 2), (3, 4)],
            pairs: vec![Pair {
                first: "knowledge/a.md".into(),
                second: "knowledge/b.md".into(),
                percent: 87,
            }],
        };
        let back = decode(&encode(&s)).expect("decodes");
        assert_eq!(
            (back.ratio, back.table, back.pairs),
            (s.ratio, s.table.clone(), s.pairs.clone())
        );
        let mut damaged = encode(&s);
        let last = damaged.len() - 1;
        damaged[last] ^= 1;
        assert!(decode(&damaged).is_none());
    }

    #[test]
    fn changes_are_listed_until_too_many() {
        let old: Table = vec![(1, 10), (2, 20), (4, 40)];
        let now: Table = vec![(1, 10), (2, 21), (3, 30)];
        let got = changed(&old, &now).expect("few");
        let mut got: Vec<u64> = got.into_iter().collect();
        got.sort_unstable();
        assert_eq!(got, vec![2, 3, 4]);
        let many: Table = (0..200).map(|i| (i, i)).collect();
        assert!(changed(&Vec::new(), &many).is_none());
        // The same records in the same order, unsorted: row by row.
        let old: Table = vec![(9, 90), (2, 20), (5, 50)];
        let now: Table = vec![(9, 90), (2, 21), (5, 50)];
        assert_eq!(changed(&old, &now).map(|s| s.len()), Some(1));
        assert!(changed(&old, &now).expect("few").contains(&2));
        // In another order, or with one record more: sorted and merged.
        let reordered: Table = vec![(5, 50), (9, 90), (2, 20)];
        assert_eq!(changed(&old, &reordered).map(|s| s.len()), Some(0));
        let grown: Table = vec![(9, 90), (1, 10), (2, 20), (5, 51)];
        let mut got: Vec<u64> = changed(&old, &grown).expect("few").into_iter().collect();
        got.sort_unstable();
        assert_eq!(got, vec![1, 5]);
        let changed_many: Table = many.iter().map(|&(p, c)| (p, c + 1)).collect();
        assert!(changed(&many, &changed_many).is_none());
    }
}
