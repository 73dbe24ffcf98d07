//! `memlint import FORMAT PATH…`: flags in, the engine's import, the
//! report out (one line per input item, or JSON). Exit 1 when an item was
//! refused (a secret, errors in its record, unreadable) or changed since
//! its import, else 0.

use super::args::{AuthorFormat, ImportArgs, ImportFormat};
use super::output::write_out;
use super::settings::Settings;
use crate::engine::import::{self, Entry, Format, Options, Outcome, Report};
use crate::engine::workspace::WorkspaceError;
use crate::syntax::sanitize;
use std::process::ExitCode;

/// `memlint import`.
pub(super) fn run(
    s: &Settings,
    args: &ImportArgs,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    let opts = Options {
        dry_run: args.dry_run,
    };
    let today = crate::engine::author::today();
    let report = match import::import(
        &s.workspace,
        format_of(args.source_format),
        &args.paths,
        &opts,
        &today,
        problems,
    ) {
        Ok(r) => r,
        Err(import::ImportError::Workspace(e)) => return Err(e),
        Err(import::ImportError::Write(e)) => {
            errln!("memlint: error: {e}; nothing of this import was written");
            return Ok(super::exit::Outcome::Failed.into());
        }
    };
    write_out(&match args.output {
        AuthorFormat::Json => sanitize::json(&report),
        AuthorFormat::Human => human(&report, s.quiet),
    });
    Ok(match report.summary.refused + report.summary.changed {
        0 => super::exit::Outcome::Clean.into(),
        _ => super::exit::Outcome::Findings.into(),
    })
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Written => "written",
        Outcome::WouldWrite => "would write",
        Outcome::Unchanged => "unchanged",
        Outcome::Changed => "changed",
        Outcome::Skipped => "skipped",
        Outcome::Refused => "refused",
    }
}

/// One line per item (its notes and findings indented under it), then
/// the counts.
fn human(r: &Report, quiet: bool) -> String {
    let mut t = String::new();
    for e in &r.items {
        if quiet
            && matches!(
                e.outcome,
                Outcome::Written | Outcome::Unchanged | Outcome::WouldWrite
            )
        {
            continue;
        }
        t += &entry(e);
    }
    let s = &r.summary;
    let written = match r.dry_run {
        true => "to write",
        false => "written",
    };
    t += &format!(
        "import {}: {} item(s): {} {written}, {} unchanged, {} skipped, {} refused",
        r.format, s.items, s.written, s.unchanged, s.skipped, s.refused
    );
    if s.changed > 0 {
        t += &format!(", {} changed since imported", s.changed);
    }
    if r.dry_run {
        t += " (dry run: nothing written)";
    } else if s.written == 0 {
        t += "; nothing new written";
    }
    t.push('\n');
    t
}

fn entry(e: &Entry) -> String {
    let mut t = format!("{}: {}", sanitize::line(&e.input), outcome_word(e.outcome));
    if let Some(rec) = &e.record {
        t += &format!(" {}", sanitize::line(rec));
    }
    if let Some(why) = &e.reason {
        t += &format!(": {}", sanitize::line(why));
    }
    t.push('\n');
    for n in &e.notes {
        t += &format!("  {}\n", sanitize::line(n));
    }
    for d in &e.diagnostics {
        t += &format!(
            "  {} {} ({}:{}): {}\n",
            d.severity.as_str(),
            d.rule,
            d.line,
            d.column,
            sanitize::line(&d.message)
        );
    }
    t
}

fn format_of(f: ImportFormat) -> Format {
    match f {
        ImportFormat::Claude => Format::Claude,
        ImportFormat::MemoryBank => Format::MemoryBank,
        ImportFormat::BasicMemory => Format::BasicMemory,
        ImportFormat::Beads => Format::Beads,
        ImportFormat::Cursor => Format::Cursor,
        ImportFormat::Kiro => Format::Kiro,
    }
}
