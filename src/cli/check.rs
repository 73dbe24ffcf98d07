//! `memlint check`: resolve the paths, run the engine (work tree, `--staged` or `--base`), render, pick the exit code.

use super::args::*;
use super::exit::walk_outcome;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

use super::render::{self, Summary};
use crate::model::diagnostic::Severity;

/// `memlint check`: lints the work tree, the staged version or the changes since `--base`; exit 1 on findings.
pub(super) fn run(s: &Settings, args: &CheckArgs) -> Result<ExitCode, WorkspaceError> {
    let ws = &s.workspace;
    // The git modes read the index or commits, never the work tree.
    let git_mode = args.staged || args.base.is_some();
    let mut wanted = Vec::new();
    let mut present = Vec::new();
    let mut warned = Vec::new();
    for p in &args.paths {
        let given = ws.given(p)?;
        warned.push(given.skipped.is_some());
        if !git_mode {
            if let Some(why) = &given.skipped {
                errln!("memlint: warning: {why}");
            } else if !given.exists {
                return Err(WorkspaceError::Usage(format!(
                    "{}: no such file or directory",
                    p.display()
                )));
            }
        }
        present.push(given.exists);
        wanted.push(given.rel);
    }
    let selected = |f: &str| {
        wanted.is_empty()
            || wanted
                .iter()
                .any(|w| w.is_empty() || f == w || f.starts_with(&format!("{w}/")))
    };
    let git_error = |e: crate::io::git::GitError| WorkspaceError::Usage(e.to_string());
    // In the git modes a path may be gone from the work tree yet be in the
    // version linted; one that matches nothing anywhere is a usage error.
    let matched = |outcome: &crate::engine::check::Outcome| {
        let missing: Vec<String> = args
            .paths
            .iter()
            .zip(&present)
            .filter(|(_, exists)| !**exists)
            .map(|(p, _)| p.display().to_string())
            .collect();
        if outcome.files == 0 && !missing.is_empty() {
            return Err(WorkspaceError::Usage(format!(
                "{}: no such file or directory, in the work tree or in the version checked",
                missing.join(", ")
            )));
        }
        Ok(())
    };
    if let (true, Some(file)) = (args.staged, &args.commit_msg) {
        return commit_msg(s, args, file, &selected);
    }
    let texts = args.format == CheckFormat::Human;
    if args.staged {
        let outcome = crate::engine::version::staged(ws, &selected, texts).map_err(git_error)?;
        notes(s, &outcome);
        matched(&outcome)?;
        // A commit of code only: the pre-commit hook has nothing to say.
        if nothing_found(args, &outcome) && outcome.files == 0 {
            return Ok(ExitCode::SUCCESS);
        }
        return Ok(report_check(s, args, &outcome));
    }
    if let Some(rev) = &args.base {
        let outcome = crate::engine::version::base(ws, rev, &selected, texts).map_err(git_error)?;
        for w in &outcome.warnings {
            errln!("memlint: warning: {w}");
        }
        matched(&outcome)?;
        return Ok(report_check(s, args, &outcome));
    }
    let files = crate::store::listing::files(ws);
    let bar = super::progress::Bar::new("indexing");
    let index_opts = crate::engine::scan::Options {
        force: false,
        progress: bar.shown(!s.quiet),
    };
    let mut write_failed = false;
    if args.fix {
        let fixed = crate::engine::fix::run(ws, &files, &selected, &index_opts);
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
    let outcome = crate::engine::check::run_texts(ws, &files, &selected, &index_opts, texts);
    notes(s, &outcome);
    let mut code = report_check(s, args, &outcome);
    // A fix that could not be written is a failure of the command, not a
    // finding: exit 2, as `fmt` does, whatever the lint found.
    if write_failed {
        code = super::exit::Outcome::Failed.into();
    }
    // "No problems in 0 files." alone would not say why.
    let named = wanted.iter().zip(&args.paths).zip(&warned);
    let nothing_to_check = args.paths.is_empty() && outcome.files == 0;
    let asked: Vec<(String, String)> = match nothing_to_check {
        true => vec![(String::new(), ".".into())],
        false => named
            .filter(|(_, warned)| !**warned)
            .map(|((rel, p), _)| (rel.clone(), p.display().to_string()))
            .collect(),
    };
    for (rel, shown) in asked {
        if let Some(why) = ws.selects_nothing(&rel, &shown, &files) {
            errln!("memlint: warning: {why}");
        }
    }
    // The process exits next: freeing every file's report and path one by
    // one would only delay it (tens of milliseconds on 100k records).
    std::mem::forget((outcome, files));
    Ok(walk_outcome(ws, code))
}

/// Renders a `check` outcome and returns the exit code.
fn report_check(
    s: &Settings,
    args: &CheckArgs,
    outcome: &crate::engine::check::Outcome,
) -> ExitCode {
    let diags = &outcome.diagnostics;
    let sources = &outcome.sources;
    let summary = Summary::of(outcome.files, diags);
    let text = match args.format {
        CheckFormat::Human => {
            if s.quiet && diags.is_empty() {
                String::new()
            } else {
                render::human(diags, sources, summary, s.color, render::width())
            }
        }
        CheckFormat::Json => render::json(diags, summary),
        CheckFormat::Github => render::github(diags, summary),
        CheckFormat::Sarif => render::sarif(diags),
    };
    super::output::out_colored(&text, s.color && args.format == CheckFormat::Human);
    let denied = args.deny_warnings && diags.iter().any(|d| d.severity == Severity::Warning);
    super::exit::check(summary.errors, denied)
}

/// `check --staged --commit-msg FILE`: the `history/*` rules on the commit
/// being made, with the trailers of its message.
/// The outcome's notes (records `sources/drifted` could not judge), on
/// standard error unless `--quiet`.
fn notes(s: &Settings, outcome: &crate::engine::check::Outcome) {
    if !s.quiet {
        for w in &outcome.warnings {
            errln!("memlint: note: {w}");
        }
    }
}

fn commit_msg(
    s: &Settings,
    args: &CheckArgs,
    file: &std::path::Path,
    selected: &dyn Fn(&str) -> bool,
) -> Result<ExitCode, WorkspaceError> {
    let message = crate::io::fs::read_regular(file)
        .map_err(|e| WorkspaceError::Usage(format!("cannot read {}: {e}", file.display())))?;
    let message = String::from_utf8_lossy(&message);
    let outcome = crate::engine::history::staged_history(&s.workspace, &message, selected)
        .map_err(|e| WorkspaceError::Usage(e.to_string()))?;
    // The message is still being written: a trailer that is malformed,
    // out of place or not what the commit does is fixed now, not left in
    // history.
    for w in &outcome.warnings {
        errln!("memlint: error: {w}");
    }
    let bad_trailer = !outcome.warnings.is_empty();
    // The commit-msg hook runs after the pre-commit hook, which has counted
    // the records: a clean message adds nothing to that.
    let code = match nothing_found(args, &outcome) {
        true => ExitCode::SUCCESS,
        false => report_check(s, args, &outcome),
    };
    Ok(match bad_trailer {
        true => super::exit::Outcome::Findings.into(),
        false => code,
    })
}

/// Human output with no finding, where the count line alone is noise (the
/// git hooks). The machine formats always print their document.
fn nothing_found(args: &CheckArgs, outcome: &crate::engine::check::Outcome) -> bool {
    args.format == CheckFormat::Human && outcome.diagnostics.is_empty()
}
