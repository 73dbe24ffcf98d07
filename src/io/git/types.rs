//! What git reads give: errors, objects, changes, blobs and commits.

use gix::ObjectId;

/// What asks to read git: a mode of memlint, which each front end names
/// in its own words (a command and its flags on the command line, a tool
/// over MCP); [`std::fmt::Display`] gives neutral words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asking {
    /// Checking the commit message being made, with what is staged.
    CommitMessage,
    /// Checking what is staged for the next commit.
    Staged,
    /// Checking the changes since a base revision.
    Base,
    /// The git history of the records.
    Log,
    /// The `sources/drifted` rule.
    Drift,
    /// Importing records (their dates from git).
    Import,
    /// Installing memlint's git hooks.
    InitHooks,
    /// Installing memlint's merge driver.
    InitMerge,
    /// Rotating the context file (what git keeps of it).
    ContextRotate,
    /// Reading the git index for the walk.
    Index,
    /// The consolidation lock on a git remote.
    StagingRemote,
}

impl std::fmt::Display for Asking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Asking::CommitMessage => "checking the commit message",
            Asking::Staged => "checking the staged changes",
            Asking::Base => "checking the changes since a revision",
            Asking::Log => "the history of the records",
            Asking::Drift => "`sources/drifted`",
            Asking::Import => "importing",
            Asking::InitHooks => "installing the git hooks",
            Asking::InitMerge => "installing the merge driver",
            Asking::ContextRotate => "rotating the context",
            Asking::Index => "reading the git index",
            Asking::StagingRemote => "a consolidation lock on a remote",
        })
    }
}

/// Why a git-backed command cannot run (exit 2). [`std::fmt::Display`]
/// names what asked in neutral words; `GitError::text` in a front end's.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The workspace is not inside a git work tree.
    #[error("{}", not_a_repository(.root, &.what.to_string()))]
    NotARepository { root: String, what: Asking },
    /// HEAD is unborn.
    #[error("{}", no_commits(&.0.to_string()))]
    NoCommits(Asking),
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

impl GitError {
    /// The message, with what asked named by `name` (a front end's words
    /// for an [`Asking`]).
    pub(crate) fn text(&self, name: &dyn Fn(Asking) -> String) -> String {
        match self {
            GitError::NotARepository { root, what } => not_a_repository(root, &name(*what)),
            GitError::NoCommits(what) => no_commits(&name(*what)),
            other => other.to_string(),
        }
    }
}

fn not_a_repository(root: &str, what: &str) -> String {
    format!("{root} is not in a git repository; {what} reads git (run `git init` first)")
}

fn no_commits(what: &str) -> String {
    format!("the repository has no commits yet; {what} needs at least one commit")
}

pub(crate) fn read_err(e: impl std::fmt::Display) -> GitError {
    GitError::Read(e.to_string())
}

/// What a path of a git tree or index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// A regular file (executable or not).
    Blob,
    /// A symbolic link: its blob is the link target, never a record.
    Link,
    /// A submodule commit.
    Submodule,
}

/// An object a path points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Object {
    /// The blob (or submodule commit) id.
    pub id: ObjectId,
    /// What the path holds.
    pub kind: FileKind,
}

impl Object {
    pub(crate) fn from_tree_mode(id: ObjectId, mode: gix::objs::tree::EntryMode) -> Object {
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
    pub(crate) fn is_file(&self) -> bool {
        self.kind == FileKind::Blob
    }
}

/// A path that differs between two versions, root-relative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// Root-relative, `/`-separated.
    pub path: String,
    /// `None`: the path is new.
    pub old: Option<Object>,
    /// `None`: the path is gone.
    pub new: Option<Object>,
}

/// A commit as `log` and `check --base` use it.
#[derive(Debug, Clone)]
pub(crate) struct CommitInfo {
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
    pub(crate) fn summary(&self) -> &str {
        self.message.lines().next().unwrap_or("").trim_end()
    }
}

/// Whether sorted `paths` hold `rel` as a file or as a directory.
pub(crate) fn tree_has(paths: &[(String, Object)], rel: &str) -> bool {
    if paths.binary_search_by(|(p, _)| p.as_str().cmp(rel)).is_ok() {
        return true;
    }
    let dir = format!("{rel}/");
    let at = paths.partition_point(|(p, _)| p.as_str() < dir.as_str());
    paths.get(at).is_some_and(|(p, _)| p.starts_with(&dir))
}

/// The object at `rel` in sorted `paths`.
pub(crate) fn tree_lookup(paths: &[(String, Object)], rel: &str) -> Option<Object> {
    paths
        .binary_search_by(|(p, _)| p.as_str().cmp(rel))
        .ok()
        .map(|i| paths[i].1)
}
