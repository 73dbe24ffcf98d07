//! `check --format github`: GitHub Actions workflow commands.

use super::summary::Summary;
use crate::model::diagnostic::Diagnostic;
use crate::model::severity::Severity;
use crate::syntax::sanitize;
use std::fmt::Write as _;

/// GitHub Actions workflow commands, ending with a one-line summary (GitHub
/// shows only a few annotations per step).
pub(crate) fn github(diags: &[Diagnostic], summary: Summary) -> String {
    let mut out = String::new();
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
