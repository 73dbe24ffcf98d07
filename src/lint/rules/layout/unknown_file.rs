//! `layout/unknown-file`: a file in a memory directory that is no record.

use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule layout/unknown-file` prints it.
pub(crate) const DOC: &str = r#"# layout/unknown-file

a file in a memory directory that is no record

## What it does

Fires on a file under `memory/`, `knowledge/` or `staging/` that is not a record of a known kind: a name without `.md`, a file in a subdirectory (records live directly in `memory/decisions/`, `memory/requests/`, `memory/sessions/`, `knowledge/` and `staging/`), or a file directly in `memory/` other than `summary.md`. A temporary file left by an interrupted memlint write is named as such. `.gitkeep`, `.keep`, `.DS_Store` and `staging/.consolidation.lock` are allowed; ignored files (`.gitignore`, `.memlintignore`) are not looked at. The file's content is not read.

## Why it matters

memlint and the agent runtimes only see records where the layout puts them: a note in `knowledge/redis/` is never indexed, searched or injected, so whatever it says is lost to the next session while looking saved.

## Example

`knowledge/redis/eviction-policy.md`:

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

## Fixed

The file moves up to `knowledge/`, with the directory name folded into its slug.

<!-- deleted: knowledge/redis/eviction-policy.md -->

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

Not fixed automatically: move or rename the file to the place of its kind (`git mv`), give it a `.md` name, or delete it if it is not memory. Add it to `.memlintignore` if it must stay where it is.

## Configuration

```yaml
# .memlint.yml
rules:
  layout/unknown-file: error   # default: warning; or off
```
"#;

/// The message for `layout/unknown-file`.
fn unknown_message(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if let Some(of) = leftover_of(name) {
        return format!(
            "`{rel}` is a temporary file left by an interrupted memlint write; `{of}` was not changed by it, so delete this file"
        );
    }
    let hint = if !rel.ends_with(".md") {
        "records are `.md` files"
    } else {
        "records live directly in memory/decisions/, memory/requests/, memory/sessions/, knowledge/ or staging/, and the summary is memory/summary.md"
    };
    format!("`{rel}` is not a record of any kind: {hint}")
}

/// The file a temporary file of `fsutil` (`.<name>.memlint-<…>.tmp`) was
/// written for.
fn leftover_of(name: &str) -> Option<&str> {
    let inner = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (of, _) = inner.rsplit_once(".memlint-")?;
    (!of.is_empty()).then_some(of)
}

/// `layout/unknown-file` on `rel`, a file where no record belongs.
pub(crate) fn check(rel: &str, sink: &mut Sink) {
    sink.emit(Rule::LayoutUnknownFile, 0..0, unknown_message(rel));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftover_temporary_files_name_their_record() {
        let m = unknown_message("memory/decisions/.use-gix.md.memlint-41-3f2a-0.tmp");
        assert!(m.contains("interrupted memlint write"), "{m}");
        assert!(m.contains("`use-gix.md` was not changed"), "{m}");
        assert!(!unknown_message("memory/decisions/notes.txt").contains("interrupted"));
        assert!(!unknown_message("memory/decisions/.memlint-x.tmp").contains("interrupted"));
    }
}
