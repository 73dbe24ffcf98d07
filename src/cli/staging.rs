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
        StagingCommand::Add(args) => return super::author::staging_add(s, args),
        StagingCommand::Status { format } => st::status(root, cfg).map(|status| match format {
            StagingFormat::Json => {
                if let Some(problem) = status.lock_problem(crate::cli::advice::words) {
                    errln!("memlint: warning: {problem}");
                }
                json(&status)
            }
            StagingFormat::Human => {
                let live = status
                    .lock
                    .as_ref()
                    .map(|lock| st::is_live(lock, &st::host_name(), now, cfg));
                human::status(&status, live)
            }
        }),
        StagingCommand::Claim(args) => {
            let who = st::Claimant::here(&args.pod, args.pid);
            let claim = match &args.remote {
                Some(name) => {
                    crate::engine::staging_remote::claim(root, cfg, &who, now, args.force, name)
                }
                None => st::claim(root, cfg, &who, now, args.force),
            };
            claim.map(|claimed| {
                if let Some(reason) = &claimed.replaced_unreadable {
                    let lock = match &args.remote {
                        Some(name) => format!(
                            "{} on the remote `{name}`",
                            crate::io::git::remote::LOCK_REF
                        ),
                        None => st::LOCK_PATH.to_string(),
                    };
                    errln!("memlint: warning: replaced the unreadable {lock} ({reason})");
                }
                match args.format {
                    StagingFormat::Json => json(&claimed),
                    StagingFormat::Human if s.quiet => String::new(),
                    StagingFormat::Human => human::claimed(&claimed),
                }
            })
        }
        StagingCommand::Release(args) => {
            let release = match &args.remote {
                Some(name) => crate::engine::staging_remote::release(root, cfg, &args.pod, name),
                None => st::release(root, &args.pod),
            };
            release.map(|released| match args.format {
                StagingFormat::Json => json(&released),
                StagingFormat::Human if s.quiet => String::new(),
                StagingFormat::Human => human::released(&released),
            })
        }
    };
    match outcome {
        Ok(text) => {
            write_out(&text);
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            errln!(
                "memlint: error: {}",
                super::advice::said(e.text(super::advice::name), e.advice())
            );
            Ok(super::exit::staging(&e))
        }
    }
}

/// The human forms of `staging`'s results: short lines for a terminal.
mod human {
    use crate::engine::staging::{Claimed, Released, Status};

    /// Short lines for a terminal; `live` says whether the lock's holder is
    /// alive (from [`crate::engine::staging::is_live`]).
    pub(super) fn status(status: &Status, live: Option<bool>) -> String {
        let mut out = format!(
            "staging: {} {}, {} bytes, {}\n",
            status.files,
            plural(status.files, "file", "files"),
            status.bytes,
            if status.due {
                "due for consolidation"
            } else {
                "not due"
            }
        );
        match (&status.lock, live) {
            (None, _) => match status.lock_problem(crate::cli::advice::words) {
                Some(problem) => out.push_str(&format!("lock: {problem}\n")),
                None => out.push_str("lock: none\n"),
            },
            (Some(lock), Some(false)) => out.push_str(&format!(
                "lock: stale, left by {} (the next claim takes it over)\n",
                lock.holder()
            )),
            (Some(lock), _) => out.push_str(&format!(
                "lock: held by {}, {} consumed\n",
                lock.holder(),
                lock.consumed.len()
            )),
        }
        out
    }

    /// Short lines for a terminal.
    pub(super) fn claimed(claimed: &Claimed) -> String {
        let mut out = format!(
            "claimed {} staging {} for pod `{}`\n",
            claimed.consumed.len(),
            plural(claimed.consumed.len(), "entry", "entries"),
            crate::syntax::sanitize::line(&claimed.pod)
        );
        if let Some(old) = &claimed.took_over {
            out.push_str(&format!("took over the stale lock of {old}\n"));
        }
        out
    }

    /// Short lines for a terminal.
    pub(super) fn released(released: &Released) -> String {
        let done = format!(
            "released {} staging {}",
            released.released.len(),
            plural(released.released.len(), "entry", "entries")
        );
        if released.coalesce {
            format!(
                "{done}; {} {} arrived meanwhile: run the next round\n",
                released.remaining,
                plural(released.remaining, "entry", "entries")
            )
        } else {
            format!("{done}; none remain\n")
        }
    }

    fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
        if n == 1 {
            one
        } else {
            many
        }
    }
}
