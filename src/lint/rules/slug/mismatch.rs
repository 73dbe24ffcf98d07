//! `slug/mismatch`: a `slug` key differs from the file stem.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule slug/mismatch` prints it.
pub(crate) const DOC: &str = r#"# slug/mismatch

a `slug` key differs from the file stem

## What it does

Fires when a decision, request or knowledge record has the optional `slug` key and its value is not exactly the file name without `.md`. A record without a `slug` key is never reported; a `slug` value of the wrong type is `frontmatter/type` instead.

## Why it matters

References (`replaced_by`, `decision:<slug>` sources, `Memlint-GC:` trailers) resolve by file name, so a `slug` key that says something else misleads every reader who trusts it: an agent that copies `slug: retry-backoff` into a `replaced_by` creates a dangling reference.

## Example

`memory/decisions/retry-webhooks-with-backoff.md`:

```markdown
---
title: Retry webhook deliveries with exponential backoff
status: active
date: 2026-03-19
sources:
  - staging:20260319-100000-71aa
slug: retry-backoff
---

Deliveries are retried 6 times, from 2 s doubling up to 5 min, with full jitter.
```

## Fixed

`memory/decisions/retry-webhooks-with-backoff.md`:

```markdown
---
title: Retry webhook deliveries with exponential backoff
status: active
date: 2026-03-19
sources:
  - staging:20260319-100000-71aa
slug: retry-webhooks-with-backoff
---

Deliveries are retried 6 times, from 2 s doubling up to 5 min, with full jitter.
```

## Fix

Not fixed automatically: make the two equal, either by correcting the `slug` value (as here), by renaming the file, or by deleting the `slug` key, which is optional.

## Configuration

```yaml
# .memlint.yml
rules:
  slug/mismatch: warning   # default: error; or off
```
"#;

/// `slug/mismatch`: a `slug` key differs from the file stem.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    let Some((slug, span)) = r.str_field("slug") else {
        return;
    };
    let stem = r.stem();
    if slug != stem {
        out.emit(
            Rule::SlugMismatch,
            span,
            format!("`slug` is `{slug}` but the file is named `{stem}.md`; make them equal (or delete `slug`)"),
        );
    }
}
