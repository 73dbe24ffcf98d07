//! The engine's diagnostics as LSP diagnostics: the rule name as the code,
//! a link to the rule's section of the rules reference, the severity the
//! configuration gives, the range in UTF-16 positions of the buffer, and
//! the message with any credential masked (as every output of memlint).

use super::documents;
use super::state::State;
use crate::engine::author::verify::Linted;
use crate::model::config::ConfigError;
use crate::model::diagnostic::Diagnostic;
use crate::model::rule::Rule;
use crate::model::severity::Severity;
use lsp_types::{CodeDescription, DiagnosticSeverity, NumberOrString, Position, Range, Uri};
use std::str::FromStr;

/// The source every diagnostic names.
pub(crate) const SOURCE: &str = "memlint";

/// The anchor of `rule`'s heading in the rules reference, as Markdown
/// renderers make it: `status/chain` → `statuschain`.
pub(crate) fn anchor(rule: Rule) -> String {
    rule.as_str()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

/// The link to `rule`'s documentation under `base`.
pub(crate) fn href(base: &str, rule: Rule) -> Option<Uri> {
    Uri::from_str(&format!("{base}#{}", anchor(rule))).ok()
}

/// One engine diagnostic of the buffer `text` as the client shows it.
pub(crate) fn to_lsp(d: &Diagnostic, text: &str, rules_doc: &str) -> lsp_types::Diagnostic {
    let severity = match d.severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
    };
    lsp_types::Diagnostic {
        range: documents::range(text, &d.span),
        severity: Some(severity),
        code: Some(NumberOrString::String(d.rule.as_str().to_string())),
        code_description: href(rules_doc, d.rule).map(|href| CodeDescription { href }),
        source: Some(SOURCE.to_string()),
        message: crate::syntax::sanitize::invisibles(&crate::syntax::sanitize::secrets(&d.message))
            .into_owned(),
        related_information: None,
        tags: None,
        // The code actions find their diagnostic by it.
        data: Some(serde_json::json!({ "rule": d.rule.as_str(), "fixable": d.fixable })),
    }
}

/// The diagnostics of the open buffer `rel` (a record or `CONTEXT.md`),
/// linted with the other open buffers in place of their files.
pub(crate) fn of_buffer(state: &mut State, rel: &str, text: &str) -> Vec<lsp_types::Diagnostic> {
    if !super::state::lintable(&state.ws, rel) {
        return Vec::new();
    }
    let linted = state.lint();
    of_linted(&linted, rel, text, &state.rules_doc)
}

/// The diagnostics of buffer `rel` among those of a lint of every buffer
/// (one lint serves every buffer changed at once).
pub(crate) fn of_linted(
    linted: &Linted,
    rel: &str,
    text: &str,
    rules_doc: &str,
) -> Vec<lsp_types::Diagnostic> {
    linted
        .diagnostics
        .iter()
        .filter(|d| d.path == rel)
        .map(|d| to_lsp(d, text, rules_doc))
        .collect()
}

/// The problems of a configuration that does not load, on `.memlint.yml`
/// (`text` is the file's text, to place them).
pub(crate) fn of_config(errors: &[ConfigError], text: &str) -> Vec<lsp_types::Diagnostic> {
    errors
        .iter()
        .map(|e| {
            let start = config_position(text, e.line, e.column);
            lsp_types::Diagnostic {
                range: Range { start, end: start },
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String("config".into())),
                source: Some(SOURCE.to_string()),
                message: format!(
                    "{} (memlint runs on the default configuration until this is fixed)",
                    crate::syntax::sanitize::invisibles(&crate::syntax::sanitize::secrets(
                        &e.message
                    ))
                ),
                ..Default::default()
            }
        })
        .collect()
}

/// The LSP position of a configuration problem's 1-based line and column
/// (the column counts characters).
fn config_position(text: &str, line: usize, column: usize) -> Position {
    let line = line.max(1) - 1;
    let start = text
        .split_inclusive('\n')
        .take(line)
        .map(str::len)
        .sum::<usize>();
    let line_text = text[start.min(text.len())..]
        .split('\n')
        .next()
        .unwrap_or("");
    let at = line_text
        .char_indices()
        .nth(column.max(1) - 1)
        .map_or(line_text.len(), |(i, _)| i);
    documents::position(text, start + at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_the_headings_of_the_rules_reference() {
        assert_eq!(anchor(Rule::StatusChain), "statuschain");
        assert_eq!(
            anchor(Rule::FrontmatterUnknownKey),
            "frontmatterunknown-key"
        );
    }

    #[test]
    fn config_positions_count_characters() {
        let text = "a: 1\nbé: x\n";
        assert_eq!(config_position(text, 2, 4), Position::new(1, 3));
        assert_eq!(config_position(text, 1, 1), Position::new(0, 0));
        assert_eq!(config_position(text, 9, 9), Position::new(2, 0));
    }
}
