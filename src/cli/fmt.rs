//! `memlint fmt`: rewrite records into canonical form, or check or diff
//! them; and the editor mode (`--stdin-filepath`), which reads standard
//! input.

use super::args::{FmtArgs, GlobalArgs};
use super::exit;
use super::output;
use super::settings::Settings;
use crate::engine::fmt::{self, Done, Formatted, Report};
use crate::engine::workspace::WorkspaceError;
use crate::syntax::sanitize;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// `memlint fmt`: formats the given paths (or standard input as `--stdin-filepath`).
pub(super) fn run(global: &GlobalArgs, args: &FmtArgs) -> Result<ExitCode, WorkspaceError> {
    if let Some(path) = &args.stdin_filepath {
        return editor(global, path);
    }
    let s = Settings::resolve(global)?;
    let write = !(args.check || args.diff);
    let bar = super::progress::Bar::new(if write { "formatting" } else { "checking" });
    let options = fmt::Options {
        paths: args.paths.clone(),
        check: args.check,
        diff: args.diff,
        progress: bar.shown(!s.quiet),
    };
    let mut report = fmt::run(&s.workspace, &options)?;
    let (out, err) = render(&report, args.check, args.diff, s.quiet);
    output::err(&err);
    output::out(&out);
    let code = exit::fmt(&report);
    Ok(exit::walk_outcome(&mut report.problems, code))
}

/// The warnings of the selection, then for standard error the notes,
/// skips and failures, and for standard output the files that would
/// change (`--check`) or the diff (`--diff`); then the count line (on
/// standard error with `--diff`, so that standard output stays a patch).
fn render(report: &Report, check: bool, diff: bool, quiet: bool) -> (String, String) {
    for why in &report.warnings {
        output::err(&format!("memlint: warning: {why}\n"));
    }
    let mut out = String::new();
    let mut err = String::new();
    let (mut changed, mut unchanged, mut skipped) = (0, 0, 0);
    for file in &report.files {
        // File names are shown on one line, secrets masked, control
        // characters as symbols.
        let rel = &sanitize::line(&file.rel);
        if !quiet {
            for note in &file.notes {
                let _ = writeln!(err, "memlint: note: {rel}: {note}");
            }
        }
        match &file.done {
            Done::Unchanged => unchanged += 1,
            Done::Changed(texts) => {
                changed += 1;
                if let Some((old, new)) = texts {
                    // Both sides masked alike: the diff never shows a
                    // secret, nor part of one (a private key's lines).
                    let (old, new) = (sanitize::secrets(old), sanitize::secrets(new));
                    out.push_str(&fmt::unified_diff(rel, &old, &new));
                } else if check {
                    let _ = writeln!(out, "Would reformat: {rel}");
                }
            }
            Done::Skipped(reason) => {
                skipped += 1;
                if !quiet {
                    let _ = writeln!(err, "memlint: note: {rel}: left as it is: {reason}");
                }
            }
            Done::Raced => {
                skipped += 1;
                if !quiet {
                    let _ = writeln!(err, "memlint: note: {rel}: {}", fmt::RACED);
                }
            }
            Done::Failed(e) => {
                let _ = writeln!(err, "memlint: error: {rel}: {e}");
            }
        }
    }
    if !quiet {
        let target = if diff { &mut err } else { &mut out };
        target.push_str(&summary(report.write, changed, unchanged, skipped));
    }
    (out, err)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `3 files reformatted, 10 unchanged.` and its `--check` form.
fn summary(write: bool, changed: usize, unchanged: usize, skipped: usize) -> String {
    let files = plural(changed, "file", "files");
    let mut s = if write {
        format!("{files} reformatted, {unchanged} unchanged")
    } else {
        format!("{files} would be reformatted, {unchanged} already formatted")
    };
    if skipped > 0 {
        let _ = write!(s, ", {skipped} left as they are");
    }
    s.push_str(".\n");
    s
}

/// Editor mode: formats standard input as if it were the file `path` and
/// prints the result byte for byte (it replaces the editor's buffer: nothing
/// is masked or shown as a symbol). Input that is no record comes back
/// unchanged; input that cannot be formatted prints nothing on standard
/// output and the reason on standard error, with exit 1, so an editor
/// keeps its buffer.
fn editor(global: &GlobalArgs, path: &Path) -> Result<ExitCode, WorkspaceError> {
    use crate::io::bounded::read_at_most;
    use crate::model::content::Content;
    let cwd = super::settings::cwd()?;
    let place = fmt::EditorPlace {
        root: global.root.as_deref(),
        config: global.config.as_deref(),
        cwd: &cwd,
        env: &super::settings::env,
        path,
    };
    let stdin_err = |source| WorkspaceError::Io {
        path: "<stdin>".into(),
        source,
    };
    let (ws, rel) = fmt::locate(&place)?;
    let Some(rel) = rel.filter(|rel| fmt::formats(&ws, rel)) else {
        // No record: the text comes back as it is, passed through piece
        // by piece rather than held whole.
        output::raw_stream(std::io::stdin().lock()).map_err(stdin_err)?;
        return Ok(exit::fmt_text(&Formatted::NotARecord));
    };
    // A record is read up to `max_file_bytes` and no further: a larger one
    // is refused without being held whole.
    let max = ws.config.max_file_bytes;
    let formatted = match read_at_most(std::io::stdin().lock(), max).map_err(stdin_err)? {
        Content::Bytes(input) => fmt::text_in(&ws, &rel, &input),
        Content::TooLarge(_) => Formatted::Refused {
            why: format!("the text has more than {max} bytes (`max_file_bytes`)"),
            notes: Vec::new(),
        },
    };
    let shown = path.display();
    match &formatted {
        // Not reached: such a text was passed through above.
        Formatted::NotARecord => {}
        Formatted::Text { text, notes } => {
            for note in notes {
                output::err(&format!("memlint: note: {shown}: {note}\n"));
            }
            output::raw(text.as_bytes());
        }
        Formatted::Refused { why, notes } => {
            for note in notes {
                output::err(&format!("memlint: note: {shown}: {note}\n"));
            }
            output::err(&format!("memlint: {shown}: not formatted: {why}\n"));
        }
    }
    Ok(exit::fmt_text(&formatted))
}
