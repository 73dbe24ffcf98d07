//! Finding and loading the workspace (its root and `.memlint.yml`), paths
//! named on the command line, and reading and linting one file. The value
//! itself is [`crate::model::workspace::Workspace`]; walking it is
//! `crate::io::walk`'s.

use crate::engine::advice::{Advice, Name, Names};
use crate::lint::{lint_file, FileReport};
use crate::model::config::{self, Config, ConfigError};
use crate::model::content::Content;
use crate::model::kind::{classify, Place};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

use crate::model::workspace::Workspace;

/// What a front end knows of the process it runs in and passes to
/// [`load`]: the engine reads neither the current directory nor
/// the environment itself.
#[derive(Clone, Copy)]
pub struct Surroundings<'a> {
    /// The directory a relative root or configuration path is taken
    /// from, and where discovery starts.
    pub cwd: &'a Path,
    /// Reads an environment variable (`MEMORY_INJECT_MAX_CHARS` sizes the
    /// context material the search index keeps).
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

/// Errors that make a workspace unusable (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// Every problem of the configuration, one per line
    /// (`path:line:column: message`), in order.
    #[error("{}", config_lines(.path, .errors))]
    Config {
        path: String,
        errors: Vec<ConfigError>,
    },
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A file or directory that could not be written or created.
    #[error("cannot {action} {path}: {source}")]
    Write {
        /// What was tried: "write", "create the directory".
        action: &'static str,
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The root found (or given) holds none of a workspace's files
    /// (advice: `Advice::NameRoot`).
    #[error("{} is not a memlint workspace: it has no {}, memory/, knowledge/ or CONTEXT.md (the root is the nearest directory above with {}, else the top of the git work tree, else the current directory); run `memlint init` to make one", .root.display(), config::FILE_NAME, config::FILE_NAME)]
    NoWorkspace { root: PathBuf },
    /// The root given is not a directory.
    #[error("{}", not_a_directory(&Name::Root.to_string(), .root))]
    RootNotADirectory { root: PathBuf },
    /// The workspace's own configuration file is a link out of its root
    /// (advice: `Advice::NameConfig`).
    #[error("{} leads out of {} through a symbolic link; memlint never reads there", config::FILE_NAME, .root.display())]
    ConfigEscapes { root: PathBuf },
    /// The agent settings file named (as `shown`) lies outside the root.
    #[error("{}", settings_outside(&Name::AgentSettings.to_string(), .shown, .root))]
    SettingsOutside { shown: String, root: PathBuf },
    /// A git-backed mode cannot read git.
    #[error(transparent)]
    Git(crate::io::git::GitError),
    #[error("{0}")]
    Usage(String),
}

impl WorkspaceError {
    /// The message, with what it names in a front end's `names` (the
    /// error's [`std::fmt::Display`] uses neutral ones); its
    /// [`WorkspaceError::advice`] follows it.
    pub(crate) fn text(&self, names: Names) -> String {
        match self {
            WorkspaceError::RootNotADirectory { root } => {
                not_a_directory(&names(&Name::Root), root)
            }
            WorkspaceError::SettingsOutside { shown, root } => {
                settings_outside(&names(&Name::AgentSettings), shown, root)
            }
            WorkspaceError::Git(e) => e.text(&|asking| names(&Name::Git(asking))),
            other => other.to_string(),
        }
    }

    /// What the user can do next, for the front end to word.
    pub(crate) fn advice(&self) -> Option<Advice> {
        match self {
            WorkspaceError::NoWorkspace { .. } => Some(Advice::NameRoot),
            WorkspaceError::ConfigEscapes { .. } => Some(Advice::NameConfig),
            _ => None,
        }
    }
}

fn not_a_directory(name: &str, root: &Path) -> String {
    format!("{name} {}: not a directory", root.display())
}

fn settings_outside(name: &str, shown: &str, root: &Path) -> String {
    format!(
        "{name} {shown}: the file is outside the workspace root {}; memlint writes only inside it",
        root.display()
    )
}

/// `path`, a file of the workspace `root`, as named from the current
/// directory `cwd` when that holds the workspace or is in it
/// (`ws/.memlint.yml`, `.memlint.yml`, `../.memlint.yml`): a message in
/// CI's log shows no path of the machine it ran on. Elsewhere, the whole
/// path.
fn shown_from(path: &Path, root: &Path, cwd: &Path) -> String {
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    if let Ok(rest) = path.strip_prefix(&cwd) {
        return rest.display().to_string();
    }
    match (path.strip_prefix(root), cwd.strip_prefix(root)) {
        (Ok(rest), Ok(below)) => {
            let up = "../".repeat(below.components().count());
            format!("{up}{}", rest.display())
        }
        _ => path.display().to_string(),
    }
}

/// The lines of [`WorkspaceError::Config`].
fn config_lines(path: &str, errors: &[ConfigError]) -> String {
    let lines: Vec<String> = errors
        .iter()
        .map(|e| format!("{path}:{}:{}: {}", e.line, e.column, e.message))
        .collect();
    lines.join("\n")
}

/// Whether `root` is a memlint workspace: it holds `.memlint.yml`,
/// `CONTEXT.md`, `memory/` or `knowledge/`. Commands that would create
/// files (`.memlint/`, records) in a directory that is none refuse, and the
/// hooks stay silent there.
pub(crate) fn is_workspace(root: &Path) -> bool {
    [
        config::FILE_NAME,
        // `engine::context::CONTEXT_FILE`, which imports this module.
        "CONTEXT.md",
        "memory",
        "knowledge",
    ]
    .iter()
    .any(|n| root.join(n).exists())
}

/// The nearest ancestor of `start` holding `.memlint.yml`, else the root of
/// the git work tree, else `start`.
pub(crate) fn find_root(start: &Path) -> PathBuf {
    for dir in start.ancestors() {
        if dir.join(config::FILE_NAME).is_file() {
            return dir.to_path_buf();
        }
    }
    for dir in start.ancestors() {
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
    }
    start.to_path_buf()
}
/// Finds and loads the workspace, from `at.cwd`. `root` overrides
/// discovery; `config_file` overrides `<root>/.memlint.yml`.
///
/// # Examples
///
/// ```ignore
/// use memlint::engine::workspace::{self, Surroundings};
/// use std::path::Path;
///
/// // The workspace at a root, with its own `.memlint.yml`.
/// let cwd = std::env::current_dir()?;
/// let at = Surroundings { cwd: &cwd, env: &|name| std::env::var(name).ok() };
/// let ws = workspace::load(&at, Some(Path::new("fixtures/example")), None)?;
/// println!("{} files", memlint::store::listing::files(&ws).len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load(
    at: &Surroundings,
    root: Option<&Path>,
    config_file: Option<&Path>,
) -> Result<Workspace, WorkspaceError> {
    let cwd = at.cwd;
    let root = match root {
        Some(r) => {
            let r = cwd.join(r);
            if !r.is_dir() {
                return Err(WorkspaceError::RootNotADirectory { root: r });
            }
            r
        }
        None => find_root(cwd),
    };
    let root = root.canonicalize().unwrap_or(root);
    let (path, required) = match config_file {
        Some(p) => (cwd.join(p), true),
        None => (root.join(config::FILE_NAME), false),
    };
    // A workspace's own configuration is never read from outside it
    // (docs/configuration.md); a configuration file given names one on
    // purpose.
    if !required && !crate::io::fs::stays_inside(&root, &path) {
        return Err(WorkspaceError::ConfigEscapes { root });
    }
    let shown = match config_file {
        // As the user named it.
        Some(p) => p.display().to_string(),
        None => shown_from(&path, &root, cwd),
    };
    let config = match crate::io::fs::read_regular(&path, crate::io::fs::SMALL_FILE_MAX) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes).map_err(|_| WorkspaceError::Config {
                path: shown.clone(),
                errors: vec![ConfigError {
                    line: 1,
                    column: 1,
                    message: "the configuration is not valid UTF-8".into(),
                }],
            })?;
            crate::syntax::config::parse_all(&text, &crate::lint::registry::names()).map_err(
                |errors| WorkspaceError::Config {
                    path: shown,
                    errors,
                },
            )?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Config::default(),
        Err(source) => {
            return Err(WorkspaceError::Io {
                path: shown,
                source,
            })
        }
    };
    let mut ws = Workspace::new(root, config);
    ws.env_max_chars = crate::engine::context::settings::env_max_chars(at.env);
    Ok(ws)
}

/// A path named on the command line (`check PATH`, `fmt PATH`), each
/// of its components resolved without leaving the root: a path outside
/// the root is a usage error; one through a link out of the root is
/// never looked at beyond the link, and gets the same answer whatever
/// exists out there.
pub(crate) fn given(ws: &Workspace, path: &Path) -> Result<Given, WorkspaceError> {
    use crate::io::fs::{resolve_below, Resolved};
    let rel = crate::io::walk::relative(ws, path).ok_or_else(|| {
        WorkspaceError::Usage(format!(
            "{} is outside the workspace root {}",
            path.display(),
            ws.root.display()
        ))
    })?;
    let shown = path.display();
    let resolved = resolve_below(&ws.root, Path::new(&rel));
    let link = crate::io::files::symlink_metadata(ws.root.join(&rel))
        .is_ok_and(|m| m.file_type().is_symlink());
    let skipped = match &resolved {
        Resolved::Escapes(through) if *through == rel => Some(format!(
            "{shown} is a symbolic link, which memlint never follows out of the workspace root; nothing under it is looked at"
        )),
        Resolved::Escapes(through) => Some(format!(
            "{shown} leads out of the workspace root through the symbolic link {through}, which memlint never follows; nothing under it is looked at"
        )),
        // The walk lists a link to a file inside the root, but never
        // enters a link to a directory.
        Resolved::Inside(target) if link && target.is_dir() => Some(format!(
            "{shown} is a symbolic link, which memlint never follows; nothing under it is looked at"
        )),
        _ => None,
    };
    Ok(Given {
        exists: matches!(resolved, Resolved::Inside(_)),
        rel,
        skipped,
    })
}

/// Why a path named on the command line (`rel`, root-relative, shown
/// as `shown`) selects none of `files` (the workspace's, sorted), to
/// say as a warning; `None` when it selects some. Only `check` and `fmt`
/// ask, so nothing is looked at unless the answer is empty.
pub(crate) fn selects_nothing(
    ws: &Workspace,
    rel: &str,
    shown: &str,
    files: &[String],
) -> Option<String> {
    let from = files.partition_point(|f| f.as_str() < rel);
    let selects = |f: &String| {
        rel.is_empty() || f == rel || f.strip_prefix(rel).is_some_and(|r| r.starts_with('/'))
    };
    if files[from..]
        .iter()
        .take_while(|f| f.starts_with(rel))
        .any(selects)
    {
        return None;
    }
    let records =
        "memlint checks the .md files under memory/, knowledge/ and staging/, and CONTEXT.md";
    let place = classify(rel, &ws.config.banned_dirs);
    Some(if rel.is_empty() && !crate::io::walk::has_layout(ws) {
        format!(
            "{} holds no memlint workspace: none of memory/, knowledge/, staging/ or CONTEXT.md is there (`memlint init` creates them)",
            ws.root.display()
        )
    } else if place == Place::Outside && !ws.root.join(rel).is_dir() {
        format!("{shown} is not a record: {records}")
    } else if crate::io::ignores::excludes(&ws.root, rel) {
        format!("{shown} is excluded by an ignore file (.gitignore, .ignore, .memlintignore or .git/info/exclude)")
    } else {
        format!("{shown} holds no record: {records}")
    })
}

/// Reads and lints the given root-relative files in parallel.
pub fn lint(ws: &Workspace, files: &[String]) -> Vec<FileReport> {
    files.par_iter().map(|rel| lint_one(ws, rel)).collect()
}

/// Reads and lints one root-relative file.
pub(crate) fn lint_one(ws: &Workspace, rel: &str) -> FileReport {
    let place = classify(rel, &ws.config.banned_dirs);
    if place == Place::Outside {
        return lint_read(ws, rel, &place, Ok(Content::Bytes(&b""[..])));
    }
    // A FIFO or a device would block or never end: refused unread.
    let read = crate::io::read::read_capped(&ws.root.join(rel), ws.config.max_file_bytes);
    lint_read(ws, rel, &place, read.as_ref().map(Content::as_slice))
}

/// Lints `rel`, at `place`, from what reading it gave: its content, or
/// why it could not be read. The one step from a read to a report,
/// whatever read it (the work tree, the index refresh, a git version).
pub(crate) fn lint_read(
    ws: &Workspace,
    rel: &str,
    place: &Place,
    read: Result<Content<&[u8]>, &std::io::Error>,
) -> FileReport {
    match read {
        Ok(content) => lint_file(rel, place, content, &ws.config),
        // A misplaced file is read only to look for credentials: one
        // that cannot be read (a FIFO, a socket) is judged by its path.
        Err(_) if matches!(place, Place::Banned(_) | Place::Unknown) => {
            lint_file(rel, place, Content::Bytes(b""), &ws.config)
        }
        Err(e) => unreadable(ws, rel, e),
    }
}

/// The report of a file that could not be read.
pub(crate) fn unreadable(ws: &Workspace, rel: &str, e: &std::io::Error) -> FileReport {
    let mut report = FileReport {
        path: rel.to_string(),
        ..FileReport::default()
    };
    // It exists: it counts as a record of its kind, unparsed.
    if let Place::Record(kind) = classify(rel, &ws.config.banned_dirs) {
        report.info.kind = Some(kind);
    }
    let mut sink = crate::lint::sink::Sink::default();
    let message = if lossy_name(rel, e) {
        NON_UTF8_NAME.to_string()
    } else {
        format!("the file cannot be read: {e}; make it a readable regular file, or move it out of the memory directories")
    };
    crate::lint::rules::format::encoding::unreadable(message, &mut sink);
    report.diagnostics = crate::lint::to_diagnostics(rel, "", sink.findings, &ws.config);
    report
}

/// Why a file listed under a name that is not valid UTF-8 cannot be read:
/// paths are kept as text, so such a name is listed with U+FFFD in place
/// of its bad bytes and cannot be opened by it.
pub(crate) const NON_UTF8_NAME: &str =
    "the file name is not valid UTF-8, so memlint cannot open the file by it; rename it";
/// Whether `rel` failed to open because it is the lossy form of a name that
/// is not valid UTF-8.
pub(crate) fn lossy_name(rel: &str, e: &std::io::Error) -> bool {
    rel.contains('\u{fffd}') && e.kind() == std::io::ErrorKind::NotFound
}

/// A path named on the command line (see [`given`]).
#[derive(Debug)]
pub(crate) struct Given {
    /// Root-relative, `/`-separated (empty for the root itself).
    pub rel: String,
    /// Whether it exists inside the root (a path through a link out of the
    /// root does not).
    pub exists: bool,
    /// Why nothing under it is looked at, to say as a warning: it is a
    /// link out of the root, leads through one, or links to a directory.
    pub skipped: Option<String>,
}
