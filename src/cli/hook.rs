//! `memlint hook session-start|post-write|stop`.

use super::args::*;
use std::process::ExitCode;

/// `memlint hook …`: the hooks resolve their own workspace, since a broken
/// one must not make them fail.
pub(super) fn run(global: &GlobalArgs, cmd: &HookCommand) -> ExitCode {
    let place = crate::engine::hook::Place {
        root: global.root.clone(),
        config: global.config.clone(),
    };
    match cmd {
        HookCommand::SessionStart => crate::engine::hook::session_start(&place),
        HookCommand::PostWrite => crate::engine::hook::post_write(&place),
        HookCommand::Stop => crate::engine::hook::stop(&place),
    }
}
