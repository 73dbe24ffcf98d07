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
            let (input, text) =
                match read_import_input(args.file.as_deref(), s.workspace.config.max_file_bytes)? {
                    Ok(read) => read,
                    Err(why) => return Ok(super::exit::too_large(&why)),
                };
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
                    err!("{}", render::problems(&done.problems, &input, &done.path));
                    let forced = done.problems.iter().filter(|p| p.blocks()).count();
                    if forced > 0 {
                        errln!("memlint: warning: stored despite {forced} problem(s) (--force)");
                    }
                    write_out(&match args.format {
                        // Quiet: the id alone, for scripts.
                        CompactFormat::Human if s.quiet => format!("{}\n", done.id),
                        CompactFormat::Human => render::imported(done),
                        CompactFormat::Json => render::imported_json(done),
                    });
                }
                Err(c::CompactError::Refused { problems, .. }) => {
                    err!("{}", render::problems(problems, &input, "memory/sessions"));
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
            c::export(&s.workspace.root, id, s.workspace.config.max_file_bytes)
                .map(|bytes| write_out(&String::from_utf8_lossy(&bytes)))
        }
        CompactCommand::List { format } => {
            let s = Settings::resolve(global)?;
            c::list(&s.workspace.root, s.workspace.config.max_file_bytes).map(|listing| {
                for (path, why) in &listing.skipped {
                    errln!(
                        "memlint: warning: {}: skipped: {why}",
                        crate::syntax::sanitize::line(path)
                    );
                }
                match format {
                    CompactFormat::Json => write_out(&render::list_json(&listing.sessions)),
                    CompactFormat::Human if s.quiet && listing.sessions.is_empty() => {}
                    CompactFormat::Human => write_out(&render::list(&listing.sessions)),
                }
            })
        }
    };
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            errln!("memlint: error: {}", super::advice::said(&e, e.advice()));
            Ok(super::exit::compact(&e))
        }
    }
}

/// The text to import and the name problems are reported under: `--file`,
/// or standard input when it is absent or `-`; read no further than `max`
/// bytes (`max_file_bytes`: the stored session could not be larger);
/// `Err(why)` for a longer one.
fn read_import_input(
    file: Option<&std::path::Path>,
    max: u64,
) -> Result<Result<(String, Vec<u8>), String>, WorkspaceError> {
    use crate::io::bounded::read_at_most;
    use crate::io::read::read_capped;
    use crate::model::content::Content;
    let too_large = |from: &str| {
        format!(
            "the session text in {from} has more than {max} bytes (`max_file_bytes`); nothing was stored"
        )
    };
    if let Some(f) = file.filter(|f| f.as_os_str() != "-") {
        // A FIFO is read from standard input (`--file -`) instead: named
        // here it would be opened blind, and could wait for ever.
        let read = read_capped(f, max).map_err(|source| {
            let hint = if source.kind() == std::io::ErrorKind::InvalidInput {
                "; pipe it to standard input instead (`--file -`)"
            } else {
                ""
            };
            WorkspaceError::Usage(format!("cannot read {}: {source}{hint}", f.display()))
        })?;
        return Ok(match read {
            Content::Bytes(text) => Ok((f.display().to_string(), text)),
            Content::TooLarge(_) => Err(too_large(&f.display().to_string())),
        });
    }
    let stdin = std::io::stdin().lock();
    if stdin.is_terminal() {
        errln!("memlint: reading the session text from standard input (end with Ctrl-D)");
    }
    match read_at_most(stdin, max).map_err(|source| WorkspaceError::Io {
        path: "<stdin>".into(),
        source,
    })? {
        Content::Bytes(text) => Ok(Ok(("<stdin>".to_string(), text))),
        Content::TooLarge(_) => Ok(Err(too_large("standard input"))),
    }
}

/// The human and JSON forms of `compact`'s results.
mod render {
    use crate::engine::compact::{Imported, Listed, Location, Problem};
    use crate::model::kind::Kind;
    use serde::Serialize;
    use std::fmt::Write as _;

    /// Problems as `<where>: <severity>[<rule>] <message>` lines; `input` names
    /// the imported text (a file name or `<stdin>`).
    pub(super) fn problems(problems: &[Problem], input: &str, record: &str) -> String {
        let mut out = String::new();
        for p in problems {
            let place = match &p.at {
                Location::Text { line, column } => format!("{input}:{line}:{column}"),
                Location::Description => "--description".to_string(),
                Location::Tags => "--tags".to_string(),
                Location::Record => record.to_string(),
            };
            let _ = writeln!(
                out,
                "{}: {}[{}] {}",
                crate::syntax::sanitize::line(&place),
                p.severity.as_str(),
                p.rule,
                crate::syntax::sanitize::line(&p.message)
            );
        }
        out
    }

    /// The human report of a stored import: a box with the recovery id and the
    /// command that restores it.
    pub(super) fn imported(imported: &Imported) -> String {
        let restore = format!("memlint compact export --id {}", imported.id);
        let lines = [
            "Session memory saved".to_string(),
            String::new(),
            format!("Recovery ID: {}", imported.id),
            format!("Path:        {}", imported.path),
            String::new(),
            "Restore it with:".to_string(),
            format!("  {restore}"),
        ];
        let width = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let mut out = String::new();
        let _ = writeln!(out, "╭{}╮", "─".repeat(width + 2));
        for l in &lines {
            let pad = width - l.chars().count();
            let _ = writeln!(out, "│ {l}{} │", " ".repeat(pad));
        }
        let _ = writeln!(out, "╰{}╯", "─".repeat(width + 2));
        out
    }

    #[derive(Serialize)]
    struct ImportJson<'a> {
        operation: &'static str,
        id: &'a str,
        message: String,
        path: &'a str,
    }

    /// The JSON report of a stored import (docs/commands.md).
    pub(super) fn imported_json(imported: &Imported) -> String {
        let value = ImportJson {
            operation: "import",
            id: &imported.id,
            message: format!("Created memory: {}", imported.id),
            path: &imported.path,
        };
        crate::syntax::sanitize::json(&value)
    }

    /// One line per session, newest first: id, created, description, tags.
    pub(super) fn list(sessions: &[Listed]) -> String {
        if sessions.is_empty() {
            return format!("no session memories in {}\n", Kind::Session.dir());
        }
        let mut out = String::new();
        for s in sessions {
            let mut line = format!("{}  {}", s.id, s.created);
            let description: String = s
                .description
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if !description.is_empty() {
                let _ = write!(line, "  {description}");
            }
            if !s.tags.is_empty() {
                let _ = write!(line, "  [{}]", s.tags.join(", "));
            }
            // Read from files anyone may have written: one line each, secrets
            // masked, control characters as symbols.
            let _ = writeln!(out, "{}", crate::syntax::sanitize::line(line.trim_end()));
        }
        out
    }

    #[derive(Serialize)]
    struct ListJson<'a> {
        sessions: &'a [Listed],
    }

    /// The JSON listing (docs/commands.md): `{"sessions": [{"id", "created",
    /// "description", "path"}]}`, newest first.
    pub(super) fn list_json(sessions: &[Listed]) -> String {
        crate::syntax::sanitize::json(&ListJson { sessions })
    }
}
