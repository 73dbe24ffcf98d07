//! `status/target-without-replaced`: `replaced_by` while status is not
//! `replaced`.

use crate::lint::record::{FieldState, Record};
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule status/target-without-replaced` prints it.
pub(crate) const DOC: &str = r#"# status/target-without-replaced

`replaced_by` while status is not `replaced`

## What it does

Fires on a record that has a `replaced_by` key while its status is something other than `replaced` (`active`, or `open`/`done` for a request; a knowledge record without `status` counts as `active`). It points at the `replaced_by` key. A record whose status is invalid is left to `frontmatter/type`.

## Why it matters

The record contradicts itself: its status says it is in force, its `replaced_by` says it is not. Tools and agents that trust the status keep following an outdated decision, and those that follow `replaced_by` skip a record that may be the current one.

## Example

`memory/decisions/retry-all-5xx-responses.md`:

```markdown
---
title: Retry every 5xx response from the payment API
status: active
date: 2026-02-20
sources:
  - staging:20260220-170000-5d6e
replaced_by: retry-policy-for-payment-api
---

All 5xx responses are retried up to 3 times.
```

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

## Fixed

`memory/decisions/retry-all-5xx-responses.md`:

```markdown
---
title: Retry every 5xx response from the payment API
status: replaced
date: 2026-02-20
sources:
  - staging:20260220-170000-5d6e
replaced_by: retry-policy-for-payment-api
---

All 5xx responses are retried up to 3 times.
```

## Fix

Not fixed automatically: memlint cannot tell which half is wrong. Set `status: replaced` if the record really was replaced, or delete `replaced_by` if it is still in force.

## Configuration

```yaml
# .memlint.yml
rules:
  status/target-without-replaced: warning   # default: error; or off
```
"#;

/// `status/target-without-replaced`: `replaced_by` while status is not `replaced`.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    let Some(status) = r.status() else { return };
    if status == "replaced" {
        return;
    }
    if let Some(entry) = r.root.get("replaced_by") {
        if matches!(r.field("replaced_by"), FieldState::Invalid) {
            return;
        }
        out.emit(
            Rule::StatusTargetWithoutReplaced,
            entry.key.span.clone(),
            format!("`replaced_by` is set but status is `{status}`; set `status: replaced` or delete `replaced_by`"),
        );
    }
}
