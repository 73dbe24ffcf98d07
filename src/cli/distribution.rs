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
    if let Err(e) = render_man(&mut page) {
        errln!("memlint: error: cannot render the manual page: {e}");
        return exit::Outcome::Failed.into();
    }
    output::raw(&page);
    exit::Outcome::Clean.into()
}

/// clap_mangen's page, but its SUBCOMMANDS section names each command
/// `memlint check` (and says where its options are) instead of citing a
/// `memlint-check(1)` page that memlint does not ship.
fn render_man(page: &mut Vec<u8>) -> std::io::Result<()> {
    let cmd = Cli::command();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(page)?;
    man.render_name_section(page)?;
    man.render_synopsis_section(page)?;
    man.render_description_section(page)?;
    man.render_options_section(page)?;
    page.extend_from_slice(b".SH SUBCOMMANDS\n");
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        page.extend_from_slice(b".TP\n");
        let name = format!("memlint {}", sub.get_name());
        page.extend_from_slice(format!("\\fB{}\\fR\n", roff_text(&name)).as_bytes());
        if let Some(about) = sub.get_about() {
            for line in about.to_string().lines() {
                page.extend_from_slice(format!("{}\n", roff_text(line)).as_bytes());
            }
        }
    }
    page.extend_from_slice(b".PP\n");
    page.extend_from_slice(
        format!(
            "{}\n",
            roff_text("Each command's own options: memlint COMMAND --help.")
        )
        .as_bytes(),
    );
    man.render_version_section(page)
}

/// `text` as a roff text line: backslashes and hyphens escaped, and a
/// leading `.` or `'` kept from reading as a request.
fn roff_text(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}
