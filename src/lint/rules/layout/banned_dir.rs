//! `layout/banned-dir`: a file under a banned directory.

use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule layout/banned-dir` prints it.
pub(crate) const DOC: &str = r#"# layout/banned-dir

a file under a banned directory

## What it does

Fires on every file, of any name or extension, under a banned directory: `memory/workflow/` always, plus each directory listed in `banned_dirs`. The file gets this diagnostic and nothing else; its content is not read.

## Why it matters

`memory/workflow/` is where agents tend to dump plans, checklists and progress notes. That state is stale by the next session, yet it sits beside real memory, gets searched and injected, and leads the next agent to resume a plan that was abandoned. Lasting facts belong in `knowledge/` or `memory/decisions/`; the rest belongs nowhere in memory.

## Example

`memory/workflow/cache-migration-plan.md`:

```markdown
# Cache migration plan

- [x] Add Redis client and config
- [ ] Move session cache (in progress)
- [ ] Remove in-process LRU

Note: Redis in staging runs with `maxmemory-policy allkeys-lru`; keep it that way in production.
```

## Fixed

The plan is deleted; the one lasting fact becomes a knowledge record.

<!-- deleted: memory/workflow/cache-migration-plan.md -->

`knowledge/redis-eviction-policy.md`:

```markdown
---
title: Redis eviction policy
description: Redis runs with maxmemory-policy allkeys-lru in staging and production.
model_invocation: true
date: 2026-03-31
sources:
  - staging:20260331-093000-77d2
---

Keep `allkeys-lru`: the cache holds no keys that must survive memory pressure.
```

## Fix

Not fixed automatically: move what is lasting into a record of the right kind (`knowledge/`, `memory/decisions/`), then delete the file (`git rm`).

## Configuration

```yaml
# .memlint.yml
banned_dirs: [memory/workflow]   # default; memory/workflow is banned even if omitted
rules:
  layout/banned-dir: warning   # default: error; or off
```
"#;

/// The message for `layout/banned-dir`.
fn banned_message(dir: &str) -> String {
    if dir == crate::model::config::ALWAYS_BANNED {
        "`memory/workflow/` is banned: workflow state is not memory; move lasting facts to \
         `knowledge/` or `memory/decisions/` and delete the rest"
            .to_string()
    } else {
        format!("`{dir}/` is a banned directory (`banned_dirs` in .memlint.yml); move or delete this file")
    }
}

/// `layout/banned-dir` on a file under the banned directory `dir`.
pub(crate) fn check(dir: &str, sink: &mut Sink) {
    sink.emit(Rule::LayoutBannedDir, 0..0, banned_message(dir));
}
