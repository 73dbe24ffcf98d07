//! The one place YAML is parsed. It drives serde-saphyr's event parser and
//! builds a small tree in which every key and value keeps its byte span and
//! scalar style, so diagnostics point at the exact spot and the formatter can
//! edit the original text. Duplicate keys are reported, not merged, and
//! hostile input (alias bombs, deep nesting, huge documents) is refused with a
//! budget error instead of being expanded.

use crate::syntax::yaml_tabs::quoted_tab;
use serde_saphyr::granit_parser::{Event, Options, Parser, ScalarStyle, StructureStyle};
use std::collections::HashMap;
use std::ops::Range;

/// Deepest nesting of collections accepted in front matter.
pub(crate) const MAX_DEPTH: usize = 64;
/// Most nodes (after alias expansion) accepted in one document.
pub(crate) const MAX_NODES: usize = 20_000;
/// Least text (bytes of scalars) aliases may repeat in one document. A
/// document may repeat as much text as it holds, or this much when it holds
/// less, so the tree stays linear in the size of the input: counting nodes
/// alone let one long string aliased thousands of times take gigabytes.
pub(crate) const MIN_ALIAS_BYTES: usize = 64 * 1024;

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

impl Style {
    /// True for the quoted and block styles, which always read as strings.
    pub(crate) fn is_quoted(self) -> bool {
        !matches!(self, Style::Plain)
    }
}

/// A scalar with its decoded text.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    /// The text after YAML escape processing and folding.
    pub text: String,
    pub style: Style,
    /// The tag suffix for core-schema tags (`str`, `int`, …) or the whole tag.
    pub tag: Option<String>,
}

/// What a scalar resolves to under the YAML 1.2 core schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolved {
    Null,
    Bool(bool),
    Int,
    Float,
    Str,
}

impl Scalar {
    /// Resolves the scalar's type as a YAML 1.2 core-schema reader would.
    pub(crate) fn resolve(&self) -> Resolved {
        if let Some(tag) = &self.tag {
            return match tag.as_str() {
                "null" => Resolved::Null,
                "bool" => Resolved::Bool(self.text == "true"),
                "int" => Resolved::Int,
                "float" => Resolved::Float,
                _ => Resolved::Str,
            };
        }
        if self.style.is_quoted() {
            return Resolved::Str;
        }
        resolve_plain(&self.text)
    }

    /// The string value, when the scalar resolves to a string.
    pub(crate) fn as_str(&self) -> Option<&str> {
        (self.resolve() == Resolved::Str).then_some(self.text.as_str())
    }
}

/// Resolves a plain scalar under the YAML 1.2 core schema.
pub(crate) fn resolve_plain(t: &str) -> Resolved {
    match t {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => return Resolved::Float,
        _ => {}
    }
    let b = t.as_bytes();
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let unsigned = b
        .strip_prefix(b"-")
        .or_else(|| b.strip_prefix(b"+"))
        .unwrap_or(b);
    if digits(unsigned) {
        return Resolved::Int;
    }
    if let Some(hex) = b.strip_prefix(b"0x") {
        if !hex.is_empty() && hex.iter().all(u8::is_ascii_hexdigit) {
            return Resolved::Int;
        }
    }
    if let Some(oct) = b.strip_prefix(b"0o") {
        if !oct.is_empty() && oct.iter().all(|c| (b'0'..=b'7').contains(c)) {
            return Resolved::Int;
        }
    }
    if is_core_float(unsigned) {
        return Resolved::Float;
    }
    Resolved::Str
}

/// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn is_core_float(s: &[u8]) -> bool {
    let mut i = 0;
    let int_digits = s.iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if s.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = s[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = s[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == s.len()
}

/// A node of the tree, with the byte span of its text in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub span: Range<usize>,
    pub value: Value,
}

/// A key/value pair of a mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: Node,
    pub value: Node,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Scalar(Scalar),
    Seq { items: Vec<Node>, flow: bool },
    Map { entries: Vec<Entry>, flow: bool },
}

impl Node {
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.value {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The entries of a mapping node.
    pub fn entries(&self) -> Option<&[Entry]> {
        match &self.value {
            Value::Map { entries, .. } => Some(entries),
            _ => None,
        }
    }

    /// The first entry whose key is the string `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Entry> {
        self.entries()?
            .iter()
            .find(|e| e.key.as_scalar().is_some_and(|s| s.text == key))
    }

    /// True for a null scalar (`~`, `null`, or nothing at all).
    pub(crate) fn is_null(&self) -> bool {
        self.as_scalar()
            .is_some_and(|s| s.resolve() == Resolved::Null)
    }

    /// A short word for the node's type, for messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match &self.value {
            Value::Scalar(s) => match s.resolve() {
                Resolved::Null => "null",
                Resolved::Bool(_) => "a boolean",
                Resolved::Int => "an integer",
                Resolved::Float => "a number",
                Resolved::Str => "a string",
            },
            Value::Seq { .. } => "a list",
            Value::Map { .. } => "a mapping",
        }
    }

    /// The node as one line of flow-style YAML (`[a, b]`, `{a: 1}`), for
    /// messages about keys that are collections and to compare them.
    pub(crate) fn flow_text(&self) -> String {
        let mut out = String::new();
        self.write_flow(&mut out);
        out
    }

    fn write_flow(&self, out: &mut String) {
        match &self.value {
            Value::Scalar(s) => out.push_str(&s.text),
            Value::Seq { items, .. } => {
                out.push('[');
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    item.write_flow(out);
                }
                out.push(']');
            }
            Value::Map { entries, .. } => {
                out.push('{');
                for (k, e) in entries.iter().enumerate() {
                    if k > 0 {
                        out.push_str(", ");
                    }
                    e.key.write_flow(out);
                    out.push_str(": ");
                    e.value.write_flow(out);
                }
                out.push('}');
            }
        }
    }

    /// The number of nodes in the tree and the bytes of its scalars' text.
    fn size(&self) -> (usize, usize) {
        let add = |(n, b): (usize, usize), (m, c): (usize, usize)| (n + m, b + c);
        match &self.value {
            Value::Scalar(s) => (1, s.text.len()),
            Value::Seq { items, .. } => items.iter().map(Node::size).fold((1, 0), add),
            Value::Map { entries, .. } => entries
                .iter()
                .map(|e| add(e.key.size(), e.value.size()))
                .fold((1, 0), add),
        }
    }
}

/// A key that appears more than once in one mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct DuplicateKey {
    pub key: String,
    /// Span of the first occurrence.
    pub first: Range<usize>,
    /// Span of the repeated occurrence.
    pub repeat: Range<usize>,
}

/// A parsed document.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The root node; `None` for an empty document (only comments or nothing).
    pub root: Option<Node>,
    pub duplicates: Vec<DuplicateKey>,
}

/// Why the YAML could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// Byte offset of the problem in the file.
    pub at: usize,
    pub message: String,
    pub kind: ErrorKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text is not valid YAML.
    Syntax,
    /// A resource budget (depth, node count, alias expansion) was exceeded.
    Budget,
}

struct Frame {
    start: usize,
    anchor: usize,
    flow: bool,
    kind: FrameKind,
}

enum FrameKind {
    Seq(Vec<Node>),
    Map {
        entries: Vec<Entry>,
        pending_key: Option<Node>,
        seen: HashMap<String, Range<usize>>,
    },
}

/// Parses `src`, a YAML text that starts at byte `base` of the file, into a
/// spanned tree. Only the first document is read; a second one is an error.
pub fn parse(src: &str, base: usize) -> Result<Document, Error> {
    match parse_simple(src, base) {
        Some(doc) => Ok(doc),
        None => parse_general(src, base),
    }
}

/// Most nodes [`parse_simple`] takes on; more go to the general parser.
const SIMPLE_MAX_NODES: usize = 2_000;

/// The common shape of front matter, read without the general parser
/// (which is most of the cost of linting a record): a block mapping of
/// plain keys at column 0 to one-line plain scalars, to block sequences of
/// them, or to flow sequences of them. `None` for anything else — comments,
/// quotes, anchors, tags, blank lines, multi-line or empty items, deeper
/// nesting, duplicate keys, unusual characters — which the general parser
/// then reads. Where it gives a document, it is the one [`parse_general`]
/// gives, spans included (tested against it on the corpora).
fn parse_simple(src: &str, base: usize) -> Option<Document> {
    if has_odd_char(src) {
        return None;
    }
    // Lines with their offsets; the text ends with a line break.
    let body = src.strip_suffix('\n')?;
    let mut lines = Vec::with_capacity(16);
    let mut at = 0;
    for end in memchr::memchr_iter(b'\n', body.as_bytes()).chain([body.len()]) {
        lines.push((at, &body[at..end]));
        at = end + 1;
    }
    let mut entries: Vec<Entry> = Vec::new();
    let mut nodes = 1;
    let mut i = 0;
    while i < lines.len() {
        let (start, line) = lines[i];
        i += 1;
        let colon = simple_key(line, &entries)?;
        let key_node = plain_scalar(base + start, &line[..colon]);
        let rest = &line[colon + 1..];
        let value = if rest.is_empty() {
            simple_block_value(&lines, &mut i, base, start + colon, &mut nodes)?
        } else {
            simple_inline_value(rest, base + start, colon, &mut nodes)?
        };
        // Whatever follows must be the next key, at column 0.
        if lines
            .get(i)
            .is_some_and(|(_, l)| l.starts_with(' ') || l.is_empty())
        {
            return None;
        }
        nodes += 2;
        if nodes > SIMPLE_MAX_NODES {
            return None;
        }
        entries.push(Entry {
            key: key_node,
            value,
        });
    }
    let first = entries.first()?;
    let end = entries
        .last()
        .map_or(first.key.span.end, |e| e.key.span.end.max(e.value.span.end));
    Some(Document {
        root: Some(Node {
            span: first.key.span.start..end,
            value: Value::Map {
                entries,
                flow: false,
            },
        }),
        duplicates: Vec::new(),
    })
}

/// A plain scalar `text` that starts at byte `at` of the file.
#[inline]
fn plain_scalar(at: usize, text: &str) -> Node {
    Node {
        span: at..at + text.len(),
        value: Value::Scalar(Scalar {
            text: text.to_string(),
            style: Style::Plain,
            tag: None,
        }),
    }
}

/// [`parse_simple`]: where the key of `line` ends (its colon), when it is a
/// simple key not seen before.
#[inline]
fn simple_key(line: &str, entries: &[Entry]) -> Option<usize> {
    // Keys are short: a plain scan beats the general searcher.
    let colon = line.bytes().position(|b| b == b':')?;
    let key = &line[..colon];
    let key_ok = key
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    // Past 1024 characters a key is an error for the parser.
    if key.is_empty() || !key_ok || key.starts_with('-') || key.len() > 1024 {
        return None;
    }
    if entries
        .iter()
        .any(|e| e.key.as_scalar().is_some_and(|k| k.text == key))
    {
        return None;
    }
    Some(colon)
}

/// [`parse_simple`]: the value of a key with nothing after its colon (at
/// byte `colon` of the text): nothing, or a block sequence on the lines from
/// `*i` on, which it consumes.
#[inline]
fn simple_block_value(
    lines: &[(usize, &str)],
    i: &mut usize,
    base: usize,
    colon: usize,
    nodes: &mut usize,
) -> Option<Node> {
    let mut items = Vec::new();
    let mut seq_start = None;
    while let Some(&(item_start, item_line)) = lines.get(*i) {
        let indent = item_line.len() - item_line.trim_start_matches(' ').len();
        let Some(text) = item_line[indent..].strip_prefix("- ") else {
            break;
        };
        match seq_start {
            None => seq_start = Some((indent, item_start + indent)),
            Some((first, _)) if first != indent => return None,
            Some(_) => {}
        }
        let lead = text.len() - text.trim_start_matches(' ').len();
        let text = text.trim_matches(' ');
        if !plain_in_block(text) {
            return None;
        }
        items.push(plain_scalar(base + item_start + indent + 2 + lead, text));
        *i += 1;
    }
    Some(match seq_start {
        None => Node {
            span: base + colon..base + colon,
            value: Value::Scalar(Scalar {
                text: String::new(),
                style: Style::Plain,
                tag: None,
            }),
        },
        Some((indent, dash)) => {
            // The general parser starts a sequence at its first dash when
            // indented, else at its first item.
            let from = if indent > 0 {
                base + dash
            } else {
                items[0].span.start
            };
            let end = items.last().map_or(from, |n| n.span.end);
            *nodes += items.len();
            Node {
                span: from..end,
                value: Value::Seq { items, flow: false },
            }
        }
    })
}

/// [`parse_simple`]: the value after the colon (at `colon` of the line that
/// starts at byte `line_at` of the file): a plain scalar or a flow sequence
/// of them.
#[inline]
fn simple_inline_value(
    rest: &str,
    line_at: usize,
    colon: usize,
    nodes: &mut usize,
) -> Option<Node> {
    let text = rest.strip_prefix(' ')?;
    let lead = colon + 2 + text.len() - text.trim_start_matches(' ').len();
    let text = text.trim_matches(' ');
    let Some(inner) = text.strip_prefix('[') else {
        return plain_in_block(text).then(|| plain_scalar(line_at + lead, text));
    };
    let inner = inner.strip_suffix(']')?;
    if inner.trim_matches(' ').is_empty() {
        return None;
    }
    let mut items = Vec::new();
    let mut offset = line_at + lead + 1;
    for piece in inner.split(',') {
        let skip = piece.len() - piece.trim_start_matches(' ').len();
        let item = piece.trim_matches(' ');
        if !plain_in_flow(item) {
            return None;
        }
        items.push(plain_scalar(offset + skip, item));
        offset += piece.len() + 1;
    }
    *nodes += items.len();
    Some(Node {
        span: line_at + lead..line_at + lead + text.len(),
        value: Value::Seq { items, flow: true },
    })
}

/// Whether `src` holds a character [`parse_simple`] leaves to the general
/// parser: a control character other than the line feed (tabs and
/// carriage returns included), DEL, a C1 control, a byte order mark, a
/// line or paragraph separator, or a noncharacter U+FFFE/U+FFFF. One pass
/// over the bytes: in UTF-8 those characters begin with C2, E2 or EF.
fn has_odd_char(src: &str) -> bool {
    let b = src.as_bytes();
    // A pass the compiler vectorizes rules out most chunks: only a control
    // character, DEL or one of those lead bytes needs a closer look.
    const CHUNK: usize = 32;
    for (k, chunk) in b.chunks(CHUNK).enumerate() {
        let suspect = chunk.iter().fold(false, |any, &x| {
            any | ((x < 0x20) & (x != b'\n'))
                | (x == 0x7f)
                | (x == 0xc2)
                | (x == 0xe2)
                | (x == 0xef)
        });
        if suspect && odd_char_at(b, k * CHUNK..k * CHUNK + chunk.len()) {
            return true;
        }
    }
    false
}

/// [`has_odd_char`] for the characters starting in `range` of `b`.
fn odd_char_at(b: &[u8], range: std::ops::Range<usize>) -> bool {
    let mut i = range.start;
    while i < range.end {
        match b[i] {
            b'\n' => {}
            0..0x20 | 0x7f => return true,
            // U+0080..U+009F.
            0xc2 if matches!(b.get(i + 1), Some(0x80..=0x9f)) => return true,
            // U+2028, U+2029.
            0xe2 if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xa8 | 0xa9)) => {
                return true
            }
            // U+FEFF, U+FFFE, U+FFFF.
            0xef if matches!(
                (b.get(i + 1), b.get(i + 2)),
                (Some(0xbb), Some(0xbf)) | (Some(0xbf), Some(0xbe | 0xbf))
            ) =>
            {
                return true
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether `text` reads as itself as a one-line plain scalar in block
/// context: not empty, no indicator first, no `: ` or ` #` inside, no `:`
/// at its end.
fn plain_in_block(text: &str) -> bool {
    const INDICATORS: &[u8] = b"-?:,[]{}#&*!|>'\"%@`";
    let b = text.as_bytes();
    let (Some(first), Some(last)) = (b.first(), b.last()) else {
        return false;
    };
    // Written so that the compiler vectorizes it (no early exit).
    let pairs = b.iter().zip(&b[1..]);
    !INDICATORS.contains(first)
        && *last != b':'
        && !pairs.fold(false, |any, (&x, &y)| {
            any | ((x == b':') & (y == b' ')) | ((x == b' ') & (y == b'#'))
        })
}

/// [`plain_in_block`] inside a flow sequence, where `,`, brackets, braces
/// and `:` mean something too.
fn plain_in_flow(text: &str) -> bool {
    plain_in_block(text)
        && !text.bytes().fold(false, |any, b| {
            any | (b == b',') | (b == b'[') | (b == b']') | (b == b'{') | (b == b'}') | (b == b':')
        })
}

/// The general parser: serde-saphyr's events, built into the tree.
fn parse_general(src: &str, base: usize) -> Result<Document, Error> {
    let mut options = Options::default();
    options.emit_comments = false;
    options.flow_nesting_limit = MAX_DEPTH + 2;
    options.block_nesting_limit = MAX_DEPTH + 2;
    let mut parser = Parser::new_from_str_with_options(src, options);
    let mut tree = Tree::new(src, base);
    while let Some(next) = parser.next_event() {
        let (event, span) =
            next.map_err(|e| scan_error(src, base, e.marker().index(), &e.info()))?;
        let range = span
            .byte_range()
            .map(|r| base + r.start..base + r.end)
            .unwrap_or(base..base);
        let node = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => continue,
            Event::DocumentStart(..) => {
                tree.document(range.start)?;
                continue;
            }
            Event::Scalar(text, style, anchor, tag) => {
                // An empty value (`key:`) is an implicit null that the parser
                // reports as `~`; keep what was written: nothing.
                let implicit = style == ScalarStyle::Plain && range.is_empty();
                let text = if implicit {
                    String::new()
                } else {
                    text.into_owned()
                };
                let tag = tag.map(|t| {
                    if t.is_yaml_core_schema() {
                        t.suffix().to_string()
                    } else {
                        format!("{}{}", t.handle(), t.suffix())
                    }
                });
                if matches!(style, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted) {
                    tree.quoted_continuation(&range)?;
                }
                tree.scalar(range, text, style, anchor, tag)
            }
            Event::SequenceStart(style, anchor, _) | Event::MappingStart(style, anchor, _) => {
                let is_seq = matches!(event, Event::SequenceStart(..));
                tree.open(range, is_seq, style, anchor)?;
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match tree.close(range) {
                Some(node) => node,
                None => continue,
            },
            Event::Alias(id) => tree.alias(id, range)?,
            _ => continue,
        };
        tree.attach(node)?;
    }
    Ok(Document {
        root: tree.root,
        duplicates: tree.duplicates,
    })
}

/// The parser's error at character `index` of `src`, in memlint's words.
fn scan_error(src: &str, base: usize, index: usize, info: &str) -> Error {
    let at = base + byte_of_char(src, index);
    // The scanner counts flow nesting ahead of the events, so deep `[[[…`
    // trips its limit before ours: the same budget, one message.
    if info.contains("recursion limit") {
        return Error {
            at,
            message: format!("front matter is nested more than {MAX_DEPTH} levels deep"),
            kind: ErrorKind::Budget,
        };
    }
    Error {
        at,
        message: match info {
            "simple key expected ':'" => simple_key_message(&src[at - base..]),
            info => info.to_string(),
        },
        kind: ErrorKind::Syntax,
    }
}

/// The tree [`parse_general`] builds from the parser's events, and the
/// budgets it keeps while building it.
struct Tree<'s> {
    src: &'s str,
    base: usize,
    /// The collections open, innermost last.
    stack: Vec<Frame>,
    /// Each anchored node with its size, measured once when it is defined.
    anchors: HashMap<usize, (Node, (usize, usize))>,
    nodes: usize,
    alias_bytes: usize,
    max_alias_bytes: usize,
    root: Option<Node>,
    duplicates: Vec<DuplicateKey>,
    documents: usize,
}

impl<'s> Tree<'s> {
    fn new(src: &'s str, base: usize) -> Self {
        Tree {
            src,
            base,
            stack: Vec::new(),
            anchors: HashMap::new(),
            nodes: 0,
            alias_bytes: 0,
            max_alias_bytes: src.len().max(MIN_ALIAS_BYTES),
            root: None,
            duplicates: Vec::new(),
            documents: 0,
        }
    }

    /// A document starts at `at`: only the first is read.
    fn document(&mut self, at: usize) -> Result<(), Error> {
        self.documents += 1;
        if self.documents > 1 {
            return Err(Error {
                at,
                message: "front matter holds more than one YAML document".into(),
                kind: ErrorKind::Syntax,
            });
        }
        Ok(())
    }

    /// A scalar node (anchored when `anchor` is not 0).
    fn scalar(
        &mut self,
        span: Range<usize>,
        text: String,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<String>,
    ) -> Node {
        let node = Node {
            span,
            value: Value::Scalar(Scalar {
                text,
                style: match style {
                    ScalarStyle::Plain => Style::Plain,
                    ScalarStyle::SingleQuoted => Style::SingleQuoted,
                    ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                    ScalarStyle::Literal => Style::Literal,
                    ScalarStyle::Folded => Style::Folded,
                },
                tag,
            }),
        };
        self.nodes += 1;
        if anchor != 0 {
            self.anchors.insert(anchor, (node.clone(), node.size()));
        }
        node
    }

    /// Refuses a quoted scalar at `span` in a block collection whose
    /// continuation line a tab indents (see [`quoted_tab`]).
    fn quoted_continuation(&self, span: &Range<usize>) -> Result<(), Error> {
        let (Some(frame), false) = (self.stack.last(), self.stack.iter().any(|f| f.flow)) else {
            return Ok(());
        };
        let local = span.start - self.base..span.end - self.base;
        let is_seq = matches!(frame.kind, FrameKind::Seq(_));
        match quoted_tab(self.src, frame.start - self.base, is_seq, local) {
            Some((tab, need)) => Err(Error {
                at: self.base + tab,
                message: format!("a tab indents this line of a quoted value; YAML indents with spaces only: start the line with {need} space{} (tabs may follow them)", if need == 1 { "" } else { "s" }),
                kind: ErrorKind::Syntax,
            }),
            None => Ok(()),
        }
    }

    /// A sequence or mapping opens at `range.start`.
    fn open(
        &mut self,
        range: Range<usize>,
        is_seq: bool,
        style: StructureStyle,
        anchor: usize,
    ) -> Result<(), Error> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(Error {
                at: range.start,
                message: format!("front matter is nested more than {MAX_DEPTH} levels deep"),
                kind: ErrorKind::Budget,
            });
        }
        if style == StructureStyle::Block {
            if let Some(tab) = tab_indent(self.src, range.start - self.base, is_seq) {
                return Err(Error {
                    at: self.base + tab,
                    message: "a tab is used as indentation here; YAML indents with spaces only"
                        .into(),
                    kind: ErrorKind::Syntax,
                });
            }
        }
        self.stack.push(Frame {
            start: range.start,
            anchor,
            flow: style == StructureStyle::Flow,
            kind: if is_seq {
                FrameKind::Seq(Vec::new())
            } else {
                FrameKind::Map {
                    entries: Vec::new(),
                    pending_key: None,
                    seen: HashMap::new(),
                }
            },
        });
        self.nodes += 1;
        Ok(())
    }

    /// The innermost collection closes (its end event at `range`).
    fn close(&mut self, range: Range<usize>) -> Option<Node> {
        let frame = self.stack.pop()?;
        // A block collection's end event sits at the next token (often the
        // next line); it ends where its last child ends.
        let last_child = match &frame.kind {
            FrameKind::Seq(items) => items.last().map(|n| n.span.end),
            FrameKind::Map { entries, .. } => {
                entries.last().map(|e| e.key.span.end.max(e.value.span.end))
            }
        };
        let end = match last_child {
            Some(end) if !frame.flow => end,
            _ => range.end,
        };
        let span = frame.start..end.max(frame.start);
        let value = match frame.kind {
            FrameKind::Seq(items) => Value::Seq {
                items,
                flow: frame.flow,
            },
            FrameKind::Map { entries, .. } => Value::Map {
                entries,
                flow: frame.flow,
            },
        };
        let node = Node { span, value };
        if frame.anchor != 0 {
            self.anchors
                .insert(frame.anchor, (node.clone(), node.size()));
        }
        Some(node)
    }

    /// An alias: a copy of its anchor's node, once both budgets allow it.
    fn alias(&mut self, id: usize, range: Range<usize>) -> Result<Node, Error> {
        let Some((target, (count, bytes))) = self.anchors.get(&id) else {
            return Err(Error {
                at: range.start,
                message: "alias refers to an unknown anchor".into(),
                kind: ErrorKind::Syntax,
            });
        };
        // Both budgets are checked before the copy is made.
        self.nodes += count;
        if self.nodes > MAX_NODES {
            return Err(Error {
                at: range.start,
                message: format!("aliases expand to more than {MAX_NODES} nodes (an alias bomb?)"),
                kind: ErrorKind::Budget,
            });
        }
        self.alias_bytes += bytes;
        if self.alias_bytes > self.max_alias_bytes {
            return Err(Error {
                at: range.start,
                message: format!(
                    "aliases repeat more than {} bytes of text (an alias bomb?); write the values out instead",
                    self.max_alias_bytes
                ),
                kind: ErrorKind::Budget,
            });
        }
        Ok(Node {
            span: range,
            value: target.value.clone(),
        })
    }

    /// Puts a finished node where it belongs: the root, the innermost
    /// sequence, or the innermost mapping (as a key, or as the value of the
    /// pending key, noting a repeated key).
    fn attach(&mut self, node: Node) -> Result<(), Error> {
        if self.nodes > MAX_NODES {
            return Err(Error {
                at: node.span.start,
                message: format!("front matter has more than {MAX_NODES} values"),
                kind: ErrorKind::Budget,
            });
        }
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame {
                kind: FrameKind::Seq(items),
                ..
            }) => items.push(node),
            Some(Frame {
                kind:
                    FrameKind::Map {
                        entries,
                        pending_key,
                        seen,
                    },
                ..
            }) => match pending_key.take() {
                None => *pending_key = Some(node),
                Some(key) => {
                    let name = key_text(&key);
                    if let Some(first) = seen.get(&name) {
                        self.duplicates.push(DuplicateKey {
                            key: name,
                            first: first.clone(),
                            repeat: key.span.clone(),
                        });
                    } else {
                        seen.insert(name, key.span.clone());
                    }
                    entries.push(Entry { key, value: node });
                }
            },
        }
        Ok(())
    }
}

/// What the parser's "simple key expected ':'" means for the key starting
/// `rest`: a key past YAML's 1,024 characters, or a line without the colon
/// of `key: value` (rather than the parser's own words).
fn simple_key_message(rest: &str) -> String {
    let line = rest.split(['\n', '\r']).next().unwrap_or("");
    let colon = line
        .char_indices()
        .find(|&(i, c)| c == ':' && matches!(line[i + 1..].chars().next(), None | Some(' ' | '\t')))
        .map(|(i, _)| line[..i].chars().count());
    match colon {
        Some(n) if n > 1024 => {
            format!("this key is {n} characters long; YAML reads a key of at most 1024 characters")
        }
        Some(_) => "a key is expected here, followed by `:`".to_string(),
        None => "this line has no `:` after its key; write `key: value`".to_string(),
    }
}

/// The offset of a tab that indents the block collection starting at `at`
/// in `src` (a tab between the start of its line and its first token),
/// which YAML forbids but the parser lets pass before the first key of a
/// document (`\tmax_sources: 2`, yaml-test-suite DK95). Only block
/// collections are looked at: a tab inside a block scalar, a quoted
/// scalar or a flow collection, or after a key's colon, stays legal.
fn tab_indent(src: &str, at: usize, is_seq: bool) -> Option<usize> {
    let b = src.as_bytes();
    // A block sequence starts at its first `-`; the parser's event may
    // stand at the first item, after the dash and its spaces.
    let mut token = at.min(b.len());
    if is_seq && b.get(token) != Some(&b'-') {
        let mut k = token;
        while k > 0 && matches!(b[k - 1], b' ' | b'\t') {
            k -= 1;
        }
        if k > 0 && b[k - 1] == b'-' {
            token = k - 1;
        }
    }
    let line = b[..token]
        .iter()
        .rposition(|&c| c == b'\n' || c == b'\r')
        .map_or(0, |i| i + 1);
    memchr::memchr(b'\t', &b[line..token]).map(|i| line + i)
}

/// A canonical text for a key, used to detect duplicates (and to name
/// them in messages).
fn key_text(key: &Node) -> String {
    key.flow_text()
}

/// Converts a character index into `src` to a byte offset.
fn byte_of_char(src: &str, chars: usize) -> usize {
    src.char_indices()
        .nth(chars)
        .map(|(b, _)| b)
        .unwrap_or(src.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(src: &str) -> Node {
        parse(src, 0).unwrap().root.unwrap()
    }

    /// When the simple reader takes `src` on, it gives what the general
    /// parser gives; returns whether it took it on.
    fn agrees(src: &str, base: usize) -> bool {
        let Some(simple) = parse_simple(src, base) else {
            return false;
        };
        assert_eq!(
            Ok(&simple),
            parse_general(src, base).as_ref(),
            "the simple reader differs on:\n{src}"
        );
        true
    }

    #[test]
    fn the_simple_reader_agrees_with_the_parser() {
        let taken = [
            "title: Use gix\nstatus: active\ndate: 2026-11-01\n",
            "title: Adopt a config\nempty:\nsources:\n  - cmem:CMEM-1\n  - commit:cbf\nseq0:\n- a\n- b\ntags: [git, lint]\nnum: 12\n",
            "a:   spaced   value   \nb: x\n",
            "tags: [ a ,b,  c ]\nlast:\n",
            "sources:\n    -   https://example.com/a?b=c#frag\n    - file:x.md\n",
            "title: 日本語の検索機能\ndescription: 按二元组切分 — ok\n",
            "key: a:b\nurl: http://x\n",
            "k: ~\nn: null\nb: true\nf: 1.5\n",
        ];
        for src in taken {
            assert!(agrees(src, 0), "not taken on: {src}");
            assert!(agrees(src, 17), "not taken on: {src}");
        }
        let general = [
            "",
            "\n",
            "title: x",
            "# comment\ntitle: x\n",
            "title: x # comment\n",
            "title: 'quoted'\n",
            "title: \"quoted\"\n",
            "title: &a x\nother: *a\n",
            "title: !!str 5\n",
            "title: |\n  block\n",
            "title: >\n  folded\n",
            "title: two\n  lines\n",
            "title: x\n\nstatus: y\n",
            "title: x\ntitle: y\n",
            "  title: x\n",
            "title: a: b\n",
            "title: x:\n",
            "title:x\n",
            "title: - x\n",
            "tags: []\n",
            "tags: [a, ]\n",
            "tags: [a, [b]]\n",
            "tags: [a: b]\n",
            "tags: {a: b}\n",
            "list:\n  - a\n - b\n",
            "list:\n  -\n",
            "list:\n  - a\n    more\n",
            "list:\n  - a: b\n",
            "list:\n  - - a\n",
            "nested:\n  key: value\n",
            "title: x\r\n",
            "title:\tx\n",
            "title: a\u{2028}b\n",
            "\u{feff}title: x\n",
            "---\ntitle: x\n",
            "? complex\n: key\n",
        ];
        let long_key = format!("{}: v\n", "k".repeat(1025));
        for src in general.iter().copied().chain([long_key.as_str()]) {
            assert!(!agrees(src, 0), "taken on: {src:?}");
        }
    }

    #[test]
    fn odd_characters_are_found_by_their_bytes() {
        let odd = |c: char| {
            (c < ' ' && c != '\n')
                || matches!(
                    c,
                    '\u{7f}'
                        ..='\u{9f}'
                            | '\u{feff}'
                            | '\u{2028}'
                            | '\u{2029}'
                            | '\u{fffe}'
                            | '\u{ffff}'
                )
        };
        let chars = ('\0'..='\u{3100}').chain('\u{fe00}'..='\u{10000}');
        // Also where the character straddles two of the chunks the
        // vectorized pass looks at (32 bytes).
        let pad = "x".repeat(30);
        for c in chars {
            for text in [
                format!("a{c}b"),
                format!("{c}"),
                format!("\u{e9}{c}"),
                format!("{pad}{c}"),
                format!("{pad}x{c}x"),
            ] {
                assert_eq!(has_odd_char(&text), odd(c), "{c:?} in {text:?}");
            }
        }
    }

    /// Random documents near the simple shape (pieces with indicators,
    /// spaces, colons, brackets and multi-byte text): wherever the simple
    /// reader takes one on, the parser agrees.
    #[test]
    fn the_simple_reader_agrees_on_random_documents() {
        let mut next = crate::testing::below(0x2545_f491_4f6c_dd1d);
        const KEYS: [&str; 6] = ["title", "status", "a-b", "k_1", "2024", "tags"];
        const WORDS: [&str; 16] = [
            "x",
            "two words",
            "a:b",
            "a: b",
            "#c",
            "a #c",
            "-5",
            "- x",
            "[a, b]",
            "[a,b ]",
            "[]",
            "[a, ]",
            "検索 ok",
            "x:",
            "  pad  ",
            "~",
        ];
        let mut taken = 0;
        for _ in 0..20_000 {
            let mut doc = String::new();
            for _ in 0..1 + next(4) {
                doc.push_str(KEYS[next(KEYS.len())]);
                match next(4) {
                    0 => doc.push_str(":\n"),
                    1 => {
                        doc.push_str(":\n");
                        let indent = " ".repeat(next(3));
                        for _ in 0..1 + next(3) {
                            let pad = " ".repeat(next(2));
                            doc.push_str(&format!("{indent}-{pad} {}\n", WORDS[next(WORDS.len())]));
                        }
                    }
                    _ => doc.push_str(&format!(": {}\n", WORDS[next(WORDS.len())])),
                }
            }
            if agrees(&doc, next(5)) {
                taken += 1;
            }
        }
        assert!(taken > 1_000, "only {taken} random documents taken on");
    }

    /// Every front matter of the corpora and of a generated workspace: the
    /// simple reader agrees with the parser wherever it reads one, and it
    /// reads most of the generated ones.
    #[test]
    fn the_simple_reader_agrees_on_the_corpora_and_generated_records() {
        let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
        if !shared.is_dir() {
            eprintln!("skipping: {} is absent", shared.display());
            return;
        }
        let generated = tempfile::tempdir().expect("temp dir");
        let made = match std::process::Command::new("python3")
            .arg(shared.join("bench/gen_workspace.py"))
            .arg("--out")
            .arg(generated.path())
            .args(["--records", "1000", "--violations", "0.05"])
            .output()
        {
            Ok(o) => {
                assert!(o.status.success(), "gen_workspace.py failed: {o:?}");
                true
            }
            Err(e) => {
                eprintln!("skipping the generated records: cannot run python3: {e}");
                false
            }
        };
        let count = |dir: &std::path::Path| -> (usize, usize) {
            let (mut seen, mut taken) = (0, 0);
            let mut stack = vec![dir.to_path_buf()];
            while let Some(d) = stack.pop() {
                for entry in std::fs::read_dir(&d).expect("read dir").flatten() {
                    let path = entry.path();
                    if path.is_dir() {
                        stack.push(path);
                        continue;
                    }
                    if path.extension().is_none_or(|e| e != "md") {
                        continue;
                    }
                    let Ok(text) = std::fs::read_to_string(&path) else {
                        continue;
                    };
                    if let crate::syntax::frontmatter::Split::Found(parts) =
                        crate::syntax::frontmatter::split(&text)
                    {
                        seen += 1;
                        if agrees(&text[parts.yaml.clone()], parts.yaml.start) {
                            taken += 1;
                        }
                    }
                }
            }
            (seen, taken)
        };
        let (seen, taken) = count(&shared.join("corpora"));
        assert!(seen > 3000, "{seen} front matters in the corpora");
        eprintln!("corpora: {taken} of {seen} read by the simple reader");
        if !made {
            return;
        }
        let (seen, taken) = count(generated.path());
        assert!(seen >= 950, "{seen} generated front matters");
        eprintln!("generated: {taken} of {seen} read by the simple reader");
        assert!(
            taken * 10 >= seen * 9,
            "only {taken} of {seen} generated read simply"
        );
    }

    #[test]
    fn spans_of_keys_and_values() {
        let src = "title: Hello\nsources:\n  - a\n  - b\n";
        let r = root(src);
        let e = r.get("title").unwrap();
        assert_eq!(&src[e.key.span.clone()], "title");
        assert_eq!(&src[e.value.span.clone()], "Hello");
        let s = r.get("sources").unwrap();
        match &s.value.value {
            Value::Seq { items, flow } => {
                assert!(!flow);
                assert_eq!(&src[items[1].span.clone()], "b");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn resolves_core_schema() {
        assert_eq!(resolve_plain("yes"), Resolved::Str);
        assert_eq!(resolve_plain("true"), Resolved::Bool(true));
        assert_eq!(resolve_plain("1e3"), Resolved::Float);
        assert_eq!(resolve_plain("2026-11-01"), Resolved::Str);
        assert_eq!(resolve_plain("-12"), Resolved::Int);
        assert_eq!(resolve_plain("~"), Resolved::Null);
        assert_eq!(resolve_plain("1.10"), Resolved::Float);
        assert_eq!(resolve_plain("."), Resolved::Str);
    }

    #[test]
    fn duplicate_keys_are_reported() {
        let doc = parse("a: 1\nb: 2\na: 3\n", 0).unwrap();
        assert_eq!(doc.duplicates.len(), 1);
        assert_eq!(doc.duplicates[0].repeat, 10..11);
    }

    #[test]
    fn block_collection_span_ends_at_its_last_child() {
        let src = "title:\n  a: b\nsources:\n  - x\n  # note\nflow: [y,\n  z]\nk: v\n";
        let r = root(src);
        assert_eq!(&src[r.get("title").unwrap().value.span.clone()], "a: b");
        assert_eq!(&src[r.get("sources").unwrap().value.span.clone()], "- x");
        assert_eq!(&src[r.get("flow").unwrap().value.span.clone()], "[y,\n  z]");
    }

    #[test]
    fn empty_value_is_empty_text_not_tilde() {
        let src = "date:   \nb: ~\n";
        let r = root(src);
        let date = r.get("date").unwrap();
        assert_eq!(date.value.as_scalar().unwrap().text, "");
        assert!(date.value.is_null());
        assert_eq!(r.get("b").unwrap().value.as_scalar().unwrap().text, "~");
    }

    #[test]
    fn multibyte_offsets() {
        let src = "title: 日本語\ndate: x\n";
        let r = root(src);
        let e = r.get("date").unwrap();
        assert_eq!(&src[e.value.span.clone()], "x");
    }

    #[test]
    fn syntax_error_offset_is_bytes() {
        let src = "title: 日本: x\n";
        let err = parse(src, 10).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Syntax);
        assert!(err.at >= 10 && err.at <= 10 + src.len());
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut src = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let refs = vec![format!("*a{}", i - 1); 9].join(", ");
            src.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let err = parse(&src, 0).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Budget);
    }

    /// Tabs as the indentation of a block collection are refused, every
    /// other tab (separation, block and quoted scalars, flow collections,
    /// blank lines) is read. Cases from the yaml-test-suite (DK95, Q5MG,
    /// 6CA3, 6BCT, A2M4, Y79Y, DC7X) and their neighbours; the quoted
    /// continuation of DK95-01, which the parser lets pass, is refused by
    /// `quoted_continuation`.
    #[test]
    fn tabs_as_indentation_are_refused_exactly() {
        let cases: &[(&str, bool)] = &[
            ("\tmax_sources: 2\n", false),
            ("# c\n\tfoo: 1\n", false),
            ("\n\tfoo: 1\n", false),
            (" \tfoo: 1\n", false),
            ("\t&x foo: 1\n", false),
            ("\t'foo': 1\n", false),
            ("\t[a]: 1\n", false),
            ("\t- a\n", false),
            ("- \tfoo: 1\n", false),
            ("-\tfoo: 1\n", false),
            ("a:\n  - \tfoo: 1\n", false),
            ("&x\n\tfoo: 1\n", false),
            ("!!map\n\tfoo: 1\n", false),
            ("a:\r\tb: 1\r", false),
            ("foo:\n\tbar\n", false),
            ("foo:\n  a: 1\n  \tb: 2\n", false),
            ("a:\n\t- x\n", false),
            ("foo: \"bar\n\tbaz\"\n", false),
            ("foo: 'bar\n\tbaz'\n", false),
            ("foo: \"bar\n\t\"\n", false),
            ("a:\n  b: \"x\n \ty\"\n", false),
            ("- \"x\n\ty\"\n", false),
            ("a:\n  b: \"x\n   \ty\"\n", true),
            ("foo: \"bar\n\t\n baz\"\n", false),
            ("foo: \"bar\n \t\n baz\"\n", true),
            ("foo: \"bar\n\n baz\"\n", true),
            ("foo: [\"bar\n\tbaz\"]\n", true),
            ("foo: \"bar\tbaz\"\n", true),
            ("foo: \"bar\n \t \t baz \t \t \"\n", true),
            (" \t\nfoo: 1\n", true),
            ("foo: 1\n\t\nbar: 2\n", true),
            ("\t{}\n", true),
            ("\t[\n\t]\n", true),
            ("\tfoo\n", true),
            ("\t!!map\nfoo: 1\n", true),
            ("\t# comment\nfoo: 1\n", true),
            ("foo: bar\n \tbaz\n", true),
            ("a: [x,\n\ty]\n", true),
            ("a: {x: 1,\n\ty: 2}\n", true),
            ("a: |\n  x\n  \ty\n", true),
            ("a:\t1\n", true),
            ("-\t-1\n", true),
            ("a:\n- \tb\n", true),
            ("a:\n  ? \tb\n", true),
            ("- foo:\t bar\n- - baz\n  -\tbaz\n", true),
            ("? a\n: -\tb\n  -  -\tc\n     - d\n", true),
            ("a: b\t\nseq:\t\n - a\t\nc: d\t#X\n", true),
        ];
        for (src, valid) in cases {
            assert_eq!(parse(src, 0).is_ok(), *valid, "{src:?}");
        }
        let err = parse("title: x\ntags:\n- \ta: b\n", 7).unwrap_err();
        assert_eq!((err.at, err.kind), (7 + 17, ErrorKind::Syntax));
        let err = parse("title: \"a\n\tb\"\n", 4).unwrap_err();
        assert_eq!((err.at, err.kind), (4 + 10, ErrorKind::Syntax));
    }

    #[test]
    fn deep_nesting_is_refused() {
        let src = format!("a: {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(parse(&src, 0).unwrap_err().kind, ErrorKind::Budget);
        let mut block = String::new();
        for i in 0..10_000 {
            block.push_str(&" ".repeat(i));
            block.push_str("k:\n");
        }
        let err = parse(&block, 0).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Budget);
    }
}
