//! `memlint watch start|stop|status|run`.

use super::args::*;
use super::output::write_out;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// How long `watch start` waits for the watcher to load its index.
const LOADED_WITHIN: std::time::Duration = std::time::Duration::from_secs(120);

/// `memlint watch …`.
pub(super) fn run(
    s: &Settings,
    global: &GlobalArgs,
    cmd: &WatchCommand,
) -> Result<ExitCode, WorkspaceError> {
    use crate::io::watch as w;
    let root = &s.workspace.root;
    let not_running = || {
        errln!("memlint: no watcher runs for {}", root.display());
        Ok(super::exit::Outcome::Findings.into())
    };
    match cmd {
        WatchCommand::Run => {
            let quiet = s.quiet;
            // The recall socket, once the watcher holds its lock; removed
            // when the watcher stops.
            let mut recall = None;
            w::run(&s.workspace, |status| {
                recall = crate::engine::search::served::serve(&s.workspace);
                if !quiet {
                    write_out(&status.human(root));
                }
            })
            .map_err(|e| WorkspaceError::Usage(e.to_string()))?;
            drop(recall);
            Ok(ExitCode::SUCCESS)
        }
        WatchCommand::Start => {
            if let Some(status) = w::status(root) {
                if !s.quiet {
                    write_out(&format!("already {}", status.human(root)));
                }
                return Ok(ExitCode::SUCCESS);
            }
            let config = global.config.as_ref().map(|c| {
                std::env::current_dir()
                    .map(|d| d.join(c))
                    .unwrap_or(c.clone())
            });
            let status = w::start(root, config.as_deref())
                .map_err(|e| WorkspaceError::Usage(e.to_string()))?;
            // Ready when it returns: the watcher has also loaded the index
            // it answers searches from (and stored it, when there was none:
            // the one wait long enough to tell the user about). A workspace
            // too large to load in time is answered for later.
            let building = !crate::store::search::path(root).is_file();
            if building && !s.quiet {
                errln!("memlint: the watcher is building the search index (none is stored yet)");
            }
            let loaded = crate::engine::search::served::wait_loaded(&s.workspace, LOADED_WITHIN);
            if !loaded && !s.quiet {
                errln!(
                    "memlint: the watcher is still loading the search index; until it has, searches read the records themselves"
                );
            }
            if !s.quiet {
                write_out(&status.human(root));
            }
            Ok(ExitCode::SUCCESS)
        }
        WatchCommand::Stop => match w::stop(root) {
            Some(pid) => {
                if !s.quiet {
                    write_out(&format!(
                        "stopped the watcher of {} (pid {pid})\n",
                        root.display()
                    ));
                }
                Ok(ExitCode::SUCCESS)
            }
            None => not_running(),
        },
        WatchCommand::Status => match w::status(root) {
            Some(status) => {
                write_out(&status.human(root));
                Ok(ExitCode::SUCCESS)
            }
            None => not_running(),
        },
    }
}
