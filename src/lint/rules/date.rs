//! `date/*`: memory outlives the day it was written, so dates are absolute.

use super::{ProblemRule, Record, Sink};
use crate::model::rule::Rule;
use crate::syntax::text::{prose_ranges, HintWords};
use regex::Regex;
use std::sync::LazyLock;

/// Every match holds a date word of [`HintWords`] (`day`, `tomorrow`,
/// `week`, `month`, `year` in any ASCII case): texts without one are ruled
/// out by that literal search.
static ENGLISH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i-u)\b(?:yesterday|today|tomorrow|(?:last|next|this)\s+(?:week|month|year)|\d+\s+days?\s+ago)\b",
    )
    .expect("valid regex")
});

/// Japanese and Chinese relative date words.
pub(crate) const CJK_WORDS: &[&str] = &[
    "一昨日",
    "明後日",
    "昨日",
    "今日",
    "明日",
    "先週",
    "今週",
    "来週",
    "先月",
    "今月",
    "来月",
    "昨年",
    "今年",
    "来年",
    "昨天",
    "今天",
    "明天",
    "上周",
    "本周",
    "下周",
    "上个月",
    "下个月",
    "去年",
    "明年",
];

/// The relative date expressions in `text`, as byte ranges.
pub fn find_relative(text: &str) -> Vec<std::ops::Range<usize>> {
    let words = HintWords::of(text);
    let mut out = words.cjk_dates;
    if !words.dates.is_empty() {
        out.extend(ENGLISH.find_iter(text).map(|m| m.range()));
    }
    out.sort_by_key(|r| r.start);
    out
}

/// The message for a date field that is not `YYYY-MM-DD`.
pub fn format_message(key: &str, value: &str) -> String {
    if value.trim().is_empty() {
        return format!("`{key}` is empty; write an absolute date (YYYY-MM-DD)");
    }
    if !find_relative(value).is_empty() || value.ends_with("ago") {
        return format!(
            "`{key}` is `{value}`, a relative date; write the absolute date it meant (YYYY-MM-DD)"
        );
    }
    format!("`{key}` is `{value}`, which is not a valid date of the form YYYY-MM-DD")
}

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
