//! `frontmatter/hash-in-value`: an unquoted value is cut short by ` #`.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::yaml::{Style, Value};

/// The rule's documentation, as `memlint rule frontmatter/hash-in-value` prints it.
pub(crate) const DOC: &str = r#"# frontmatter/hash-in-value

an unquoted value is cut short by ` #`

## What it does

Fires on a plain (unquoted) value followed on the same line by a space and a `#` that is directly followed by a non-space character, such as `#318` or `#cache`: YAML reads ` #` as the start of a comment, so the value silently ends before it. A real comment (`# note`, with a space after the `#`) and quoted values are not reported. It looks at every scalar of the front matter, list items included.

## Why it matters

The record parses, so nothing else complains, but the value is not what was written: `title: Cap webhook retries for issue #318` is stored, searched and shown at session start as `Cap webhook retries for issue`, and the issue number is lost to every tool that reads the file.

## Example

`memory/decisions/cap-webhook-retries.md`:

```markdown
---
title: Cap webhook retries for issue #318
status: active
date: 2026-03-10
sources:
  - https://github.com/acme/shop-api/issues/318
---

Webhook deliveries stop after 6 attempts; the sixth failure pages the on-call.
```

## Fixed

`memory/decisions/cap-webhook-retries.md`:

```markdown
---
title: 'Cap webhook retries for issue #318'
status: active
date: 2026-03-10
sources:
  - https://github.com/acme/shop-api/issues/318
---

Webhook deliveries stop after 6 attempts; the sixth failure pages the on-call.
```

## Fix

Not fixed automatically: quote the whole value (`'…'`, with any `'` inside doubled), or, if the `#` really starts a comment, put a space after it.

## Configuration

```yaml
# .memlint.yml
rules:
  frontmatter/hash-in-value: error   # default: warning; or off
```
"#;

/// `frontmatter/hash-in-value`: `title: Fix #2 for CJK` reads as `Fix`; the
/// rest became a comment. Fires when ` #` is directly followed by a non-space
/// character after an unquoted value.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    // A value's line ends inside the front matter: without a `#` there,
    // there is nothing to find.
    if !r.text[r.parts.yaml.clone()].contains('#') {
        return;
    }
    let mut stack = vec![r.root];
    while let Some(node) = stack.pop() {
        match &node.value {
            Value::Map { entries, .. } => stack.extend(entries.iter().map(|e| &e.value)),
            Value::Seq { items, .. } => stack.extend(items.iter()),
            Value::Scalar(s) if s.style == Style::Plain && !s.text.is_empty() => {
                let rest = &r.text[node.span.end..];
                let line_rest = rest.split(['\n', '\r']).next().unwrap_or("");
                let trimmed = line_rest.trim_start_matches([' ', '\t']);
                if trimmed.len() < line_rest.len()
                    && trimmed.starts_with('#')
                    && trimmed[1..]
                        .chars()
                        .next()
                        .is_some_and(|c| !c.is_whitespace())
                {
                    let start = node.span.end + (line_rest.len() - trimmed.len());
                    let end = node.span.end + line_rest.len();
                    out.emit(
                        Rule::FrontmatterHashInValue,
                        start..end,
                        format!(
                            "this value reads as `{}`: YAML takes ` {}` as a comment; quote the whole value",
                            s.text,
                            trimmed.split_whitespace().next().unwrap_or("#")
                        ),
                    );
                }
            }
            Value::Scalar(_) => {}
        }
    }
}
