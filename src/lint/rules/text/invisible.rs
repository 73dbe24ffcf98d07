//! `text/invisible`: an invisible format character in a field or the body.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::edit::Edit;
use crate::syntax::frontmatter::{self, Split};
use crate::syntax::sanitize;
use crate::syntax::yaml::{Node, Style, Value};
use std::ops::Range;

/// The rule's documentation, as `memlint rule text/invisible` prints it.
pub(crate) const DOC: &str = r#"# text/invisible

an invisible format character in a field or the body

## What it does

Fires on each run of invisible format characters anywhere in a record or `CONTEXT.md`, front matter and body alike: bidi controls (U+202A–U+202E, U+2066–U+2069, the marks U+200E, U+200F, U+061C), zero-width characters and the word joiner (U+200B–U+200D, U+2060–U+2064), the deprecated format controls (U+206A–U+206F), a byte order mark inside the text (U+FEFF), the soft hyphen (U+00AD), the Mongolian vowel separator, interlinear annotation marks, musical format characters, the tag characters (U+E0000–U+E007F), which can spell out hidden ASCII text, variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) that select no glyph — two or more in a row, which can spell hidden bytes, or one after a space — and the blank-looking fillers (the Hangul fillers U+115F, U+1160, U+3164, U+FFA0 and the braille blank U+2800). A value written with a YAML escape in double quotes (`"\u202e"`) is checked as it reads once decoded.

Left alone: a zero-width joiner inside an emoji sequence (👩‍💻, where it is meant and shows as one picture), one variation selector after a visible character (❤️, an ideograph's variant), and a byte order mark at the very start of the file, which is `format/bom`'s. Letters, spaces, line breaks and tabs are never reported; control characters are `format/encoding`'s (NUL) or shown as symbols on output.

## Why it matters

Memory is read by a model in a later session. Characters that cannot be seen make the text say something to the model that a person reviewing the diff does not see: a bidi override reorders what a command looks like ("Trojan Source"), tag characters smuggle a whole hidden sentence ("ASCII smuggling"), zero-width characters split a word so a search or a review misses it. Every memlint output already shows these characters as `�`; this rule keeps them out of what is stored.

## Example

<!-- example: described -->

`{U+XXXX}` below stands for that one character, which the real file holds and an editor does not show: a zero-width space in the title, and a right-to-left override and its closing pop in the body.

`knowledge/release-checklist.md`:

```markdown
---
title: Release{U+200B} checklist
description: The steps that cut a release of the CLI.
model_invocation: false
date: 2026-03-02
sources:
  - https://example.com/wiki/release
---

Tag the commit, then run `cargo publish --dry-run {U+202E}--allow-dirty{U+202C}` before publishing.
```

## Fixed

`knowledge/release-checklist.md`:

```markdown
---
title: Release checklist
description: The steps that cut a release of the CLI.
model_invocation: false
date: 2026-03-02
sources:
  - https://example.com/wiki/release
---

Tag the commit, then run `cargo publish --dry-run --allow-dirty` before publishing.
```

## Fix

`memlint check --fix` deletes each invisible character written as it is (not a joiner inside an emoji sequence, not a leading BOM) and changes nothing else; where a zero-width space stood between two words, put a space back if one was meant. A character written as a YAML escape is not fixed automatically: delete the escape. `memlint new` and the MCP server's `memory_write` refuse a record that holds one.

## Configuration

```yaml
# .memlint.yml
rules:
  text/invisible: warning   # default: error; or off
```
"#;

/// Whether `text` may hold an invisible character: the first bytes of
/// one's UTF-8 form, found in one pass over the bytes (most texts hold
/// none; the dashes and quotes that share their first byte do not match).
fn may_hold(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len()).any(|i| match b[i] {
        0xc2 => b.get(i + 1) == Some(&0xad),
        0xd8 => b.get(i + 1) == Some(&0x9c),
        0xe1 => matches!(
            b.get(i + 1..i + 3),
            Some([0xa0, 0x8e] | [0x85, 0x9f | 0xa0])
        ),
        0xe2 => matches!(
            b.get(i + 1..i + 3),
            Some(
                [0x80, 0x8b..=0x8f | 0xaa..=0xae]
                | [0x81, 0xa0..=0xa4 | 0xa6..=0xaf]
                | [0xa0, 0x80],
            )
        ),
        0xe3 => b.get(i + 1..i + 3) == Some(&[0x85, 0xa4]),
        0xef => matches!(
            b.get(i + 1..i + 3),
            Some([0xbb, 0xbf] | [0xbf, 0xb9..=0xbb] | [0xb8, 0x80..=0x8f] | [0xbe, 0xa0])
        ),
        0xf0 => b.get(i + 1..i + 3) == Some(&[0x9d, 0x85]),
        0xf3 => matches!(b.get(i + 1..i + 3), Some([0xa0, 0x80 | 0x81 | 0x84..=0x87])),
        _ => false,
    })
}

/// The runs of invisible characters of `text` that the rule reports, as
/// byte ranges with their characters: a BOM at the very start is left to
/// `format/bom`.
fn runs(text: &str) -> Vec<(Range<usize>, Vec<char>)> {
    let mut out: Vec<(Range<usize>, Vec<char>)> = Vec::new();
    if !may_hold(text) {
        return out;
    }
    let bom = frontmatter::bom_len(text);
    for (i, c) in sanitize::hidden(text).filter(|&(i, _)| i >= bom) {
        match out.last_mut() {
            Some((span, chars)) if span.end == i => {
                span.end = i + c.len_utf8();
                chars.push(c);
            }
            _ => out.push((i..i + c.len_utf8(), vec![c])),
        }
    }
    out
}

/// What an invisible character is, in a few words.
fn what(c: char) -> &'static str {
    match c {
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}' => {
            "a bidi control"
        }
        '\u{200b}' => "a zero-width space",
        '\u{200c}' => "a zero-width non-joiner",
        '\u{200d}' => "a zero-width joiner outside an emoji sequence",
        '\u{2060}' => "a word joiner",
        '\u{2061}'..='\u{2064}' => "an invisible operator",
        '\u{feff}' => "a byte order mark inside the text",
        '\u{ad}' => "a soft hyphen",
        '\u{e0000}'..='\u{e007f}' => "a tag character, which can spell hidden text",
        '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}' => {
            "a variation selector that selects no glyph, which can spell hidden text"
        }
        '\u{115f}' | '\u{1160}' | '\u{3164}' | '\u{ffa0}' => "a Hangul filler",
        '\u{2800}' => "a braille blank",
        _ => "an invisible format character",
    }
}

/// How a run is named in a message.
fn described(chars: &[char]) -> String {
    let first = chars[0];
    match chars.len() {
        1 => format!("U+{:04X} ({})", first as u32, what(first)),
        n => format!(
            "{n} invisible characters from U+{:04X} ({})",
            first as u32,
            what(first)
        ),
    }
}

/// `text/invisible` on a file's text as stored: every run of invisible
/// characters, with where it is (front matter or body).
pub(crate) fn check(text: &str, sink: &mut Sink) {
    let found = runs(text);
    if found.is_empty() {
        return;
    }
    let body = match frontmatter::split(text) {
        Split::Found(parts) => Some(parts.body.start),
        _ => None,
    };
    for (span, chars) in found {
        let place = match body {
            Some(b) if span.start < b => "the front matter",
            Some(_) => "the body",
            None => "the text",
        };
        sink.emit(
            Rule::TextInvisible,
            span,
            format!(
                "{} in {place} cannot be seen but is read: it makes the record say something a reviewer does not see; delete it (`memlint check --fix` does)",
                described(&chars)
            ),
        );
    }
}

/// `text/invisible` on a record's front-matter values written with YAML
/// escapes in double quotes: the decoded value holds what the file's bytes
/// do not show.
pub(crate) fn check_escapes(r: &Record, sink: &mut Sink) {
    if !r.text[r.parts.yaml.clone()].contains('\\') {
        return;
    }
    escapes_in(r.root, r.text, sink);
}

fn escapes_in(node: &Node, text: &str, sink: &mut Sink) {
    match &node.value {
        Value::Scalar(s) => {
            let raw = text.get(node.span.clone()).unwrap_or_default();
            if s.style != Style::DoubleQuoted || !raw.contains('\\') {
                return;
            }
            let chars: Vec<char> = sanitize::hidden(&s.text).map(|(_, c)| c).collect();
            if chars.is_empty() {
                return;
            }
            sink.emit_fixable(
                Rule::TextInvisible,
                node.span.clone(),
                format!(
                    "this value, once its escapes are decoded, holds {}: invisible characters make the record say something a reviewer does not see; delete the escape",
                    match chars.len() {
                        1 => described(&chars),
                        _ => format!("{} invisible characters, the first U+{:04X} ({})", chars.len(), chars[0] as u32, what(chars[0])),
                    }
                ),
                false,
            );
        }
        Value::Seq { items, .. } => items.iter().for_each(|n| escapes_in(n, text, sink)),
        Value::Map { entries, .. } => {
            for e in entries {
                escapes_in(&e.key, text, sink);
                escapes_in(&e.value, text, sink);
            }
        }
    }
}

/// The `text/invisible` fix: delete every reported invisible character
/// written as it is.
pub(crate) fn invisible_edits(text: &str) -> Vec<Edit> {
    runs(text)
        .into_iter()
        .map(|(span, _)| Edit {
            span,
            text: String::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_filter_lets_every_invisible_character_through() {
        let all = (0..=0x10ffff_u32).filter_map(char::from_u32);
        for c in all.filter(|&c| sanitize::invisible(c)) {
            assert!(may_hold(&format!("a{c}b")), "U+{:04X}", c as u32);
        }
        assert!(!may_hold("a — “quoted” … € 日本語"));
    }

    #[test]
    fn variation_selector_runs_and_fillers_are_reported_a_glyphs_selector_is_not() {
        let smuggled: String = b"rm -rf"
            .iter()
            .map(|&b| char::from_u32(0xe0100 + u32::from(b) - 16).unwrap())
            .collect();
        let text =
            format!("Tabs.{smuggled} ❤\u{fe0f} 1\u{fe0f}\u{20e3} a\u{3164}b \u{fe0f}c \u{2800}");
        let found: Vec<_> = runs(&text).into_iter().map(|(_, c)| c.len()).collect();
        assert_eq!(found, [6, 1, 1, 1]);
        assert!(!may_hold("❤ 日本語の文章"));
    }

    #[test]
    fn runs_skip_a_leading_bom_and_emoji_joiners() {
        let text = "\u{feff}a\u{200b}\u{200b}b 👩\u{200d}💻 c\u{200d}d\u{e0041}";
        let found = runs(text);
        let spans: Vec<_> = found.iter().map(|(s, c)| (s.clone(), c.len())).collect();
        assert_eq!(spans, [(4..10, 2), (25..28, 1), (29..33, 1)]);
        assert_eq!(
            crate::syntax::edit::apply(text, invisible_edits(text)).unwrap(),
            "\u{feff}ab 👩\u{200d}💻 cd"
        );
    }
}
