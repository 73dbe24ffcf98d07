//! `frontmatter/missing`: a record has no front matter.

use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::frontmatter::{self, Absence};

/// The rule's documentation, as `memlint rule frontmatter/missing` prints it.
pub(crate) const DOC: &str = r#"# frontmatter/missing

a record has no front matter

## What it does

Fires on a record file (a decision, request, session, knowledge, staging file or `memory/summary.md`) whose first line is not `---`. The message names the usual slips: TOML front matter between `+++` lines, blank lines before the opening `---`, an indented `---`, text after the `---`, or an empty file. The file then gets no other diagnostic except `slug/format` and `layout/*`, which need only its path; `CONTEXT.md` has no front matter and is not checked by this rule.

Every kind's fields, with their types, which are required, the allowed values and defaults, are listed in `docs/records.md`.

## Why it matters

Without front matter nothing can tell the record's title, status, date or sources: search shows it as `(no title)`, the session-start table of contents leaves it out, and every rule that would catch a real problem in it (secrets included) is skipped until the front matter exists.

## Example

`memory/decisions/retry-webhooks-with-backoff.md`:

```markdown
# Retry webhook deliveries with exponential backoff

Failed deliveries are retried 6 times, starting at 2 s and doubling, capped at 5 min.
```

## Fixed

`memory/decisions/retry-webhooks-with-backoff.md`:

```markdown
---
title: Retry webhook deliveries with exponential backoff
status: active
date: 2026-03-04
sources:
  - staging:20260304-101500-a1c3
---

Failed deliveries are retried 6 times, starting at 2 s and doubling, capped at 5 min.
```

## Fix

Not fixed automatically: add the front matter by hand (for a decision: `title`, `status`, `date`, `sources`) between two `---` lines that start on the first line of the file. `docs/records.md` lists the keys of each kind.

## Configuration

```yaml
# .memlint.yml
rules:
  frontmatter/missing: warning   # default: error; or off
```
"#;

/// `frontmatter/missing` on a record whose text opens no front matter
/// (`absence` says how), at its first line.
pub(crate) fn check(text: &str, absence: &Absence, sink: &mut Sink) {
    let from = frontmatter::bom_len(text);
    let end = text[from..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| from + i);
    sink.emit(Rule::FrontmatterMissing, from..end, absence.message());
}
