//! `check --format json`.

use super::summary::Summary;
use crate::model::diagnostic::Diagnostic;
use crate::syntax::sanitize;
use std::fmt::Write as _;

/// The JSON shape of docs/commands.md: pretty-printed, two spaces a level,
/// each object's keys in alphabetical order. Secrets in messages and paths
/// are masked.
///
/// Written directly, not through a `serde_json::Value` (a tree of maps
/// for every finding, then a pass over the whole text to mask its
/// strings): a check with tens of thousands of findings spent more time
/// there than in everything else it does warm. The output is the same, byte
/// for byte (see the tests).
pub(crate) fn json(diags: &[Diagnostic], summary: Summary) -> String {
    let mut out = String::with_capacity(diags.len().saturating_mul(640).saturating_add(128));
    let mut strings = Strings::default();
    // The last path masked: the findings are sorted by path, and a record
    // drawing several (a drifted record cites several files) repeats it.
    let mut path: Option<(&str, String)> = None;
    out.push_str("{\n  \"diagnostics\": [");
    for (i, d) in diags.iter().enumerate() {
        out.push_str(if i == 0 { "\n    {\n" } else { ",\n    {\n" });
        number(&mut out, "column", d.column);
        if !d.commits.is_empty() {
            out.push_str("      \"commits\": [");
            for (k, c) in d.commits.iter().enumerate() {
                out.push_str(if k == 0 { "\n        " } else { ",\n        " });
                out.push_str(strings.of(c));
            }
            out.push_str("\n      ],\n");
        }
        number(&mut out, "end_column", d.end_column);
        number(&mut out, "end_line", d.end_line);
        let _ = writeln!(out, "      \"fixable\": {},", d.fixable);
        number(&mut out, "line", d.line);
        string(&mut out, "message", strings.of(&d.message));
        if d.omitted > 0 {
            number(&mut out, "omitted", d.omitted);
        }
        // Paths are repeated only by neighbours: masked as they come.
        let shown = match &path {
            Some((p, q)) if *p == d.path => q,
            _ => &path.insert((&d.path, quoted(&d.path))).1,
        };
        string(&mut out, "path", shown);
        string(&mut out, "rule", strings.of(d.rule.as_str()));
        out.push_str("      \"severity\": ");
        out.push_str(strings.of(d.severity.as_str()));
        out.push_str("\n    }");
    }
    out.push_str(if diags.is_empty() { "],\n" } else { "\n  ],\n" });
    let _ = write!(
        out,
        "  \"summary\": {{\n    \"errors\": {},\n    \"files\": {},\n    \"warnings\": {}\n  }},\n  \"version\": 1\n}}\n",
        summary.errors, summary.files, summary.warnings
    );
    out
}

/// `      "key": 12,`
fn number(out: &mut String, key: &str, n: usize) {
    let _ = writeln!(out, "      \"{key}\": {n},");
}

/// `      "key": "value",` for a value already [`quoted`].
fn string(out: &mut String, key: &str, quoted: &str) {
    let _ = writeln!(out, "      \"{key}\": {quoted},");
}

/// `s` as a JSON string literal, masked ([`sanitize::json_string`]).
fn quoted(s: &str) -> String {
    sanitize::json_string(s)
}

/// The [`quoted`] form of each string once: many findings share a
/// message, commit ids, the rule and severity names.
#[derive(Default)]
struct Strings<'a> {
    seen: crate::model::hashing::Map<&'a str, String>,
}

impl<'a> Strings<'a> {
    fn of(&mut self, s: &'a str) -> &str {
        self.seen.entry(s).or_insert_with(|| quoted(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::rule::Rule;
    use crate::model::severity::Severity;

    /// How the output was made before: a `serde_json::Value`, printed
    /// pretty, its strings masked.
    fn through_value(diags: &[Diagnostic], summary: Summary) -> String {
        let value = serde_json::json!({
            "version": 1,
            "diagnostics": diags,
            "summary": {"files": summary.files, "errors": summary.errors, "warnings": summary.warnings},
        });
        sanitize::json(&value)
    }

    fn diagnostic(path: &str, message: &str) -> Diagnostic {
        Diagnostic {
            rule: Rule::SourcesDrifted,
            severity: Severity::Warning,
            path: path.into(),
            line: 3,
            column: 5,
            end_line: 4,
            end_column: 17,
            message: message.into(),
            fixable: false,
            span: 0..1,
            omitted: 0,
            commits: Vec::new(),
        }
    }

    #[test]
    fn the_same_bytes_as_through_a_json_value() {
        let summary = |files, errors, warnings| Summary {
            files,
            errors,
            warnings,
        };
        assert_eq!(
            json(&[], summary(0, 0, 0)),
            through_value(&[], summary(0, 0, 0))
        );
        let mut many = vec![
            diagnostic("memory/a.md", "plain"),
            diagnostic("memory/a.md", "plain"),
            diagnostic(
                "knowledge/ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.md",
                "token ghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb and \"quoted\" \\ \u{1b}[31m\ttab\nline",
            ),
            diagnostic("memory/é ü.md", "password: \"hunter2hunter2\" … ✓ \u{202e}"),
            diagnostic("\u{fe0f}memory/c.md", "\u{fe0f}starts, ❤\u{fe0f}, 👩\u{200d}💻, ends\u{fe0f}"),
            diagnostic("memory/b.md", "AKIAIOSFODNN7EXAMPLE in `key=abcdefabcdef0123456789`"),
        ];
        many[1].commits = vec!["0123456789abcdef0123456789abcdef01234567".into()];
        many[2].commits = vec![
            "a".into(),
            "b\"c".into(),
            "ghp_cccccccccccccccccccccccccccccccccccc".into(),
        ];
        many[2].severity = Severity::Error;
        many[2].fixable = true;
        many[3].omitted = 7;
        many[4].rule = Rule::SecretsDetected;
        assert_eq!(
            json(&many, summary(3, 1, 12)),
            through_value(&many, summary(3, 1, 12))
        );
    }
}
