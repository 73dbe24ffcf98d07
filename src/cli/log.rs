//! `memlint log`: the git history of a record or of the workspace.

use super::args::*;
use super::output::write_out;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint log`: malformed trailers are also reported on standard error.
pub(super) fn run(s: &Settings, args: &LogArgs) -> Result<ExitCode, WorkspaceError> {
    let mut request =
        crate::engine::log::parse_log_args(&args.words).map_err(WorkspaceError::Usage)?;
    request.gc_only = args.gc;
    let log = crate::engine::log::log(&s.workspace, &request).map_err(WorkspaceError::Git)?;
    for c in &log.commits {
        for m in &c.malformed {
            errln!(
                "memlint: warning: commit {}: malformed `{}:` trailer `{}`: {}",
                &c.id[..7.min(c.id.len())],
                crate::syntax::trailer::TRAILER,
                crate::syntax::sanitize::line(&m.line),
                crate::syntax::sanitize::line(&m.reason)
            );
        }
    }
    write_out(&match args.format {
        LogFormat::Human => crate::engine::log::render_human(&log),
        LogFormat::Json => crate::engine::log::render_json(&log),
    });
    Ok(ExitCode::SUCCESS)
}
