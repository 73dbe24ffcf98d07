//! `memlint fmt`: the edge around the pure formatter. Finds the records,
//! formats them in parallel, writes atomically (or lists, or diffs), and the
//! editor mode that reads standard input.

use crate::engine::workspace::{find_root, Workspace, WorkspaceError};
use crate::fmt::{format_record_noted, Outcome};
use crate::model::kind::{classify, Kind, Place};
use rayon::prelude::*;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `fmt` was asked to do (resolved from the command line).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Files or directories to format; empty means the whole workspace.
    pub paths: Vec<PathBuf>,
    /// Write nothing; list the files that would change.
    pub check: bool,
    /// Write nothing; print a unified diff of what would change.
    pub diff: bool,
    /// No summary line and no notes.
    pub quiet: bool,
}

/// What happened to one file.
#[derive(Debug)]
enum Done {
    Unchanged,
    /// Reformatted (or would be); the texts are kept for `--diff` only.
    Changed(Option<(String, String)>),
    Skipped(String),
    /// Changed by another program while it was being formatted: left as
    /// that program made it.
    Raced,
    Failed(String),
}

/// The note on a file another program changed while memlint rewrote it.
pub const RACED: &str = "changed while memlint was formatting it; left as it is";

/// The root-relative files selected by `paths` (all when empty), as `check`
/// selects them.
pub fn select(ws: &Workspace, paths: &[PathBuf]) -> Result<Vec<String>, WorkspaceError> {
    let mut files = ws.files();
    if paths.is_empty() {
        if files.is_empty() {
            if let Some(why) = ws.selects_nothing("", ".", &files) {
                eprintln!("memlint: warning: {why}");
            }
        }
        return Ok(files);
    }
    let mut wanted = Vec::new();
    for p in paths {
        let given = ws.given(p)?;
        if let Some(why) = &given.skipped {
            eprintln!("memlint: warning: {why}");
        } else if !given.exists {
            return Err(WorkspaceError::Usage(format!(
                "{}: no such file or directory",
                p.display()
            )));
        } else if let Some(why) = ws.selects_nothing(&given.rel, &p.display().to_string(), &files) {
            // "0 files reformatted" alone would not say why.
            eprintln!("memlint: warning: {why}");
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
pub fn run(ws: &Workspace, opts: &Options) -> Result<ExitCode, WorkspaceError> {
    let records: Vec<(String, Kind)> = select(ws, &opts.paths)?
        .into_iter()
        .filter_map(|rel| match classify(&rel, &ws.config.banned_dirs) {
            Place::Record(kind) => Some((rel, kind)),
            _ => None,
        })
        .collect();
    let write = !(opts.check || opts.diff);
    let bar = crate::cli::progress::progress(
        !opts.quiet && records.len() >= 2000,
        records.len(),
        if write { "formatting" } else { "checking" },
    );
    let results: Vec<(String, Done, Vec<String>)> = records
        .par_iter()
        .map(|(rel, kind)| {
            let mut notes = Vec::new();
            let done = format_file(ws, rel, *kind, write, opts.diff, &mut notes);
            bar.inc(1);
            (rel.clone(), done, notes)
        })
        .collect();
    bar.finish_and_clear();

    let mut out = String::new();
    let mut err = String::new();
    let (mut changed, mut unchanged, mut skipped, mut failed) = (0, 0, 0, 0);
    for (rel, done, notes) in &results {
        // File names are shown on one line, secrets masked, control
        // characters as symbols.
        let rel = &crate::syntax::sanitize::line(rel);
        if !opts.quiet {
            for note in notes {
                err.push_str(&format!("memlint: note: {rel}: {note}\n"));
            }
        }
        match done {
            Done::Unchanged => unchanged += 1,
            Done::Changed(texts) => {
                changed += 1;
                if let Some((old, new)) = texts {
                    // Both sides masked alike: the diff never shows a
                    // secret, nor part of one (a private key's lines).
                    let (old, new) = (
                        crate::syntax::sanitize::secrets(old),
                        crate::syntax::sanitize::secrets(new),
                    );
                    out.push_str(&unified_diff(rel, &old, &new));
                } else if opts.check {
                    out.push_str(&format!("Would reformat: {rel}\n"));
                }
            }
            Done::Skipped(reason) => {
                skipped += 1;
                if !opts.quiet {
                    err.push_str(&format!("memlint: note: {rel}: left as it is: {reason}\n"));
                }
            }
            Done::Raced => {
                skipped += 1;
                if !opts.quiet {
                    err.push_str(&format!("memlint: note: {rel}: {RACED}\n"));
                }
            }
            Done::Failed(e) => {
                failed += 1;
                err.push_str(&format!("memlint: error: {rel}: {e}\n"));
            }
        }
    }
    if !opts.quiet {
        // A diff on standard output stays a clean patch.
        let target = if opts.diff { &mut err } else { &mut out };
        target.push_str(&summary(write, changed, unchanged, skipped));
    }
    crate::syntax::sanitize::write_err(&err);
    crate::syntax::sanitize::write_out(&out);
    Ok(if failed > 0 {
        ExitCode::from(2)
    } else if !write && changed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes the formatted text for an editor: byte for byte, since it
/// replaces the editor's buffer (nothing is masked or shown as a symbol).
fn emit(w: &mut dyn Write, text: &str) {
    // A closed pipe is not worth an error.
    let _ = w.write_all(text.as_bytes());
    let _ = w.flush();
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn summary(write: bool, changed: usize, unchanged: usize, skipped: usize) -> String {
    let mut s = if write {
        format!(
            "{} reformatted, {} unchanged",
            plural(changed, "file", "files"),
            unchanged
        )
    } else {
        format!(
            "{} would be reformatted, {} already formatted",
            plural(changed, "file", "files"),
            unchanged
        )
    };
    if skipped > 0 {
        s.push_str(&format!(", {skipped} left as they are"));
    }
    s.push_str(".\n");
    s
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
    match std::fs::metadata(&path) {
        // A FIFO or a device would block or never end.
        Ok(m) if !m.is_file() => {
            return Done::Skipped(format!(
                "it is not a regular file ({})",
                crate::io::fs::kind_of(&m)
            ))
        }
        Ok(m) if m.len() > ws.config.max_file_bytes => {
            return Done::Skipped(format!(
                "the file has {} bytes, more than `max_file_bytes` ({})",
                m.len(),
                ws.config.max_file_bytes
            ))
        }
        Ok(_) => {}
        Err(e) if crate::engine::workspace::lossy_name(rel, &e) => {
            return Done::Skipped(crate::engine::workspace::NON_UTF8_NAME.into())
        }
        Err(e) => return Done::Failed(format!("cannot read: {e}")),
    }
    let seen = match crate::io::fs::Snapshot::read(&path) {
        Ok(s) => s,
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
pub fn unified_diff(rel: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{rel}"), &format!("b/{rel}"))
        .missing_newline_hint(true)
        .to_string()
}

/// Editor mode: formats standard input as if it were the file `path` and
/// prints the result. Input that is no record of the workspace (outside it,
/// excluded by `.gitignore`/`.memlintignore`, not in a record directory)
/// comes back unchanged. Input that cannot be formatted prints nothing on
/// standard output and the reason on standard error, with exit code 1, so an
/// editor keeps its buffer.
pub fn stdin(
    root: Option<&Path>,
    config: Option<&Path>,
    path: &Path,
) -> Result<ExitCode, WorkspaceError> {
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut input)
        .map_err(|source| WorkspaceError::Io {
            path: "<stdin>".into(),
            source,
        })?;
    let cwd = std::env::current_dir().map_err(|source| WorkspaceError::Io {
        path: ".".into(),
        source,
    })?;
    let abs = crate::engine::workspace::normalize(&cwd.join(path));
    // The root and configuration are discovered from the file's place, as
    // they would be for that file, not from the current directory.
    let discovered;
    let root = match root {
        Some(r) => Some(r),
        None => {
            let start = abs.ancestors().skip(1).find(|d| d.is_dir()).unwrap_or(&cwd);
            let found = find_root(start);
            let marked = found.join(crate::model::config::FILE_NAME).is_file()
                || found.join(".git").exists();
            // Nothing marks a root above the file: fall back to the usual discovery.
            discovered = if marked { found } else { find_root(&cwd) };
            Some(discovered.as_path())
        }
    };
    let ws = Workspace::load(root, config)?;
    let kind = ws
        .relative(&abs)
        .and_then(|rel| match classify(&rel, &ws.config.banned_dirs) {
            Place::Record(kind) if !ignored(&ws.root, &rel) => Some(kind),
            _ => None,
        });
    let mut stdout = std::io::stdout().lock();
    let Some(kind) = kind else {
        let _ = stdout.write_all(&input);
        let _ = stdout.flush();
        return Ok(ExitCode::SUCCESS);
    };
    let refuse = |why: String| {
        eprintln!("memlint: {}: not formatted: {why}", path.display());
        Ok(ExitCode::from(1))
    };
    if input.len() as u64 > ws.config.max_file_bytes {
        return refuse(format!(
            "the text has {} bytes, more than `max_file_bytes` ({})",
            input.len(),
            ws.config.max_file_bytes
        ));
    }
    let Ok(text) = std::str::from_utf8(&input) else {
        return refuse("the text is not valid UTF-8".into());
    };
    let (outcome, notes) = format_record_noted(text, kind);
    for note in notes {
        eprintln!("memlint: note: {}: {note}", path.display());
    }
    match outcome {
        Outcome::Unchanged => emit(&mut stdout, text),
        Outcome::Formatted(new) => emit(&mut stdout, &new),
        Outcome::Skipped { reason } => return refuse(reason),
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether the ignore files from the root down to the file's directory
/// exclude `rel`, as the walk that lists the workspace's files decides.
pub fn ignored(root: &Path, rel: &str) -> bool {
    crate::io::ignores::excludes(root, rel)
}
