//! The pins of drifted sources as the record's commit held them: what
//! `memlint check --fix` writes into a record it rewrites, so that the fix
//! does not hide the record's drift. Without them, the fix's own commit
//! would become the record's "last written", and every source changed
//! before it would look judged and fresh, though nobody read the record
//! against the change.

use super::{Judge, Mode, Written};
use crate::io::git::Repo;
use crate::lint::rules::sources::cited_file;
use crate::lint::rules::sources::drifted as rule;
use crate::model::hashing::Map;
use crate::model::workspace::Workspace;

/// For each record (path) and `file:` sources of it (as written), the pins
/// (`<source> xxh3:…`) of those sources' content, or cited lines, in the
/// commit that last wrote the record. A source the record's commit did not
/// have is pinned as empty (no cited lines hash so: it has drifted). A
/// record not committed as it is now, or last written before a shallow
/// clone's history, gets none: its drift is judged by its pins or said
/// not judged already.
pub(crate) fn pins_as_written(
    ws: &Workspace,
    wanted: &[(&str, Vec<&str>)],
) -> Map<String, Vec<String>> {
    let mut out = Map::default();
    if wanted.is_empty() {
        return out;
    }
    let Ok(repo) = Repo::open(&ws.root, crate::io::git::Asking::Drift) else {
        return out;
    };
    let Ok(Some(head)) = repo.head() else {
        return out;
    };
    let Ok(tree) = repo.tree_of(head) else {
        return out;
    };
    let judge = Judge::new(
        ws,
        &repo,
        (head, tree),
        Mode::WorkTree,
        wanted.len(),
        None,
        None,
    );
    judge.prepare(wanted.iter().map(|(r, _)| (*r, true)), &|_| None);
    let empty = || rule::pin(b"", None).unwrap_or_default();
    for (record, sources) in wanted {
        let id = judge.current_id(record);
        let Written::At(i) = judge.last_written(record, id) else {
            continue;
        };
        let step = &judge.h().steps[i];
        if step.boundary {
            continue;
        }
        let tree = step.tree;
        // A source listed twice is pinned once.
        let mut seen = crate::model::hashing::Set::default();
        let pins = sources
            .iter()
            .filter(|source| seen.insert(**source))
            .filter_map(|source| {
                let (path, lines) = cited_file(source)?;
                let hash = judge
                    .blob_at(tree, &path)
                    .and_then(|then| rule::pin(&then, lines))
                    .unwrap_or_else(empty);
                Some(format!("{source} {hash}"))
            })
            .collect();
        out.insert(record.to_string(), pins);
    }
    out
}
