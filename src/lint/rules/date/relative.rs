//! `date/relative`: a relative date expression in a title, description or
//! body.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::dates::ENGLISH;
use crate::syntax::text::{find_relative, prose_ranges};

/// The rule's documentation, as `memlint rule date/relative` prints it.
pub(crate) const DOC: &str = r#"# date/relative

a relative date expression in a title, description or body

## What it does

Fires on each relative date expression in a record's `title`, `description` or body. English: `yesterday`, `today`, `tomorrow`, `last/next/this week|month|year`, `N days ago` (whole words, any case). Japanese: `昨日`, `今日`, `明日`, `一昨日`, `明後日`, `先週`, `今週`, `来週`, `先月`, `今月`, `来月`, `昨年`, `今年`, `来年`. Chinese: `昨天`, `今天`, `明天`, `上周`, `本周`, `下周`, `上个月`, `下个月`, `去年`, `明年`. Japanese and Chinese words are matched anywhere, as those scripts put no spaces between words, so `本周期` ("this cycle") or the name `明日香` match too. Inline code spans and fenced code are skipped, so `` `today()` `` is not reported; other front-matter keys and `CONTEXT.md` are not checked. Date fields written as words are `date/format`.

## Why it matters

The record is read long after it was written: "先週決めた" or "deployed yesterday" then points at the wrong week, and an agent that trusts it reasons about the wrong time. An absolute date stays true.

## Example

`memory/requests/export-orders-as-csv.md`:

```markdown
---
title: 注文一覧を CSV で出力する
status: open
date: 2026-03-30
sources:
  - staging:20260330-101000-8e4a
---

昨日、経理チームから依頼があった。締め処理に使うので来週までに必要。
列の順番は会計ソフトの取り込み形式に合わせる。
```

## Fixed

`memory/requests/export-orders-as-csv.md`:

```markdown
---
title: 注文一覧を CSV で出力する
status: open
date: 2026-03-30
sources:
  - staging:20260330-101000-8e4a
---

2026-03-29 に経理チームから依頼があった。締め処理に使うので 2026-04-03 までに必要。
列の順番は会計ソフトの取り込み形式に合わせる。
```

## Fix

Not fixed automatically: replace each expression with the absolute date it meant (`YYYY-MM-DD`), worked out from the record's `date` or its source. Quote a literal use in backticks (`` `today` ``) when the word is not a date.

## Configuration

```yaml
# .memlint.yml
rules:
  date/relative: error   # default: warning; or off
```
"#;

/// `date/relative`: a relative date in a title, description or body.
pub(crate) fn check(r: &Record, out: &mut Sink) {
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
