//! The workspace as a value: its root and its configuration; and the
//! problems reading it can meet, which the functions that meet them return
//! (the walk with its files, the cache opener, the git resolver) for the
//! front end to report. Finding and loading it is the engine's
//! (`crate::engine::workspace`); walking it is `crate::io::walk`'s.

use crate::model::config::Config;
use std::path::PathBuf;

/// Something reading the workspace met that the user must hear about. The
/// function that meets one returns it (the walk, the listing, the cache
/// opener, the git resolver), and the front end reports what it was given.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Problem {
    /// A directory (or entry) the walk could not read: what it holds is
    /// left out, so the command's answer is incomplete (exit 2).
    Unreadable { path: String, reason: String },
    /// An ignore file that was not read: its rules do not apply (a warning).
    IgnoreFile { path: String, reason: String },
    /// A file of the git repository that is not read, and so neither is
    /// the repository (a warning).
    GitFile { path: String, reason: String },
    /// `.memlint` cannot hold the caches (a link, or not a directory): the
    /// command ran without them (a warning). `reason` says what it is.
    Cache { reason: String },
}

impl Problem {
    /// Whether the problem makes the command fail (exit 2): the workspace
    /// could not be read whole.
    pub(crate) fn is_error(&self) -> bool {
        matches!(self, Problem::Unreadable { .. })
    }

    /// Whether it says that `.memlint` could keep no cache: a front end
    /// that reports nothing else of what reading met still reports it.
    pub(crate) fn is_cache(&self) -> bool {
        matches!(self, Problem::Cache { .. })
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Unreadable { path, reason } => write!(
                f,
                "cannot read {path}: {reason}; the records in it are left out"
            ),
            Problem::IgnoreFile { path, reason } => {
                write!(f, "{path} {reason}; its rules are not applied")
            }
            Problem::GitFile { path, reason } => write!(
                f,
                "{path} {reason}; the git repository is not read (`commit:` sources are not checked)"
            ),
            Problem::Cache { reason } => write!(
                f,
                "{reason}; memlint keeps no cache there (every run checks every file)"
            ),
        }
    }
}

/// `problems` as a front end reports them: each once, sorted (an
/// unreadable directory first, a cache that could not be kept last).
pub(crate) fn reported(mut problems: Vec<Problem>) -> Vec<Problem> {
    problems.sort();
    problems.dedup();
    problems
}

/// A loaded workspace.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    pub config: Config,
    /// The context size the environment asks for (`MEMORY_INJECT_MAX_CHARS`),
    /// as the front end that loaded the workspace found it: it sizes the
    /// context material the search index keeps. `None` when unset.
    pub env_max_chars: Option<usize>,
}

impl Workspace {
    /// The workspace at `root` (already resolved) with `config`.
    pub(crate) fn new(root: PathBuf, config: Config) -> Workspace {
        Workspace {
            root,
            config,
            env_max_chars: None,
        }
    }
}
