//! Rendering `check` results: human (miette reports), JSON, GitHub workflow
//! commands and SARIF 2.1.0.

use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::REGISTRY;
use crate::sanitize;
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
use serde_json::json;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Totals for the closing line and the JSON summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
}

impl Summary {
    pub fn of(files: usize, diags: &[Diagnostic]) -> Summary {
        Summary {
            files,
            errors: diags
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count(),
            warnings: diags
                .iter()
                .filter(|d| d.severity == Severity::Warning)
                .count(),
        }
    }

    /// `Found 2 errors and 1 warning in 14 files.` / `No problems in 14 files.`
    pub fn line(&self) -> String {
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

#[derive(Debug)]
struct Report<'a> {
    d: &'a Diagnostic,
    source: NamedSource<String>,
}

impl std::fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        Some(Box::new(self.d.rule))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.d
            .fixable
            .then(|| Box::new("`memlint check --fix` repairs this") as Box<dyn std::fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let len = self.d.span.end.saturating_sub(self.d.span.start);
        Some(Box::new(std::iter::once(LabeledSpan::new(
            Some(self.d.rule.to_string()),
            self.d.span.start,
            len,
        ))))
    }
}

/// Human output: one graphical report per diagnostic, then the count line.
/// `sources` maps a path to its text (files with diagnostics only).
pub fn human(
    diags: &[Diagnostic],
    sources: &HashMap<String, String>,
    summary: Summary,
    color: bool,
) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    // The source is named `path:line:column` with the column in characters;
    // miette would append its own byte-based line and column after it.
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_context_lines(1)
        .without_primary_span_start();
    let mut out = String::new();
    // The shown text of the file of the last diagnostic: diagnostics come
    // sorted by path, so each file is prepared once.
    let mut prepared: Option<(&str, String, sanitize::Shift)> = None;
    for d in diags {
        let text = sources.get(&d.path).map_or("", String::as_str);
        let span_ok = d.span.end <= text.len()
            && text.is_char_boundary(d.span.start)
            && text.is_char_boundary(d.span.end);
        if prepared.as_ref().is_none_or(|p| p.0 != d.path) {
            // Secrets are masked in every excerpt of their file (a report
            // of another rule on a nearby line shows them as context), in
            // place so that the spans still point where they did; control
            // characters (an escape sequence in a title, a bell) are shown
            // as symbols, never sent to the terminal.
            let masked = sanitize::secrets_in_place(text);
            let (shown, shift) = sanitize::controls_shifted(&masked, sanitize::Mode::Text);
            prepared = Some((d.path.as_str(), shown.into_owned(), shift));
        }
        let Some((_, text, shift)) = prepared.as_ref() else {
            continue;
        };
        let text = text.clone();
        let shown = Diagnostic {
            path: sanitize::line(&d.path).into_owned(),
            message: sanitize::line(&d.message).into_owned(),
            span: shift.at(d.span.start)..shift.at(d.span.end),
            ..d.clone()
        };
        let d = &shown;
        let report = Report {
            d,
            source: NamedSource::new(
                format!("{}:{}:{}", d.path, d.line, d.column),
                if span_ok { text } else { String::new() },
            ),
        };
        if !span_ok || report.source.inner().is_empty() {
            let _ = writeln!(
                out,
                "{}[{}] {}:{}:{}: {}",
                d.severity.as_str(),
                d.rule,
                d.path,
                d.line,
                d.column,
                d.message
            );
            continue;
        }
        if handler.render_report(&mut out, &report).is_err() {
            let _ = writeln!(
                out,
                "{}[{}] {}: {}",
                d.severity.as_str(),
                d.rule,
                d.path,
                d.message
            );
        }
        out.push('\n');
    }
    out.push_str(&summary.line());
    out.push('\n');
    out
}

/// The JSON shape of SPEC §4.
/// Secrets in messages and paths are masked.
pub fn json(diags: &[Diagnostic], summary: Summary) -> String {
    let value = json!({
        "version": 1,
        "diagnostics": diags,
        "summary": {"files": summary.files, "errors": summary.errors, "warnings": summary.warnings},
    });
    sanitize::json(&value)
}

/// GitHub Actions workflow commands, ending with a one-line summary (GitHub
/// shows only a few annotations per step).
pub fn github(diags: &[Diagnostic], summary: Summary) -> String {
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
            sanitize::github_property(d.rule),
            sanitize::github_data(&d.message)
        );
    }
    let _ = writeln!(out, "memlint: {}", summary.line());
    out
}

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

/// One SARIF 2.1.0 log; secrets in messages and paths are masked.
pub fn sarif(diags: &[Diagnostic]) -> String {
    let rules: Vec<_> = REGISTRY
        .iter()
        .map(|r| {
            json!({
                "id": r.name,
                "name": r.name,
                "shortDescription": {"text": r.summary},
                "defaultConfiguration": {"level": r.default.as_str()},
                "properties": {"fixable": r.fixable},
            })
        })
        .collect();
    let results: Vec<_> = diags
        .iter()
        .map(|d| {
            let index = REGISTRY.iter().position(|r| r.name == d.rule).unwrap_or(0);
            json!({
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
            })
        })
        .collect();
    let log = json!({
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
    sanitize::json(&log)
}
