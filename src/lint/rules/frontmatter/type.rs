//! `frontmatter/type`: a value has the wrong type or is outside its enum.

use crate::lint::record::{ProblemRule, Record};
use crate::lint::rules::frontmatter::shared::*;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule frontmatter/type` prints it.
pub(crate) const DOC: &str = r#"# frontmatter/type

a value has the wrong type or is outside its enum

## What it does

Fires on a known key whose value has the wrong type for its kind: a string where a list is expected (`tags: cache`), a non-boolean `model_invocation` (`yes` is a string in YAML 1.2), a `status` outside its enum (`active`/`replaced`, plus `open`/`done` for requests), a title longer than 120 characters, a multi-line `description`, a `created` that is not an RFC 3339 timestamp. Malformed `date` values are `date/format` and empty `sources` are `sources/missing` instead. A value reported here is not inspected by any other rule, so one wrong value gives one diagnostic.

Every kind's fields, with their types, which are required, the allowed values and defaults, are listed in `docs/records.md`.

## Why it matters

Every reader of the record relies on these types. `status: accepted` is neither `active` nor `replaced`, so nothing can tell whether the decision is still in force or let it take part in a `replaced_by` chain; `tags: cache` is not a tag list to tools that iterate tags; `model_invocation: yes` never puts a knowledge record in the session-start context.

## Example

`memory/decisions/evict-cache-on-price-change.md`:

```markdown
---
title: Evict the product cache on every price change
status: accepted
date: 2026-03-12
sources:
  - staging:20260312-110500-e19a
tags: cache
---

The price service publishes `price.changed`; the API evicts `product:<id>` on it.
```

## Fixed

`memory/decisions/evict-cache-on-price-change.md`:

```markdown
---
title: Evict the product cache on every price change
status: active
date: 2026-03-12
sources:
  - staging:20260312-110500-e19a
tags: [cache]
---

The price service publishes `price.changed`; the API evicts `product:<id>` on it.
```

## Fix

Not fixed automatically: change the value to the type the message names (a list in `[…]` or `- item` lines, `true`/`false`, one of the listed words).

## Configuration

```yaml
# .memlint.yml
rules:
  frontmatter/type: warning   # default: error; or off
```
"#;

/// `frontmatter/type`: a value has the wrong type or is outside its enum.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    for field in r.kind.fields() {
        if let Some((entry, span, message)) = r.problem(field.key, ProblemRule::Type) {
            out.emit(
                Rule::FrontmatterType,
                value_span(entry, span),
                message.to_string(),
            );
        }
    }
}
