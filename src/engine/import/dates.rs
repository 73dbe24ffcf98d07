//! Dates from git history: for each imported file its source gives no
//! date for, the day of the commit that added it (the oldest commit that
//! wrote it), read through gix in one walk of the history for all files.

use crate::io::git::Repo;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The most commits one import walks for dates.
pub(crate) const MAX_COMMITS: usize = 10_000;

/// For each of `paths` (root-relative) that the history of HEAD holds:
/// (the date of the commit that added it, that commit's id). Empty when
/// the root is in no repository or the history cannot be read.
pub(crate) fn added(root: &Path, paths: &HashSet<String>) -> HashMap<String, (String, String)> {
    let mut out = HashMap::new();
    if paths.is_empty() {
        return out;
    }
    let Ok(repo) = Repo::open(root, crate::io::git::Asking::Import) else {
        return out;
    };
    let Ok(Some(head)) = repo.head() else {
        return out;
    };
    let Ok(ids) = repo.commit_ids(&[head], &[]) else {
        return out;
    };
    // Newest first: each older commit that wrote a path overwrites what a
    // newer one said, so the oldest stays.
    for id in ids.into_iter().take(MAX_COMMITS) {
        let Ok(commit) = repo.commit(id) else {
            continue;
        };
        let parent_tree = match commit.parents.first() {
            Some(p) => match repo.commit(*p) {
                Ok(pc) => Some(pc.tree),
                Err(_) => continue,
            },
            None => None,
        };
        let Ok(changes) = repo.diff_trees(parent_tree, Some(commit.tree)) else {
            continue;
        };
        for change in changes {
            if change.new.is_some() && paths.contains(&change.path) {
                let day = crate::model::clock::date(commit.seconds + i64::from(commit.offset));
                out.insert(change.path, (day, id.to_string()));
            }
        }
    }
    out
}
