//! Linting one file: text, path and configuration in, diagnostics out. No
//! disk, no terminal. The order of the steps implements docs/rules.md's precedence,
//! so one defect gives one diagnostic.

pub mod fix;
pub mod info;
pub mod record;
pub mod registry;
pub mod rules;
pub mod sink;

pub use info::{Content, FileReport, Located, RecordInfo};

use crate::lint::record::{FieldState, Record};
use crate::lint::registry::{Check, REGISTRY};
use crate::lint::rules::layout;
use crate::lint::sink::{Finding, Sink};
use crate::model::config::Config;
use crate::model::diagnostic::{Diagnostic, LineIndex, MAX_PER_RULE};
use crate::model::kind::{Kind, Place};
use crate::model::rule::Rule;
use crate::syntax::frontmatter::{self, Parts, Split};
use crate::syntax::yaml::{self, Resolved, Value};
use std::ops::Range;

/// Lints one file of the workspace. `rel` is root-relative with `/`.
///
/// The reader's steps come first, each stopping at the first defect it
/// finds (docs/rules.md's precedence): the place, the bytes, the front matter's
/// delimiters, its YAML, its mapping; then every per-record rule.
pub fn lint_file(rel: &str, place: &Place, content: Content, config: &Config) -> FileReport {
    let mut sink = Sink::default();
    let mut report = FileReport {
        path: rel.to_string(),
        ..FileReport::default()
    };
    let kind = match place {
        Place::Outside => return report,
        Place::Banned(dir) => {
            sink.emit(Rule::LayoutBannedDir, 0..0, layout::banned_message(dir));
            return misplaced(report, content, sink, config);
        }
        Place::Unknown => {
            sink.emit(Rule::LayoutUnknownFile, 0..0, layout::unknown_message(rel));
            return misplaced(report, content, sink, config);
        }
        Place::Context => None,
        Place::Record(kind) => Some(*kind),
    };
    report.info.kind = kind;
    if kind.is_some_and(Kind::has_slug) {
        if let Some(msg) = rules::slug::stem_problem(crate::model::kind::stem(rel)) {
            sink.emit(Rule::SlugFormat, 0..0, msg);
        }
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
fn misplaced(report: FileReport, content: Content, mut sink: Sink, config: &Config) -> FileReport {
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
fn decode<'a>(content: Content<'a>, config: &Config, sink: &mut Sink) -> Result<&'a str, String> {
    let bytes = match content {
        Content::TooLarge(size) => {
            sink.emit(
                Rule::FormatTooLarge,
                0..0,
                format!(
                    "the file has {size} bytes, more than `max_file_bytes` ({}); it was not read. Shorten it or split it into several records, or raise `max_file_bytes` in .memlint.yml",
                    config.max_file_bytes
                ),
            );
            return Err(String::new());
        }
        Content::Bytes(b) => b,
    };
    // The SIMD check answers for valid text; std finds where invalid text
    // goes wrong.
    let valid = simdutf8::basic::from_utf8(bytes).or_else(|_| std::str::from_utf8(bytes));
    // memchr's SIMD search; std's `contains(char)` goes a word at a time.
    let nul = memchr::memchr(0, bytes);
    match valid {
        Ok(t) if nul.is_none() => Ok(t),
        Ok(t) => {
            let at = nul.unwrap_or(0);
            sink.emit(
                Rule::FormatEncoding,
                at..at,
                "the file contains a NUL byte; records are text",
            );
            Err(printable(t))
        }
        Err(e) => {
            let at = e.valid_up_to();
            sink.emit(
                Rule::FormatEncoding,
                at..at,
                format!(
                    "the file is not valid UTF-8 (byte {at} is 0x{:02x}); save it as UTF-8",
                    bytes[at]
                ),
            );
            Err(printable(&String::from_utf8_lossy(bytes)))
        }
    }
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
            yaml_error(text, &parts, &err, &mut sink);
            return unread(report, sink);
        }
    };
    let Some(root) = mapping(doc.root, &parts, &mut sink) else {
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

/// The front matter's delimiters, or `frontmatter/missing` or
/// `frontmatter/unclosed`.
fn delimiters(text: &str, sink: &mut Sink) -> Option<Parts> {
    match frontmatter::split(text) {
        Split::None(absence) => {
            let first = first_line(text, frontmatter::bom_len(text));
            sink.emit(Rule::FrontmatterMissing, first, absence.message());
            None
        }
        Split::Unclosed { opener } => {
            // A closing `---` after a bare CR is not on a line of its own.
            let bare_cr = memchr::memchr_iter(b'\r', text.as_bytes())
                .any(|i| text.as_bytes().get(i + 1) != Some(&b'\n'));
            let message = if bare_cr {
                "the front matter has no closing `---` line: lines here end with a bare CR \
                 (classic Mac OS line endings), which is no line break for memlint; save the \
                 file with LF line endings"
            } else {
                "the front matter has no closing `---` line; add one after the last key"
            };
            sink.emit(Rule::FrontmatterUnclosed, opener, message);
            None
        }
        Split::Found(parts) => Some(parts),
    }
}

/// YAML that does not parse: `frontmatter/unclosed` when the front matter
/// runs into the markdown, else `frontmatter/parse`.
fn yaml_error(text: &str, parts: &Parts, err: &yaml::Error, sink: &mut Sink) {
    if let Some(line) = runs_into_body(text, parts, err.at) {
        sink.emit(
            Rule::FrontmatterUnclosed,
            parts.opener.clone(),
            format!(
                "the front matter has no closing `---` line: it runs into the markdown at line {line}; add `---` after the last key"
            ),
        );
    } else {
        let (span, message) = parse_message(text, parts, err);
        sink.emit(Rule::FrontmatterParse, span, message);
    }
}

/// The front matter's mapping, or `frontmatter/parse` for an empty front
/// matter or one that is not a mapping.
fn mapping(root: Option<yaml::Node>, parts: &Parts, sink: &mut Sink) -> Option<yaml::Node> {
    let (span, message) = match root {
        Some(root) if root.entries().is_some() => return Some(root),
        None => (
            parts.opener.clone(),
            "the front matter is empty; a record needs its keys between the `---` lines"
                .to_string(),
        ),
        Some(node) if node.is_null() => (
            parts.opener.clone(),
            "the front matter is empty; a record needs its keys between the `---` lines"
                .to_string(),
        ),
        Some(node) => (
            node.span.clone(),
            format!(
                "the front matter must be a mapping of keys to values, not {}",
                node.type_name()
            ),
        ),
    };
    sink.emit(Rule::FrontmatterParse, span, message);
    None
}

/// `format/bom` and `format/crlf`. On a record they are reported (and
/// fixed) only when its front matter could be read: docs/rules.md's precedence.
fn line_endings(text: &str, sink: &mut Sink) {
    let bom = frontmatter::bom_len(text);
    if bom > 0 {
        sink.emit(
            Rule::FormatBom,
            0..bom,
            "the file starts with a byte order mark; save it as UTF-8 without BOM",
        );
    }
    // The first CRLF, found by memchr on `\r` (a substring search is far
    // slower, and almost every file has no `\r` at all).
    let crlf = memchr::memchr_iter(b'\r', text.as_bytes())
        .find(|&i| text.as_bytes().get(i + 1) == Some(&b'\n'));
    if let Some(i) = crlf {
        let line_start = text[..i].rfind('\n').map_or(0, |p| p + 1);
        sink.emit(
            Rule::FormatCrlf,
            line_start.max(bom)..i,
            "the file has CRLF line endings; use LF",
        );
    }
}

/// The text shown under an encoding diagnostic: NUL bytes become `␀`, so a
/// terminal (or a snapshot) never receives one. Offsets up to the first NUL
/// or invalid byte, where the diagnostic points, are unchanged.
fn printable(text: &str) -> String {
    text.replace('\0', "\u{2400}")
}

fn first_line(text: &str, from: usize) -> Range<usize> {
    let end = text[from..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| from + i);
    from..end
}

/// When YAML fails after a blank line followed by a markdown heading, the
/// closing `---` was most likely forgotten and the `---` found belongs to the
/// body. Returns the heading's line number.
fn runs_into_body(text: &str, parts: &Parts, err_at: usize) -> Option<usize> {
    let yaml = &text[parts.yaml.clone()];
    let mut offset = parts.yaml.start;
    let mut prev_blank = false;
    for line in yaml.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let hashes = content.bytes().take_while(|b| *b == b'#').count();
        let is_heading = (1..=6).contains(&hashes)
            && content[hashes..].starts_with(' ')
            && !content[hashes..].trim().is_empty();
        if prev_blank && is_heading && start <= err_at {
            return Some(LineIndex::new(text).position(start).line);
        }
        prev_blank = content.trim().is_empty();
    }
    None
}

/// A `frontmatter/parse` message with a hint for the common slips.
fn parse_message(text: &str, parts: &Parts, err: &yaml::Error) -> (Range<usize>, String) {
    let index = LineIndex::new(text);
    let pos = index.position(err.at);
    let at = err.at..err.at;
    if err.kind == yaml::ErrorKind::Budget {
        return (at, format!("front matter refused: {}", err.message));
    }
    // Look at the offending line, the one before it and the one after it
    // (a tab is found only once the line before it ended) for a known slip.
    let candidates = [pos.line, pos.line.saturating_sub(1), pos.line + 1];
    for line_no in candidates {
        if line_no == 0 {
            continue;
        }
        let range = index.line_range(line_no);
        if range.start < parts.yaml.start || range.end > parts.yaml.end {
            continue;
        }
        let line = &text[range.clone()];
        if line.starts_with('\t') || line.trim_start_matches(' ').starts_with('\t') {
            return (
                range,
                format!("YAML does not allow a tab for indentation (line {line_no}); indent with spaces"),
            );
        }
        // What follows the `[` of a flow list that is a key's value.
        let flow = line
            .split_once(": ")
            .and_then(|(_, v)| v.trim_start().strip_prefix('['));
        // A list item, in a block list or a flow list, that starts with `*`
        // or `&` (a glob such as `*.md`).
        let block_item = line.trim_start().strip_prefix("- ").map(str::trim);
        let flow_items = flow
            .into_iter()
            .flat_map(|rest| rest.split([',', ']']).map(str::trim));
        let starred = block_item
            .into_iter()
            .chain(flow_items)
            .find(|v| v.starts_with('*') || v.starts_with('&'));
        // ` #` inside a flow list starts a comment that eats the `]`; after
        // the first `]`, a comment is fine.
        if let Some(item) = flow
            .and_then(|rest| rest.split(']').next())
            .and_then(|inner| inner.split(',').find(|i| i.contains(" #")))
        {
            let item = item.trim();
            return (
                range,
                format!(
                    "` #` starts a comment in YAML, which cuts the list short at `{item}`; quote the item: '{}'",
                    item.replace('\'', "''")
                ),
            );
        }
        if let Some(v) = starred {
            return (
                range,
                format!(
                    "the list item `{v}` starts with `{}`, which YAML reads as an {}; quote it: '{}'",
                    &v[..1],
                    if v.starts_with('*') { "alias" } else { "anchor" },
                    v.replace('\'', "''")
                ),
            );
        }
        if let Some((key, value)) = line.split_once(": ") {
            let v = value.trim_start();
            let plain = !v.starts_with(['"', '\'', '[', '{', '|', '>']);
            if plain && (v.starts_with('*') || v.starts_with('&')) {
                return (
                    range,
                    format!(
                        "`{}` starts with `{}`, which YAML reads as an {}; quote the value: {}: '{}'",
                        v,
                        &v[..1],
                        if v.starts_with('*') { "alias" } else { "anchor" },
                        key.trim(),
                        v.replace('\'', "''")
                    ),
                );
            }
            if plain && (v.contains(": ") || v.ends_with(':')) {
                return (
                    range,
                    format!(
                        "the value of `{}` contains `: `, which YAML reads as a nested key; quote the value: {}: '{}'",
                        key.trim(),
                        key.trim(),
                        v.replace('\'', "''")
                    ),
                );
            }
        }
    }
    (
        at,
        format!("the front matter is not valid YAML: {}", err.message),
    )
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
pub fn sources_of(rel: &str, kind: Kind, content: Content, config: &Config) -> Vec<Located> {
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
    let Some(root) = mapping(doc.root, &parts, &mut sink) else {
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
    RecordInfo {
        kind: Some(r.kind),
        title: r.str_field("title").map(|(t, _)| t.to_string()),
        status: r.status().map(str::to_string),
        date: r
            .str_field("date")
            .or_else(|| r.str_field("updated"))
            .or_else(|| r.str_field("created"))
            .map(|(d, _)| d.to_string()),
        replaced_by: r.str_field("replaced_by").map(|(v, s)| locate(v, s)),
        sources: rules::sources::entries(r)
            .into_iter()
            .map(|(v, s)| locate(v, s))
            .collect(),
        description: r.str_field("description").map(|(d, _)| d.to_string()),
        model_invocation: match r.field("model_invocation") {
            FieldState::Valid(node) => match node.as_scalar().map(|s| s.resolve()) {
                Some(Resolved::Bool(b)) => Some(b),
                _ => None,
            },
            _ => None,
        },
        tags: match r.field("tags") {
            FieldState::Valid(node) => match &node.value {
                Value::Seq { items, .. } => items
                    .iter()
                    .filter_map(|n| n.as_scalar().and_then(|s| s.as_str()))
                    .map(str::to_string)
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        },
        parsed: true,
        sketch: content_sketch(r),
    }
}

/// The sketch `content/duplicate` compares: title and body of a decision,
/// request or knowledge record.
fn content_sketch(r: &Record) -> Option<crate::syntax::similar::sketch::Sketch> {
    // Nothing compares the sketches of a workspace where the rule is off.
    if !matches!(r.kind, Kind::Decision | Kind::Request | Kind::Knowledge)
        || !r.config.enabled(Rule::ContentDuplicate)
    {
        return None;
    }
    let title = r.str_field("title").map_or("", |(t, _)| t);
    crate::syntax::similar::sketch::Sketch::of_parts(&[title, r.body()])
}

/// Turns findings into located diagnostics with their configured severity.
pub fn to_diagnostics(
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
            commits: Vec::new(),
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
