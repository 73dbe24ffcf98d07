//! `memlint search`: ranked records for a query.

use super::args::*;
use super::exit::walk_outcome;
use super::output::write_out;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint search`: ranked records for a query.
pub(super) fn run(s: &Settings, args: &SearchArgs) -> Result<ExitCode, WorkspaceError> {
    let query = crate::engine::search::Query {
        text: args.query.join(" "),
        kind: args.kind,
        limit: args.limit as usize,
        all: args.all,
    };
    let opts = crate::store::index::Options {
        force: false,
        progress: !s.quiet,
    };
    let hits = crate::engine::search::search(&s.workspace, &query, &opts);
    match args.format {
        ReportFormat::Human => {
            super::output::out_colored(&crate::engine::search::human(&hits, s.color), s.color)
        }
        ReportFormat::Json => write_out(&crate::engine::search::json(&query.text, &hits)),
    }
    Ok(walk_outcome(&s.workspace, ExitCode::SUCCESS))
}
