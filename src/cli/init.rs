//! `memlint init`: create the workspace layout, and the git and agent hooks.

use super::args::{GlobalArgs, InitArgs};
use super::output;
use super::settings::Settings;
use crate::engine::init::{self, AgentSettings, Hooks, Report};
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint init [--hooks [--force]] [--agent-settings [FILE]]`. What was
/// done is printed also when a later step fails.
pub(super) fn run(global: &GlobalArgs, args: &InitArgs) -> Result<ExitCode, WorkspaceError> {
    let root = Settings::resolve_for_init(global)?;
    // `--hooks` is checked first, so that a refusal creates nothing.
    let hooks = match args.hooks {
        true => Some(Hooks::plan(&root, args.force)?),
        false => None,
    };
    let settings = args
        .agent_settings
        .as_deref()
        .map(|file| AgentSettings::plan(&root, file))
        .transpose()?;
    let mut report = Report::default();
    let done = init::run(&root, &mut report)
        .and_then(|()| hooks.map_or(Ok(()), |h| h.install(&mut report)))
        .and_then(|()| settings.map_or(Ok(()), |s| s.write(&mut report)))
        .and_then(|()| match args.merge {
            true => crate::engine::merge::install::install(&root, &mut report),
            false => Ok(()),
        });
    for line in &report.lines {
        output::out(&format!("{line}\n"));
    }
    done.map(|()| ExitCode::SUCCESS)
}
