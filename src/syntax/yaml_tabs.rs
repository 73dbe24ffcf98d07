//! Tabs YAML forbids where serde-saphyr lets them pass, found in the
//! source text for the tree builder of [`crate::syntax::yaml`] to refuse.

use std::ops::Range;

/// In the quoted scalar at `span` of `src`, inside a block collection
/// (a sequence when `is_seq`) whose first token is at `collection`: the offset of a tab at the start
/// of a continuation line, before the spaces the line needs (one more than
/// the collection's indentation), and how many spaces that is. YAML
/// indents with spaces only: `foo: "bar⏎→baz"` is invalid (yaml-test-suite
/// DK95-01), `foo: "bar⏎ →baz"` is not. A line of white space alone is
/// held to it too (an empty line inside a quoted value has fewer spaces
/// than needed, or the spaces and then separation), as the parser's
/// strict mode holds it.
pub(crate) fn quoted_tab(
    src: &str,
    collection: usize,
    is_seq: bool,
    span: Range<usize>,
) -> Option<(usize, usize)> {
    let text = &src[span.clone()];
    let first_break = memchr::memchr(b'\n', text.as_bytes())?;
    let b = src.as_bytes();
    // A block sequence's event may stand at its first item, after the
    // dash: the sequence is indented as its dash.
    let mut collection = collection.min(b.len());
    if is_seq && b.get(collection) != Some(&b'-') {
        let mut k = collection;
        while k > 0 && matches!(b[k - 1], b' ' | b'\t') {
            k -= 1;
        }
        if k > 0 && b[k - 1] == b'-' {
            collection = k - 1;
        }
    }
    let line_start = b[..collection]
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

    /// Whether the parser reads `src` without error, strict or not.
    fn parser_reads(src: &str, strict: bool) -> bool {
        use serde_saphyr::granit_parser::{Options, Parser};
        let mut options = Options::default();
        options.strict_indentation = strict;
        let mut p = Parser::new_from_str_with_options(src, options);
        while let Some(e) = p.next_event() {
            if e.is_err() {
                return false;
            }
        }
        true
    }

    /// On quoted values whose continuation lines are indented with spaces
    /// and tabs, memlint refuses what YAML's grammar refuses: a tab before
    /// the spaces the line needs. The parser's strict mode agrees on
    /// mappings, not on the items of a block sequence, where it lets a tab
    /// pass one space early (`a:⏎- "b⏎→c"`, where the grammar wants the
    /// item's continuation indented by one space more than its dash, as it
    /// wants `a: "b⏎ →c"` one more than its key). Lines with too few spaces and no tab,
    /// which that mode also refuses and memlint reads (as PyYAML does), are
    /// left out.
    #[test]
    fn refuses_what_the_grammar_refuses_and_mostly_the_strict_mode() {
        let mut seen = 0;
        let prefixes = [
            ("foo: ", 1, true),
            ("a:\n  b: ", 3, true),
            ("a:\n- ", 1, false),
            ("a:\n  - ", 3, false),
            ("a:\n- b: ", 3, true),
        ];
        for (prefix, need, strict_agrees) in prefixes {
            for q in ['"', '\''] {
                for lead in [
                    "", " ", "  ", "   ", "\t", " \t", "  \t", "   \t", "\t ", "\t\t",
                ] {
                    for rest in ["baz", ""] {
                        let src = format!("{prefix}{q}bar\n{lead}{rest}\n    z{q}\n");
                        let spaces = lead.bytes().take_while(|&b| b == b' ').count();
                        if !parser_reads(&src, false) || (spaces < need && !lead.contains('\t')) {
                            continue;
                        }
                        seen += 1;
                        let grammar =
                            !(spaces < need && lead.as_bytes().get(spaces) == Some(&b'\t'));
                        let ours = crate::syntax::yaml::parse(&src, 0).is_ok();
                        assert_eq!(ours, grammar, "{src:?}");
                        if strict_agrees {
                            assert_eq!(parser_reads(&src, true), grammar, "{src:?}");
                        }
                    }
                }
            }
        }
        assert!(seen > 100, "{seen}");
    }

    #[test]
    fn tabs_before_the_needed_spaces_are_found() {
        let src = "a:\n  b: \"x\n  \ty\"\n";
        let span = src.find('"').unwrap()..src.len() - 1;
        assert_eq!(quoted_tab(src, 5, false, span.clone()), Some((13, 3)));
        let ok = src.replace("  \ty", "   \ty");
        assert_eq!(quoted_tab(&ok, 5, false, span.start..ok.len() - 1), None);
    }
}
