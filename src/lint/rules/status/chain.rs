//! `status/chain`: `replaced_by` points at a record that is itself replaced.
//!
//! Found by the one pass over the `replaced_by` graph in
//! `dangling_target.rs`; the fix, pointing `replaced_by` at the chain's end,
//! is here.

/// The rule's documentation, as `memlint rule status/chain` prints it.
pub const DOC: &str = r#"# status/chain

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
pub fn chain_edit(
    replaced_by_value: std::ops::Range<usize>,
    final_slug: &str,
) -> crate::syntax::edit::Edit {
    crate::syntax::edit::Edit {
        span: replaced_by_value,
        text: crate::syntax::quoting::plain_or_quoted(final_slug),
    }
}
