//! The workspace as a value: its root, its configuration, and the problems
//! its walks met. Finding and loading it is the engine's
//! (`crate::engine::workspace`); walking it is `crate::io::walk`'s.

use crate::model::config::Config;
use std::path::PathBuf;
use std::sync::Arc;

/// Something a walk met that the user must hear about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Problem {
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

/// A loaded workspace.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    pub config: Config,
    /// The context size the environment asks for (`MEMORY_INJECT_MAX_CHARS`),
    /// as the front end that loaded the workspace found it: it sizes the
    /// context material the search index keeps. `None` when unset.
    pub env_max_chars: Option<usize>,
    /// What walks met that the user must hear about (see
    /// [`Workspace::take_problems`]); shared by the clones of a workspace.
    problems: Arc<std::sync::Mutex<Vec<Problem>>>,
}

impl Workspace {
    /// The workspace at `root` (already resolved) with `config`.
    pub(crate) fn new(root: PathBuf, config: Config) -> Workspace {
        Workspace {
            root,
            config,
            env_max_chars: None,
            problems: Default::default(),
        }
    }

    /// Adds `problem` to those [`Workspace::take_problems`] gives.
    pub(crate) fn note(&self, problem: Problem) {
        self.problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(problem);
    }

    /// What the walks so far met and left out (unreadable directories,
    /// ignore files that are not read), each once, sorted; the list is
    /// emptied. Commands report them at their end.
    pub(crate) fn take_problems(&self) -> Vec<Problem> {
        let mut problems =
            std::mem::take(&mut *self.problems.lock().unwrap_or_else(|e| e.into_inner()));
        problems.sort();
        problems.dedup();
        problems
    }

    /// The problems that say the caches could not be kept (see
    /// [`Problem::Cache`]), each once; they are taken from the list, the
    /// others stay. A front end that reports nothing else of the walks
    /// still reports these.
    pub(crate) fn take_cache_problems(&self) -> Vec<Problem> {
        let mut problems = self.problems.lock().unwrap_or_else(|e| e.into_inner());
        let (mut cache, rest): (Vec<Problem>, Vec<Problem>) = std::mem::take(&mut *problems)
            .into_iter()
            .partition(|p| matches!(p, Problem::Cache { .. }));
        *problems = rest;
        cache.sort();
        cache.dedup();
        cache
    }

    /// Adds every one of `problems` to those [`Workspace::take_problems`]
    /// gives.
    pub(crate) fn note_all(&self, problems: impl IntoIterator<Item = Problem>) {
        self.problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(problems);
    }
}
