//! `.memlint/slugs`: the near-duplicate slug clusters of every kind, keyed
//! by the kind's slug set, so `slug/similar` compares pairs only when a
//! slug was added, removed or renamed.

use crate::io::cache::DIR;
use crate::io::cache::FORMAT;
use crate::io::fs::read_regular;
use crate::model::kind::{classify, Kind, Place};
use crate::model::workspace::Workspace;
use crate::store::codec::{checked, Writer};
use xxhash_rust::xxh3::Xxh3;

/// The near-duplicate slug cache's name inside [`DIR`].
pub(crate) const SLUGS: &str = "slugs";

const SLUGS_MAGIC: &[u8; 8] = b"MLSLUGS\0";

/// One kind's clusters and the key of the slug set they were computed for.
type KindClusters = (Kind, u64, Vec<Vec<String>>);

/// The key of one kind's slug set: the ratio and every slug, in order.
fn slugs_key(ratio: f64, slugs: &[&str]) -> u64 {
    let mut h = Xxh3::new();
    h.update(&ratio.to_bits().to_le_bytes());
    for s in slugs {
        h.update(s.as_bytes());
        h.update(b"\n");
    }
    h.digest()
}

/// Near-duplicate slug clusters for every kind with slugs, from the
/// workspace's file list (every file, as [`crate::store::listing::files`] gives it) alone, so that
/// they can be computed while the files are read: a record's slug is its
/// file name, whether or not it can be read. `slug/similar` compares every
/// pair of slugs of a kind that could be similar, which is the costliest
/// cross-record rule on a large workspace, so its result is kept in
/// `.memlint/slugs` keyed by the kind's slug set and the ratio, and
/// recomputed only when either changed (an edit of a record's content
/// changes neither).
pub(crate) fn slug_clusters(ws: &Workspace, files: &[String]) -> Vec<(Kind, Vec<Vec<String>>)> {
    let mut by_kind: Vec<(Kind, Vec<&str>)> = Vec::new();
    for f in files {
        let Place::Record(kind) = classify(f, &ws.config.banned_dirs) else {
            continue;
        };
        let slug = crate::model::kind::stem(f);
        if !kind.has_slug() || !crate::model::kind::is_slug(slug) {
            continue;
        }
        match by_kind.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, slugs)) => slugs.push(slug),
            None => by_kind.push((kind, vec![slug])),
        }
    }
    for (_, slugs) in &mut by_kind {
        slugs.sort_unstable();
        slugs.dedup();
    }
    let (root, ratio) = (&ws.root, ws.config.similar_slug_ratio);
    let stored = read_regular(&root.join(DIR).join(SLUGS), crate::io::fs::CACHE_FILE_MAX)
        .ok()
        .and_then(|b| decode_slugs(&b))
        .unwrap_or_default();
    let mut changed = false;
    let mut out: Vec<KindClusters> = Vec::new();
    for kind in Kind::ALL.into_iter().filter(|k| k.has_slug()) {
        let slugs = by_kind
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(&[][..], |(_, s)| s.as_slice());
        let key = slugs_key(ratio, slugs);
        match stored.iter().find(|(k, h, _)| *k == kind && *h == key) {
            Some((_, _, clusters)) => out.push((kind, key, clusters.clone())),
            None => {
                changed = true;
                let clusters = crate::syntax::similar::similar_clusters(slugs, ratio);
                out.push((kind, key, clusters));
            }
        }
    }
    if changed {
        // A cache: when it cannot be written, the next run computes again.
        let _ = crate::io::cache::make_dir(&ws.root)
            .and_then(|dir| crate::io::fs::write_cache(&dir.join(SLUGS), &encode_slugs(&out)));
    }
    out.into_iter().map(|(k, _, c)| (k, c)).collect()
}

fn encode_slugs(kinds: &[KindClusters]) -> Vec<u8> {
    let mut w = Writer { buf: Vec::new() };
    w.buf.extend_from_slice(SLUGS_MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.usize(kinds.len());
    for (kind, key, clusters) in kinds {
        w.u8(Kind::ALL
            .iter()
            .position(|k| k == kind)
            .map_or(0, |i| i as u8));
        w.buf.extend_from_slice(&key.to_le_bytes());
        w.usize(clusters.len());
        for c in clusters {
            w.usize(c.len());
            for s in c {
                w.str(s);
            }
        }
    }
    w.finish()
}

fn decode_slugs(bytes: &[u8]) -> Option<Vec<KindClusters>> {
    let mut r = checked(bytes, SLUGS_MAGIC)?;
    let n = r.count()?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let kind = *Kind::ALL.get(usize::from(r.u8()?))?;
        let key = r.fixed64()?;
        let clusters_n = r.count()?;
        let mut clusters = Vec::with_capacity(clusters_n);
        for _ in 0..clusters_n {
            let m = r.count()?;
            let mut c = Vec::with_capacity(m);
            for _ in 0..m {
                c.push(r.str()?);
            }
            clusters.push(c);
        }
        out.push((kind, key, clusters));
    }
    r.at_end().then_some(out)
}
