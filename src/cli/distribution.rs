//! `memlint completions SHELL` and `memlint man`: the shell completion
//! scripts and the manual page, generated from the clap definitions in
//! `args` so that they list exactly the subcommands, flags and values the
//! binary accepts.

use super::{exit, output, Cli};
use clap::CommandFactory;
use std::process::ExitCode;

/// Writes the completion script for `shell` to standard output.
pub(super) fn completions(shell: clap_complete::Shell) -> ExitCode {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "memlint", &mut script);
    // Byte for byte: the script is generated from our own definitions (no
    // user text to mask), and a shell must read it exactly as written.
    output::raw(&script);
    exit::Outcome::Clean.into()
}

/// Writes the manual page, in roff, to standard output.
pub(super) fn man() -> ExitCode {
    let mut page = Vec::new();
    if let Err(e) = clap_mangen::Man::new(Cli::command()).render(&mut page) {
        errln!("memlint: error: cannot render the manual page: {e}");
        return exit::Outcome::Failed.into();
    }
    output::raw(&page);
    exit::Outcome::Clean.into()
}
