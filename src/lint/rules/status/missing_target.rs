//! `status/missing-target`: `status: replaced` without `replaced_by`.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule status/missing-target` prints it.
pub(crate) const DOC: &str = r#"# status/missing-target

`status: replaced` without `replaced_by`

## What it does

Fires on a decision, request or knowledge record with `status: replaced` and no `replaced_by` key, pointing at the status value. A `replaced_by` that is present but names nothing is `status/dangling-target` instead.

## Why it matters

A replaced record that does not say what replaced it is a dead end: an agent that finds it in recall learns that the old answer is wrong but not where the current one is, and may fall back to guessing or to the outdated text.

## Example

`memory/decisions/cache-sessions-in-process.md`:

```markdown
---
title: Cache user sessions in the API process
status: replaced
date: 2026-02-10
sources:
  - staging:20260210-120000-b0a4
---

Sessions are kept in an in-process LRU of 50,000 entries.
```

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

## Fixed

`memory/decisions/cache-sessions-in-process.md`:

```markdown
---
title: Cache user sessions in the API process
status: replaced
date: 2026-02-10
sources:
  - staging:20260210-120000-b0a4
replaced_by: use-redis-for-sessions
---

Sessions are kept in an in-process LRU of 50,000 entries.
```

## Fix

Not fixed automatically: add `replaced_by: <slug>` naming the record of the same kind that replaced this one. If nothing replaced it and it is simply obsolete, delete the file in a commit with a `Memlint-GC: drop <kind-dir>/<slug> outdated` trailer instead.

## Configuration

```yaml
# .memlint.yml
rules:
  status/missing-target: warning   # default: error; or off
```
"#;

/// `status/missing-target`: `status: replaced` without `replaced_by`.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    if r.status() != Some("replaced") || r.root.get("replaced_by").is_some() {
        return;
    }
    let span = r
        .root
        .get("status")
        .map(|e| e.value.span.clone())
        .unwrap_or(r.opener());
    out.emit(
        Rule::StatusMissingTarget,
        span,
        format!(
            "a replaced {} must say what replaced it in `replaced_by: <slug>`",
            r.kind
        ),
    );
}
