//! Human `check` output: one graphical miette report per diagnostic, with
//! the excerpt masked and its control characters shown, then the count line.

use super::summary::Summary;
use crate::model::diagnostic::Diagnostic;
use crate::model::severity::Severity;
use crate::syntax::sanitize;
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
use std::collections::HashMap;
use std::fmt::Write as _;

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
            .then(|| Box::new("`memlint check --fix` repairs this") as Box<dyn std::fmt::Display>)
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

/// The [`Window`] of `text` for `span` (which lies in it, on character
/// boundaries) with one line of context each side, and the span within
/// the window.
fn window(
    text: &str,
    starts: &[usize],
    span: &std::ops::Range<usize>,
) -> (Window, std::ops::Range<usize>) {
    let line_of = |o: usize| starts.partition_point(|&s| s <= o) - 1;
    let (first, last) = (line_of(span.start), line_of(span.end));
    let last_span_line = last.min(first + SPAN_LINES - 1);
    let from = first.saturating_sub(1);
    let to = (last_span_line + 1).min(starts.len() - 1);
    let mut out = String::new();
    let (mut start, mut end) = (None, None);
    for line in from..=to {
        let ls = starts[line];
        let mut le = starts.get(line + 1).map_or(text.len(), |&n| n - 1);
        // A CR of a CRLF ends the line: miette, reading the window, would
        // count a CR at its very end as part of the text.
        if le > ls && text.as_bytes()[le - 1] == b'\r' {
            le -= 1;
        }
        if line > from {
            out.push('\n');
        }
        let (a, b) = if le - ls <= LONG_LINE {
            (ls, le)
        } else {
            // Cut around the span's start on its line, else its end.
            let focus = if (ls..=le).contains(&span.start) {
                span.start
            } else if (ls..=le).contains(&span.end) {
                span.end
            } else {
                ls
            };
            let a = floor_boundary(text, focus.saturating_sub(LEAD).max(ls));
            (a, floor_boundary(text, (a + SHOWN).min(le)))
        };
        let base = out.len() + if a > ls { '…'.len_utf8() } else { 0 };
        if a > ls {
            out.push('…');
        }
        out.push_str(&text[a..b]);
        if b < le {
            out.push('…');
        }
        // Where an offset of this line lands in the window.
        let at = |o: usize| base + o.clamp(a, b) - a;
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
    // About 700 bytes a report: grown once, not doubled from nothing.
    let mut out = String::with_capacity(diags.len().saturating_mul(720));
    // The shown text of the file of the last diagnostic and its line
    // starts: diagnostics come sorted by path, so each file is prepared
    // once.
    let mut prepared: Option<(&str, String, sanitize::Shift, Vec<usize>)> = None;
    let mut messages: crate::model::hashing::Map<&str, String> = Default::default();
    for d in diags {
        let text = sources.get(&d.path).map_or("", String::as_str);
        let span_ok = d.span.end <= text.len()
            && text.is_char_boundary(d.span.start)
            && text.is_char_boundary(d.span.end);
        if prepared.as_ref().is_none_or(|p| p.0 != d.path) {
            // Secrets are masked in every excerpt of their file (a report
            // of another rule on a nearby line shows them as context), in
            // place so that the spans still point where they did; control
            // characters (an escape sequence in a title, a bell) are shown
            // as symbols, never sent to the terminal.
            let masked = sanitize::secrets_in_place(text);
            let (shown, shift) = sanitize::controls_shifted(&masked, sanitize::Mode::Text);
            let shown = shown.into_owned();
            let starts = line_starts(&shown);
            prepared = Some((d.path.as_str(), shown, shift, starts));
        }
        let Some((_, text, shift, starts)) = prepared.as_ref() else {
            continue;
        };
        // Many findings share a message (the records citing one changed
        // file): each is masked once.
        let message = messages
            .entry(d.message.as_str())
            .or_insert_with(|| sanitize::line(&d.message).into_owned())
            .clone();
        let path = sanitize::line(&d.path).into_owned();
        // A finding with no text to show (a file too large or unreadable)
        // is a report like the others, its place leading the message.
        if (!span_ok || text.is_empty()) && d.omitted == 0 {
            let shown = Diagnostic {
                message: format!("{path}:{}:{}: {message}", d.line, d.column),
                path,
                ..d.clone()
            };
            let report = Report {
                d: &shown,
                source: None,
            };
            if handler.render_report(&mut out, &report).is_err() {
                let _ = writeln!(out, "{}[{}] {}", d.severity.as_str(), d.rule, shown.message);
            }
            out.push('\n');
            continue;
        }
        // The closing entry of a capped list is one line.
        if d.omitted > 0 {
            let _ = writeln!(
                out,
                "{}[{}] {}:{}:{}: {}",
                d.severity.as_str(),
                d.rule,
                path,
                d.line,
                d.column,
                message
            );
            continue;
        }
        let span = shift.at(d.span.start)..shift.at(d.span.end);
        let (source, span) = window(text, starts, &span);
        let shown = Diagnostic {
            path,
            message,
            span,
            ..d.clone()
        };
        let report = Report {
            d: &shown,
            source: Some(NamedSource::new(
                format!("{}:{}:{}", shown.path, shown.line, shown.column),
                source,
            )),
        };
        if handler.render_report(&mut out, &report).is_err() {
            let _ = writeln!(
                out,
                "{}[{}] {}: {}",
                shown.severity.as_str(),
                shown.rule,
                shown.path,
                shown.message
            );
        }
        out.push('\n');
    }
    out.push_str(&summary.line());
    out.push('\n');
    out
}
