//! What an import reports: one entry per input item and what became of
//! it, the counts, and why an import could not run at all.

use crate::engine::author::AuthorError;
use crate::engine::workspace::WorkspaceError;
use crate::model::diagnostic::Diagnostic;
use serde::Serialize;

/// How an import may run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// Plan only: nothing is written.
    pub dry_run: bool,
}

/// What became of one input item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Outcome {
    /// Its record (or block) was written.
    Written,
    /// `--dry-run`: its record would be written.
    WouldWrite,
    /// An earlier import wrote its record already.
    Unchanged,
    /// An earlier import wrote its record, and the source no longer gives
    /// that record (changed since, or the record was edited): not
    /// imported again, so that nothing of either is lost.
    Changed,
    /// Not imported, by design (an index, a deleted issue, a file that is
    /// not of the format): the reason says which.
    Skipped,
    /// Not imported because of a problem with it (a secret, errors the
    /// rules found, unreadable, too large, a link out of the root).
    Refused,
}

/// One line of the report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Entry {
    /// The input item: its root-relative path, or `path#id` for an issue.
    pub input: String,
    pub outcome: Outcome,
    /// The record it became (root-relative path), or `CONTEXT.md`.
    pub record: Option<String>,
    /// The record's kind, or `context` for a `CONTEXT.md` block.
    pub kind: Option<String>,
    pub date: Option<String>,
    /// Where the date came from: `source`, `git` or `today`.
    pub date_from: Option<String>,
    /// Why it was skipped or refused.
    pub reason: Option<String>,
    /// What else the report says of it.
    pub notes: Vec<String>,
    /// What the rules found in its record (warnings on a written one,
    /// the errors that refused it).
    pub diagnostics: Vec<Diagnostic>,
}

/// Counts over the report.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Summary {
    pub items: usize,
    /// Written (with `--dry-run`: to be written).
    pub written: usize,
    pub unchanged: usize,
    pub changed: usize,
    pub skipped: usize,
    pub refused: usize,
}

/// The report of an import.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    pub format: &'static str,
    pub dry_run: bool,
    pub items: Vec<Entry>,
    pub summary: Summary,
}

/// Why an import could not run at all.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ImportError {
    /// A path given is outside the root, or does not exist (exit 2).
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// Writing failed; what was written of this run was put back.
    #[error(transparent)]
    Write(#[from] AuthorError),
}
