//! The tree ids of directories, as the git index's cache tree and a
//! commit's tree give them: a directory whose tree id is one seen before
//! holds exactly the files (paths and blob ids) it held then, so whatever
//! was concluded of those files holds without looking at any of them.

use crate::io::git::repo::{Repo, Staged};
use gix::bstr::ByteSlice;
use gix::ObjectId;

/// A directory under the workspace root whose tree the git index's cache
/// tree holds (valid): root-relative, ending in `/`, its tree id, and the
/// range of index entries under it.
pub(crate) struct CachedDir {
    pub(crate) dir: String,
    pub(crate) tree: ObjectId,
    pub(crate) range: std::ops::Range<usize>,
}

/// The cache tree node of the directory `prefix` (repository-relative,
/// empty or ending in `/`).
fn node<'i>(index: &'i gix::index::File, prefix: &str) -> Option<&'i gix::index::extension::Tree> {
    let mut node = index.tree()?;
    for part in prefix.split('/').filter(|p| !p.is_empty()) {
        node = node
            .children
            .iter()
            .find(|t| t.name.as_slice() == part.as_bytes())?;
    }
    Some(node)
}

/// The tree id the cache tree of `index` holds, as valid, for the
/// directory `rel` (root-relative, ending in `/`) of the root at
/// repository-relative `prefix`.
pub(crate) fn cached_tree(index: &gix::index::File, prefix: &str, rel: &str) -> Option<ObjectId> {
    let n = node(index, &format!("{prefix}{rel}"))?;
    n.num_entries.is_some().then_some(n.id)
}

/// The directories under the root at repository-relative `prefix`, at
/// most `depth` levels down, whose tree the cache tree of `index` holds
/// as valid, each with its entries' range; a directory with an entry git
/// does not put in a tree as it is (unmerged, intent to add, sparse) is
/// left out.
pub(crate) fn cached_dirs(index: &gix::index::File, prefix: &str, depth: usize) -> Vec<CachedDir> {
    let mut out = Vec::new();
    let Some(top) = node(index, prefix) else {
        return out;
    };
    let mut stack: Vec<(&gix::index::extension::Tree, String, usize)> =
        top.children.iter().map(|c| (c, String::new(), 1)).collect();
    while let Some((n, parent, level)) = stack.pop() {
        let Ok(name) = n.name.to_str() else {
            continue;
        };
        let dir = format!("{parent}{name}/");
        if level < depth {
            stack.extend(n.children.iter().map(|c| (c, dir.clone(), level + 1)));
        }
        if n.num_entries.is_none() {
            continue;
        }
        let full = format!("{prefix}{dir}");
        let Some(range) = index.prefixed_entries_range(full.as_bytes().as_bstr()) else {
            continue;
        };
        let plain = index.entries()[range.clone()].iter().all(|e| {
            use gix::index::entry::Flags;
            e.stage_raw() == 0 && !e.flags.contains(Flags::INTENT_TO_ADD) && !e.mode.is_sparse()
        });
        if plain {
            out.push(CachedDir {
                dir,
                tree: n.id,
                range,
            });
        }
    }
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

impl Staged {
    /// The tree id the index holds (its cache tree, when valid) for the
    /// root-relative directory `rel` (ending in `/`).
    pub(crate) fn cached_tree(&self, rel: &str) -> Option<ObjectId> {
        cached_tree(self.index(), self.prefix(), rel)
    }
}

impl Repo {
    /// The tree id of the root-relative directory `rel` (ending in `/`) in
    /// `tree` (a commit's whole tree): only the trees along its path are
    /// read.
    pub(crate) fn dir_tree(&self, tree: ObjectId, rel: &str) -> Option<ObjectId> {
        let path = format!("{}{}", self.prefix, rel.trim_end_matches('/'));
        let entry = self
            .repo
            .find_tree(tree)
            .ok()?
            .lookup_entry_by_path(path)
            .ok()??;
        entry.mode().is_tree().then(|| entry.object_id())
    }
}
