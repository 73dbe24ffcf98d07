//! `check --format json`.

use super::summary::Summary;
use crate::model::diagnostic::Diagnostic;
use crate::syntax::sanitize;
use serde_json::json;

/// The JSON shape of docs/commands.md.
/// Secrets in messages and paths are masked.
pub(crate) fn json(diags: &[Diagnostic], summary: Summary) -> String {
    let value = json!({
        "version": 1,
        "diagnostics": diags,
        "summary": {"files": summary.files, "errors": summary.errors, "warnings": summary.warnings},
    });
    sanitize::json(&value)
}
