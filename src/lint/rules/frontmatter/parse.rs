//! `frontmatter/parse`: the YAML does not parse, or is not a mapping.

/// The rule's documentation, as `memlint rule frontmatter/parse` prints it.
pub const DOC: &str = r#"# frontmatter/parse

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
