//! `memlint init`: create the workspace layout, and the git and agent hooks.

use super::args::{GlobalArgs, InitArgs};
use super::output;
use super::settings::Settings;
use crate::engine::agents::Agent;
use crate::engine::init::agent_settings::{AgentSettings, MCP_HINT};
use crate::engine::init::files::Report;
use crate::engine::init::hooks::{Hooks, PlanError};
use crate::engine::workspace::WorkspaceError;
use std::path::PathBuf;
use std::process::ExitCode;

/// `memlint init [--hooks [--force]] [--agent-settings [FILE] [--agent NAME…]]`. What was
/// done is printed also when a later step fails.
pub(super) fn run(global: &GlobalArgs, args: &InitArgs) -> Result<ExitCode, WorkspaceError> {
    let root = Settings::resolve_for_init(global)?;
    // `--hooks` is checked first, so that a refusal creates nothing.
    let hooks = match args.hooks {
        true => Some(Hooks::plan(&root, args.force).map_err(|e| match e {
            PlanError::Workspace(e) => e,
            refused => WorkspaceError::Usage(super::advice::said(&refused, refused.advice())),
        })?),
        false => None,
    };
    // Every settings file is planned before anything is written.
    let settings = settings_files(args)?
        .into_iter()
        .map(|(file, agent)| AgentSettings::plan(&root, &file, agent))
        .collect::<Result<Vec<_>, _>>()?;
    let mut report = Report::default();
    let done = crate::engine::init::layout::run(&root, &mut report)
        .and_then(|()| hooks.map_or(Ok(()), |h| h.install(&mut report, super::advice::words)))
        .and_then(|()| {
            if settings.is_empty() {
                return Ok(());
            }
            for s in settings {
                s.write(&mut report)?;
            }
            report.say(MCP_HINT.to_string());
            Ok(())
        })
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

/// The settings files `--agent-settings [FILE] [--agent NAME…]` writes,
/// with the agent whose format each takes: FILE for one agent (Claude Code
/// by default), else each agent's own file.
fn settings_files(args: &InitArgs) -> Result<Vec<(PathBuf, Agent)>, WorkspaceError> {
    let Some(file) = &args.agent_settings else {
        return Ok(Vec::new());
    };
    let mut agents: Vec<Agent> = args.agents.iter().map(|a| a.agent()).collect();
    agents.sort();
    agents.dedup();
    if agents.is_empty() {
        agents.push(Agent::Claude);
    }
    match (file, agents.as_slice()) {
        (Some(file), [agent]) => Ok(vec![(file.clone(), *agent)]),
        (Some(file), _) => Err(WorkspaceError::Usage(format!(
            "--agent-settings {} names one file, for one --agent; leave the file out to write each agent's own settings file",
            file.display()
        ))),
        (None, _) => Ok(agents
            .into_iter()
            .map(|a| (PathBuf::from(a.settings_file()), a))
            .collect()),
    }
}

/// Whether a line of `init`'s report asks the user to do something, which
/// `-q` still prints.
fn asks_for_action(line: &str) -> bool {
    line.starts_with("left ")
        || line.starts_with("note: ")
        || line.starts_with("\nAgent-runtime hooks")
}
