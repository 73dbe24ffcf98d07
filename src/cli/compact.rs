//! `memlint compact import|export|list|template`.

use super::args::*;
use super::output::write_out;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::io::IsTerminal;
use std::process::ExitCode;

/// `memlint compact …`: `template` needs no workspace; errors are printed here and exit with their own code.
pub(super) fn run(
    global: &GlobalArgs,
    command: &CompactCommand,
) -> Result<ExitCode, WorkspaceError> {
    use crate::engine::compact as c;
    let result = match command {
        // The template needs no workspace.
        CompactCommand::Template => {
            write_out(&c::template());
            Ok(())
        }
        CompactCommand::Import(args) => {
            let s = Settings::resolve(global)?;
            let (input, text) = read_import_input(args.file.as_deref())?;
            let request = c::ImportRequest {
                text: &text,
                description: args.description.as_deref().unwrap_or(""),
                tags: &args.tags,
                force: args.force,
            };
            let now = crate::model::clock::now_secs();
            let imported = c::import(&s.workspace.root, &s.workspace.config, &request, now);
            match &imported {
                Ok(done) => {
                    err!("{}", c::render_problems(&done.problems, &input, &done.path));
                    let forced = done.problems.iter().filter(|p| p.blocks()).count();
                    if forced > 0 {
                        errln!("memlint: warning: stored despite {forced} problem(s) (--force)");
                    }
                    write_out(&match args.format {
                        // Quiet: the id alone, for scripts.
                        CompactFormat::Human if s.quiet => format!("{}\n", done.id),
                        CompactFormat::Human => c::render_imported(done),
                        CompactFormat::Json => c::render_imported_json(done),
                    });
                }
                Err(c::CompactError::Refused { problems, .. }) => {
                    err!(
                        "{}",
                        c::render_problems(problems, &input, "memory/sessions")
                    );
                }
                Err(_) => {}
            }
            imported.map(|_| ())
        }
        CompactCommand::Export { id } => {
            let s = Settings::resolve(global)?;
            // The stored text is printed as it was imported, but for
            // masked secrets and control characters shown as symbols: it
            // goes to a terminal or into an agent's prompt.
            c::export(&s.workspace.root, id)
                .map(|bytes| write_out(&String::from_utf8_lossy(&bytes)))
        }
        CompactCommand::List { format } => {
            let s = Settings::resolve(global)?;
            c::list(&s.workspace.root).map(|listing| {
                for (path, why) in &listing.skipped {
                    errln!(
                        "memlint: warning: {}: skipped: {why}",
                        crate::syntax::sanitize::line(path)
                    );
                }
                match format {
                    CompactFormat::Json => write_out(&c::render_list_json(&listing.sessions)),
                    CompactFormat::Human if s.quiet && listing.sessions.is_empty() => {}
                    CompactFormat::Human => write_out(&c::render_list(&listing.sessions)),
                }
            })
        }
    };
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            errln!("memlint: error: {e}");
            Ok(ExitCode::from(e.exit_code()))
        }
    }
}

/// The text to import and the name problems are reported under: `--file`,
/// or standard input when it is absent or `-`.
fn read_import_input(file: Option<&std::path::Path>) -> Result<(String, Vec<u8>), WorkspaceError> {
    if let Some(f) = file.filter(|f| f.as_os_str() != "-") {
        // A FIFO is read from standard input (`--file -`) instead: named
        // here it would be opened blind, and could wait for ever.
        let text = crate::io::fs::read_regular(f).map_err(|source| {
            let hint = if source.kind() == std::io::ErrorKind::InvalidInput {
                "; pipe it to standard input instead (`--file -`)"
            } else {
                ""
            };
            WorkspaceError::Usage(format!("cannot read {}: {source}{hint}", f.display()))
        })?;
        return Ok((f.display().to_string(), text));
    }
    let mut stdin = std::io::stdin().lock();
    if stdin.is_terminal() {
        errln!("memlint: reading the session text from standard input (end with Ctrl-D)");
    }
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut stdin, &mut text).map_err(|source| WorkspaceError::Io {
        path: "<stdin>".into(),
        source,
    })?;
    Ok(("<stdin>".to_string(), text))
}
