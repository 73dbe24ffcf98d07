//! `check --format github`: GitHub Actions workflow commands.

use super::summary::Summary;
use crate::model::diagnostic::Diagnostic;
use crate::model::severity::Severity;
use crate::syntax::sanitize;
use std::fmt::Write as _;

/// The level of a workflow command that is not about a line of a file: a
/// note or warning `check` would print on standard error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    Notice,
    Warning,
    Error,
}

/// GitHub Actions workflow commands: first the `notes` at `level` (titled
/// `memlint`, on no file, so that the Actions page shows them too), then
/// the diagnostics, ending with a one-line summary (GitHub shows only a few
/// annotations per step).
pub(crate) fn github(notes: (Level, &[String]), diags: &[Diagnostic], summary: Summary) -> String {
    let mut out = String::new();
    let (level, notes) = notes;
    let level = match level {
        Level::Notice => "notice",
        Level::Warning => "warning",
        Level::Error => "error",
    };
    for note in notes {
        let _ = writeln!(
            out,
            "::{level} title=memlint::{}",
            sanitize::github_data(note)
        );
    }
    for d in diags {
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(
            out,
            "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            sanitize::github_property(&d.path),
            d.line,
            d.column,
            d.end_line,
            d.end_column,
            sanitize::github_property(d.rule.as_str()),
            sanitize::github_data(&d.message)
        );
    }
    let _ = writeln!(out, "memlint: {}", summary.line());
    out
}
