//! `sources/format`: an entry is not a source string.

use crate::lint::record::Record;
use crate::lint::rules::sources::shared::*;
use crate::lint::sink::Sink;
use crate::model::kind::source_problem;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule sources/format` prints it.
pub(crate) const DOC: &str = r#"# sources/format

an entry is not a source string

## What it does

Fires on each string entry of `sources` that is not a source string: it must be `staging:<YYYYMMDD-HHMMSS-xxxx>`, `session:<id>` (no spaces), `cmem:<CMEM-YYYYMMDD-HHMMSS>`, `commit:<7–40 hex digits>`, `file:<path>` (optionally with a line range, `file:src/cache.rs#L10` or `file:src/cache.rs#L10-L42`; a malformed range such as `#L0` or `#L9-L3` fires here), `decision:<slug>`, `request:<slug>`, `knowledge:<slug>`, or an `http://`/`https://` URL with no spaces. The message says which form was expected. Entries that are not strings are `frontmatter/type`; entries that are well-formed but point at nothing are `sources/dangling`.

## Why it matters

Tools follow sources: `sources/dangling` checks that files, commits and records exist, and recall and the consolidation worker trace records back through them. A free-form entry such as `jira:OPS-2291` or `see Slack` cannot be followed or checked by anyone but its author.

## Example

`memory/requests/add-retry-metrics.md`:

```markdown
---
title: Export retry counts as Prometheus metrics
status: open
date: 2026-03-22
sources:
  - jira:OPS-2291
  - staging:20260322-140000-5f3a
---

The user asked for `webhook_retries_total{endpoint,status}` on the metrics endpoint.
```

## Fixed

`memory/requests/add-retry-metrics.md`:

```markdown
---
title: Export retry counts as Prometheus metrics
status: open
date: 2026-03-22
sources:
  - https://acme.atlassian.net/browse/OPS-2291
  - staging:20260322-140000-5f3a
---

The user asked for `webhook_retries_total{endpoint,status}` on the metrics endpoint.
```

## Fix

Not fixed automatically: rewrite the entry in one of the source forms (here the ticket's URL), or delete it.

## Configuration

```yaml
# .memlint.yml
rules:
  sources/format: warning   # default: error; or off
```
"#;

/// `sources/format`: an entry is not a source string.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    for (s, span) in entries(r) {
        if let Some(why) = source_problem(s) {
            out.emit(
                Rule::SourcesFormat,
                span,
                format!("`{s}` is not a source string: {why}"),
            );
        }
    }
}
