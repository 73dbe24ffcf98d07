//! memlint's own drawing of the report shapes `check` produces: one label
//! on one span of one line, an optional help line, the message wrapped at
//! the width, and the shape without source. It writes the same bytes as
//! miette's `GraphicalReportHandler` (unicode characters, no colour, one
//! line of context, without the primary span start) for those shapes, at a
//! fraction of the cost (no boxed contents, styled strings or per-line
//! allocations); [`Drawer::report`] declines any other shape (a span over several
//! lines, colour) and the caller hands it to miette. Its steps follow
//! miette 7.6's `render_report`: header, message, snippet, help.

use crate::model::severity::Severity;
use miette::SourceCode as _;
use std::fmt::Write as _;
use unicode_width::UnicodeWidthChar as _;

/// The tab width miette expands tabs of the excerpt to.
const TAB: usize = 4;

/// A report to draw: what `check`'s human output shows of a diagnostic.
pub(crate) struct Shape<'a> {
    pub(crate) severity: Severity,
    /// The rule: the header, and the label of the span.
    pub(crate) rule: &'a str,
    pub(crate) message: &'a str,
    pub(crate) help: Option<&'a str>,
    /// The excerpt, or `None` for a report without source.
    pub(crate) snippet: Option<Snippet<'a>>,
}

/// The excerpt of a report: the text of the lines it may show, with the
/// file's line number of its first line, and the span within it.
pub(crate) struct Snippet<'a> {
    /// What the box's top names (`path:line:column`).
    pub(crate) name: &'a str,
    pub(crate) text: &'a str,
    /// The file's line number of `text`'s first line, 0-based.
    pub(crate) first_line: usize,
    pub(crate) span: std::ops::Range<usize>,
}

/// How reports are wrapped: the width, and the word separator memlint
/// gives textwrap (the same options as the miette handler it stands for).
#[derive(Clone, Copy)]
pub(crate) struct Wrap {
    pub(crate) width: usize,
    pub(crate) words: fn(&str) -> Box<dyn Iterator<Item = textwrap::core::Word<'_>> + '_>,
}

impl Wrap {
    /// `text` wrapped at the width less two, its first line after
    /// `first`, the others after `rest`, as miette's `wrap` does.
    fn fill(&self, out: &mut String, text: &str, first: &str, rest: &str) {
        let opts = textwrap::Options::new(self.width.saturating_sub(2))
            .initial_indent(first)
            .subsequent_indent(rest)
            .break_words(false)
            .word_separator(textwrap::WordSeparator::Custom(self.words))
            .word_splitter(textwrap::WordSplitter::NoHyphenation);
        out.push_str(&textwrap::fill(text, opts));
        out.push('\n');
    }
}

/// One line of the excerpt as miette's `get_lines` cuts it.
struct Line<'a> {
    /// 1-based.
    number: usize,
    /// Offset of the line in the snippet's text.
    offset: usize,
    /// Bytes of the line with its line break.
    length: usize,
    text: &'a str,
}

impl Line<'_> {
    /// Whether the span starts and ends on this line (miette's
    /// `span_line_only`).
    fn holds(&self, s: usize, e: usize) -> bool {
        s >= self.offset && e <= self.offset + self.length
    }

    /// Whether the span shows on this line (miette's `span_applies`).
    fn shows(&self, s: usize, len: usize) -> bool {
        let spanlen = len.max(1);
        let end = self.offset + self.length;
        (s >= self.offset && s < end)
            || (s < self.offset && s + spanlen > end)
            || (s + spanlen > self.offset && s + spanlen <= end)
    }
}

/// Draws reports: [`Drawer::report`] appends one to the output, as miette
/// would draw it. A message many findings share (the records citing one
/// changed file) is wrapped once on each thread, for every file drawn
/// there ([`WRAPPED`]).
pub(crate) struct Drawer {
    wrap: Wrap,
}

/// The messages wrapped on this thread: width → message → the lines as
/// wrapped after each severity's icon. Files are drawn one renderer each,
/// on every core (a cold check of 100k records wrapped 25k messages, 3.7k
/// of them different); the map is emptied when it grows past
/// [`WRAPPED_UP_TO`] (a language server draws for as long as it runs).
type Wrapped =
    crate::model::hashing::Map<usize, crate::model::hashing::Map<String, [Option<String>; 2]>>;

thread_local! {
    static WRAPPED: std::cell::RefCell<Wrapped> = Default::default();
}

/// Most messages [`WRAPPED`] holds.
const WRAPPED_UP_TO: usize = 16_384;

impl Drawer {
    pub(crate) fn new(wrap: Wrap) -> Self {
        Drawer { wrap }
    }

    /// Appends the report of `shape` to `out` as miette draws it and
    /// returns true; or returns false having written nothing, for a shape
    /// it does not draw.
    pub(crate) fn report(&mut self, out: &mut String, shape: &Shape<'_>) -> bool {
        let lines = match &shape.snippet {
            Some(s) => match excerpt(s) {
                Some(lines) => Some(lines),
                None => return false,
            },
            None => None,
        };
        out.push_str(shape.rule);
        out.push_str("\n\n");
        self.message(out, shape.message, shape.severity);
        if let (Some(s), Some(lines)) = (&shape.snippet, lines) {
            snippet(out, shape.rule, s, &lines);
        }
        if let Some(help) = shape.help {
            self.wrap.fill(out, help, "  help: ", "        ");
        }
        true
    }

    /// The message after its severity's icon, wrapped.
    fn message(&mut self, out: &mut String, message: &str, severity: Severity) {
        let k = usize::from(severity == Severity::Warning);
        let width = self.wrap.width;
        let known = WRAPPED.with_borrow(|wrapped| {
            let lines = wrapped.get(&width)?.get(message)?[k].as_ref()?;
            out.push_str(lines);
            Some(())
        });
        if known.is_some() {
            return;
        }
        let chars = chars();
        let icon = match severity {
            Severity::Error => &chars.error,
            Severity::Warning => &chars.warning,
        };
        let mut w = String::new();
        let (first, rest) = (format!("  {icon} "), format!("  {} ", chars.vbar));
        self.wrap.fill(&mut w, message, &first, &rest);
        out.push_str(&w);
        WRAPPED.with_borrow_mut(|wrapped| {
            let messages = wrapped.entry(width).or_default();
            if messages.len() >= WRAPPED_UP_TO {
                messages.clear();
            }
            messages.entry(message.to_string()).or_default()[k] = Some(w);
        });
    }
}

/// The characters of miette's unicode theme.
fn chars() -> &'static miette::ThemeCharacters {
    static CHARS: std::sync::LazyLock<miette::ThemeCharacters> =
        std::sync::LazyLock::new(miette::ThemeCharacters::unicode);
    &CHARS
}

/// The lines miette would show for the snippet, or `None` where it would
/// fail to read them or draw a shape [`Drawer::report`] does not (a gutter: a span
/// over several lines).
fn excerpt<'a>(s: &Snippet<'a>) -> Option<Vec<Line<'a>>> {
    let span: miette::SourceSpan = (s.span.start, s.span.len()).into();
    let text = s.text;
    // The contents and the check miette makes before drawing the box.
    let contents = text.read_span(&span, 1, 1).ok()?;
    text.read_span(&span, 0, 0).ok()?;
    if text.contains(['\r', '\u{1b}']) {
        return None;
    }
    let start = contents.span().offset();
    let data = text.get(start..start + contents.span().len())?;
    let (start_line, len) = (contents.line() + s.first_line, s.span.len());
    // miette's `get_lines` without carriage returns: a line ends after its
    // line feed or at the end of the data; one that ends the data without
    // a line feed counts one more line.
    let mut lines = Vec::with_capacity(3);
    let mut number = start_line;
    let mut at = 0;
    while at < data.len() {
        let (body, next) = match memchr::memchr(b'\n', &data.as_bytes()[at..]) {
            Some(i) => (at + i, at + i + 1),
            None => (data.len(), data.len()),
        };
        number += 1;
        lines.push(Line {
            number,
            offset: start + at,
            length: next - at,
            text: &data[at..body],
        });
        at = next;
    }
    let (sp, end) = (s.span.start, s.span.start + len);
    // Every line showing the span must hold it whole: no gutter.
    lines
        .iter()
        .all(|l| !l.shows(sp, len) || l.holds(sp, end))
        .then_some(lines)
}

/// The box of the excerpt: its top naming the place, each line numbered,
/// the span underlined and labelled with the rule.
fn snippet(out: &mut String, rule: &str, s: &Snippet<'_>, lines: &[Line<'_>]) {
    let c = chars();
    let (sp, len) = (s.span.start, s.span.len());
    let w = lines.last().map_or(0, |l| l.number).to_string().len();
    pad(out, w + 2);
    out.push(c.ltop);
    out.push(c.hbar);
    out.push('[');
    out.push_str(s.name);
    out.push_str("]\n");
    for line in lines {
        let _ = write!(out, " {:w$} {} ", line.number, c.vbar);
        line_text(out, line.text);
        if !(line.shows(sp, len) && line.holds(sp, sp + len)) {
            continue;
        }
        let _ = write!(out, " {:w$} {} ", "", c.vbar_break);
        let start = visual_offset(line, sp, true);
        let end = match len {
            0 => start + 1,
            _ => visual_offset(line, sp + len, false).max(start + 1),
        };
        let vbar = (start + end) / 2;
        pad(out, start);
        repeat(out, c.underline, vbar - start);
        out.push(if len == 0 { c.uarrow } else { c.underbar });
        repeat(out, c.underline, end - vbar - 1);
        out.push('\n');
        let _ = write!(out, " {:w$} {} ", "", c.vbar_break);
        pad(out, vbar);
        out.push(c.lbot);
        repeat(out, c.hbar, 2);
        out.push(' ');
        out.push_str(rule);
        out.push('\n');
    }
    pad(out, w + 2);
    out.push(c.lbot);
    repeat(out, c.hbar, 4);
    out.push('\n');
}

fn pad(out: &mut String, n: usize) {
    repeat(out, ' ', n);
}

fn repeat(out: &mut String, c: char, n: usize) {
    out.extend(std::iter::repeat_n(c, n));
}

/// The columns each character of `text` takes, tabs to the next multiple
/// of [`TAB`] (miette's `line_visual_char_width`; the text holds no escape).
fn widths(text: &str) -> impl Iterator<Item = (char, usize)> + '_ {
    let mut column = 0;
    text.chars().map(move |c| {
        let width = match c {
            '\t' => TAB - column % TAB,
            c => c.width().unwrap_or(0),
        };
        column += width;
        (c, width)
    })
}

/// A line of the excerpt with its tabs expanded.
fn line_text(out: &mut String, text: &str) {
    if !text.contains('\t') {
        out.push_str(text);
    } else {
        for (c, width) in widths(text) {
            match c {
                '\t' => pad(out, width),
                c => out.push(c),
            }
        }
    }
    out.push('\n');
}

/// The column of byte `offset` (of the snippet's text) on `line`, as
/// miette's `visual_offset` counts it: inside a character, its first
/// column for a `start`, else past it; past the text, one more.
fn visual_offset(line: &Line<'_>, offset: usize, start: bool) -> usize {
    let mut i = offset - line.offset;
    while i <= line.text.len() && !line.text.is_char_boundary(i) {
        if start {
            i -= 1;
        } else {
            i += 1;
        }
    }
    let width: usize = widths(&line.text[..i.min(line.text.len())])
        .map(|(_, w)| w)
        .sum();
    if i > line.text.len() {
        width + 1
    } else {
        width
    }
}
