//! Git reads, all through gix (memlint never runs the `git` program).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

/// The repository whose work tree holds `root`, if any (and none when one
/// of its files would hold the reader up; see [`special_file`]).
pub fn open(root: &Path) -> Option<gix::Repository> {
    if special_file(root).is_some() {
        return None;
    }
    let repo = gix::discover(root).ok()?;
    repo.workdir()?;
    Some(repo)
}

/// The first file of the repository holding `root` that gix would open and
/// that is not a regular file (a FIFO would hold gix's blocking open up
/// for ever), as the path to show and what it is. The files looked at are
/// those every read opens: `.git` itself when it is a file, and in the git
/// directory and the common directory `HEAD`, the branch it names,
/// `config`, `config.worktree`, `index`, `packed-refs`, `shallow`,
/// `commondir` and `objects/info/alternates`. Loose objects and packs are
/// not looked at: git writes them, people do not.
pub fn special_file(root: &Path) -> Option<(String, String)> {
    let top = root
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())?;
    let shown = |p: &Path| match p.strip_prefix(root) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => p.display().to_string(),
    };
    // Absent, a directory (gix then fails) or a regular file: fine.
    let odd = |p: &Path| -> Option<(String, String)> {
        let m = std::fs::metadata(p).ok()?;
        (!m.is_file() && !m.is_dir()).then(|| {
            (
                shown(p),
                format!("is not a regular file ({})", crate::io::fs::kind_of(&m)),
            )
        })
    };
    let first_line = |p: &Path| -> Option<String> {
        use std::io::Read;
        let mut head = Vec::new();
        crate::io::fs::open_regular(p)
            .ok()?
            .take(4096)
            .read_to_end(&mut head)
            .ok()?;
        Some(
            String::from_utf8_lossy(&head)
                .lines()
                .next()?
                .trim()
                .to_string(),
        )
    };
    let dot_git = top.join(".git");
    if let Some(found) = odd(&dot_git) {
        return Some(found);
    }
    let git_dir = match first_line(&dot_git)
        .and_then(|l| l.strip_prefix("gitdir:").map(|d| top.join(d.trim())))
    {
        Some(dir) => dir,
        None => dot_git,
    };
    let names = [
        "HEAD",
        "config",
        "config.worktree",
        "index",
        "packed-refs",
        "shallow",
        "commondir",
        "objects/info/alternates",
    ];
    if let Some(found) = names.iter().find_map(|n| odd(&git_dir.join(n))) {
        return Some(found);
    }
    let common = first_line(&git_dir.join("commondir")).map(|c| git_dir.join(c));
    if let Some(found) = common
        .iter()
        .flat_map(|c| names.iter().map(move |n| c.join(n)))
        .find_map(|p| odd(&p))
    {
        return Some(found);
    }
    // The branch HEAD names, a loose ref in either directory.
    let branch = first_line(&git_dir.join("HEAD"))
        .and_then(|l| l.strip_prefix("ref:").map(|r| r.trim().to_string()))
        .filter(|r| r.starts_with("refs/") && !r.split('/').any(|c| c == ".." || c.is_empty()))?;
    std::iter::once(&git_dir)
        .chain(common.iter())
        .find_map(|d| odd(&d.join(&branch)))
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
    files: Mutex<HashMap<String, Result<(), Option<String>>>>,
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

    /// [`DiskResolver::new`] for `ws`, noting among its problems a
    /// repository left unread because one of its files is not a regular
    /// file (its `commit:` sources are then not checked).
    pub fn of(ws: &'a crate::model::workspace::Workspace) -> Self {
        if let Some((path, reason)) = special_file(&ws.root) {
            ws.note(crate::model::workspace::Problem::GitFile { path, reason });
        }
        DiskResolver::new(&ws.root)
    }
}

impl crate::lint::rules::workspace::Resolver for DiskResolver<'_> {
    fn file_exists(&self, rel: &str) -> bool {
        self.answer(rel).is_ok()
    }

    fn leads_out(&self, rel: &str) -> Option<String> {
        self.answer(rel).err().flatten()
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

// ---------------------------------------------------------------------------
// The git modes: `check --staged`, `check --base`, `log`.

use gix::bstr::ByteSlice;
use gix::ObjectId;

/// Why a git-backed command cannot run (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The workspace is not inside a git work tree.
    #[error("{root} is not in a git repository; {what} reads git (run `git init` first)")]
    NotARepository { root: String, what: &'static str },
    /// HEAD is unborn.
    #[error("the repository has no commits yet; {0} needs at least one commit")]
    NoCommits(&'static str),
    /// A revision that does not resolve to a commit.
    #[error("unknown revision `{rev}`{hint}")]
    UnknownRevision { rev: String, hint: String },
    /// Two commits without a common ancestor in the history at hand.
    #[error("{0}")]
    NoMergeBase(String),
    /// Unmerged paths in the index.
    #[error(
        "the index has unresolved conflicts (`{0}`); resolve them and `git add` the result first"
    )]
    Conflict(String),
    /// Anything else git could not read.
    #[error("cannot read the git repository: {0}")]
    Read(String),
    /// A file of the repository memlint changes (its configuration) could
    /// not be written; the message names it and the system's error.
    #[error("{0}")]
    Write(String),
    /// A request that names nothing in the repository (an unknown record).
    #[error("{0}")]
    Unknown(String),
}

fn read_err(e: impl std::fmt::Display) -> GitError {
    GitError::Read(e.to_string())
}

/// What a path of a git tree or index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file (executable or not).
    Blob,
    /// A symbolic link: its blob is the link target, never a record.
    Link,
    /// A submodule commit.
    Submodule,
}

/// An object a path points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Object {
    /// The blob (or submodule commit) id.
    pub id: ObjectId,
    /// What the path holds.
    pub kind: FileKind,
}

impl Object {
    fn from_tree_mode(id: ObjectId, mode: gix::objs::tree::EntryMode) -> Object {
        let kind = if mode.is_link() {
            FileKind::Link
        } else if mode.is_commit() {
            FileKind::Submodule
        } else {
            FileKind::Blob
        };
        Object { id, kind }
    }

    /// Whether the path is a regular file whose blob can be read as a record.
    pub fn is_file(&self) -> bool {
        self.kind == FileKind::Blob
    }
}

/// A path that differs between two versions, root-relative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Root-relative, `/`-separated.
    pub path: String,
    /// `None`: the path is new.
    pub old: Option<Object>,
    /// `None`: the path is gone.
    pub new: Option<Object>,
}

/// The content of a blob, as `lint_file` wants it.
pub enum Blob {
    /// The whole content.
    Bytes(Vec<u8>),
    /// Larger than `max_file_bytes`: only its size.
    TooLarge(u64),
}

/// A commit as `log` and `check --base` use it.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    /// The commit id.
    pub id: ObjectId,
    /// Author time: seconds since the epoch and offset in seconds east of UTC.
    pub seconds: i64,
    /// See `seconds`.
    pub offset: i32,
    /// The whole commit message.
    pub message: String,
    /// Parent commits, first parent first.
    pub parents: Vec<ObjectId>,
    /// The commit's root tree.
    pub tree: ObjectId,
}

impl CommitInfo {
    /// The first line of the message.
    pub fn summary(&self) -> &str {
        self.message.lines().next().unwrap_or("").trim_end()
    }
}

/// A repository opened for one of memlint's git modes, with the workspace
/// root's place in its work tree.
pub struct Repo {
    /// The repository, as gix opened it.
    pub repo: gix::Repository,
    /// The workspace root relative to the work tree, `/`-separated, ending
    /// with `/` (empty when the root is the top of the work tree).
    pub prefix: String,
}

impl Repo {
    /// Opens the repository whose work tree holds `root`; `what` names the
    /// command for the error message.
    pub fn open(root: &Path, what: &'static str) -> Result<Repo, GitError> {
        let not_a_repo = || GitError::NotARepository {
            root: root.display().to_string(),
            what,
        };
        if let Some((path, what)) = special_file(root) {
            return Err(GitError::Read(format!("{path} {what}")));
        }
        let repo = gix::discover(root).map_err(|_| not_a_repo())?;
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
        Ok(Repo { repo, prefix })
    }

    /// The commit HEAD points at, or `None` when there is none yet.
    pub fn head(&self) -> Result<Option<ObjectId>, GitError> {
        let head = self.repo.head().map_err(read_err)?;
        Ok(head.id().map(|id| id.detach()))
    }

    /// Resolves `rev` to a commit. When it does not resolve, the error says
    /// why in a user's words (an unknown name, an ambiguous id, a `~N` past
    /// the first commit), never in gix's.
    pub fn resolve(&self, rev: &str) -> Result<ObjectId, GitError> {
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
        const CANNOT: &str = "it does not name a commit of this repository (memlint reads branch and tag names, commit ids of 4 to 40 hex digits, HEAD, and `~N` or `^N` after them)";
        if rev.is_empty() {
            return "a revision cannot be empty".into();
        }
        if rev.contains("..") {
            return "a range is not a revision here: give one commit".into();
        }
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
        if name.is_empty() {
            return CANNOT.into();
        }
        let Ok(base) = self.repo.rev_parse_single(name) else {
            return self.why_no_name(name);
        };
        let Some(mut commit) = base.object().ok().and_then(|o| o.peel_to_commit().ok()) else {
            return format!("`{name}` does not name a commit");
        };
        // The `~N` and `^N` steps, then what follows them (which memlint
        // does not walk itself).
        let mut parsed: Vec<(char, usize, &str)> = Vec::new();
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
                    Err(_) => return format!("`{}` is too large a number", &rest[1..1 + digits]),
                },
            };
            parsed.push((op, n, &rest[..1 + digits]));
            rest = &rest[1 + digits..];
        }
        if !rest.is_empty() {
            if rest.starts_with("@{u") || rest.starts_with("@{push") {
                return format!("`{name}` has no upstream branch that memlint can find");
            }
            return CANNOT.into();
        }
        let mut walked = name.to_string();
        for (op, n, text) in parsed {
            let parents: Vec<ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
            let next = match op {
                '^' if n == 0 => commit.id,
                '^' => match parents.get(n - 1) {
                    Some(p) => *p,
                    None if parents.is_empty() => {
                        return format!(
                            "`{walked}` has no parent (it is the first commit of its history)"
                        )
                    }
                    None => {
                        return format!(
                            "`{walked}` has only {} parent{}",
                            parents.len(),
                            if parents.len() == 1 { "" } else { "s" }
                        )
                    }
                },
                _ => {
                    // `~N`: N first parents back.
                    let mut at = commit.id;
                    for k in 0..n {
                        let Some(first) = self.first_parent(at) else {
                            return match k {
                                0 => format!("`{walked}` has no ancestors (it is the first commit of its history)"),
                                1 => format!("`{walked}` has only 1 ancestor"),
                                k => format!("`{walked}` has only {k} ancestors"),
                            };
                        };
                        at = first;
                    }
                    at
                }
            };
            let Ok(found) = self.repo.find_commit(next) else {
                return CANNOT.into();
            };
            commit = found;
            walked.push_str(text);
        }
        CANNOT.into()
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
    pub fn merge_base(&self, a: ObjectId, b: ObjectId, a_name: &str) -> Result<ObjectId, GitError> {
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
    pub fn tree_of(&self, commit: ObjectId) -> Result<ObjectId, GitError> {
        let c = self.repo.find_commit(commit).map_err(read_err)?;
        Ok(c.tree_id().map_err(read_err)?.detach())
    }

    /// The commit's metadata.
    pub fn commit(&self, id: ObjectId) -> Result<CommitInfo, GitError> {
        let c = self.repo.find_commit(id).map_err(read_err)?;
        let decoded = c.decode().map_err(read_err)?;
        let time = decoded.author().ok().and_then(|a| a.time().ok());
        Ok(CommitInfo {
            id,
            seconds: time.map_or(0, |t| t.seconds),
            offset: time.map_or(0, |t| t.offset),
            message: decoded.message.to_str_lossy().into_owned(),
            parents: decoded.parents().collect(),
            tree: decoded.tree(),
        })
    }

    /// Commits reachable from `tips` but not from `hidden`, newest first.
    pub fn commits(
        &self,
        tips: &[ObjectId],
        hidden: &[ObjectId],
    ) -> Result<Vec<CommitInfo>, GitError> {
        use gix::revision::walk::Sorting;
        use gix::traverse::commit::simple::CommitTimeOrder;
        let walk = self
            .repo
            .rev_walk(tips.iter().copied())
            .with_hidden(hidden.iter().copied())
            .sorting(Sorting::ByCommitTime(CommitTimeOrder::NewestFirst))
            .all()
            .map_err(read_err)?;
        let mut out = Vec::new();
        for info in walk {
            let info = info.map_err(read_err)?;
            out.push(self.commit(info.id)?);
        }
        Ok(out)
    }

    /// The subtree of `tree` at the workspace root, if any.
    fn root_tree(&self, tree: ObjectId) -> Result<Option<ObjectId>, GitError> {
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
    pub fn flatten(&self, tree: ObjectId) -> Result<Vec<(String, Object)>, GitError> {
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

    /// The paths under the workspace root that differ between the trees
    /// (`None`: the empty tree), root-relative, sorted.
    pub fn diff_trees(
        &self,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
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
            &self.repo.objects,
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

    /// The bytes of the workspace file `rel` in HEAD's tree, when HEAD has
    /// it as a blob of at most `max` bytes.
    pub fn committed(&self, rel: &str, max: u64) -> Option<Vec<u8>> {
        let id = self.head().ok()??;
        let tree = self.repo.find_tree(self.tree_of(id).ok()?).ok()?;
        let entry = tree
            .lookup_entry_by_path(format!("{}{rel}", self.prefix))
            .ok()??;
        if !entry.mode().is_blob() {
            return None;
        }
        match self.blob(entry.object_id(), max).ok()? {
            Blob::Bytes(b) => Some(b),
            Blob::TooLarge(_) => None,
        }
    }

    /// Reads a blob, without its content when it exceeds `max` bytes.
    pub fn blob(&self, id: ObjectId, max: u64) -> Result<Blob, GitError> {
        let mut blob = self.repo.find_blob(id).map_err(read_err)?;
        let data = blob.take_data();
        if data.len() as u64 > max {
            return Ok(Blob::TooLarge(data.len() as u64));
        }
        Ok(Blob::Bytes(data))
    }

    /// The git index, read without verifying its trailing checksum (as git
    /// does when it reads the index): that alone would double the cost.
    pub fn index(&self) -> Result<gix::index::File, GitError> {
        gix::index::File::at_or_default(
            self.repo.index_path(),
            self.repo.object_hash(),
            true,
            Default::default(),
        )
        .map_err(read_err)
    }

    /// The index compared with HEAD (SPEC §4 `check --staged`).
    pub fn staged(&self) -> Result<Staged, GitError> {
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

/// The git index seen from the workspace root, and how it differs from HEAD.
pub struct Staged {
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
    pub fn paths(&self) -> Vec<(&str, Object)> {
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
    pub fn index(&self) -> &gix::index::File {
        &self.index
    }

    /// The workspace root relative to the top of the work tree (see [`Repo::prefix`]).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The staged object at root-relative `rel`.
    pub fn lookup(&self, rel: &str) -> Option<Object> {
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
    pub fn exists(&self, rel: &str) -> bool {
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
            // The next index group: one file (all its stages) or one
            // directory, as (length of its name, is a directory, end).
            let group = if ii < range.end {
                let p = self.path(ii);
                let rest = p.get(plen..).unwrap_or_default();
                Some(match rest.iter().position(|&b| b == b'/') {
                    Some(k) => {
                        let prefix = &p[..plen + k + 1];
                        let backing = self.index.path_backing();
                        let end = ii
                            + self.index.entries()[ii..range.end]
                                .partition_point(|e| e.path_in(backing).starts_with(prefix));
                        (k, true, end)
                    }
                    None => {
                        let mut end = ii + 1;
                        while end < range.end && self.path(end) == p {
                            end += 1;
                        }
                        (rest.len(), false, end)
                    }
                })
            } else {
                None
            };
            let name_of = |g: &(usize, bool, usize)| {
                let p = self.path(ii);
                &p[plen.min(p.len())..(plen + g.0).min(p.len())]
            };
            let order = match (items.get(ti), &group) {
                (Some(t), Some(g)) => key_cmp(t.filename, t.mode.is_tree(), name_of(g), g.1),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, _) => std::cmp::Ordering::Greater,
            };
            match (order, group) {
                (std::cmp::Ordering::Less, _) | (_, None) => {
                    let item = &items[ti];
                    let path = format!("{dir}{}", item.filename.to_str_lossy());
                    if item.mode.is_tree() {
                        self.removed_tree(item.oid.to_owned(), &format!("{path}/"))?;
                    } else {
                        self.push(
                            &path,
                            Some(Object::from_tree_mode(item.oid.to_owned(), item.mode)),
                            None,
                        )?;
                    }
                    ti += 1;
                }
                (std::cmp::Ordering::Greater, Some((_, is_dir, end))) => {
                    if is_dir {
                        let mut i = ii;
                        while i < end {
                            if self.index.entries()[i].mode.is_sparse() {
                                let sub = self.path(i).to_str_lossy().into_owned();
                                self.sparse_dir(None, self.index.entries()[i].id, &sub)?;
                                i += 1;
                                continue;
                            }
                            let mut j = i + 1;
                            while j < end && self.path(j) == self.path(i) {
                                j += 1;
                            }
                            if let Some(new) = self.staged_object(i, j)? {
                                let path = self.path(i).to_str_lossy().into_owned();
                                self.push(&path, None, Some(new))?;
                            }
                            i = j;
                        }
                    } else if let Some(new) = self.staged_object(ii, end)? {
                        let path = self.path(ii).to_str_lossy().into_owned();
                        self.push(&path, None, Some(new))?;
                    }
                    ii = end;
                }
                (std::cmp::Ordering::Equal, Some((k, is_dir, end))) => {
                    let item = &items[ti];
                    // The directory is one sparse entry (`dir/name/`).
                    let sparse = is_dir
                        && end == ii + 1
                        && self.index.entries()[ii].mode.is_sparse()
                        && self.path(ii).len() == plen + k + 1;
                    if sparse {
                        let id = self.index.entries()[ii].id;
                        if id != item.oid {
                            let sub = format!("{dir}{}/", item.filename.to_str_lossy());
                            self.sparse_dir(Some(item.oid.to_owned()), id, &sub)?;
                        }
                    } else if is_dir {
                        let name: &[u8] = item.filename;
                        let child = cache
                            .and_then(|c| c.children.iter().find(|t| t.name.as_slice() == name));
                        let sub = format!("{dir}{}/", name.to_str_lossy());
                        self.dir(Some(item.oid.to_owned()), child, ii..end, &sub)?;
                    } else {
                        let old = Object::from_tree_mode(item.oid.to_owned(), item.mode);
                        let new = self.staged_object(ii, end)?;
                        if !new.is_some_and(|n| n.id == old.id && n.kind == old.kind) {
                            let path = self.path(ii).to_str_lossy().into_owned();
                            self.push(&path, Some(old), new)?;
                        }
                    }
                    ti += 1;
                    ii = end;
                }
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
                "`{}` is a sparse index directory; `--staged` needs a full index (`git sparse-checkout disable`)",
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
fn key_cmp(a: &[u8], a_dir: bool, b: &[u8], b_dir: bool) -> std::cmp::Ordering {
    let a_key = a.iter().chain(a_dir.then_some(&b'/'));
    let b_key = b.iter().chain(b_dir.then_some(&b'/'));
    a_key.cmp(b_key)
}

/// Answers `sources/dangling` questions from a version that git holds: the
/// index (`--staged`) or a commit's tree (`--base`).
pub enum VersionResolver<'a> {
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

    fn commit_exists(&self, hex: &str) -> Option<bool> {
        let repo = match self {
            VersionResolver::Index(_, r) | VersionResolver::Tree(_, r) => r,
        };
        Some(object_exists(repo, &hex.to_ascii_lowercase()))
    }
}

/// Whether sorted `paths` hold `rel` as a file or as a directory.
pub fn tree_has(paths: &[(String, Object)], rel: &str) -> bool {
    if paths.binary_search_by(|(p, _)| p.as_str().cmp(rel)).is_ok() {
        return true;
    }
    let dir = format!("{rel}/");
    let at = paths.partition_point(|(p, _)| p.as_str() < dir.as_str());
    paths.get(at).is_some_and(|(p, _)| p.starts_with(&dir))
}

/// The object at `rel` in sorted `paths`.
pub fn tree_lookup(paths: &[(String, Object)], rel: &str) -> Option<Object> {
    paths
        .binary_search_by(|(p, _)| p.as_str().cmp(rel))
        .ok()
        .map(|i| paths[i].1)
}

/// What `set_hooks_path` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HooksPath {
    /// It already was the wanted directory.
    Unchanged,
    /// It was set (or replaced with `force`).
    Set,
}

/// The repository's own `core.hooksPath`, if set.
pub fn hooks_path(repo: &Repo) -> Result<Option<String>, GitError> {
    let path = repo.repo.common_dir().join("config");
    let file = gix::config::File::from_path_no_includes(path, gix::config::Source::Local)
        .map_err(read_err)?;
    Ok(file
        .raw_value("core.hooksPath")
        .ok()
        .map(|v| v.to_str_lossy().into_owned()))
}

/// Sets `core.hooksPath` to `dir` in the repository's own configuration
/// file, through gix. A different value is kept unless `force`.
/// The configuration file is rewritten only while it still holds what was
/// read (a `git config` run meanwhile is read again, never overwritten).
pub fn set_hooks_path(repo: &Repo, dir: &str, force: bool) -> Result<HooksPath, GitError> {
    let path = repo.repo.common_dir().join("config");
    let written = crate::io::fs::update(
        &path,
        |bytes| {
            let bytes =
                bytes.ok_or_else(|| GitError::Read(format!("{}: no such file", path.display())))?;
            let meta = gix::config::file::Metadata::from(gix::config::Source::Local).at(&path);
            let mut file =
                gix::config::File::from_bytes_no_includes(bytes, meta, Default::default())
                    .map_err(read_err)?;
            if let Ok(current) = file.raw_value("core.hooksPath") {
                if current.as_bytes() == dir.as_bytes() {
                    return Ok(None);
                }
                if !force {
                    return Err(GitError::Read(format!(
                        "core.hooksPath is already `{}`; rerun with --force to point it at {dir}",
                        current.to_str_lossy()
                    )));
                }
            }
            file.set_raw_value("core.hooksPath", dir)
                .map_err(read_err)?;
            let mut out = Vec::new();
            file.write_to(&mut out).map_err(read_err)?;
            Ok(Some(out))
        },
        |action, e| {
            let message = format!("cannot {action} {}: {e}", path.display());
            match action {
                "write" => GitError::Write(message),
                _ => GitError::Read(message),
            }
        },
    )?;
    Ok(match written {
        true => HooksPath::Set,
        false => HooksPath::Unchanged,
    })
}

/// The content of root-relative `rel` read from the work tree, when the
/// file certainly holds blob `id`: the git index vouches for that blob with
/// the file's stat data (see [`vouched`]). Reading many files this way runs
/// in parallel and skips pack decoding.
pub fn work_tree_copy(
    index: &gix::index::File,
    prefix: &str,
    root: &Path,
    rel: &str,
    id: ObjectId,
) -> Option<Vec<u8>> {
    let path = root.join(rel);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let full = format!("{prefix}{rel}");
    if vouched(index, &full, &crate::io::stat::Stat::of(&meta)) != Some(id) {
        return None;
    }
    let bytes = crate::io::fs::read_regular(&path).ok()?;
    (bytes.len() as u64 == meta.len()).then_some(bytes)
}

/// The blob id the git index records for `full` (a path from the top of
/// the work tree) when that entry says the file holds it as long as its
/// stat data are `stat`, and those data were not recorded racily: git's
/// test for a clean file, stricter where git compares less (nanoseconds
/// whenever git recorded them). `None` for a file git does not vouch for:
/// untracked, conflicted, intent-to-add, assumed unchanged, outside the
/// sparse checkout, not a regular file, changed since it was staged, or
/// empty (git marks a racily clean entry by recording size 0).
fn vouched(index: &gix::index::File, full: &str, stat: &crate::io::stat::Stat) -> Option<ObjectId> {
    vouched_entry(index, index.entry_by_path(full.as_bytes().as_bstr())?, stat)
}

/// [`vouched`], given the path's first entry in the index.
fn vouched_entry(
    index: &gix::index::File,
    e: &gix::index::Entry,
    stat: &crate::io::stat::Stat,
) -> Option<ObjectId> {
    use gix::index::entry::{Flags, Mode};
    let untrusted = Flags::INTENT_TO_ADD | Flags::ASSUME_VALID | Flags::SKIP_WORKTREE;
    if e.stage_raw() != 0
        || e.flags.intersects(untrusted)
        || !matches!(e.mode, Mode::FILE | Mode::FILE_EXECUTABLE)
    {
        return None;
    }
    let s = &e.stat;
    let same_time = |t: gix::index::entry::stat::Time, ns: i64| {
        let (secs, nsecs) = (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
        i64::from(t.secs) == secs && (t.nsecs == 0 || i64::from(t.nsecs) == nsecs)
    };
    // Git keeps only the low 32 bits of sizes and inode numbers.
    #[allow(clippy::cast_possible_truncation)]
    let same = s.size != 0
        && s.size == stat.size as u32
        && (s.ino == 0 || s.ino == stat.ino as u32)
        && same_time(s.mtime, stat.mtime)
        && same_time(s.ctime, stat.ctime);
    if !same {
        return None;
    }
    // Racy: modified in the same instant as (or after) the index was
    // written, so a later change may have kept the same stat data. Where
    // git recorded no nanoseconds, the same second is racy.
    let written = index.timestamp();
    let racy = match written.unix_seconds().cmp(&i64::from(s.mtime.secs)) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Equal => s.mtime.nsecs == 0 || written.nanoseconds() <= s.mtime.nsecs,
        std::cmp::Ordering::Greater => false,
    };
    (!racy).then_some(e.id)
}

/// Whether git may convert content between the work tree and its blobs
/// (line endings, filters) for the records under `root`: a `.gitattributes`
/// file in the index, or in the work tree from its top down to the record
/// directories, `info/attributes`, `core.attributesFile` or
/// `core.autocrlf`. The work tree's bytes of a file then need not be its
/// blob's, even where the git index vouches for the file's stat data, so no
/// blob id stands for them.
pub fn may_convert(repo: &gix::Repository, root: &Path, index: &gix::index::File) -> bool {
    let attributes_in = |dir: &Path| dir.join(".gitattributes").exists();
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let top = repo.workdir().map(canonical);
    let mut dirs: Vec<std::path::PathBuf> = vec![root.to_path_buf()];
    if let Some(top) = &top {
        dirs.extend(
            canonical(root)
                .ancestors()
                .take_while(|d| d.starts_with(top))
                .map(Path::to_path_buf),
        );
    }
    for kind in crate::model::kind::Kind::ALL {
        let mut dir = root.to_path_buf();
        for part in kind.dir().split('/') {
            dir.push(part);
            dirs.push(dir.clone());
        }
    }
    if dirs.iter().any(|d| attributes_in(d)) {
        return true;
    }
    let config = repo.config_snapshot();
    let autocrlf = config.string("core.autocrlf").is_some_and(|v| {
        !matches!(
            v.to_str_lossy().to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0"
        )
    });
    autocrlf
        || config.string("core.attributesFile").is_some()
        || repo.common_dir().join("info/attributes").is_file()
        || index.entries().iter().any(|e| {
            let p = e.path(index);
            p == ".gitattributes" || p.ends_with(b"/.gitattributes")
        })
}

/// The git index seen as content fingerprints (SPEC §7): for a tracked file
/// whose stat data match its index entry, the blob id git recorded for it.
pub struct Tracked {
    index: gix::index::File,
    prefix: String,
}

impl Tracked {
    /// The git index of the repository whose work tree holds `root`; `None`
    /// outside a repository or when the index cannot be read.
    pub fn open(root: &Path) -> Option<Tracked> {
        let repo = Repo::open(root, "index").ok()?;
        let index = repo.index().ok()?;
        if may_convert(&repo.repo, root, &index) {
            return None;
        }
        Some(Tracked {
            index,
            prefix: repo.prefix,
        })
    }

    /// The blob id of root-relative `rel` the git index vouches for with
    /// stat data `stat` (see [`vouched`]).
    pub fn blob(&self, rel: &str, stat: &crate::io::stat::Stat) -> Option<ObjectId> {
        let mut full = String::with_capacity(self.prefix.len() + rel.len());
        full.push_str(&self.prefix);
        full.push_str(rel);
        vouched(&self.index, &full, stat)
    }

    /// [`Tracked::blob`] for paths asked in ascending order: each found by
    /// walking on from the last one along the index (galloping), not by a
    /// search of the whole index. Any order still gives the right answers.
    pub fn in_order(&self) -> InOrder<'_> {
        InOrder {
            tracked: self,
            at: 0,
            full: Vec::new(),
        }
    }
}

/// See [`Tracked::in_order`].
pub struct InOrder<'t> {
    tracked: &'t Tracked,
    /// Every entry before it is before the last path asked.
    at: usize,
    full: Vec<u8>,
}

impl InOrder<'_> {
    /// The blob id of root-relative `rel` the git index vouches for with
    /// stat data `stat`.
    pub fn blob(&mut self, rel: &str, stat: &crate::io::stat::Stat) -> Option<ObjectId> {
        let index = &self.tracked.index;
        let entries = index.entries();
        self.full.clear();
        self.full.extend_from_slice(self.tracked.prefix.as_bytes());
        self.full.extend_from_slice(rel.as_bytes());
        let full = self.full.as_bstr();
        let before = |e: &gix::index::Entry| e.path(index) < full;
        let mut lo = self.at.min(entries.len());
        if lo > 0 && !before(&entries[lo - 1]) {
            // Asked out of order: search from the start.
            lo = entries[..lo].partition_point(before);
        } else if lo < entries.len() && before(&entries[lo]) {
            // The first entry not before `full` lies in (lo, lo + step].
            let mut step = 1;
            while lo + step < entries.len() && before(&entries[lo + step]) {
                lo += step;
                step *= 2;
            }
            let hi = (lo + step).min(entries.len());
            lo = lo + 1 + entries[lo + 1..hi].partition_point(before);
        }
        self.at = lo;
        let e = entries.get(lo).filter(|e| e.path(index) == full)?;
        vouched_entry(index, e, stat)
    }
}
