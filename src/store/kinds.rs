//! `.memlint/kind.<kind>`: what `memlint new` needs of every record of one
//! kind, and nothing else: its path, the stat data its fields were read
//! with, whether its front matter could be read, whether it is replaced,
//! and its content sketch. A compact copy of a slice of the record table
//! (about 200 bytes a record instead of the table's whole entry), so that
//! `new` maps a few megabytes and decodes no string, instead of decoding
//! the kind's table entries. Each row proves itself: a row is used only
//! while its file's stat data are the stored ones and were not taken too
//! close to a change (see `Row::racy`); the others are read again. The file
//! also names the listing it was built from (`store::listing::listing_id`),
//! so that while the listing holds the rows are known to be all the
//! kind's records without reading the listing's file list.

use crate::io::cache::{DIR, FORMAT};
use crate::io::stat::Stat;
use crate::model::kind::Kind;
use crate::store::codec::{checked, Reader, Writer};
use crate::syntax::similar::sketch::BINS;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"MLKIND\0\0";

const PARSED: u8 = 1;
const REPLACED: u8 = 2;
const RACY: u8 = 4;
const SKETCH: u8 = 8;
const SHINGLES: u8 = 16;

/// The file of `kind`'s rows under `root`.
pub(crate) fn path(root: &Path, kind: Kind) -> PathBuf {
    root.join(DIR).join(format!("kind.{}", kind.name()))
}

/// One record as a row holds it.
#[derive(Debug, Clone)]
pub(crate) struct Row<'a> {
    /// Root-relative.
    pub path: &'a str,
    /// The stat data the fields below were read with.
    pub stat: Stat,
    /// The whole front matter could be read.
    pub parsed: bool,
    /// `status: replaced`.
    pub replaced: bool,
    /// The file was modified too close to when it was read for its stat
    /// data to prove it unchanged since: it is read again whatever its
    /// stat data.
    pub racy: bool,
    /// The content sketch's bins (`syntax::similar::sketch::Sketch`).
    pub sketch: Option<&'a [u8; BINS]>,
    /// A short text's shingles (`syntax::similar::sketch::Shingles`), four
    /// little-endian bytes each, sorted.
    pub shingles: Option<std::borrow::Cow<'a, [u8]>>,
}

impl Row<'_> {
    /// The row's shingles, owned.
    pub(crate) fn shingles(&self) -> Option<crate::syntax::similar::sketch::Shingles> {
        self.shingles.as_deref().map(Box::from)
    }
}

/// The rows as stored, mapped.
pub(crate) struct Stored {
    bytes: crate::io::map::Mapped,
}

/// The rows a [`Stored`] holds, sorted by path, and the listing they were
/// taken from.
pub(crate) struct Rows<'a> {
    pub listing: u64,
    pub rows: Vec<Row<'a>>,
}

/// The stored rows of `kind`, mapped, when a file is there (whether it is
/// intact is [`Stored::rows`]'s question).
pub(crate) fn load(root: &Path, kind: Kind) -> Option<Stored> {
    crate::io::map::map_regular(&path(root, kind))
        .ok()
        .map(|bytes| Stored { bytes })
}

impl Stored {
    /// The rows, when the file is intact, of this format, for `key` (the
    /// configuration and executable: `io::cache::key`) and for `root`.
    pub(crate) fn rows(&self, root: &Path, key: u64) -> Option<Rows<'_>> {
        let mut r = checked(&self.bytes, MAGIC)?;
        if r.fixed64()? != key || r.str_ref()? != root.to_string_lossy() {
            return None;
        }
        let listing = r.fixed64()?;
        let n = r.count()?;
        let mut rows: Vec<Row> = Vec::with_capacity(n);
        for _ in 0..n {
            let row = row(&mut r)?;
            // Out of order is damage.
            if rows.last().is_some_and(|prev| prev.path >= row.path) {
                return None;
            }
            rows.push(row);
        }
        r.at_end().then_some(Rows { listing, rows })
    }
}

fn row<'a>(r: &mut Reader<'a>) -> Option<Row<'a>> {
    let path = r.str_ref()?;
    let stat = r.opt_stat()??;
    let flags = r.u8()?;
    let sketch = match flags & SKETCH {
        0 => None,
        _ => Some(r.bytes(BINS)?.try_into().ok()?),
    };
    let shingles = match flags & SHINGLES {
        0 => None,
        _ => {
            let n = r.count()?;
            if n > crate::syntax::similar::sketch::EXACT_UP_TO {
                return None;
            }
            // Checked by the file's checksum: as written.
            Some(std::borrow::Cow::Borrowed(r.bytes(4 * n)?))
        }
    };
    Some(Row {
        path,
        stat,
        parsed: flags & PARSED != 0,
        replaced: flags & REPLACED != 0,
        racy: flags & RACY != 0,
        sketch,
        shingles,
    })
}

/// Writes `rows` (sorted by path) as `kind`'s file, atomically, for `key`,
/// `root` and the listing `listing`. A cache: the caller may ignore a
/// failure (the next run reads the table again).
pub(crate) fn save(
    root: &Path,
    kind: Kind,
    key: u64,
    listing: u64,
    rows: &[Row],
) -> std::io::Result<()> {
    let mut w = Writer {
        buf: Vec::with_capacity(64 + rows.len() * (64 + BINS)),
    };
    w.buf.extend_from_slice(MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    w.buf.extend_from_slice(&key.to_le_bytes());
    w.str(&root.to_string_lossy());
    w.buf.extend_from_slice(&listing.to_le_bytes());
    w.usize(rows.len());
    for row in rows {
        w.str(row.path);
        w.opt_stat(Some(&row.stat));
        let flags = (row.parsed as u8 * PARSED)
            | (row.replaced as u8 * REPLACED)
            | (row.racy as u8 * RACY)
            | (row.sketch.is_some() as u8 * SKETCH)
            | (row.shingles.is_some() as u8 * SHINGLES);
        w.u8(flags);
        if let Some(bins) = row.sketch {
            w.buf.extend_from_slice(bins);
        }
        if let Some(bytes) = row.shingles.as_deref() {
            w.usize(bytes.len() / 4);
            w.buf.extend_from_slice(bytes);
        }
    }
    let bytes = w.finish();
    crate::io::cache::make_dir(root)?;
    crate::io::fs::write_cache(&path(root, kind), &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_damage_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let bins = [7u8; BINS];
        let set: Vec<u8> = [1u32, 5, 900_000]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let stat = Stat {
            size: 10,
            mtime: 5,
            ctime: 6,
            ino: 7,
        };
        let rows = [
            Row {
                path: "memory/decisions/a.md",
                stat,
                parsed: true,
                replaced: false,
                racy: false,
                sketch: Some(&bins),
                shingles: Some(std::borrow::Cow::Borrowed(&set)),
            },
            Row {
                path: "memory/decisions/b.md",
                stat,
                parsed: false,
                replaced: true,
                racy: true,
                sketch: None,
                shingles: None,
            },
        ];
        save(root, Kind::Decision, 42, 9, &rows).expect("saved");
        let stored = load(root, Kind::Decision).expect("stored");
        let got = stored.rows(root, 42).expect("intact");
        assert_eq!(got.listing, 9);
        assert_eq!(got.rows.len(), 2);
        assert_eq!(got.rows[0].sketch, Some(&bins));
        assert_eq!(got.rows[0].shingles().as_deref(), Some(&set[..]));
        assert_eq!(got.rows[1].shingles(), None);
        assert!(got.rows[1].replaced && got.rows[1].racy && !got.rows[1].parsed);
        assert!(stored.rows(root, 43).is_none(), "another key");
        let file = path(root, Kind::Decision);
        let mut bytes = std::fs::read(&file).expect("read");
        bytes[20] ^= 1;
        std::fs::write(&file, bytes).expect("write");
        assert!(load(root, Kind::Decision)
            .expect("file")
            .rows(root, 42)
            .is_none());
    }
}
