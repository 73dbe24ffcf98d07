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
    // The layout was all there and no other step was asked for: say so
    // once, rather than "nothing changed" before a list of changes.
    let only_layout = !args.hooks && args.agent_settings.is_none() && !args.merge;
    if let ([line], true) = (report.lines.as_mut_slice(), only_layout) {
        if line.ends_with(" is already initialised") {
            line.push_str("; nothing changed");
        }
    }
    // `-q`: what was done is not printed; what asks for the user's hand
    // (a hook left alone, the settings to add) and errors still are.
    for line in report
        .lines
        .iter()
        .filter(|l| !global.quiet || asks_for_action(l))
    {
        output::out(&format!("{line}\n"));
    }
    done.map(|()| ExitCode::SUCCESS)
}

/// Whether a line of `init`'s report asks the user to do something, which
/// `-q` still prints.
fn asks_for_action(line: &str) -> bool {
    line.starts_with("left ")
        || line.starts_with("note: ")
        || line.starts_with("\nAgent-runtime hooks")
}
