//! `status/cycle`: `replaced_by` leads back to a record already visited.
//!
//! Judged on the `replaced_by` graph (`graph.rs`) that
//! `status/dangling-target` and `status/chain` share.

use crate::lint::rules::status::graph::{replaced, Graph, Walk};
use crate::lint::rules::workspace::{View, WsSink};
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule status/cycle` prints it.
pub(crate) const DOC: &str = r#"# status/cycle

`replaced_by` leads back to a record already visited

## What it does

Fires when following `replaced_by` from a replaced record comes back to a record already visited, so no record in force is ever reached. Every record on the cycle is reported once, at its `replaced_by` value, with the cycle spelled out (`a → b → a`); a record that points itself is a cycle of one. A replaced record that is not on the cycle but leads into it is reported too. These records get no `status/chain`.

## Why it matters

Every record of the cycle says it was replaced, so as far as memory is concerned the topic has no current decision at all: an agent following the chain goes round in circles, and recall without `--all` hides all of them.

## Example

`memory/decisions/cache-catalog-in-redis.md`:

```markdown
---
title: Cache the catalog in Redis
status: replaced
date: 2026-03-01
sources:
  - staging:20260301-100000-aa01
replaced_by: cache-catalog-at-cdn
---

The catalog API caches responses in Redis for 10 minutes.
```

`memory/decisions/cache-catalog-at-cdn.md`:

```markdown
---
title: Cache the catalog at the CDN
status: replaced
date: 2026-03-08
sources:
  - staging:20260308-100000-bb02
replaced_by: cache-catalog-in-redis
---

The catalog is cached at the CDN edge with surrogate-key purges.
```

## Fixed

The CDN decision is the one in force.

`memory/decisions/cache-catalog-at-cdn.md`:

```markdown
---
title: Cache the catalog at the CDN
status: active
date: 2026-03-08
sources:
  - staging:20260308-100000-bb02
---

The catalog is cached at the CDN edge with surrogate-key purges.
```

## Fix

Not fixed automatically: memlint cannot know which record is current. Decide which one is in force, set it to `status: active` and delete its `replaced_by`; the others keep pointing at it.

## Configuration

```yaml
# .memlint.yml
rules:
  status/cycle: warning   # default: error; or off
```
"#;

/// `status/cycle`: a replaced record on a `replaced_by` cycle, or whose
/// chain runs into one.
pub(crate) fn check(view: &View, graph: &Graph, out: &mut WsSink) {
    let next = &graph.next;
    for r in replaced(view) {
        let (i, e, target) = (r.index, r.entry, r.target);
        if graph.on_cycle[i] {
            out.emit(
                Rule::StatusCycle,
                e.path,
                Some(target),
                format!(
                    "following `replaced_by` from `{}` comes back to it: {}",
                    e.slug,
                    cycle_text(view, next, i)
                ),
            );
            continue;
        }
        let Some(t) = next[i] else { continue };
        let chained =
            next[t].is_some() || view.records[t].info.status.as_deref() == Some("replaced");
        // Not on the cycle itself, but following it never ends: the walk
        // returns to a record already visited.
        if chained && graph.walk(i) == Walk::Cycle {
            out.emit(
                Rule::StatusCycle,
                e.path,
                Some(target),
                format!(
                    "following `replaced_by` from `{}` runs into a cycle: {}; no record ends it",
                    e.slug,
                    lead_in_text(view, next, i)
                ),
            );
        }
    }
}

fn cycle_text(view: &View, next: &[Option<usize>], start: usize) -> String {
    let mut names = vec![view.records[start].slug.to_string()];
    let mut at = next[start];
    while let Some(i) = at {
        names.push(view.records[i].slug.to_string());
        if i == start || names.len() > 64 {
            break;
        }
        at = next[i];
    }
    names.join(" → ")
}

/// The walk from `start` until it first returns to a record already visited.
fn lead_in_text(view: &View, next: &[Option<usize>], start: usize) -> String {
    let mut seen = vec![start];
    let mut names = vec![view.records[start].slug.to_string()];
    let mut at = next[start];
    while let Some(i) = at {
        names.push(view.records[i].slug.to_string());
        if seen.contains(&i) || names.len() > 64 {
            break;
        }
        seen.push(i);
        at = next[i];
    }
    names.join(" → ")
}
