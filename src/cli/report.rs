//! `memlint report`: the consolidation worker's tidy-up material.

use super::args::*;
use super::exit::walk_outcome;
use super::output::write_out;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint report`: the consolidation worker's tidy-up material.
pub(super) fn run(
    s: &Settings,
    args: &ReportArgs,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    if let Some(file) = &args.html {
        return super::report_html::run(s, file, problems);
    }
    let bar = super::progress::Bar::new("indexing");
    let opts = crate::engine::scan::Options {
        force: false,
        progress: bar.shown(!s.quiet),
    };
    let mut built = crate::engine::report::build(&s.workspace, &opts)
        .map_err(|e| WorkspaceError::Usage(e.to_string()))?;
    problems.append(&mut built.problems);
    write_out(&match args.format {
        ReportFormat::Human => built.human(),
        ReportFormat::Json => built.json(),
    });
    Ok(walk_outcome(problems, ExitCode::SUCCESS))
}
