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
        eprintln!("memlint: {level}: {p}");
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
