//! `sources/too-many`: more than `max_sources` entries.

use crate::lint::record::{FieldState, Record};
use crate::lint::rules::sources::shared::*;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule sources/too-many` prints it.
pub(crate) const DOC: &str = r#"# sources/too-many

more than `max_sources` entries

## What it does

Fires on a record whose `sources` list has more than `max_sources` entries (default 10), pointing at the `sources` key. It counts every entry, repeats included, and applies to any kind that has a valid `sources` list. The example sets `max_sources: 4` to stay short.

## Why it matters

A record backed by many sources usually mixes several topics that were consolidated together; it is harder to replace one part of it, recall returns it for unrelated queries, and the consolidation worker's `memlint report` lists it under `too_many_sources` as tidy-up material.

## Example

`.memlint.yml`:

```yaml
max_sources: 4
```

`memory/decisions/use-redis-for-caching.md`:

```markdown
---
title: Use Redis for API response and session caching
status: active
date: 2026-03-25
sources:
  - staging:20260318-141000-0c9b
  - staging:20260320-090000-4c4d
  - staging:20260323-091500-a7c1
  - staging:20260325-110000-d3f8
  - https://redis.io/docs/latest/develop/reference/eviction/
---

API responses and user sessions are cached in one Redis cluster with `allkeys-lru`.
```

## Fixed

Only the sources the decision rests on are kept (a record that really covers two topics is better split in two).

`memory/decisions/use-redis-for-caching.md`:

```markdown
---
title: Use Redis for API response and session caching
status: active
date: 2026-03-25
sources:
  - staging:20260318-141000-0c9b
  - staging:20260325-110000-d3f8
  - https://redis.io/docs/latest/develop/reference/eviction/
---

API responses and user sessions are cached in one Redis cluster with `allkeys-lru`.
```

## Fix

Not fixed automatically: memlint cannot tell which sources matter. Keep those the record rests on, or split the record into one record per topic with its own sources.

## Configuration

```yaml
# .memlint.yml
max_sources: 10   # default
rules:
  sources/too-many: error   # default: warning; or off
```
"#;

/// `sources/too-many`: more than `max_sources` entries; the record probably
/// mixes several topics.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    let FieldState::Valid(node) = r.field("sources") else {
        return;
    };
    let n = entries(r).len();
    let max = r.config.max_sources;
    if n > max {
        let key = r
            .root
            .get("sources")
            .map(|e| e.key.span.clone())
            .unwrap_or(node.span.clone());
        out.emit(
            Rule::SourcesTooMany,
            key,
            format!("{n} sources, more than the {max} allowed; split the record or keep the sources that matter"),
        );
    }
}
