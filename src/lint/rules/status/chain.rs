//! `status/chain`: `replaced_by` points at a record that is itself replaced.
//!
//! Judged on the `replaced_by` graph (`graph.rs`) that
//! `status/dangling-target` and `status/cycle` share; the fix points
//! `replaced_by` at the chain's end.

use crate::lint::rules::status::graph::{replaced, Graph, Walk};
use crate::lint::rules::workspace::{View, WsSink};
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule status/chain` prints it.
pub(crate) const DOC: &str = r#"# status/chain

`replaced_by` points at a record that is itself replaced

## What it does

Fires on a replaced record whose `replaced_by` names a record of the same kind that is itself `status: replaced`. In a chain `a → b → c → d` with `d` active, `a` and `b` are reported (at their `replaced_by` value) and `c` is not: its target is in force. Records on a cycle, and records whose chain runs into a cycle, get `status/cycle` instead; a `replaced_by` that names no record is `status/dangling-target`.

## Why it matters

An agent that lands on `use-sqlite` reads "replaced by `use-postgres`", opens it, and finds that is outdated as well; with a hop missed it acts on a superseded decision. Pointing every replaced record straight at the record in force makes one lookup enough.

## Example

`memory/decisions/use-sqlite-cache.md`:

```markdown
---
title: Use SQLite for the response cache
status: replaced
date: 2026-01-12
sources:
  - staging:20260112-093000-4be1
replaced_by: use-postgres-cache
---

The API response cache lives in a local SQLite file.
```

`memory/decisions/use-postgres-cache.md`:

```markdown
---
title: Use Postgres for the response cache
status: replaced
date: 2026-02-03
sources:
  - staging:20260203-141500-9c2d
replaced_by: use-redis-cache
---

The response cache moves to the shared Postgres so every worker sees it.
```

`memory/decisions/use-redis-cache.md`:

```markdown
---
title: Use Redis for the response cache
status: active
date: 2026-03-18
sources:
  - staging:20260318-101200-77af
  - https://redis.io/docs/latest/develop/use/client-side-caching/
---

The response cache moves to Redis with a 10-minute TTL; Postgres load halved.
```

## Fixed

`memory/decisions/use-sqlite-cache.md`:

```markdown
---
title: Use SQLite for the response cache
status: replaced
date: 2026-01-12
sources:
  - staging:20260112-093000-4be1
replaced_by: use-redis-cache
---

The API response cache lives in a local SQLite file.
```

## Fix

`memlint check --fix` rewrites the `replaced_by` value of each reported record to the slug of the chain's final, non-replaced record, written plain (quoted only when the slug would otherwise read as another YAML type, such as `'2026'`); comments and the rest of the file are untouched. It does not apply when the chain ends at a replaced record whose own `replaced_by` is missing or names nothing (the message then says to mend that record first), nor to records that lead into a cycle.

## Configuration

```yaml
# .memlint.yml
rules:
  status/chain: error   # default: warning; or off
```
"#;

/// The `status/chain` fix: point `replaced_by` (its value's span) at the
/// final record of the chain.
pub(crate) fn chain_edit(
    replaced_by_value: std::ops::Range<usize>,
    final_slug: &str,
) -> crate::syntax::edit::Edit {
    crate::syntax::edit::Edit {
        span: replaced_by_value,
        text: crate::syntax::quoting::plain_or_quoted(final_slug),
    }
}

/// `status/chain`: a replaced record whose `replaced_by` names a record
/// that is itself replaced (records on or into a cycle are
/// `status/cycle`'s).
pub(crate) fn check(view: &View, graph: &Graph, out: &mut WsSink) {
    let next = &graph.next;
    for r in replaced(view) {
        let (i, e, target) = (r.index, r.entry, r.target);
        if graph.on_cycle[i] {
            continue;
        }
        let Some(t) = next[i] else { continue };
        if next[t].is_none() && view.records[t].info.status.as_deref() != Some("replaced") {
            continue;
        }
        let Walk::Final(f) = graph.walk(i) else {
            continue;
        };
        if fixable_chain(view, graph, i) {
            out.emit(
                Rule::StatusChain,
                e.path,
                Some(target),
                format!(
                    "replaced_by points to `{}`, which is itself replaced; point it at the final record `{}`",
                    target.value, view.records[f].slug
                ),
            );
        } else {
            // The chain ends at a replaced record whose own target is
            // missing or names nothing: no final record to point at.
            out.emit_fixable(
                Rule::StatusChain,
                e.path,
                Some(target),
                format!(
                    "replaced_by points to `{}`, which is itself replaced; the chain ends at `{}`, which is replaced by no record: mend that one first",
                    target.value, view.records[f].slug
                ),
                false,
            );
        }
    }
}

/// The final target of every record whose `replaced_by` forms a chain, as
/// (record path, final slug): what `check --fix` writes for `status/chain`.
pub(crate) fn chain_fixes(view: &View) -> Vec<(String, String)> {
    let graph = Graph::of(view);
    let mut out = Vec::new();
    for (i, e) in view.records.iter().enumerate() {
        if graph.on_cycle[i] || !fixable_chain(view, &graph, i) {
            continue;
        }
        if let Walk::Final(f) = graph.walk(i) {
            out.push((e.path.to_string(), view.records[f].slug.to_string()));
        }
    }
    out
}

/// Whether record `i` starts a chain `--fix` can shorten: it points at a
/// record that points on, and the chain ends at a record that is not
/// replaced (a final record to point at).
fn fixable_chain(view: &View, graph: &Graph, i: usize) -> bool {
    let Some(t) = graph.next[i] else { return false };
    if graph.next[t].is_none() {
        return false;
    }
    match graph.walk(i) {
        Walk::Final(f) => view.records[f].info.status.as_deref() != Some("replaced"),
        Walk::Cycle => false,
    }
}
