//! `frontmatter/parse`: the YAML does not parse, or is not a mapping.

use crate::lint::sink::Sink;
use crate::model::diagnostic::LineIndex;
use crate::model::rule::Rule;
use crate::syntax::frontmatter::Parts;
use crate::syntax::yaml;
use std::ops::Range;

/// The rule's documentation, as `memlint rule frontmatter/parse` prints it.
pub(crate) const DOC: &str = r#"# frontmatter/parse

the YAML does not parse, or is not a mapping

## What it does

Fires when the text between the `---` lines is not valid YAML, or is valid YAML but not a mapping of keys to values (a list, a lone string, or nothing at all). The diagnostic points at the spot where reading failed; for the common slips it says how to quote: a plain value containing `: `, a tab used for indentation, a value or list item starting with `*` or `&` (read as an alias or anchor), a ` #` inside a flow list. The file gets no other diagnostic except `slug/format` and `layout/*`.

## Why it matters

A record whose front matter does not parse is invisible to memlint and to any other YAML reader: it is not indexed, not shown at session start, and not checked for secrets or broken references. `memlint fmt` also refuses to touch it.

## Example

`memory/decisions/retry-policy-for-payment-api.md`:

```markdown
---
title: Retry policy: back off on 429 and 503 only
status: active
date: 2026-03-06
sources:
  - staging:20260306-142000-0d4e
---

The payment API client retries only 429 and 503, honouring `Retry-After`.
```

## Fixed

`memory/decisions/retry-policy-for-payment-api.md`:

```markdown
---
title: 'Retry policy: back off on 429 and 503 only'
status: active
date: 2026-03-06
sources:
  - staging:20260306-142000-0d4e
---

The payment API client retries only 429 and 503, honouring `Retry-After`.
```

## Fix

Not fixed automatically: correct the YAML as the message says, usually by quoting the value (single quotes, with any `'` inside doubled), indenting with spaces, or turning the front matter into `key: value` lines.

## Configuration

```yaml
# .memlint.yml
rules:
  frontmatter/parse: warning   # default: error; or off
```
"#;

/// `frontmatter/parse` on YAML that does not parse, with a hint for the
/// common slips.
pub(crate) fn check(text: &str, parts: &Parts, err: &yaml::Error, sink: &mut Sink) {
    let (span, message) = parse_message(text, parts, err);
    sink.emit(Rule::FrontmatterParse, span, message);
}

/// The front matter's mapping, or `frontmatter/parse` for an empty front
/// matter or one that is not a mapping.
pub(crate) fn mapping(
    root: Option<yaml::Node>,
    parts: &Parts,
    sink: &mut Sink,
) -> Option<yaml::Node> {
    let (span, message) = match root {
        Some(root) if root.entries().is_some() => return Some(root),
        None => (
            parts.opener.clone(),
            "the front matter is empty; a record needs its keys between the `---` lines"
                .to_string(),
        ),
        Some(node) if node.is_null() => (
            parts.opener.clone(),
            "the front matter is empty; a record needs its keys between the `---` lines"
                .to_string(),
        ),
        Some(node) => (
            node.span.clone(),
            format!(
                "the front matter must be a mapping of keys to values, not {}",
                node.type_name()
            ),
        ),
    };
    sink.emit(Rule::FrontmatterParse, span, message);
    None
}

/// A `frontmatter/parse` message with a hint for the common slips.
fn parse_message(text: &str, parts: &Parts, err: &yaml::Error) -> (Range<usize>, String) {
    let index = LineIndex::new(text);
    let pos = index.position(err.at);
    let at = err.at..err.at;
    if err.kind == yaml::ErrorKind::Budget {
        return (at, format!("front matter refused: {}", err.message));
    }
    // Look at the offending line, the one before it and the one after it
    // (a tab is found only once the line before it ended) for a known slip.
    let candidates = [pos.line, pos.line.saturating_sub(1), pos.line + 1];
    for line_no in candidates {
        if line_no == 0 {
            continue;
        }
        let range = index.line_range(line_no);
        if range.start < parts.yaml.start || range.end > parts.yaml.end {
            continue;
        }
        let line = &text[range.clone()];
        if line.starts_with('\t') || line.trim_start_matches(' ').starts_with('\t') {
            return (
                range,
                format!("YAML does not allow a tab for indentation (line {line_no}); indent with spaces"),
            );
        }
        // What follows the `[` of a flow list that is a key's value.
        let flow = line
            .split_once(": ")
            .and_then(|(_, v)| v.trim_start().strip_prefix('['));
        // A list item, in a block list or a flow list, that starts with `*`
        // or `&` (a glob such as `*.md`).
        let block_item = line.trim_start().strip_prefix("- ").map(str::trim);
        let flow_items = flow
            .into_iter()
            .flat_map(|rest| rest.split([',', ']']).map(str::trim));
        let starred = block_item
            .into_iter()
            .chain(flow_items)
            .find(|v| v.starts_with('*') || v.starts_with('&'));
        // ` #` inside a flow list starts a comment that eats the `]`; after
        // the first `]`, a comment is fine.
        if let Some(item) = flow
            .and_then(|rest| rest.split(']').next())
            .and_then(|inner| inner.split(',').find(|i| i.contains(" #")))
        {
            let item = item.trim();
            return (
                range,
                format!(
                    "` #` starts a comment in YAML, which cuts the list short at `{item}`; quote the item: '{}'",
                    item.replace('\'', "''")
                ),
            );
        }
        if let Some(v) = starred {
            return (
                range,
                format!(
                    "the list item `{v}` starts with `{}`, which YAML reads as an {}; quote it: '{}'",
                    &v[..1],
                    if v.starts_with('*') { "alias" } else { "anchor" },
                    v.replace('\'', "''")
                ),
            );
        }
        if let Some((key, value)) = line.split_once(": ") {
            let v = value.trim_start();
            let plain = !v.starts_with(['"', '\'', '[', '{', '|', '>']);
            if plain && (v.starts_with('*') || v.starts_with('&')) {
                return (
                    range,
                    format!(
                        "`{}` starts with `{}`, which YAML reads as an {}; quote the value: {}: '{}'",
                        v,
                        &v[..1],
                        if v.starts_with('*') { "alias" } else { "anchor" },
                        key.trim(),
                        v.replace('\'', "''")
                    ),
                );
            }
            if plain && (v.contains(": ") || v.ends_with(':')) {
                return (
                    range,
                    format!(
                        "the value of `{}` contains `: `, which YAML reads as a nested key; quote the value: {}: '{}'",
                        key.trim(),
                        key.trim(),
                        v.replace('\'', "''")
                    ),
                );
            }
        }
    }
    (
        at,
        format!("the front matter is not valid YAML: {}", err.message),
    )
}
