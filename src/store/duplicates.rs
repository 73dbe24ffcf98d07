//! `.memlint/duplicates`: the `content/duplicate` pairs, keyed by the
//! texts they were computed from (every comparable record's kind, path and
//! sketch) and `similar_content_ratio`, so that a run whose records say
//! what they said last time reads the pairs instead of bucketing every
//! sketch again.

use crate::io::fs::read_regular;
use crate::lint::rules::content::{comparable, duplicate_pairs, Pair};
use crate::lint::rules::workspace::View;
use crate::store::codec::{checked, Writer, FORMAT};
use crate::store::table::{make_dir, DIR};
use std::path::Path;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// The duplicate cache's name inside [`DIR`].
pub const DUPLICATES: &str = "duplicates";

const MAGIC: &[u8; 8] = b"MLDUPS\0\0";

/// The key of the view's comparable records: the order of the records
/// does not matter (each record's hash is summed); which records are
/// active, their kind, path and text do.
fn key(view: &View) -> u64 {
    let mut sum = 0u64;
    let mut count = 0u64;
    for e in &view.records {
        let Some((kind, sketch)) = comparable(e) else {
            continue;
        };
        let mut h = Xxh3::new();
        h.update(&[kind as u8]);
        h.update(e.path.as_bytes());
        h.update(&[0]);
        h.update(&sketch.0);
        sum = sum.wrapping_add(h.digest());
        count += 1;
    }
    let mut out = [0u8; 24];
    out[..8].copy_from_slice(&sum.to_le_bytes());
    out[8..16].copy_from_slice(&count.to_le_bytes());
    out[16..].copy_from_slice(&view.config.similar_content_ratio.to_bits().to_le_bytes());
    xxh3_64(&out)
}

/// The `content/duplicate` pairs of the view's records: from
/// `.memlint/duplicates` when it was written for the same records, else
/// computed and written there.
pub fn pairs(root: &Path, view: &View) -> Vec<Pair> {
    let key = key(view);
    let stored = read_regular(&root.join(DIR).join(DUPLICATES))
        .ok()
        .and_then(|b| decode(&b));
    if let Some((k, pairs)) = stored {
        if k == key {
            return pairs;
        }
    }
    let pairs = duplicate_pairs(view);
    // A cache: when it cannot be written, the next run computes again.
    let _ = make_dir(root)
        .and_then(|dir| crate::io::fs::write_cache(&dir.join(DUPLICATES), &encode(key, &pairs)));
    pairs
}

fn encode(key: u64, pairs: &[Pair]) -> Vec<u8> {
    let mut w = Writer { buf: Vec::new() };
    w.buf.extend_from_slice(MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.buf.extend_from_slice(&key.to_le_bytes());
    w.usize(pairs.len());
    for p in pairs {
        w.str(&p.first);
        w.str(&p.second);
        w.u8(p.percent);
    }
    w.finish()
}

fn decode(bytes: &[u8]) -> Option<(u64, Vec<Pair>)> {
    let mut r = checked(bytes, MAGIC)?;
    let key = r.fixed64()?;
    let n = r.count()?;
    let mut pairs = Vec::with_capacity(n);
    for _ in 0..n {
        pairs.push(Pair {
            first: r.str()?,
            second: r.str()?,
            percent: r.u8()?,
        });
    }
    r.at_end().then_some((key, pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let pairs = vec![Pair {
            first: "knowledge/a.md".into(),
            second: "knowledge/b.md".into(),
            percent: 87,
        }];
        assert_eq!(decode(&encode(42, &pairs)), Some((42, pairs)));
        let mut damaged = encode(42, &[]);
        let last = damaged.len() - 1;
        damaged[last] ^= 1;
        assert_eq!(decode(&damaged), None);
    }
}
