//! Diffing two trees, and the trees a walk over many commits reads, kept
//! between its diffs: each commit is diffed against its parent, so a tree that changed in two
//! neighbouring commits (a big directory that every batch of records
//! writes to) is read by both diffs, and inflating it again was a good
//! part of walking the history.

use crate::io::git::{read_err, Change, GitError, Object, Repo};
use crate::model::hashing::Map;
use gix::bstr::ByteSlice;
use gix::ObjectId;
use std::cell::{Cell, RefCell};

/// A repository as another thread opens it again ([`Repo::place`]): its
/// git directory, the workspace root's prefix, and the pack cache its
/// handles share. A gix handle cannot go to another thread (gix is built
/// without its `parallel` feature, which would add crates and time to
/// every build); this can.
pub(crate) struct Place {
    git_dir: std::path::PathBuf,
    prefix: String,
    deltas: ResolvedDeltas,
}

impl Repo {
    /// Where [`Repo::again`] opens the repository again.
    pub(crate) fn place(&self) -> Place {
        Place {
            git_dir: self.repo.git_dir().to_path_buf(),
            prefix: self.prefix.clone(),
            deltas: self.deltas.clone(),
        }
    }

    /// The repository at `place`, opened again, sharing its pack cache.
    pub(crate) fn again(place: Place) -> Result<Repo, GitError> {
        let mut repo = gix::open(place.git_dir).map_err(read_err)?;
        let shared = place.deltas.clone();
        repo.objects
            .set_pack_cache(move || Box::new(shared.clone()));
        Ok(Repo {
            repo,
            prefix: place.prefix,
            deltas: place.deltas,
        })
    }

    /// The paths under the workspace root that differ between the trees
    /// (`None`: the empty tree), root-relative, sorted.
    pub(crate) fn diff_trees(
        &self,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
    ) -> Result<Vec<Change>, GitError> {
        self.diff_trees_kept(old, new, &Trees::new(0))
    }

    /// [`Repo::diff_trees`], reading trees through `trees` (a walk diffing
    /// one commit after another keeps them between its diffs).
    pub(crate) fn diff_trees_kept(
        &self,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        trees: &Trees,
    ) -> Result<Vec<Change>, GitError> {
        use gix::diff::tree::recorder::Change as C;
        let old = match old {
            Some(t) => self.root_tree(t)?,
            None => None,
        };
        let new = match new {
            Some(t) => self.root_tree(t)?,
            None => None,
        };
        if old == new {
            return Ok(Vec::new());
        }
        let data = |id: Option<ObjectId>| -> Result<Vec<u8>, GitError> {
            match id {
                Some(id) => Ok(self.repo.find_tree(id).map_err(read_err)?.detach().data),
                None => Ok(Vec::new()),
            }
        };
        let (old_data, new_data) = (data(old)?, data(new)?);
        let kind = self.repo.object_hash();
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(&old_data, kind),
            gix::objs::TreeRefIter::from_bytes(&new_data, kind),
            gix::diff::tree::State::default(),
            trees.finder(&self.repo.objects),
            &mut recorder,
        )
        .map_err(read_err)?;
        let mut out = Vec::new();
        for change in recorder.records {
            let (path, old, new) = match change {
                C::Addition {
                    entry_mode,
                    oid,
                    path,
                    ..
                } => (path, None, Some((entry_mode, oid))),
                C::Deletion {
                    entry_mode,
                    oid,
                    path,
                    ..
                } => (path, Some((entry_mode, oid)), None),
                C::Modification {
                    previous_entry_mode,
                    previous_oid,
                    entry_mode,
                    oid,
                    path,
                } => (
                    path,
                    Some((previous_entry_mode, previous_oid)),
                    Some((entry_mode, oid)),
                ),
            };
            let file = |side: Option<(gix::objs::tree::EntryMode, ObjectId)>| {
                side.filter(|(m, _)| !m.is_tree())
                    .map(|(m, id)| Object::from_tree_mode(id, m))
            };
            let (old, new) = (file(old), file(new));
            if old.is_none() && new.is_none() {
                continue;
            }
            if old.is_some_and(|o| new.is_some_and(|n| o.id == n.id && o.kind == n.kind)) {
                continue;
            }
            let Ok(path) = path.to_str() else { continue };
            out.push(Change {
                path: path.to_string(),
                old,
                new,
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }
}

/// Trees read through [`Trees::finder`]: those of the commit being diffed
/// and of the one before it, up to a number of bytes.
pub(crate) struct Trees {
    /// Read since [`Trees::next_commit`].
    fresh: RefCell<Map<ObjectId, Vec<u8>>>,
    /// Read for the commit before.
    kept: RefCell<Map<ObjectId, Vec<u8>>>,
    bytes: Cell<usize>,
    cap: usize,
}

impl Trees {
    /// Keeps up to `cap` bytes of trees; past that, it starts again from
    /// the trees read next.
    pub(crate) fn new(cap: usize) -> Trees {
        Trees {
            fresh: RefCell::default(),
            kept: RefCell::default(),
            bytes: Cell::new(0),
            cap,
        }
    }

    /// A walk moves on to the next commit: the trees read for the commit
    /// before the last are let go (a tree is read again only by the diff
    /// of the neighbouring commit, which changed it too).
    pub(crate) fn next_commit(&self) {
        let fresh = std::mem::take(&mut *self.fresh.borrow_mut());
        self.bytes.set(fresh.values().map(Vec::len).sum());
        *self.kept.borrow_mut() = fresh;
    }

    /// An object finder reading through `objects`, answering the trees it
    /// kept without reading them again.
    pub(crate) fn finder<'t, F: gix::objs::Find>(&'t self, objects: &'t F) -> Finder<'t, F> {
        Finder {
            trees: self,
            objects,
        }
    }

    /// Keeps `data`, the tree `id`, as read for this commit.
    fn keep(&self, id: ObjectId, data: Vec<u8>) {
        if data.len() > self.cap {
            return;
        }
        if self.bytes.get() + data.len() > self.cap {
            self.fresh.borrow_mut().clear();
            self.kept.borrow_mut().clear();
            self.bytes.set(0);
        }
        self.bytes.set(self.bytes.get() + data.len());
        self.fresh.borrow_mut().insert(id, data);
    }
}

/// See [`Trees::finder`].
pub(crate) struct Finder<'t, F> {
    trees: &'t Trees,
    objects: &'t F,
}

impl<F: gix::objs::Find> gix::objs::Find for Finder<'_, F> {
    fn try_find<'a>(
        &self,
        id: &gix::hash::oid,
        buffer: &'a mut Vec<u8>,
    ) -> gix::Result<Option<gix::objs::Data<'a>>> {
        let kind = id.kind();
        let t = self.trees;
        let hit = match t.fresh.borrow().get(id) {
            Some(data) => {
                buffer.clear();
                buffer.extend_from_slice(data);
                true
            }
            None => false,
        };
        // Read for the commit before: kept for this one.
        let moved = !hit && {
            let data = t.kept.borrow_mut().remove(id);
            data.map(|d| {
                buffer.clear();
                buffer.extend_from_slice(&d);
                t.fresh.borrow_mut().insert(id.to_owned(), d);
            })
            .is_some()
        };
        if hit || moved {
            return Ok(Some(gix::objs::Data {
                kind: gix::objs::Kind::Tree,
                object_hash: kind,
                data: buffer,
            }));
        }
        let Some(found) = self.objects.try_find(id, buffer)? else {
            return Ok(None);
        };
        if found.kind == gix::objs::Kind::Tree {
            t.keep(id.to_owned(), found.data.to_vec());
        }
        Ok(Some(found))
    }
}

/// The objects pack delta chains were resolved into last, up to
/// [`ResolvedDeltas::CAP`] bytes, for gix to start the next chain from
/// (gix keeps none unless built with its largest performance features). A
/// walk of the history reads each version of a large tree (a directory of
/// thousands of records), and a pack stores each version as a delta of its
/// neighbour: without this, every version is rebuilt from the chain's far
/// end. One is shared by the handles of a repository (a clone, and the
/// handle a walk's second thread opens with [`Repo::again`]): each thread
/// diffs its own run of commits, and without the versions the other
/// resolved, it rebuilt seven times as many (a history of 12k commits).
#[derive(Clone, Default)]
pub(crate) struct ResolvedDeltas(std::sync::Arc<std::sync::Mutex<Deltas>>);

#[derive(Default)]
struct Deltas {
    objects: Map<(u32, u64), (gix::object::Kind, usize, Vec<u8>)>,
    order: std::collections::VecDeque<(u32, u64)>,
    bytes: usize,
}

impl ResolvedDeltas {
    /// Bytes kept at most; an object larger than a quarter of it is not
    /// kept.
    pub(crate) const CAP: usize = 32 << 20;

    fn deltas(&self) -> std::sync::MutexGuard<'_, Deltas> {
        // A thread that panicked holding it exits the process (the panic
        // hook): what is kept is whole either way.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl gix::odb::pack::cache::DecodeEntry for ResolvedDeltas {
    fn put(
        &mut self,
        pack_id: u32,
        offset: u64,
        data: &[u8],
        kind: gix::object::Kind,
        compressed_size: usize,
    ) {
        let key = (pack_id, offset);
        let mut d = self.deltas();
        if data.len() > ResolvedDeltas::CAP / 4 || d.objects.contains_key(&key) {
            return;
        }
        // The oldest go first.
        while d.bytes + data.len() > ResolvedDeltas::CAP {
            let Some(old) = d.order.pop_front() else {
                break;
            };
            if let Some((_, _, gone)) = d.objects.remove(&old) {
                d.bytes -= gone.len();
            }
        }
        d.bytes += data.len();
        d.order.push_back(key);
        d.objects
            .insert(key, (kind, compressed_size, data.to_vec()));
    }

    fn get(
        &mut self,
        pack_id: u32,
        offset: u64,
        out: &mut Vec<u8>,
    ) -> Option<(gix::object::Kind, usize)> {
        let d = self.deltas();
        let (kind, size, data) = d.objects.get(&(pack_id, offset))?;
        out.clear();
        out.extend_from_slice(data);
        Some((*kind, *size))
    }
}

/// For the tests, which cannot time a cold check's scan against the
/// history walk it begins meanwhile (`engine::drift::early`):
/// `MEMLINT_TEST_EARLY_WALK=off` begins no walk early, `whole` lets it go
/// as far as it would alone before the judging takes it.
pub(crate) fn early_walk_testing() -> Option<&'static str> {
    static MODE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    MODE.get_or_init(|| std::env::var("MEMLINT_TEST_EARLY_WALK").ok())
        .as_deref()
}
