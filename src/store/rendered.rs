//! `.memlint/rendered`: the human `check` output of each file's findings
//! as the last run that rendered them wrote it, keyed by everything the
//! bytes depend on (see `cli/rendered.rs`), so that a warm check copies
//! the reports of unchanged files instead of reading the files again and
//! rendering them. One file holds the reports of one scope (memlint, its
//! configuration, the output's width and colours): a run in another scope
//! ignores it and writes its own.

use crate::io::cache::{DIR, FORMAT};
use crate::model::workspace::Workspace;
use crate::store::codec::{checked, Writer};
use std::path::Path;

/// The file's name inside [`DIR`].
pub(crate) const RENDERED: &str = "rendered";

const MAGIC: &[u8; 8] = b"MLRENDR\0";

/// The layout of this file, besides [`FORMAT`]: a file of another layout
/// is ignored (and replaced by the next run that renders). 2: the reports
/// are kept as the last output pass made them (1: as drawn).
const LAYOUT: u32 = 2;

/// Most bytes of the file used: a larger one (damaged, or a workspace
/// whose report is larger still) is ignored and not written.
pub(crate) const MAX_BYTES: usize = 256 << 20;

/// The stored reports of one scope.
pub(crate) struct Rendered {
    bytes: crate::io::map::Mapped,
    /// Each entry's key and the range of its text in `bytes`, sorted by
    /// key.
    entries: Vec<(u128, std::ops::Range<usize>)>,
}

impl Rendered {
    /// The stored text of `key`, when it is there and valid UTF-8.
    pub(crate) fn get(&self, key: u128) -> Option<&str> {
        let i = self.entries.binary_search_by_key(&key, |e| e.0).ok()?;
        // A file of reports is mostly box drawing: checked by SIMD.
        simdutf8::basic::from_utf8(self.bytes.get(self.entries[i].1.clone())?).ok()
    }
}

/// The stored reports of `scope`; `None` when the file is missing,
/// damaged, too large, of another layout or of another scope.
pub(crate) fn load(root: &Path, scope: u64) -> Option<Rendered> {
    let path = root.join(DIR).join(RENDERED);
    // Bounded before it is mapped (a mapping is read whole).
    if crate::io::files::metadata(&path).ok()?.len() > MAX_BYTES as u64 {
        return None;
    }
    let bytes = crate::io::map::map_regular(&path).ok()?;
    if bytes.len() > MAX_BYTES {
        return None;
    }
    let entries = decode(&bytes, scope)?;
    Some(Rendered { bytes, entries })
}

/// The entries of a file of `scope`, their texts' ranges in `bytes`.
fn decode(bytes: &[u8], scope: u64) -> Option<Vec<(u128, std::ops::Range<usize>)>> {
    let mut r = checked(bytes, MAGIC)?;
    let layout = u32::from_le_bytes(r.bytes(4)?.try_into().ok()?);
    if layout != LAYOUT || r.fixed64()? != scope {
        return None;
    }
    let n = r.count()?;
    let mut lens = Vec::with_capacity(n);
    for _ in 0..n {
        let key = u128::from_le_bytes(r.bytes(16)?.try_into().ok()?);
        if lens.last().is_some_and(|&(prev, _)| prev >= key) {
            return None;
        }
        lens.push((key, r.usize()?));
    }
    let mut at = r.pos;
    let mut entries = Vec::with_capacity(n);
    for (key, len) in lens {
        let end = at.checked_add(len).filter(|&e| e <= r.buf.len())?;
        entries.push((key, at..end));
        at = end;
    }
    // The texts fill the rest exactly.
    (at == r.buf.len()).then_some(entries)
}

/// Stores `entries` (key and text; sorted and deduplicated here) as the
/// reports of `scope`. A cache: a failure to write is ignored, and a file
/// that would be over [`MAX_BYTES`] is not written (an older one is
/// removed, since it no longer helps).
pub(crate) fn save(ws: &Workspace, scope: u64, mut entries: Vec<(u128, &str)>) {
    entries.sort_unstable_by_key(|e| e.0);
    entries.dedup_by_key(|e| e.0);
    let bytes = encode(scope, &entries);
    let Ok(dir) = crate::io::cache::make_dir(&ws.root) else {
        return;
    };
    let path = dir.join(RENDERED);
    if bytes.len() > MAX_BYTES {
        let _ = crate::io::files::remove_file(&path);
        return;
    }
    let _ = crate::io::fs::write_cache(&path, &bytes);
}

fn encode(scope: u64, entries: &[(u128, &str)]) -> Vec<u8> {
    let texts: usize = entries.iter().map(|e| e.1.len()).sum();
    let mut w = Writer {
        buf: Vec::with_capacity(texts.saturating_add(entries.len() * 20).saturating_add(64)),
    };
    w.buf.extend_from_slice(MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.buf.extend_from_slice(&LAYOUT.to_le_bytes());
    w.buf.extend_from_slice(&scope.to_le_bytes());
    w.usize(entries.len());
    for (key, text) in entries {
        w.buf.extend_from_slice(&key.to_le_bytes());
        w.usize(text.len());
    }
    for (_, text) in entries {
        w.buf.extend_from_slice(text.as_bytes());
    }
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_reports_read_back_and_damage_or_another_scope_reads_as_none() {
        let entries = vec![(3u128 << 100, "b\n"), (7, "a ✓\n"), (u128::MAX, "")];
        let mut sorted = entries.clone();
        sorted.sort_unstable_by_key(|e| e.0);
        let bytes = encode(42, &sorted);
        let got = decode(&bytes, 42).expect("decoded");
        let texts: Vec<(u128, &str)> = got
            .iter()
            .map(|(k, r)| (*k, std::str::from_utf8(&bytes[r.clone()]).unwrap()))
            .collect();
        assert_eq!(texts, sorted);
        assert!(decode(&bytes, 43).is_none());
        for cut in [1, 8, bytes.len() / 2] {
            assert!(decode(&bytes[..bytes.len() - cut], 42).is_none());
        }
        let mut bad = bytes.clone();
        bad[30] ^= 1;
        assert!(decode(&bad, 42).is_none());
    }
}
