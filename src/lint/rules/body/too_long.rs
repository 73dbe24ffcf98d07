//! `body/too-long`: a body longer than `max_body_chars`.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::kind::Kind;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule body/too-long` prints it.
pub(crate) const DOC: &str = r#"# body/too-long

a body longer than `max_body_chars`

## What it does

Fires on a decision, request or knowledge record whose body is longer than `max_body_chars` characters (default 8000), pointing at the body's first line. Characters are Unicode characters, so a Japanese or Chinese character counts as one; the blank lines around the body are not counted and CRLF counts as one. The summary has its own limit (`summary/too-long`); sessions and staging files are not checked. The example sets `max_body_chars: 300` to stay short.

## Why it matters

Decisions and requests are read whole, at recall and by the consolidation worker; a long one crowds the agent's context, usually mixes several topics, and buries the decision itself under background that belongs in a knowledge record.

## Example

`.memlint.yml`:

```yaml
max_body_chars: 300
```

`memory/decisions/use-circuit-breaker-for-payment-api.md`:

```markdown
---
title: Put a circuit breaker in front of the payment API
status: active
date: 2026-04-01
sources:
  - staging:20260401-143000-c2d9
---

The client opens the breaker after 5 failures in 30 s and probes again after 60 s.

Background: on 2026-03-29 the payment API was down for 40 minutes and every checkout request waited for its 10 s timeout, three times with retries, so the web workers ran out of threads and the whole shop stopped answering, including pages that do not pay.
```

## Fixed

The decision keeps its reason in one line; the incident story belongs in a knowledge record.

`memory/decisions/use-circuit-breaker-for-payment-api.md`:

```markdown
---
title: Put a circuit breaker in front of the payment API
status: active
date: 2026-04-01
sources:
  - staging:20260401-143000-c2d9
---

The client opens the breaker after 5 failures in 30 s and probes again after 60 s.
Why: the 40-minute payment outage of 2026-03-29 stalled every web worker.
```

## Fix

Not fixed automatically: split the record, or move background and detail to `knowledge/` and refer to it. Raise `max_body_chars` if long records are wanted.

## Configuration

```yaml
# .memlint.yml
max_body_chars: 8000   # default
rules:
  body/too-long: error   # default: warning; or off
```
"#;

/// `body/too-long`: a decision, request or knowledge body longer than
/// `max_body_chars`; long records crowd the context and mix topics.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    if !matches!(r.kind, Kind::Decision | Kind::Request | Kind::Knowledge) {
        return;
    }
    let max = r.config.max_body_chars;
    // A body of at most `max` bytes has at most `max` characters.
    if r.parts.body.len() <= max {
        return;
    }
    let chars = r.body_chars();
    if chars > max {
        out.emit(
            Rule::BodyTooLong,
            r.body_span(),
            format!("the body has {chars} characters, more than the {max} allowed; split it or move details to knowledge"),
        );
    }
}
