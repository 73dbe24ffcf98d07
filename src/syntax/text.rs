//! Small text helpers shared by rules: CJK detection and the prose parts of
//! markdown (outside code spans and fenced code).

use std::ops::Range;

/// The ASCII words that the literal hints of `date/relative` and
/// `secrets/detected` look for, in any ASCII case: where they occur in a
/// text. One search of a lowercased copy finds them all; a search per hint
/// over the text, each through every case variant of its words, took twice
/// as long. Past ASCII, one more search finds the Japanese and Chinese
/// relative dates and the two characters that Unicode case folding maps to
/// ASCII letters.
#[derive(Debug, Default)]
pub struct HintWords {
    /// `day`, `tomorrow`, `week`, `month`, `year`.
    pub dates: Vec<Range<usize>>,
    /// `password`, `passwd`, `pwd`, `secret`, `key`, `token`.
    pub keys: Vec<Range<usize>>,
    /// The matches of `date/relative`'s Japanese and Chinese words, leftmost
    /// first, as a search for those words alone finds them.
    pub cjk_dates: Vec<Range<usize>>,
    /// Whether the text holds the Kelvin sign or the long s, which Unicode
    /// case folding maps to `k` and `s`.
    pub folds_to_ascii: bool,
}

static HINT_WORDS: std::sync::LazyLock<regex::bytes::Regex> = std::sync::LazyLock::new(|| {
    regex::bytes::Regex::new("day|tomorrow|week|month|year|password|passwd|pwd|secret|key|token")
        .expect("valid regex")
});

/// `date/relative`'s Japanese and Chinese words, then the Kelvin sign and
/// the long s (none of which overlaps a word).
static WIDE_WORDS: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    let mut words = crate::syntax::dates::CJK_WORDS.to_vec();
    words.extend(["\u{212A}", "\u{17F}"]);
    regex::Regex::new(&words.join("|")).expect("valid regex")
});

impl HintWords {
    /// Every occurrence in `text` of the ASCII words, overlapping ones
    /// included, and the leftmost-first matches of the others.
    pub(crate) fn of(text: &str) -> HintWords {
        // ASCII letters lowercased, every other byte kept: offsets agree.
        let lower: Vec<u8> = text
            .bytes()
            .map(|b| b | (u8::from(b.wrapping_sub(b'A') < 26) << 5))
            .collect();
        let mut out = HintWords::default();
        let mut at = 0;
        while let Some(m) = HINT_WORDS.find_at(&lower, at) {
            match m.as_bytes() {
                b"day" | b"tomorrow" | b"week" | b"month" | b"year" => out.dates.push(m.range()),
                _ => out.keys.push(m.range()),
            }
            at = m.start() + 1;
        }
        if !text.is_ascii() {
            for m in WIDE_WORDS.find_iter(text) {
                match m.as_str() {
                    "\u{212A}" | "\u{17F}" => out.folds_to_ascii = true,
                    _ => out.cjk_dates.push(m.range()),
                }
            }
        }
        out
    }

    /// Whether a date word lies within `range`.
    pub(crate) fn date_in(&self, range: &Range<usize>) -> bool {
        self.dates
            .iter()
            .any(|w| w.start >= range.start && w.end <= range.end)
    }

    /// Whether a Japanese or Chinese relative date lies within `range`.
    pub(crate) fn cjk_date_in(&self, range: &Range<usize>) -> bool {
        self.cjk_dates
            .iter()
            .any(|w| w.start >= range.start && w.end <= range.end)
    }
}

/// Byte ranges of `text` that are prose: fenced code blocks and inline code
/// spans are left out.
pub(crate) fn prose_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        let marker = trimmed.bytes().next().filter(|b| *b == b'`' || *b == b'~');
        let run = marker.map_or(0, |m| trimmed.bytes().take_while(|b| *b == m).count());
        match fence {
            Some((m, n)) => {
                if marker == Some(m) && run >= n && trimmed[run..].trim().is_empty() {
                    fence = None;
                }
                continue;
            }
            None if run >= 3 => {
                fence = marker.map(|m| (m, run));
                continue;
            }
            None => {}
        }
        inline_prose(line, start, &mut out);
    }
    out
}

/// Splits one line around backtick code spans.
fn inline_prose(line: &str, base: usize, out: &mut Vec<Range<usize>>) {
    let bytes = line.as_bytes();
    let mut i = 0;
    let mut prose_start = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|b| **b == b'`').count();
        // Find the closing run of the same length.
        let mut j = i + run;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let r = bytes[j..].iter().take_while(|b| **b == b'`').count();
                if r == run {
                    close = Some(j + r);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                if i > prose_start {
                    out.push(base + prose_start..base + i);
                }
                prose_start = end;
                i = end;
            }
            None => i += run,
        }
    }
    if prose_start < bytes.len() {
        out.push(base + prose_start..base + bytes.len());
    }
}

/// The candidate closest to `word`, scoring `2·LCS / (|word| + |candidate|)`
/// in characters, among those scoring `cutoff` or more; of equals the
/// lexicographically smallest. This is what
/// `similar::get_close_matches(word, candidates, 1, cutoff)` answers (its
/// Myers diff matches exactly a longest common subsequence), without a diff
/// per candidate: the LCS comes from a bit-parallel count (Allison–Dix), so a
/// hint over tens of thousands of slugs stays cheap.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str], cutoff: f32) -> Option<&'a str> {
    let w: Vec<char> = word.chars().collect();
    let m = w.len();
    if m > 64 {
        return similar::get_close_matches(word, candidates, 1, cutoff)
            .first()
            .copied();
    }
    let mut masks: Vec<(char, u64)> = Vec::with_capacity(m);
    for (i, c) in w.iter().enumerate() {
        match masks.iter_mut().find(|(x, _)| x == c) {
            Some((_, bits)) => *bits |= 1 << i,
            None => masks.push((*c, 1 << i)),
        }
    }
    let low = if m == 64 { u64::MAX } else { (1u64 << m) - 1 };
    let mut best: Option<(u32, &str)> = None;
    for &cand in candidates {
        let n = cand.chars().count();
        let len = m + n;
        let score = |matches: usize| -> f32 {
            if len == 0 {
                1.0
            } else {
                2.0 * matches as f32 / len as f32
            }
        };
        if score(m.min(n)) < cutoff {
            continue;
        }
        let mut v = u64::MAX;
        for c in cand.chars() {
            let pm = masks.iter().find(|(x, _)| *x == c).map_or(0, |(_, b)| *b);
            let u = v & pm;
            v = v.wrapping_add(u) | (v - u);
        }
        let lcs = m - (v & low).count_ones() as usize;
        let ratio = score(lcs);
        if ratio < cutoff {
            continue;
        }
        let key = (ratio * u32::MAX as f32) as u32;
        let better = match best {
            None => true,
            Some((k, s)) => key > k || (key == k && cand < s),
        };
        if better {
            best = Some((key, cand));
        }
    }
    best.map(|(_, s)| s)
}

/// Every text made of `n` of `pieces`, repeats allowed, in every order:
/// what the tests of the literal hints compare them with their patterns on.
#[cfg(test)]
pub(crate) fn every_text_of(pieces: &[&str], n: u32) -> Vec<String> {
    let mut texts = vec![String::new()];
    for _ in 0..n {
        texts = texts
            .iter()
            .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
            .collect();
    }
    // A test over no text would pass whatever the code did.
    assert_eq!(texts.len(), pieces.len().pow(n));
    texts
}

/// The relative date expressions in `text`, as byte ranges.
pub(crate) fn find_relative(text: &str) -> Vec<std::ops::Range<usize>> {
    let words = HintWords::of(text);
    let mut out = words.cjk_dates;
    if !words.dates.is_empty() {
        out.extend(
            crate::syntax::dates::ENGLISH
                .find_iter(text)
                .map(|m| m.range()),
        );
    }
    out.sort_by_key(|r| r.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_code() {
        let t = "a `b` c\n```\nx\n```\nd\n";
        let parts: Vec<&str> = prose_ranges(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(parts, vec!["a ", " c\n", "d\n"]);
    }

    #[test]
    fn closest_answers_what_get_close_matches_answers() {
        let words = [
            "use-gix",
            "use-gix-v2",
            "use-git2",
            "adopt-cache-layer",
            "adopt-cache",
            "cache-layer",
            "retry-bank-sync",
            "retry-sync",
            "日本語の検索",
            "日本語検索",
            "",
            "x",
            "gix-use",
            "store-amounts-as-integer-minor-units",
            "store-amount-as-integers",
        ];
        let queries = [
            "use-gitx",
            "use-gix",
            "adopt-cache-layers",
            "cache",
            "retry-bank",
            "日本の検索",
            "",
            "y",
            "store-amounts-as-integer",
            "gix",
            "zzzz-qqqq",
            "use-gix-v3",
        ];
        for q in queries {
            for cutoff in [0.0f32, 0.3, 0.6, 0.8, 1.0] {
                let expected = similar::get_close_matches(q, &words, 1, cutoff)
                    .first()
                    .copied();
                assert_eq!(closest(q, &words, cutoff), expected, "{q:?} at {cutoff}");
            }
        }
    }

    #[test]
    fn closest_agrees_on_random_slugs() {
        let mut next = crate::testing::below(0x9e37_79b9_7f4a_7c15);
        let word = |next: &mut dyn FnMut(usize) -> usize| -> String {
            let len = 1 + next(14);
            (0..len)
                .map(|_| ['a', 'b', 'c', '-', 'd', 'é'][next(6)])
                .collect()
        };
        let words: Vec<String> = (0..300).map(|_| word(&mut next)).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        for _ in 0..200 {
            let q = word(&mut next);
            for cutoff in [0.5f32, 0.6, 0.75] {
                let expected = similar::get_close_matches(q.as_str(), &refs, 1, cutoff)
                    .first()
                    .copied();
                assert_eq!(closest(&q, &refs, cutoff), expected, "{q:?} at {cutoff}");
            }
        }
    }

    #[test]
    fn hint_words_are_every_occurrence_in_any_ascii_case() {
        let date_hint =
            regex::Regex::new("(?i-u)day|tomorrow|week|month|year").expect("valid regex");
        let pieces = [
            "DAY", "d", "ay", "Tomorrow", "wEE", "k", "mon", "TH", "year", "日", " ",
        ];
        for t in every_text_of(&pieces, 3) {
            let words = HintWords::of(&t);
            assert_eq!(
                words.date_in(&(0..t.len())),
                date_hint.is_match(&t),
                "{t:?}"
            );
            // Each occurrence is found, also where another overlaps it.
            for w in words.dates.iter().chain(&words.keys) {
                assert!(t.is_char_boundary(w.start) && t.is_char_boundary(w.end));
            }
        }
        let words = HintWords::of("weeKey dayear");
        assert_eq!(words.keys, vec![3..6]);
        assert_eq!(words.dates, vec![0..4, 7..10, 9..13]);
        // Only within the range asked about.
        assert!(!HintWords::of("today: x").date_in(&(5..8)));
    }

    #[test]
    fn wide_hint_words_are_what_a_search_for_each_finds() {
        let cjk =
            regex::Regex::new(&crate::syntax::dates::CJK_WORDS.join("|")).expect("valid regex");
        let pieces = [
            "一", "昨日", "明", "後日", "今年", "上个", "月", "\u{212A}", "\u{17F}", "k", "日本",
        ];
        for t in every_text_of(&pieces, 3) {
            let words = HintWords::of(&t);
            let expected: Vec<Range<usize>> = cjk.find_iter(&t).map(|m| m.range()).collect();
            assert_eq!(words.cjk_dates, expected, "{t:?}");
            assert_eq!(
                words.folds_to_ascii,
                t.contains('\u{212A}') || t.contains('\u{17F}'),
                "{t:?}"
            );
            assert_eq!(words.cjk_date_in(&(0..t.len())), cjk.is_match(&t), "{t:?}");
        }
        // Leftmost first: `一昨日` is one match, not `昨日` within it.
        assert_eq!(HintWords::of("x一昨日").cjk_dates, vec![1..10]);
        assert!(!HintWords::of("昨日 x").cjk_date_in(&(6..8)));
    }
}
