//! Answering `file:` and `commit:` sources: from the work tree and the
//! object database ([`DiskResolver`]), or from a version (the staged index
//! or a commit's tree, [`VersionResolver`]).

use crate::io::git::open::{object_exists, open, special_file};
use crate::io::git::repo::Staged;
use crate::io::git::types::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// Answers `sources/dangling` questions from the work tree and the object
/// database, caching each answer.
pub(crate) struct DiskResolver<'a> {
    root: &'a Path,
    repo: Option<Mutex<gix::Repository>>,
    files: Mutex<HashMap<String, Result<(), Option<String>>>>,
    commits: Mutex<HashMap<String, bool>>,
    lines: Mutex<HashMap<String, Option<usize>>>,
}

impl<'a> DiskResolver<'a> {
    pub(crate) fn new(root: &'a Path) -> Self {
        DiskResolver {
            root,
            repo: open(root).map(Mutex::new),
            files: Mutex::default(),
            commits: Mutex::default(),
            lines: Mutex::default(),
        }
    }

    /// Whether root-relative `rel` (normalised) exists inside the root,
    /// each component resolved in turn (see [`crate::io::fs::resolve_below`]):
    /// `Err` with the link that leads out of the root, if one does.
    fn answer(&self, rel: &str) -> Result<(), Option<String>> {
        use crate::io::fs::Resolved;
        let mut cache = self.files.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = cache.get(rel) {
            return known.clone();
        }
        let answer = match crate::io::fs::resolve_below(self.root, Path::new(rel)) {
            Resolved::Inside(_) => Ok(()),
            Resolved::Escapes(link) => Err(Some(link)),
            Resolved::Missing | Resolved::Unreadable(_) => Err(None),
        };
        cache.insert(rel.to_string(), answer.clone());
        answer
    }

    /// [`DiskResolver::new`] for `ws`, with the problem of a repository
    /// left unread because one of its files is not a regular file (its
    /// `commit:` sources are then not checked), for the front end to report.
    pub(crate) fn of(
        ws: &'a crate::model::workspace::Workspace,
    ) -> (Self, Option<crate::model::workspace::Problem>) {
        let problem = special_file(&ws.root)
            .map(|(path, reason)| crate::model::workspace::Problem::GitFile { path, reason });
        (DiskResolver::new(&ws.root), problem)
    }
}

impl crate::lint::rules::workspace::Resolver for DiskResolver<'_> {
    fn file_exists(&self, rel: &str) -> bool {
        self.answer(rel).is_ok()
    }

    fn leads_out(&self, rel: &str) -> Option<String> {
        self.answer(rel).err().flatten()
    }

    fn file_lines(&self, rel: &str) -> Option<usize> {
        let mut cache = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = cache.get(rel) {
            return known;
        }
        let count = crate::io::source::read_source(self.root, rel)
            .map(|b| crate::io::source::count_lines(&b));
        cache.insert(rel.to_string(), count);
        count
    }

    fn commit_exists(&self, hex: &str) -> Option<bool> {
        let repo = self.repo.as_ref()?;
        let mut cache = self.commits.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = cache.get(hex) {
            return Some(known);
        }
        let repo = repo.lock().unwrap_or_else(|e| e.into_inner());
        let exists = object_exists(&repo, &hex.to_ascii_lowercase());
        cache.insert(hex.to_string(), exists);
        Some(exists)
    }
}

/// Answers `sources/dangling` questions from a version that git holds: the
/// index (`--staged`) or a commit's tree (`--base`).
pub(crate) enum VersionResolver<'a> {
    /// The staged view and the repository for `commit:` sources.
    Index(&'a Staged, &'a gix::Repository),
    /// Sorted paths of a flattened tree.
    Tree(&'a [(String, Object)], &'a gix::Repository),
}

impl crate::lint::rules::workspace::Resolver for VersionResolver<'_> {
    fn file_exists(&self, rel: &str) -> bool {
        match self {
            VersionResolver::Index(staged, _) => staged.exists(rel),
            VersionResolver::Tree(paths, _) => tree_has(paths, rel),
        }
    }

    fn file_lines(&self, rel: &str) -> Option<usize> {
        let (object, repo) = match self {
            VersionResolver::Index(staged, r) => (staged.lookup(rel)?, r),
            VersionResolver::Tree(paths, r) => (tree_lookup(paths, rel)?, r),
        };
        if !object.is_file() {
            return None;
        }
        let mut blob = repo.find_blob(object.id).ok()?;
        let data = blob.take_data();
        (data.len() as u64 <= crate::io::source::MAX_SOURCE_BYTES)
            .then(|| crate::io::source::count_lines(&data))
    }

    fn commit_exists(&self, hex: &str) -> Option<bool> {
        let repo = match self {
            VersionResolver::Index(_, r) | VersionResolver::Tree(_, r) => r,
        };
        Some(object_exists(repo, &hex.to_ascii_lowercase()))
    }
}
