//! `date/format`: a date is not an absolute `YYYY-MM-DD`.

use crate::lint::record::{ProblemRule, Record};
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule date/format` prints it.
pub(crate) const DOC: &str = r#"# date/format

a date is not an absolute `YYYY-MM-DD`

## What it does

Fires on a date field (`date` on decisions, requests and knowledge, `updated` on the summary) whose value is not a valid calendar date written `YYYY-MM-DD`: `2026/03/28`, `2026-3-28`, `2026-02-30`, `March 28`, a timestamp such as `2026-03-28T10:00:00Z`, or an empty value (quoting a valid date is fine). When the value is a relative word (`yesterday`, `today`, `昨日`, `3 days ago`), the message says so. A missing date is `frontmatter/required`; relative words in titles and bodies are `date/relative`.

## Why it matters

Memory is read weeks or months after it was written: `yesterday` means nothing then, and a date in another format cannot be sorted or compared, so the record sinks to the bottom of the newest-first table of contents at session start whatever its age.

## Example

`memory/decisions/drop-xml-export.md`:

```markdown
---
title: Drop the XML export of the orders API
status: active
date: yesterday
sources:
  - staging:20260328-161500-3c7e
---

Only JSON and CSV exports remain; no customer used XML in the last 90 days.
```

## Fixed

`memory/decisions/drop-xml-export.md`:

```markdown
---
title: Drop the XML export of the orders API
status: active
date: 2026-03-27
sources:
  - staging:20260328-161500-3c7e
---

Only JSON and CSV exports remain; no customer used XML in the last 90 days.
```

## Fix

Not fixed automatically: memlint cannot know what a relative word meant on the day it was written. Write the absolute date (here taken from the staging log's id, 2026-03-28, minus one day).

## Configuration

```yaml
# .memlint.yml
rules:
  date/format: warning   # default: error; or off
```
"#;

/// `date/format`: a date field is not an absolute valid `YYYY-MM-DD`.
pub(crate) fn check(r: &Record, out: &mut Sink) {
    for field in r.kind.fields() {
        // Only date fields have date problems.
        if !matches!(field.ty, crate::model::kind::FieldType::Date) {
            continue;
        }
        if let Some((entry, span, message)) = r.problem(field.key, ProblemRule::DateFormat) {
            let span = crate::lint::rules::frontmatter::shared::value_span(entry, span);
            out.emit(Rule::DateFormat, span, message.to_string());
        }
    }
}
