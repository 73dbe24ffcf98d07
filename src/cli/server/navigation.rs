//! Definition, references, hover and completion. What the cursor stands on
//! comes from the linter's reader of the buffer (`RecordInfo`: the
//! `replaced_by` value and the sources, with their spans); the records come
//! from the engine's view of the workspace with the open buffers in place.

use super::documents;
use super::state::{self, State};
use crate::engine::referrers::{part, Referrers};
use crate::lint::info::Located;
use crate::lint::FileReport;
use crate::model::kind::{stem, FieldType, Kind, SOURCE_PREFIXES};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionList, CompletionResponse, CompletionTextEdit,
    Hover, HoverContents, Location, MarkupContent, MarkupKind, TextEdit,
};
use std::ops::Range;

/// What a reference in a record names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// A record of a kind, by its name (slug or session id).
    Record(Kind, String),
    /// A workspace file (a `file:` source), root-relative, and the lines
    /// it cites (`file:src/cache.rs#L10-L42`).
    File(String, Option<crate::model::kind::Lines>),
}

/// A reference under the cursor: what it names, and the bytes of the name
/// in the buffer (the slug alone, without its prefix or quotes).
pub(crate) struct AtCursor {
    /// What it names.
    pub target: Target,
    /// The name's bytes in the buffer.
    pub name: Range<usize>,
}

/// What a source string names: `decision:x` → the decision `x`,
/// `cmem:ID` → the session `ID`, `file:p` → the file `p`; with the byte
/// length of its prefix.
pub(crate) fn source_target(value: &str) -> Option<(Target, usize)> {
    let (prefix, name) = value.split_once(':')?;
    let target = match prefix {
        "decision" | "request" | "knowledge" => {
            Target::Record(Kind::from_name(prefix)?, name.to_string())
        }
        "cmem" => Target::Record(Kind::Session, name.to_string()),
        "file" => Target::File(
            crate::lint::rules::sources::file_target(name)
                .ok()?
                .into_owned(),
            crate::model::kind::split_file_source(name).ok()?.1,
        ),
        _ => return None,
    };
    Some((target, prefix.len() + 1))
}

/// The reference at byte `offset` of the buffer of `rel`, if any.
pub(crate) fn at_cursor(state: &State, rel: &str, text: &str, offset: usize) -> Option<AtCursor> {
    let report = crate::engine::author::verify::lint_text(&state.ws, rel, text);
    let kind = state::kind_of(&state.ws, rel)?;
    let within = |l: &Located| l.span.start <= offset && offset <= l.span.end;
    if let Some(l) = report.info.replaced_by.as_ref().filter(|l| within(l)) {
        return Some(AtCursor {
            target: Target::Record(kind, l.value.clone()),
            name: part(text, &l.span, &l.value, 0)?,
        });
    }
    let l = report.info.sources.iter().find(|l| within(l))?;
    let (target, skip) = source_target(&l.value)?;
    Some(AtCursor {
        target,
        name: part(text, &l.span, &l.value, skip)?,
    })
}

/// The report of the record a target names.
fn report_of(state: &mut State, target: &Target) -> Option<FileReport> {
    match target {
        Target::Record(kind, name) => state.record(*kind, name),
        Target::File(..) => None,
    }
}

/// The location of workspace file `rel`, at its start.
fn file_location(state: &State, rel: &str) -> Option<Location> {
    Some(Location::new(state.uri_of(rel)?, Default::default()))
}

/// The location of the cited lines of workspace file `rel`: from the start
/// of the first to the start of the line after the last.
fn lines_location(state: &State, rel: &str, lines: crate::model::kind::Lines) -> Option<Location> {
    let start = lsp_types::Position::new(u32::try_from(lines.first - 1).ok()?, 0);
    let end = lsp_types::Position::new(u32::try_from(lines.last).ok()?, 0);
    Some(Location::new(
        state.uri_of(rel)?,
        lsp_types::Range::new(start, end),
    ))
}

/// `textDocument/definition`: the record or file the reference under the
/// cursor names.
pub(crate) fn definition(
    state: &mut State,
    rel: &str,
    text: &str,
    offset: usize,
) -> Option<Location> {
    let at = at_cursor(state, rel, text, offset)?;
    match &at.target {
        Target::File(path, lines) => {
            if !state.ws.root.join(path).exists() {
                return None;
            }
            match lines {
                Some(lines) => lines_location(state, path, *lines),
                None => file_location(state, path),
            }
        }
        target => {
            let report = report_of(state, target)?;
            file_location(state, &report.path)
        }
    }
}

/// `textDocument/hover`: the title, status and date of the record the
/// reference under the cursor names (credentials masked).
pub(crate) fn hover(state: &mut State, rel: &str, text: &str, offset: usize) -> Option<Hover> {
    let at = at_cursor(state, rel, text, offset)?;
    let report = report_of(state, &at.target)?;
    let info = &report.info;
    let show = |v: &Option<String>| {
        crate::syntax::sanitize::line(&crate::syntax::sanitize::secrets(
            v.as_deref().unwrap_or("—"),
        ))
        .into_owned()
    };
    // Plain text, not markdown: a record's title is untrusted, and an
    // editor renders markdown hovers (images it fetches, command links).
    let value = format!(
        "{}\n\nstatus: {} · date: {} · {}",
        show(&info.title),
        show(&info.status),
        show(&info.date),
        crate::syntax::sanitize::line(&report.path)
    );
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::PlainText,
            value,
        }),
        range: Some(documents::range(text, &at.name)),
    })
}

/// The record the cursor is about: the one a reference under it names,
/// else the buffer's own record.
pub(crate) fn subject(
    state: &State,
    rel: &str,
    text: &str,
    offset: usize,
) -> Option<(Kind, String)> {
    match at_cursor(state, rel, text, offset).map(|a| a.target) {
        Some(Target::Record(kind, name)) => Some((kind, name)),
        Some(Target::File(..)) => None,
        None => Some((state::kind_of(&state.ws, rel)?, stem(rel).to_string())),
    }
}

/// Every place that names record `name` of `kind`: `replaced_by` values of
/// records of its kind and sources, as (path, name's bytes in that file),
/// open buffers in place of their files.
pub(crate) fn referrers(state: &mut State, kind: Kind, name: &str) -> Vec<(String, Range<usize>)> {
    let mut found = Referrers::of(kind, name);
    state.each_report(|r| found.look_at(r));
    found.places(|path| state.text_of(path))
}

/// `textDocument/references`: who replaces or cites the record the cursor
/// is about (and the record itself when the client asks for it).
pub(crate) fn references(
    state: &mut State,
    rel: &str,
    text: &str,
    offset: usize,
    with_declaration: bool,
) -> Vec<Location> {
    let Some((kind, name)) = subject(state, rel, text, offset) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if with_declaration {
        if let Some(r) = state.record(kind, &name) {
            out.extend(file_location(state, &r.path));
        }
    }
    for (path, span) in referrers(state, kind, &name) {
        let (Some(uri), Some(text)) = (state.uri_of(&path), state.text_of(&path)) else {
            continue;
        };
        out.push(Location::new(uri, documents::range(&text, &span)));
    }
    out
}

/// Where the cursor is in the front matter, for completion.
enum Slot<'t> {
    /// At the start of a line: a key.
    Key(&'t str),
    /// After `key:` (or in a list item under `key:`): a value, typed so far.
    Value(&'t str, &'t str),
}

/// The front matter's YAML bytes (to the end of the text while it is not
/// closed yet).
fn yaml_range(text: &str) -> Option<Range<usize>> {
    use crate::syntax::frontmatter::{split, Split};
    match split(text) {
        Split::Found(parts) => Some(parts.yaml),
        Split::Unclosed { opener } => Some((opener.end + 1).min(text.len())..text.len()),
        Split::None(_) => None,
    }
}

fn slot(text: &str, offset: usize) -> Option<Slot<'_>> {
    let yaml = yaml_range(text)?;
    // The closing `---` line is not front matter (an unclosed one runs to
    // the end of the text).
    if offset < yaml.start || offset > yaml.end || (offset == yaml.end && yaml.end < text.len()) {
        return None;
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let typed = &text[line_start..offset];
    let word_start = typed
        .rfind(|c: char| c.is_whitespace() || matches!(c, '[' | ',' | '"' | '\''))
        .map_or(0, |i| i + 1);
    let partial = &typed[word_start..];
    if let Some((key, _)) = typed.split_once(':') {
        if !key.starts_with([' ', '-']) && !key.contains(' ') && word_start > key.len() {
            return Some(Slot::Value(key, partial));
        }
    }
    if !typed.contains(':') && !typed.starts_with([' ', '-']) {
        return Some(Slot::Key(typed));
    }
    // A list item: the key is the last line at column 0 above.
    if typed.trim_start().starts_with('-') {
        let key = text[yaml.start..line_start]
            .lines()
            .rev()
            .find(|l| !l.starts_with([' ', '-', '#']) && l.contains(':'))?
            .split(':')
            .next()?;
        return Some(Slot::Value(key, partial));
    }
    None
}

/// Most completion items sent at once; the list says it is incomplete
/// past it, and the client asks again as the user types.
const MAX_ITEMS: usize = 200;

/// `textDocument/completion`: keys the kind defines at a line's start,
/// enum values (`status`), slugs of the record's kind in `replaced_by`, and
/// source strings naming records in `sources`.
pub(crate) fn completion(
    state: &mut State,
    rel: &str,
    text: &str,
    offset: usize,
) -> Option<CompletionResponse> {
    let kind = state::kind_of(&state.ws, rel)?;
    let (partial, words, item_kind): (&str, Vec<String>, CompletionItemKind) =
        match slot(text, offset)? {
            Slot::Key(typed) => {
                let yaml = yaml_range(text)?;
                let present: Vec<&str> = text[yaml]
                    .lines()
                    .filter_map(|l| l.split_once(':').map(|(k, _)| k))
                    .collect();
                let keys = kind
                    .fields()
                    .iter()
                    .filter(|f| !present.contains(&f.key))
                    .map(|f| f.key.to_string())
                    .collect();
                (typed, keys, CompletionItemKind::PROPERTY)
            }
            Slot::Value(key, partial) => {
                let words = match kind.field(key).map(|f| f.ty) {
                    Some(FieldType::Enum(values)) => values.iter().map(|v| v.to_string()).collect(),
                    Some(FieldType::Slug) if key == "replaced_by" => state.names(kind),
                    Some(FieldType::Sources) => sources(state, partial),
                    _ => return None,
                };
                (partial, words, CompletionItemKind::VALUE)
            }
        };
    let start = documents::position(text, offset - partial.len());
    let end = documents::position(text, offset);
    let matching: Vec<String> = words
        .into_iter()
        .filter(|w| w.starts_with(partial))
        .collect();
    let incomplete = matching.len() > MAX_ITEMS;
    let items = matching
        .into_iter()
        .take(MAX_ITEMS)
        .map(|w| {
            let new_text = match item_kind {
                CompletionItemKind::PROPERTY => format!("{w}: "),
                _ => w.clone(),
            };
            CompletionItem {
                label: w,
                kind: Some(item_kind),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                    range: lsp_types::Range { start, end },
                    new_text,
                })),
                ..Default::default()
            }
        })
        .collect();
    Some(CompletionResponse::List(CompletionList {
        is_incomplete: incomplete,
        items,
    }))
}

/// The source strings to offer for `partial`: the prefixes, and once a
/// record prefix is typed, the names of that kind.
fn sources(state: &mut State, partial: &str) -> Vec<String> {
    let prefixes = SOURCE_PREFIXES.iter().map(|p| p.to_string());
    let Some((prefix, _)) = partial.split_once(':') else {
        return prefixes.collect();
    };
    let kind = match prefix {
        "cmem" => Kind::Session,
        p => match Kind::from_name(p) {
            Some(k @ (Kind::Decision | Kind::Request | Kind::Knowledge)) => k,
            _ => return Vec::new(),
        },
    };
    state
        .names(kind)
        .into_iter()
        .map(|n| format!("{prefix}:{n}"))
        .collect()
}
