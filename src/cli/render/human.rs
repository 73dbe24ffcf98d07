//! Human `check` output: one graphical miette report per diagnostic, with
//! the excerpt masked and its control characters shown, then the count line.

use super::graphical;
use super::summary::Summary;
use crate::model::diagnostic::Diagnostic;
use crate::model::severity::Severity;
use crate::syntax::sanitize;
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The help line of a finding `--fix` repairs.
const FIX_HELP: &str = "`memlint check --fix` repairs this";

#[derive(Debug)]
struct Report<'a> {
    d: &'a Diagnostic,
    /// `None` for a finding with no text to show (a file too large or
    /// unreadable): its place then leads the message.
    source: Option<NamedSource<Window>>,
}

impl std::fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        Some(Box::new(self.d.rule))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.d
            .fixable
            .then(|| Box::new(FIX_HELP) as Box<dyn std::fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        let len = self.d.span.end.saturating_sub(self.d.span.start);
        Some(Box::new(std::iter::once(LabeledSpan::new(
            Some(self.d.rule.to_string()),
            self.d.span.start,
            len,
        ))))
    }
}

/// The width human output wraps messages at: `COLUMNS` when set, else the
/// terminal's width when standard output is one, else 100.
pub(crate) fn width() -> usize {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return n;
    }
    terminal_width().unwrap_or(100)
}

#[cfg(unix)]
fn terminal_width() -> Option<usize> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    // SAFETY: TIOCGWINSZ fills the winsize it is given, nothing else.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then_some(usize::from(size.ws_col))
}

#[cfg(not(unix))]
fn terminal_width() -> Option<usize> {
    None
}

/// Where textwrap may break a message: at spaces outside code spans only.
/// A file name, a slug or a suggested command in backticks is copied whole
/// from the terminal; with this (and no hyphenation, no broken words) it
/// is never cut at a hyphen or a space inside it.
fn message_words(line: &str) -> Box<dyn Iterator<Item = textwrap::core::Word<'_>> + '_> {
    let bytes = line.as_bytes();
    let mut words = Vec::new();
    let (mut start, mut in_code) = (0, false);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'`' => in_code = !in_code,
            b' ' if !in_code => {
                // The word keeps its run of spaces as its whitespace.
                while bytes.get(i + 1) == Some(&b' ') {
                    i += 1;
                }
                words.push(textwrap::core::Word::from(&line[start..=i]));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < line.len() {
        words.push(textwrap::core::Word::from(&line[start..]));
    }
    Box::new(words.into_iter())
}

/// Lines longer than this (in bytes) are cut around the spot shown.
const LONG_LINE: usize = 200;
/// How much of a long line is shown before the spot, in bytes.
const LEAD: usize = 60;
/// How much of a long line is shown in all.
const SHOWN: usize = 160;
/// Most lines of a span shown; a longer span is cut after them.
const SPAN_LINES: usize = 5;

/// The few lines of a file one report shows (long ones cut around the
/// spot): miette reads only these, so a report costs the same whatever the
/// size of the file, where handing it the whole file made every report
/// copy and scan it (a megabyte with 170,000 findings: minutes).
struct Window {
    text: String,
    /// The file's line number of the window's first line, 0-based.
    first_line: usize,
    /// Whether a line was cut or had control characters shown: the last
    /// pass over the output would judge it anew (a credential or a joiner
    /// cut short, a word boundary that a symbol made), so its report still
    /// takes that pass.
    recheck: bool,
}

impl miette::SourceCode for Window {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let inner = self.text.as_str().read_span(span, before, after)?;
        Ok(Box::new(miette::MietteSpanContents::new(
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            inner.column(),
            inner.line_count(),
        )))
    }
}

/// The start of each line of a text.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
    starts
}

/// The [`Window`] of `text` (its control characters not yet shown;
/// masked, or to be masked line by line when `by_line`) for `span` (which
/// lies in it, on character boundaries) with one line of context each
/// side, and the span within the window. Control characters are shown
/// line by line, in the lines shown only: a line is shown with its line
/// break, so each character is judged with the same neighbours as in the
/// whole text.
fn window(
    text: &str,
    starts: &[usize],
    span: &std::ops::Range<usize>,
    by_line: bool,
) -> (Window, std::ops::Range<usize>) {
    let line_of = |o: usize| starts.partition_point(|&s| s <= o) - 1;
    let (first, last) = (line_of(span.start), line_of(span.end));
    let last_span_line = last.min(first + SPAN_LINES - 1);
    let from = first.saturating_sub(1);
    let to = (last_span_line + 1).min(starts.len() - 1);
    let mut out = String::new();
    let (mut start, mut end) = (None, None);
    let mut recheck = false;
    for line in from..=to {
        let ls = starts[line];
        let next = starts.get(line + 1).copied().unwrap_or(text.len());
        let raw = match by_line {
            true => sanitize::secrets_in_place(&text[ls..next]),
            false => std::borrow::Cow::Borrowed(&text[ls..next]),
        };
        let (shown, shift) = sanitize::controls_shifted(&raw, sanitize::Mode::Text);
        // Where an offset of the text in this line (or just past it) lands
        // in the line as shown.
        let local = |o: usize| (ls..=next).contains(&o).then(|| shift.at(o - ls));
        let mut le = shown.len() - usize::from(line + 1 < starts.len());
        // A CR of a CRLF ends the line: miette, reading the window, would
        // count a CR at its very end as part of the text.
        if le > 0 && shown.as_bytes()[le - 1] == b'\r' {
            le -= 1;
        }
        let line_text = &shown[..le];
        if line > from {
            out.push('\n');
        }
        let (a, b) = if le <= LONG_LINE {
            (0, le)
        } else {
            // Cut around the span's start on its line, else its end.
            let on_line = |o: usize| local(o).filter(|&l| l <= le);
            let focus = on_line(span.start)
                .or_else(|| on_line(span.end))
                .unwrap_or(0);
            let a = floor_boundary(line_text, focus.saturating_sub(LEAD));
            (a, floor_boundary(line_text, (a + SHOWN).min(le)))
        };
        let base = out.len() + if a > 0 { '…'.len_utf8() } else { 0 };
        if a > 0 {
            out.push('…');
        }
        out.push_str(&line_text[a..b]);
        if b < le {
            out.push('…');
        }
        // A line that still holds what the last pass would mask (a
        // credential masked in place inside a URL's password, whose `*`
        // the URL pattern matches again) takes that pass too: else a
        // fresh report would differ from a kept one and from miette's.
        recheck |= a > 0
            || b < le
            || shown != *raw
            || matches!(sanitize::secrets(line_text), std::borrow::Cow::Owned(_));
        // Where an offset of this line lands in the window.
        let at = |o: usize| base + local(o).unwrap_or(0).clamp(a, b) - a;
        if line == first {
            start = Some(at(span.start));
        }
        if line == last {
            end = Some(at(span.end));
        } else if line == last_span_line {
            end = Some(base + b - a);
        }
    }
    // A line break after the last line: miette counts a line as context
    // only once it ends.
    if starts.len() > to + 1 {
        out.push('\n');
    }
    let start = start.unwrap_or(0);
    let end = end.unwrap_or(out.len()).max(start);
    (
        Window {
            text: out,
            first_line: from,
            recheck,
        },
        start..end,
    )
}

/// The nearest character boundary of `text` at or before `o`.
fn floor_boundary(text: &str, mut o: usize) -> usize {
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    o
}

/// Human output: one graphical report per diagnostic, then the count line.
/// `sources` maps a path to its text (files with diagnostics only);
/// messages wrap at `width` columns.
pub(crate) fn human(
    diags: &[Diagnostic],
    sources: &HashMap<String, String>,
    summary: Summary,
    color: bool,
    width: usize,
) -> String {
    rendered(diags, sources, summary, color, width).text
}

/// Human output and which of its bytes are shown as they are.
pub(crate) struct Rendered {
    pub(crate) text: String,
    /// The ranges of `text` memlint's own renderer drew from pieces
    /// already masked and sanitised (the excerpts, messages and paths):
    /// written as they are. The rest (miette's reports, the count line)
    /// still takes the last pass of the output module.
    pub(crate) shown: Vec<std::ops::Range<usize>>,
}

impl Rendered {
    /// The output in pieces, each with whether it is shown as it is
    /// (else it takes the last pass).
    pub(crate) fn pieces(&self) -> impl Iterator<Item = (&str, bool)> + '_ {
        let mut at = 0;
        let mut out = Vec::with_capacity(self.shown.len() * 2 + 1);
        for r in &self.shown {
            out.push((&self.text[at..r.start], false));
            out.push((&self.text[r.clone()], true));
            at = r.end;
        }
        out.push((&self.text[at..], false));
        out.into_iter().filter(|(t, _)| !t.is_empty())
    }

    /// The output as the last pass makes it, in [`Rendered::pieces`]: the
    /// shown ones as they are, the others masked and with their controls
    /// shown (`sgr`: memlint's colour sequences let through).
    pub(crate) fn passed(&self, sgr: bool) -> impl Iterator<Item = std::borrow::Cow<'_, str>> + '_ {
        self.pieces().map(move |(piece, shown)| match shown {
            true => std::borrow::Cow::Borrowed(piece),
            false => sanitize::terminal(piece, sgr),
        })
    }

    /// Marks the bytes of `text` from `from` to its end as already shown.
    fn mark_shown(&mut self, from: usize) {
        let to = self.text.len();
        match self.shown.last_mut() {
            Some(last) if last.end == from => last.end = to,
            _ if to > from => self.shown.push(from..to),
            _ => {}
        }
    }
}

/// The text of one file as its reports show it: masked, with its line
/// starts and its path as shown.
struct Prepared<'a> {
    path: &'a str,
    /// The path as shown, and whether control characters were shown in it.
    shown_path: (String, bool),
    /// Masked in place (the spans still point where they did), or not
    /// yet when `by_line`.
    text: std::borrow::Cow<'a, str>,
    /// Whether the lines shown are masked one by one (see
    /// [`crate::syntax::secrets::line_by_line`]).
    by_line: bool,
    starts: Vec<usize>,
}

/// A value printed on one line as [`sanitize::line`] shows it, and
/// whether control characters were shown in it.
fn shown_line(value: &str) -> (String, bool) {
    let masked = sanitize::secrets(value);
    match sanitize::controls(&masked, sanitize::Mode::Line) {
        std::borrow::Cow::Borrowed(t) => (t.to_string(), false),
        std::borrow::Cow::Owned(t) => (t, true),
    }
}

/// The reports of one file at a time; see [`human`].
struct Renderer<'a> {
    handler: GraphicalReportHandler,
    /// memlint's own renderer, where it may draw (no colour).
    own: Option<graphical::Drawer>,
    /// Many findings share a message (the records citing one changed
    /// file): each is shown once (see [`shown_line`]).
    messages: crate::model::hashing::Map<&'a str, (String, bool)>,
}

/// [`human`], with the ranges of the output that need no last pass.
pub(crate) fn rendered(
    diags: &[Diagnostic],
    sources: &HashMap<String, String>,
    summary: Summary,
    color: bool,
    width: usize,
) -> Rendered {
    rendered_by(diags, sources, summary, color, width, !color)
}

/// [`rendered`], with memlint's own renderer where it may draw and the
/// lines shown masked one by one where that is the same (`own`; never
/// with colour), or with miette alone and every text masked whole.
fn rendered_by(
    diags: &[Diagnostic],
    sources: &HashMap<String, String>,
    summary: Summary,
    color: bool,
    width: usize,
    own: bool,
) -> Rendered {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    // The source is named `path:line:column` with the column in characters;
    // miette would append its own byte-based line and column after it.
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(width)
        .with_break_words(false)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
        .with_word_separator(textwrap::WordSeparator::Custom(message_words))
        .with_context_lines(1)
        .without_primary_span_start();
    let mut r = Renderer {
        handler,
        own: (own && !color).then(|| {
            graphical::Drawer::new(graphical::Wrap {
                width,
                words: message_words,
            })
        }),
        messages: Default::default(),
    };
    // About 700 bytes a report: grown once, not doubled from nothing.
    let mut out = Rendered {
        text: String::with_capacity(diags.len().saturating_mul(720)),
        shown: Vec::new(),
    };
    // The text of the file of the last diagnostic: diagnostics come sorted
    // by path, so each file is prepared once.
    let mut prepared: Option<Prepared<'_>> = None;
    for d in diags {
        let text = sources.get(&d.path).map_or("", String::as_str);
        if prepared.as_ref().is_none_or(|p| p.path != d.path) {
            // Secrets are masked in every excerpt of their file (a report
            // of another rule on a nearby line shows them as context), in
            // place so that the spans still point where they did: in the
            // lines shown only where that masks the same (most texts), else
            // in the whole text. Control characters (an escape sequence in
            // a title, a bell) are shown as symbols, in the lines shown
            // (see `window`).
            let by_line = own && crate::syntax::secrets::line_by_line(text);
            let masked = match by_line {
                true => std::borrow::Cow::Borrowed(text),
                false => sanitize::secrets_in_place(text),
            };
            let starts = line_starts(&masked);
            prepared = Some(Prepared {
                path: d.path.as_str(),
                shown_path: shown_line(&d.path),
                text: masked,
                by_line,
                starts,
            });
        }
        if let Some(p) = prepared.as_ref() {
            r.report(&mut out, d, p);
        }
    }
    out.text.push_str(&summary.line());
    out.text.push('\n');
    out
}

impl<'a> Renderer<'a> {
    /// Appends the report of `d`, a finding in the file `p`.
    fn report(&mut self, out: &mut Rendered, d: &'a Diagnostic, p: &Prepared<'_>) {
        let text: &str = &p.text;
        let span_ok = d.span.end <= text.len()
            && text.is_char_boundary(d.span.start)
            && text.is_char_boundary(d.span.end);
        let (message, message_shown) = &*self
            .messages
            .entry(d.message.as_str())
            .or_insert_with(|| shown_line(&d.message));
        let (path, path_shown) = &p.shown_path;
        // Text with control characters shown is judged anew by the last
        // pass (a symbol can make a word boundary before a token).
        let recheck = *message_shown || *path_shown;
        let at = out.text.len();
        // A finding with no text to show (a file too large or unreadable)
        // is a report like the others, its place leading the message.
        if (!span_ok || text.is_empty()) && d.omitted == 0 {
            let message = format!("{path}:{}:{}: {message}", d.line, d.column);
            let shape = shape(d, &message, None);
            if !draw(self.own.as_mut(), out, &shape) {
                let shown = Diagnostic {
                    message,
                    path: path.clone(),
                    ..d.clone()
                };
                let report = Report {
                    d: &shown,
                    source: None,
                };
                if self.handler.render_report(&mut out.text, &report).is_err() {
                    let _ = writeln!(
                        out.text,
                        "{}[{}] {}",
                        d.severity.as_str(),
                        d.rule,
                        shown.message
                    );
                }
            }
            out.text.push('\n');
            if self.own.is_some() && !recheck {
                out.mark_shown(at);
            }
            return;
        }
        // The closing entry of a capped list is one line.
        if d.omitted > 0 {
            let _ = writeln!(
                out.text,
                "{}[{}] {}:{}:{}: {}",
                d.severity.as_str(),
                d.rule,
                path,
                d.line,
                d.column,
                message
            );
            return;
        }
        let (source, span) = window(text, &p.starts, &d.span, p.by_line);
        let name = format!("{path}:{}:{}", d.line, d.column);
        let recheck = recheck || source.recheck;
        let snippet = graphical::Snippet {
            name: &name,
            text: &source.text,
            first_line: source.first_line,
            span: span.clone(),
        };
        if draw(self.own.as_mut(), out, &shape(d, message, Some(snippet))) {
            out.text.push('\n');
            if !recheck {
                out.mark_shown(at);
            }
            return;
        }
        let shown = Diagnostic {
            path: path.clone(),
            message: message.clone(),
            span,
            ..d.clone()
        };
        let report = Report {
            d: &shown,
            source: Some(NamedSource::new(name, source)),
        };
        if self.handler.render_report(&mut out.text, &report).is_err() {
            let _ = writeln!(
                out.text,
                "{}[{}] {}: {}",
                shown.severity.as_str(),
                shown.rule,
                shown.path,
                shown.message
            );
        }
        out.text.push('\n');
    }
}

/// What memlint's renderer draws of `d`, its message already shown.
fn shape<'s>(
    d: &Diagnostic,
    message: &'s str,
    snippet: Option<graphical::Snippet<'s>>,
) -> graphical::Shape<'s> {
    graphical::Shape {
        severity: d.severity,
        rule: d.rule.as_str(),
        message,
        help: d.fixable.then_some(FIX_HELP),
        snippet,
    }
}

/// Draws `shape` with memlint's own renderer (`drawer`), if there is one
/// and it draws the shape; false if miette is to draw it.
fn draw(
    drawer: Option<&mut graphical::Drawer>,
    out: &mut Rendered,
    shape: &graphical::Shape<'_>,
) -> bool {
    drawer.is_some_and(|d| d.report(&mut out.text, shape))
}

#[cfg(test)]
#[path = "human_tests.rs"]
mod tests;
