//! `memlint fmt`: the use case around the pure formatter. Finds the
//! records, formats them in parallel, writes atomically (or keeps the texts
//! for a diff), and the editor mode that formats a given text as a given
//! path. It returns what happened ([`Report`], [`Formatted`]); the front
//! end renders it and picks the exit code.

use crate::engine::workspace::{find_root, WorkspaceError};
use crate::fmt::{format_record_noted, Outcome};
use crate::model::content::Content;
use crate::model::kind::{classify, Kind, Place};
use crate::model::workspace::Workspace;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// What `fmt` was asked to do (resolved from the command line).
#[derive(Clone, Default)]
pub(crate) struct Options<'p> {
    /// Files or directories to format; empty means the whole workspace.
    pub paths: Vec<PathBuf>,
    /// Write nothing; list the files that would change.
    pub check: bool,
    /// Write nothing; keep the texts for a unified diff of what would change.
    pub diff: bool,
    /// Told of each file formatted (a progress bar on a terminal), when
    /// there are many.
    pub progress: Option<&'p dyn crate::engine::scan::Progress>,
}

/// What happened to one file.
#[derive(Debug)]
pub(crate) enum Done {
    /// Already in canonical form.
    Unchanged,
    /// Reformatted (or would be); the texts are kept for `--diff` only.
    Changed(Option<(String, String)>),
    /// Left as it is, and why.
    Skipped(String),
    /// Changed by another program while it was being formatted: left as
    /// that program made it.
    Raced,
    /// Could not be read or written.
    Failed(String),
}

/// One file `fmt` looked at.
#[derive(Debug)]
pub(crate) struct FileReport {
    /// Root-relative path.
    pub rel: String,
    /// What happened to it.
    pub done: Done,
    /// The formatter's notes on it.
    pub notes: Vec<String>,
}

/// What `fmt` did: the warnings of the selection, then every record, in
/// path order.
#[derive(Debug, Default)]
pub(crate) struct Report {
    /// Why a path given selects nothing, or was skipped.
    pub warnings: Vec<String>,
    /// Every record looked at.
    pub files: Vec<FileReport>,
    /// Whether files were written (not `--check`, not `--diff`).
    pub write: bool,
    /// What listing the workspace met (see
    /// [`crate::store::listing::Listing::problems`]), for the front end to
    /// report.
    pub problems: Vec<crate::model::workspace::Problem>,
}

/// The note on a file another program changed while memlint rewrote it.
pub(crate) const RACED: &str = "changed while memlint was formatting it; left as it is";

/// The root-relative files selected by `paths` (all when empty), as `check`
/// selects them.
/// Why a path selects nothing is added to `warnings`, what listing the
/// files met to `problems`.
pub(crate) fn select(
    ws: &Workspace,
    paths: &[PathBuf],
    warnings: &mut Vec<String>,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Result<Vec<String>, WorkspaceError> {
    let listing = crate::store::listing::listing(ws);
    problems.extend(listing.problems);
    let mut files = listing.files;
    if paths.is_empty() {
        if files.is_empty() {
            if let Some(why) = crate::engine::workspace::selects_nothing(ws, "", ".", &files) {
                warnings.push(why);
            }
        }
        return Ok(files);
    }
    let mut wanted = Vec::new();
    for p in paths {
        let given = crate::engine::workspace::given(ws, p)?;
        if let Some(why) = &given.skipped {
            warnings.push(why.to_string());
        } else if !given.exists {
            return Err(WorkspaceError::Usage(format!(
                "{}: no such file or directory",
                p.display()
            )));
        } else if let Some(why) = crate::engine::workspace::selects_nothing(
            ws,
            &given.rel,
            &p.display().to_string(),
            &files,
        ) {
            // "0 files reformatted" alone would not say why.
            warnings.push(why);
        }
        wanted.push(given.rel);
    }
    files.retain(|f| {
        wanted
            .iter()
            .any(|w| w.is_empty() || f == w || f.starts_with(&format!("{w}/")))
    });
    Ok(files)
}

/// Formats the workspace's records (or those under `opts.paths`).
pub(crate) fn run(ws: &Workspace, opts: &Options) -> Result<Report, WorkspaceError> {
    let mut warnings = Vec::new();
    let mut problems = Vec::new();
    let records: Vec<(String, Kind)> = select(ws, &opts.paths, &mut warnings, &mut problems)?
        .into_iter()
        .filter_map(|rel| match classify(&rel, &ws.config.banned_dirs) {
            Place::Record(kind) => Some((rel, kind)),
            _ => None,
        })
        .collect();
    let write = !(opts.check || opts.diff);
    // A bar for many files only: a few are done before it would show.
    let bar = opts.progress.filter(|_| records.len() >= 2000);
    if let Some(bar) = bar {
        bar.start(records.len());
    }
    let files: Vec<FileReport> = records
        .par_iter()
        .map(|(rel, kind)| {
            let mut notes = Vec::new();
            let done = format_file(ws, rel, *kind, write, opts.diff, &mut notes);
            if let Some(bar) = bar {
                bar.advance();
            }
            FileReport {
                rel: rel.clone(),
                done,
                notes,
            }
        })
        .collect();
    if let Some(bar) = bar {
        bar.finish();
    }
    Ok(Report {
        warnings,
        files,
        write,
        problems,
    })
}

/// Formats one file; notes on what stays non-canonical go to `notes`.
fn format_file(
    ws: &Workspace,
    rel: &str,
    kind: Kind,
    write: bool,
    keep: bool,
    notes: &mut Vec<String>,
) -> Done {
    let path = ws.root.join(rel);
    let max = ws.config.max_file_bytes;
    // A FIFO or a device would block or never end: refused unread.
    let seen = match crate::io::fs::Snapshot::read_capped(&path, max) {
        Ok(Content::Bytes(s)) => s,
        Ok(Content::TooLarge(n)) => {
            return Done::Skipped(format!(
                "the file has {n} bytes, more than `max_file_bytes` ({max})"
            ))
        }
        Err(e) if crate::io::regular::is_not_regular(&e) => {
            return Done::Skipped(format!("it is {e}"))
        }
        Err(e) if crate::engine::workspace::lossy_name(rel, &e) => {
            return Done::Skipped(crate::engine::workspace::NON_UTF8_NAME.into())
        }
        Err(e) => return Done::Failed(format!("cannot read: {e}")),
    };
    let Ok(text) = std::str::from_utf8(&seen.bytes) else {
        return Done::Skipped("the file is not valid UTF-8".into());
    };
    let (outcome, mut noted) = format_record_noted(text, kind);
    notes.append(&mut noted);
    match outcome {
        Outcome::Unchanged => Done::Unchanged,
        Outcome::Skipped { reason } => Done::Skipped(reason),
        Outcome::Formatted(new) => {
            if write {
                // Only over what was read: an editor's save meanwhile stays.
                match crate::io::fs::replace_if_unchanged(&path, &seen, new.as_bytes()) {
                    Ok(crate::io::fs::Replaced::Written) => {}
                    Ok(crate::io::fs::Replaced::Changed) => return Done::Raced,
                    Err(e) => return Done::Failed(format!("cannot write: {e}")),
                }
            }
            Done::Changed(keep.then(|| (text.to_string(), new)))
        }
    }
}

/// A unified diff of one file, `a/` and `b/` prefixed like git's.
pub(crate) fn unified_diff(rel: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{rel}"), &format!("b/{rel}"))
        .missing_newline_hint(true)
        .to_string()
}

/// What the editor mode made of a text.
#[derive(Debug)]
pub(crate) enum Formatted {
    /// Not a record of the workspace (outside it, excluded by
    /// `.gitignore`/`.memlintignore`, not in a record directory): the text
    /// comes back unchanged.
    NotARecord,
    /// The formatted text (the text itself when it was canonical).
    Text {
        /// The text to hand back, byte for byte.
        text: String,
        /// The formatter's notes.
        notes: Vec<String>,
    },
    /// The text cannot be formatted: the editor keeps its buffer.
    Refused {
        /// Why.
        why: String,
        /// The formatter's notes before it gave up.
        notes: Vec<String>,
    },
}

/// Where the editor mode's text comes from: the file it stands for, and
/// `--root`/`--config` as given.
pub(crate) struct EditorPlace<'a> {
    /// `--root`.
    pub root: Option<&'a Path>,
    /// `--config`.
    pub config: Option<&'a Path>,
    /// The current directory, that `path` is relative to.
    pub cwd: &'a Path,
    /// Reads an environment variable.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The file the text stands for (`--stdin-filepath`).
    pub path: &'a Path,
}

/// Editor mode's first step: the workspace the file `place.path` belongs
/// to, and the file's path in it (`None` outside it), so that a front end
/// knows the configuration (`max_file_bytes`) before it reads the text.
pub(crate) fn locate(place: &EditorPlace) -> Result<(Workspace, Option<String>), WorkspaceError> {
    let cwd = place.cwd;
    let abs = crate::io::walk::normalize(&cwd.join(place.path));
    let discovered;
    let root = match place.root {
        Some(r) => Some(r),
        None => {
            let start = abs.ancestors().skip(1).find(|d| d.is_dir()).unwrap_or(cwd);
            let found = find_root(start);
            let marked = found.join(crate::model::config::FILE_NAME).is_file()
                || found.join(".git").exists();
            // Nothing marks a root above the file: fall back to the usual discovery.
            discovered = if marked { found } else { find_root(cwd) };
            Some(discovered.as_path())
        }
    };
    let at = crate::engine::workspace::Surroundings {
        cwd,
        env: place.env,
    };
    let ws = crate::engine::workspace::load(&at, root, place.config)?;
    let rel = crate::io::walk::relative(&ws, &abs);
    Ok((ws, rel))
}

/// Whether editor mode formats a text given as the workspace file `rel`:
/// a record's place that no ignore file excludes (any other text comes
/// back unchanged).
pub(crate) fn formats(ws: &Workspace, rel: &str) -> bool {
    matches!(classify(rel, &ws.config.banned_dirs), Place::Record(_)) && !ignored(&ws.root, rel)
}

/// Editor mode in a loaded workspace: formats `input` as if it were the
/// workspace file `rel` (after [`locate`] has found the workspace; a
/// front end that holds one, as the language server does, calls this
/// directly).
pub(crate) fn text_in(ws: &Workspace, rel: &str, input: &[u8]) -> Formatted {
    let kind = match classify(rel, &ws.config.banned_dirs) {
        Place::Record(kind) if !ignored(&ws.root, rel) => Some(kind),
        _ => None,
    };
    let Some(kind) = kind else {
        return Formatted::NotARecord;
    };
    if input.len() as u64 > ws.config.max_file_bytes {
        return Formatted::Refused {
            why: format!(
                "the text has {} bytes, more than `max_file_bytes` ({})",
                input.len(),
                ws.config.max_file_bytes
            ),
            notes: Vec::new(),
        };
    }
    let Ok(text) = std::str::from_utf8(input) else {
        return Formatted::Refused {
            why: "the text is not valid UTF-8".into(),
            notes: Vec::new(),
        };
    };
    let (outcome, notes) = format_record_noted(text, kind);
    match outcome {
        Outcome::Unchanged => Formatted::Text {
            text: text.to_string(),
            notes,
        },
        Outcome::Formatted(text) => Formatted::Text { text, notes },
        Outcome::Skipped { reason } => Formatted::Refused { why: reason, notes },
    }
}

/// Whether the ignore files from the root down to the file's directory
/// exclude `rel`, as the walk that lists the workspace's files decides.
pub(crate) fn ignored(root: &Path, rel: &str) -> bool {
    crate::io::ignores::excludes(root, rel)
}
