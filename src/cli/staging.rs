//! `memlint staging status|claim|release`: the consolidation lock.

use super::args::*;
use super::output::write_out;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint staging status|claim|release`: lock conflicts exit 3.
pub(super) fn run(s: &Settings, cmd: &StagingCommand) -> Result<ExitCode, WorkspaceError> {
    use crate::engine::staging as st;
    fn json<T: serde::Serialize>(value: &T) -> String {
        crate::syntax::sanitize::json(value)
    }
    let root = &s.workspace.root;
    let cfg = &s.workspace.config.staging;
    let now = crate::model::clock::now_secs();
    let outcome = match cmd {
        StagingCommand::Status { format } => st::status(root, cfg).map(|status| match format {
            StagingFormat::Json => {
                if let Some(problem) = status.lock_problem() {
                    errln!("memlint: warning: {problem}");
                }
                json(&status)
            }
            StagingFormat::Human => {
                let live = status
                    .lock
                    .as_ref()
                    .map(|lock| st::is_live(lock, &st::host_name(), now, cfg));
                status.human(live)
            }
        }),
        StagingCommand::Claim(args) => {
            let who = st::Claimant::here(&args.pod, args.pid);
            st::claim(root, cfg, &who, now, args.force).map(|claimed| {
                if let Some(reason) = &claimed.replaced_unreadable {
                    errln!(
                        "memlint: warning: replaced the unreadable {} ({reason})",
                        st::LOCK_PATH
                    );
                }
                match args.format {
                    StagingFormat::Json => json(&claimed),
                    StagingFormat::Human if s.quiet => String::new(),
                    StagingFormat::Human => claimed.human(),
                }
            })
        }
        StagingCommand::Release(args) => {
            st::release(root, &args.pod).map(|released| match args.format {
                StagingFormat::Json => json(&released),
                StagingFormat::Human if s.quiet => String::new(),
                StagingFormat::Human => released.human(),
            })
        }
    };
    match outcome {
        Ok(text) => {
            write_out(&text);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            errln!("memlint: error: {e}");
            Ok(ExitCode::from(if e.is_conflict() { 3 } else { 2 }))
        }
    }
}
