//! `.memlint/drifted`: the records `sources/drifted` last found changed
//! (by `memlint check`), each with the hash of the record's text when it
//! was judged and its first drifted source, so that the commands that
//! serve memory (context, search, the prompt hook) can mark a drifted
//! record without reading the git history. A mark holds only while the
//! record's text still hashes the same: verifying, updating or replacing
//! the record drops it.

use crate::io::cache::DIR;
use crate::io::cache::FORMAT;
use crate::model::workspace::Workspace;
use crate::store::codec::{checked, Reader, Writer};
use serde::Serialize;
use std::path::Path;

/// The file's name inside [`DIR`].
pub(crate) const DRIFT_MARKS: &str = "drifted";

const MAGIC: &[u8; 8] = b"MLDMARK\0";

/// Most bytes of the file read (a damaged or hostile file is not read
/// whole: the marks are a cache).
const MAX_BYTES: u64 = 64 << 20;

/// Which source of a record changed, and in which commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DriftMark {
    /// The source as the record writes it (`file:src/cache.rs`).
    pub source: String,
    /// The newest commit that changed it (full id); `None` when the change
    /// is not committed yet, or the source was judged by its pin.
    pub commit: Option<String>,
    /// That commit's date (`YYYY-MM-DD`), with `commit`.
    pub date: Option<String>,
}

/// One marked record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marked {
    /// The record, root-relative.
    pub path: String,
    /// The xxh3-64 hash of the record's bytes when it was judged.
    pub hash: u64,
    /// Its first drifted source.
    pub mark: DriftMark,
}

/// The stored marks, sorted by path; none when the file is missing or
/// damaged.
pub(crate) fn load(root: &Path) -> Vec<Marked> {
    let path = root.join(DIR).join(DRIFT_MARKS);
    match crate::io::read::read_capped(&path, MAX_BYTES) {
        Ok(crate::model::content::Content::Bytes(bytes)) => decode(&bytes).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Stores `marks` (sorted by path here); a cache, so a failure to write is
/// ignored. No file is created for no marks.
pub(crate) fn save(ws: &Workspace, mut marks: Vec<Marked>) {
    let root = &ws.root;
    let path = root.join(DIR).join(DRIFT_MARKS);
    if marks.is_empty() && crate::io::files::symlink_metadata(&path).is_err() {
        return;
    }
    marks.sort_by(|a, b| a.path.cmp(&b.path));
    marks.dedup_by(|a, b| a.path == b.path);
    let bytes = encode(&marks);
    // The marks of a check that changed nothing they hold: the file is
    // left as it is (not rewritten).
    // (Compared mapped, and only when of the same length.)
    let same_length =
        crate::io::files::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64);
    if same_length && crate::io::map::map_regular(&path).is_ok_and(|old| *old == *bytes) {
        return;
    }
    let _ = crate::io::cache::make_dir(&ws.root)
        .and_then(|dir| crate::io::fs::write_cache(&dir.join(DRIFT_MARKS), &bytes));
}

fn encode(marks: &[Marked]) -> Vec<u8> {
    let mut w = Writer {
        buf: Vec::with_capacity(marks.len().saturating_mul(400).saturating_add(64)),
    };
    w.buf.extend_from_slice(MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.usize(marks.len());
    for m in marks {
        w.str(&m.path);
        w.buf.extend_from_slice(&m.hash.to_le_bytes());
        w.str(&m.mark.source);
        w.opt_str(m.mark.commit.as_deref());
        w.opt_str(m.mark.date.as_deref());
    }
    w.finish()
}

fn item(r: &mut Reader) -> Option<Marked> {
    Some(Marked {
        path: r.str()?,
        hash: r.fixed64()?,
        mark: DriftMark {
            source: r.str()?,
            commit: r.opt_str()?,
            date: r.opt_str()?,
        },
    })
}

fn decode(bytes: &[u8]) -> Option<Vec<Marked>> {
    let mut r = checked(bytes, MAGIC)?;
    let marks = r.sorted(item, |m| m.path.as_str())?;
    r.at_end().then_some(marks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_marks_read_back_and_damage_reads_as_none() {
        let marks = vec![
            Marked {
                path: "memory/decisions/a.md".into(),
                hash: 7,
                mark: DriftMark {
                    source: "file:src/a.rs".into(),
                    commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
                    date: Some("2026-12-05".into()),
                },
            },
            Marked {
                path: "memory/decisions/b.md".into(),
                hash: u64::MAX,
                mark: DriftMark {
                    source: "file:src/b.rs#L1-L2".into(),
                    commit: None,
                    date: None,
                },
            },
        ];
        let bytes = encode(&marks);
        assert_eq!(decode(&bytes).unwrap(), marks);
        let mut bad = bytes.clone();
        bad[14] ^= 1;
        assert!(decode(&bad).is_none());
    }
}
