//! `slug/format`: a file stem is not a slug.

use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule slug/format` prints it.
pub(crate) const DOC: &str = r#"# slug/format

a file stem is not a slug

## What it does

Fires when the file name (without `.md`) of a decision, request or knowledge record is not a slug: lowercase ASCII letters and digits joined by single `-`, at most 64 characters. The message says what is wrong (uppercase, `_`, spaces, length) and suggests a name. It needs only the path, so it is reported even when the file's front matter cannot be read. Sessions, staging files and the summary have their own names and are not checked.

## Why it matters

The slug is the record's identity: `replaced_by`, `decision:<slug>` sources, `Memlint-GC:` trailers and the search index all refer to records by it, and those references must be slugs. A record named `Use_Redis_For_Sessions.md` cannot be referenced at all.

## Example

`memory/decisions/Use_Redis_For_Sessions.md`:

```markdown
---
title: Keep user sessions in Redis
status: active
date: 2026-03-18
sources:
  - staging:20260318-141000-0c9b
---

Sessions move from the API process memory to Redis so that any replica can serve a user.
```

## Fixed

The file is renamed; its content is unchanged.

<!-- deleted: memory/decisions/Use_Redis_For_Sessions.md -->

`memory/decisions/use-redis-for-sessions.md`:

```markdown
---
title: Keep user sessions in Redis
status: active
date: 2026-03-18
sources:
  - staging:20260318-141000-0c9b
---

Sessions move from the API process memory to Redis so that any replica can serve a user.
```

## Fix

Not fixed automatically: rename the file (`git mv memory/decisions/Use_Redis_For_Sessions.md memory/decisions/use-redis-for-sessions.md`) and update any `slug:` key, `replaced_by` or `decision:` source that used the old name.

## Configuration

```yaml
# .memlint.yml
rules:
  slug/format: warning   # default: error; or off
```
"#;

/// Why a file stem is not a slug, for `slug/format`.
fn stem_problem(stem: &str) -> Option<String> {
    if crate::model::kind::is_slug(stem) {
        return None;
    }
    let n = stem.chars().count();
    let why = if n > 64 {
        format!("it is {n} characters long (at most 64)")
    } else if stem.chars().any(|c| c.is_uppercase()) {
        "it has uppercase letters".to_string()
    } else if stem.contains('_') {
        "it has `_` (use `-`)".to_string()
    } else if stem.contains(' ') {
        "it has spaces".to_string()
    } else {
        "a slug is lowercase letters and digits joined by single `-`".to_string()
    };
    let suggestion = suggest(stem);
    // A name holding a credential gets no suggestion: lowercased, the
    // credential would no longer be recognised, and masked.
    let secret = !crate::syntax::secrets::find(stem).is_empty();
    let hint = if crate::model::kind::is_slug(&suggestion) && suggestion != stem && !secret {
        format!("; rename it to `{suggestion}.md`")
    } else {
        String::new()
    };
    Some(format!("file name `{stem}` is not a slug: {why}{hint}"))
}

/// A slug close to `stem`.
fn suggest(stem: &str) -> String {
    let mut out = String::new();
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let trimmed: String = out.trim_end_matches('-').chars().take(64).collect();
    trimmed.trim_end_matches('-').to_string()
}

/// `slug/format` on a record's file stem.
pub(crate) fn check(stem: &str, sink: &mut Sink) {
    if let Some(message) = stem_problem(stem) {
        sink.emit(Rule::SlugFormat, 0..0, message);
    }
}
