//! `format/crlf`: cRLF line endings.

use crate::lint::sink::Sink;
use crate::model::rule::Rule;

use crate::syntax::edit::Edit;

/// The rule's documentation, as `memlint rule format/crlf` prints it.
pub(crate) const DOC: &str = r#"# format/crlf

CRLF line endings

## What it does

Fires once per file when a record or `CONTEXT.md` has at least one CRLF (`\r\n`) line ending, pointing at the first such line. The file is still read (CRLF is accepted), so the other rules run as usual. On a record whose front matter cannot be read, this rule is not reported: that diagnostic comes first.

## Why it matters

Memory is shared through git by people and agents on different systems: a file that flips between CRLF and LF shows every line as changed, hides the real edit in review, and makes merges conflict on lines nobody touched. LF is the one line ending every tool reads the same way.

## Example

<!-- example: described -->

The file below, saved with CRLF line endings: every line ends in the bytes `0D 0A` instead of `0A`.

`memory/decisions/use-etag-for-catalog-api.md`:

```markdown
---
title: Use ETag revalidation for the catalog API
status: active
date: 2026-03-15
sources:
  - staging:20260315-090000-3a6c
---

Clients send `If-None-Match`; the API answers 304 when the catalog version is unchanged.
```

## Fixed

The same text with LF line endings.

`memory/decisions/use-etag-for-catalog-api.md`:

```markdown
---
title: Use ETag revalidation for the catalog API
status: active
date: 2026-03-15
sources:
  - staging:20260315-090000-3a6c
---

Clients send `If-None-Match`; the API answers 304 when the catalog version is unchanged.
```

## Fix

`memlint check --fix` turns every CRLF into LF (a run of CRs before a LF goes with it, so `\r\r\n` becomes `\n`); lone CRs not followed by LF are left alone. `memlint fmt` does the same. Add `* text=auto eol=lf` (or at least `*.md eol=lf`) to `.gitattributes` to keep it from coming back.

## Configuration

```yaml
# .memlint.yml
rules:
  format/crlf: error   # default: warning; or off
```
"#;

/// The `format/crlf` fix: turn every CRLF into LF.
pub(crate) fn crlf_edits(text: &str) -> Vec<Edit> {
    // The whole run of CRs before a LF goes, as the formatter does, so that
    // `\r\r\n` leaves no CRLF behind.
    let bytes = text.as_bytes();
    text.match_indices("\r\n")
        .map(|(i, _)| {
            let run = bytes[..i].iter().rev().take_while(|&&b| b == b'\r').count();
            Edit {
                span: i - run..i + 1,
                text: String::new(),
            }
        })
        .collect()
}

/// `format/crlf`: the file's first CRLF line ending.
pub(crate) fn check(text: &str, sink: &mut Sink) {
    let bom = crate::syntax::frontmatter::bom_len(text);
    // The first CRLF, found by memchr on `\r` (a substring search is far
    // slower, and almost every file has no `\r` at all).
    let crlf = memchr::memchr_iter(b'\r', text.as_bytes())
        .find(|&i| text.as_bytes().get(i + 1) == Some(&b'\n'));
    if let Some(i) = crlf {
        let line_start = text[..i].rfind('\n').map_or(0, |p| p + 1);
        sink.emit(
            Rule::FormatCrlf,
            line_start.max(bom)..i,
            "the file has CRLF line endings; use LF",
        );
    }
}
