//! Linting one file: text, path and configuration in, diagnostics out. No
//! disk, no terminal. The order of the steps implements docs/rules.md's precedence,
//! so one defect gives one diagnostic.

pub(crate) mod fix;
pub(crate) mod info;
pub(crate) mod record;
pub mod registry;
pub(crate) mod rules;
pub(crate) mod sink;

use crate::model::content::Content;
pub use info::{FileReport, Located, RecordInfo};

use crate::lint::record::{FieldState, Record};
use crate::lint::registry::{Check, REGISTRY};
use crate::lint::rules::layout;
use crate::lint::sink::{Finding, Sink};
use crate::model::config::Config;
use crate::model::diagnostic::{Diagnostic, LineIndex, MAX_PER_RULE};
use crate::model::kind::{Kind, Place};
use crate::model::rule::Rule;
use crate::syntax::frontmatter::{self, Parts, Split};
use crate::syntax::yaml::{self, Resolved};
use std::ops::Range;

/// Lints one file of the workspace. `rel` is root-relative with `/`.
///
/// The reader's steps come first, each stopping at the first defect it
/// finds (docs/rules.md's precedence): the place, the bytes, the front matter's
/// delimiters, its YAML, its mapping; then every per-record rule.
pub(crate) fn lint_file(
    rel: &str,
    place: &Place,
    content: Content<&[u8]>,
    config: &Config,
) -> FileReport {
    let mut sink = Sink::default();
    let mut report = FileReport {
        path: rel.to_string(),
        ..FileReport::default()
    };
    let kind = match place {
        Place::Outside => return report,
        Place::Banned(dir) => {
            layout::banned_dir::check(dir, &mut sink);
            return misplaced(report, content, sink, config);
        }
        Place::Unknown => {
            layout::unknown_file::check(rel, &mut sink);
            return misplaced(report, content, sink, config);
        }
        Place::Context => None,
        Place::Record(kind) => Some(*kind),
    };
    report.info.kind = kind;
    if kind.is_some_and(Kind::has_slug) {
        rules::slug::format::check(crate::model::kind::stem(rel), &mut sink);
    }
    let text = match decode(content, config, &mut sink) {
        Ok(text) => text,
        Err(shown) => return finish(report, &shown, sink, config),
    };
    // Before the front matter is read: markers in it are why it does not
    // parse, and the body's are found whatever the front matter says.
    rules::format::conflict_markers::check(text, &mut sink);
    rules::text::invisible::check(text, &mut sink);
    match kind {
        Some(kind) => lint_record(report, rel, kind, text, sink, config),
        None => lint_context(report, text, sink, config),
    }
}

/// A file where no record belongs (a banned directory, an unknown file
/// under a record directory): committed all the same, so what looks like
/// a credential in its text is reported too; nothing else of it is read.
fn misplaced(
    report: FileReport,
    content: Content<&[u8]>,
    mut sink: Sink,
    config: &Config,
) -> FileReport {
    let text = match content {
        Content::Bytes(b) => std::str::from_utf8(b).ok().filter(|t| !t.contains('\0')),
        Content::TooLarge(_) => None,
    };
    match text {
        Some(text) => {
            rules::secrets::scan(&report.path, text, &config.secrets_allow, &mut sink);
            finish(report, text, sink, config)
        }
        None => finish(report, "", sink, config),
    }
}

/// The file's text, or (after `format/too-large` or `format/encoding`) the
/// text to show with the diagnostics.
fn decode<'a>(
    content: Content<&'a [u8]>,
    config: &Config,
    sink: &mut Sink,
) -> Result<&'a str, String> {
    match content {
        Content::TooLarge(size) => {
            rules::format::too_large::check(size, config.max_file_bytes, sink);
            Err(String::new())
        }
        Content::Bytes(bytes) => rules::format::encoding::check(bytes, sink),
    }
}

/// The front matter's delimiters, or `frontmatter/missing` or
/// `frontmatter/unclosed`.
fn delimiters(text: &str, sink: &mut Sink) -> Option<Parts> {
    match frontmatter::split(text) {
        Split::None(absence) => {
            rules::frontmatter::missing::check(text, &absence, sink);
            None
        }
        Split::Unclosed { opener } => {
            rules::frontmatter::unclosed::check(text, opener, sink);
            None
        }
        Split::Found(parts) => Some(parts),
    }
}

/// `format/bom` and `format/crlf`. On a record they are reported (and
/// fixed) only when its front matter could be read: docs/rules.md's precedence.
fn line_endings(text: &str, sink: &mut Sink) {
    rules::format::bom::check(text, sink);
    rules::format::crlf::check(text, sink);
}

/// `CONTEXT.md`: its own rules, secrets and line endings.
fn lint_context(report: FileReport, text: &str, mut sink: Sink, config: &Config) -> FileReport {
    for rule in REGISTRY {
        if let Check::Context(check) = rule.check {
            check(text, &mut sink);
        }
    }
    rules::secrets::scan(&report.path, text, &config.secrets_allow, &mut sink);
    rules::text::injection::scan(text, 0..text.len(), "`CONTEXT.md`", &mut sink);
    line_endings(text, &mut sink);
    finish(report, text, sink, config)
}

/// A record: its front matter read (or the reader's diagnostic), then
/// every per-record rule.
fn lint_record(
    mut report: FileReport,
    rel: &str,
    kind: Kind,
    text: &str,
    mut sink: Sink,
    config: &Config,
) -> FileReport {
    // A record whose front matter cannot be read gets the reader's
    // diagnostic and no per-record rule, but a credential in it is still
    // reported: it is committed all the same.
    let unread = |report, mut sink: Sink| {
        rules::secrets::scan(rel, text, &config.secrets_allow, &mut sink);
        finish(report, text, sink, config)
    };
    let Some(parts) = delimiters(text, &mut sink) else {
        return unread(report, sink);
    };
    let doc = match yaml::parse(&text[parts.yaml.clone()], parts.yaml.start) {
        Ok(doc) => doc,
        Err(err) => {
            // YAML that runs into the markdown is a missing closing line.
            if !rules::frontmatter::unclosed::runs_into_body(text, &parts, err.at, &mut sink) {
                rules::frontmatter::parse::check(text, &parts, &err, &mut sink);
            }
            return unread(report, sink);
        }
    };
    let Some(root) = rules::frontmatter::parse::mapping(doc.root, &parts, &mut sink) else {
        return unread(report, sink);
    };
    let record = Record {
        path: rel,
        kind,
        text,
        parts: &parts,
        root: &root,
        duplicates: &doc.duplicates,
        config,
        sections: Default::default(),
        fields: Default::default(),
        hint_words: Default::default(),
    };
    line_endings(text, &mut sink);
    for rule in REGISTRY {
        if let Check::Record(check) = rule.check {
            check(&record, &mut sink);
        }
    }
    rules::text::invisible::check_escapes(&record, &mut sink);
    report.info = record_info(&record);
    finish(report, text, sink, config)
}

/// A value of the front matter at `span`, located (line and column).
fn locator<'r>(r: &'r Record) -> impl Fn(&str, Range<usize>) -> Located + 'r {
    // Every located value is in the front matter: index only that part.
    let index = LineIndex::new(&r.text[..r.parts.yaml.end]);
    move |value: &str, span: Range<usize>| {
        let s = index.position(span.start);
        let e = index.position(span.end);
        Located {
            value: value.to_string(),
            span,
            line: s.line,
            column: s.column,
            end_line: e.line,
            end_column: e.column,
        }
    }
}

/// The sources of a record of `kind`, located, exactly as [`lint_file`]
/// reports them in [`RecordInfo::sources`], without running any rule: for
/// reading what many records cite when nothing else of them is wanted.
/// Empty where `lint_file` reads none (text that is not UTF-8, front
/// matter that does not parse).
pub(crate) fn sources_of(
    rel: &str,
    kind: Kind,
    content: Content<&[u8]>,
    config: &Config,
) -> Vec<Located> {
    let mut sink = Sink::default();
    let Ok(text) = decode(content, config, &mut sink) else {
        return Vec::new();
    };
    let Split::Found(parts) = frontmatter::split(text) else {
        return Vec::new();
    };
    let Ok(doc) = yaml::parse(&text[parts.yaml.clone()], parts.yaml.start) else {
        return Vec::new();
    };
    let Some(root) = rules::frontmatter::parse::mapping(doc.root, &parts, &mut sink) else {
        return Vec::new();
    };
    let record = Record {
        path: rel,
        kind,
        text,
        parts: &parts,
        root: &root,
        duplicates: &doc.duplicates,
        config,
        sections: Default::default(),
        fields: Default::default(),
        hint_words: Default::default(),
    };
    let locate = locator(&record);
    rules::sources::entries(&record)
        .into_iter()
        .map(|(v, s)| locate(v, s))
        .collect()
}

fn record_info(r: &Record) -> RecordInfo {
    let locate = locator(r);
    let valid = |key: &str, _: &yaml::Node| matches!(r.field(key), FieldState::Valid(_));
    let p = crate::syntax::fields::project(r.root, r.kind, &valid);
    let owned = |v: &str| v.to_string();
    let (sketch, shingles) = match content_sketch(r, p.status) {
        Some((sketch, shingles)) => (Some(sketch), shingles),
        None => (None, None),
    };
    RecordInfo {
        kind: Some(r.kind),
        title: p.title.map(owned),
        status: p.status.map(owned),
        date: p.date.map(owned),
        replaced_by: r.str_field("replaced_by").map(|(v, s)| locate(v, s)),
        sources: rules::sources::entries(r)
            .into_iter()
            .map(|(v, s)| locate(v, s))
            .collect(),
        description: p.description.map(owned),
        model_invocation: match r.field("model_invocation") {
            FieldState::Valid(node) => match node.as_scalar().map(|s| s.resolve()) {
                Some(Resolved::Bool(b)) => Some(b),
                _ => None,
            },
            _ => None,
        },
        tags: p.tags.into_iter().map(owned).collect(),
        parsed: true,
        sketch,
        shingles,
        may_pin: may_pin(r.text),
    }
}

/// Whether a record's text could hold pins (see `RecordInfo::may_pin`).
fn may_pin(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"pins").is_some() || text.contains('\\')
}

/// The sketch `content/duplicate` compares: title and body of a decision,
/// request or knowledge record that is not replaced.
fn content_sketch(
    r: &Record,
    status: Option<&str>,
) -> Option<(
    crate::syntax::similar::sketch::Sketch,
    Option<crate::syntax::similar::sketch::Shingles>,
)> {
    // Nothing compares the sketches of a workspace where the rule is off,
    // nor those of replaced records (a cold check on 100k records spent
    // most of the rule's time making sketches).
    if !matches!(r.kind, Kind::Decision | Kind::Request | Kind::Knowledge)
        || !r.config.enabled(Rule::ContentDuplicate)
        || status == Some("replaced")
    {
        return None;
    }
    let title = r.str_field("title").map_or("", |(t, _)| t);
    crate::syntax::similar::sketch::Sketch::of_parts(&[title, r.body()])
}

/// Turns findings into located diagnostics with their configured severity.
pub(crate) fn to_diagnostics(
    path: &str,
    text: &str,
    findings: Vec<Finding>,
    config: &Config,
) -> Vec<Diagnostic> {
    if findings.is_empty() {
        return Vec::new();
    }
    let findings = capped(findings);
    let index = LineIndex::new(text);
    let mut out = Vec::with_capacity(findings.len());
    for (f, omitted) in findings {
        let rule = f.rule;
        let Some(severity) = config.severity(rule) else {
            continue;
        };
        let start = index.position(f.span.start);
        let end = index.position(f.span.end.max(f.span.start));
        out.push(Diagnostic {
            rule,
            severity,
            path: path.to_string(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            message: match omitted {
                0 => f.message,
                n => crate::model::diagnostic::omitted_message(rule, n),
            },
            fixable: rule.fixable() && f.fixable,
            span: f.span,
            omitted,
            commits: Default::default(),
        });
    }
    out
}

/// The first [`MAX_PER_RULE`] findings of each rule by position, and for a
/// rule with more, its next finding standing for all the rest (with their
/// count): what is listed never grows with the file, and locating each
/// finding (a scan of its line) stays cheap.
fn capped(findings: Vec<Finding>) -> Vec<(Finding, usize)> {
    let mut counts: Vec<(Rule, usize)> = Vec::new();
    for f in &findings {
        match counts.iter_mut().find(|c| c.0 == f.rule) {
            Some(c) => c.1 += 1,
            None => counts.push((f.rule, 1)),
        }
    }
    if counts.iter().all(|c| c.1 <= MAX_PER_RULE) {
        return findings.into_iter().map(|f| (f, 0)).collect();
    }
    let mut findings = findings;
    findings.sort_by(|a, b| {
        (a.rule, a.span.start, a.span.end).cmp(&(b.rule, b.span.start, b.span.end))
    });
    let mut out: Vec<(Finding, usize)> = Vec::new();
    let mut listed = 0;
    for f in findings {
        let same = out.last().is_some_and(|(last, _)| last.rule == f.rule);
        if !same {
            listed = 0;
        }
        match out.last_mut() {
            Some((_, omitted)) if same && *omitted > 0 => *omitted += 1,
            _ if listed < MAX_PER_RULE => {
                listed += 1;
                out.push((f, 0));
            }
            _ => out.push((f, 1)),
        }
    }
    out
}

fn finish(mut report: FileReport, text: &str, sink: Sink, config: &Config) -> FileReport {
    report.diagnostics = to_diagnostics(&report.path, text, sink.findings, config);
    if !report.diagnostics.is_empty() {
        report.source = Some(text.to_string());
    }
    report
}
