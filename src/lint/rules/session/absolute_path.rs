//! `session/absolute-path`: a project root or file-list entry is not absolute.

use crate::lint::record::Record;
use crate::lint::rules::session::shared::*;
use crate::lint::sink::{Finding, Sink};
use crate::model::kind::{is_absolute_path, Kind};
use crate::model::rule::Rule;
use crate::syntax::session::{content_lines, file_entry, is_none, section};

/// The rule's documentation, as `memlint rule session/absolute-path` prints it.
pub(crate) const DOC: &str = r#"# session/absolute-path

a project root or file-list entry is not absolute

## What it does

Fires when `project_root` in the front matter, the first line of the `## Project Root` section, or the path of an entry in `## Working Files (Modified)` or `## Reference Files (Read-Only)` is not absolute. POSIX (`/home/aiko/x`), Windows drive (`D:\work\x`, `D:/work/x`) and UNC (`\\server\share`) paths are absolute; backticks around a path are allowed. Each relative path gets one diagnostic at the path. Sections that say `(none)` are not checked.

## Why it matters

A session is resumed later, often from another working directory or by another agent: a relative path such as `payments/client.py` leaves it guessing which checkout and which directory the file was in, while an absolute one can be opened directly.

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
- payments/client.py (role: payment API client)
- payments/breaker.py (role: circuit breaker)
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

Not fixed automatically: write each path in full, starting from the project root given in `Project Root`.

## Configuration

```yaml
# .memlint.yml
rules:
  session/absolute-path: warning   # default: error; or off
```
"#;

/// `session/absolute-path`: `project_root`, `Project Root` and file lists.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    if r.kind != Kind::Session {
        return;
    }
    if let Some((root, span)) = r.str_field("project_root") {
        if !is_absolute_path(root) {
            out.emit(
                Rule::SessionAbsolutePath,
                span,
                format!("`project_root` `{root}` is not an absolute path"),
            );
        }
    }
    let Some((base, found)) = body_sections(r) else {
        return;
    };
    let body = r.body();
    if let Some(s) = section(found, "Project Root") {
        let lines = content_lines(body, s.content.clone());
        if let Some((range, line)) = lines.first() {
            let path = line.trim().trim_matches('`');
            if path != "(none)" && !is_absolute_path(path) {
                out.emit(
                    Rule::SessionAbsolutePath,
                    base + range.start..base + range.end,
                    format!("`Project Root` `{path}` is not an absolute path"),
                );
            }
        }
    }
    for name in ["Working Files (Modified)", "Reference Files (Read-Only)"] {
        let Some(s) = section(found, name) else {
            continue;
        };
        let lines = content_lines(body, s.content.clone());
        if is_none(&lines) {
            continue;
        }
        for (range, line) in lines {
            if let Some((path, span)) = file_entry(line, range.start) {
                if !is_absolute_path(path) {
                    out.emit(
                        Rule::SessionAbsolutePath,
                        base + span.start..base + span.end,
                        format!("`{path}` in `{name}` is not an absolute path"),
                    );
                }
            }
        }
    }
}

/// `session/absolute-path` on a session text being imported (`memlint
/// compact`) whose `## Project Root` section names no path: the record's
/// `project_root` is taken from it, so the record would lack it. At the
/// section's heading.
pub(crate) fn empty_project_root(text: &str) -> Option<Finding> {
    let found = crate::syntax::session::sections(text);
    let s = section(&found, "Project Root")?;
    Some(Finding {
        rule: Rule::SessionAbsolutePath,
        span: s.heading.start..s.heading.start,
        message: "`Project Root` names no path; write the project's absolute path under \
                  it (the record's `project_root` is taken from it)"
            .to_string(),
        fixable: false,
    })
}
