//! What `sources/drifted` reads of a file now: its blob id (and, when it
//! holds CRLF, the id it has with LF line endings), and the pins a record
//! holds; and which of a record's sources cite a file.

use super::Cited;
use crate::lint::info::RecordInfo;
use crate::model::hashing::Map as HashMap;
use gix::ObjectId;

/// A record's pins: source → hash, and its `verified` date.
#[derive(Default)]
pub(super) struct Pinned {
    pub(super) hashes: HashMap<String, String>,
    pub(super) verified: Option<String>,
}

/// The pins of a record of text `bytes` (`memlint verify` wrote them), and
/// its `verified` date; none without text. Only a text that mentions
/// `pins` (or holds an escape that could spell it) is parsed.
pub(super) fn pins_of(bytes: Option<&[u8]>) -> Pinned {
    let mut out = Pinned::default();
    let Some(bytes) = bytes else {
        return out;
    };
    if memchr::memmem::find(bytes, b"pins").is_none() && memchr::memchr(b'\\', bytes).is_none() {
        return out;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return out;
    };
    let crate::syntax::frontmatter::Split::Found(parts) = crate::syntax::frontmatter::split(text)
    else {
        return out;
    };
    let Ok(doc) = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start) else {
        return out;
    };
    let Some(root) = doc.root else {
        return out;
    };
    out.verified = root
        .get("verified")
        .and_then(|e| e.value.as_scalar())
        .map(|s| s.text.clone());
    if let Some(crate::syntax::yaml::Value::Seq { items, .. }) =
        root.get("pins").map(|e| &e.value.value)
    {
        for item in items {
            let Some(pin) = item.as_scalar().and_then(|s| s.as_str()) else {
                continue;
            };
            if let Some((source, hash)) = crate::model::kind::split_pin(pin) {
                out.hashes.insert(source.to_string(), hash.to_string());
            }
        }
    }
    out
}

/// The blob id of a work-tree file's `bytes`, and when they hold CRLF,
/// the id they have with LF line endings instead: the blob a checkout
/// that writes CRLF (`core.autocrlf`, an `eol=crlf` attribute) wrote them
/// from, as `git status` sees it.
pub(super) fn work_tree_ids(
    kind: gix::hash::Kind,
    bytes: &[u8],
) -> (Option<ObjectId>, Option<ObjectId>) {
    let hash = |b: &[u8]| gix::objs::compute_hash(kind, gix::objs::Kind::Blob, b).ok();
    let lf = memchr::memmem::find(bytes, b"\r\n")
        .is_some()
        .then(|| hash(&lf_only(bytes)))
        .flatten();
    (hash(bytes), lf)
}

/// `bytes` with each CRLF read as LF (as git stores a text file that a
/// checkout writes with CRLF).
fn lf_only(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = memchr::memmem::find(rest, b"\r\n") {
        out.extend_from_slice(&rest[..at]);
        out.push(b'\n');
        rest = &rest[at + 2..];
    }
    out.extend_from_slice(rest);
    out
}

/// How many records `cited` (grouped by record) holds sources of.
pub(super) fn count_records(cited: &[Cited]) -> usize {
    let mut records: Vec<&str> = cited.iter().map(|c| c.record).collect();
    records.dedup();
    records.len()
}

/// `cited` with each source through a symbolic link judged as the file the
/// link leads to (a link's own blob holds only where it points: a change of
/// the file read through it is what the record's reader meets), and without
/// those whose link leads out of the workspace `root` (their history is not
/// the workspace's to tell); a directory, or the cited lines of a file too
/// large to read, marked [`Cited::unreadable`]. Each cited path is looked
/// at once.
pub(super) fn through_links<'a>(root: &std::path::Path, cited: Vec<Cited<'a>>) -> Vec<Cited<'a>> {
    let Some(real_root) = crate::io::source::real_root(root) else {
        return cited;
    };
    let mut seen: HashMap<String, Option<crate::io::source::Found>> = HashMap::default();
    let mut look = |rel: &str| -> Option<crate::io::source::Found> {
        if let Some(known) = seen.get(rel) {
            return known.clone();
        }
        let answer = crate::io::source::found(root, &real_root, rel);
        seen.insert(rel.to_string(), answer.clone());
        answer
    };
    cited
        .into_iter()
        .filter_map(|mut c| {
            let found = look(&c.path)?;
            c.unreadable = found.directory
                || (c.lines.is_some() && found.size > crate::io::source::MAX_SOURCE_BYTES);
            if let Some(target) = found.target {
                c.path = std::borrow::Cow::Owned(target);
            }
            Some(c)
        })
        .collect()
}

/// The well-formed `file:` sources of the records, grouped by record.
pub(super) fn file_sources<'a>(
    records: impl Iterator<Item = (&'a str, &'a RecordInfo)>,
) -> Vec<Cited<'a>> {
    let mut out = Vec::new();
    for (path, info) in records {
        if !info.parsed {
            continue;
        }
        for at in &info.sources {
            let Some((rel, lines)) = crate::lint::rules::sources::cited_file(&at.value) else {
                continue;
            };
            if rel.is_empty() {
                continue;
            }
            out.push(Cited {
                record: path,
                at,
                path: rel,
                lines,
                may_pin: info.may_pin,
                unreadable: false,
            });
        }
    }
    out
}
