//! `memlint export agents-md [--file F]`: the memory block written into
//! the file agents read; the path and what happened on standard output.

use super::args::{AuthorFormat, ExportArgs, ExportTarget};
use super::output::write_out;
use super::settings::Settings;
use crate::engine::export::{self, ExportError};
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint export`.
pub(super) fn run(
    s: &Settings,
    args: &ExportArgs,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    let ExportTarget::AgentsMd = args.target;
    let file = args.file.as_deref().unwrap_or(export::TARGETS[0]);
    let file = file.strip_prefix("./").unwrap_or(file).replace('\\', "/");
    match export::export(&s.workspace, &file, problems) {
        Ok(done) => {
            write_out(&match args.format {
                AuthorFormat::Json => crate::syntax::sanitize::json(&done),
                AuthorFormat::Human => match (done.created, done.changed) {
                    (true, _) => format!("{}: created with the memory block\n", done.path),
                    (false, true) => format!("{}: memory block written\n", done.path),
                    (false, false) => {
                        format!("{}: memory block up to date; nothing changed\n", done.path)
                    }
                },
            });
            Ok(ExitCode::SUCCESS)
        }
        Err(e @ ExportError::UnknownFile { .. }) => {
            Err(WorkspaceError::Usage(e.text(super::advice::name)))
        }
        Err(e @ ExportError::Write { .. }) => {
            errln!("memlint: error: {e}");
            Ok(super::exit::Outcome::Failed.into())
        }
        Err(e) => {
            errln!("memlint: error: {e}");
            Ok(super::exit::Outcome::Findings.into())
        }
    }
}
