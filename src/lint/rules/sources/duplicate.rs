//! `sources/duplicate`: the same source entry twice.

use crate::lint::record::Record;
use crate::lint::rules::sources::shared::*;
use crate::lint::sink::Sink;
use crate::model::hashing::Map;
use crate::model::rule::Rule;
use crate::syntax::edit::Edit;
use crate::syntax::yaml::Value;

/// The rule's documentation, as `memlint rule sources/duplicate` prints it.
pub(crate) const DOC: &str = r#"# sources/duplicate

the same source entry twice

## What it does

Fires on each entry of `sources` whose string value already appeared earlier in the list, pointing at the repeat and naming the position of the first. Values are compared after YAML quoting is resolved, so `'staging:20260323-091500-a7c1'` repeats `staging:20260323-091500-a7c1`.

## Why it matters

A repeated source adds nothing but noise, and usually means two edits were pasted together without review; it also inflates the count that `sources/too-many` and `sources/thin` judge the record by.

## Example

`memory/decisions/set-cache-ttl-to-ten-minutes.md`:

```markdown
---
title: Set the catalog cache TTL to 10 minutes
status: active
date: 2026-03-23
sources:
  - staging:20260323-091500-a7c1
  - https://grafana.acme.dev/d/cache-hit-rate
  - staging:20260323-091500-a7c1
---

Hit rate plateaus at 94 % above 10 minutes; longer TTLs only serve staler prices.
```

## Fixed

`memory/decisions/set-cache-ttl-to-ten-minutes.md`:

```markdown
---
title: Set the catalog cache TTL to 10 minutes
status: active
date: 2026-03-23
sources:
  - staging:20260323-091500-a7c1
  - https://grafana.acme.dev/d/cache-hit-rate
---

Hit rate plateaus at 94 % above 10 minutes; longer TTLs only serve staler prices.
```

## Fix

`memlint check --fix` deletes every repeat and keeps the first occurrence. In a block list it deletes the repeat's whole `- …` line, but only when that line holds nothing else: when the repeat's line holds a comment and the first occurrence's line holds nothing else, the first occurrence goes instead, so that the comment stays (two lines with comments are left for you). In a flow list (`[a, b, a]`) it deletes the item with the comma before it.

## Configuration

```yaml
# .memlint.yml
rules:
  sources/duplicate: error   # default: warning; or off
```
"#;

/// `sources/duplicate`: the same entry twice.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    let mut seen: Map<&str, usize> = Map::default();
    // What `--fix` deletes, computed at the first duplicate: an entry
    // sharing its line with a comment, say, is left for a person.
    let mut removals: Option<Vec<Edit>> = None;
    let all = entries(r);
    for (i, (s, span)) in all.iter().cloned().enumerate() {
        if let Some(first) = seen.get(s) {
            // The repeat goes, or the first entry instead when the
            // repeat's line holds a comment and the first's does not.
            let first_span = &all[*first].1;
            let removed = removals
                .get_or_insert_with(|| duplicate_source_edits(r))
                .iter()
                .any(|e| {
                    let covers =
                        |s: &std::ops::Range<usize>| e.span.start <= s.start && s.end <= e.span.end;
                    covers(&span) || covers(first_span)
                });
            out.emit_fixable(
                Rule::SourcesDuplicate,
                span,
                format!(
                    "`{s}` is listed twice (first as entry {}); delete this one",
                    first + 1
                ),
                removed,
            );
        } else {
            seen.insert(s, i);
        }
    }
}

/// Deletes every repeated `sources` entry: the whole line of a block-list
/// item (when the line holds nothing else), or the item and its comma in a
/// flow list.
pub(crate) fn duplicate_source_edits(r: &Record) -> Vec<Edit> {
    let Some(entry) = r.root.get("sources") else {
        return Vec::new();
    };
    let Value::Seq { items, flow } = &entry.value.value else {
        return Vec::new();
    };
    let text = r.text;
    // Each entry's removal, when it can go without taking anything else
    // with it.
    let removal = |i: usize| -> Option<Edit> {
        let item = &items[i];
        if *flow {
            let prev = items.get(i.checked_sub(1)?)?;
            let between = text.get(prev.span.end..item.span.start).unwrap_or("#");
            return (between.trim() == ",").then(|| Edit {
                span: prev.span.end..item.span.end,
                text: String::new(),
            });
        }
        let start = text[..item.span.start].rfind('\n').map_or(0, |p| p + 1);
        let end = text[item.span.end..]
            .find('\n')
            .map_or(text.len(), |p| item.span.end + p + 1);
        let before = &text[start..item.span.start];
        let after = &text[item.span.end..end];
        let lone = before.trim_start_matches(' ') == "- " && after.trim().is_empty();
        lone.then_some(Edit {
            span: start..end,
            text: String::new(),
        })
    };
    // The entry kept of each value.
    let mut kept: Map<&str, usize> = Map::default();
    let mut edits = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(s) = item.as_scalar().and_then(|s| s.as_str()) else {
            continue;
        };
        let Some(&first) = kept.get(s) else {
            kept.insert(s, i);
            continue;
        };
        if let Some(e) = removal(i) {
            edits.push(e);
        } else if let Some(e) = removal(first) {
            // The repeat's line holds a comment: the entry kept so far,
            // alone on its line, goes instead, and the comment stays.
            edits.push(e);
            kept.insert(s, i);
        }
    }
    edits
}
