//! `format/bom`: the file starts with a BOM.

use crate::lint::sink::Sink;
use crate::model::rule::Rule;

use crate::syntax::edit::Edit;
use crate::syntax::frontmatter;

/// The rule's documentation, as `memlint rule format/bom` prints it.
pub(crate) const DOC: &str = r#"# format/bom

the file starts with a BOM

## What it does

Fires when a record or `CONTEXT.md` starts with the UTF-8 byte order mark (bytes `EF BB BF`), which some Windows editors write. The front matter is still read (the BOM before the opening `---` is tolerated), so the other rules run as usual. On a record whose front matter cannot be read (`frontmatter/missing`, `frontmatter/unclosed`, `frontmatter/parse`, `format/encoding`), this rule is not reported: that diagnostic comes first.

## Why it matters

Many tools do not expect a BOM: a front-matter reader that wants `---` as the first three bytes sees no front matter and treats the whole record as body, `grep '^---'` misses the line, and diffs show an invisible change on line 1.

## Example

<!-- example: described -->

The file below, saved with a byte order mark: the three bytes `EF BB BF` come before the opening `---`.

`memory/requests/show-cache-hit-rate.md`:

```markdown
---
title: 管理画面にキャッシュヒット率を表示する
status: open
date: 2026-03-14
sources:
  - staging:20260314-153000-8f21
---

ユーザーの要望: 管理画面のダッシュボードに Redis のキャッシュヒット率（直近 1 時間）を表示する。
```

## Fixed

The same text without the three bytes.

`memory/requests/show-cache-hit-rate.md`:

```markdown
---
title: 管理画面にキャッシュヒット率を表示する
status: open
date: 2026-03-14
sources:
  - staging:20260314-153000-8f21
---

ユーザーの要望: 管理画面のダッシュボードに Redis のキャッシュヒット率（直近 1 時間）を表示する。
```

## Fix

`memlint check --fix` deletes the three BOM bytes and changes nothing else. `memlint fmt` also removes it. To stop it coming back, set the editor to save "UTF-8" rather than "UTF-8 with BOM".

## Configuration

```yaml
# .memlint.yml
rules:
  format/bom: error   # default: warning; or off
```
"#;

/// The `format/bom` fix: remove the UTF-8 byte order mark, when there is one.
pub(crate) fn bom_edit(text: &str) -> Option<Edit> {
    (frontmatter::bom_len(text) > 0).then(|| Edit {
        span: 0..3,
        text: String::new(),
    })
}

/// `format/bom`: the file starts with a byte order mark.
pub(crate) fn check(text: &str, sink: &mut Sink) {
    let bom = frontmatter::bom_len(text);
    if bom > 0 {
        sink.emit(
            Rule::FormatBom,
            0..bom,
            "the file starts with a byte order mark; save it as UTF-8 without BOM",
        );
    }
}
