//! Exit codes (SPEC §4): 0 clean, 1 findings, 2 usage, unreadable or
//! internal errors, 3 staging lock held.

use crate::engine::workspace::Workspace;
use std::process::ExitCode;

/// Reports on standard error what the walks of `ws` left out: an ignore
/// file that was not read (a warning), a directory that could not be read
/// (an error). Returns `code`, or exit 2 after such an error: the answer
/// printed is incomplete.
pub(super) fn walk_outcome(ws: &Workspace, code: ExitCode) -> ExitCode {
    let mut failed = false;
    for p in ws.take_problems() {
        let level = if p.is_error() { "error" } else { "warning" };
        failed |= p.is_error();
        errln!("memlint: {level}: {p}");
    }
    if failed {
        ExitCode::from(2)
    } else {
        code
    }
}

/// A hook's verdict as the runtime reads it: blocking is exit 2 (standard
/// error goes to the agent); proceeding and stopping (a JSON answer on
/// standard output) are exit 0.
pub(super) fn hook(verdict: crate::engine::hook::Verdict) -> ExitCode {
    match verdict {
        crate::engine::hook::Verdict::Block => ExitCode::from(2),
        crate::engine::hook::Verdict::Proceed | crate::engine::hook::Verdict::Stop => {
            ExitCode::SUCCESS
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
        ExitCode::from(2)
    } else if !report.write && changed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `fmt --stdin-filepath`: 1 when the text could not be formatted (the
/// editor keeps its buffer), else 0.
pub(super) fn fmt_text(formatted: &crate::engine::fmt::Formatted) -> ExitCode {
    match formatted {
        crate::engine::fmt::Formatted::Refused { .. } => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}

/// `compact`'s failures (SPEC §4): 1 for a refused import or a missing
/// record, 2 for a usage error or an unusable workspace.
pub(super) fn compact(e: &crate::engine::compact::CompactError) -> ExitCode {
    use crate::engine::compact::CompactError;
    match e {
        CompactError::Empty | CompactError::Refused { .. } | CompactError::NotFound { .. } => {
            ExitCode::from(1)
        }
        CompactError::BadId(_)
        | CompactError::Unreadable { .. }
        | CompactError::NoFreeId { .. }
        | CompactError::Io { .. } => ExitCode::from(2),
    }
}

/// `staging`'s failures (SPEC §4): 3 when the consolidation lock is held
/// by someone else, else 2.
pub(super) fn staging(e: &crate::engine::staging::StagingError) -> ExitCode {
    ExitCode::from(if e.is_conflict() { 3 } else { 2 })
}
