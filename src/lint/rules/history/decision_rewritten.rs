//! `history/decision-rewritten`: an active decision changed in place.

use crate::lint::info::RecordInfo;
use crate::lint::sink::Finding;
use crate::model::rule::Rule;
use crate::syntax::trailer::{GcOp, TRAILER};

/// The rule's documentation, as `memlint rule history/decision-rewritten` prints it.
pub(crate) const DOC: &str = r#"# history/decision-rewritten

an active decision changed in place

## What it does

Runs only with `memlint check --base REV`. Fires on a decision that was active at the merge base of REV and HEAD and whose title or body differs at HEAD (line endings and trailing blank lines aside), following renames. It points at the new title when the title changed, else at the start of the body. Changes to other keys (status, sources, tags) do not count, and a commit in `base..HEAD` with a `Memlint-GC:` trailer naming the decision (for example `rewrite`) exempts it.

## Why it matters

A decision is a record of what was decided and why at one point in time. Editing it in place erases the earlier decision and its reasoning; agents that cited it now cite something else. Writing the new decision to a new file and marking the old one `replaced` keeps both and the link between them.

## Example

<!-- example: history -->

A decision is committed on `main`; a branch then edits its title and body in place.

`memory/decisions/set-catalog-cache-ttl.md`:

```markdown
---
title: Set the catalog cache TTL to 10 minutes
status: active
date: 2026-03-23
sources:
  - staging:20260323-091500-a7c1
---

Hit rate plateaus at 94 % above 10 minutes; longer TTLs only serve staler prices.
```

```sh
git init -q -b main && git add -A && git commit -q -m "Record catalog cache TTL"
git switch -q -c longer-ttl
```

`memory/decisions/set-catalog-cache-ttl.md`:

```markdown
---
title: Set the catalog cache TTL to 30 minutes
status: active
date: 2026-04-07
sources:
  - staging:20260407-101500-4e2b
---

Surrogate-key purges keep prices fresh, so a 30-minute TTL is safe.
```

```sh
git commit -q -am "Raise catalog cache TTL" && memlint check --base main
```

## Fixed

The new decision goes to a new file and the old one is marked replaced.

`memory/decisions/set-catalog-cache-ttl-30-minutes.md`:

```markdown
---
title: Set the catalog cache TTL to 30 minutes
status: active
date: 2026-04-07
sources:
  - staging:20260407-101500-4e2b
  - decision:set-catalog-cache-ttl
---

Surrogate-key purges keep prices fresh, so a 30-minute TTL is safe.
```

`memory/decisions/set-catalog-cache-ttl.md`:

```markdown
---
title: Set the catalog cache TTL to 10 minutes
status: replaced
date: 2026-03-23
sources:
  - staging:20260323-091500-a7c1
replaced_by: set-catalog-cache-ttl-30-minutes
---

Hit rate plateaus at 94 % above 10 minutes; longer TTLs only serve staler prices.
```

```sh
git add -A && git commit -q -m "Replace catalog cache TTL decision" && memlint check --base main
```

## Fix

Not fixed automatically: restore the old decision's title and body, write the new decision to a new file, and set `status: replaced` and `replaced_by: <new-slug>` on the old one. For a correction that does not change the decision (a typo, a broken link), name it in a trailer instead: `Memlint-GC: rewrite memory/decisions/<slug> noisy`.

## Configuration

```yaml
# .memlint.yml
rules:
  history/decision-rewritten: error   # default: warning; or off
```
"#;

/// An active decision changed since the base revision, as the engine read
/// it from git: its path, both texts and what the linter read of each.
pub(crate) struct Rewrite<'a> {
    pub path: &'a str,
    pub old_text: &'a str,
    pub new_text: &'a str,
    pub before: &'a RecordInfo,
    pub after: &'a RecordInfo,
    /// The base revision's short id.
    pub base: &'a str,
}

/// Whether a `Memlint-GC:` trailer names the decision at `path` (or at
/// `old_path`, its path at the base), which explains any edit.
pub(crate) fn named(path: &str, old_path: &str, ops: &[&GcOp]) -> bool {
    ops.iter().any(|op| op.names(path) || op.names(old_path))
}

/// `history/decision-rewritten` on a decision no trailer names: it was
/// active at the base, and its title or body changed.
pub(crate) fn check(r: &Rewrite) -> Option<Finding> {
    if r.before.status.as_deref() != Some("active") {
        return None;
    }
    let (a, b) = (body_of(r.old_text)?, body_of(r.new_text)?);
    let title_changed = r.before.title != r.after.title;
    let body_changed = a.0 != b.0;
    let what = match (title_changed, body_changed) {
        (false, false) => return None,
        (true, true) => "its title and body",
        (true, false) => "its title",
        _ => "its body",
    };
    let span = match (title_span(r.new_text), title_changed) {
        (Some(span), true) => span,
        _ => b.1..b.1,
    };
    let slug = crate::model::kind::stem(r.path);
    Some(Finding {
        rule: Rule::HistoryDecisionRewritten,
        span,
        message: format!(
            "the active decision `{slug}` was rewritten in place ({what} changed since {}); write the new decision to a new file and set `status: replaced` with `replaced_by: <new-slug>` here, or name the edit in a `{TRAILER}:` trailer",
            r.base
        ),
        fixable: false,
    })
}

/// The body of a record text with LF line endings and no trailing blank
/// space, and the offset where it starts.
fn body_of(text: &str) -> Option<(String, usize)> {
    let crate::syntax::frontmatter::Split::Found(parts) = crate::syntax::frontmatter::split(text)
    else {
        return None;
    };
    let body = text[parts.body.clone()].replace("\r\n", "\n");
    Some((body.trim_end().to_string(), parts.body.start))
}

/// The span of the `title` value in a record's front matter.
fn title_span(text: &str) -> Option<std::ops::Range<usize>> {
    let crate::syntax::frontmatter::Split::Found(parts) = crate::syntax::frontmatter::split(text)
    else {
        return None;
    };
    let mut at = parts.yaml.start;
    for line in text[parts.yaml.clone()].split_inclusive('\n') {
        if let Some(value) = line.strip_prefix("title:") {
            let start = at + "title:".len() + (value.len() - value.trim_start().len());
            return Some(start..start + value.trim().len());
        }
        at += line.len();
    }
    None
}
