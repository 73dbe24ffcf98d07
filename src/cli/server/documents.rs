//! The open buffers and the one mapping between LSP positions and byte
//! offsets. LSP counts a position's `character` in UTF-16 code units; the
//! engine's spans are byte offsets into UTF-8 text. Every conversion goes
//! through [`offset`] and [`position`], which are tested on multi-byte and
//! astral text, so no handler counts characters on its own.

use lsp_types::{Position, Range, TextDocumentContentChangeEvent, Uri};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// One buffer the client opened: its text as the editor holds it (saved or
/// not) and the file it stands for.
#[derive(Debug, Clone)]
pub(crate) struct Document {
    /// The buffer's text.
    pub text: String,
    /// The client's version of it.
    pub version: i32,
    /// Its path relative to the workspace root, when it lies inside it.
    pub rel: Option<String>,
}

/// The open buffers, by URI as the client spelled it.
#[derive(Debug, Default)]
pub(crate) struct Documents {
    open: HashMap<String, Document>,
}

impl Documents {
    /// Records an opened buffer (replacing one with the same URI).
    pub(crate) fn open(&mut self, uri: &Uri, doc: Document) {
        self.open.insert(uri.as_str().to_string(), doc);
    }

    /// Forgets a closed buffer.
    pub(crate) fn close(&mut self, uri: &Uri) -> Option<Document> {
        self.open.remove(uri.as_str())
    }

    /// The buffer of `uri`, if it is open.
    pub(crate) fn get(&self, uri: &Uri) -> Option<&Document> {
        self.open.get(uri.as_str())
    }

    /// The buffer of `uri`, to change it.
    pub(crate) fn get_mut(&mut self, uri: &Uri) -> Option<&mut Document> {
        self.open.get_mut(uri.as_str())
    }

    /// The open buffer standing for the workspace file `rel`.
    pub(crate) fn by_rel(&self, rel: &str) -> Option<&Document> {
        self.open.values().find(|d| d.rel.as_deref() == Some(rel))
    }

    /// The URI (as the client spelled it) of the open buffer standing for
    /// the workspace file `rel`.
    pub(crate) fn uri_by_rel(&self, rel: &str) -> Option<Uri> {
        self.open
            .iter()
            .find(|(_, d)| d.rel.as_deref() == Some(rel))
            .and_then(|(u, _)| Uri::from_str(u).ok())
    }

    /// The URIs of the open buffers.
    pub(crate) fn uris(&self) -> Vec<Uri> {
        self.open
            .keys()
            .filter_map(|u| Uri::from_str(u).ok())
            .collect()
    }

    /// Every open buffer: (URI, document).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &Document)> {
        self.open.iter()
    }
}

/// Applies one `didChange` event to `text`: a whole new text, or a range
/// replaced. A range that does not fit the text is refused (the text stays
/// as it was) with the reason.
pub(crate) fn apply_change(
    text: &mut String,
    change: &TextDocumentContentChangeEvent,
) -> Result<(), String> {
    let Some(range) = change.range else {
        text.clone_from(&change.text);
        return Ok(());
    };
    let start = offset(text, range.start).ok_or_else(|| {
        format!(
            "the change starts at {}, outside the text",
            show(range.start)
        )
    })?;
    let end = offset(text, range.end)
        .ok_or_else(|| format!("the change ends at {}, outside the text", show(range.end)))?;
    if end < start {
        return Err("the change's range ends before it starts".into());
    }
    text.replace_range(start..end, &change.text);
    Ok(())
}

/// `line:character` as a message shows a position (0-based, as sent).
pub(crate) fn show(p: Position) -> String {
    format!("{}:{}", p.line, p.character)
}

/// The byte offset of LSP position `p` in `text`, or `None` when the line
/// does not exist, the character is past the line's end, or it falls
/// between the two halves of a surrogate pair. A line is ended by `\n`;
/// the `\r` of a CRLF ending is not part of it, as editors count.
pub(crate) fn offset(text: &str, p: Position) -> Option<usize> {
    let mut start = 0;
    for _ in 0..p.line {
        start += text[start..].find('\n')? + 1;
    }
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let content_end = if text[start..line_end].ends_with('\r') {
        line_end - 1
    } else {
        line_end
    };
    let mut units = 0u32;
    for (i, c) in text[start..content_end].char_indices() {
        if units == p.character {
            return Some(start + i);
        }
        units += c.len_utf16() as u32;
        if units > p.character {
            return None;
        }
    }
    (units == p.character).then_some(content_end)
}

/// The LSP position of byte offset `at` in `text` (clamped to the text and
/// to a character boundary before it).
pub(crate) fn position(text: &str, at: usize) -> Position {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.bytes().filter(|&b| b == b'\n').count() as u32;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = text[line_start..at]
        .chars()
        .map(|c| c.len_utf16() as u32)
        .sum();
    Position { line, character }
}

/// The LSP range of byte range `span` in `text`.
pub(crate) fn range(text: &str, span: &std::ops::Range<usize>) -> Range {
    Range {
        start: position(text, span.start),
        end: position(text, span.end.max(span.start)),
    }
}

/// The edits that turn `old` into `new`, each covering only what changed:
/// the differing lines (a line diff), narrowed to the characters that
/// differ within them. An editor applies them without moving the cursor,
/// folds or marks of the untouched text, as a replacement of the whole
/// buffer would. Positions are in `old`, as the protocol wants.
pub(crate) fn edits(old: &str, new: &str) -> Vec<lsp_types::TextEdit> {
    let lines = |t: &str| -> Vec<(usize, usize)> {
        let mut at = 0;
        t.split_inclusive('\n')
            .map(|l| {
                at += l.len();
                (at - l.len(), at)
            })
            .collect()
    };
    let (old_lines, new_lines) = (lines(old), lines(new));
    let a: Vec<&str> = old_lines.iter().map(|&(s, e)| &old[s..e]).collect();
    let b: Vec<&str> = new_lines.iter().map(|&(s, e)| &new[s..e]).collect();
    // Byte offset where line `i` starts (the end for `i == len`).
    let start =
        |spans: &[(usize, usize)], total: usize, i: usize| spans.get(i).map_or(total, |&(s, _)| s);
    let mut out = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
        if matches!(op, similar::DiffOp::Equal { .. }) {
            continue;
        }
        let (o, n) = (op.old_range(), op.new_range());
        let mut from = start(&old_lines, old.len(), o.start)..start(&old_lines, old.len(), o.end);
        let mut to = start(&new_lines, new.len(), n.start)..start(&new_lines, new.len(), n.end);
        // Narrowed to the characters that differ.
        let (was, now) = (&old[from.clone()], &new[to.clone()]);
        let prefix: usize = was
            .chars()
            .zip(now.chars())
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| x.len_utf8())
            .sum();
        let suffix: usize = was[prefix..]
            .chars()
            .rev()
            .zip(now[prefix..].chars().rev())
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| x.len_utf8())
            .sum();
        from = from.start + prefix..from.end - suffix;
        to = to.start + prefix..to.end - suffix;
        out.push(lsp_types::TextEdit {
            range: range(old, &from),
            new_text: new[to].to_string(),
        });
    }
    out
}

/// The range covering all of `text`.
pub(crate) fn whole(text: &str) -> Range {
    Range {
        start: Position::new(0, 0),
        end: position(text, text.len()),
    }
}

/// The file a `file:` URI names, its percent escapes decoded; `None` for
/// other schemes or a malformed escape.
pub(crate) fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://host/path`: only the local host (empty or `localhost`).
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let mut bytes = Vec::with_capacity(rest.len());
    let raw = rest.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' {
            let hex = rest.get(i + 1..i + 3)?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            bytes.push(raw[i]);
            i += 1;
        }
    }
    let path = String::from_utf8(bytes).ok()?;
    // `file:///C:/x` on Windows.
    let path = match path.as_bytes() {
        [b'/', d, b':', ..] if d.is_ascii_alphabetic() && cfg!(windows) => path[1..].to_string(),
        _ => path,
    };
    Some(PathBuf::from(path))
}

/// The `file:` URI of an absolute path, escaping what a URI may not hold.
pub(crate) fn path_uri(path: &Path) -> Option<Uri> {
    let s = path.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !s.starts_with('/') {
        out.push('/');
    }
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' | b':' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    Uri::from_str(&out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn offsets_count_utf16_units() {
        // `é` is 2 bytes and 1 unit; `😀` is 4 bytes and 2 units.
        let text = "ab\né😀x\n";
        assert_eq!(offset(text, p(0, 0)), Some(0));
        assert_eq!(offset(text, p(0, 2)), Some(2));
        assert_eq!(offset(text, p(1, 0)), Some(3));
        assert_eq!(offset(text, p(1, 1)), Some(5));
        assert_eq!(offset(text, p(1, 3)), Some(9));
        assert_eq!(offset(text, p(1, 4)), Some(10));
        assert_eq!(offset(text, p(2, 0)), Some(11));
        for (at, pos) in [(0, p(0, 0)), (5, p(1, 1)), (9, p(1, 3)), (10, p(1, 4))] {
            assert_eq!(position(text, at), pos);
        }
    }

    #[test]
    fn invalid_positions_are_refused() {
        let text = "ab\né😀x\n";
        // Inside the surrogate pair, past a line's end, past the last line.
        assert_eq!(offset(text, p(1, 2)), None);
        assert_eq!(offset(text, p(0, 3)), None);
        assert_eq!(offset(text, p(3, 0)), None);
        assert_eq!(offset("", p(0, 0)), Some(0));
    }

    #[test]
    fn crlf_lines_end_before_the_cr() {
        let text = "ab\r\ncd";
        assert_eq!(offset(text, p(0, 2)), Some(2));
        assert_eq!(offset(text, p(1, 1)), Some(5));
    }

    #[test]
    fn positions_and_offsets_round_trip() {
        let text = "---\ntitle: 日本語 😀 é\n---\nbody 𝄞\n";
        for (at, _) in text.char_indices() {
            assert_eq!(offset(text, position(text, at)), Some(at), "at {at}");
        }
    }

    #[test]
    fn changes_apply_at_ranges() {
        let mut text = "a😀b\n".to_string();
        let change = TextDocumentContentChangeEvent {
            range: Some(Range {
                start: p(0, 1),
                end: p(0, 3),
            }),
            range_length: None,
            text: "é".into(),
        };
        apply_change(&mut text, &change).unwrap();
        assert_eq!(text, "aéb\n");
        let bad = TextDocumentContentChangeEvent {
            range: Some(Range {
                start: p(5, 0),
                end: p(5, 1),
            }),
            range_length: None,
            text: "x".into(),
        };
        assert!(apply_change(&mut text, &bad).is_err());
        assert_eq!(text, "aéb\n");
    }

    #[test]
    fn file_uris_decode_and_encode() {
        let uri = Uri::from_str("file:///tmp/a%20b/%C3%A9.md").unwrap();
        assert_eq!(uri_path(&uri), Some(PathBuf::from("/tmp/a b/é.md")));
        let back = path_uri(Path::new("/tmp/a b/é.md")).unwrap();
        assert_eq!(back.as_str(), "file:///tmp/a%20b/%C3%A9.md");
        assert_eq!(uri_path(&Uri::from_str("untitled:x").unwrap()), None);
    }
}
