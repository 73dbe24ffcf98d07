//! `frontmatter/unclosed`: no closing `---`.

/// The rule's documentation, as `memlint rule frontmatter/unclosed` prints it.
pub const DOC: &str = r#"# frontmatter/unclosed

no closing `---`

## What it does

Fires when a record opens with `---` but no later line is `---` on its own (trailing spaces allowed), so the front matter never ends. It also fires when a closing `---` exists further down but the YAML before it fails after a blank line and a markdown heading: the front matter then runs into the body, and the message names the heading's line. The file gets no other diagnostic except `slug/format` and `layout/*`.

## Why it matters

Without the closing line memlint cannot tell where the keys end and the text begins, so the whole record is unreadable: it drops out of search and the session-start context, and no other rule checks it until the line is added.

## Example

`memory/decisions/cache-api-responses-for-ten-minutes.md`:

```markdown
---
title: Cache API responses for ten minutes
status: active
date: 2026-03-05
sources:
  - staging:20260305-083000-5e7b

Responses of `GET /v2/catalog` are cached in Redis for 10 minutes; writes evict the key.
```

## Fixed

`memory/decisions/cache-api-responses-for-ten-minutes.md`:

```markdown
---
title: Cache API responses for ten minutes
status: active
date: 2026-03-05
sources:
  - staging:20260305-083000-5e7b
---

Responses of `GET /v2/catalog` are cached in Redis for 10 minutes; writes evict the key.
```

## Fix

Not fixed automatically: add a line holding only `---` after the last key, before the body.

## Configuration

```yaml
# .memlint.yml
rules:
  frontmatter/unclosed: warning   # default: error; or off
```
"#;
