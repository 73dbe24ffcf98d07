//! `check --format sarif`: one SARIF 2.1.0 log.

use super::Level;
use crate::lint::registry::REGISTRY;
use crate::model::diagnostic::Diagnostic;
use crate::syntax::sanitize;
use serde_json::json;
use std::fmt::Write as _;

/// A root-relative path as a URI reference (RFC 3986): every byte but
/// the unreserved characters and `/` percent-encoded, so that a space, a
/// `%` or a non-ASCII letter in a file name gives a valid SARIF `uri`.
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// One SARIF 2.1.0 log; secrets in messages and paths are masked. The
/// `notes` at their level (what `check` says on standard error besides the
/// findings: records `sources/drifted` could not judge, history not
/// judged in a shallow clone) are the run's tool notifications, so that a
/// consumer of the log alone learns them too.
pub(crate) fn sarif(notes: (Level, &[String]), diags: &[Diagnostic]) -> String {
    let rules: Vec<_> = REGISTRY
        .iter()
        .map(|r| {
            json!({
                "id": r.rule.as_str(),
                "name": r.rule.as_str(),
                "shortDescription": {"text": r.rule.summary()},
                "defaultConfiguration": {"level": r.rule.default_severity().as_str()},
                "properties": {"fixable": r.rule.fixable()},
            })
        })
        .collect();
    let results: Vec<_> = diags
        .iter()
        .map(|d| {
            let index = REGISTRY.iter().position(|r| r.rule == d.rule).unwrap_or(0);
            let mut result = json!({
                "ruleId": d.rule,
                "ruleIndex": index,
                "level": d.severity.as_str(),
                "message": {"text": d.message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri_path(&sanitize::secrets(&d.path)), "uriBaseId": "%SRCROOT%"},
                        "region": {
                            "startLine": d.line,
                            "startColumn": d.column,
                            "endLine": d.end_line,
                            "endColumn": d.end_column,
                        }
                    }
                }],
            });
            // The closing entry of a capped list says how many it stands for.
            if d.omitted > 0 {
                result["properties"] = json!({"omitted": d.omitted});
            }
            result
        })
        .collect();
    let mut log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "memlint",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let (level, notes) = notes;
    if !notes.is_empty() {
        let level = match level {
            Level::Notice => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        };
        let notifications: Vec<_> = notes
            .iter()
            .map(|n| json!({"level": level, "message": {"text": n}}))
            .collect();
        log["runs"][0]["invocations"] = json!([{
            "executionSuccessful": true,
            "toolExecutionNotifications": notifications,
        }]);
    }
    sanitize::json(&log)
}
