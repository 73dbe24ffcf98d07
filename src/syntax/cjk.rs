//! CJK characters: one table, two questions. A token estimate counts CJK
//! letters, punctuation and fullwidth forms as one token each
//! ([`counts_as_cjk`]); search cuts runs of CJK letters into bigrams, and a
//! run ends at punctuation ([`in_cjk_run`]). The two answers differ on
//! purpose, and only where the table says so.

/// What a range of the table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Letters of a CJK script: counted, and part of a run.
    Letter,
    /// Punctuation, fullwidth forms and Bopomofo: counted, but a search run
    /// ends there.
    Counted,
    /// Letters the token estimate does not know (Hangul Jamo Extended-B,
    /// the CJK extensions past the compatibility supplement): part of a run
    /// only.
    RunOnly,
}

use Class::{Counted, Letter, RunOnly};

/// Sorted, not overlapping: (first, last, class).
const TABLE: &[(u32, u32, Class)] = &[
    (0x1100, 0x11FF, Letter),  // Hangul Jamo
    (0x2E80, 0x2FDF, Letter),  // CJK Radicals, Kangxi Radicals
    (0x3000, 0x3004, Counted), // CJK symbols and punctuation
    (0x3005, 0x3005, Letter),  // 々
    (0x3006, 0x3006, Counted),
    (0x3007, 0x3007, Letter), // 〇
    (0x3008, 0x303A, Counted),
    (0x303B, 0x303B, Letter), // 〻
    (0x303C, 0x303F, Counted),
    (0x3040, 0x309F, Letter),    // Hiragana
    (0x30A0, 0x30FF, Letter),    // Katakana (with the prolonged sound mark)
    (0x3100, 0x312F, Counted),   // Bopomofo
    (0x3130, 0x318F, Letter),    // Hangul Compatibility Jamo
    (0x31F0, 0x31FF, Letter),    // Katakana Phonetic Extensions
    (0x3400, 0x4DBF, Letter),    // CJK Extension A
    (0x4E00, 0x9FFF, Letter),    // CJK Unified Ideographs
    (0xA960, 0xA97F, Letter),    // Hangul Jamo Extended-A
    (0xAC00, 0xD7AF, Letter),    // Hangul Syllables
    (0xD7B0, 0xD7FF, RunOnly),   // Hangul Jamo Extended-B
    (0xF900, 0xFAFF, Letter),    // CJK Compatibility Ideographs
    (0xFF00, 0xFF65, Counted),   // Fullwidth forms, halfwidth punctuation
    (0xFF66, 0xFF9F, Letter),    // Halfwidth Katakana
    (0xFFA0, 0xFFEF, Counted),   // Halfwidth Hangul, fullwidth signs
    (0x20000, 0x2FA1F, Letter),  // CJK Extensions B–F, compatibility supplement
    (0x2FA20, 0x323AF, RunOnly), // CJK Extensions G–H
];

/// The class of `c`, or `None` outside the table.
#[inline]
fn class(c: char) -> Option<Class> {
    let c = c as u32;
    // Most text is below the first range: no search.
    if c < 0x1100 {
        return None;
    }
    let i = TABLE.partition_point(|&(_, last, _)| last < c);
    match TABLE.get(i) {
        Some(&(first, _, class)) if first <= c => Some(class),
        _ => None,
    }
}

/// Whether a token estimate counts `c` as a CJK character (one token
/// each): Han, Hiragana, Katakana, Hangul, CJK punctuation and fullwidth
/// forms.
#[inline]
pub(crate) fn counts_as_cjk(c: char) -> bool {
    matches!(class(c), Some(Letter | Counted))
}

/// Whether `c` belongs to a run of Han, Hiragana, Katakana or Hangul
/// letters, which search cuts into bigrams (punctuation ends a run).
#[inline]
pub(crate) fn in_cjk_run(c: char) -> bool {
    matches!(class(c), Some(Letter | RunOnly))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two tables this module replaces, as they were.
    fn old_is_cjk(c: char) -> bool {
        matches!(c as u32,
            0x1100..=0x11FF
            | 0x2E80..=0x2FDF
            | 0x3000..=0x303F
            | 0x3040..=0x309F
            | 0x30A0..=0x30FF
            | 0x3100..=0x312F
            | 0x3130..=0x318F
            | 0x31F0..=0x31FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xA960..=0xA97F
            | 0xAC00..=0xD7AF
            | 0xF900..=0xFAFF
            | 0xFF00..=0xFFEF
            | 0x20000..=0x2FA1F)
    }

    fn old_in_cjk_run(c: char) -> bool {
        matches!(c as u32,
            0x1100..=0x11FF
            | 0x3130..=0x318F
            | 0xA960..=0xA97F
            | 0xAC00..=0xD7AF
            | 0xD7B0..=0xD7FF
            | 0x3040..=0x309F
            | 0x30A0..=0x30FF
            | 0x31F0..=0x31FF
            | 0xFF66..=0xFF9F
            | 0x3005 | 0x3007 | 0x303B
            | 0x2E80..=0x2FDF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xF900..=0xFAFF
            | 0x20000..=0x323AF
        )
    }

    #[test]
    fn the_table_answers_as_the_two_old_tables_did() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(counts_as_cjk(c), old_is_cjk(c), "{:#x}", c as u32);
            assert_eq!(in_cjk_run(c), old_in_cjk_run(c), "{:#x}", c as u32);
        }
    }

    #[test]
    fn the_table_is_sorted_and_disjoint() {
        for w in TABLE.windows(2) {
            assert!(w[0].0 <= w[0].1 && w[0].1 < w[1].0, "{w:?}");
        }
    }
}
