//! `format/encoding`: the file is not valid UTF-8 or contains NUL.

use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule format/encoding` prints it.
pub(crate) const DOC: &str = r#"# format/encoding

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

/// `format/encoding` on a file's bytes: its text, or (after the
/// diagnostic) the text to show with the diagnostics.
pub(crate) fn check<'a>(bytes: &'a [u8], sink: &mut Sink) -> Result<&'a str, String> {
    // The SIMD check answers for valid text; std finds where invalid text
    // goes wrong.
    let valid = simdutf8::basic::from_utf8(bytes).or_else(|_| std::str::from_utf8(bytes));
    // memchr's SIMD search; std's `contains(char)` goes a word at a time.
    let nul = memchr::memchr(0, bytes);
    match valid {
        Ok(t) if nul.is_none() => Ok(t),
        Ok(t) => {
            let at = nul.unwrap_or(0);
            sink.emit(
                Rule::FormatEncoding,
                at..at,
                "the file contains a NUL byte; records are text",
            );
            Err(printable(t))
        }
        Err(e) => {
            let at = e.valid_up_to();
            sink.emit(
                Rule::FormatEncoding,
                at..at,
                format!(
                    "the file is not valid UTF-8 (byte {at} is 0x{:02x}); save it as UTF-8",
                    bytes[at]
                ),
            );
            Err(printable(&String::from_utf8_lossy(bytes)))
        }
    }
}

/// `format/encoding` on a file that could not be read at all: `why` says
/// what went wrong and what to do.
pub(crate) fn unreadable(why: impl Into<String>, sink: &mut Sink) {
    sink.emit(Rule::FormatEncoding, 0..0, why);
}

/// The text shown under an encoding diagnostic: NUL bytes become `␀`, so a
/// terminal (or a snapshot) never receives one. Offsets up to the first NUL
/// or invalid byte, where the diagnostic points, are unchanged.
fn printable(text: &str) -> String {
    text.replace('\0', "\u{2400}")
}
