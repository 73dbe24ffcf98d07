//! `format/encoding`: the file is not valid UTF-8 or contains NUL.

/// The rule's documentation, as `memlint rule format/encoding` prints it.
pub const DOC: &str = r#"# format/encoding

the file is not valid UTF-8 or contains NUL

## What it does

Fires when a record or `CONTEXT.md` is not valid UTF-8, pointing at the first offending byte and naming its value, or when it contains a NUL byte. The file is not parsed further: it gets this diagnostic and nothing else except `slug/format` and `layout/*`, which need only its path.

## Why it matters

Records are read by memlint, by agents and by people through git; text in a legacy encoding turns into mojibake or is rejected by every one of them, so the record cannot be searched or injected, and a NUL byte makes git treat the file as binary, so its changes no longer show in diffs or review.

## Example

<!-- example: described -->

The file below, saved as Shift_JIS by an editor: the Japanese text is the bytes of that encoding, which are not valid UTF-8 (the first is `0x83` in the title).

`knowledge/redis-eviction-policy.md`:

```markdown
---
title: キャッシュの退避ポリシー
description: Redis は allkeys-lru で運用し、maxmemory は 2 GB とする。
model_invocation: true
date: 2026-03-16
sources:
  - staging:20260316-104500-6d0e
---

セッション用のキーは別のデータベースに置き、退避の対象にしない。
```

## Fixed

The same text saved as UTF-8.

`knowledge/redis-eviction-policy.md`:

```markdown
---
title: キャッシュの退避ポリシー
description: Redis は allkeys-lru で運用し、maxmemory は 2 GB とする。
model_invocation: true
date: 2026-03-16
sources:
  - staging:20260316-104500-6d0e
---

セッション用のキーは別のデータベースに置き、退避の対象にしない。
```

## Fix

Not fixed automatically: memlint cannot know which encoding was meant. Convert the file to UTF-8 (for example `iconv -f SHIFT_JIS -t UTF-8`, or "save with encoding: UTF-8" in the editor), or delete the NUL bytes.

## Configuration

```yaml
# .memlint.yml
rules:
  format/encoding: warning   # default: error; or off
```
"#;
