//! `status/dangling-target`: `replaced_by` names no record of the same kind.

use crate::lint::rules::status::graph::{replaced, Graph};
use crate::lint::rules::workspace::{View, WsSink};
use crate::model::kind::Kind;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule status/dangling-target` prints it.
pub(crate) const DOC: &str = r#"# status/dangling-target

`replaced_by` names no record of the same kind

## What it does

Fires on a replaced record whose `replaced_by` names no record of the same kind: a typo, a record that was deleted or renamed, or a record of another kind (a decision can only be replaced by a decision). The message suggests the closest slug of the same kind and says when the name belongs to another kind. It is checked only when `status` is `replaced`; otherwise `status/target-without-replaced` applies.

## Why it matters

The pointer to the current record leads nowhere, so an agent that finds the old decision knows it is outdated but cannot find what replaced it; `status/chain` and `memlint report` cannot follow the chain either.

## Example

`memory/decisions/cache-sessions-in-process.md`:

```markdown
---
title: Cache user sessions in the API process
status: replaced
date: 2026-02-10
sources:
  - staging:20260210-120000-b0a4
replaced_by: use-redis-sessions
---

Sessions are kept in an in-process LRU of 50,000 entries.
```

`memory/decisions/use-redis-for-sessions.md`:

```markdown
---
title: Keep user sessions in Redis
status: active
date: 2026-03-18
sources:
  - staging:20260318-141000-0c9b
---

Sessions move from the API process memory to Redis so that any replica can serve a user.
```

## Fixed

`memory/decisions/cache-sessions-in-process.md`:

```markdown
---
title: Cache user sessions in the API process
status: replaced
date: 2026-02-10
sources:
  - staging:20260210-120000-b0a4
replaced_by: use-redis-for-sessions
---

Sessions are kept in an in-process LRU of 50,000 entries.
```

## Fix

Not fixed automatically: point `replaced_by` at the slug (file name without `.md`) of the record of the same kind that replaced this one.

## Configuration

```yaml
# .memlint.yml
rules:
  status/dangling-target: warning   # default: error; or off
```
"#;

/// `status/dangling-target`: a replaced record whose `replaced_by` names no
/// record of its kind (a record on a cycle is `status/cycle`'s).
pub(crate) fn check(view: &View, graph: &Graph, out: &mut WsSink) {
    for r in replaced(view) {
        let (e, target) = (r.entry, r.target);
        let Some(kind) = e.info.kind else { continue };
        if graph.on_cycle[r.index] || graph.next[r.index].is_some() {
            continue;
        }
        if view.exists(kind, &target.value) {
            continue;
        }
        // Never the record itself: that would be a cycle.
        let mut slugs = view.slugs(kind);
        slugs.retain(|s| *s != e.slug);
        let hint = crate::syntax::text::closest(target.value.as_str(), &slugs, 0.6)
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        let other = Kind::ALL
            .into_iter()
            .find(|k| *k != kind && view.exists(*k, &target.value))
            .map(|k| {
                format!(
                    "; `{}` is a {k}, and a {kind} can only be replaced by a {kind}",
                    target.value
                )
            })
            .unwrap_or_default();
        out.emit(
            Rule::StatusDanglingTarget,
            e.path,
            Some(target),
            format!(
                "replaced_by points to `{}`, which is not a {kind}{other}{hint}",
                target.value
            ),
        );
    }
}
