//! The workspace: where its root is, its configuration, and which files it
//! holds. Walking uses the `ignore` crate (honouring `.gitignore` and
//! `.memlintignore`); reading and linting run in parallel with rayon.

use crate::config::{self, Config, ConfigError};
use crate::lint::{lint_file, Content, FileReport};
use crate::record::{classify, Place, RECORD_ROOTS};
use rayon::prelude::*;
use std::path::{Component, Path, PathBuf};

/// Errors that make a workspace unusable (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error("{path}:{}:{}: {}", .error.line, .error.column, .error.message)]
    Config { path: String, error: ConfigError },
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A file the command writes could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Usage(String),
}

/// A loaded workspace.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    pub config: Config,
}

/// The nearest ancestor of `start` holding `.memlint.yml`, else the root of
/// the git work tree, else `start`.
pub fn find_root(start: &Path) -> PathBuf {
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

impl Workspace {
    /// Finds and loads the workspace. `root` overrides discovery; `config_file`
    /// overrides `<root>/.memlint.yml`.
    pub fn load(
        root: Option<&Path>,
        config_file: Option<&Path>,
    ) -> Result<Workspace, WorkspaceError> {
        let cwd = std::env::current_dir().map_err(|source| WorkspaceError::Io {
            path: ".".into(),
            source,
        })?;
        let root = match root {
            Some(r) => {
                let r = cwd.join(r);
                if !r.is_dir() {
                    return Err(WorkspaceError::Usage(format!(
                        "--root {}: not a directory",
                        r.display()
                    )));
                }
                r
            }
            None => find_root(&cwd),
        };
        let root = root.canonicalize().unwrap_or(root);
        let (path, required) = match config_file {
            Some(p) => (cwd.join(p), true),
            None => (root.join(config::FILE_NAME), false),
        };
        // A workspace's own configuration is never read from outside it
        // (SPEC §1); `--config` names a file on purpose.
        if !required && !crate::fsutil::stays_inside(&root, &path) {
            return Err(WorkspaceError::Usage(format!(
                "{} leads out of {} through a symbolic link; memlint never reads there (name it with --config to use it)",
                config::FILE_NAME,
                root.display()
            )));
        }
        let config = match crate::fsutil::read_regular(&path) {
            Ok(bytes) => {
                let shown = path.display().to_string();
                let text = String::from_utf8(bytes).map_err(|_| WorkspaceError::Config {
                    path: shown.clone(),
                    error: ConfigError {
                        line: 1,
                        column: 1,
                        message: "the configuration is not valid UTF-8".into(),
                    },
                })?;
                config::parse(&text, &crate::rules::names())
                    .map_err(|error| WorkspaceError::Config { path: shown, error })?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Config::default(),
            Err(source) => {
                return Err(WorkspaceError::Io {
                    path: path.display().to_string(),
                    source,
                })
            }
        };
        Ok(Workspace { root, config })
    }

    /// Root-relative path with `/` separators, or `None` when `path` is not
    /// inside the root.
    pub fn relative(&self, path: &Path) -> Option<String> {
        let abs = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir().ok()?.join(path)
        };
        let abs = normalize(&abs);
        let rel = abs.strip_prefix(&self.root).ok()?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Some(parts.join("/"))
    }

    /// Every file memlint looks at, root-relative, sorted.
    pub fn files(&self) -> Vec<String> {
        self.walk().files
    }

    /// Walks the workspace: [`Workspace::files`], and the directories the
    /// walk entered.
    pub fn walk(&self) -> Walked {
        // The walk starts at the root itself, never above it, so that only
        // ignore files inside the root apply (SPEC §10: nothing outside the
        // root is read) with git's precedence, and a record directory that
        // is a link is seen as a link (never followed out of the root).
        // Below the root it enters only the record roots and the banned
        // directories, and the directories leading to them.
        let mut tops: Vec<String> = RECORD_ROOTS.iter().map(|r| r.to_string()).collect();
        for dir in &self.config.banned_dirs {
            if !RECORD_ROOTS
                .iter()
                .any(|r| dir.starts_with(&format!("{r}/")))
            {
                tops.push(dir.trim_matches('/').to_string());
            }
        }
        let mut out = Vec::new();
        let context = self.root.join("CONTEXT.md");
        if context.is_file() && crate::fsutil::stays_inside(&self.root, &context) {
            out.push("CONTEXT.md".to_string());
        }
        if !tops.iter().any(|t| self.root.join(t).is_dir()) {
            return Walked {
                files: out,
                dirs: Vec::new(),
                complete: true,
            };
        }
        let mut builder = ignore::WalkBuilder::new(&self.root);
        let root = self.root.clone();
        // Below this depth every entry lies inside a top: its ancestor at
        // this depth was let through.
        let deepest = tops.iter().map(|t| t.split('/').count()).max().unwrap_or(1);
        builder
            .hidden(false)
            .parents(false)
            .require_git(false)
            .git_global(false)
            .follow_links(false)
            .add_custom_ignore_filename(".memlintignore")
            .filter_entry(move |e| {
                if e.file_name() == ".git" || e.file_name() == ".memlint" {
                    return false;
                }
                if e.depth() == 0 || e.depth() > deepest {
                    return true;
                }
                let rel = e.path().strip_prefix(&root).ok().and_then(Path::to_str);
                // Inside a top, or on the way to one.
                rel.is_some_and(|rel| {
                    tops.iter().any(|t| {
                        rel.strip_prefix(t.as_str())
                            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                            || t.strip_prefix(rel)
                                .is_some_and(|rest| rest.starts_with('/'))
                    })
                })
            });
        // Directories are read on as many threads as the rayon pool has (so
        // `RAYON_NUM_THREADS` applies), each keeping its own list until it
        // is done.
        let found = std::sync::Mutex::new(Found::default());
        builder
            .threads(rayon::current_num_threads())
            .build_parallel()
            .visit(&mut Lister {
                ws: self,
                found: &found,
            });
        // Made root-relative and classified here, in parallel: the walk
        // of a large directory is serial.
        let found = found.into_inner().unwrap_or_else(|e| e.into_inner());
        out.par_extend(found.files.into_par_iter().filter_map(|p| self.listed(&p)));
        out.par_sort_unstable();
        out.dedup();
        Walked {
            files: out,
            dirs: found.dirs,
            complete: !found.incomplete,
        }
    }

    /// The path of a walked entry when it is a file (or a link to a file
    /// inside the root).
    fn walked(&self, entry: ignore::DirEntry) -> Option<PathBuf> {
        let ft = entry.file_type()?;
        if ft.is_dir() {
            return None;
        }
        if ft.is_symlink() {
            // Never follow a link out of the root.
            match entry.path().canonicalize() {
                Ok(target) if target.starts_with(&self.root) && target.is_file() => {}
                _ => return None,
            }
        }
        Some(entry.into_path())
    }

    /// The root-relative path of a walked file when [`Workspace::files`]
    /// lists it: one that memlint looks at.
    fn listed(&self, path: &Path) -> Option<String> {
        #[cfg(unix)]
        {
            // The walk joins names onto the root: the root's bytes and a
            // `/` begin every path, which a byte comparison sees at once
            // (100k records make it count; `strip_prefix` parses both).
            use std::os::unix::ffi::OsStrExt;
            let root = self.root.as_os_str().as_bytes();
            if let Some(rel) = path.as_os_str().as_bytes().strip_prefix(root) {
                let rel = if root.ends_with(b"/") {
                    Some(rel)
                } else {
                    rel.strip_prefix(b"/")
                };
                if let Some(rel) = rel.and_then(|r| std::str::from_utf8(r).ok()) {
                    return (classify(rel, &self.config.banned_dirs) != Place::Outside)
                        .then(|| rel.to_string());
                }
            }
        }
        let rel = path.strip_prefix(&self.root).ok()?;
        // Where `/` is the separator a UTF-8 path is already in the
        // root-relative form; 100k records make the shortcut count.
        let rel = match rel.to_str() {
            Some(s) if std::path::MAIN_SEPARATOR == '/' => s.to_string(),
            _ => rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<String>>()
                .join("/"),
        };
        // `.gitkeep`, the consolidation lock and the like are not memlint's
        // business and do not count as linted files.
        (classify(&rel, &self.config.banned_dirs) != Place::Outside).then_some(rel)
    }

    /// Reads and lints the given root-relative files in parallel.
    pub fn lint(&self, files: &[String]) -> Vec<FileReport> {
        files.par_iter().map(|rel| self.lint_one(rel)).collect()
    }

    /// Reads and lints one root-relative file.
    pub fn lint_one(&self, rel: &str) -> FileReport {
        let place = classify(rel, &self.config.banned_dirs);
        if matches!(place, Place::Outside | Place::Banned(_) | Place::Unknown) {
            return lint_file(rel, &place, Content::Bytes(b""), &self.config);
        }
        let path = self.root.join(rel);
        match std::fs::metadata(&path) {
            // A FIFO or a device would block or never end.
            Ok(m) if !m.is_file() => {
                self.unreadable(rel, &std::io::Error::other("not a regular file"))
            }
            Ok(m) if m.len() > self.config.max_file_bytes => {
                lint_file(rel, &place, Content::TooLarge(m.len()), &self.config)
            }
            _ => match std::fs::read(&path) {
                Ok(bytes) => lint_file(rel, &place, Content::Bytes(&bytes), &self.config),
                Err(e) => self.unreadable(rel, &e),
            },
        }
    }

    /// The report of a file that could not be read.
    pub fn unreadable(&self, rel: &str, e: &std::io::Error) -> FileReport {
        let mut report = FileReport {
            path: rel.to_string(),
            ..FileReport::default()
        };
        // It exists: it counts as a record of its kind, unparsed.
        if let Place::Record(kind) = classify(rel, &self.config.banned_dirs) {
            report.info.kind = Some(kind);
        }
        let mut sink = crate::rules::Sink::default();
        let message = if lossy_name(rel, e) {
            NON_UTF8_NAME.to_string()
        } else {
            format!("the file cannot be read: {e}")
        };
        sink.emit("format/encoding", 0..0, message);
        report.diagnostics = crate::lint::to_diagnostics(rel, "", sink.findings, &self.config);
        report
    }
}

/// Why a file listed under a name that is not valid UTF-8 cannot be read:
/// paths are kept as text, so such a name is listed with U+FFFD in place
/// of its bad bytes and cannot be opened by it.
pub const NON_UTF8_NAME: &str =
    "the file name is not valid UTF-8, so memlint cannot open the file by it; rename it";

/// The git directory whose `info/exclude` the walk applies below `dir`, as
/// the `ignore` crate finds it: `dir/.git`, or, when `.git` is a file (a
/// linked worktree), the common directory of the repository it names.
pub fn git_common_dir(dir: &Path) -> PathBuf {
    let dot_git = dir.join(".git");
    // These files hold one short line; a larger one is not git's.
    let first_line = |path: &Path| -> Option<String> {
        use std::io::Read;
        let mut head = Vec::new();
        std::fs::File::open(path)
            .ok()?
            .take(4096)
            .read_to_end(&mut head)
            .ok()?;
        let text = std::str::from_utf8(&head).ok()?;
        Some(text.lines().next()?.to_string())
    };
    if !std::fs::metadata(&dot_git).is_ok_and(|m| m.is_file()) {
        return dot_git;
    }
    let Some(real) =
        first_line(&dot_git).and_then(|l| l.strip_prefix("gitdir: ").map(PathBuf::from))
    else {
        return dot_git;
    };
    match first_line(&real.join("commondir")) {
        Some(common) if common.starts_with('.') => real.join(common),
        Some(common) => PathBuf::from(common),
        None => dot_git,
    }
}

/// Whether `rel` failed to open because it is the lossy form of a name that
/// is not valid UTF-8.
pub fn lossy_name(rel: &str, e: &std::io::Error) -> bool {
    rel.contains('\u{fffd}') && e.kind() == std::io::ErrorKind::NotFound
}

/// What [`Workspace::walk`] found.
#[derive(Debug, Default)]
pub struct Walked {
    /// As [`Workspace::files`] gives them.
    pub files: Vec<String>,
    /// Every directory the walk entered (not the ignored ones), unsorted.
    pub dirs: Vec<PathBuf>,
    /// No symbolic link among the entries walked, no temporary file of a
    /// live memlint run left out, and no error: a change
    /// under the walked roots that could change `files` then changes one
    /// of `dirs` or an ignore file in one of them.
    pub complete: bool,
}

/// What the walk's threads found, merged.
#[derive(Default)]
struct Found {
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
    incomplete: bool,
}

/// Builds the visitors of [`Workspace::walk`]'s parallel walk.
struct Lister<'w> {
    ws: &'w Workspace,
    found: &'w std::sync::Mutex<Found>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Lister<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Visitor {
            ws: self.ws,
            found: self.found,
            local: Found::default(),
        })
    }
}

/// One thread's share of the walk.
struct Visitor<'w> {
    ws: &'w Workspace,
    found: &'w std::sync::Mutex<Found>,
    local: Found,
}

impl ignore::ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        match entry {
            Ok(e) => {
                let ft = e.file_type();
                if ft.is_some_and(|t| t.is_dir()) {
                    self.local.dirs.push(e.into_path());
                } else if crate::fsutil::temporary_in_progress(e.path()) {
                    // Another run's write in progress (or just done). The
                    // listing is not stored, so that a file its writer left
                    // (killed) is listed, and reported, by the next walk.
                    self.local.incomplete = true;
                } else {
                    // A link's target can change under an unchanged
                    // directory.
                    self.local.incomplete |= ft.is_some_and(|t| t.is_symlink());
                    if let Some(path) = self.ws.walked(e) {
                        self.local.files.push(path);
                    }
                }
            }
            Err(_) => self.local.incomplete = true,
        }
        ignore::WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found.files.append(&mut self.local.files);
        found.dirs.append(&mut self.local.dirs);
        found.incomplete |= self.local.incomplete;
    }
}

/// Removes `.` and `..` components without touching the disk.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}
