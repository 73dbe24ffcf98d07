//! `date/*`: memory outlives the day it was written, so dates are absolute.

use crate::lint::record::{ProblemRule, Record};
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::dates::ENGLISH;
use crate::syntax::text::{find_relative, prose_ranges};

/// `date/format`: a date field is not an absolute valid `YYYY-MM-DD`.
pub fn format(r: &Record, out: &mut Sink) {
    for field in r.kind.fields() {
        // Only date fields have date problems.
        if !matches!(field.ty, crate::model::kind::FieldType::Date) {
            continue;
        }
        if let Some((entry, span, message)) = r.problem(field.key, ProblemRule::DateFormat) {
            let span = super::frontmatter::value_span(entry, span);
            out.emit(Rule::DateFormat, span, message.to_string());
        }
    }
}

/// `date/relative`: a relative date in a title, description or body.
pub fn relative(r: &Record, out: &mut Sink) {
    for key in ["title", "description"] {
        if let Some((value, span)) = r.str_field(key) {
            // Point into the value when it is written as it reads on one
            // line: plain, or quoted without escapes.
            let raw = &r.text[span.clone()];
            let quoted = raw.len() == value.len() + 2
                && (raw.starts_with('"') && raw.ends_with('"')
                    || raw.starts_with('\'') && raw.ends_with('\''))
                && &raw[1..raw.len() - 1] == value;
            let inner = match (raw == value, quoted) {
                (true, _) => Some(span.start),
                (false, true) => Some(span.start + 1),
                (false, false) => None,
            };
            // Most values hold no date word: the text's are already known.
            if inner.is_some() && value.is_ascii() && !r.hint_words().date_in(&span) {
                continue;
            }
            for m in find_relative(value) {
                let at = match inner {
                    Some(at) => at + m.start..at + m.end,
                    None => span.clone(),
                };
                emit(out, at, &value[m.clone()], key);
            }
        }
    }
    let body = r.parts.body.clone();
    let text = &r.text[body.clone()];
    // Prose ranges end at backticks and line breaks, where a word boundary
    // holds in the whole body as in the range, so a match in a range is a
    // match in the body: most bodies have none and need no splitting.
    let words = r.hint_words();
    let english = words.date_in(&body) && ENGLISH.is_match(text);
    if !english && !words.cjk_date_in(&body) {
        return;
    }
    for prose in prose_ranges(text) {
        for m in find_relative(&text[prose.clone()]) {
            let start = body.start + prose.start + m.start;
            let end = body.start + prose.start + m.end;
            emit(out, start..end, &r.text[start..end], "body");
        }
    }
}

fn emit(out: &mut Sink, span: std::ops::Range<usize>, word: &str, place: &str) {
    out.emit(
        Rule::DateRelative,
        span,
        format!("`{word}` in the {place} is a relative date; write the absolute date (YYYY-MM-DD), since memory is read long after"),
    );
}
