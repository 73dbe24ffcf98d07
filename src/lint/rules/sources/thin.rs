//! `sources/thin`: a long body backed by a single source.

use crate::lint::record::{FieldState, Record};
use crate::lint::rules::sources::shared::*;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule sources/thin` prints it.
pub(crate) const DOC: &str = r#"# sources/thin

a long body backed by a single source

## What it does

Fires on a decision, request or knowledge record whose body is longer than 1500 characters (counted in Unicode characters, without the blank lines around the body, CRLF as one) while its `sources` list holds exactly one entry. It points at that entry. A record with no sources is `sources/missing`; one whose list has an entry of the wrong type is skipped.

## Why it matters

A long body usually draws on more than one conversation, log or document. With a single source listed, a reader can verify only part of it, and the rest reads as fact with nothing behind it; when the record is later questioned, nobody can find where the other claims came from.

## Example

`knowledge/webhook-retry-behaviour.md`:

```markdown
---
title: How webhook retries behave in production
description: Retry schedule, dead-lettering and the duplicate-delivery cases of the webhook sender.
model_invocation: false
date: 2026-03-26
sources:
  - staging:20260326-150000-2a9d
---

The webhook sender retries a failed delivery six times. The first retry waits 2 seconds and each later one doubles the wait, capped at 5 minutes, with full jitter so that receivers that failed together do not get all retries at the same instant. A delivery counts as failed on a connection error, a timeout of 10 seconds, or any 5xx or 429 response; 4xx responses other than 429 are not retried, because the receiver has told us the request itself is wrong and sending it again will not change that answer.

After the sixth failure the event goes to the dead-letter table with the last status code and response body (truncated to 4 KB). The on-call engineer is paged only when more than 50 events of one receiver are dead-lettered within an hour, since single failures are common during receivers' deploys and usually clear up on their own. Dead-lettered events can be replayed from the admin screen, one by one or per receiver, and a replay starts a fresh schedule of six attempts. Every replay is written to the audit log with the operator's name and the number of events it sent.

Receivers must treat deliveries as at-least-once. The sender can deliver an event twice when the receiver processed it but the response was lost, for example when the receiver's load balancer closed the connection after the handler finished. Every delivery carries the `Webhook-Id` header, stable across retries and replays, so that receivers can drop duplicates; our own receivers keep the ids of the last 7 days in Redis with a TTL for exactly that purpose.
```

## Fixed

The other sources the body draws on are listed.

`knowledge/webhook-retry-behaviour.md`:

```markdown
---
title: How webhook retries behave in production
description: Retry schedule, dead-lettering and the duplicate-delivery cases of the webhook sender.
model_invocation: false
date: 2026-03-26
sources:
  - staging:20260326-150000-2a9d
  - staging:20260317-113000-b5e2
  - https://github.com/acme/shop-api/issues/318
---

The webhook sender retries a failed delivery six times. The first retry waits 2 seconds and each later one doubles the wait, capped at 5 minutes, with full jitter so that receivers that failed together do not get all retries at the same instant. A delivery counts as failed on a connection error, a timeout of 10 seconds, or any 5xx or 429 response; 4xx responses other than 429 are not retried, because the receiver has told us the request itself is wrong and sending it again will not change that answer.

After the sixth failure the event goes to the dead-letter table with the last status code and response body (truncated to 4 KB). The on-call engineer is paged only when more than 50 events of one receiver are dead-lettered within an hour, since single failures are common during receivers' deploys and usually clear up on their own. Dead-lettered events can be replayed from the admin screen, one by one or per receiver, and a replay starts a fresh schedule of six attempts. Every replay is written to the audit log with the operator's name and the number of events it sent.

Receivers must treat deliveries as at-least-once. The sender can deliver an event twice when the receiver processed it but the response was lost, for example when the receiver's load balancer closed the connection after the handler finished. Every delivery carries the `Webhook-Id` header, stable across retries and replays, so that receivers can drop duplicates; our own receivers keep the ids of the last 7 days in Redis with a TTL for exactly that purpose.
```

## Fix

Not fixed automatically: add the other sources the body draws on, or shorten the body to what the single source supports.

## Configuration

```yaml
# .memlint.yml
rules:
  sources/thin: error   # default: warning; or off
```
"#;

/// `sources/thin`: a long body backed by a single source.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    // A list with a wrongly typed entry holds more than its strings.
    if !requires_sources(r.kind) || !matches!(r.field("sources"), FieldState::Valid(_)) {
        return;
    }
    let list = entries(r);
    if list.len() != 1 {
        return;
    }
    let chars = r.body_chars();
    if chars > 1500 {
        out.emit(
            Rule::SourcesThin,
            list[0].1.clone(),
            format!("the body has {chars} characters but a single source backs it; add the other sources it draws on"),
        );
    }
}
