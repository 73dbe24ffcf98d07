//! `frontmatter/required`: a required key is missing.

use crate::lint::record::{is_required, Record};
use crate::lint::rules::frontmatter::shared::*;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule frontmatter/required` prints it.
pub(crate) const DOC: &str = r#"# frontmatter/required

a required key is missing

## What it does

Fires once per required key that is absent from a record's front matter, pointing at the opening `---`. Which keys are required depends on the kind: for example `title`, `status`, `date` on a decision; `title`, `description`, `model_invocation`, `date` on knowledge; `id`, `source`, `created` on a staging file. A missing `sources` list is reported by `sources/missing` and a missing `replaced_by` by `status/missing-target` instead. When an unknown key looks like a misspelling of the missing one, the message says so (and `frontmatter/unknown-key` reports the misspelling too).

Every kind's fields, with their types, which are required, the allowed values and defaults, are listed in `docs/records.md`.

## Why it matters

Required keys are what the tools run on: without `model_invocation` memlint cannot tell whether a knowledge record belongs in the session-start context, without `status` whether a decision is still in force, without `date` how old it is.

## Example

`knowledge/payment-api-rate-limits.md`:

```markdown
---
title: Payment API rate limits
description: The payment API allows 100 requests per 10 s per key and answers 429 with Retry-After.
date: 2026-03-11
sources:
  - https://docs.stripe.com/rate-limits
---

Bursts above 100 requests in 10 s get 429; `Retry-After` is in seconds.
```

## Fixed

`knowledge/payment-api-rate-limits.md`:

```markdown
---
title: Payment API rate limits
description: The payment API allows 100 requests per 10 s per key and answers 429 with Retry-After.
model_invocation: true
date: 2026-03-11
sources:
  - https://docs.stripe.com/rate-limits
---

Bursts above 100 requests in 10 s get 429; `Retry-After` is in seconds.
```

## Fix

Not fixed automatically: add the key with its value by hand. If the message names a misspelt key, `memlint check --fix` renames it (see `frontmatter/unknown-key`), which also clears this diagnostic.

## Configuration

```yaml
# .memlint.yml
rules:
  frontmatter/required: warning   # default: error; or off
```
"#;

/// `frontmatter/required`: a required key is missing. (`sources` is reported
/// by `sources/missing`, `replaced_by` by `status/missing-target`.)
pub(crate) fn check(r: &Record, out: &mut Sink) {
    for field in r.kind.fields() {
        if !is_required(field.presence) || field.key == "sources" {
            continue;
        }
        if r.root.get(field.key).is_none() {
            // Name the misspelling that hides the key, when there is one.
            let misspelt = r
                .root
                .entries()
                .unwrap_or(&[])
                .iter()
                .filter_map(|e| e.key.as_scalar().map(|s| s.text.as_str()))
                .find(|k| r.kind.field(k).is_none() && rename_target(r, k) == Some(field.key));
            let hint = misspelt
                .map(|k| format!(" (`{k}` looks like a misspelling of it)"))
                .unwrap_or_default();
            out.emit(
                Rule::FrontmatterRequired,
                r.opener(),
                format!("a {} needs `{}`, which is missing{hint}", r.kind, field.key),
            );
        }
    }
}
