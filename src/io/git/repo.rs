//! Git reads, all through gix (memlint never runs the `git` program): the
//! repository, the git index walk (`check --staged`), trees, blobs and
//! commits.

use crate::io::git::open::special_file;
use crate::io::git::types::*;
use crate::model::content::Content;
use gix::bstr::ByteSlice;
use gix::ObjectId;
use std::path::Path;

/// A repository opened for one of memlint's git modes, with the workspace
/// root's place in its work tree.
pub(crate) struct Repo {
    /// The repository, as gix opened it.
    pub repo: gix::Repository,
    /// The workspace root relative to the work tree, `/`-separated, ending
    /// with `/` (empty when the root is the top of the work tree).
    pub prefix: String,
    /// The pack cache its handles share (see [`Repo::again`]).
    pub(crate) deltas: crate::io::git::trees::ResolvedDeltas,
}

impl Repo {
    /// Opens the repository whose work tree holds `root`; `what` is the
    /// mode asking, which the error names.
    pub(crate) fn open(root: &Path, what: Asking) -> Result<Repo, GitError> {
        let not_a_repo = || GitError::NotARepository {
            root: root.display().to_string(),
            what,
        };
        if let Some((path, what)) = special_file(root) {
            return Err(GitError::Read(format!("{path} {what}")));
        }
        let mut repo = gix::discover(root).map_err(|_| not_a_repo())?;
        let deltas = crate::io::git::trees::ResolvedDeltas::default();
        let shared = deltas.clone();
        repo.objects
            .set_pack_cache(move || Box::new(shared.clone()));
        let workdir = repo.workdir().ok_or_else(not_a_repo)?;
        let workdir = workdir
            .canonicalize()
            .unwrap_or_else(|_| workdir.to_path_buf());
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let rel = root.strip_prefix(&workdir).map_err(|_| not_a_repo())?;
        let mut prefix = String::new();
        for c in rel.components() {
            prefix.push_str(&c.as_os_str().to_string_lossy());
            prefix.push('/');
        }
        Ok(Repo {
            repo,
            prefix,
            deltas,
        })
    }

    /// The commit HEAD points at, or `None` when there is none yet.
    pub(crate) fn head(&self) -> Result<Option<ObjectId>, GitError> {
        let head = self.repo.head().map_err(read_err)?;
        Ok(head.id().map(|id| id.detach()))
    }

    /// Resolves `rev` to a commit. When it does not resolve, the error says
    /// why in a user's words (an unknown name, an ambiguous id, a `~N` past
    /// the first commit), never in gix's.
    pub(crate) fn resolve(&self, rev: &str) -> Result<ObjectId, GitError> {
        let unknown = |hint: String| GitError::UnknownRevision {
            rev: rev.to_string(),
            hint,
        };
        let id = self.repo.rev_parse_single(rev).map_err(|_| {
            let shallow = if self.repo.is_shallow().unwrap_or(false) {
                " (the repository is a shallow clone: fetch more history, e.g. `fetch-depth: 0` in actions/checkout)"
            } else {
                ""
            };
            unknown(format!(": {}{shallow}", self.why_unresolved(rev)))
        })?;
        let object = id.object().map_err(read_err)?;
        let commit = object
            .peel_to_commit()
            .map_err(|_| unknown(" (it does not name a commit)".into()))?;
        Ok(commit.id)
    }

    /// Why `rev` does not resolve, found by resolving its parts one by
    /// one: the name before any `~`, `^`, `:` or `@{`, then each `~N` and
    /// `^N` step after it.
    fn why_unresolved(&self, rev: &str) -> String {
        if rev.is_empty() {
            return "a revision cannot be empty".into();
        }
        if rev.contains("..") {
            return "a range is not a revision here: give one commit".into();
        }
        let (name, steps) = split_revision(rev);
        if name.is_empty() {
            return CANNOT.into();
        }
        let Ok(base) = self.repo.rev_parse_single(name) else {
            return self.why_no_name(name);
        };
        let Some(commit) = base.object().ok().and_then(|o| o.peel_to_commit().ok()) else {
            return format!("`{name}` does not name a commit");
        };
        let (parsed, rest) = match parse_steps(steps) {
            Ok(parsed) => parsed,
            Err(why) => return why,
        };
        if !rest.is_empty() {
            if rest.starts_with("@{u") || rest.starts_with("@{push") {
                return format!("`{name}` has no upstream branch that memlint can find");
            }
            return CANNOT.into();
        }
        self.why_steps_fail(commit, name, &parsed)
    }

    /// Why the `steps` after `name` (which names `commit`) lead nowhere,
    /// found by walking them one by one: the first step that has no
    /// commit to go to, said with the revision walked so far.
    fn why_steps_fail<'r>(
        &'r self,
        mut commit: gix::Commit<'r>,
        name: &str,
        steps: &[Step<'_>],
    ) -> String {
        let mut walked = name.to_string();
        for step in steps {
            let next = match step.op {
                '^' => nth_parent(&commit, step.n, &walked),
                _ => self.nth_ancestor(commit.id, step.n, &walked),
            };
            let next = match next {
                Ok(next) => next,
                Err(why) => return why,
            };
            let Ok(found) = self.repo.find_commit(next) else {
                return CANNOT.into();
            };
            commit = found;
            walked.push_str(step.text);
        }
        CANNOT.into()
    }

    /// The commit `n` first parents back from `id` (`~N`), or why there is
    /// none: `walked` is the revision that names `id`.
    fn nth_ancestor(&self, id: ObjectId, n: usize, walked: &str) -> Result<ObjectId, String> {
        let mut at = id;
        for k in 0..n {
            let Some(first) = self.first_parent(at) else {
                return Err(match k {
                    0 => format!(
                        "`{walked}` has no ancestors (it is the first commit of its history)"
                    ),
                    1 => format!("`{walked}` has only 1 ancestor"),
                    k => format!("`{walked}` has only {k} ancestors"),
                });
            };
            at = first;
        }
        Ok(at)
    }

    /// The first parent of commit `id`, if it has one that can be read.
    fn first_parent(&self, id: ObjectId) -> Option<ObjectId> {
        let c = self.repo.find_commit(id).ok()?;
        let first = c.parent_ids().next().map(|p| p.detach());
        first
    }

    /// Why `name` (a revision without `~`, `^`, `:` or `@{`) names
    /// nothing: an ambiguous or unknown commit id, no commit yet, or no
    /// branch or tag of that name (with the closest one, if any).
    fn why_no_name(&self, name: &str) -> String {
        if name == "HEAD" && self.head().ok().flatten().is_none() {
            return "the repository has no commits yet".into();
        }
        let hex = name.bytes().all(|b| b.is_ascii_hexdigit());
        if hex && (4..=40).contains(&name.len()) {
            if let Ok(prefix) = gix::hash::Prefix::from_hex(name) {
                let mut all = std::collections::HashSet::new();
                if let Ok(Some(_)) = self.repo.objects.lookup_prefix(prefix, Some(&mut all)) {
                    if all.len() > 1 {
                        return format!(
                            "`{name}` is ambiguous: {} objects have ids starting with it; give more digits",
                            all.len()
                        );
                    }
                }
            }
        }
        let mut names: Vec<String> = Vec::new();
        if let Ok(refs) = self.repo.references() {
            if let Ok(all) = refs.all() {
                names.extend(all.flatten().map(|r| r.name().shorten().to_string()));
            }
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let hint = crate::syntax::text::closest(name, &refs, 0.6)
            .map(|m| format!(" (did you mean `{m}`?)"))
            .unwrap_or_default();
        let short = if hex && name.len() < 4 {
            "; a commit id needs at least 4 hex digits"
        } else {
            ""
        };
        format!("no branch, tag or commit is named `{name}`{hint}{short}")
    }

    /// The best common ancestor of `a` and `b`.
    pub(crate) fn merge_base(
        &self,
        a: ObjectId,
        b: ObjectId,
        a_name: &str,
    ) -> Result<ObjectId, GitError> {
        // In a shallow clone the ancestor may lie beyond the history
        // fetched: say so rather than send people hunting for unrelated
        // histories.
        let shallow = || self.repo.is_shallow().unwrap_or(false);
        const SHALLOW: &str = "the repository is a shallow clone and the common ancestor may lie beyond its history: fetch more (e.g. `fetch-depth: 0` in actions/checkout)";
        match self.repo.merge_base(a, b) {
            Ok(Some(id)) => Ok(id.detach()),
            Ok(None) if shallow() => Err(GitError::NoMergeBase(format!(
                "`{a_name}` and HEAD have no common ancestor in this clone: {SHALLOW}"
            ))),
            Ok(None) => Err(GitError::NoMergeBase(format!(
                "`{a_name}` and HEAD have no common ancestor"
            ))),
            Err(e) => {
                let why = if shallow() {
                    SHALLOW.to_string()
                } else {
                    e.to_string()
                };
                Err(GitError::NoMergeBase(format!(
                    "`{a_name}` and HEAD have no common ancestor: {why}"
                )))
            }
        }
    }

    /// The tree of `commit`.
    pub(crate) fn tree_of(&self, commit: ObjectId) -> Result<ObjectId, GitError> {
        let c = self.repo.find_commit(commit).map_err(read_err)?;
        Ok(c.tree_id().map_err(read_err)?.detach())
    }

    /// The commit's metadata.
    pub(crate) fn commit(&self, id: ObjectId) -> Result<CommitInfo, GitError> {
        let c = self.repo.find_commit(id).map_err(read_err)?;
        let decoded = c.decode().map_err(read_err)?;
        let time = decoded.author().ok().and_then(|a| a.time().ok());
        Ok(CommitInfo {
            id,
            seconds: time.map_or(0, |t| t.seconds),
            offset: time.map_or(0, |t| t.offset),
            message: kept_message(decoded.message),
            parents: decoded.parents().collect(),
            tree: decoded.tree(),
        })
    }

    /// Commits reachable from `tips` but not from `hidden`, newest first
    /// (each message kept as `kept_message` says).
    pub(crate) fn commits(
        &self,
        tips: &[ObjectId],
        hidden: &[ObjectId],
    ) -> Result<Vec<CommitInfo>, GitError> {
        let ids = self.walk_with(tips, hidden, |i| i.id)?;
        ids.into_iter().map(|id| self.commit(id)).collect()
    }

    /// Whether one of `commits` is a shallow clone's boundary: a commit
    /// whose parents the clone lacks, so that the commits reachable from
    /// HEAD but not from a base may be more than those walked.
    pub(crate) fn cut_short(&self, commits: &[CommitInfo]) -> bool {
        let Ok(Some(boundary)) = self.repo.shallow_commits() else {
            return false;
        };
        commits.iter().any(|c| boundary.contains(&c.id))
    }

    /// The ids of the commits reachable from `tips` but not from `hidden`,
    /// newest first (nothing else of them is decoded).
    pub(crate) fn commit_ids(
        &self,
        tips: &[ObjectId],
        hidden: &[ObjectId],
    ) -> Result<Vec<ObjectId>, GitError> {
        self.walk_with(tips, hidden, |i| i.id)
    }

    /// The commits reachable from `tip`, newest first, each with its
    /// parents (nothing else of them is decoded).
    pub(crate) fn commit_parents(
        &self,
        tip: ObjectId,
    ) -> Result<Vec<(ObjectId, Vec<ObjectId>)>, GitError> {
        self.walk_with(&[tip], &[], |i| (i.id, i.parent_ids.to_vec()))
    }

    fn walk_with<T>(
        &self,
        tips: &[ObjectId],
        hidden: &[ObjectId],
        f: impl Fn(&gix::revision::walk::Info) -> T,
    ) -> Result<Vec<T>, GitError> {
        use gix::revision::walk::Sorting;
        use gix::traverse::commit::simple::CommitTimeOrder;
        let walk = self
            .repo
            .rev_walk(tips.iter().copied())
            .with_hidden(hidden.iter().copied())
            .sorting(Sorting::ByCommitTime(CommitTimeOrder::NewestFirst))
            .all()
            .map_err(read_err)?;
        walk.map(|info| info.map(|i| f(&i)).map_err(read_err))
            .collect()
    }

    /// The subtree of `tree` at the workspace root, if any.
    pub(super) fn root_tree(&self, tree: ObjectId) -> Result<Option<ObjectId>, GitError> {
        let mut id = tree;
        for part in self.prefix.split('/').filter(|p| !p.is_empty()) {
            let t = self.repo.find_tree(id).map_err(read_err)?;
            let decoded = t.decode().map_err(read_err)?;
            match decoded
                .entries
                .iter()
                .find(|e| e.filename == part.as_bytes() && e.mode.is_tree())
            {
                Some(e) => id = e.oid.to_owned(),
                None => return Ok(None),
            }
        }
        Ok(Some(id))
    }

    /// Every path under the workspace root in `tree`, root-relative and
    /// sorted, with the object it points at.
    pub(crate) fn flatten(&self, tree: ObjectId) -> Result<Vec<(String, Object)>, GitError> {
        let mut out = Vec::new();
        if let Some(root) = self.root_tree(tree)? {
            self.flatten_into(root, &mut String::new(), &mut out)?;
        }
        Ok(out)
    }

    fn flatten_into(
        &self,
        tree: ObjectId,
        dir: &mut String,
        out: &mut Vec<(String, Object)>,
    ) -> Result<(), GitError> {
        let t = self.repo.find_tree(tree).map_err(read_err)?;
        let decoded = t.decode().map_err(read_err)?;
        // Tree order puts `a.b` before `a/` before `a0`, which is the byte
        // order of the full paths, so a depth-first walk yields them sorted.
        for e in &decoded.entries {
            let Ok(name) = e.filename.to_str() else {
                continue;
            };
            let len = dir.len();
            dir.push_str(name);
            if e.mode.is_tree() {
                dir.push('/');
                self.flatten_into(e.oid.to_owned(), dir, out)?;
            } else {
                out.push((
                    dir.clone(),
                    Object::from_tree_mode(e.oid.to_owned(), e.mode),
                ));
            }
            dir.truncate(len);
        }
        Ok(())
    }

    /// The bytes of the workspace file `rel` in HEAD's tree, when HEAD has
    /// it as a blob of at most `max` bytes.
    pub(crate) fn committed(&self, rel: &str, max: u64) -> Option<Vec<u8>> {
        let id = self.head().ok()??;
        let tree = self.repo.find_tree(self.tree_of(id).ok()?).ok()?;
        let entry = tree
            .lookup_entry_by_path(format!("{}{rel}", self.prefix))
            .ok()??;
        if !entry.mode().is_blob() {
            return None;
        }
        match self.blob(entry.object_id(), max).ok()? {
            Content::Bytes(b) => Some(b),
            Content::TooLarge(_) => None,
        }
    }

    /// Reads a blob, without its content when it exceeds `max` bytes.
    pub(crate) fn blob(&self, id: ObjectId, max: u64) -> Result<Content, GitError> {
        // The size from the object's header: a large blob is never
        // inflated into memory.
        let size = self.repo.find_header(id).map_err(read_err)?.size();
        if size > max {
            return Ok(Content::TooLarge(size));
        }
        let mut blob = self.repo.find_blob(id).map_err(read_err)?;
        let data = blob.take_data();
        if data.len() as u64 > max {
            return Ok(Content::TooLarge(data.len() as u64));
        }
        Ok(Content::Bytes(data))
    }

    /// The git index, read without verifying its trailing checksum (as git
    /// does when it reads the index): that alone would double the cost.
    pub(crate) fn index(&self) -> Result<gix::index::File, GitError> {
        gix::index::File::at_or_default(
            self.repo.index_path(),
            self.repo.object_hash(),
            true,
            Default::default(),
        )
        .map_err(read_err)
    }

    /// The index compared with HEAD (docs/commands.md `check --staged`).
    pub(crate) fn staged(&self) -> Result<Staged, GitError> {
        let index = self.index()?;
        let head_tree = match self.head()? {
            Some(commit) => self.root_tree(self.tree_of(commit)?)?,
            None => None,
        };
        let range = index
            .prefixed_entries_range(self.prefix.as_bytes().as_bstr())
            .unwrap_or(0..0);
        let mut cache = index.tree();
        for part in self.prefix.split('/').filter(|p| !p.is_empty()) {
            cache = cache.and_then(|c| {
                c.children
                    .iter()
                    .find(|t| t.name.as_slice() == part.as_bytes())
            });
        }
        let mut changes = Vec::new();
        let mut walk = IndexWalk {
            repo: self,
            index: &index,
            changes: &mut changes,
        };
        walk.dir(head_tree, cache, range.clone(), &self.prefix)?;
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        // A sparse index holds a directory outside the sparse checkout as
        // one entry pointing at its tree: the commit holds its files all
        // the same.
        let mut sparse = Vec::new();
        let backing = index.path_backing();
        for e in &index.entries()[range.clone()] {
            if e.mode.is_sparse() {
                let path = e.path_in(backing);
                let Some(rel) = path.get(self.prefix.len()..).and_then(|r| r.to_str().ok()) else {
                    continue;
                };
                let mut dir = rel.to_string();
                if !dir.ends_with('/') {
                    dir.push('/');
                }
                self.flatten_into(e.id, &mut dir, &mut sparse)?;
            }
        }
        sparse.sort_by(|a: &(String, Object), b| a.0.cmp(&b.0));
        Ok(Staged {
            index,
            range,
            prefix: self.prefix.clone(),
            changes,
            sparse,
        })
    }
}

/// What `why_unresolved` says of a revision it cannot take apart.
const CANNOT: &str = "it does not name a commit of this repository (memlint reads branch and tag names, commit ids of 4 to 40 hex digits, HEAD, and `~N` or `^N` after them)";

/// One `~N` or `^N` step of a revision.
struct Step<'a> {
    /// `~` or `^`.
    op: char,
    /// N, 1 when left out.
    n: usize,
    /// The step as written, such as `~3` or `^`.
    text: &'a str,
}

/// `rev` cut before its first `~`, `^`, `:` or `@{`: the name, and the
/// steps that follow it.
fn split_revision(rev: &str) -> (&str, &str) {
    let cut = rev
        .char_indices()
        .find(|&(i, c)| matches!(c, '~' | '^' | ':') || rev[i..].starts_with("@{"))
        .map_or(rev.len(), |(i, _)| i);
    let (name, steps) = rev.split_at(cut);
    // `@` alone, and nothing before `@{`, mean HEAD.
    let name = if name == "@" || (name.is_empty() && steps.starts_with("@{")) {
        "HEAD"
    } else {
        name
    };
    (name, steps)
}

/// The `~N` and `^N` steps at the start of `steps`, then what follows them
/// (which memlint does not walk itself); or why a step's number cannot be
/// read.
fn parse_steps(steps: &str) -> Result<(Vec<Step<'_>>, &str), String> {
    let mut parsed = Vec::new();
    let mut rest = steps;
    while let Some(op) = rest.chars().next().filter(|c| matches!(c, '~' | '^')) {
        if rest[1..].starts_with('{') {
            break;
        }
        let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
        let n = match digits {
            0 => 1,
            _ => match rest[1..1 + digits].parse::<usize>() {
                Ok(n) => n,
                Err(_) => return Err(format!("`{}` is too large a number", &rest[1..1 + digits])),
            },
        };
        parsed.push(Step {
            op,
            n,
            text: &rest[..1 + digits],
        });
        rest = &rest[1 + digits..];
    }
    Ok((parsed, rest))
}

/// The `n`th parent of `commit` (`^N`, where `^0` is the commit itself), or
/// why there is none: `walked` is the revision that names `commit`.
fn nth_parent(commit: &gix::Commit<'_>, n: usize, walked: &str) -> Result<ObjectId, String> {
    if n == 0 {
        return Ok(commit.id);
    }
    let parents: Vec<ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
    match parents.get(n - 1) {
        Some(p) => Ok(*p),
        None if parents.is_empty() => Err(format!(
            "`{walked}` has no parent (it is the first commit of its history)"
        )),
        None => Err(format!(
            "`{walked}` has only {} parent{}",
            parents.len(),
            if parents.len() == 1 { "" } else { "s" }
        )),
    }
}

/// The git index seen from the workspace root, and how it differs from HEAD.
pub(crate) struct Staged {
    index: gix::index::File,
    /// The entries under the root.
    range: std::ops::Range<usize>,
    prefix: String,
    /// Paths whose staged version differs from HEAD, sorted.
    pub changes: Vec<Change>,
    /// The files of the index's sparse directory entries, root-relative,
    /// sorted.
    sparse: Vec<(String, Object)>,
}

impl Staged {
    /// Every path the next commit holds under the root, root-relative,
    /// sorted, with its object.
    pub(crate) fn paths(&self) -> Vec<(&str, Object)> {
        let backing = self.index.path_backing();
        let plen = self.prefix.len();
        let mut out: Vec<(&str, Object)> = self.index.entries()[self.range.clone()]
            .iter()
            .filter(|e| {
                !e.flags.contains(gix::index::entry::Flags::INTENT_TO_ADD) && e.stage_raw() == 0
            })
            .filter_map(move |e| {
                let path = e.path_in(backing).get(plen..)?.to_str().ok()?;
                Some((path, index_object(e)?))
            })
            .collect();
        if !self.sparse.is_empty() {
            out.extend(self.sparse.iter().map(|(p, o)| (p.as_str(), *o)));
            out.sort_unstable_by(|a, b| a.0.cmp(b.0));
        }
        out
    }

    /// The git index this view was read from.
    pub(crate) fn index(&self) -> &gix::index::File {
        &self.index
    }

    /// The workspace root relative to the top of the work tree (see [`Repo::prefix`]).
    pub(crate) fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The staged object at root-relative `rel`.
    pub(crate) fn lookup(&self, rel: &str) -> Option<Object> {
        let full = format!("{}{rel}", self.prefix);
        let Some(e) = self.index.entry_by_path(full.as_bytes().as_bstr()) else {
            return tree_lookup(&self.sparse, rel);
        };
        if e.flags.contains(gix::index::entry::Flags::INTENT_TO_ADD) {
            return None;
        }
        index_object(e)
    }

    /// Whether root-relative `rel` is a file or a directory of the index.
    pub(crate) fn exists(&self, rel: &str) -> bool {
        let full = format!("{}{rel}", self.prefix);
        self.lookup(rel).is_some()
            || self.index.path_is_directory(full.as_bytes().as_bstr())
            || tree_has(&self.sparse, rel)
    }
}

fn index_object(e: &gix::index::Entry) -> Option<Object> {
    use gix::index::entry::Mode;
    let kind = if e.mode.is_submodule() {
        FileKind::Submodule
    } else if e.mode == Mode::SYMLINK {
        FileKind::Link
    } else if e.mode.is_sparse() {
        return None;
    } else {
        FileKind::Blob
    };
    Some(Object { id: e.id, kind })
}

/// One sorted walk over the index and the HEAD tree, skipping directories
/// whose cache-tree entry matches HEAD: never a lookup per path, which would
/// decode a large tree object each time.
struct IndexWalk<'a> {
    repo: &'a Repo,
    index: &'a gix::index::File,
    changes: &'a mut Vec<Change>,
}

/// An entry of a decoded tree.
struct TreeItem {
    name: Vec<u8>,
    is_tree: bool,
    id: ObjectId,
    mode: gix::objs::tree::EntryMode,
}

impl IndexWalk<'_> {
    fn path(&self, i: usize) -> &[u8] {
        self.index.entries()[i].path_in(self.index.path_backing())
    }

    /// Compares the index entries `range`, all under the directory `dir`
    /// (repository-relative, with its `/`, empty at the top), with `tree`.
    fn dir(
        &mut self,
        tree: Option<ObjectId>,
        cache: Option<&gix::index::extension::Tree>,
        range: std::ops::Range<usize>,
        dir: &str,
    ) -> Result<(), GitError> {
        if let (Some(t), Some(c)) = (tree, cache) {
            if c.num_entries.is_some() && c.id == t {
                return Ok(());
            }
        }
        let object = match tree {
            Some(id) => Some(self.repo.repo.find_tree(id).map_err(read_err)?),
            None => None,
        };
        let decoded = match &object {
            Some(t) => Some(t.decode().map_err(read_err)?),
            None => None,
        };
        let items: &[gix::objs::tree::EntryRef<'_>] =
            decoded.as_ref().map_or(&[], |d| d.entries.as_slice());
        let plen = dir.len();
        let mut ti = 0;
        let mut ii = range.start;
        while ti < items.len() || ii < range.end {
            let group = (ii < range.end).then(|| self.group(ii, range.end, plen));
            let name_of = |g: &Group| {
                let p = self.path(ii);
                &p[plen.min(p.len())..(plen + g.name_len).min(p.len())]
            };
            let order = match (items.get(ti), &group) {
                (Some(t), Some(g)) => key_cmp(t.filename, t.mode.is_tree(), name_of(g), g.is_dir),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, _) => std::cmp::Ordering::Greater,
            };
            match (order, group) {
                (std::cmp::Ordering::Less, _) | (_, None) => {
                    self.only_in_tree(&items[ti], dir)?;
                    ti += 1;
                }
                (std::cmp::Ordering::Greater, Some(g)) => {
                    self.only_in_index(ii, &g)?;
                    ii = g.end;
                }
                (std::cmp::Ordering::Equal, Some(g)) => {
                    self.in_both(&items[ti], ii, &g, cache, dir)?;
                    ti += 1;
                    ii = g.end;
                }
            }
        }
        Ok(())
    }

    /// The next index group from entry `ii` (below `range_end`) of a
    /// directory whose path is `plen` bytes long: one file (all its
    /// stages) or one directory.
    fn group(&self, ii: usize, range_end: usize, plen: usize) -> Group {
        let p = self.path(ii);
        let rest = p.get(plen..).unwrap_or_default();
        match rest.iter().position(|&b| b == b'/') {
            Some(k) => {
                let prefix = &p[..plen + k + 1];
                let backing = self.index.path_backing();
                let end = ii
                    + self.index.entries()[ii..range_end]
                        .partition_point(|e| e.path_in(backing).starts_with(prefix));
                Group {
                    name_len: k,
                    is_dir: true,
                    end,
                }
            }
            None => {
                let mut end = ii + 1;
                while end < range_end && self.path(end) == p {
                    end += 1;
                }
                Group {
                    name_len: rest.len(),
                    is_dir: false,
                    end,
                }
            }
        }
    }

    /// A tree entry the index no longer has: removed.
    fn only_in_tree(
        &mut self,
        item: &gix::objs::tree::EntryRef<'_>,
        dir: &str,
    ) -> Result<(), GitError> {
        let path = format!("{dir}{}", item.filename.to_str_lossy());
        if item.mode.is_tree() {
            self.removed_tree(item.oid.to_owned(), &format!("{path}/"))
        } else {
            self.push(
                &path,
                Some(Object::from_tree_mode(item.oid.to_owned(), item.mode)),
                None,
            )
        }
    }

    /// An index group from entry `ii` the tree does not have: added.
    fn only_in_index(&mut self, ii: usize, g: &Group) -> Result<(), GitError> {
        if !g.is_dir {
            if let Some(new) = self.staged_object(ii, g.end)? {
                let path = self.path(ii).to_str_lossy().into_owned();
                self.push(&path, None, Some(new))?;
            }
            return Ok(());
        }
        let mut i = ii;
        while i < g.end {
            if self.index.entries()[i].mode.is_sparse() {
                let sub = self.path(i).to_str_lossy().into_owned();
                self.sparse_dir(None, self.index.entries()[i].id, &sub)?;
                i += 1;
                continue;
            }
            let mut j = i + 1;
            while j < g.end && self.path(j) == self.path(i) {
                j += 1;
            }
            if let Some(new) = self.staged_object(i, j)? {
                let path = self.path(i).to_str_lossy().into_owned();
                self.push(&path, None, Some(new))?;
            }
            i = j;
        }
        Ok(())
    }

    /// A tree entry and the index group from entry `ii` with its name:
    /// compared, a directory walked into (or its sparse entry compared).
    fn in_both(
        &mut self,
        item: &gix::objs::tree::EntryRef<'_>,
        ii: usize,
        g: &Group,
        cache: Option<&gix::index::extension::Tree>,
        dir: &str,
    ) -> Result<(), GitError> {
        // The directory is one sparse entry (`dir/name/`).
        let sparse = g.is_dir
            && g.end == ii + 1
            && self.index.entries()[ii].mode.is_sparse()
            && self.path(ii).len() == dir.len() + g.name_len + 1;
        if sparse {
            let id = self.index.entries()[ii].id;
            if id != item.oid {
                let sub = format!("{dir}{}/", item.filename.to_str_lossy());
                self.sparse_dir(Some(item.oid.to_owned()), id, &sub)?;
            }
        } else if g.is_dir {
            let name: &[u8] = item.filename;
            let child = cache.and_then(|c| c.children.iter().find(|t| t.name.as_slice() == name));
            let sub = format!("{dir}{}/", name.to_str_lossy());
            self.dir(Some(item.oid.to_owned()), child, ii..g.end, &sub)?;
        } else {
            let old = Object::from_tree_mode(item.oid.to_owned(), item.mode);
            let new = self.staged_object(ii, g.end)?;
            if !new.is_some_and(|n| n.id == old.id && n.kind == old.kind) {
                let path = self.path(ii).to_str_lossy().into_owned();
                self.push(&path, Some(old), new)?;
            }
        }
        Ok(())
    }

    /// The changes in a sparse directory entry of the index (`dir`, with
    /// its `/`), whose tree `new` replaces `old`.
    fn sparse_dir(
        &mut self,
        old: Option<ObjectId>,
        new: ObjectId,
        dir: &str,
    ) -> Result<(), GitError> {
        let flat = |id: Option<ObjectId>| -> Result<Vec<(String, Object)>, GitError> {
            let mut out = Vec::new();
            if let Some(id) = id {
                self.repo.flatten_into(id, &mut dir.to_string(), &mut out)?;
            }
            Ok(out)
        };
        let (old, new) = (flat(old)?, flat(Some(new))?);
        let (mut a, mut b) = (old.into_iter().peekable(), new.into_iter().peekable());
        loop {
            let order = match (a.peek(), b.peek()) {
                (None, None) => return Ok(()),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some(x), Some(y)) => x.0.cmp(&y.0),
            };
            match order {
                std::cmp::Ordering::Less => {
                    let (path, o) = a.next().expect("peeked");
                    self.push(&path, Some(o), None)?;
                }
                std::cmp::Ordering::Greater => {
                    let (path, n) = b.next().expect("peeked");
                    self.push(&path, None, Some(n))?;
                }
                std::cmp::Ordering::Equal => {
                    let ((path, o), (_, n)) =
                        (a.next().expect("peeked"), b.next().expect("peeked"));
                    if o.id != n.id || o.kind != n.kind {
                        self.push(&path, Some(o), Some(n))?;
                    }
                }
            }
        }
    }

    fn items(&self, tree: ObjectId) -> Result<Vec<TreeItem>, GitError> {
        let t = self.repo.repo.find_tree(tree).map_err(read_err)?;
        let decoded = t.decode().map_err(read_err)?;
        Ok(decoded
            .entries
            .iter()
            .map(|e| TreeItem {
                name: e.filename.to_vec(),
                is_tree: e.mode.is_tree(),
                id: e.oid.to_owned(),
                mode: e.mode,
            })
            .collect())
    }

    /// Every file of a tree that the index no longer holds.
    fn removed_tree(&mut self, tree: ObjectId, dir: &str) -> Result<(), GitError> {
        for item in self.items(tree)? {
            let path = format!("{dir}{}", item.name.to_str_lossy());
            if item.is_tree {
                self.removed_tree(item.id, &format!("{path}/"))?;
            } else {
                self.push(
                    &path,
                    Some(Object::from_tree_mode(item.id, item.mode)),
                    None,
                )?;
            }
        }
        Ok(())
    }

    /// Records a change at repository-relative `path`.
    fn push(
        &mut self,
        path: &str,
        old: Option<Object>,
        new: Option<Object>,
    ) -> Result<(), GitError> {
        if old.is_none() && new.is_none() {
            return Ok(());
        }
        let Some(rel) = path.strip_prefix(self.repo.prefix.as_str()) else {
            return Ok(());
        };
        self.changes.push(Change {
            path: rel.to_string(),
            old,
            new,
        });
        Ok(())
    }

    /// The staged object of the file whose entries are `i..end` (`None`
    /// for an intent-to-add entry, which the commit will not hold).
    fn staged_object(&self, i: usize, end: usize) -> Result<Option<Object>, GitError> {
        let e = &self.index.entries()[i];
        if end - i > 1 || e.stage_raw() != 0 {
            return Err(GitError::Conflict(self.path(i).to_str_lossy().into_owned()));
        }
        if e.mode.is_sparse() {
            return Err(GitError::Read(format!(
                "`{}` is a sparse index directory; the staged files are read from a full index only (`git sparse-checkout disable`)",
                self.path(i).to_str_lossy()
            )));
        }
        if e.flags.contains(gix::index::entry::Flags::INTENT_TO_ADD) {
            return Ok(None);
        }
        Ok(index_object(e))
    }
}

/// Orders a tree entry against an index group as git orders tree entries:
/// a directory compares as if its name ended with `/`.
/// The most of a commit message memlint keeps: messages are written by
/// whoever pushes, and a larger one is not held, parsed or printed whole.
pub(crate) const MESSAGE_MAX: usize = 1 << 20;

/// A commit message as memlint keeps it: whole up to [`MESSAGE_MAX`]
/// bytes; past that only its first line (cut to 200 characters), with a
/// note of its size, so no trailer of it is read.
fn kept_message(message: &[u8]) -> String {
    if message.len() <= MESSAGE_MAX {
        return String::from_utf8_lossy(message).into_owned();
    }
    let first = message.split(|b| *b == b'\n').next().unwrap_or_default();
    let first = &first[..first.len().min(800)];
    let first: String = String::from_utf8_lossy(first).chars().take(200).collect();
    format!(
        "{} [a message of {} bytes, more than {MESSAGE_MAX}: only its first line is read]",
        first.trim_end(),
        message.len()
    )
}

fn key_cmp(a: &[u8], a_dir: bool, b: &[u8], b_dir: bool) -> std::cmp::Ordering {
    let a_key = a.iter().chain(a_dir.then_some(&b'/'));
    let b_key = b.iter().chain(b_dir.then_some(&b'/'));
    a_key.cmp(b_key)
}

/// One group of index entries under a directory: a file (all its stages)
/// or a subdirectory.
struct Group {
    /// Length of its name within the directory.
    name_len: usize,
    is_dir: bool,
    /// The index entry after the group.
    end: usize,
}
