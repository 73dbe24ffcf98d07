//! `memlint init`: create the workspace layout, and the git and agent hooks.

use super::args::*;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint init [--hooks [--force]] [--agent-settings [FILE]]`.
pub(super) fn run(global: &GlobalArgs, args: &InitArgs) -> Result<ExitCode, WorkspaceError> {
    let root = Settings::resolve_for_init(global)?;
    // `--hooks` is checked first, so that a refusal creates nothing.
    let hooks = match args.hooks {
        true => Some(crate::engine::init::Hooks::plan(&root, args.force)?),
        false => None,
    };
    let settings = args
        .agent_settings
        .as_deref()
        .map(|file| crate::engine::init::AgentSettings::plan(&root, file))
        .transpose()?;
    let mut code = crate::engine::init::run(&root)?;
    if let Some(hooks) = hooks {
        code = hooks.install()?;
    }
    if let Some(settings) = settings {
        code = settings.write()?;
    }
    Ok(code)
}
