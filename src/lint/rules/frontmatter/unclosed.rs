//! `frontmatter/unclosed`: no closing `---`.

use crate::lint::sink::Sink;
use crate::model::diagnostic::LineIndex;
use crate::model::rule::Rule;
use crate::syntax::frontmatter::Parts;
use std::ops::Range;

/// The rule's documentation, as `memlint rule frontmatter/unclosed` prints it.
pub(crate) const DOC: &str = r#"# frontmatter/unclosed

no closing `---`

## What it does

Fires when a record opens with `---` but no later line is `---` on its own (trailing spaces allowed), so the front matter never ends. It also fires when a closing `---` exists further down but the YAML before it fails after a blank line and a markdown heading: the front matter then runs into the body, and the message names the heading's line. The file gets no other diagnostic except `slug/format` and `layout/*`.

## Why it matters

Without the closing line memlint cannot tell where the keys end and the text begins, so the whole record is unreadable: it drops out of search and the session-start context, and no other rule checks it until the line is added.

## Example

`memory/decisions/cache-api-responses-for-ten-minutes.md`:

```markdown
---
title: Cache API responses for ten minutes
status: active
date: 2026-03-05
sources:
  - staging:20260305-083000-5e7b

Responses of `GET /v2/catalog` are cached in Redis for 10 minutes; writes evict the key.
```

## Fixed

`memory/decisions/cache-api-responses-for-ten-minutes.md`:

```markdown
---
title: Cache API responses for ten minutes
status: active
date: 2026-03-05
sources:
  - staging:20260305-083000-5e7b
---

Responses of `GET /v2/catalog` are cached in Redis for 10 minutes; writes evict the key.
```

## Fix

Not fixed automatically: add a line holding only `---` after the last key, before the body.

## Configuration

```yaml
# .memlint.yml
rules:
  frontmatter/unclosed: warning   # default: error; or off
```
"#;

/// `frontmatter/unclosed` on a front matter opened at `opener` that no
/// line closes.
pub(crate) fn check(text: &str, opener: Range<usize>, sink: &mut Sink) {
    // A closing `---` after a bare CR is not on a line of its own.
    let bare_cr = memchr::memchr_iter(b'\r', text.as_bytes())
        .any(|i| text.as_bytes().get(i + 1) != Some(&b'\n'));
    let message = if bare_cr {
        "the front matter has no closing `---` line: lines here end with a bare CR \
         (classic Mac OS line endings), which is no line break for memlint; save the \
         file with LF line endings"
    } else {
        "the front matter has no closing `---` line; add one after the last key"
    };
    sink.emit(Rule::FrontmatterUnclosed, opener, message);
}

/// `frontmatter/unclosed` on YAML that fails at `err_at` after a blank line
/// followed by a markdown heading: the closing `---` was most likely
/// forgotten and the `---` found belongs to the body. Whether it fired
/// (else the failure is `frontmatter/parse`'s).
pub(crate) fn runs_into_body(text: &str, parts: &Parts, err_at: usize, sink: &mut Sink) -> bool {
    let Some(line) = heading_line(text, parts, err_at) else {
        return false;
    };
    sink.emit(
        Rule::FrontmatterUnclosed,
        parts.opener.clone(),
        format!(
            "the front matter has no closing `---` line: it runs into the markdown at line {line}; add `---` after the last key"
        ),
    );
    true
}

/// The line of the markdown heading, after a blank line, that the YAML
/// failing at `err_at` ran into.
fn heading_line(text: &str, parts: &Parts, err_at: usize) -> Option<usize> {
    let yaml = &text[parts.yaml.clone()];
    let mut offset = parts.yaml.start;
    let mut prev_blank = false;
    for line in yaml.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let hashes = content.bytes().take_while(|b| *b == b'#').count();
        let is_heading = (1..=6).contains(&hashes)
            && content[hashes..].starts_with(' ')
            && !content[hashes..].trim().is_empty();
        if prev_blank && is_heading && start <= err_at {
            return Some(LineIndex::new(text).position(start).line);
        }
        prev_blank = content.trim().is_empty();
    }
    None
}
