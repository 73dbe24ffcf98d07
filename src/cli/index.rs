//! `memlint index`: a full rebuild of `.memlint/index` and of the search index.

use super::exit::walk_outcome;
use super::output::write_out;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint index`: a full rebuild of `.memlint/index`, and what it did.
pub(super) fn run(
    s: &Settings,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    let ws = &s.workspace;
    let started = std::time::Instant::now();
    // Before the files are listed, so that any later change shows.
    let watch = crate::io::watch::stamp(ws);
    let mut listing = crate::store::listing::new_listing(ws);
    problems.append(&mut listing.problems);
    let bar = super::progress::Bar::new("indexing");
    let opts = crate::engine::scan::Options {
        force: true,
        progress: bar.shown(!s.quiet),
    };
    let (done, search) = crate::engine::search::refresh(ws, &listing, &opts, watch);
    let secs = started.elapsed().as_secs_f64();
    if let Err(e) = done.saved {
        return Err(WorkspaceError::Usage(format!(
            "cannot write {}: {e}",
            crate::store::table::path(&ws.root).display()
        )));
    }
    if !s.quiet {
        write_out(&format!(
            "Indexed {} records in {} files ({} re-parsed, {} tokenized for search) in {secs:.2} s.\n",
            search.records,
            listing.files.len(),
            done.reparsed,
            search.tokenized
        ));
        if done.from_disk {
            write_out(&format!(
                "The files were not in the page cache: read by {} threads.\n",
                crate::io::stat::IO_THREADS
            ));
        }
    }
    Ok(walk_outcome(problems, ExitCode::SUCCESS))
}
