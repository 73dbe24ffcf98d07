//! `memlint check`: the flags become the engine's mode and selection; the
//! engine's answer is rendered and the exit code picked.

use super::args::*;
use super::exit::walk_outcome;
use super::settings::Settings;
use crate::engine::check::lint::Texts;
use crate::engine::check::{Checked, Mode, Selection};
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

use super::render::{self, Level, Summary};
use crate::model::severity::Severity;

/// `memlint check`: lints the work tree, the staged version or the changes since `--base`; exit 1 on findings.
pub(super) fn run(
    s: &Settings,
    args: &CheckArgs,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    let ws = &s.workspace;
    // The git modes read the index or commits, never the work tree.
    let reads_git = args.staged || args.base.is_some();
    let (warnings, selection) = Selection::of(ws, &args.paths, reads_git);
    for w in &warnings {
        errln!("memlint: warning: {w}");
    }
    let selection = selection?;
    let message;
    let mode = match (args.staged, &args.commit_msg, &args.base) {
        (true, Some(file), _) => {
            message = read_message(file)?;
            Mode::CommitMessage { message: &message }
        }
        (true, None, _) => Mode::Staged,
        (false, _, Some(rev)) => Mode::Base { rev },
        (false, _, None) => Mode::WorkTree { fix: args.fix },
    };
    let bar = super::progress::Bar::new("indexing");
    let opts = crate::engine::scan::Options {
        force: false,
        progress: match mode {
            Mode::WorkTree { .. } => bar.shown(!s.quiet),
            _ => None,
        },
    };
    // Human output of the work tree reads only the texts of the files
    // whose reports it does not keep rendered.
    let texts = match (args.format, &mode) {
        (CheckFormat::Human, Mode::WorkTree { .. }) => Texts::Deferred,
        (CheckFormat::Human, _) => Texts::All,
        _ => Texts::None,
    };
    let mut checked = crate::engine::check::run_with_texts(ws, &mode, &selection, texts, &opts)?;
    problems.append(&mut checked.outcome.problems);
    match mode {
        Mode::CommitMessage { .. } => Ok(commit_msg(s, args, &checked)),
        Mode::Staged => {
            warn(s, args, &checked, Level::Notice);
            unmatched(&checked)?;
            // A commit of code only: the pre-commit hook has nothing to say.
            if nothing_found(args, &checked) && checked.outcome.files == 0 {
                return Ok(ExitCode::SUCCESS);
            }
            Ok(report_check(
                s,
                args,
                &checked,
                false,
                heard(s, Level::Notice),
            ))
        }
        Mode::Base { .. } => {
            warn(s, args, &checked, Level::Warning);
            unmatched(&checked)?;
            Ok(report_check(
                s,
                args,
                &checked,
                false,
                heard(s, Level::Warning),
            ))
        }
        Mode::WorkTree { .. } => Ok(work_tree(s, args, checked, problems)),
    }
}

/// The message file of `--commit-msg`.
fn read_message(file: &std::path::Path) -> Result<String, WorkspaceError> {
    let message = crate::io::fs::read_regular(file, crate::io::fs::SMALL_FILE_MAX)
        .map_err(|e| WorkspaceError::Usage(format!("cannot read {}: {e}", file.display())))?;
    Ok(String::from_utf8_lossy(&message).into_owned())
}

/// The usage error of a path that names nothing anywhere (git modes).
fn unmatched(checked: &Checked) -> Result<(), WorkspaceError> {
    match &checked.unmatched {
        Some(why) => Err(WorkspaceError::Usage(why.clone())),
        None => Ok(()),
    }
}

/// The work tree's check: what `--fix` did, the notes, the findings, the
/// paths that selected nothing, what reading the workspace met.
fn work_tree(
    s: &Settings,
    args: &CheckArgs,
    checked: Checked,
    problems: &mut super::Problems,
) -> ExitCode {
    let mut write_failed = false;
    if let Some(fixed) = &checked.fixed {
        for (path, e) in &fixed.failed {
            errln!("memlint: error: {path}: {e}");
        }
        write_failed = !fixed.failed.is_empty();
        if !s.quiet {
            for path in &fixed.raced {
                errln!("memlint: note: {path}: changed while memlint was fixing it; left as it is");
            }
            if !fixed.fixed.is_empty() {
                errln!("memlint: fixed {} file(s)", fixed.fixed.len());
            }
        }
    }
    warn(s, args, &checked, Level::Notice);
    let mut code = report_check(s, args, &checked, true, heard(s, Level::Notice));
    // A fix that could not be written is a failure of the command, not a
    // finding: exit 2, as `fmt` does, whatever the lint found.
    if write_failed {
        code = super::exit::Outcome::Failed.into();
    }
    for why in &checked.selects_nothing {
        errln!("memlint: warning: {why}");
    }
    let code = walk_outcome(problems, code);
    // The process exits next: freeing every file's report and path one by
    // one would only delay it (tens of milliseconds on 100k records).
    std::mem::forget(checked);
    code
}

/// Renders a `check` outcome and returns the exit code; `work_tree`: the
/// outcome of the work tree, whose human reports may be kept rendered;
/// `warnings`: the level at which `--format github` gives the outcome's
/// warnings as workflow commands (see [`warn`]), if it does.
fn report_check(
    s: &Settings,
    args: &CheckArgs,
    checked: &Checked,
    work_tree: bool,
    warnings: Option<Level>,
) -> ExitCode {
    let outcome = &checked.outcome;
    let diags = &outcome.diagnostics;
    let sources = &outcome.sources;
    let summary = Summary::of(outcome.files, diags);
    // The notes heard, for the formats that carry them.
    let notes: (Level, &[String]) = match warnings {
        Some(level) => (level, &outcome.warnings),
        None => (Level::Notice, &[]),
    };
    let (text, shown) = match args.format {
        CheckFormat::Human => {
            if !(s.quiet && diags.is_empty()) {
                match work_tree {
                    true => super::output::out_pieces(|sink| {
                        super::rendered::human(
                            &s.workspace,
                            outcome,
                            summary,
                            super::rendered::Shape {
                                color: s.color,
                                width: render::width(),
                                whole: args.paths.is_empty(),
                            },
                            sink,
                        )
                    }),
                    false => super::output::out_rendered(
                        &render::rendered(diags, sources, summary, s.color, render::width()),
                        s.color,
                    ),
                }
            }
            (String::new(), false)
        }
        CheckFormat::Json => {
            let json = render::prepare_json(diags);
            match json.shown {
                true => {
                    super::output::out_pieces(|sink| json.write(diags, summary, sink));
                    (String::new(), true)
                }
                false => (json.text(diags, summary), false),
            }
        }
        CheckFormat::Github => (render::github(notes, diags, summary), false),
        CheckFormat::Sarif => (render::sarif(notes, diags), false),
    };
    match shown {
        true => super::output::out_shown(&text),
        false => super::output::out(&text),
    }
    let denied = args.deny_warnings && diags.iter().any(|d| d.severity == Severity::Warning);
    super::exit::check(summary.errors, denied)
}

/// The level at which the outcome's notes and warnings are heard, if they
/// are: notes (records `sources/drifted` could not judge) not with
/// `--quiet`.
fn heard(s: &Settings, level: Level) -> Option<Level> {
    (!(s.quiet && level == Level::Notice)).then_some(level)
}

/// The outcome's notes and warnings at `level`, on standard error when
/// [`heard`]; with `--format github` they are workflow commands of the
/// output instead ([`report_check`]), which the Actions page shows, as it
/// does not show standard error.
fn warn(s: &Settings, args: &CheckArgs, checked: &Checked, level: Level) {
    if args.format == CheckFormat::Github || heard(s, level).is_none() {
        return;
    }
    let word = match level {
        Level::Notice => "note",
        Level::Warning => "warning",
        Level::Error => "error",
    };
    for w in &checked.outcome.warnings {
        errln!("memlint: {word}: {w}");
    }
}

/// `check --staged --commit-msg FILE`: the `history/*` rules on the commit
/// being made, with the trailers of its message.
fn commit_msg(s: &Settings, args: &CheckArgs, checked: &Checked) -> ExitCode {
    // The message is still being written: a trailer that is malformed,
    // out of place or not what the commit does is fixed now, not left in
    // history.
    warn(s, args, checked, Level::Error);
    let bad_trailer = !checked.outcome.warnings.is_empty();
    // The commit-msg hook runs after the pre-commit hook, which has counted
    // the records: a clean message adds nothing to that.
    let code = match nothing_found(args, checked) {
        true => ExitCode::SUCCESS,
        false => report_check(s, args, checked, false, heard(s, Level::Error)),
    };
    match bad_trailer {
        true => super::exit::Outcome::Findings.into(),
        false => code,
    }
}

/// Human output with no finding, where the count line alone is noise (the
/// git hooks). The machine formats always print their document.
fn nothing_found(args: &CheckArgs, checked: &Checked) -> bool {
    args.format == CheckFormat::Human && checked.outcome.diagnostics.is_empty()
}
