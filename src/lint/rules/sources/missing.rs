//! `sources/missing`: a kind that requires sources has none.

use crate::lint::record::{ProblemRule, Record};
use crate::lint::rules::sources::shared::*;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule sources/missing` prints it.
pub(crate) const DOC: &str = r#"# sources/missing

a kind that requires sources has none

## What it does

Fires when a decision, request or knowledge record has no `sources` key, or has one whose value is empty (`sources:` or `sources: []`). It points at the opening `---` when the key is absent, otherwise at the empty value (or at the key when nothing follows it). The summary, sessions and staging files do not require sources and are not checked.

## Why it matters

Sources are how a later reader checks a memory: without them nobody can tell whether a decision came from the user, from a code review or from an agent's guess, and the consolidation worker cannot trace the record back to the staging log or session it was distilled from.

## Example

`memory/decisions/use-token-bucket-rate-limiter.md`:

```markdown
---
title: Rate-limit the public API with a token bucket per key
status: active
date: 2026-03-21
---

Each API key gets a bucket of 100 tokens refilled at 10 per second, kept in Redis.
```

## Fixed

`memory/decisions/use-token-bucket-rate-limiter.md`:

```markdown
---
title: Rate-limit the public API with a token bucket per key
status: active
date: 2026-03-21
sources:
  - staging:20260321-102000-e2b4
  - https://redis.io/glossary/rate-limiting/
---

Each API key gets a bucket of 100 tokens refilled at 10 per second, kept in Redis.
```

## Fix

Not fixed automatically: add the sources the record came from, as source strings (`staging:<id>`, `session:<id>`, `cmem:<id>`, `commit:<hex>`, `file:<path>`, `decision:<slug>`, `request:<slug>`, `knowledge:<slug>`, or an http(s) URL).

## Configuration

```yaml
# .memlint.yml
rules:
  sources/missing: warning   # default: error; or off
```
"#;

/// `sources/missing`: a kind that requires sources has none, or an empty list.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    match r.root.get("sources") {
        None if requires_sources(r.kind) => out.emit(
            Rule::SourcesMissing,
            r.opener(),
            format!(
                "a {} must list its `sources` (e.g. `staging:<id>`, `commit:<hex>`, `file:<path>`)",
                r.kind
            ),
        ),
        Some(_) => {
            if let Some((entry, span, msg)) = r.problem("sources", ProblemRule::SourcesMissing) {
                if requires_sources(r.kind) {
                    out.emit(
                        Rule::SourcesMissing,
                        crate::lint::rules::frontmatter::shared::value_span(entry, span),
                        format!("{msg}: a {} needs at least one source", r.kind),
                    );
                }
            }
        }
        None => {}
    }
}
