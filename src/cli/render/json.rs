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
#[cfg(test)]
pub(crate) fn json(diags: &[Diagnostic], summary: Summary) -> String {
    shown_json(diags, summary).0
}

/// [`json`], and whether the text is already what the last pass of the
/// output module would make of it (see [`Prepared::shown`]).
#[cfg(test)]
pub(crate) fn shown_json(diags: &[Diagnostic], summary: Summary) -> (String, bool) {
    let p = prepare(diags);
    (p.text(diags, summary), p.shown)
}

/// The strings of `diags` as JSON writes them, each quoted and checked
/// once (many findings share a message, commit ids, the rule and severity
/// names), the distinct ones on every core (a cold check of 100k records
/// masked 17k distinct paths and messages on one).
pub(crate) fn prepare(diags: &[Diagnostic]) -> Prepared<'_> {
    use rayon::prelude::*;
    let mut seen: crate::model::hashing::Set<&str> = Default::default();
    // A list of commits shared by many findings is looked at once.
    let mut lists: crate::model::hashing::Set<*const String> = Default::default();
    let mut distinct: Vec<&str> = Vec::new();
    for d in diags {
        let named = [&d.message, &d.path].map(String::as_str);
        let names = [d.rule.as_str(), d.severity.as_str()];
        let commits = match d.commits.is_empty() || !lists.insert(d.commits.as_ptr()) {
            true => &[][..],
            false => &d.commits[..],
        };
        for s in commits.iter().map(String::as_str).chain(named).chain(names) {
            if seen.insert(s) {
                distinct.push(s);
            }
        }
    }
    let quoted: Vec<Quoted> = distinct.par_iter().map(|s| Quoted::of(s)).collect();
    Prepared {
        shown: quoted.iter().all(|q| q.shown),
        strings: distinct
            .into_iter()
            .zip(quoted)
            .map(|(s, q)| (s, q.text))
            .collect(),
    }
}

/// What [`prepare`] made of the findings' strings.
pub(crate) struct Prepared<'a> {
    strings: crate::model::hashing::Map<&'a str, String>,
    /// Whether the text is already what the last pass of the output module
    /// would make of it, so that it can be written as it is (11 MB of JSON
    /// for 19.5k findings: that pass was a good part of a warm check). It
    /// is when each distinct string written (every message, path, commit
    /// id, name) is: the rest is memlint's own keys, numbers and
    /// punctuation, and no credential pattern reaches across a string's
    /// quotes (a `key: value` pair needs its `:` or `=`, which no string
    /// here is followed by; the tokens hold no quote or space). Else the
    /// whole text takes that pass, as before.
    pub(crate) shown: bool,
}

/// Most bytes [`Prepared::write`] gathers before handing them on.
const PIECE: usize = 64 << 10;

impl Prepared<'_> {
    /// The whole text.
    pub(crate) fn text(&self, diags: &[Diagnostic], summary: Summary) -> String {
        let mut out = String::with_capacity(diags.len().saturating_mul(640).saturating_add(128));
        self.write(diags, summary, &mut |piece| out.push_str(piece));
        out
    }

    /// The text, handed to `sink` in pieces of about [`PIECE`] bytes: a
    /// check with many findings need not hold its whole output (12.5 MB
    /// reserved for 19.5k findings, fresh memory the kernel must zero).
    pub(crate) fn write(&self, diags: &[Diagnostic], summary: Summary, sink: &mut dyn FnMut(&str)) {
        let q = |s: &str| self.strings.get(s).map_or("\"\"", String::as_str);
        // Each shared list of commits is written out once, then copied.
        let mut lists: crate::model::hashing::Map<*const String, String> = Default::default();
        let mut out = String::with_capacity(PIECE + 4096);
        out.push_str("{\n  \"diagnostics\": [");
        for (i, d) in diags.iter().enumerate() {
            out.push_str(if i == 0 { "\n    {\n" } else { ",\n    {\n" });
            number(&mut out, "column", d.column);
            if !d.commits.is_empty() {
                let list = lists.entry(d.commits.as_ptr()).or_insert_with(|| {
                    let mut list = String::from("      \"commits\": [");
                    for (k, c) in d.commits.iter().enumerate() {
                        list.push_str(if k == 0 { "\n        " } else { ",\n        " });
                        list.push_str(q(c));
                    }
                    list.push_str("\n      ],\n");
                    list
                });
                out.push_str(list);
            }
            number(&mut out, "end_column", d.end_column);
            number(&mut out, "end_line", d.end_line);
            out.push_str(match d.fixable {
                true => "      \"fixable\": true,\n",
                false => "      \"fixable\": false,\n",
            });
            number(&mut out, "line", d.line);
            string(&mut out, "message", q(&d.message));
            if d.omitted > 0 {
                number(&mut out, "omitted", d.omitted);
            }
            string(&mut out, "path", q(&d.path));
            string(&mut out, "rule", q(d.rule.as_str()));
            out.push_str("      \"severity\": ");
            out.push_str(q(d.severity.as_str()));
            out.push_str("\n    }");
            if out.len() >= PIECE {
                sink(&out);
                out.clear();
            }
        }
        out.push_str(if diags.is_empty() { "],\n" } else { "\n  ],\n" });
        let _ = write!(
            out,
            "  \"summary\": {{\n    \"errors\": {},\n    \"files\": {},\n    \"warnings\": {}\n  }},\n  \"version\": 1\n}}\n",
            summary.errors, summary.files, summary.warnings
        );
        sink(&out);
    }
}

/// `      "key": 12,` (the digits without the formatting machinery: a
/// finding writes five numbers).
fn number(out: &mut String, key: &str, n: usize) {
    out.push_str("      \"");
    out.push_str(key);
    out.push_str("\": ");
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
    out.push_str(",\n");
}

/// `      "key": "value",` for a value already [`quoted`].
fn string(out: &mut String, key: &str, quoted: &str) {
    out.push_str("      \"");
    out.push_str(key);
    out.push_str("\": ");
    out.push_str(quoted);
    out.push_str(",\n");
}

/// `s` as a JSON string literal, masked ([`sanitize::json_string`]).
fn quoted(s: &str) -> String {
    sanitize::json_string(s)
}

/// A string as [`quoted`], and whether the last pass of the output leaves
/// the literal as it is.
struct Quoted {
    text: String,
    shown: bool,
}

impl Quoted {
    fn of(s: &str) -> Quoted {
        let text = quoted(s);
        let shown = matches!(
            sanitize::terminal(&text, false),
            std::borrow::Cow::Borrowed(_)
        );
        Quoted { text, shown }
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
            commits: Default::default(),
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
        many[1].commits = ["0123456789abcdef0123456789abcdef01234567".to_string()].into();
        many[2].commits = [
            "a".to_string(),
            "b\"c".to_string(),
            "ghp_cccccccccccccccccccccccccccccccccccc".to_string(),
        ]
        .into();
        // Sharing a list, as the findings of one cited file do.
        many[4].commits = many[2].commits.clone();
        many[2].severity = Severity::Error;
        many[2].fixable = true;
        many[3].omitted = 7;
        many[4].rule = Rule::SecretsDetected;
        assert_eq!(
            json(&many, summary(3, 1, 12)),
            through_value(&many, summary(3, 1, 12))
        );
    }

    #[test]
    fn text_written_as_it_is_is_what_the_last_pass_makes_of_it() {
        let summary = Summary {
            files: 2,
            errors: 0,
            warnings: 2,
        };
        let plain = vec![
            diagnostic("memory/a.md", "plain, with a token word and a key"),
            diagnostic("memory/a.md", "ends with the word password"),
            diagnostic("memory/b.md", "secret"),
        ];
        let (text, shown) = shown_json(&plain, summary);
        assert!(shown);
        assert_eq!(sanitize::terminal(&text, false), text);
        // Each of these holds something the last pass changes: the whole
        // text takes it, as before.
        let tricky = [
            ("memory/a.md", "-----BEGIN PRIVATE KEY-----"),
            (
                "memory/ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.md",
                "plain",
            ),
            ("memory/a.md", "api_key = abcdef0123456789abcdef"),
            ("memory/a.md", "a C1 control \u{85} and DEL \u{7f}"),
            ("memory/a.md", "https://user:hunter2hunter2@example.com"),
            ("memory/a.md", "a right-to-left mark \u{202e}"),
        ];
        for (path, message) in tricky {
            let mut diags = plain.clone();
            diags.push(diagnostic(path, message));
            let (text, shown) = shown_json(&diags, summary);
            let last = sanitize::terminal(&text, false);
            let written = if shown { text.as_str() } else { &last };
            assert_eq!(written, last, "{message}");
            let mut diags = plain.clone();
            diags[0].commits = [message.to_string()].into();
            let (text, shown) = shown_json(&diags, summary);
            let last = sanitize::terminal(&text, false);
            assert_eq!(if shown { text.as_str() } else { &last }, last, "{message}");
        }
    }

    #[test]
    fn the_pieces_make_the_whole_text() {
        let summary = Summary {
            files: 1,
            errors: 0,
            warnings: 400,
        };
        let diags: Vec<Diagnostic> = (0..400)
            .map(|i| {
                diagnostic(
                    &format!("memory/r{}.md", i / 3),
                    &format!("message {}", i % 7),
                )
            })
            .collect();
        let p = prepare(&diags);
        let mut pieces = Vec::new();
        p.write(&diags, summary, &mut |piece| pieces.push(piece.to_string()));
        assert!(pieces.len() > 1, "{}", pieces.len());
        assert!(pieces.iter().all(|p| p.len() < PIECE + 4096));
        assert_eq!(pieces.concat(), json(&diags, summary));
        assert_eq!(json(&diags, summary), through_value(&diags, summary));
    }
}
