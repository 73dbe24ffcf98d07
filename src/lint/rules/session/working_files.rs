//! `session/working-files`: fewer than 3 or more than 8 working files.

use crate::lint::record::Record;
use crate::lint::rules::session::shared::*;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::session::{content_lines, file_entry, is_none, section};

/// The rule's documentation, as `memlint rule session/working-files` prints it.
pub(crate) const DOC: &str = r#"# session/working-files

fewer than 3 or more than 8 working files

## What it does

Fires, at the `## Working Files (Modified)` heading, when that section lists fewer than 3 or more than 8 file entries (`- <path> (role: …)` lines); a section reading `(none)` counts as 0. Lines that are not list items are not counted.

## Why it matters

Working files are where the next session starts reading. Fewer than three usually means files were left out (tests, configuration), so the session resumes with a partial picture; more than eight means the list stopped being a guide and the session mixed several tasks.

## Example

`memory/sessions/CMEM-20260405-174500.md`:

```markdown
---
id: CMEM-20260405-174500
created: 2026-04-05T17:45:00+09:00
project_root: /home/aiko/shop-api
description: Circuit breaker for the payment API.
---

## Session ID
CMEM-20260405-174500
## Project Root
/home/aiko/shop-api
## Objective
Stop payment outages from stalling every web worker.
## Execution Plan
### Source: user-stated
Wrap the payment client in a breaker, then tune its thresholds in staging.
## Working Files (Modified)
- /home/aiko/shop-api/payments/client.py (role: payment API client)
- /home/aiko/shop-api/payments/breaker.py (role: circuit breaker)
## Reference Files (Read-Only)
- /home/aiko/shop-api/docs/payment-api.md (role: timeouts and limits)
## Last Action
Ran `pytest tests/test_breaker.py`: 12 passed.
## Decisions
- Open after 5 failures in 30 s: fewer trips on single deploy blips in staging.
## Constraints
- 支付请求不能自动重试 POST，除非带有 Idempotency-Key。
## Dependencies
(none)
## Known Issues
(none)
## Changes Made
- `payments/breaker.py`: new `CircuitBreaker` wrapping every payment call.
## Pending
- Production load test on 2026-04-06.
## Notes
(none)
```

## Fixed

The test file that was also modified is listed.

`memory/sessions/CMEM-20260405-174500.md`:

```markdown
---
id: CMEM-20260405-174500
created: 2026-04-05T17:45:00+09:00
project_root: /home/aiko/shop-api
description: Circuit breaker for the payment API.
---

## Session ID
CMEM-20260405-174500
## Project Root
/home/aiko/shop-api
## Objective
Stop payment outages from stalling every web worker.
## Execution Plan
### Source: user-stated
Wrap the payment client in a breaker, then tune its thresholds in staging.
## Working Files (Modified)
- /home/aiko/shop-api/payments/client.py (role: payment API client)
- /home/aiko/shop-api/payments/breaker.py (role: circuit breaker)
- /home/aiko/shop-api/tests/test_breaker.py (role: breaker tests)
## Reference Files (Read-Only)
- /home/aiko/shop-api/docs/payment-api.md (role: timeouts and limits)
## Last Action
Ran `pytest tests/test_breaker.py`: 12 passed.
## Decisions
- Open after 5 failures in 30 s: fewer trips on single deploy blips in staging.
## Constraints
- 支付请求不能自动重试 POST，除非带有 Idempotency-Key。
## Dependencies
(none)
## Known Issues
(none)
## Changes Made
- `payments/breaker.py`: new `CircuitBreaker` wrapping every payment call.
## Pending
- Production load test on 2026-04-06.
## Notes
(none)
```

## Fix

Not fixed automatically: list every file the session modified, with its role; if there are more than 8, keep the ones a resuming session must open first. When a session really touched fewer files, the warning can be accepted or the rule set to `off`.

## Configuration

```yaml
# .memlint.yml
rules:
  session/working-files: error   # default: warning; or off
```
"#;

/// `session/working-files`: 3 to 8 working files.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    let Some((base, found)) = body_sections(r) else {
        return;
    };
    let Some(s) = section(found, "Working Files (Modified)") else {
        return;
    };
    let lines = content_lines(r.body(), s.content.clone());
    let n = if is_none(&lines) {
        0
    } else {
        lines
            .iter()
            .filter(|(_, l)| file_entry(l, 0).is_some())
            .count()
    };
    if !(3..=8).contains(&n) {
        out.emit(
            Rule::SessionWorkingFiles,
            base + s.heading.start..base + s.heading.end,
            format!("{n} working files; a useful session memory names 3 to 8"),
        );
    }
}
