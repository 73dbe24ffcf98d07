//! Exit codes (docs/commands.md): 0 clean, 1 findings, 2 usage, unreadable or
//! internal errors, 3 staging lock held.

use crate::model::workspace::Problem;
use std::process::ExitCode;

/// What a command's run came to, as docs/commands.md counts it. Every exit code
/// memlint picks is one of these (clap's own usage errors aside, which
/// are 2 as well).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// 0: nothing to report.
    Clean,
    /// 1: findings, files `fmt --check` would change, a refused import, a
    /// missing record, no watcher running.
    Findings,
    /// 2: a usage error, something unreadable or unwritable, an internal
    /// error; a hook blocking the agent.
    Failed,
    /// 3: the staging lock is held by someone else.
    LockHeld,
}

impl From<Outcome> for ExitCode {
    fn from(outcome: Outcome) -> ExitCode {
        ExitCode::from(match outcome {
            Outcome::Clean => 0,
            Outcome::Findings => 1,
            Outcome::Failed => 2,
            Outcome::LockHeld => 3,
        })
    }
}

/// `check`: findings are errors, or warnings too with `--deny-warnings`.
pub(super) fn check(errors: usize, denied_warnings: bool) -> ExitCode {
    match errors > 0 || denied_warnings {
        true => Outcome::Findings.into(),
        false => Outcome::Clean.into(),
    }
}

/// Reports on standard error the `problems` the command was given (reading
/// the workspace met them), and empties the list: an ignore file that was
/// not read, a `.memlint` that keeps no cache (warnings), a directory that
/// could not be read (an error). Returns `code`, or exit 2 after such an
/// error: the answer printed is incomplete.
pub(super) fn walk_outcome(problems: &mut Vec<Problem>, code: ExitCode) -> ExitCode {
    let mut failed = false;
    for p in crate::model::workspace::reported(std::mem::take(problems)) {
        let level = if p.is_error() { "error" } else { "warning" };
        failed |= p.is_error();
        errln!("memlint: {level}: {p}");
    }
    if failed {
        Outcome::Failed.into()
    } else {
        code
    }
}

/// Warns on standard error that `.memlint` could keep no cache, when the
/// command met that (it is among `problems`) and did not report it with
/// the others ([`walk_outcome`]).
pub(super) fn cache_problems(problems: Vec<Problem>) {
    let cache = problems.into_iter().filter(Problem::is_cache).collect();
    for p in crate::model::workspace::reported(cache) {
        errln!("memlint: warning: {p}");
    }
}

/// A hook's verdict as the runtime reads it: blocking is exit 2 (standard
/// error goes to the agent); proceeding and stopping (a JSON answer on
/// standard output) are exit 0.
pub(super) fn hook(verdict: crate::engine::hook::Verdict) -> ExitCode {
    match verdict {
        crate::engine::hook::Verdict::Block => Outcome::Failed.into(),
        crate::engine::hook::Verdict::Proceed | crate::engine::hook::Verdict::Stop => {
            Outcome::Clean.into()
        }
    }
}

/// `fmt`: 2 when a file could not be read or written, 1 when `--check` or
/// `--diff` found a file to change, else 0.
pub(super) fn fmt(report: &crate::engine::fmt::Report) -> ExitCode {
    use crate::engine::fmt::Done;
    let failed = report
        .files
        .iter()
        .any(|f| matches!(f.done, Done::Failed(_)));
    let changed = report
        .files
        .iter()
        .any(|f| matches!(f.done, Done::Changed(_)));
    if failed {
        Outcome::Failed.into()
    } else if !report.write && changed {
        Outcome::Findings.into()
    } else {
        Outcome::Clean.into()
    }
}

/// `fmt --stdin-filepath`: 1 when the text could not be formatted (the
/// editor keeps its buffer), else 0.
pub(super) fn fmt_text(formatted: &crate::engine::fmt::Formatted) -> ExitCode {
    match formatted {
        crate::engine::fmt::Formatted::Refused { .. } => Outcome::Findings.into(),
        _ => Outcome::Clean.into(),
    }
}

/// A text refused for its size before it was read whole (`new`/`staging
/// add --body-file`, `compact import`): the refusal `format/too-large`
/// would give the record, exit 1.
pub(super) fn too_large(why: &str) -> ExitCode {
    errln!("memlint: error[format/too-large]: {why}");
    Outcome::Findings.into()
}

/// `compact`'s failures (docs/commands.md): 1 for a refused import or a missing
/// record, 2 for a usage error or an unusable workspace.
pub(super) fn compact(e: &crate::engine::compact::CompactError) -> ExitCode {
    use crate::engine::compact::CompactError;
    match e {
        CompactError::Empty | CompactError::Refused { .. } | CompactError::NotFound { .. } => {
            Outcome::Findings.into()
        }
        CompactError::BadId(_)
        | CompactError::Unreadable { .. }
        | CompactError::NoFreeId { .. }
        | CompactError::Io { .. } => Outcome::Failed.into(),
    }
}

/// `staging`'s failures (docs/commands.md): 3 when the consolidation lock is held
/// by someone else, else 2.
pub(super) fn staging(e: &crate::engine::staging::StagingError) -> ExitCode {
    match e.is_conflict() {
        true => Outcome::LockHeld.into(),
        false => Outcome::Failed.into(),
    }
}
