//! `context/block-date`: each `CONTEXT.md` block heading starts with an
//! absolute date, so stale context is recognisable.

use super::Sink;
use crate::record::is_date;

/// Level-2 headings of a markdown text outside fenced code: (byte offset of
/// the line, heading text).
pub fn level2_headings(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let mut content = line.trim_end_matches(['\n', '\r']);
        // A byte order mark (reported by `format/bom`) hides no heading.
        let mut at = offset;
        if offset == 0 {
            if let Some(rest) = content.strip_prefix('\u{feff}') {
                content = rest;
                at += '\u{feff}'.len_utf8();
            }
        }
        let trimmed = content.trim_start();
        if let Some(f) = fence {
            if trimmed.starts_with(f) {
                fence = None;
            }
        } else if trimmed.starts_with("```") {
            fence = Some("```");
        } else if trimmed.starts_with("~~~") {
            fence = Some("~~~");
        } else if let Some(h) = content.strip_prefix("## ") {
            out.push((at, h.trim()));
        }
        offset += line.len();
    }
    out
}

/// `context/block-date`.
pub fn block_date(text: &str, out: &mut Sink) {
    for (offset, heading) in level2_headings(text) {
        let first = heading.split_whitespace().next().unwrap_or("");
        if !is_date(first) {
            out.emit(
                "context/block-date",
                offset..offset + 3 + heading.len(),
                format!("block heading `## {heading}` must start with an absolute date (`## YYYY-MM-DD …`)"),
            );
        }
    }
}
