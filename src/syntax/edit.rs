//! Text edits: a byte span and its replacement, applied to a text. What
//! the formatter and `check --fix` both produce.

use std::ops::Range;

/// A text edit: replace the bytes of `span` with `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    /// Byte range in the text the edit applies to.
    pub span: Range<usize>,
    /// The replacement.
    pub text: String,
}

/// Appends `text[range]` to `out` with the edits that fall inside `range`
/// applied. `edits` must be sorted by start and must not overlap; an edit
/// that crosses the range's boundary is an error.
pub(crate) fn splice(
    text: &str,
    range: Range<usize>,
    edits: &[Edit],
    out: &mut String,
) -> Result<(), String> {
    let first = edits.partition_point(|e| e.span.start < range.start);
    if first > 0 && edits[first - 1].span.end > range.start {
        return Err("an edit crosses a block boundary".into());
    }
    let mut pos = range.start;
    for e in &edits[first..] {
        let inside = e.span.start < range.end
            || (e.span.is_empty() && e.span.start == range.end && range.end == text.len());
        if !inside {
            break;
        }
        if e.span.start < pos || e.span.end > range.end {
            return Err("an edit crosses a block boundary".into());
        }
        out.push_str(
            text.get(pos..e.span.start)
                .ok_or("an edit does not fall on a character boundary")?,
        );
        out.push_str(&e.text);
        pos = e.span.end;
    }
    out.push_str(
        text.get(pos..range.end)
            .ok_or("an edit does not fall on a character boundary")?,
    );
    Ok(())
}

/// Applies `edits` to `text`. Overlapping edits are an error.
pub(crate) fn apply(text: &str, mut edits: Vec<Edit>) -> Result<String, String> {
    edits.sort_by_key(|e| (e.span.start, e.span.end));
    for w in edits.windows(2) {
        if w[0].span.end > w[1].span.start {
            return Err("two fixes touch the same text".into());
        }
    }
    let mut out = String::with_capacity(text.len());
    splice(text, 0..text.len(), &edits, &mut out)?;
    Ok(out)
}
