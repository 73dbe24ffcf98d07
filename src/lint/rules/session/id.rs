//! `session/id`: a session id that does not match its format or file stem.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::kind::{is_session_id, Kind};
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule session/id` prints it.
pub(crate) const DOC: &str = r#"# session/id

a session id that does not match its format or file stem

## What it does

Fires on a session record (`memory/sessions/*.md`) whose `id` is not `CMEM-YYYYMMDD-HHMMSS` with a valid date and time, or is well-formed but differs from the file name without `.md`. It points at the `id` value. A missing `id` is `frontmatter/required`, a non-string one `frontmatter/type`. The `## Session ID` section of the body is not compared.

## Why it matters

`memlint compact list` shows the `id`, but `memlint compact export --id` and `cmem:<id>` sources find a session by its file name. When the two disagree, the id a reader copies from the list or the record restores nothing, and a `cmem:` source citing it dangles.

## Example

`memory/sessions/CMEM-20260405-174500.md`:

```markdown
---
id: CMEM-20260405-1745
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

Not fixed automatically: write the id as `CMEM-YYYYMMDD-HHMMSS`, equal to the file name (rename the file if the file name is the wrong one). `memlint compact import` names the file after the id, so this only happens to hand-edited sessions.

## Configuration

```yaml
# .memlint.yml
rules:
  session/id: warning   # default: error; or off
```
"#;

/// `session/id`: `CMEM-YYYYMMDD-HHMMSS`, equal to the file stem.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    if r.kind != Kind::Session {
        return;
    }
    let Some((id, span)) = r.str_field("id") else {
        return;
    };
    if !is_session_id(id) {
        out.emit(
            Rule::SessionId,
            span,
            format!("session id `{id}` is not of the form CMEM-YYYYMMDD-HHMMSS"),
        );
    } else if id != r.stem() {
        out.emit(
            Rule::SessionId,
            span,
            format!(
                "session id `{id}` differs from the file name `{}.md`",
                r.stem()
            ),
        );
    }
}
