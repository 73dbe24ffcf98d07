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
//!
//! Most records cite no file: those are kept as one 64-bit fingerprint of
//! path and blob id each, sorted, not by path, so that the file stays a
//! small fraction of the record table and a lookup decodes no path.

use crate::io::fs::read_regular;
use crate::model::workspace::Workspace;
use crate::store::codec::{checked, Reader, Writer, FORMAT};
use crate::store::table::DIR;
use gix::ObjectId;
use std::borrow::Cow;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The cache's name inside [`DIR`].
pub const CITES: &str = "cites";

/// The second layout: records citing nothing kept as fingerprints.
const MAGIC: &[u8; 8] = b"MLCITES2";

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

/// What stands for a record citing no file: its path and blob id (short)
/// hashed together (two records agreeing on it by chance is a 2^-64
/// event).
pub fn fingerprint(path: &str, id: u64) -> u64 {
    xxh3_64_with_seed(path.as_bytes(), id)
}

/// The stored citations.
pub struct Stored<'a> {
    /// The configuration key.
    pub key: u64,
    /// The records citing a file, sorted by path.
    pub citing: Vec<Record<'a>>,
    /// The [`fingerprint`]s of the records citing none, sorted.
    others: Vec<u64>,
}

impl Stored<'_> {
    /// Whether the record at `path` with blob id `id` (short) is one
    /// stored as citing no file.
    pub fn cites_nothing(&self, path: &str, id: u64) -> bool {
        self.others.binary_search(&fingerprint(path, id)).is_ok()
    }
}

/// Writes the records (sorted by path) under configuration key `key`; a
/// cache, so a failure to write is ignored.
pub fn save(ws: &Workspace, key: u64, records: &[Record]) {
    let mut others: Vec<u64> = records
        .iter()
        .filter(|r| r.cites.is_empty())
        .map(|r| fingerprint(r.path, r.id))
        .collect();
    others.sort_unstable();
    others.dedup();
    let mut w = Writer { buf: Vec::new() };
    w.buf.extend_from_slice(MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.uint(key);
    let citing: Vec<&Record> = records.iter().filter(|r| !r.cites.is_empty()).collect();
    w.usize(citing.len());
    for r in citing {
        w.str(r.path);
        w.buf.extend_from_slice(&r.id.to_le_bytes());
        w.usize(r.cites.len());
        for c in &r.cites {
            w.str(c);
        }
    }
    w.usize(others.len());
    for f in &others {
        w.buf.extend_from_slice(&f.to_le_bytes());
    }
    let bytes = w.finish();
    let _ = crate::io::cache::make_dir_of(ws)
        .and_then(|dir| crate::io::fs::write_cache(&dir.join(CITES), &bytes));
}

/// Whether the stored file exists and is for configuration key `key`
/// (its checksum is not verified: a full check only needs to know whether
/// to write it).
pub fn present(root: &Path, key: u64) -> bool {
    let Ok(bytes) = read_regular(&root.join(DIR).join(CITES)) else {
        return false;
    };
    decode(&bytes).is_some_and(|s| s.key == key)
}

/// The stored bytes, to be read with [`decode`].
pub fn load(root: &Path) -> Option<Vec<u8>> {
    read_regular(&root.join(DIR).join(CITES)).ok()
}

/// The citations of stored `bytes`; `None` when damaged.
pub fn decode(bytes: &[u8]) -> Option<Stored<'_>> {
    let mut r: Reader = checked(bytes, MAGIC)?;
    let key = r.uint()?;
    let n = r.count()?;
    let mut citing = Vec::with_capacity(n);
    for _ in 0..n {
        let path = r.str_ref()?;
        let id = r.fixed64()?;
        let m = r.count()?;
        let mut cites = Vec::with_capacity(m);
        for _ in 0..m {
            cites.push(Cow::Borrowed(r.str_ref()?));
        }
        citing.push(Record { path, id, cites });
    }
    let n = r.usize()?;
    if n.checked_mul(8)? != r.buf.len() - r.pos {
        return None;
    }
    let others = r
        .bytes(n * 8)?
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
        .collect();
    r.at_end().then_some(Stored {
        key,
        citing,
        others,
    })
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
        let ws = Workspace::new(dir.path().to_path_buf(), Default::default());
        save(&ws, 9, &records);
        assert!(present(dir.path(), 9));
        assert!(!present(dir.path(), 8));
        let bytes = load(dir.path()).unwrap();
        let stored = decode(&bytes).unwrap();
        assert_eq!(stored.key, 9);
        assert_eq!(stored.citing.len(), 1);
        assert_eq!(stored.citing[0].cites, vec!["src/a.rs", "src/b.rs"]);
        assert!(stored.cites_nothing("knowledge/b.md", u64::MAX));
        assert!(!stored.cites_nothing("knowledge/b.md", 7));
        assert!(!stored.cites_nothing("knowledge/a.md", 7));
        let mut bad = bytes.clone();
        bad[20] ^= 1;
        assert!(decode(&bad).is_none());
    }
}
