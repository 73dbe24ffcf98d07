//! `memlint fmt`: rewrite records into canonical form, or check or diff them.

use super::args::*;
use super::exit::walk_outcome;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint fmt`: formats the given paths (or standard input as `--stdin-filepath`).
pub(super) fn run(global: &GlobalArgs, args: &FmtArgs) -> Result<ExitCode, WorkspaceError> {
    if let Some(path) = &args.stdin_filepath {
        return crate::engine::fmt::stdin(global.root.as_deref(), global.config.as_deref(), path);
    }
    let s = Settings::resolve(global)?;
    let options = crate::engine::fmt::Options {
        paths: args.paths.clone(),
        check: args.check,
        diff: args.diff,
        quiet: s.quiet,
    };
    crate::engine::fmt::run(&s.workspace, &options).map(|code| walk_outcome(&s.workspace, code))
}
