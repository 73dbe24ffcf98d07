//! `session/plan-source`: `Execution Plan` lacks a valid `### Source:` line.

use crate::lint::record::Record;
use crate::lint::rules::session::shared::*;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::session::{content_lines, plan_source, section};

/// The rule's documentation, as `memlint rule session/plan-source` prints it.
pub(crate) const DOC: &str = r#"# session/plan-source

`Execution Plan` lacks a valid `### Source:` line

## What it does

Fires when the first non-empty line of a session's `## Execution Plan` section is not `### Source: <workflow|todo|user-stated|inferred>` (a label may follow the word, as in `### Source: workflow (IMPL_PLAN.md)`). It also fires when the section is empty. A missing `Execution Plan` section is `session/sections` instead.

## Why it matters

The source says how far the plan can be trusted: a plan the user stated or a workflow file defines must be followed, one the agent inferred may be revised. Without it the next session cannot tell a commitment from a guess.

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
### Source: plan
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

Not fixed automatically: start the section with `### Source:` and one of `workflow`, `todo`, `user-stated`, `inferred`, whichever says where the plan came from.

## Configuration

```yaml
# .memlint.yml
rules:
  session/plan-source: warning   # default: error; or off
```
"#;

/// `session/plan-source`: `Execution Plan` starts with a valid `### Source:`.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    let Some((base, found)) = body_sections(r) else {
        return;
    };
    let Some(s) = section(found, "Execution Plan") else {
        return;
    };
    let lines = content_lines(r.body(), s.content.clone());
    let (span, line) = match lines.first() {
        Some((range, line)) => (base + range.start..base + range.end, *line),
        None => (base + s.heading.start..base + s.heading.end, ""),
    };
    if let Err(message) = plan_source(line) {
        out.emit(Rule::SessionPlanSource, span, message);
    }
}
