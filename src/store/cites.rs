//! `.memlint/cites`: which files the records cite, as of the git blob of
//! each record, so that `check --staged` and `check --base` find the
//! records citing a file the change modifies without reading every
//! record. Written by a full `check` from the record table: every record
//! whose table entry carries the blob id the git index vouched for, with
//! its well-formed `file:` sources, located. A record of the change's
//! version whose blob id is the stored one has exactly the stored
//! sources, so it is not read at all; any other record is read as before.
//! Keyed by the configuration ([`crate::io::cache::key`]), which decides
//! what is a record and how its sources read.
//!
//! The file is laid out so that a lookup decodes only what it needs:
//!
//! - the cited files, sorted, each with the indexes of the records citing
//!   it (an inverted map: a change modifying one file decodes the few
//!   records citing it, not every citing record);
//! - the citing records, sorted by path, each at an offset of a table of
//!   fixed-width offsets: path, blob id (short), sources;
//! - the directories whose records are all stored but for a few, each
//!   with its git tree id as the index held it and the paths of its
//!   records not stored (edited since their commit, say): a version
//!   holding that tree there holds those very records, so none of its
//!   paths is looked up one by one, and only the few are read;
//! - the [`fingerprint`]s of every stored record (citing or not), sorted:
//!   whether a record of the version is known, without decoding a path.

use crate::io::cache::DIR;
use crate::io::cache::FORMAT;
use crate::lint::Located;
use crate::model::hashing::{Map, Set};
use crate::model::workspace::Workspace;
use crate::store::codec::{checked, Reader, Writer};
use gix::ObjectId;
use std::borrow::Cow;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The cache's name inside [`DIR`].
pub(crate) const CITES: &str = "cites";

/// The fifth layout: cited files → records, located sources, the
/// directories known whole by their tree id (with the paths of the
/// records there not stored), every record's fingerprint. A file of an
/// earlier layout is not read.
const MAGIC: &[u8; 8] = b"MLCITES5";

/// A directory known whole as written: root-relative (ending in `/`), its
/// tree id as the index held it, and the paths (sorted) of the records
/// there the file does not store, to be read one by one.
pub(crate) struct KnownDir {
    pub dir: String,
    pub tree: ObjectId,
    pub unstored: Vec<String>,
}

/// A directory known whole, as read back (see [`KnownDir`]).
pub(crate) struct WholeDir<'a> {
    pub dir: &'a str,
    /// The paths of the records there not stored, sorted.
    pub unstored: Vec<&'a str>,
}

/// At most how many records of a directory may be left unstored for it to
/// be kept whole: a few edited records, not a directory mostly unknown.
fn unstored_max(entries: usize) -> usize {
    (entries / 8).max(64)
}

/// How many directory levels below the root are kept by tree id (the
/// record directories are `knowledge/` and `memory/KIND/`).
pub(crate) const DIR_DEPTH: usize = 2;

/// The first eight bytes of a blob id: what a record's version is told
/// apart by (two versions of one record agreeing on them by chance is a
/// 2^-64 event).
pub(crate) fn short_id(id: &ObjectId) -> u64 {
    let b = id.as_bytes();
    let mut out = [0u8; 8];
    out.copy_from_slice(&b[..8]);
    u64::from_le_bytes(out)
}

/// One record as stored: its path, its blob id (short), its well-formed
/// `file:` sources, each with the root-relative file it names.
pub(crate) struct Record<'a> {
    pub path: &'a str,
    pub id: u64,
    pub sources: Vec<(&'a Located, Cow<'a, str>)>,
}

/// A stored record citing one of the files asked about.
pub(crate) struct Citer<'a> {
    pub path: &'a str,
    pub id: u64,
    /// Its well-formed `file:` sources, located, in the record's order.
    pub sources: Vec<Located>,
}

/// What stands for a record: its path and blob id (short) hashed together
/// (two records agreeing on it by chance is a 2^-64 event).
pub(crate) fn fingerprint(path: &str, id: u64) -> u64 {
    xxh3_64_with_seed(path.as_bytes(), id)
}

/// Whether `known` (little-endian u64s, ascending) holds `target`. The
/// fingerprints are hashes, spread evenly: the first steps guess where
/// `target` sits from its value (a few probes among 100k instead of
/// seventeen, each a cache miss, for every path a change looks up); the
/// rest bisect, so that no order of values costs more than twice a binary
/// search.
fn sorted_holds(known: &[u8], target: u64) -> bool {
    let at = |i: usize| {
        let b = &known[i * 8..i * 8 + 8];
        u64::from_le_bytes(b.try_into().unwrap_or_default())
    };
    // `target` lies in [lo, hi) by index and in [low, high] by value.
    let (mut lo, mut hi) = (0, known.len() / 8);
    let (mut low, mut high) = (0u64, u64::MAX);
    let mut guesses = 0;
    while lo < hi {
        let mid = match guesses < 4 && high > low {
            true => {
                guesses += 1;
                let off = u128::from(target.saturating_sub(low)) * (hi - lo - 1) as u128
                    / u128::from(high - low);
                lo + off as usize
            }
            false => lo + (hi - lo) / 2,
        };
        let v = at(mid);
        match v.cmp(&target) {
            std::cmp::Ordering::Less => (lo, low) = (mid + 1, v.saturating_add(1)),
            std::cmp::Ordering::Greater => (hi, high) = (mid, v.saturating_sub(1)),
            std::cmp::Ordering::Equal => return true,
        }
        if low > target || high < target {
            return false;
        }
    }
    false
}

/// The stored citations, decoded only as far as asked.
pub(crate) struct Stored<'a> {
    /// The configuration key.
    pub key: u64,
    /// Cited file → the LEB128 indexes (ascending) of the records citing it.
    files: Map<&'a str, &'a [u8]>,
    /// One little-endian u32 per citing record: where it starts in `data`.
    offsets: &'a [u8],
    /// The citing records.
    data: &'a [u8],
    /// The sorted fingerprints of every stored record, little-endian u64s.
    known: &'a [u8],
    /// Root-relative directories (ending in `/`, sorted) whose records are
    /// all stored but for the paths listed, with their tree ids then.
    dirs: Vec<(&'a str, ObjectId, Vec<&'a str>)>,
}

impl<'a> Stored<'a> {
    /// Whether the record at `path` with blob id `id` (short) is stored
    /// (citing a file or not).
    pub(crate) fn knows(&self, path: &str, id: u64) -> bool {
        sorted_holds(self.known, fingerprint(path, id))
    }

    /// The stored directories whose tree id `tree_of` the version (the
    /// root-relative directory → its tree id there) gives as the stored
    /// one: every record under them but the unstored ones is stored as the
    /// version holds it. Sorted, none inside another.
    pub(crate) fn known_dirs(
        &self,
        tree_of: &dyn Fn(&str) -> Option<ObjectId>,
    ) -> Vec<WholeDir<'a>> {
        let mut out: Vec<WholeDir<'a>> = Vec::new();
        for (dir, id, unstored) in &self.dirs {
            if out.last().is_some_and(|d| dir.starts_with(d.dir)) {
                continue;
            }
            if tree_of(dir) == Some(*id) {
                out.push(WholeDir {
                    dir,
                    unstored: unstored.clone(),
                });
            }
        }
        out
    }

    /// The stored records citing one of `files`, sorted by path; `None`
    /// when the file is damaged.
    pub(crate) fn citing(&self, files: &[&str]) -> Option<Vec<Citer<'a>>> {
        let count = self.offsets.len() / 4;
        let mut indexes: Vec<usize> = Vec::new();
        for f in files {
            let Some(list) = self.files.get(f) else {
                continue;
            };
            let mut r = Reader { buf: list, pos: 0 };
            while !r.at_end() {
                let i = r.usize()?;
                if i >= count {
                    return None;
                }
                indexes.push(i);
            }
        }
        indexes.sort_unstable();
        indexes.dedup();
        indexes.into_iter().map(|i| self.record(i)).collect()
    }

    fn record(&self, i: usize) -> Option<Citer<'a>> {
        let b = self.offsets.get(i * 4..i * 4 + 4)?;
        let at = u32::from_le_bytes(b.try_into().ok()?) as usize;
        let mut r = Reader {
            buf: self.data,
            pos: at,
        };
        let path = r.str_ref()?;
        let id = r.fixed64()?;
        let n = r.count()?;
        let mut sources = Vec::with_capacity(n);
        for _ in 0..n {
            sources.push(r.located()?);
        }
        Some(Citer { path, id, sources })
    }
}

/// Of the directories whose tree the git index holds (`dirs`, sorted, as
/// [`crate::io::git::Tracked::cached_dirs`] gives them, index entry `i`
/// read by `entry`), those whose records are `records` (sorted by path)
/// there but for a few: every index entry that `is_record` is stored with
/// its blob id or listed as not stored (at most [`unstored_max`]), and no
/// stored record is missing from the index.
pub(crate) fn known_dirs<'e>(
    records: &[Record],
    dirs: &[crate::io::git::CachedDir],
    entry: &dyn Fn(usize) -> Option<(&'e str, ObjectId)>,
    is_record: &dyn Fn(&str) -> bool,
) -> Vec<KnownDir> {
    let mut out: Vec<KnownDir> = Vec::new();
    for d in dirs {
        // Inside a directory known whole, every directory is, but for the
        // records not stored there.
        let inside = out.iter().find(|o| d.dir.starts_with(o.dir.as_str()));
        let unstored = match inside {
            Some(o) => Some(
                o.unstored
                    .iter()
                    .filter(|p| p.starts_with(d.dir.as_str()))
                    .cloned()
                    .collect(),
            ),
            None => unstored_under(records, d, entry, is_record),
        };
        if let Some(unstored) = unstored {
            out.push(KnownDir {
                dir: d.dir.clone(),
                tree: d.tree,
                unstored,
            });
        }
    }
    out
}

/// The records of `d`'s index entries not stored as the index holds them,
/// when they are few and every stored record under `d` is in the index
/// (see [`known_dirs`]): one walk along both sorted lists.
fn unstored_under<'e>(
    records: &[Record],
    d: &crate::io::git::CachedDir,
    entry: &dyn Fn(usize) -> Option<(&'e str, ObjectId)>,
    is_record: &dyn Fn(&str) -> bool,
) -> Option<Vec<String>> {
    let mut j = records.partition_point(|r| r.path < d.dir.as_str());
    let mut unstored = Vec::new();
    for i in d.range.clone() {
        let (path, id) = entry(i)?;
        // A stored record sorted before this entry (and so under the
        // directory) that the index does not hold.
        if records.get(j).is_some_and(|r| r.path < path) {
            return None;
        }
        match records.get(j) {
            Some(r) if r.path == path => {
                if r.id != short_id(&id) {
                    unstored.push(path.to_string());
                }
                j += 1;
            }
            _ if is_record(path) => unstored.push(path.to_string()),
            _ => {}
        }
        if unstored.len() > unstored_max(d.range.len()) {
            return None;
        }
    }
    let missing = records
        .get(j)
        .is_some_and(|r| r.path.starts_with(d.dir.as_str()));
    (!missing).then_some(unstored)
}

/// Writes the records (sorted by path) under configuration key `key`, with
/// the directories known whole (see [`known_dirs`]); a cache, so a
/// failure to write is ignored.
pub(crate) fn save(ws: &Workspace, key: u64, records: &[Record], dirs: &[KnownDir]) {
    let Some(bytes) = encode(key, records, dirs) else {
        return;
    };
    let _ = crate::io::cache::make_dir(&ws.root)
        .and_then(|dir| crate::io::fs::write_cache(&dir.join(CITES), &bytes));
}

/// The file's bytes; `None` when the records' data would not fit the
/// 32-bit offsets (never on a workspace memlint reads in full).
fn encode(key: u64, records: &[Record], dirs: &[KnownDir]) -> Option<Vec<u8>> {
    let known = known(records.iter().map(|r| (r.path, r.id)));
    let citing: Vec<&Record> = records.iter().filter(|r| !r.sources.is_empty()).collect();
    let mut by_file: Map<&str, Vec<usize>> = Map::default();
    for (i, r) in citing.iter().enumerate() {
        let files: Set<&str> = r.sources.iter().map(|(_, f)| f.as_ref()).collect();
        for f in files {
            by_file.entry(f).or_default().push(i);
        }
    }
    let mut files: Vec<(&str, Vec<usize>)> = by_file.into_iter().collect();
    files.sort_unstable();
    // The records' data first, so that the file's buffer is allocated
    // once at its size (each integer in at most ten bytes) and never
    // copied to a larger one; the data itself, about as large as the
    // values and paths it holds (3 MB on 100k records), likewise.
    const INT: usize = 10;
    let data_size: usize = citing
        .iter()
        .map(|r| {
            let sources: usize = r
                .sources
                .iter()
                .map(|(at, _)| at.value.len() + 8 * INT)
                .sum();
            r.path.len() + 2 * INT + 8 + sources
        })
        .sum();
    let mut data = Writer {
        buf: Vec::with_capacity(data_size),
    };
    let mut offsets = Vec::with_capacity(citing.len() * 4);
    for r in &citing {
        let at = u32::try_from(data.buf.len()).ok()?;
        offsets.extend_from_slice(&at.to_le_bytes());
        data.str(r.path);
        data.buf.extend_from_slice(&r.id.to_le_bytes());
        data.usize(r.sources.len());
        for (at, _) in &r.sources {
            data.located(at);
        }
    }
    let files_size: usize = files
        .iter()
        .map(|(f, indexes)| f.len() + 2 * INT + indexes.len() * INT)
        .sum();
    let dirs_size: usize = dirs
        .iter()
        .map(|d| {
            let unstored: usize = d.unstored.iter().map(|p| p.len() + INT).sum();
            d.dir.len() + 3 * INT + 64 + unstored
        })
        .sum();
    let mut w = Writer {
        buf: Vec::with_capacity(
            64 + files_size + offsets.len() + data.buf.len() + dirs_size + known.len() * 8,
        ),
    };
    w.buf.extend_from_slice(MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.uint(key);
    w.usize(files.len());
    let mut list = Writer { buf: Vec::new() };
    for (f, indexes) in &files {
        w.str(f);
        list.buf.clear();
        for i in indexes {
            list.usize(*i);
        }
        w.usize(list.buf.len());
        w.buf.extend_from_slice(&list.buf);
    }
    w.usize(citing.len());
    w.buf.extend_from_slice(&offsets);
    w.usize(data.buf.len());
    w.buf.extend_from_slice(&data.buf);
    w.usize(dirs.len());
    for d in dirs {
        w.str(&d.dir);
        w.usize(d.tree.as_bytes().len());
        w.buf.extend_from_slice(d.tree.as_bytes());
        w.usize(d.unstored.len());
        for p in &d.unstored {
            w.str(p);
        }
    }
    w.usize(known.len());
    for f in &known {
        w.buf.extend_from_slice(&f.to_le_bytes());
    }
    Some(w.finish())
}

/// Whether the stored file is of this layout and for configuration key
/// `key` (read from its first bytes; its checksum is not verified: a full
/// check only needs to know whether to write it).
pub(crate) fn present(root: &Path, key: u64) -> bool {
    let Ok(head) = crate::io::files::read_head(root.join(DIR).join(CITES), 32) else {
        return false;
    };
    let mut r = Reader { buf: &head, pos: 0 };
    r.bytes(MAGIC.len()) == Some(MAGIC.as_slice())
        && r.bytes(4) == Some(FORMAT.to_le_bytes().as_slice())
        && r.uint() == Some(key)
}

/// Whether the stored file is intact, of this layout, for configuration
/// key `key` and holds every record whose sorted, deduplicated
/// [`fingerprint`]s are `known` (it may hold more). Each stored record's
/// sources follow from its blob and the configuration, and each stored
/// directory's records from its tree id: what the file says stays true of
/// those objects whatever the work tree becomes, and a reader takes a
/// record or a directory only where the version it reads holds that very
/// blob or tree. So a `check` after editing a record since its commit
/// (its index entry still holds the stored blob), removing one, or adding
/// one not committed leaves the file as it is instead of working out and
/// writing megabytes again; a record with a blob id the file does not
/// store (committed, or added to git) writes it.
pub(crate) fn holds(root: &Path, key: u64, known: &[u64]) -> bool {
    let Some(bytes) = load(root) else {
        return false;
    };
    decode(&bytes).is_some_and(|stored| stored.key == key && covers(stored.known, known))
}

/// Whether `stored` (little-endian u64s, ascending) holds every value of
/// `known` (ascending): the two lists walked together.
fn covers(stored: &[u8], known: &[u64]) -> bool {
    if stored.len() < known.len() * 8 {
        return false;
    }
    let mut values = stored
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()));
    known
        .iter()
        .all(|k| values.by_ref().find(|v| v >= k) == Some(*k))
}

/// The sorted, deduplicated [`fingerprint`]s of records (path, blob id
/// short): what [`holds`] compares.
pub(crate) fn known<'a>(records: impl Iterator<Item = (&'a str, u64)>) -> Vec<u64> {
    let mut known: Vec<u64> = records.map(|(path, id)| fingerprint(path, id)).collect();
    known.sort_unstable();
    known.dedup();
    known
}

/// The stored bytes, to be read with [`decode`]: mapped, not copied into
/// fresh memory (a warm check reads these 3 MB only to compare them).
pub(crate) fn load(root: &Path) -> Option<crate::io::map::Mapped> {
    crate::io::map::map_regular(&root.join(DIR).join(CITES)).ok()
}

/// The citations of stored `bytes`; `None` when damaged or of another
/// layout. Only the cited files are decoded here; records are decoded by
/// [`Stored::citing`].
pub(crate) fn decode(bytes: &[u8]) -> Option<Stored<'_>> {
    let mut r: Reader = checked(bytes, MAGIC)?;
    let key = r.uint()?;
    let n = r.count()?;
    let mut files = Map::default();
    files.reserve(n);
    for _ in 0..n {
        let f = r.str_ref()?;
        let len = r.usize()?;
        files.insert(f, r.bytes(len)?);
    }
    let n = r.count()?;
    let offsets = r.bytes(n.checked_mul(4)?)?;
    let len = r.usize()?;
    let data = r.bytes(len)?;
    let n = r.count()?;
    let mut dirs = Vec::with_capacity(n);
    for _ in 0..n {
        let dir = r.str_ref()?;
        let len = r.usize()?;
        let id = ObjectId::try_from(r.bytes(len)?).ok()?;
        let n = r.count()?;
        let mut unstored = Vec::with_capacity(n);
        for _ in 0..n {
            unstored.push(r.str_ref()?);
        }
        dirs.push((dir, id, unstored));
    }
    let n = r.usize()?;
    if n.checked_mul(8)? != r.buf.len() - r.pos {
        return None;
    }
    let known = r.bytes(n * 8)?;
    r.at_end().then_some(Stored {
        key,
        files,
        offsets,
        data,
        known,
        dirs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covers_holds_subsets_only() {
        let bytes =
            |list: &[u64]| -> Vec<u8> { list.iter().flat_map(|v| v.to_le_bytes()).collect() };
        let stored = bytes(&[2, 5, 9, 40]);
        for (known, held) in [
            (&[][..], true),
            (&[2][..], true),
            (&[2, 5, 9, 40][..], true),
            (&[5, 40][..], true),
            (&[1][..], false),
            (&[5, 6][..], false),
            (&[40, 41][..], false),
            (&[2, 5, 9, 40, 50][..], false),
        ] {
            assert_eq!(covers(&stored, known), held, "{known:?}");
        }
        assert!(!covers(&[], &[0]));
    }

    #[test]
    fn sorted_holds_finds_every_value_and_no_other() {
        let lists: [Vec<u64>; 5] = [
            Vec::new(),
            vec![0],
            vec![u64::MAX],
            vec![0, 1, 2, 3, u64::MAX - 1, u64::MAX],
            // Spread evenly, then bunched at one end (guesses go wrong).
            (0..2000u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .chain((0..500).map(|i| u64::MAX - 3 * i))
                .collect(),
        ];
        for mut list in lists {
            list.sort_unstable();
            list.dedup();
            let bytes: Vec<u8> = list.iter().flat_map(|v| v.to_le_bytes()).collect();
            for &v in &list {
                assert!(sorted_holds(&bytes, v), "{v} in {list:?}");
                for other in [v.wrapping_add(1), v.wrapping_sub(1)] {
                    let held = list.binary_search(&other).is_ok();
                    assert_eq!(sorted_holds(&bytes, other), held, "{other}");
                }
            }
            for probe in [0, 1, 12345, u64::MAX / 2, u64::MAX] {
                assert_eq!(
                    sorted_holds(&bytes, probe),
                    list.binary_search(&probe).is_ok()
                );
            }
        }
    }

    fn at(value: &str, line: usize) -> Located {
        Located {
            value: value.to_string(),
            span: 10 * line..10 * line + value.len(),
            line,
            column: 5,
            end_line: line,
            end_column: 5 + value.len(),
        }
    }

    #[test]
    fn stored_records_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            at("file:src/a.rs", 3),
            at("file:src/b.rs#L2-L4", 4),
            at("file:src/a.rs#L1", 5),
        );
        let records = vec![
            Record {
                path: "knowledge/a.md",
                id: 7,
                sources: vec![(&a, "src/a.rs".into()), (&b, "src/b.rs".into())],
            },
            Record {
                path: "knowledge/b.md",
                id: u64::MAX,
                sources: vec![],
            },
            Record {
                path: "knowledge/c.md",
                id: 1,
                sources: vec![(&c, "src/a.rs".into())],
            },
        ];
        let ws = Workspace::new(dir.path().to_path_buf(), Default::default());
        save(&ws, 9, &records, &[]);
        assert!(present(dir.path(), 9));
        assert!(!present(dir.path(), 8));
        let bytes = load(dir.path()).unwrap();
        let stored = decode(&bytes).unwrap();
        assert_eq!(stored.key, 9);
        let of = |files: &[&str]| -> Vec<(String, Vec<String>)> {
            stored
                .citing(files)
                .unwrap()
                .into_iter()
                .map(|c| {
                    let values = c.sources.iter().map(|s| s.value.clone()).collect();
                    (c.path.to_string(), values)
                })
                .collect()
        };
        assert_eq!(
            of(&["src/b.rs"]),
            vec![(
                "knowledge/a.md".to_string(),
                vec![
                    "file:src/a.rs".to_string(),
                    "file:src/b.rs#L2-L4".to_string()
                ]
            )]
        );
        let both = of(&["src/a.rs", "src/b.rs"]);
        assert_eq!(both.len(), 2);
        assert_eq!(both[1].0, "knowledge/c.md");
        assert!(of(&["src/c.rs"]).is_empty());
        let citer = &stored.citing(&["src/a.rs"]).unwrap()[1];
        assert_eq!(citer.id, 1);
        assert_eq!(citer.sources[0].span, c.span);
        assert_eq!(citer.sources[0].line, 5);
        assert!(stored.knows("knowledge/b.md", u64::MAX));
        assert!(stored.knows("knowledge/a.md", 7));
        assert!(!stored.knows("knowledge/b.md", 7));
        assert!(!stored.knows("knowledge/d.md", 7));
        let mut bad = bytes.to_vec();
        bad[20] ^= 1;
        assert!(decode(&bad).is_none());
    }

    /// A file of the second layout (before the cited files were mapped to
    /// their records) is not read, nor taken as present.
    #[test]
    fn an_older_layout_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = Writer { buf: Vec::new() };
        w.buf.extend_from_slice(b"MLCITES2");
        w.buf.extend_from_slice(&FORMAT.to_le_bytes());
        w.uint(9);
        w.usize(1);
        w.str("knowledge/a.md");
        w.buf.extend_from_slice(&7u64.to_le_bytes());
        w.usize(1);
        w.str("src/a.rs");
        w.usize(0);
        let bytes = w.finish();
        crate::io::cache::make_dir(dir.path()).unwrap();
        crate::io::fs::write_cache(&dir.path().join(DIR).join(CITES), &bytes).unwrap();
        assert!(decode(&bytes).is_none());
        assert!(!present(dir.path(), 9));
    }
}
