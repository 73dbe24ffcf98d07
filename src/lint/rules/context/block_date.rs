//! `context/block-date`: a `CONTEXT.md` block heading without an absolute
//! date.

use crate::lint::sink::Sink;
use crate::model::kind::is_date;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule context/block-date` prints it.
pub(crate) const DOC: &str = r#"# context/block-date

a `CONTEXT.md` block heading without an absolute date

## What it does

Fires on each level-2 heading (`## …`) of `CONTEXT.md` whose first word, up to the first space, is not a valid `YYYY-MM-DD` date. The date must be followed by a space or end the heading: `## 2026-04-05: Rollout` and `## 2026-04-04（土）` are reported too. Headings inside fenced code are ignored, as are the level-1 title and deeper headings; the text after the date is free.

## Why it matters

`CONTEXT.md` holds working-context blocks, newest first, and the session-start hook injects the first of them; `memlint context rotate` keeps only the newest few. Without a date on the heading neither an agent nor a person can tell whether the block describes this week or last quarter, so stale context gets acted on as if it were current.

## Example

`CONTEXT.md`:

```markdown
# Context

## Circuit breaker rollout

Breaker is on for the payment API in staging; production after the 2026-04-06 load test.

## 2026-04-01 Payment outage follow-up

Decision `use-circuit-breaker-for-payment-api` written; thresholds still to tune.
```

## Fixed

`CONTEXT.md`:

```markdown
# Context

## 2026-04-05 Circuit breaker rollout

Breaker is on for the payment API in staging; production after the 2026-04-06 load test.

## 2026-04-01 Payment outage follow-up

Decision `use-circuit-breaker-for-payment-api` written; thresholds still to tune.
```

## Fix

Not fixed automatically: start the heading with the date the block was written, `## YYYY-MM-DD <topic>`.

## Configuration

```yaml
# .memlint.yml
rules:
  context/block-date: error   # default: warning; or off
```
"#;

/// Level-2 headings of a markdown text outside fenced code: (byte offset of
/// the line, heading text).
pub(crate) fn level2_headings(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let mut content = line.trim_end_matches(['\n', '\r']);
        // A byte order mark (reported by `format/bom`) hides no heading.
        let mut at = offset;
        if offset == 0 {
            if let Some(rest) = content.strip_prefix('\u{feff}') {
                content = rest;
                at += '\u{feff}'.len_utf8();
            }
        }
        let trimmed = content.trim_start();
        if let Some(f) = fence {
            if trimmed.starts_with(f) {
                fence = None;
            }
        } else if trimmed.starts_with("```") {
            fence = Some("```");
        } else if trimmed.starts_with("~~~") {
            fence = Some("~~~");
        } else if let Some(h) = content.strip_prefix("## ") {
            out.push((at, h.trim()));
        }
        offset += line.len();
    }
    out
}

/// Whether `heading` starts with an absolute date that is not the start of
/// a longer word or number: `2026-04-05 Rollout`, `2026-04-05: Rollout` and
/// `2026-04-05（土）` do; `2026-04-051` and `2026-04-05x` do not.
fn starts_with_date(heading: &str) -> bool {
    let Some(date) = heading.get(..10) else {
        return false;
    };
    is_date(date)
        && heading[10..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric() && c != '-' && c != '_')
}

/// `context/block-date`.
pub(crate) fn check(text: &str, out: &mut Sink) {
    for (offset, heading) in level2_headings(text) {
        if !starts_with_date(heading) {
            out.emit(
                Rule::ContextBlockDate,
                offset..offset + 3 + heading.len(),
                format!("block heading `## {heading}` must start with an absolute date (`## YYYY-MM-DD …`)"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::starts_with_date;

    /// A regression: headings that start with a date followed by
    /// punctuation were reported.
    #[test]
    fn a_date_followed_by_punctuation_starts_a_heading() {
        for ok in [
            "2026-04-05",
            "2026-04-05 Rollout",
            "2026-04-05: Rollout",
            "2026-04-05, retries",
            "2026-04-05（土）作業メモ",
            "2026-04-05\tTabbed",
        ] {
            assert!(starts_with_date(ok), "{ok}");
        }
        for bad in [
            "2026-04-051",
            "2026-04-05x",
            "2026-04-05-2",
            "Rollout",
            "2026-4-5 x",
            "日付",
        ] {
            assert!(!starts_with_date(bad), "{bad}");
        }
    }
}
