//! Git reads, all through gix (memlint never runs the `git` program).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// The repository whose work tree holds `root`, if any.
pub fn open(root: &Path) -> Option<gix::Repository> {
    let repo = gix::discover(root).ok()?;
    repo.workdir()?;
    Some(repo)
}

/// Whether `hex` (7–40 hex digits) names an object in `repo` (an ambiguous
/// prefix counts as present).
pub fn object_exists(repo: &gix::Repository, hex: &str) -> bool {
    if hex.len() == 40 {
        return gix::ObjectId::from_hex(hex.as_bytes()).is_ok_and(|id| repo.has_object(id));
    }
    let Ok(prefix) = gix::hash::Prefix::from_hex(hex) else {
        return false;
    };
    matches!(repo.objects.lookup_prefix(prefix, None), Ok(Some(_)))
}

/// Answers `sources/dangling` questions from the work tree and the object
/// database, caching each answer.
pub struct DiskResolver<'a> {
    root: &'a Path,
    repo: Option<Mutex<gix::Repository>>,
    files: Mutex<HashMap<String, bool>>,
    commits: Mutex<HashMap<String, bool>>,
}

impl<'a> DiskResolver<'a> {
    pub fn new(root: &'a Path) -> Self {
        DiskResolver {
            root,
            repo: open(root).map(Mutex::new),
            files: Mutex::default(),
            commits: Mutex::default(),
        }
    }
}

impl crate::rules::workspace::Resolver for DiskResolver<'_> {
    fn file_exists(&self, rel: &str) -> bool {
        let mut cache = self.files.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&known) = cache.get(rel) {
            return known;
        }
        // `rel` is normalised and inside the root; a link pointing out of the
        // root does not count.
        let path = self.root.join(rel);
        let exists = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => path
                .canonicalize()
                .is_ok_and(|t| t.starts_with(self.root)),
            Ok(_) => true,
            Err(_) => false,
        };
        cache.insert(rel.to_string(), exists);
        exists
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
