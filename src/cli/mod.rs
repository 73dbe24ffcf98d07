//! The command line: clap types (`args`) hold what was typed; `Settings`
//! holds what it means. Nothing below `run` looks at clap types. One file
//! per subcommand: each resolves its settings, calls the engine, renders
//! and picks the exit code.

// First: its macros (`errln!`, `err!`) serve the modules below.
#[macro_use]
pub mod output;

mod advice;
mod args;
mod author;
mod check;
mod compact;
mod context;
mod distribution;
mod exit;
mod export;
mod fmt;
mod hook;
mod import;
mod index;
mod init;
mod log;
mod mcp;
mod mcp_stdio;
mod merge;
pub(crate) mod progress;
pub(crate) mod render;
mod rendered;
mod report;
mod report_html;
mod rule;
mod search;
mod server;
mod settings;
mod staging;
mod tuning;
mod watch;

pub use args::*;
pub use hook::{hook_usage_note, is_hook_call};
pub(crate) use settings::Settings;

use std::process::ExitCode;

/// What a command was given that reading the workspace met
/// (`model::workspace::Problem`): the command adds them as the engine
/// returns them, and reports them itself ([`exit::walk_outcome`]) or
/// leaves them for [`with`].
type Problems = Vec<crate::model::workspace::Problem>;

/// Runs `command` with the settings resolved, then warns about what the
/// command did not report of the problems it was given and the user must
/// still hear: that `.memlint` could keep no cache.
fn with(
    settings: Result<Settings, crate::engine::workspace::WorkspaceError>,
    command: impl FnOnce(
        &Settings,
        &mut Problems,
    ) -> Result<ExitCode, crate::engine::workspace::WorkspaceError>,
) -> Result<ExitCode, crate::engine::workspace::WorkspaceError> {
    let s = settings?;
    let mut problems = Problems::new();
    let result = command(&s, &mut problems);
    exit::cache_problems(problems);
    result
}

/// [`with`] for a command that lints the workspace, tuned for it first
/// ([`tuning::before_lint`]).
fn linting(
    settings: Result<Settings, crate::engine::workspace::WorkspaceError>,
    command: impl FnOnce(
        &Settings,
        &mut Problems,
    ) -> Result<ExitCode, crate::engine::workspace::WorkspaceError>,
) -> Result<ExitCode, crate::engine::workspace::WorkspaceError> {
    with(settings, |s, problems| {
        tuning::before_lint(&s.workspace);
        command(s, problems)
    })
}

/// Runs the parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    let result = match &cli.command {
        Command::Rule { name } => rule::run(name.as_deref()),
        Command::Init(args) => init::run(&cli.global, args),
        Command::Log(args) => with(Settings::resolve(&cli.global), |s, _| log::run(s, args)),
        Command::Check(args) => linting(Settings::resolve(&cli.global), |s, problems| {
            check::run(s, args, problems)
        }),
        Command::Staging(cmd) => with(Settings::resolve(&cli.global), |s, _| staging::run(s, cmd)),
        Command::Compact(args) => compact::run(&cli.global, &args.command),
        Command::Fmt(args) => fmt::run(&cli.global, args),
        Command::Index => linting(Settings::resolve_workspace(&cli.global), |s, problems| {
            index::run(s, problems)
        }),
        Command::Report(args) => linting(Settings::resolve(&cli.global), |s, problems| {
            report::run(s, args, problems)
        }),
        Command::Context(args) => {
            linting(Settings::resolve_workspace(&cli.global), |s, problems| {
                context::run(s, args, problems)
            })
        }
        Command::Hook(cmd) => Ok(hook::run(&cli.global, cmd)),
        Command::Search(args) => {
            linting(Settings::resolve_workspace(&cli.global), |s, problems| {
                search::run(s, args, problems)
            })
        }
        Command::Watch(cmd) => with(Settings::resolve(&cli.global), |s, _| {
            watch::run(s, &cli.global, cmd)
        }),
        Command::New(args) => with(Settings::resolve_workspace(&cli.global), |s, problems| {
            tuning::before_new();
            author::new(s, args, problems)
        }),
        Command::Replace(args) => with(Settings::resolve_workspace(&cli.global), |s, problems| {
            author::replace(s, args, problems)
        }),
        Command::Show(args) => with(Settings::resolve_workspace(&cli.global), |s, problems| {
            author::show(s, args, problems)
        }),
        Command::Verify(args) => with(Settings::resolve_workspace(&cli.global), |s, problems| {
            author::verify(s, args, problems)
        }),
        Command::Export(args) => with(Settings::resolve_workspace(&cli.global), |s, problems| {
            export::run(s, args, problems)
        }),
        Command::Import(args) => with(Settings::resolve_workspace(&cli.global), |s, problems| {
            import::run(s, args, problems)
        }),
        Command::MergeFile(args) => Ok(merge::run(args)),
        Command::Mcp => Ok(mcp::run(mcp::Place {
            root: cli.global.root.clone(),
            config: cli.global.config.clone(),
        })),
        Command::Server => Ok(server::run(server::Place {
            root: cli.global.root.clone(),
            config: cli.global.config.clone(),
        })),
        Command::Completions { shell } => Ok(distribution::completions(*shell)),
        Command::Man => Ok(distribution::man()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // Several problems of a configuration: one line each.
            for line in advice::workspace_error(&e).lines() {
                errln!("memlint: error: {line}");
            }
            exit::Outcome::Failed.into()
        }
    }
}
