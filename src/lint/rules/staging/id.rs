//! `staging/id`: a staging id that does not match its format or file stem.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::kind::{is_staging_id, Kind};
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule staging/id` prints it.
pub(crate) const DOC: &str = r#"# staging/id

a staging id that does not match its format or file stem

## What it does

Fires on a staging file whose `id` is not `YYYYMMDD-HHMMSS-xxxx` (a valid date and time, then four lowercase hex digits), or is well-formed but differs from the file name without `.md`. It points at the `id` value. A missing `id` is `frontmatter/required`; an `id` that is not a string is `frontmatter/type`.

## Why it matters

Staging ids are what records cite (`staging:<id>`) and what the consolidation lock lists as consumed; `memlint staging claim` and `release` work from the file names. An id that differs from its file name makes a record's source point at a log that does not exist under that name, and the trail from memory back to the raw activity is lost.

## Example

`staging/20260404-091500-3fa2.md`:

```markdown
---
id: 20260404-091500-3FA2
source: session:2d7b9c41-6e0a-4f3b-9a18-c5e2d0b7f364
created: 2026-04-04T09:15:00+09:00
---

- 09:15:04 read `memory/decisions/use-circuit-breaker-for-payment-api.md`
- 09:21:12 user: 熔断器的阈值改为 30 秒内失败 5 次
```

## Fixed

`staging/20260404-091500-3fa2.md`:

```markdown
---
id: 20260404-091500-3fa2
source: session:2d7b9c41-6e0a-4f3b-9a18-c5e2d0b7f364
created: 2026-04-04T09:15:00+09:00
---

- 09:15:04 read `memory/decisions/use-circuit-breaker-for-payment-api.md`
- 09:21:12 user: 熔断器的阈值改为 30 秒内失败 5 次
```

## Fix

Not fixed automatically: make the `id` and the file name the same valid id (fix whichever is wrong; hex digits are lowercase).

## Configuration

```yaml
# .memlint.yml
rules:
  staging/id: warning   # default: error; or off
```
"#;

/// `staging/id`: the id must be `YYYYMMDD-HHMMSS-xxxx` and equal the file stem.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    if r.kind != Kind::Staging {
        return;
    }
    let Some((id, span)) = r.str_field("id") else {
        return;
    };
    if !is_staging_id(id) {
        out.emit(Rule::StagingId, span, format!("staging id `{id}` is not of the form YYYYMMDD-HHMMSS-xxxx (4 lowercase hex digits)"));
    } else if id != r.stem() {
        out.emit(
            Rule::StagingId,
            span,
            format!(
                "staging id `{id}` differs from the file name `{}.md`",
                r.stem()
            ),
        );
    }
}
