//! `.memlint/cites`: which files the records cite, as of the git blob of
//! each record, so that `check --staged` and `check --base` find the
//! records citing a file the change modifies without reading every
//! record. Written by a full `check` from the record table: every record
//! whose table entry carries the blob id the git index vouched for, with
//! the `file:` paths it cites. A record of the change's version whose blob
//! id is the stored one cites exactly the stored paths; any other record
//! is read as before. Keyed by the configuration
//! ([`crate::io::cache::key`]), which decides what is a record and how its
//! sources read.

use crate::io::fs::read_regular;
use crate::store::codec::{checked, Reader, Writer, FORMAT};
use crate::store::table::{make_dir, DIR};
use gix::ObjectId;
use std::borrow::Cow;
use std::path::Path;

/// The cache's name inside [`DIR`].
pub const CITES: &str = "cites";

const MAGIC: &[u8; 8] = b"MLCITES\0";

/// The first eight bytes of a blob id: what a record's version is told
/// apart by (two versions of one record agreeing on them by chance is a
/// 2^-64 event).
pub fn short_id(id: &ObjectId) -> u64 {
    let b = id.as_bytes();
    let mut out = [0u8; 8];
    out.copy_from_slice(&b[..8]);
    u64::from_le_bytes(out)
}

/// One record as stored: its path, its blob id (short), the files it
/// cites.
pub struct Record<'a> {
    pub path: &'a str,
    pub id: u64,
    pub cites: Vec<Cow<'a, str>>,
}

/// Writes the records (sorted by path) under configuration key `key`; a
/// cache, so a failure to write is ignored.
pub fn save(root: &Path, key: u64, records: &[Record]) {
    let mut w = Writer { buf: Vec::new() };
    w.buf.extend_from_slice(MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.uint(key);
    w.usize(records.len());
    for r in records {
        w.str(r.path);
        w.buf.extend_from_slice(&r.id.to_le_bytes());
        w.usize(r.cites.len());
        for c in &r.cites {
            w.str(c);
        }
    }
    let bytes = w.finish();
    let _ = make_dir(root).and_then(|dir| crate::io::fs::write_cache(&dir.join(CITES), &bytes));
}

/// Whether the stored file exists and is for configuration key `key`
/// (its checksum is not verified: a full check only needs to know whether
/// to write it).
pub fn present(root: &Path, key: u64) -> bool {
    let Ok(bytes) = read_regular(&root.join(DIR).join(CITES)) else {
        return false;
    };
    decode(&bytes).is_some_and(|(k, _)| k == key)
}

/// The stored bytes, to be read with [`decode`].
pub fn load(root: &Path) -> Option<Vec<u8>> {
    read_regular(&root.join(DIR).join(CITES)).ok()
}

/// The configuration key and the records (sorted by path) of stored
/// `bytes`; `None` when damaged.
pub fn decode(bytes: &[u8]) -> Option<(u64, Vec<Record<'_>>)> {
    let mut r: Reader = checked(bytes, MAGIC)?;
    let key = r.uint()?;
    let n = r.count()?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let path = r.str_ref()?;
        let id = u64::from_le_bytes(r.bytes(8)?.try_into().ok()?);
        let m = r.count()?;
        let mut cites = Vec::with_capacity(m);
        for _ in 0..m {
            cites.push(Cow::Borrowed(r.str_ref()?));
        }
        out.push(Record { path, id, cites });
    }
    r.at_end().then_some((key, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_records_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let records = vec![
            Record {
                path: "knowledge/a.md",
                id: 7,
                cites: vec!["src/a.rs".into(), "src/b.rs".into()],
            },
            Record {
                path: "knowledge/b.md",
                id: u64::MAX,
                cites: vec![],
            },
        ];
        save(dir.path(), 9, &records);
        assert!(present(dir.path(), 9));
        assert!(!present(dir.path(), 8));
        let bytes = load(dir.path()).unwrap();
        let (key, back) = decode(&bytes).unwrap();
        assert_eq!(key, 9);
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].cites, vec!["src/a.rs", "src/b.rs"]);
        assert_eq!(back[1].id, u64::MAX);
        let mut bad = bytes.clone();
        bad[20] ^= 1;
        assert!(decode(&bad).is_none());
    }
}
