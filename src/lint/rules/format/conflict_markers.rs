//! `format/conflict-markers`: merge conflict markers left in a file.

use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule format/conflict-markers` prints it.
pub(crate) const DOC: &str = r#"# format/conflict-markers

merge conflict markers left in the file

## What it does

Fires on every line of a record or `CONTEXT.md` that is a merge conflict marker git writes: a `<<<<<<<` line (the start of a conflict) and a `>>>>>>>` line (its end) anywhere, and the `|||||||` and `=======` lines between them. A marker is exactly seven of the character, alone on its line or followed by a space and a label (`<<<<<<< HEAD`). Lines inside fenced code blocks are left alone, and so is a `=======` line outside a conflict (a setext heading's underline).

## Why it matters

A conflict resolved in a forge's web editor, or by a tool that gave up, can be committed with its markers: the record then holds both versions of a line, or a front matter that no longer parses, and an agent reading it at the next session start gets both answers. This rule catches it in `memlint check --base` on the pull request, before it is merged, and names the lines.

## Example

`memory/decisions/use-etag-for-catalog-api.md`:

```markdown
---
title: Use ETag revalidation for the catalog API
status: active
date: 2026-03-15
sources:
  - staging:20260315-090000-3a6c
---

<<<<<<< HEAD
Clients send `If-None-Match`; the API answers 304 when the catalog is unchanged.
=======
Clients send `If-None-Match`; the API answers 304 when the catalog version is unchanged.
>>>>>>> catalog-etag
```

## Fixed

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

Not fixed automatically: only you know which side (or which mix of both) is right. Keep the lines you want and delete the marker lines. `memlint init --merge` installs memlint's merge driver, which merges memory files key by key and block by block, so that most such conflicts never happen (forges do not run custom merge drivers: merge locally).

## Configuration

```yaml
# .memlint.yml
rules:
  format/conflict-markers: warning   # default: error; or off
```
"#;

/// Reports the conflict marker lines of `text` outside fenced code blocks.
pub(crate) fn check(text: &str, sink: &mut Sink) {
    // Almost no file has a marker: one SIMD search for the characters
    // every conflict has decides for them.
    let bytes = text.as_bytes();
    if memchr::memmem::find(bytes, b"<<<<<<<").is_none()
        && memchr::memmem::find(bytes, b">>>>>>>").is_none()
    {
        return;
    }
    let mut fence: Option<(u8, usize)> = None;
    let mut open = false;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let span = start..start + line.trim_end_matches(['\n', '\r']).len();
        start += line.len();
        let content = &text[span.clone()];
        if let Some(next) = fence_step(content, fence) {
            fence = next;
            continue;
        }
        if fence.is_some() {
            continue;
        }
        let message = match marker(content) {
            Some(b'<') => {
                open = true;
                "a merge conflict starts here (`<<<<<<<`): keep the lines you want and delete the markers"
            }
            Some(b'|') if open => {
                "the common ancestor's lines of a merge conflict start here (`|||||||`): delete them and the markers"
            }
            Some(b'=') if open => {
                "the two sides of a merge conflict meet here (`=======`): keep the lines you want and delete the markers"
            }
            Some(b'>') => {
                open = false;
                "a merge conflict ends here (`>>>>>>>`): keep the lines you want and delete the markers"
            }
            _ => continue,
        };
        sink.emit(Rule::FormatConflictMarkers, span, message);
    }
}

/// The character of a conflict marker line: seven of `<`, `|`, `=` or `>`,
/// then the end of the line or a space and a label.
fn marker(line: &str) -> Option<u8> {
    let b = line.as_bytes();
    let c = *b.first()?;
    let is_marker = matches!(c, b'<' | b'|' | b'=' | b'>')
        && b.len() >= 7
        && b[..7].iter().all(|&x| x == c)
        && matches!(b.get(7), None | Some(b' ') | Some(b'\t'));
    is_marker.then_some(c)
}

/// How `line` changes the fenced code block state: `Some(new state)` when
/// it opens or closes a fence (CommonMark: up to three spaces, then three
/// or more backticks or tildes; closed by at least as many of the same).
/// `context/export-stale` and `export agents-md` use it too, so that
/// markers shown inside fenced code are never taken for the block.
pub(crate) fn fence_step(line: &str, fence: Option<(u8, usize)>) -> Option<Option<(u8, usize)>> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line.as_bytes()[indent..];
    let c = *rest.first().filter(|c| matches!(c, b'`' | b'~'))?;
    let run = rest.iter().take_while(|&&x| x == c).count();
    if run < 3 {
        return None;
    }
    match fence {
        None => Some(Some((c, run))),
        Some((open, len)) if open == c && run >= len && rest[run..].trim_ascii().is_empty() => {
            Some(None)
        }
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<usize> {
        let mut sink = Sink::default();
        check(text, &mut sink);
        sink.findings
            .iter()
            .map(|f| text[..f.span.start].matches('\n').count() + 1)
            .collect()
    }

    #[test]
    fn every_marker_line_of_a_conflict_is_reported() {
        let text = "a\n<<<<<<< HEAD\nb\n||||||| base\nc\n=======\nd\n>>>>>>> other\n";
        assert_eq!(lines(text), [2, 4, 6, 8]);
    }

    #[test]
    fn a_setext_underline_and_fenced_markers_are_not() {
        let text = "Title\n=======\n\n```\n<<<<<<< HEAD\n=======\n>>>>>>> x\n```\n";
        assert_eq!(lines(text), Vec::<usize>::new());
        // Eight characters, or a label without a space, are no marker.
        assert_eq!(
            lines("<<<<<<<< a\n<<<<<<<x\n>>>>>>>>\n"),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn a_lone_end_marker_and_crlf_lines_are_reported() {
        assert_eq!(lines("a\r\n>>>>>>> theirs\r\n"), [2]);
        assert_eq!(lines("<<<<<<<\r\n=======\r\n>>>>>>>\r\n"), [1, 2, 3]);
    }
}
