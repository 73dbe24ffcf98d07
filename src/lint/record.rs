//! A parsed record as per-record rules see it, and the type checks of its
//! defined fields (done once, shared by every rule that asks).

use crate::model::config::Config;
use crate::model::kind::{FieldType, Kind, Presence};
use crate::syntax::frontmatter::Parts;
use crate::syntax::text::find_relative;
use crate::syntax::yaml::{Node, Resolved, Value};
use std::ops::Range;

/// The state of one defined field after type checking.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FieldState<'a> {
    Missing,
    /// Present, but its type was reported (by `frontmatter/type`,
    /// `date/format` or `sources/missing`): content rules leave it alone.
    Invalid,
    Valid(&'a Node),
}

/// A record whose front matter parsed into a mapping: what per-record rules see.
pub struct Record<'a> {
    /// Root-relative path with `/` separators.
    pub path: &'a str,
    pub kind: Kind,
    /// The whole file text.
    pub text: &'a str,
    pub parts: &'a Parts,
    /// The front-matter mapping.
    pub root: &'a Node,
    pub duplicates: &'a [crate::syntax::yaml::DuplicateKey],
    pub config: &'a Config,
    /// The body's session sections, found once for the `session/*` rules.
    pub sections: std::cell::OnceCell<Vec<crate::syntax::session::Section>>,
    /// Every defined field present, type-checked once (many rules ask for
    /// the same fields).
    pub fields: std::cell::OnceCell<Vec<Field<'a>>>,
    /// The words of the text's literal hints, found once for the rules
    /// that need them.
    pub hint_words: std::cell::OnceCell<crate::syntax::text::HintWords>,
}

/// A defined field present in a record's front matter (the first, when the
/// key is repeated), and its problem, as [`field_problem`] finds it.
pub struct Field<'a> {
    key: &'a str,
    entry: &'a crate::syntax::yaml::Entry,
    problem: Option<(ProblemRule, Range<usize>, String)>,
}

impl<'a> Record<'a> {
    /// The file stem.
    pub(crate) fn stem(&self) -> &'a str {
        crate::model::kind::stem(self.path)
    }

    /// The words of the literal hints in the whole text.
    pub(crate) fn hint_words(&self) -> &crate::syntax::text::HintWords {
        self.hint_words
            .get_or_init(|| crate::syntax::text::HintWords::of(self.text))
    }

    /// The body text.
    pub(crate) fn body(&self) -> &'a str {
        &self.text[self.parts.body.clone()]
    }

    /// The body text: the body without the blank lines around it and the
    /// final line break, which are layout, not text.
    pub(crate) fn body_text(&self) -> &'a str {
        self.body().trim_matches(['\n', '\r'])
    }

    /// The span of the body text's first line, where findings about the
    /// body point (the closing delimiter when the body is empty).
    pub(crate) fn body_span(&self) -> Range<usize> {
        let text = self.body_text();
        if text.is_empty() {
            return self.parts.closer.clone();
        }
        // `text` is a slice of the body: its offset is the leading breaks.
        let lead = self.body().len() - self.body().trim_start_matches(['\n', '\r']).len();
        let start = self.parts.body.start + lead;
        let line = text.find(['\n', '\r']).unwrap_or(text.len());
        start..start + line
    }

    /// The body text's length in characters, CRLF counted as one.
    pub(crate) fn body_chars(&self) -> usize {
        let body = self.body_text();
        let crlf = if body.contains('\r') {
            body.matches("\r\n").count()
        } else {
            0
        };
        body.chars().count() - crlf
    }

    /// The span of the opening delimiter, where "missing key" findings point.
    pub(crate) fn opener(&self) -> Range<usize> {
        self.parts.opener.clone()
    }

    /// The defined fields present, each type-checked.
    fn fields(&self) -> &[Field<'a>] {
        self.fields.get_or_init(|| {
            let mut fields: Vec<Field<'a>> = Vec::new();
            let root: &'a Node = self.root;
            for entry in root.entries().unwrap_or_default() {
                let Some(key) = entry.key.as_scalar().map(|k| k.text.as_str()) else {
                    continue;
                };
                // The first of duplicate keys counts, as in `Node::get`.
                if fields.iter().any(|f| f.key == key) {
                    continue;
                }
                let Some(def) = self.kind.field(key) else {
                    continue;
                };
                fields.push(Field {
                    key,
                    entry,
                    problem: field_problem(def.ty, key, &entry.value),
                });
            }
            fields
        })
    }

    /// The state of field `key` (which must be defined for the kind).
    pub(crate) fn field(&self, key: &str) -> FieldState<'a> {
        match self.fields().iter().find(|f| f.key == key) {
            None => FieldState::Missing,
            Some(f) if f.problem.is_some() => FieldState::Invalid,
            Some(f) => FieldState::Valid(&f.entry.value),
        }
    }

    /// The entry of field `key` and its problem, when it has one of the
    /// kind `rule` reports (the field must be defined for the kind).
    pub(crate) fn problem(
        &self,
        key: &str,
        rule: ProblemRule,
    ) -> Option<(&'a crate::syntax::yaml::Entry, Range<usize>, &str)> {
        let f = self.fields().iter().find(|f| f.key == key)?;
        match &f.problem {
            Some((r, span, message)) if *r == rule => Some((f.entry, span.clone(), message)),
            _ => None,
        }
    }

    /// The valid string value of `key`, with its span.
    pub(crate) fn str_field(&self, key: &str) -> Option<(&'a str, Range<usize>)> {
        match self.field(key) {
            FieldState::Valid(node) => node
                .as_scalar()
                .and_then(|s| s.as_str())
                .map(|s| (s, node.span.clone())),
            _ => None,
        }
    }

    /// The effective status (the model's default when absent: `active`
    /// for knowledge).
    pub(crate) fn status(&self) -> Option<&'a str> {
        match self.field("status") {
            FieldState::Valid(node) => node.as_scalar().map(|s| s.text.as_str()),
            FieldState::Missing => self.kind.field("status").and_then(|f| f.default),
            _ => None,
        }
    }
}

/// Whether `node` is a valid value of field `key` of a record of `kind`
/// (defined for the kind, and [`field_problem`] finds nothing): the type
/// check the shared field projection (`syntax::fields`) reads through.
pub(crate) fn valid_value(kind: Kind, key: &str, node: &Node) -> bool {
    kind.field(key)
        .is_some_and(|def| field_problem(def.ty, key, node).is_none())
}

/// Which rule reports a problem with a field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProblemRule {
    Type,
    DateFormat,
    SourcesMissing,
}

/// A problem with a field's value, or `None` when its type is right. Content
/// rules (format of ids, slug mismatch, …) run only on values without one.
pub(crate) fn field_problem(
    ty: FieldType,
    key: &str,
    node: &Node,
) -> Option<(ProblemRule, Range<usize>, String)> {
    let span = node.span.clone();
    let type_err = |msg: String| Some((ProblemRule::Type, span.clone(), msg));
    let got = node.type_name();
    let string = node.as_scalar().and_then(|s| s.as_str());
    match ty {
        FieldType::Text { min, max } | FieldType::Line { min, max } => {
            let Some(s) = string else {
                return type_err(format!("`{key}` must be a string, not {got}"));
            };
            let n = s.chars().count();
            if n < min {
                return type_err(format!("`{key}` must not be empty"));
            }
            if n > max {
                return type_err(format!("`{key}` is {n} characters long; at most {max} are allowed"));
            }
            if matches!(ty, FieldType::Line { .. }) && s.trim_end_matches('\n').contains('\n') {
                return type_err(format!("`{key}` must be a single line"));
            }
            None
        }
        FieldType::Enum(words) => match string {
            Some(s) if words.contains(&s) => None,
            Some(s) => {
                let hint = crate::syntax::text::closest(s, words, 0.6)
                    .map(|w| format!(" (did you mean `{w}`?)"))
                    .unwrap_or_default();
                type_err(format!(
                    "`{key}` is `{s}`, which is not one of {}{hint}",
                    words.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", ")
                ))
            }
            None => type_err(format!(
                "`{key}` must be one of {}, not {got}",
                words.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", ")
            )),
        },
        FieldType::Date => match &node.value {
            Value::Scalar(s) => {
                if s.resolve() == Resolved::Str && crate::model::kind::is_date(&s.text) {
                    None
                } else {
                    Some((ProblemRule::DateFormat, span, date_format_message(key, &s.text)))
                }
            }
            _ => type_err(format!("`{key}` must be a date (YYYY-MM-DD), not {got}")),
        },
        FieldType::Timestamp => match string {
            Some(s) if crate::model::kind::is_timestamp(s) => None,
            Some(s) => type_err(format!(
                "`{key}` is `{s}`, which is not an RFC 3339 timestamp with offset (e.g. 2026-11-01T09:30:00Z)"
            )),
            None => type_err(format!("`{key}` must be an RFC 3339 timestamp, not {got}")),
        },
        FieldType::Bool => match node.as_scalar().map(|s| s.resolve()) {
            Some(Resolved::Bool(_)) => None,
            _ => {
                let written = node.as_scalar().map(|s| s.text.as_str()).unwrap_or("");
                type_err(format!(
                    "`{key}` must be `true` or `false`, not {got}{}",
                    if written.is_empty() { String::new() } else { format!(" `{written}`") }
                ))
            }
        },
        FieldType::Sources => sources_problem(key, node),
        FieldType::Slug => match string {
            Some(s) if key == "slug" || crate::model::kind::is_slug(s) => None,
            Some(s) => type_err(format!(
                "`{key}` is `{s}`, which is not a slug (lowercase letters and digits joined by `-`)"
            )),
            None => type_err(format!("`{key}` must be a slug, not {got}")),
        },
        FieldType::Slugs | FieldType::Strings | FieldType::Pins => list_problem(ty, key, node),
        FieldType::StagingId | FieldType::SessionId | FieldType::AbsolutePath => match string {
            Some(_) => None,
            None => type_err(format!("`{key}` must be a string, not {got}")),
        },
    }
}

/// [`field_problem`] for `sources`: a non-empty list of strings.
fn sources_problem(key: &str, node: &Node) -> Option<(ProblemRule, Range<usize>, String)> {
    let span = node.span.clone();
    let got = node.type_name();
    let type_err = |msg: String| Some((ProblemRule::Type, span.clone(), msg));
    match &node.value {
        Value::Seq { items, .. } if items.is_empty() => Some((
            ProblemRule::SourcesMissing,
            span,
            format!("`{key}` is an empty list"),
        )),
        Value::Seq { items, .. } => {
            for item in items {
                if item.as_scalar().and_then(|s| s.as_str()).is_none() {
                    return Some((
                        ProblemRule::Type,
                        item.span.clone(),
                        format!(
                            "each entry of `{key}` must be a string, not {}",
                            item.type_name()
                        ),
                    ));
                }
            }
            None
        }
        _ if node.is_null() => Some((
            ProblemRule::SourcesMissing,
            span,
            format!("`{key}` is empty"),
        )),
        _ => type_err(format!(
            "`{key}` must be a list of source strings, not {got}"
        )),
    }
}

/// [`field_problem`] for a list of slugs or of strings.
fn list_problem(
    ty: FieldType,
    key: &str,
    node: &Node,
) -> Option<(ProblemRule, Range<usize>, String)> {
    let got = node.type_name();
    let type_err = |msg: String| Some((ProblemRule::Type, node.span.clone(), msg));
    match &node.value {
        Value::Seq { items, .. } => {
            for item in items {
                match item.as_scalar().and_then(|s| s.as_str()) {
                    None => {
                        return Some((
                            ProblemRule::Type,
                            item.span.clone(),
                            format!("each entry of `{key}` must be a string, not {}", item.type_name()),
                        ))
                    }
                    Some(s) if ty == FieldType::Slugs && !crate::model::kind::is_slug(s) => {
                        return Some((
                            ProblemRule::Type,
                            item.span.clone(),
                            format!("`{key}` entry `{s}` is not a slug (lowercase letters and digits joined by `-`)"),
                        ))
                    }
                    Some(s) if ty == FieldType::Pins && crate::model::kind::split_pin(s).is_none() => {
                        return Some((
                            ProblemRule::Type,
                            item.span.clone(),
                            format!("`{key}` entry `{s}` is not a pin (`file:<path> xxh3:<16 hex digits>`, as `memlint verify` writes it)"),
                        ))
                    }
                    _ => {}
                }
            }
            None
        }
        _ => type_err(format!("`{key}` must be a list, not {got}")),
    }
}

/// True when `key` must be present in a record of `kind` with `status`.
pub(crate) fn is_required(presence: Presence) -> bool {
    presence == Presence::Required
}

/// The message for a date field that is not `YYYY-MM-DD`.
fn date_format_message(key: &str, value: &str) -> String {
    if value.trim().is_empty() {
        return format!("`{key}` is empty; write an absolute date (YYYY-MM-DD)");
    }
    if !find_relative(value).is_empty() || value.ends_with("ago") {
        return format!(
            "`{key}` is `{value}`, a relative date; write the absolute date it meant (YYYY-MM-DD)"
        );
    }
    format!("`{key}` is `{value}`, which is not a valid date of the form YYYY-MM-DD")
}
