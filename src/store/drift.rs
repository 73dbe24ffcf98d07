//! `.memlint/drift`: the history `sources/drifted` walks (every commit
//! reachable from HEAD, with the paths it changed), keyed by commit, so
//! that a run whose HEAD has not moved reads it instead of diffing every
//! commit again, and a run after HEAD moved (a commit, a rebase, a reset,
//! an amend) diffs only the commits it has not seen. The walk from HEAD
//! decides which stored commits still count: one no longer reachable is
//! dropped when the file is written again.

use crate::io::cache::DIR;
use crate::io::cache::FORMAT;
use crate::io::fs::read_regular;
use crate::io::git::{Change, FileKind, Object};
use crate::model::workspace::Workspace;
use crate::store::codec::{checked, Reader, Writer};
use gix::ObjectId;
use std::path::Path;

/// The cache's name inside [`DIR`].
pub(crate) const DRIFT: &str = "drift";

/// The third layout: each commit's parents (the second had how many,
/// the first no [`Stored::complete`]). A file of an older layout is not
/// read.
const MAGIC: &[u8; 8] = b"MLDRIFT3";

/// One commit of the history.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    /// The commit id.
    pub id: ObjectId,
    /// Author time (seconds since the epoch) and offset.
    pub seconds: i64,
    /// See `seconds`.
    pub offset: i32,
    /// The first line of the message.
    pub summary: String,
    /// The paths it changed under the root (a merge: those it changed
    /// against every parent), sorted by path.
    pub changes: Vec<Change>,
    /// The commit's tree.
    pub tree: ObjectId,
    /// Whether its parents are missing (a shallow clone's boundary): its
    /// changes are then unknown, and empty here.
    pub boundary: bool,
    /// Its parents (none in a shallow clone's boundary but the ones git
    /// wrote: see `boundary`).
    pub parents: Vec<ObjectId>,
}

/// The stored walk: HEAD when it was written, and its steps newest first.
pub(crate) struct Stored {
    /// HEAD when the walk was stored.
    pub head: ObjectId,
    /// The workspace root's place in the work tree when it was stored.
    pub prefix: String,
    /// The steps, newest first.
    pub steps: Vec<Step>,
    /// Whether the steps are the whole walk from HEAD; else they are its
    /// newest commits only (a walk stops once every record it was asked
    /// about was found changed).
    pub complete: bool,
}

/// The stored walk, if there is a readable one.
pub(crate) fn load(root: &Path) -> Option<Stored> {
    let bytes = read_regular(&root.join(DIR).join(DRIFT), crate::io::fs::CACHE_FILE_MAX).ok()?;
    decode(&bytes)
}

/// Stores the walk; a cache, so a failure to write is ignored (the next
/// run walks again).
pub(crate) fn save(ws: &Workspace, stored: &Stored) {
    let _ = crate::io::cache::make_dir(&ws.root)
        .and_then(|dir| crate::io::fs::write_cache(&dir.join(DRIFT), &encode(stored)));
}

fn id(w: &mut Writer, id: &ObjectId) {
    let bytes = id.as_bytes();
    w.usize(bytes.len());
    w.buf.extend_from_slice(bytes);
}

fn object(w: &mut Writer, o: Option<&Object>) {
    match o {
        None => w.u8(0),
        Some(o) => {
            w.u8(match o.kind {
                FileKind::Blob => 1,
                FileKind::Link => 2,
                FileKind::Submodule => 3,
            });
            id(w, &o.id);
        }
    }
}

/// At least as many bytes as [`encode`] writes (each integer in at most
/// ten, an object id in at most 64), so that the buffer (8 MB on 100k
/// records) is allocated once and never copied to a larger one.
fn encoded_size(s: &Stored) -> usize {
    const INT: usize = 10;
    const ID: usize = INT + 64;
    let steps: usize = s
        .steps
        .iter()
        .map(|step| {
            let changes: usize = step
                .changes
                .iter()
                .map(|c| c.path.len() + INT + 2 * (1 + ID))
                .sum();
            (2 + step.parents.len()) * ID + 6 * INT + step.summary.len() + changes
        })
        .sum();
    64 + ID + s.prefix.len() + 3 * INT + steps
}

fn encode(s: &Stored) -> Vec<u8> {
    let mut w = Writer {
        buf: Vec::with_capacity(encoded_size(s)),
    };
    w.buf.extend_from_slice(MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    id(&mut w, &s.head);
    w.str(&s.prefix);
    w.u8(u8::from(s.complete));
    w.usize(s.steps.len());
    for step in &s.steps {
        id(&mut w, &step.id);
        w.int(step.seconds);
        w.int(i64::from(step.offset));
        w.str(&step.summary);
        id(&mut w, &step.tree);
        w.u8(u8::from(step.boundary));
        w.usize(step.parents.len());
        for p in &step.parents {
            id(&mut w, p);
        }
        w.usize(step.changes.len());
        for c in &step.changes {
            w.str(&c.path);
            object(&mut w, c.old.as_ref());
            object(&mut w, c.new.as_ref());
        }
    }
    w.finish()
}

fn read_id(r: &mut Reader) -> Option<ObjectId> {
    let n = r.usize()?;
    ObjectId::try_from(r.bytes(n)?).ok()
}

fn read_object(r: &mut Reader) -> Option<Option<Object>> {
    let kind = match r.u8()? {
        0 => return Some(None),
        1 => FileKind::Blob,
        2 => FileKind::Link,
        3 => FileKind::Submodule,
        _ => return None,
    };
    Some(Some(Object {
        id: read_id(r)?,
        kind,
    }))
}

fn decode(bytes: &[u8]) -> Option<Stored> {
    let mut r = checked(bytes, MAGIC)?;
    let head = read_id(&mut r)?;
    let prefix = r.str()?;
    let complete = r.flag()?;
    let n = r.count()?;
    let mut steps = Vec::with_capacity(n);
    for _ in 0..n {
        let id = read_id(&mut r)?;
        let seconds = r.int()?;
        let offset = i32::try_from(r.int()?).ok()?;
        let summary = r.str()?;
        let tree = read_id(&mut r)?;
        let boundary = r.u8()? != 0;
        let parents = (0..r.count()?)
            .map(|_| read_id(&mut r))
            .collect::<Option<Vec<_>>>()?;
        let m = r.count()?;
        let mut changes = Vec::with_capacity(m);
        for _ in 0..m {
            changes.push(Change {
                path: r.str()?,
                old: read_object(&mut r)?,
                new: read_object(&mut r)?,
            });
        }
        steps.push(Step {
            id,
            seconds,
            offset,
            summary,
            changes,
            tree,
            boundary,
            parents,
        });
    }
    r.at_end().then_some(Stored {
        head,
        prefix,
        steps,
        complete,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_walk_reads_back() {
        let a = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        let b = ObjectId::from_hex(b"89abcdef0123456789abcdef0123456789abcdef").unwrap();
        let stored = Stored {
            head: a,
            prefix: "sub/".into(),
            steps: vec![Step {
                id: a,
                // The largest integers take the most bytes (ten each).
                seconds: i64::MIN,
                offset: 3600,
                summary: "Move the cache".into(),
                changes: vec![Change {
                    path: "src/a.rs".into(),
                    old: None,
                    new: Some(Object {
                        id: b,
                        kind: FileKind::Blob,
                    }),
                }],
                tree: b,
                boundary: false,
                parents: vec![b, a],
            }],
            complete: false,
        };
        let bytes = encode(&stored);
        // Written into one buffer allocated at its size, never regrown.
        assert_eq!(bytes.capacity(), encoded_size(&stored));
        assert!(bytes.len() <= bytes.capacity());
        let back = decode(&bytes).unwrap();
        assert_eq!(back.head, a);
        assert_eq!(back.prefix, "sub/");
        assert_eq!(back.steps[0].changes, stored.steps[0].changes);
        assert_eq!(back.steps[0].summary, "Move the cache");
        assert_eq!(back.steps[0].offset, 3600);
        assert_eq!(back.steps[0].parents, [b, a]);
        assert!(!back.complete);
        // A file of the first layout is not read.
        let mut old = encode(&stored);
        old[..8].copy_from_slice(b"MLDRIFT2");
        assert!(decode(&old).is_none());
        let mut bad = encode(&stored);
        bad[12] ^= 1;
        assert!(decode(&bad).is_none());
    }
}
