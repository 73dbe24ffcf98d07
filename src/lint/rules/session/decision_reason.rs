//! `session/decision-reason`: a `Decisions` entry without `: <reasoning>`.

use crate::lint::record::Record;
use crate::lint::rules::session::shared::*;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::session::{content_lines, is_none, section};

/// The rule's documentation, as `memlint rule session/decision-reason` prints it.
pub(crate) const DOC: &str = r#"# session/decision-reason

a `Decisions` entry without `: <reasoning>`

## What it does

Fires on each list item (`- ` or `* `) of a session's `## Decisions` section that has no reasoning: the item must read `- <decision>: <reasoning>` (a colon followed by a space, or a full-width `：`), with something after it. Non-list lines and a section reading `(none)` are not checked.

## Why it matters

A decision without its reason cannot be weighed later: the next session either follows it blindly or overturns it without knowing what it protected against.

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
- Open after 5 failures in 30 s
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

Not fixed automatically: add `: <reasoning>` after the decision, saying why it was taken.

## Configuration

```yaml
# .memlint.yml
rules:
  session/decision-reason: error   # default: warning; or off
```
"#;

/// `session/decision-reason`: each `Decisions` entry gives its reasoning.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    let Some((base, found)) = body_sections(r) else {
        return;
    };
    let Some(s) = section(found, "Decisions") else {
        return;
    };
    let lines = content_lines(r.body(), s.content.clone());
    if is_none(&lines) {
        return;
    }
    for (range, line) in lines {
        let Some(entry) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) else {
            continue;
        };
        let has_reason = entry
            .split_once(": ")
            .or_else(|| entry.split_once('：'))
            .is_some_and(|(_, reason)| !reason.trim().is_empty());
        if !has_reason {
            out.emit(
                Rule::SessionDecisionReason,
                base + range.start..base + range.end,
                "decision without reasoning; write `- <decision>: <reasoning>`",
            );
        }
    }
}
