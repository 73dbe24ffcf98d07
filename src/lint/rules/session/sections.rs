//! `session/sections`: a section is missing, repeated or out of order.

use crate::lint::record::Record;
use crate::lint::rules::session::shared::*;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::session::section_problems;

/// The rule's documentation, as `memlint rule session/sections` prints it.
pub(crate) const DOC: &str = r#"# session/sections

a section is missing, repeated or out of order

## What it does

Fires on a session record whose body does not have each of the 14 level-2 sections exactly once and in order: `Session ID`, `Project Root`, `Objective`, `Execution Plan`, `Working Files (Modified)`, `Reference Files (Read-Only)`, `Last Action`, `Decisions`, `Constraints`, `Dependencies`, `Known Issues`, `Changes Made`, `Pending`, `Notes`. A missing section is reported at the heading of the next section present; a repeated or misplaced one at its own heading. Headings inside fenced code or a `<details>` block (a plan kept verbatim) do not count, nor do `## ` headings with other names.

## Why it matters

A new session resumes from this record without re-exploring the project: tools and agents look up sections by name and position, so a missing `Dependencies` leaves the reader unsure whether there were none or they were forgotten. An empty section says `(none)`.

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
- /home/aiko/shop-api/tests/test_breaker.py (role: breaker tests)
## Reference Files (Read-Only)
- /home/aiko/shop-api/docs/payment-api.md (role: timeouts and limits)
## Last Action
Ran `pytest tests/test_breaker.py`: 12 passed.
## Decisions
- Open after 5 failures in 30 s: fewer trips on single deploy blips in staging.
## Constraints
- 支付请求不能自动重试 POST，除非带有 Idempotency-Key。
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

Not fixed automatically: add the missing section (with `(none)` when it has nothing to say), delete or merge the repeated one, or move the misplaced one. `memlint compact template` prints the 14 sections in order.

## Configuration

```yaml
# .memlint.yml
rules:
  session/sections: warning   # default: error; or off
```
"#;

/// `session/sections`: each of the 14 sections once, in order.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    let Some((base, found)) = body_sections(r) else {
        return;
    };
    for (span, message) in section_problems(r.body(), found) {
        out.emit(
            Rule::SessionSections,
            base + span.start..base + span.end,
            message,
        );
    }
}
