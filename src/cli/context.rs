//! `memlint context [rotate]`: the session-start context.

use super::args::*;
use super::exit::walk_outcome;
use super::output::write_out;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint context [rotate]` (docs/agent-hooks.md).
pub(super) fn run(
    s: &Settings,
    args: &ContextArgs,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    use crate::engine::context as c;
    let env = |name: &str| std::env::var(name).ok();
    if let Some(ContextCommand::Rotate { keep, force }) = &args.command {
        let (keep, warnings) = c::keep_n(*keep, &env);
        for w in warnings {
            errln!("memlint: warning: {w}");
        }
        return match c::rotate(
            &s.workspace.root,
            keep,
            *force,
            s.workspace.config.max_file_bytes,
        ) {
            Ok(done @ c::RotateOutcome::Raced) => {
                if !s.quiet {
                    err!("memlint: note: {}", done.human(super::advice::words));
                }
                Ok(ExitCode::SUCCESS)
            }
            Ok(done) => {
                if !s.quiet {
                    write_out(&done.human(super::advice::words));
                }
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => Err(WorkspaceError::Usage(e.to_string())),
        };
    }
    if c::inject_disabled(&env) {
        return Ok(ExitCode::SUCCESS);
    }
    let flags = c::Flags {
        brief: args.brief,
        no_resident: args.no_resident,
        max_chars: args
            .max_chars
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        blocks: args.blocks,
    };
    let (settings, warnings) = c::Settings::resolve(
        &s.workspace.config.context,
        &flags,
        &env,
        super::advice::words,
    );
    for w in warnings {
        errln!("memlint: warning: {w}");
    }
    let mut material = c::gather(&s.workspace, settings.max_chars);
    problems.append(&mut material.problems);
    write_out(&c::render(&material, &settings));
    Ok(walk_outcome(problems, ExitCode::SUCCESS))
}
