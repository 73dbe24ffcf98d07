//! `status/dangling-target`: `replaced_by` names no record of the same kind.

use crate::lint::rules::workspace::{View, WsSink};
use crate::model::kind::Kind;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule status/dangling-target` prints it.
pub const DOC: &str = r#"# status/dangling-target

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

/// Where following `replaced_by` from a record ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Walk {
    /// At a record that is not replaced (or whose target is unknown): its index.
    Final(usize),
    /// The walk entered a cycle.
    Cycle,
}

/// For every record, the index of the record its `replaced_by` names, if any.
pub(crate) fn targets(view: &View) -> Vec<Option<usize>> {
    view.records
        .iter()
        .map(|e| {
            let kind = e.info.kind?;
            let target = e.info.replaced_by.as_ref()?;
            if e.info.status.as_deref() != Some("replaced") {
                return None;
            }
            view.by_index(kind, &target.value)
        })
        .collect()
}

/// Indices of records that lie on a `replaced_by` cycle.
pub(crate) fn cycle_members(next: &[Option<usize>]) -> Vec<bool> {
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; next.len()];
    let mut on_cycle = vec![false; next.len()];
    for start in 0..next.len() {
        if state[start] != 0 {
            continue;
        }
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                0 => {
                    state[i] = 1;
                    path.push(i);
                    at = next[i];
                }
                1 => {
                    // `i` is on the current path: everything from it on is a cycle.
                    let from = path.iter().position(|&p| p == i).unwrap_or(0);
                    for &p in &path[from..] {
                        on_cycle[p] = true;
                    }
                    break;
                }
                _ => break,
            }
        }
        for p in path {
            state[p] = 2;
        }
    }
    on_cycle
}

/// Follows `replaced_by` from `start` to the final record.
pub fn walk(next: &[Option<usize>], on_cycle: &[bool], start: usize) -> Walk {
    let mut at = start;
    let mut steps = 0;
    while let Some(n) = next[at] {
        if on_cycle[n] || steps > next.len() {
            return Walk::Cycle;
        }
        at = n;
        steps += 1;
    }
    Walk::Final(at)
}

/// `status/dangling-target`, `status/cycle` and `status/chain`.
pub fn graph(view: &View, out: &mut WsSink) {
    let next = targets(view);
    let on_cycle = cycle_members(&next);
    for (i, e) in view.records.iter().enumerate() {
        let Some(kind) = e.info.kind else { continue };
        let Some(target) = &e.info.replaced_by else {
            continue;
        };
        if e.info.status.as_deref() != Some("replaced") {
            continue;
        }
        if on_cycle[i] {
            out.emit(
                Rule::StatusCycle,
                e.path,
                Some(target),
                format!(
                    "following `replaced_by` from `{}` comes back to it: {}",
                    e.slug,
                    cycle_text(view, &next, i)
                ),
            );
            continue;
        }
        let Some(t) = next[i] else {
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
            continue;
        };
        if next[t].is_some() || view.records[t].info.status.as_deref() == Some("replaced") {
            match walk(&next, &on_cycle, i) {
                Walk::Final(f) if fixable_chain(view, &next, &on_cycle, i) => out.emit(
                    Rule::StatusChain,
                    e.path,
                    Some(target),
                    format!(
                        "replaced_by points to `{}`, which is itself replaced; point it at the final record `{}`",
                        target.value, view.records[f].slug
                    ),
                ),
                // The chain ends at a replaced record whose own target is
                // missing or names nothing: no final record to point at.
                Walk::Final(f) => out.emit_fixable(
                    Rule::StatusChain,
                    e.path,
                    Some(target),
                    format!(
                        "replaced_by points to `{}`, which is itself replaced; the chain ends at `{}`, which is replaced by no record: mend that one first",
                        target.value, view.records[f].slug
                    ),
                    false,
                ),
                // Not on the cycle itself, but following it never ends: the
                // walk returns to a record already visited.
                Walk::Cycle => out.emit(
                    Rule::StatusCycle,
                    e.path,
                    Some(target),
                    format!(
                        "following `replaced_by` from `{}` runs into a cycle: {}; no record ends it",
                        e.slug,
                        lead_in_text(view, &next, i)
                    ),
                ),
            }
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

/// The final target of every record whose `replaced_by` forms a chain, as
/// (record path, final slug): what `check --fix` writes for `status/chain`.
pub fn chain_fixes(view: &View) -> Vec<(String, String)> {
    let next = targets(view);
    let on_cycle = cycle_members(&next);
    let mut out = Vec::new();
    for (i, e) in view.records.iter().enumerate() {
        if on_cycle[i] || !fixable_chain(view, &next, &on_cycle, i) {
            continue;
        }
        if let Walk::Final(f) = walk(&next, &on_cycle, i) {
            out.push((e.path.to_string(), view.records[f].slug.to_string()));
        }
    }
    out
}

/// Whether record `i` starts a chain `--fix` can shorten: it points at a
/// record that points on, and the chain ends at a record that is not
/// replaced (a final record to point at).
fn fixable_chain(view: &View, next: &[Option<usize>], on_cycle: &[bool], i: usize) -> bool {
    let Some(t) = next[i] else { return false };
    if next[t].is_none() {
        return false;
    }
    match walk(next, on_cycle, i) {
        Walk::Final(f) => view.records[f].info.status.as_deref() != Some("replaced"),
        Walk::Cycle => false,
    }
}

/// Every maximal chain of replaced records, as slugs from the first record
/// (one nothing replaces into) to the final one: `[a, b, c]` when `a` is
/// replaced by `b` and `b` by `c`. Chains that run into a cycle are left out
/// (`status/cycle` reports them). Sorted.
pub fn replaced_chains(view: &View) -> Vec<Vec<String>> {
    let next = targets(view);
    let on_cycle = cycle_members(&next);
    let mut pointed_at = vec![false; next.len()];
    for t in next.iter().flatten() {
        pointed_at[*t] = true;
    }
    let mut out = Vec::new();
    'starts: for start in 0..next.len() {
        if next[start].is_none() || pointed_at[start] || on_cycle[start] {
            continue;
        }
        let mut chain = vec![view.records[start].slug.to_string()];
        let mut at = start;
        while let Some(n) = next[at] {
            if on_cycle[n] || chain.len() > next.len() {
                continue 'starts;
            }
            chain.push(view.records[n].slug.to_string());
            at = n;
        }
        out.push(chain);
    }
    out.sort();
    out
}
