//! The totals of a `check`, shared by every output format.

use crate::model::diagnostic::Diagnostic;
use crate::model::severity::Severity;

/// Totals for the closing line and the JSON summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    /// Files linted.
    pub files: usize,
    /// Errors, capped lists counted whole.
    pub errors: usize,
    /// Warnings, capped lists counted whole.
    pub warnings: usize,
}

impl Summary {
    /// The totals of `diags`: every finding, those a capped list leaves
    /// out included ([`Diagnostic::count`]).
    pub(crate) fn of(files: usize, diags: &[Diagnostic]) -> Summary {
        let total = |severity: Severity| {
            diags
                .iter()
                .filter(|d| d.severity == severity)
                .map(Diagnostic::count)
                .sum()
        };
        Summary {
            files,
            errors: total(Severity::Error),
            warnings: total(Severity::Warning),
        }
    }

    /// `Found 2 errors and 1 warning in 14 files.` / `No problems in 14 files.`
    pub(crate) fn line(&self) -> String {
        let files = plural(self.files, "file");
        if self.errors == 0 && self.warnings == 0 {
            return format!("No problems in {files}.");
        }
        format!(
            "Found {} and {} in {files}.",
            plural(self.errors, "error"),
            plural(self.warnings, "warning")
        )
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
