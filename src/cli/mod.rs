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
pub mod progress;
pub mod render;
mod report;
mod report_html;
mod rule;
mod search;
mod server;
mod settings;
mod staging;
mod watch;

pub use args::*;
pub use hook::{hook_usage_note, is_hook_call};
pub use settings::Settings;

use std::process::ExitCode;

/// Runs the parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    let result = match &cli.command {
        Command::Rule { name } => rule::run(name.as_deref()),
        Command::Init(args) => init::run(&cli.global, args),
        Command::Log(args) => Settings::resolve(&cli.global).and_then(|s| log::run(&s, args)),
        Command::Check(args) => Settings::resolve(&cli.global).and_then(|s| check::run(&s, args)),
        Command::Staging(cmd) => Settings::resolve(&cli.global).and_then(|s| staging::run(&s, cmd)),
        Command::Compact(args) => compact::run(&cli.global, &args.command),
        Command::Fmt(args) => fmt::run(&cli.global, args),
        Command::Index => Settings::resolve_workspace(&cli.global).and_then(|s| index::run(&s)),
        Command::Report(args) => Settings::resolve(&cli.global).and_then(|s| report::run(&s, args)),
        Command::Context(args) => {
            Settings::resolve_workspace(&cli.global).and_then(|s| context::run(&s, args))
        }
        Command::Hook(cmd) => Ok(hook::run(&cli.global, cmd)),
        Command::Search(args) => {
            Settings::resolve_workspace(&cli.global).and_then(|s| search::run(&s, args))
        }
        Command::Watch(cmd) => {
            Settings::resolve(&cli.global).and_then(|s| watch::run(&s, &cli.global, cmd))
        }
        Command::New(args) => {
            Settings::resolve_workspace(&cli.global).and_then(|s| author::new(&s, args))
        }
        Command::Replace(args) => {
            Settings::resolve_workspace(&cli.global).and_then(|s| author::replace(&s, args))
        }
        Command::Show(args) => {
            Settings::resolve_workspace(&cli.global).and_then(|s| author::show(&s, args))
        }
        Command::Verify(args) => {
            Settings::resolve_workspace(&cli.global).and_then(|s| author::verify(&s, args))
        }
        Command::Export(args) => {
            Settings::resolve_workspace(&cli.global).and_then(|s| export::run(&s, args))
        }
        Command::Import(args) => {
            Settings::resolve_workspace(&cli.global).and_then(|s| import::run(&s, args))
        }
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
    if let Some(why) = crate::io::cache::refused() {
        errln!("memlint: warning: {why}");
    }
    match result {
        Ok(code) => code,
        Err(e) => {
            // Several problems of a configuration: one line each.
            for line in e.to_string().lines() {
                errln!("memlint: error: {line}");
            }
            exit::Outcome::Failed.into()
        }
    }
}
