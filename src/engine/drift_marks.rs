//! Drift where memory is met: `memlint check` keeps which records
//! `sources/drifted` found changed (`.memlint/drifted`), and the commands
//! that serve memory (context, search, the prompt hook, the MCP tools)
//! mark those records from it. Serving memory never walks the git
//! history: a mark comes from the last check, and holds only while the
//! record's text is the one judged (verifying or updating the record drops
//! it). Without a check there are no marks: nothing is guessed.

#[cfg(doc)]
use crate::engine::drift::Drift;
use crate::model::workspace::Workspace;
use crate::store::drift_marks::{self as store, DriftMark, Marked};
use std::collections::HashMap;

/// Most characters of a source's path shown in a mark.
const MARK_PATH_CHARS: usize = 60;

/// Keeps the marks of a `sources/drifted` run over every record of `ws`
/// (what `check` judged, [`Drift::marks`]: the first drifted source of each
/// record, sorted by record), replacing those kept before. `known` gives
/// the hash of a record's bytes when the check already knows it (its record
/// table); any other record is read and hashed. The marks are moved into
/// what is stored, not copied.
pub(crate) fn keep(
    ws: &Workspace,
    marks: Vec<(String, DriftMark)>,
    known: &(dyn Fn(&str) -> Option<u64> + Sync),
) {
    // The hashes the caller knows, asked for in order (the marks are
    // sorted by path), then the others read in parallel.
    let hashes: Vec<Option<u64>> = marks.iter().map(|(path, _)| known(path)).collect();
    let marks: Vec<Marked> = {
        use rayon::prelude::*;
        marks
            .into_par_iter()
            .zip(hashes)
            .filter_map(|((path, mark), hash)| {
                let hash = hash.or_else(|| hash_of(ws, &path))?;
                Some(Marked { path, hash, mark })
            })
            .collect()
    };
    store::save(ws, marks);
}

/// The marks that still hold for the records `wanted` accepts, by path:
/// each marked record is read again (only those) and its mark dropped when
/// its text changed since it was judged. None with `sources/drifted` off:
/// the marks a check kept before it was turned off no longer hold.
pub(crate) fn current(
    ws: &Workspace,
    wanted: impl Fn(&str) -> bool + Sync,
) -> HashMap<String, DriftMark> {
    use rayon::prelude::*;
    if !ws.config.enabled(crate::model::rule::Rule::SourcesDrifted) {
        return HashMap::new();
    }
    store::load(&ws.root)
        .into_par_iter()
        .filter(|m| wanted(&m.path) && hash_of(ws, &m.path) == Some(m.hash))
        .map(|m| (m.path, m.mark))
        .collect()
}

/// The hash of the record's bytes, when it is a readable regular file of
/// at most `max_file_bytes`.
fn hash_of(ws: &Workspace, rel: &str) -> Option<u64> {
    let path = ws.root.join(rel);
    match crate::io::read::read_capped(&path, ws.config.max_file_bytes).ok()? {
        crate::model::content::Content::Bytes(bytes) => Some(xxhash_rust::xxh3::xxh3_64(&bytes)),
        crate::model::content::Content::TooLarge(_) => None,
    }
}

/// The mark as shown beside a record, sanitized and short:
/// `drifted: src/cache.rs changed in abc1234`.
pub(crate) fn text(mark: &DriftMark) -> String {
    let source = mark.source.strip_prefix("file:").unwrap_or(&mark.source);
    let source = match crate::syntax::sanitize::clip(source, MARK_PATH_CHARS) {
        (cut, true) => format!("{cut}…"),
        (whole, false) => whole.into_owned(),
    };
    let source = crate::syntax::sanitize::line(&source);
    match &mark.commit {
        Some(id) => {
            let short: String = id.chars().take(7).collect();
            format!(
                "drifted: {source} changed in {}",
                crate::syntax::sanitize::line(&short)
            )
        }
        None => format!("drifted: {source} changed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_is_short_and_names_the_commit() {
        let mut m = DriftMark {
            source: "file:src/cache.rs#L10-L42".into(),
            commit: Some("0123456789abcdef0123456789abcdef01234567".into()),
            date: Some("2026-12-05".into()),
        };
        assert_eq!(text(&m), "drifted: src/cache.rs#L10-L42 changed in 0123456");
        m.commit = None;
        m.source = format!("file:{}\nx", "a".repeat(70));
        let t = text(&m);
        assert!(
            t.starts_with("drifted: aaaa") && t.ends_with("… changed"),
            "{t}"
        );
        assert!(!t.contains('\n'));
    }
}
