//! `history/unexplained-removal`: a record removed without a `Memlint-GC:`
//! trailer.

use crate::lint::sink::Finding;
use crate::model::kind::Kind;
use crate::model::rule::Rule;
use crate::syntax::trailer::{GcOp, Malformed, CATEGORIES, TRAILER};

/// The rule's documentation, as `memlint rule history/unexplained-removal` prints it.
pub(crate) const DOC: &str = r#"# history/unexplained-removal

a record removed without a `Memlint-GC:` trailer

## What it does

Runs only with `memlint check --base REV`. Fires on each record present at the merge base of REV and HEAD but gone at HEAD, unless git would see it as renamed (an identical file, or one of the same kind sharing at least half its lines, added elsewhere) or a commit in `base..HEAD` carries a `Memlint-GC:` trailer whose subject is that record (`drop`, `merge … into …` or `split`: `trim` and `rewrite` keep the record), in the last paragraph of its message, where git reads trailers. Staging files are exempt: `staging release` consumes them by design. A malformed trailer naming the record is pointed out in the message.

## Why it matters

Git history is the store of record for memory: a decision that silently disappears in a pull request takes its reasoning with it, and nobody reviewing `git log` later can tell whether it was obsolete, merged elsewhere or deleted by mistake. The trailer makes every removal say why.

## Example

<!-- example: history -->

Two decisions are committed on `main`; a branch then deletes one of them without a trailer.

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

```sh
git init -q -b main && git add -A && git commit -q -m "Record session cache decisions"
git switch -q -c tidy-memory
```

```sh
git rm -q memory/decisions/cache-sessions-in-process.md
git commit -q -m "Remove old session cache decision"
memlint check --base main
```

## Fixed

The same removal, with the trailer in the commit message.

```sh
git rm -q memory/decisions/cache-sessions-in-process.md
git commit -q -m "Drop the superseded session cache decision" \
  -m "Memlint-GC: drop memory/decisions/cache-sessions-in-process superseded"
memlint check --base main
```

## Fix

Not fixed automatically: add a trailer `Memlint-GC: <op> <kind-dir>/<slug> [into <kind-dir>/<slug>] <category>` (op `drop`, `merge` or `split`, since `trim` and `rewrite` keep the record; category `outdated`, `superseded`, `unused` or `noisy`) as the last paragraph of the message of a commit in the range (`git commit --amend`, or an empty commit with `git commit --allow-empty`), or restore the file.

## Configuration

```yaml
# .memlint.yml
rules:
  history/unexplained-removal: warning   # default: error; or off
```
"#;

/// A `Memlint-GC:` trailer that does not parse, and the commit whose
/// message holds it: its short id, or `None` for the commit being made.
pub(crate) struct MalformedIn<'a> {
    pub commit: Option<String>,
    pub item: &'a Malformed,
}

/// `history/unexplained-removal` on `path`, a record of `kind` removed
/// since `base` (its short id), as git found it: `renamed` when it lives on
/// under another name; `ops` and `malformed` are the `Memlint-GC:` trailers
/// of the commits since `base` (and of the commit being made).
pub(crate) fn check(
    path: &str,
    kind: Kind,
    renamed: bool,
    base: &str,
    ops: &[&GcOp],
    malformed: &[MalformedIn],
) -> Option<Finding> {
    // Staging files are consumed by design (`staging release`).
    if kind == Kind::Staging || renamed {
        return None;
    }
    if ops.iter().any(|op| op.is_on(path) && op.removes()) {
        return None;
    }
    let bare = path.trim_end_matches(".md");
    let mut message = format!(
        "`{path}` was removed since {base} without a `{TRAILER}:` trailer naming it; add `{TRAILER}: drop {bare} <{}>` to the message of the commit that removes it, or restore the file",
        CATEGORIES.join("|")
    );
    if let Some(m) = malformed.iter().find(|m| m.item.line.contains(bare)) {
        let whose = match &m.commit {
            Some(id) => format!("commit {id}"),
            None => "the commit message".to_string(),
        };
        message.push_str(&format!(
            " ({whose} has a malformed trailer naming it: {})",
            m.item.reason
        ));
    }
    Some(Finding {
        rule: Rule::HistoryUnexplainedRemoval,
        span: 0..0,
        message,
        fixable: false,
    })
}
