//! The rule registry: every rule of SPEC §3 once, with its default severity,
//! whether `check --fix` repairs it, a one-line summary, and how it runs.
//!
//! A rule that looks at one record is a function `fn(&Record, &mut Sink)` in
//! its family's file; adding one is a function, a registry line, a fixture and
//! a test. Rules emitted while reading a file (encoding, delimiters, YAML) are
//! `Check::Reader`; rules over the whole workspace are `Check::Workspace`.

pub mod body;
pub mod context;
pub mod date;
pub mod frontmatter;
pub mod layout;
pub mod secrets;
pub mod session;
pub mod slug;
pub mod sources;
pub mod staging;
pub mod status;
pub mod summary;
pub mod workspace;

use crate::model::config::Config;
use crate::model::diagnostic::Severity;
use crate::model::kind::{FieldType, Kind, Presence};
use crate::syntax::frontmatter::Parts;
use crate::syntax::yaml::{Node, Resolved, Value};
use std::ops::Range;

/// How a rule is run.
#[derive(Clone, Copy)]
pub enum Check {
    /// Emitted by the reader, before or while the front matter is parsed.
    Reader,
    /// Runs on one parsed record.
    Record(fn(&Record, &mut Sink)),
    /// Runs on `CONTEXT.md`.
    Context(fn(&str, &mut Sink)),
    /// Needs every record of the workspace; several rules may share one
    /// function, which then sits on the first of them.
    Workspace(Option<fn(&workspace::View, &mut workspace::WsSink)>),
    /// Needs git history (`check --base`).
    History,
}

/// A rule of the registry.
pub struct Rule {
    pub name: &'static str,
    pub default: Severity,
    pub fixable: bool,
    pub summary: &'static str,
    pub check: Check,
}

const E: Severity = Severity::Error;
const W: Severity = Severity::Warning;

const fn rule(
    name: &'static str,
    default: Severity,
    fixable: bool,
    summary: &'static str,
    check: Check,
) -> Rule {
    Rule {
        name,
        default,
        fixable,
        summary,
        check,
    }
}

use Check::{History, Reader};

/// Every rule, in the order of SPEC §3.
pub static REGISTRY: &[Rule] = &[
    rule(
        "frontmatter/missing",
        E,
        false,
        "a record has no front matter",
        Reader,
    ),
    rule("frontmatter/unclosed", E, false, "no closing `---`", Reader),
    rule(
        "frontmatter/parse",
        E,
        false,
        "the YAML does not parse, or is not a mapping",
        Reader,
    ),
    rule(
        "frontmatter/duplicate-key",
        E,
        false,
        "a key appears twice",
        Check::Record(frontmatter::duplicate_key),
    ),
    rule(
        "frontmatter/hash-in-value",
        W,
        false,
        "an unquoted value is cut short by ` #`",
        Check::Record(frontmatter::hash_in_value),
    ),
    rule(
        "frontmatter/required",
        E,
        false,
        "a required key is missing",
        Check::Record(frontmatter::required),
    ),
    rule(
        "frontmatter/type",
        E,
        false,
        "a value has the wrong type or is outside its enum",
        Check::Record(frontmatter::type_),
    ),
    rule(
        "frontmatter/unknown-key",
        W,
        true,
        "a key the kind does not define",
        Check::Record(frontmatter::unknown_key),
    ),
    rule("format/bom", W, true, "the file starts with a BOM", Reader),
    rule("format/crlf", W, true, "CRLF line endings", Reader),
    rule(
        "format/encoding",
        E,
        false,
        "the file is not valid UTF-8 or contains NUL",
        Reader,
    ),
    rule(
        "format/too-large",
        E,
        false,
        "the file exceeds `max_file_bytes`",
        Reader,
    ),
    rule("slug/format", E, false, "a file stem is not a slug", Reader),
    rule(
        "slug/mismatch",
        E,
        false,
        "a `slug` key differs from the file stem",
        Check::Record(slug::mismatch),
    ),
    rule(
        "slug/similar",
        W,
        false,
        "slugs of the same kind look like near-duplicates",
        Check::Workspace(Some(slug::similar)),
    ),
    rule(
        "sources/missing",
        E,
        false,
        "a kind that requires sources has none",
        Check::Record(sources::missing),
    ),
    rule(
        "sources/format",
        E,
        false,
        "an entry is not a source string",
        Check::Record(sources::format),
    ),
    rule(
        "sources/duplicate",
        W,
        true,
        "the same source entry twice",
        Check::Record(sources::duplicate),
    ),
    rule(
        "sources/too-many",
        W,
        false,
        "more than `max_sources` entries",
        Check::Record(sources::too_many),
    ),
    rule(
        "sources/thin",
        W,
        false,
        "a long body backed by a single source",
        Check::Record(sources::thin),
    ),
    rule(
        "sources/dangling",
        W,
        false,
        "a source points at nothing",
        Check::Workspace(Some(sources::dangling)),
    ),
    rule(
        "status/missing-target",
        E,
        false,
        "`status: replaced` without `replaced_by`",
        Check::Record(status::missing_target),
    ),
    rule(
        "status/target-without-replaced",
        E,
        false,
        "`replaced_by` while status is not `replaced`",
        Check::Record(status::target_without_replaced),
    ),
    rule(
        "status/dangling-target",
        E,
        false,
        "`replaced_by` names no record of the same kind",
        Check::Workspace(Some(status::graph)),
    ),
    rule(
        "status/cycle",
        E,
        false,
        "`replaced_by` leads back to a record already visited",
        Check::Workspace(None),
    ),
    rule(
        "status/chain",
        W,
        true,
        "`replaced_by` points at a record that is itself replaced",
        Check::Workspace(None),
    ),
    rule(
        "date/format",
        E,
        false,
        "a date is not an absolute `YYYY-MM-DD`",
        Check::Record(date::format),
    ),
    rule(
        "date/relative",
        W,
        false,
        "a relative date expression in a title, description or body",
        Check::Record(date::relative),
    ),
    rule(
        "layout/banned-dir",
        E,
        false,
        "a file under a banned directory",
        Reader,
    ),
    rule(
        "layout/unknown-file",
        W,
        false,
        "a file in a memory directory that is no record",
        Reader,
    ),
    rule(
        "body/too-long",
        W,
        false,
        "a body longer than `max_body_chars`",
        Check::Record(body::too_long),
    ),
    rule(
        "secrets/detected",
        E,
        false,
        "something that looks like a credential",
        Check::Record(secrets::detected),
    ),
    rule(
        "summary/too-long",
        W,
        false,
        "the summary exceeds `summary_max_tokens`",
        Check::Record(summary::too_long),
    ),
    rule(
        "staging/id",
        E,
        false,
        "a staging id that does not match its format or file stem",
        Check::Record(staging::id),
    ),
    rule(
        "session/id",
        E,
        false,
        "a session id that does not match its format or file stem",
        Check::Record(session::id),
    ),
    rule(
        "session/sections",
        E,
        false,
        "a section is missing, repeated or out of order",
        Check::Record(session::sections_rule),
    ),
    rule(
        "session/absolute-path",
        E,
        false,
        "a project root or file-list entry is not absolute",
        Check::Record(session::absolute_path),
    ),
    rule(
        "session/plan-source",
        E,
        false,
        "`Execution Plan` lacks a valid `### Source:` line",
        Check::Record(session::plan_source_rule),
    ),
    rule(
        "session/working-files",
        W,
        false,
        "fewer than 3 or more than 8 working files",
        Check::Record(session::working_files),
    ),
    rule(
        "session/decision-reason",
        W,
        false,
        "a `Decisions` entry without `: <reasoning>`",
        Check::Record(session::decision_reason),
    ),
    rule(
        "context/block-date",
        W,
        false,
        "a `CONTEXT.md` block heading without an absolute date",
        Check::Context(context::block_date),
    ),
    rule(
        "history/unexplained-removal",
        E,
        false,
        "a record removed without a `Memlint-GC:` trailer",
        History,
    ),
    rule(
        "history/decision-rewritten",
        W,
        false,
        "an active decision changed in place",
        History,
    ),
];

/// The rule named `name`.
pub fn lookup(name: &str) -> Option<&'static Rule> {
    REGISTRY.iter().find(|r| r.name == name)
}

/// Every rule name.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.name).collect()
}

/// A finding before it is located and given its configured severity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub rule: &'static str,
    pub span: Range<usize>,
    pub message: String,
    /// `--fix` can repair this finding (only ever true for a fixable rule).
    pub fixable: bool,
}

/// Where rules put their findings.
#[derive(Default)]
pub struct Sink {
    pub findings: Vec<Finding>,
}

impl Sink {
    pub fn emit(&mut self, rule: &'static str, span: Range<usize>, message: impl Into<String>) {
        self.emit_fixable(rule, span, message, true);
    }

    /// [`Sink::emit`] for a finding of a fixable rule that `--fix` may not
    /// be able to repair: `fixable` says whether it can.
    pub fn emit_fixable(
        &mut self,
        rule: &'static str,
        span: Range<usize>,
        message: impl Into<String>,
        fixable: bool,
    ) {
        debug_assert!(lookup(rule).is_some(), "unregistered rule {rule}");
        self.findings.push(Finding {
            rule,
            span,
            message: message.into(),
            fixable,
        });
    }
}

/// The state of one defined field after type checking.
#[derive(Debug, Clone, Copy)]
pub enum FieldState<'a> {
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
    pub fn stem(&self) -> &'a str {
        crate::model::kind::stem(self.path)
    }

    /// The words of the literal hints in the whole text.
    pub fn hint_words(&self) -> &crate::syntax::text::HintWords {
        self.hint_words
            .get_or_init(|| crate::syntax::text::HintWords::of(self.text))
    }

    /// The body text.
    pub fn body(&self) -> &'a str {
        &self.text[self.parts.body.clone()]
    }

    /// The body text: the body without the blank lines around it and the
    /// final line break, which are layout, not text.
    pub fn body_text(&self) -> &'a str {
        self.body().trim_matches(['\n', '\r'])
    }

    /// The span of the body text's first line, where findings about the
    /// body point (the closing delimiter when the body is empty).
    pub fn body_span(&self) -> Range<usize> {
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
    pub fn body_chars(&self) -> usize {
        let body = self.body_text();
        let crlf = if body.contains('\r') {
            body.matches("\r\n").count()
        } else {
            0
        };
        body.chars().count() - crlf
    }

    /// The span of the opening delimiter, where "missing key" findings point.
    pub fn opener(&self) -> Range<usize> {
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
    pub fn field(&self, key: &str) -> FieldState<'a> {
        match self.fields().iter().find(|f| f.key == key) {
            None => FieldState::Missing,
            Some(f) if f.problem.is_some() => FieldState::Invalid,
            Some(f) => FieldState::Valid(&f.entry.value),
        }
    }

    /// The entry of field `key` and its problem, when it has one of the
    /// kind `rule` reports (the field must be defined for the kind).
    pub fn problem(
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
    pub fn str_field(&self, key: &str) -> Option<(&'a str, Range<usize>)> {
        match self.field(key) {
            FieldState::Valid(node) => node
                .as_scalar()
                .and_then(|s| s.as_str())
                .map(|s| (s, node.span.clone())),
            _ => None,
        }
    }

    /// The effective status (`active` for knowledge without one).
    pub fn status(&self) -> Option<&'a str> {
        match self.field("status") {
            FieldState::Valid(node) => node.as_scalar().map(|s| s.text.as_str()),
            FieldState::Missing if self.kind == Kind::Knowledge => Some("active"),
            _ => None,
        }
    }
}

/// Which rule reports a problem with a field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemRule {
    Type,
    DateFormat,
    SourcesMissing,
}

/// A problem with a field's value, or `None` when its type is right. Content
/// rules (format of ids, slug mismatch, …) run only on values without one.
pub fn field_problem(
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
                    Some((ProblemRule::DateFormat, span, date::format_message(key, &s.text)))
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
        FieldType::Sources => match &node.value {
            Value::Seq { items, .. } if items.is_empty() => {
                Some((ProblemRule::SourcesMissing, span, format!("`{key}` is an empty list")))
            }
            Value::Seq { items, .. } => {
                for item in items {
                    if item.as_scalar().and_then(|s| s.as_str()).is_none() {
                        return Some((
                            ProblemRule::Type,
                            item.span.clone(),
                            format!("each entry of `{key}` must be a string, not {}", item.type_name()),
                        ));
                    }
                }
                None
            }
            _ if node.is_null() => Some((ProblemRule::SourcesMissing, span, format!("`{key}` is empty"))),
            _ => type_err(format!("`{key}` must be a list of source strings, not {got}")),
        },
        FieldType::Slug => match string {
            Some(s) if key == "slug" || crate::model::kind::is_slug(s) => None,
            Some(s) => type_err(format!(
                "`{key}` is `{s}`, which is not a slug (lowercase letters and digits joined by `-`)"
            )),
            None => type_err(format!("`{key}` must be a slug, not {got}")),
        },
        FieldType::Slugs | FieldType::Strings => match &node.value {
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
                        _ => {}
                    }
                }
                None
            }
            _ => type_err(format!("`{key}` must be a list, not {got}")),
        },
        FieldType::StagingId | FieldType::SessionId | FieldType::AbsolutePath => match string {
            Some(_) => None,
            None => type_err(format!("`{key}` must be a string, not {got}")),
        },
    }
}

/// True when `key` must be present in a record of `kind` with `status`.
pub fn is_required(presence: Presence) -> bool {
    presence == Presence::Required
}
