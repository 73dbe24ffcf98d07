//! Renames in a change (what `sources/drifted` follows, and what the
//! history rules take for a record renamed): files of one content removed
//! and added, paired one to one as git pairs them, and the added file most
//! like a removed one that changed as it moved.

use crate::io::git::Change;
use crate::model::hashing::Map as HashMap;
use gix::ObjectId;

/// The exact renames among `changes` (sorted by path) of the content
/// `id`: (deleted path, added path), each file in one pair at most, as git
/// pairs them: a deleted file with an added file of the same name in
/// another directory first, then the others in path order. Several files
/// of the same content (empty `__init__.py`s moved to two places) are not
/// all taken for one of them.
pub(crate) fn exact_renames(changes: &[Change], id: ObjectId) -> Vec<(&str, &str)> {
    let deleted: Vec<&str> = changes
        .iter()
        .filter(|c| c.new.is_none() && c.old.is_some_and(|o| o.id == id))
        .map(|c| c.path.as_str())
        .collect();
    let added: Vec<&str> = changes
        .iter()
        .filter(|c| c.old.is_none() && c.new.is_some_and(|n| n.id == id))
        .map(|c| c.path.as_str())
        .collect();
    pair_exact(deleted, added)
}

/// [`exact_renames`] of every content at once: one pass over `changes`
/// (a change that moves a directory of thousands of files).
pub(crate) fn all_exact_renames(changes: &[Change]) -> Vec<(&str, &str)> {
    let mut by_id: HashMap<ObjectId, (Vec<&str>, Vec<&str>)> = HashMap::default();
    for c in changes {
        match (c.old, c.new) {
            (Some(o), None) => by_id.entry(o.id).or_default().0.push(c.path.as_str()),
            (None, Some(n)) => by_id.entry(n.id).or_default().1.push(c.path.as_str()),
            _ => {}
        }
    }
    let mut out: Vec<(&str, &str)> = by_id
        .into_values()
        .filter(|(deleted, added)| !deleted.is_empty() && !added.is_empty())
        .flat_map(|(deleted, added)| pair_exact(deleted, added))
        .collect();
    out.sort_unstable();
    out
}

/// Pairs files of one content, `deleted` and `added` (each in path
/// order), as [`exact_renames`] says.
fn pair_exact<'c>(deleted: Vec<&'c str>, added: Vec<&'c str>) -> Vec<(&'c str, &'c str)> {
    let mut added: Vec<Option<&str>> = added.into_iter().map(Some).collect();
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let mut pairs: Vec<Option<&str>> = vec![None; deleted.len()];
    for (d, pair) in deleted.iter().zip(pairs.iter_mut()) {
        if let Some(slot) = added
            .iter_mut()
            .find(|a| a.is_some_and(|a| base(a) == base(d)))
        {
            *pair = slot.take();
        }
    }
    let mut rest = added.into_iter().flatten();
    for pair in pairs.iter_mut().filter(|p| p.is_none()) {
        *pair = rest.next();
    }
    deleted
        .into_iter()
        .zip(pairs)
        .filter_map(|(d, a)| Some((d, a?)))
        .collect()
}

/// Largest file compared with another to find a rename that changed it
/// (a line diff each).
pub(crate) const COMPARED_BYTES: usize = 1 << 20;

/// Of `candidates` (index, text), the one that shares most of the lines of
/// `old`, at least half (git's rename threshold); texts over
/// [`COMPARED_BYTES`] are not compared.
pub(crate) fn most_alike<'t>(
    old: &str,
    candidates: impl IntoIterator<Item = (usize, &'t str)>,
) -> Option<usize> {
    if old.len() > COMPARED_BYTES {
        return None;
    }
    let mut best: Option<(usize, f32)> = None;
    for (i, new) in candidates {
        if new.len() > COMPARED_BYTES {
            continue;
        }
        let ratio = similar::TextDiff::from_lines(old, new).ratio();
        if ratio >= 0.5 && best.is_none_or(|(_, r)| ratio > r) {
            best = Some((i, ratio));
        }
    }
    best.map(|(i, _)| i)
}
