//! The formatter (docs/formatting.md): text and kind in, canonical text out. No disk, no
//! terminal; `fmt::command` is the edge that walks, writes and prints.
//!
//! The formatter never re-serializes YAML. It cuts the front matter into key
//! blocks (a top-level key's lines, with the whole-line comments and blank
//! lines above it), puts the blocks in the kind's order, and edits the text at
//! spans: quotes that a value must gain, the layout of `sources` and `tags`,
//! indentation, trailing spaces, line endings and delimiters. The result is
//! parsed again and compared with the input (meaning, comments); on any
//! difference the file is left as it is, so a bug here costs a note, never data.

use crate::model::kind::{FieldType, Kind};
use crate::syntax::edit::{splice, Edit};
use crate::syntax::frontmatter::{self, Split};
use crate::syntax::quoting::needs_quotes;
use crate::syntax::yaml::{self, Node, Resolved, Style, Value};
use std::borrow::Cow;
use std::ops::Range;

/// What formatting one record gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The text is already in canonical form.
    Unchanged,
    /// The canonical text, which differs from the input.
    Formatted(String),
    /// The text cannot be rewritten without loss and stays as it is.
    Skipped {
        /// Why, in words for a note.
        reason: String,
    },
}

/// Formats the text of a record of `kind` (docs/formatting.md).
pub fn format_record(text: &str, kind: Kind) -> Outcome {
    format_record_noted(text, kind).0
}

/// [`format_record`], with notes on what was left in a non-canonical form
/// because it cannot take that form without loss (a `tags` list holding a
/// comment stays a block list), the rest being formatted.
pub(crate) fn format_record_noted(text: &str, kind: Kind) -> (Outcome, Vec<String>) {
    match format_text(text, kind) {
        Ok((None, notes)) => (Outcome::Unchanged, notes),
        Ok((Some(out), notes)) => (Outcome::Formatted(out), notes),
        Err(reason) => (Outcome::Skipped { reason }, Vec::new()),
    }
}

/// `Ok(None)` when `text` is already canonical, with the notes of
/// [`format_record_noted`].
fn format_text(text: &str, kind: Kind) -> Result<(Option<String>, Vec<String>), String> {
    if let Some(at) = text.find('\0') {
        return Err(format!("the file contains a NUL byte (byte {at})"));
    }
    let bom = frontmatter::bom_len(text);
    let norm = crlf_to_lf(&text[bom..]);
    let parsed = read(&norm, false)?;
    if bom > 0 || matches!(norm, Cow::Owned(_)) {
        // Line endings never change what YAML means; check it all the same.
        let original = read(text, true)?;
        if meaning_of(original.root.as_ref(), &[]) != meaning_of(parsed.root.as_ref(), &[]) {
            return Err(
                "converting the line endings would change what the front matter means".into(),
            );
        }
    }
    let (out, quoted, notes) = layout(&norm, &parsed, kind)?;
    if out == text {
        return Ok((None, notes));
    }
    verify(&norm, &parsed, &out, &quoted)?;
    Ok((Some(out), notes))
}

/// CRLF to LF. A run of carriage returns before a line feed goes whole, so
/// that the result has no CRLF left (`\r\r\n` would otherwise become one).
pub fn crlf_to_lf(text: &str) -> Cow<'_, str> {
    if !text.contains("\r\n") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for piece in text.split_inclusive('\n') {
        match piece.strip_suffix('\n') {
            Some(line) => {
                out.push_str(line.trim_end_matches('\r'));
                out.push('\n');
            }
            None => out.push_str(piece),
        }
    }
    Cow::Owned(out)
}

/// A record split and parsed, its front matter a block mapping (or empty).
struct Parsed {
    parts: frontmatter::Parts,
    root: Option<Node>,
}

/// Splits and parses `text`; `crlf` allows the carriage returns of CRLF.
fn read(text: &str, crlf: bool) -> Result<Parsed, String> {
    let parts = match frontmatter::split(text) {
        Split::Found(parts) => parts,
        Split::None(absence) => return Err(absence.message()),
        Split::Unclosed { .. } => {
            return Err("the front matter has no closing `---` line".into());
        }
    };
    let yaml_text = &text[parts.yaml.clone()];
    let doc = yaml::parse(yaml_text, parts.yaml.start).map_err(|e| {
        let line = line_no(text, e.at);
        format!(
            "the front matter does not parse (line {line}: {}); `memlint check` tells how to fix it",
            e.message
        )
    })?;
    if let Some(d) = doc.duplicates.first() {
        return Err(format!(
            "key `{}` appears twice; YAML readers disagree on which one wins",
            d.key
        ));
    }
    match &doc.root {
        None => {}
        Some(node) => {
            match &node.value {
                Value::Map { flow: false, .. } => {}
                Value::Map { flow: true, .. } => return Err(
                    "the front matter is a flow mapping (`{…}`); only block mappings are rewritten"
                        .into(),
                ),
                _ => {
                    return Err(format!(
                        "the front matter is {}, not a mapping",
                        node.type_name()
                    ))
                }
            }
        }
    }
    if !crlf && yaml_text.contains('\r') {
        return Err("the front matter contains a carriage return that is not part of CRLF".into());
    }
    Ok(Parsed {
        parts,
        root: doc.root,
    })
}

/// Line starts of `text[range]` (absolute), the range holding whole lines.
struct Lines {
    starts: Vec<usize>,
    end: usize,
}

impl Lines {
    fn new(text: &str, range: Range<usize>) -> Lines {
        let mut starts = vec![range.start];
        for (i, b) in text.as_bytes()[range.clone()].iter().enumerate() {
            if *b == b'\n' && range.start + i + 1 < range.end {
                starts.push(range.start + i + 1);
            }
        }
        if range.is_empty() {
            starts.clear();
        }
        Lines {
            starts,
            end: range.end,
        }
    }

    /// Index of the line holding byte `at`.
    fn of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// Start of line `i`, or the end of the range past the last line.
    fn start(&self, i: usize) -> usize {
        self.starts.get(i).copied().unwrap_or(self.end)
    }

    /// Content of line `i` without its line break.
    fn content<'t>(&self, text: &'t str, i: usize) -> &'t str {
        let s = self.start(i);
        let e = self.start(i + 1);
        text[s..e].strip_suffix('\n').unwrap_or(&text[s..e])
    }

    fn len(&self) -> usize {
        self.starts.len()
    }
}

/// One top-level key with its lines.
struct Block<'n> {
    /// The canonical position: index in the kind's fields, unknown keys after.
    rank: usize,
    /// Whole lines: preceding comments and blank lines, the key, its value.
    range: Range<usize>,
    entry: &'n yaml::Entry,
}

fn slice(text: &str, r: Range<usize>) -> Result<&str, String> {
    text.get(r)
        .ok_or_else(|| "a span of the front matter is out of range".to_string())
}

/// The canonical text, the spans of the plain scalars that gained quotes
/// (they read as strings afterwards, by design), and notes on lists left in
/// their layout.
type Laid = (String, Vec<Range<usize>>, Vec<String>);

/// Builds the canonical text: the key blocks found, the edits made, the
/// blocks put in the kind's order.
fn layout(text: &str, parsed: &Parsed, kind: Kind) -> Result<Laid, String> {
    let region = parsed.parts.yaml.clone();
    let lines = Lines::new(text, region.clone());
    let entries: &[yaml::Entry] = parsed
        .root
        .as_ref()
        .and_then(|r| r.entries())
        .unwrap_or(&[]);
    let (spans, indent) = key_lines(text, &lines, entries)?;
    only_comments_between(text, &lines, &spans)?;
    let (header, blocks, trailer) = blocks_of(text, &lines, region.clone(), entries, &spans, kind);
    // Edits: quotes and list layouts first, then whitespace where they leave room.
    let mut edits: Vec<Edit> = Vec::new();
    let mut quoted: Vec<Range<usize>> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for b in &blocks {
        value_edits(text, kind, b.entry, &mut edits, &mut quoted, &mut notes)?;
    }
    edits.sort_by_key(|e| e.span.start);
    let mut line_edits = whitespace_edits(text, &lines, indent, parsed.root.as_ref());
    // Whitespace edits inside a rewritten span are moot.
    line_edits.retain(|le| {
        let i = edits.partition_point(|e| e.span.end <= le.span.start);
        edits.get(i).is_none_or(|e| e.span.start >= le.span.end)
    });
    edits.extend(line_edits);
    edits.sort_by_key(|e| (e.span.start, e.span.end));
    for w in edits.windows(2) {
        if w[0].span.end > w[1].span.start {
            return Err("internal: overlapping edits".into());
        }
    }
    let fm = assemble(text, header, &blocks, trailer, &edits, region.len())?;
    // Exactly one final newline; a CR left at the very end would make a CRLF.
    let body = &text[parsed.parts.body.clone()];
    let body = body.trim_end_matches(['\n', '\r']);
    let mut out = String::with_capacity(fm.len() + body.len() + 10);
    out.push_str("---\n");
    out.push_str(&fm);
    out.push_str("---\n");
    if !body.is_empty() {
        out.push_str(body);
        out.push('\n');
    }
    Ok((out, quoted, notes))
}

/// The lines (first, last) of each top-level key's block, and the
/// indentation of the keys, or why the front matter cannot be laid out.
fn key_lines(
    text: &str,
    lines: &Lines,
    entries: &[yaml::Entry],
) -> Result<(Vec<(usize, usize)>, usize), String> {
    let mut indent = None;
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(entries.len());
    for e in entries {
        let simple_key = matches!(&e.key.value, Value::Scalar(s)
            if s.tag.is_none() && !matches!(s.style, Style::Literal | Style::Folded));
        if !simple_key {
            return Err("a top-level key is not a plain or quoted string".into());
        }
        let first = lines.of(e.key.span.start);
        let line_start = lines.start(first);
        let before = slice(text, line_start..e.key.span.start)?;
        if !before.bytes().all(|b| b == b' ') {
            return Err(format!(
                "line {}: a top-level key does not start its line (complex key?)",
                line_no(text, e.key.span.start)
            ));
        }
        match indent {
            None => indent = Some(before.len()),
            Some(n) if n != before.len() => {
                return Err("the top-level keys are not indented alike".into());
            }
            Some(_) => {}
        }
        let end = if e.value.span.is_empty() {
            e.key.span.end
        } else {
            e.value.span.end.max(e.key.span.end)
        };
        let last = lines.of(end.saturating_sub(1).max(e.key.span.start));
        if let Some(&(_, prev_last)) = spans.last() {
            if first <= prev_last {
                return Err(format!(
                    "line {}: two keys share a line",
                    line_no(text, e.key.span.start)
                ));
            }
        }
        spans.push((first, last));
    }
    // Blank lines after a block scalar may be part of its value (`|+`), and
    // its span covers them or not depending on what follows: they go with it.
    for i in 0..spans.len() {
        if has_block_scalar(&entries[i].value) {
            let limit = spans.get(i + 1).map_or(lines.len(), |&(first, _)| first);
            while spans[i].1 + 1 < limit && lines.content(text, spans[i].1 + 1).trim().is_empty() {
                spans[i].1 += 1;
            }
        }
    }
    Ok((spans, indent.unwrap_or(0)))
}

/// Lines outside the keys must be blank or comments.
fn only_comments_between(
    text: &str,
    lines: &Lines,
    spans: &[(usize, usize)],
) -> Result<(), String> {
    let mut gap_lines = Vec::new();
    let mut next = 0;
    for &(first, last) in spans {
        gap_lines.extend(next..first);
        next = last + 1;
    }
    gap_lines.extend(next..lines.len());
    for &i in &gap_lines {
        let c = lines.content(text, i).trim_start_matches([' ', '\t']);
        if !(c.is_empty() || c.starts_with('#')) {
            return Err(format!(
                "line {}: `{}` stands between the keys; it is not a comment",
                line_no(text, lines.start(i)),
                crate::syntax::sanitize::clip(c, 40).0
            ));
        }
    }
    Ok(())
}

/// The header (the leading lines up to the last blank one stay on top; the
/// comments right above the first key go with it), each key's block with
/// the comments above it, and the trailer.
fn blocks_of<'n>(
    text: &str,
    lines: &Lines,
    region: Range<usize>,
    entries: &'n [yaml::Entry],
    spans: &[(usize, usize)],
    kind: Kind,
) -> (Range<usize>, Vec<Block<'n>>, Range<usize>) {
    let lead_end = spans.first().map_or(lines.len(), |&(first, _)| first);
    let header_lines = (0..lead_end)
        .rev()
        .find(|&i| lines.content(text, i).trim().is_empty())
        .map_or(0, |i| i + 1);
    let header = region.start..lines.start(header_lines);
    let mut blocks: Vec<Block> = Vec::with_capacity(entries.len());
    let mut start = header.end;
    for (e, &(_, last)) in entries.iter().zip(spans) {
        let end = lines.start(last + 1);
        let name = e.key.as_scalar().map_or("", |s| s.text.as_str());
        let rank = kind
            .fields()
            .iter()
            .position(|f| f.key == name)
            .unwrap_or(usize::MAX);
        blocks.push(Block {
            rank,
            range: start..end,
            entry: e,
        });
        start = end;
    }
    (header, blocks, start..region.end)
}

/// Blank lines emptied, the keys' common indentation removed, trailing
/// white space dropped, except inside values where white space is content.
fn whitespace_edits(text: &str, lines: &Lines, indent: usize, root: Option<&Node>) -> Vec<Edit> {
    let protected = protected_spans(text, root);
    let is_protected =
        |r: Range<usize>| protected.iter().any(|p| p.start < r.end && r.start < p.end);
    let mut line_edits = Vec::new();
    for i in 0..lines.len() {
        let s = lines.start(i);
        let content = lines.content(text, i);
        let e = s + content.len();
        let kept = content.trim_end_matches([' ', '\t']).len();
        if kept == 0 && !content.is_empty() && !is_protected(s..e) {
            line_edits.push(Edit {
                span: s..e,
                text: String::new(),
            });
            continue;
        }
        let n = content
            .bytes()
            .take_while(|&b| b == b' ')
            .count()
            .min(indent);
        if n > 0 {
            line_edits.push(Edit {
                span: s..s + n,
                text: String::new(),
            });
        }
        if kept < content.len() && kept > n && !is_protected(s + kept..e) {
            line_edits.push(Edit {
                span: s + kept..e,
                text: String::new(),
            });
        }
    }
    line_edits
}

/// The front matter's new text: header, blocks in canonical order,
/// trailer, with `edits` applied and no blank lines at either end.
fn assemble(
    text: &str,
    header: Range<usize>,
    blocks: &[Block],
    trailer: Range<usize>,
    edits: &[Edit],
    size: usize,
) -> Result<String, String> {
    let mut order: Vec<&Block> = blocks.iter().collect();
    order.sort_by_key(|b| b.rank); // stable: unknown keys keep their order
    let mut fm = String::with_capacity(size + 16);
    splice(text, header, edits, &mut fm)?;
    // Blank lines right after a block scalar would join its value (`|+`),
    // so a block moved there leaves its leading blank lines behind.
    let mut after_block_scalar = false;
    let push = |fm: &mut String, range: Range<usize>, after: bool| -> Result<(), String> {
        let mark = fm.len();
        splice(text, range, edits, fm)?;
        if after {
            let blank = fm.len() - mark - fm[mark..].trim_start_matches('\n').len();
            fm.drain(mark..mark + blank);
        }
        Ok(())
    };
    for b in &order {
        push(&mut fm, b.range.clone(), after_block_scalar)?;
        after_block_scalar = has_block_scalar(&b.entry.value);
    }
    let trailer_has_comment = text[trailer.clone()]
        .lines()
        .any(|l| l.trim_start().starts_with('#'));
    push(&mut fm, trailer, after_block_scalar)?;
    // No blank lines at either end of the front matter (unless a block
    // scalar's kept trailing lines are there).
    let lead = fm.len() - fm.trim_start_matches('\n').len();
    fm.drain(..lead);
    let last_has_block_scalar = order
        .last()
        .is_some_and(|b| has_block_scalar(&b.entry.value));
    if trailer_has_comment || !last_has_block_scalar {
        while fm.ends_with("\n\n") {
            fm.pop();
        }
        if fm == "\n" {
            fm.clear();
        }
    }
    Ok(fm)
}

fn line_no(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Spans whose trailing spaces are content: block scalars and multi-line
/// quoted scalars, at any depth.
fn protected_spans(text: &str, root: Option<&Node>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut stack: Vec<&Node> = root.into_iter().collect();
    while let Some(n) = stack.pop() {
        match &n.value {
            Value::Scalar(s) => {
                let keep = match s.style {
                    Style::Literal | Style::Folded => true,
                    Style::SingleQuoted | Style::DoubleQuoted => {
                        text.get(n.span.clone()).is_some_and(|t| t.contains('\n'))
                    }
                    Style::Plain => false,
                };
                if keep && !n.span.is_empty() {
                    out.push(n.span.clone());
                }
            }
            Value::Seq { items, .. } => stack.extend(items),
            Value::Map { entries, .. } => {
                for e in entries {
                    stack.push(&e.key);
                    stack.push(&e.value);
                }
            }
        }
    }
    out
}

fn has_block_scalar(n: &Node) -> bool {
    match &n.value {
        Value::Scalar(s) => matches!(s.style, Style::Literal | Style::Folded),
        Value::Seq { items, .. } => items.iter().any(has_block_scalar),
        Value::Map { entries, .. } => entries
            .iter()
            .any(|e| has_block_scalar(&e.key) || has_block_scalar(&e.value)),
    }
}

/// Fields whose value is one string.
fn is_string_type(ty: FieldType) -> bool {
    matches!(
        ty,
        FieldType::Text { .. }
            | FieldType::Line { .. }
            | FieldType::Enum(_)
            | FieldType::Slug
            | FieldType::StagingId
            | FieldType::SessionId
            | FieldType::AbsolutePath
    )
}

/// The edits for one known key's value: quotes a string must gain, and the
/// canonical layout of `sources` (block list) and `tags` (flow list).
fn value_edits(
    text: &str,
    kind: Kind,
    entry: &yaml::Entry,
    edits: &mut Vec<Edit>,
    quoted: &mut Vec<Range<usize>>,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let Some(name) = entry.key.as_scalar().map(|s| s.text.as_str()) else {
        return Ok(());
    };
    let Some(field) = kind.field(name) else {
        return Ok(()); // unknown keys are never touched
    };
    let value = &entry.value;
    if is_string_type(field.ty) {
        if let Some(q) = quote_plain(text, value) {
            quoted.push(value.span.clone());
            edits.push(Edit {
                span: value.span.clone(),
                text: q,
            });
        }
        return Ok(());
    }
    let flow_layout = match field.ty {
        FieldType::Sources | FieldType::Pins => false,
        FieldType::Slugs | FieldType::Strings => true,
        _ => return Ok(()),
    };
    let Value::Seq { items, flow } = &value.value else {
        return Ok(());
    };
    // Each item's text as it will be written (quoted where it must be).
    let mut written: Vec<Cow<str>> = Vec::with_capacity(items.len());
    let mut item_edits = Vec::new();
    for item in items {
        match quote_plain(text, item) {
            Some(q) => {
                quoted.push(item.span.clone());
                item_edits.push(Edit {
                    span: item.span.clone(),
                    text: q.clone(),
                });
                written.push(Cow::Owned(q));
            }
            None => written.push(Cow::Borrowed(slice(text, item.span.clone())?)),
        }
    }
    let region = entry.key.span.end..value.span.end;
    if !items.is_empty() && simple_list(text, &entry.key, value, items, &written, flow_layout) {
        let mut new = String::with_capacity(region.len() + 8);
        if flow_layout {
            new.push_str(": [");
            for (i, w) in written.iter().enumerate() {
                if i > 0 {
                    new.push_str(", ");
                }
                new.push_str(w);
            }
            new.push(']');
        } else {
            new.push(':');
            for w in &written {
                new.push_str("\n  - ");
                new.push_str(w);
            }
        }
        if slice(text, region.clone())? != new {
            edits.push(Edit {
                span: region,
                text: new,
            });
        }
        return Ok(());
    }
    if !items.is_empty() && *flow != flow_layout {
        let (now, canonical) = if flow_layout {
            ("a block list", "a flow list (`[a, b]`)")
        } else {
            ("a flow list", "a block list (`- a`)")
        };
        notes.push(format!(
            "`{name}` stays {now} instead of {canonical}: {}",
            kept_because(text, &entry.key, value, items)
        ));
    }
    edits.extend(item_edits);
    Ok(())
}

/// Why a list's layout is kept (see [`simple_list`]), in words.
fn kept_because(text: &str, key: &Node, value: &Node, items: &[Node]) -> &'static str {
    let region = text.get(key.span.end..value.span.end).unwrap_or("");
    let mut rest = region.to_string();
    // Blank out the items, so that a `#` left is a comment.
    for item in items.iter().rev() {
        let (Some(a), Some(b)) = (
            item.span.start.checked_sub(key.span.end),
            item.span.end.checked_sub(key.span.end),
        ) else {
            continue;
        };
        if let Some(r) = rest.get(a..b) {
            let blank = " ".repeat(r.len());
            rest.replace_range(a..b, &blank);
        }
    }
    let nested = items.iter().any(|i| !matches!(i.value, Value::Scalar(_)));
    // An anchor or tag on the list itself (`sources: &s [...]`).
    let on_list = rest
        .split('#')
        .next()
        .is_some_and(|t| t.contains(['&', '!']));
    let decorated = on_list
        || items.iter().any(|i| {
            let src = text.get(i.span.clone()).unwrap_or("");
            matches!(&i.value, Value::Scalar(s) if s.tag.is_some())
                || src.starts_with(['*', '&', '!'])
        });
    let multiline = items.iter().any(|i| {
        text.get(i.span.clone()).is_some_and(|t| t.contains('\n'))
            || matches!(&i.value, Value::Scalar(s) if matches!(s.style, Style::Literal | Style::Folded))
    });
    if decorated {
        "it holds an anchor, alias or tag"
    } else if rest.contains('#') {
        "it holds a comment, which would be lost"
    } else if nested {
        "it holds an item that is not a single value"
    } else if multiline {
        "it holds an item written on several lines"
    } else {
        "an item holds `,`, `[`, `]`, `{`, `}`, `:` or `#`, which would read otherwise there"
    }
}

/// A list whose layout can be rewritten: every item a one-line scalar written
/// without anchor, tag or alias, and nothing but list punctuation and
/// whitespace between them (no comment).
fn simple_list(
    text: &str,
    key: &Node,
    value: &Node,
    items: &[Node],
    written: &[Cow<str>],
    to_flow: bool,
) -> bool {
    let Value::Seq { flow, .. } = &value.value else {
        return false;
    };
    let mut pos = key.span.end;
    for (i, item) in items.iter().enumerate() {
        let Value::Scalar(s) = &item.value else {
            return false;
        };
        let Some(src) = text.get(item.span.clone()) else {
            return false;
        };
        let well_formed = match s.style {
            Style::Plain => {
                s.tag.is_none()
                    && !src.is_empty()
                    && !src.starts_with(['*', '&', '!'])
                    && src == s.text
            }
            Style::SingleQuoted => src.starts_with('\''),
            Style::DoubleQuoted => src.starts_with('"'),
            Style::Literal | Style::Folded => false,
        };
        if !well_formed || src.contains('\n') || item.span.start < pos {
            return false;
        }
        // A plain item moving into a flow list must not hold flow indicators
        // (one that gains quotes is safe).
        let stays_plain = written.get(i).is_some_and(|w| !w.starts_with('\''));
        if to_flow
            && s.style == Style::Plain
            && stays_plain
            && src.contains([',', '[', ']', '{', '}', ':', '#'])
        {
            return false;
        }
        let Some(glue) = text.get(pos..item.span.start) else {
            return false;
        };
        let ok = if i == 0 {
            let Some(rest) = glue.trim_start_matches([' ', '\t']).strip_prefix(':') else {
                return false;
            };
            if *flow {
                rest.trim_start()
                    .strip_prefix('[')
                    .is_some_and(|r| r.trim().is_empty())
            } else {
                dash_glue(rest)
            }
        } else if *flow {
            glue.trim() == ","
        } else {
            dash_glue(glue)
        };
        if !ok {
            return false;
        }
        pos = item.span.end;
    }
    let Some(tail) = text.get(pos..value.span.end) else {
        return false;
    };
    if *flow {
        let t = tail.trim();
        t == "]" || t.strip_prefix(',').is_some_and(|r| r.trim() == "]")
    } else {
        tail.is_empty()
    }
}

/// Whitespace, one `-`, whitespace (the `-` followed by a space or line break).
fn dash_glue(g: &str) -> bool {
    let t = g.trim_start();
    match t.strip_prefix('-') {
        Some(rest) => {
            !rest.is_empty() && rest.trim().is_empty() && g[..g.len() - t.len()].contains('\n')
        }
        None => false,
    }
}

/// The quoted form of a one-line plain scalar that some YAML reader would
/// read as something other than a string, or `None` when it can stay plain.
fn quote_plain(text: &str, node: &Node) -> Option<String> {
    let Value::Scalar(s) = &node.value else {
        return None;
    };
    if s.style != Style::Plain || s.tag.is_some() || s.text.contains('\n') {
        return None;
    }
    if text.get(node.span.clone())? != s.text || !needs_quotes(&s.text) {
        return None;
    }
    Some(format!("'{}'", s.text.replace('\'', "''")))
}

/// What a YAML tree means, independent of spans, layout and key order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Meaning {
    /// `~`, `null` or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer, as written.
    Int(String),
    /// A float, as written.
    Float(String),
    /// A string.
    Str(String),
    /// A scalar with a tag outside the core schema: tag and text.
    Tagged(String, String),
    /// A sequence.
    Seq(Vec<Meaning>),
    /// A mapping, its entries sorted by key.
    Map(Vec<(Meaning, Meaning)>),
}

/// The meaning of a tree; scalars whose span is in `as_str` count as
/// strings (they gained quotes on purpose).
pub(crate) fn meaning_of(root: Option<&Node>, as_str: &[Range<usize>]) -> Meaning {
    match root {
        None => Meaning::Map(Vec::new()),
        Some(n) => meaning(n, as_str),
    }
}

fn meaning(n: &Node, as_str: &[Range<usize>]) -> Meaning {
    match &n.value {
        Value::Scalar(s) => {
            if as_str.contains(&n.span) {
                return Meaning::Str(s.text.clone());
            }
            if let Some(tag) = &s.tag {
                if !matches!(tag.as_str(), "str" | "null" | "bool" | "int" | "float") {
                    return Meaning::Tagged(tag.clone(), s.text.clone());
                }
            }
            match s.resolve() {
                Resolved::Null => Meaning::Null,
                Resolved::Bool(b) => Meaning::Bool(b),
                Resolved::Int => Meaning::Int(s.text.clone()),
                Resolved::Float => Meaning::Float(s.text.clone()),
                Resolved::Str => Meaning::Str(s.text.clone()),
            }
        }
        Value::Seq { items, .. } => {
            Meaning::Seq(items.iter().map(|i| meaning(i, as_str)).collect())
        }
        Value::Map { entries, .. } => {
            let mut v: Vec<(Meaning, Meaning)> = entries
                .iter()
                .map(|e| (meaning(&e.key, as_str), meaning(&e.value, as_str)))
                .collect();
            v.sort();
            Meaning::Map(v)
        }
    }
}

/// What a record's front matter means to memlint: as `meaning_of`, but
/// the values of the kind's string fields (and the items of its string
/// lists) count as strings whatever a plain scalar would resolve to, so a
/// value that gained quotes means what it meant. Nulls stay nulls.
pub fn record_meaning(root: Option<&Node>, kind: Kind) -> Meaning {
    let mut as_str = Vec::new();
    for e in root.and_then(|r| r.entries()).unwrap_or(&[]) {
        let Some(field) = e.key.as_scalar().and_then(|k| kind.field(&k.text)) else {
            continue;
        };
        let plain_text = |n: &Node| {
            n.as_scalar()
                .is_some_and(|s| s.style == Style::Plain && !n.is_null())
        };
        match (&field.ty, &e.value.value) {
            (
                FieldType::Sources | FieldType::Slugs | FieldType::Strings | FieldType::Pins,
                Value::Seq { items, .. },
            ) => {
                as_str.extend(
                    items
                        .iter()
                        .filter(|i| plain_text(i))
                        .map(|i| i.span.clone()),
                );
            }
            (ty, _) if is_string_type(*ty) && plain_text(&e.value) => {
                as_str.push(e.value.span.clone())
            }
            _ => {}
        }
    }
    meaning_of(root, &as_str)
}

/// Whether two versions of a record of `kind` say the same thing: their
/// front matters mean the same ([`record_meaning`]: key order, quoting,
/// list layout and comments aside) and their bodies hold the same lines
/// but for line endings, trailing whitespace and trailing blank lines.
/// What `memlint fmt` (or an editor's formatter) changes and nothing else:
/// such a change does not make the record written anew against the code
/// it cites. False when either does not parse.
pub(crate) fn same_record(a: &[u8], b: &[u8], kind: Kind) -> bool {
    let said = |bytes: &[u8]| -> Option<(Meaning, String)> {
        let text = std::str::from_utf8(bytes).ok()?;
        let text = crlf_to_lf(&text[frontmatter::bom_len(text)..]).into_owned();
        let parsed = read(&text, false).ok()?;
        let body: Vec<&str> = text[parsed.parts.body.clone()]
            .lines()
            .map(str::trim_end)
            .collect();
        let end = body
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1);
        Some((
            record_meaning(parsed.root.as_ref(), kind),
            body[..end].join("\n"),
        ))
    };
    match (said(a), said(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// The comments of a front matter: text from a `#` that starts a comment
/// (outside every scalar) to the end of its line, trailing spaces (and the
/// CR of CRLF) trimmed.
pub fn comments<'t>(text: &'t str, region: Range<usize>, root: Option<&Node>) -> Vec<&'t str> {
    let mut spans = Vec::new();
    let mut stack: Vec<&Node> = root.into_iter().collect();
    while let Some(n) = stack.pop() {
        match &n.value {
            Value::Scalar(_) => spans.push(n.span.clone()),
            Value::Seq { items, .. } => stack.extend(items),
            Value::Map { entries, .. } => {
                for e in entries {
                    stack.push(&e.key);
                    stack.push(&e.value);
                }
            }
        }
    }
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = region.start;
    while i < region.end {
        if bytes[i] == b'#'
            && (i == region.start || matches!(bytes[i - 1], b' ' | b'\t' | b'\n'))
            && !spans.iter().any(|s| s.start <= i && i < s.end)
        {
            let end = text[i..region.end].find('\n').map_or(region.end, |e| i + e);
            out.push(text[i..end].trim_end_matches([' ', '\t', '\r']));
            i = end;
            continue;
        }
        i += 1;
    }
    out.sort_unstable();
    out
}

/// Parses the output again: it must mean what the input meant, with the same
/// comments and the same body.
fn verify(norm: &str, before: &Parsed, out: &str, quoted: &[Range<usize>]) -> Result<(), String> {
    let fail = |what: &str| {
        Err(format!(
            "formatting would {what}; the file is left as it is (please report this)"
        ))
    };
    let after = match read(out, false) {
        Ok(p) => p,
        Err(_) => return fail("produce front matter that does not parse"),
    };
    if meaning_of(before.root.as_ref(), quoted) != meaning_of(after.root.as_ref(), &[]) {
        return fail("change what the front matter means");
    }
    if comments(norm, before.parts.yaml.clone(), before.root.as_ref())
        != comments(out, after.parts.yaml.clone(), after.root.as_ref())
    {
        return fail("change the comments");
    }
    if norm[before.parts.body.clone()].trim_end_matches(['\n', '\r'])
        != out[after.parts.body.clone()].trim_end_matches(['\n', '\r'])
    {
        return fail("change the body");
    }
    Ok(())
}

#[cfg(test)]
mod tests;
