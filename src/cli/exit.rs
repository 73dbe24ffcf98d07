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
