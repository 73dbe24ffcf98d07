//! Following a cited file through commits, as `git log --follow` does:
//! its changes, and its renames (the added file of the same content, else
//! the one sharing most of its lines).

use super::history::{change_of, touches, Since};
use super::Judge;
use crate::engine::renames::{self, all_exact_renames, exact_renames};
use crate::io::git::Change;
use crate::lint::rules::sources::drifted::Commit;
use crate::model::hashing::Set;
use std::rc::Rc;

/// A path followed through commits ([`Judge::follow`]).
pub(super) struct Followed {
    /// Its name after them.
    pub name: String,
    /// The commits that changed its content (a rename that changed it
    /// too among them).
    pub changed: Vec<usize>,
    /// Every commit that touched it, renames included.
    pub touched: Vec<usize>,
    /// The last commit that renamed it (none when it came back to its
    /// first name).
    pub renamed: Option<usize>,
    /// One of the commits added it where it was not (created, or brought
    /// back after it was deleted), not as a rename.
    pub added: bool,
}

/// A cited file followed from the commit that last wrote a record
/// ([`Judge::trail`]).
pub(super) struct Trail {
    pub followed: Followed,
    /// The commits that touched it, newest first.
    pub commits: Rc<[Commit]>,
}

impl Judge<'_> {
    /// `path` followed through the commits `since` after commit `written`
    /// ([`Judge::follow`]), with the commits that touched it: once per
    /// path and commit, shared by the ranges cited in it.
    pub(super) fn trail(&self, path: &str, written: usize, since: &Since) -> Option<Rc<Trail>> {
        let key = (path.to_string(), written);
        if let Some(known) = self.trails.borrow().get(&key) {
            return known.clone();
        }
        let trail = self.follow(path, since).map(|followed| {
            let commits = followed
                .touched
                .iter()
                .rev()
                .map(|&i| self.commit(i))
                .collect();
            Rc::new(Trail { followed, commits })
        });
        self.trails.borrow_mut().insert(key, trail.clone());
        trail
    }

    /// The steps of the history that touched `rel`, in the walk's order
    /// (newest first): looked up once per path, so that following a file
    /// visits only them (a history of thousands of commits is otherwise
    /// searched once per cited range).
    pub(super) fn touching(&self, rel: &str) -> Rc<[usize]> {
        if let Some(known) = self.touching.borrow().get(rel) {
            return known.clone();
        }
        let steps: Rc<[usize]> = (self.h().steps.iter().enumerate())
            .filter(|(_, s)| touches(&s.changes, rel))
            .map(|(i, _)| i)
            .collect();
        self.touching
            .borrow_mut()
            .insert(rel.to_string(), steps.clone());
        steps
    }

    /// `path` followed through the commits `since` (oldest first), as
    /// `git log --follow` follows it; `None` when one of them deleted it
    /// and none brought it back (`sources/dangling`'s business). A file
    /// deleted and brought back was changed by both commits; one renamed
    /// and renamed back to its first name is not renamed.
    pub(super) fn follow(&self, path: &str, since: &Since) -> Option<Followed> {
        let mut f = Followed {
            name: path.to_string(),
            changed: Vec::new(),
            touched: Vec::new(),
            renamed: None,
            added: false,
        };
        let mut deleted = false;
        // Only the steps that touched the name followed are visited, those
        // of `since` (sorted by falling index) after the last rename.
        let mut after = usize::MAX;
        'name: loop {
            let touching = self.touching(&f.name);
            for &i in touching.iter().rev() {
                if i >= after || !since.contains(i) {
                    continue;
                }
                let step = &self.h().steps[i];
                let Some(change) = change_of(&step.changes, &f.name) else {
                    continue;
                };
                f.touched.push(i);
                if change.new.is_some() {
                    f.added |= change.old.is_none();
                    deleted = false;
                    f.changed.push(i);
                    continue;
                }
                match self.rename(&step.changes, change) {
                    Some((to, exact)) => {
                        f.name = to;
                        f.renamed = Some(i);
                        if !exact {
                            f.changed.push(i);
                        }
                        after = i;
                        continue 'name;
                    }
                    None => {
                        deleted = true;
                        f.changed.push(i);
                    }
                }
            }
            break;
        }
        if deleted {
            return None;
        }
        if f.name == path {
            f.renamed = None;
        }
        Some(f)
    }

    /// Where the deleted path of `gone` went in a commit of `changes`: the
    /// added file with the same content (an exact rename), else the added
    /// file sharing most of its lines, at least half (git's threshold).
    pub(super) fn rename(&self, changes: &[Change], gone: &Change) -> Option<(String, bool)> {
        let old = gone.old?;
        let added: Vec<&Change> = changes.iter().filter(|c| c.old.is_none()).collect();
        let exact = exact_renames(changes, old.id);
        if let Some((_, to)) = exact.iter().find(|(from, _)| *from == gone.path) {
            return Some((to.to_string(), true));
        }
        if added.len() > 50 {
            return None;
        }
        // An added file another deleted file went to unchanged is taken
        // (only the contents of the few added files can have been).
        let taken: Set<&str> = all_exact_renames(changes)
            .into_iter()
            .map(|(_, to)| to)
            .collect();
        // Files too large to compare are not read.
        let compared = renames::COMPARED_BYTES as u64;
        let old_text = String::from_utf8_lossy(&self.blob_up_to(old.id, compared)?).into_owned();
        let added: Vec<(&str, String)> = added
            .into_iter()
            .filter(|c| !taken.contains(c.path.as_str()))
            .filter_map(|c| {
                let new = self.blob_up_to(c.new?.id, compared)?;
                Some((c.path.as_str(), String::from_utf8_lossy(&new).into_owned()))
            })
            .collect();
        let texts = added.iter().enumerate().map(|(i, (_, t))| (i, t.as_str()));
        let best = renames::most_alike(&old_text, texts)?;
        Some((added[best].0.to_string(), false))
    }
}
