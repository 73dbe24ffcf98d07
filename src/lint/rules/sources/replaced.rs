//! `sources/replaced`: a `decision:`, `request:` or `knowledge:` source
//! names a record that was replaced; the fix points it at the head of the
//! replacement chain.

use crate::lint::record::Record;
use crate::lint::rules::status::graph::{cycle_members, targets, walk, Walk};
use crate::lint::rules::workspace::{View, WsSink};
use crate::model::kind::Kind;
use crate::model::rule::Rule;
use crate::syntax::edit::Edit;

/// The rule's documentation, as `memlint rule sources/replaced` prints it.
pub(crate) const DOC: &str = r#"# sources/replaced

a source names a replaced record

## What it does

Fires on a `decision:`, `request:` or `knowledge:` source that names a record with `status: replaced`. The message names the record in force: the end of the `replaced_by` chain (`a → b → c` with `c` active: a source `decision:a` should read `decision:c`). It is not reported on a record that is itself replaced (its sources are history), nor on a record that stands on the chain of the record it cites (the decision that replaced `a` may well cite `decision:a` as where it came from). A source naming no record is `sources/dangling`'s.

## Why it matters

A source is where a record's claim comes from. Citing a replaced decision says the claim rests on something no longer true: an agent that follows the source reads the outdated record, and a reviewer cannot tell whether the claim still holds. Pointing it at the record in force keeps the trail true.

## Example

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

`memory/decisions/use-redis-cache.md`:

```markdown
---
title: Use Redis for the response cache
status: active
date: 2026-03-18
sources:
  - staging:20260318-101200-77af
---

The response cache moves to Redis with a 10-minute TTL.
```

`knowledge/cache-warmup.md`:

```markdown
---
title: Warming the response cache after a deploy
description: How the response cache is warmed after a deploy.
model_invocation: false
date: 2026-03-20
sources:
  - decision:use-sqlite-cache
---

After a deploy the ten most requested pages are fetched once so the cache is warm.
```

## Fixed

`knowledge/cache-warmup.md`:

```markdown
---
title: Warming the response cache after a deploy
description: How the response cache is warmed after a deploy.
model_invocation: false
date: 2026-03-20
sources:
  - decision:use-redis-cache
---

After a deploy the ten most requested pages are fetched once so the cache is warm.
```

## Fix

`memlint check --fix` rewrites the source to name the final, non-replaced record of the chain (`decision:use-redis-cache`), written plain unless it must be quoted; a source the record then lists twice is removed. It does not apply when the chain ends at a replaced record whose own `replaced_by` is missing or names nothing, or runs into a cycle (the message then says to mend the chain first).

## Configuration

```yaml
# .memlint.yml
rules:
  sources/replaced: error   # default: warning; or off
```
"#;

/// One finding: the source of record `at`, the chain's final record (if
/// the chain has one in force).
struct Found<'v> {
    record: usize,
    source: &'v crate::lint::info::Located,
    prefix: &'v str,
    target: &'v str,
    head: Option<usize>,
}

/// Every source of an active record that names a replaced record of the
/// kind its prefix says.
fn found<'v>(view: &'v View) -> Vec<Found<'v>> {
    let next = targets(view);
    let on_cycle = cycle_members(&next);
    let mut out = Vec::new();
    for (i, e) in view.records.iter().enumerate() {
        if e.info.kind.is_none() || e.info.status.as_deref() == Some("replaced") {
            continue;
        }
        for s in &e.info.sources {
            let Some((prefix, value)) = s.value.split_once(':') else {
                continue;
            };
            let kind = match prefix {
                "decision" => Kind::Decision,
                "request" => Kind::Request,
                "knowledge" => Kind::Knowledge,
                _ => continue,
            };
            let Some(t) = view.by_index(kind, value) else {
                continue;
            };
            if view.records[t].info.status.as_deref() != Some("replaced") {
                continue;
            }
            // The record citing a record it (or its chain) replaced.
            if on_chain(&next, t, i) {
                continue;
            }
            let head = match walk(&next, &on_cycle, t) {
                Walk::Final(f) if view.records[f].info.status.as_deref() != Some("replaced") => {
                    Some(f)
                }
                _ => None,
            };
            out.push(Found {
                record: i,
                source: s,
                prefix,
                target: value,
                head,
            });
        }
    }
    out
}

/// Whether following `replaced_by` from `from` reaches `record`.
fn on_chain(next: &[Option<usize>], from: usize, record: usize) -> bool {
    let mut at = next[from];
    let mut steps = 0;
    while let Some(n) = at {
        if n == record {
            return true;
        }
        steps += 1;
        if steps > next.len() {
            return false;
        }
        at = next[n];
    }
    false
}

/// `sources/replaced`.
pub(crate) fn check(view: &View, out: &mut WsSink) {
    if !crate::lint::rules::workspace::enabled(view.config, Rule::SourcesReplaced) {
        return;
    }
    for f in found(view) {
        let e = &view.records[f.record];
        let kind = f.prefix;
        match f.head {
            Some(h) => {
                let head = view.records[h].slug;
                out.emit(
                    Rule::SourcesReplaced,
                    e.path,
                    Some(f.source),
                    format!(
                        "`{}` names a replaced {kind}; the {kind} in force is `{head}`: cite `{kind}:{head}`",
                        f.source.value
                    ),
                );
            }
            None => out.emit_fixable(
                Rule::SourcesReplaced,
                e.path,
                Some(f.source),
                format!(
                    "`{}` names a replaced {kind}, and following `replaced_by` from `{}` reaches no {kind} in force: mend that chain first",
                    f.source.value, f.target
                ),
                false,
            ),
        }
    }
}

/// What `check --fix` writes for `sources/replaced`: (record path, the
/// source as written, the source naming the chain's final record).
pub(crate) fn replaced_source_fixes(view: &View) -> Vec<(String, String, String)> {
    found(view)
        .into_iter()
        .filter_map(|f| {
            let head = view.records[f.head?].slug;
            Some((
                view.records[f.record].path.to_string(),
                f.source.value.clone(),
                format!("{}:{head}", f.prefix),
            ))
        })
        .collect()
}

/// The edits that rewrite each source of `r` equal to an `old` of `fixes`
/// into its `new`.
pub(crate) fn replaced_source_edits(r: &Record, fixes: &[(String, String)]) -> Vec<Edit> {
    crate::lint::rules::sources::entries(r)
        .into_iter()
        .filter_map(|(value, span)| {
            let (_, new) = fixes.iter().find(|(old, _)| old == value)?;
            Some(Edit {
                span,
                text: crate::syntax::quoting::plain_or_quoted(new),
            })
        })
        .collect()
}
