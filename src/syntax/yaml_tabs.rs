//! Tabs YAML forbids where serde-saphyr lets them pass, found in the
//! source text for the tree builder of [`crate::syntax::yaml`] to refuse.

use std::ops::Range;

/// In the quoted scalar at `span` of `src`, inside a block collection
/// whose first token is at `collection`: the offset of a tab at the start
/// of a continuation line, before the spaces the line needs (one more than
/// the collection's indentation), and how many spaces that is. YAML
/// indents with spaces only: `foo: "bar⏎→baz"` is invalid (yaml-test-suite
/// DK95-01), `foo: "bar⏎ →baz"` is not. A line of white space alone is
/// held to it too (an empty line inside a quoted value has fewer spaces
/// than needed, or the spaces and then separation), as the parser's
/// strict mode holds it.
pub fn quoted_tab(src: &str, collection: usize, span: Range<usize>) -> Option<(usize, usize)> {
    let text = &src[span.clone()];
    let first_break = memchr::memchr(b'\n', text.as_bytes())?;
    let line_start = src.as_bytes()[..collection]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let need = collection - line_start + 1;
    let mut at = span.start + first_break + 1;
    for line in text[first_break + 1..].split('\n') {
        let spaces = line.bytes().take_while(|&c| c == b' ').count();
        if spaces < need && line.as_bytes().get(spaces) == Some(&b'\t') {
            return Some((at + spaces, need));
        }
        at += line.len() + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_before_the_needed_spaces_are_found() {
        let src = "a:\n  b: \"x\n  \ty\"\n";
        let span = src.find('"').unwrap()..src.len() - 1;
        assert_eq!(quoted_tab(src, 5, span.clone()), Some((13, 3)));
        let ok = src.replace("  \ty", "   \ty");
        assert_eq!(quoted_tab(&ok, 5, span.start..ok.len() - 1), None);
    }
}
