//! Search tokens (docs/recall.md): text outside CJK runs is split into Unicode
//! words (UAX #29), lowercased, and a word joined by punctuation
//! (`replaced_by`, `Cargo.toml`) also yields its parts; runs of Han,
//! Hiragana, Katakana and Hangul become overlapping character bigrams (a
//! one-character run is itself), so Japanese and Chinese text, spaced or
//! not, is found without a dictionary. Pure text: the index and the query
//! both tokenize through here.

use std::borrow::Cow;
use std::ops::Range;
use unicode_segmentation::UnicodeSegmentation;

/// Whether `c` belongs to a Han, Hiragana, Katakana or Hangul run: the
/// one CJK table, in `syntax::cjk`.
use crate::syntax::cjk::in_cjk_run;

/// Calls `emit` with every token of `text` and the byte range it came from.
pub(crate) fn tokenize(text: &str, mut emit: impl FnMut(Cow<'_, str>, Range<usize>)) {
    let mut start = 0;
    while start < text.len() {
        let rest = &text[start..];
        let cjk = rest.chars().next().is_some_and(in_cjk_run);
        let len = rest
            .char_indices()
            .find(|(_, c)| in_cjk_run(*c) != cjk)
            .map_or(rest.len(), |(i, _)| i);
        let run = &rest[..len];
        if cjk {
            bigrams(run, start, &mut emit);
        } else {
            words(run, start, &mut emit);
        }
        start += len;
    }
}

fn bigrams(run: &str, base: usize, emit: &mut impl FnMut(Cow<'_, str>, Range<usize>)) {
    let bounds: Vec<usize> = run
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(run.len()))
        .collect();
    if bounds.len() == 2 {
        emit(Cow::Borrowed(run), base..base + run.len());
        return;
    }
    for w in bounds.windows(3) {
        emit(Cow::Borrowed(&run[w[0]..w[2]]), base + w[0]..base + w[2]);
    }
}

fn words(run: &str, base: usize, emit: &mut impl FnMut(Cow<'_, str>, Range<usize>)) {
    word_indices(run, |at, word| word_and_parts(word, base + at, emit));
}

/// The words of `text` and their offsets, as `unicode_word_indices` finds
/// them. The text is cut at each lone ASCII white space between ASCII
/// characters (or an end): the word rules always break on both sides of
/// it there, and none looks across it. Pieces in ASCII then take
/// [`AsciiWords`]; the others, the general segmenter.
fn word_indices<'t>(text: &'t str, mut f: impl FnMut(usize, &'t str)) {
    let b = text.as_bytes();
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C);
    // Only a lone white space between ASCII characters that are not white
    // space. A mark after spaces joins them into one segment (an
    // alphabetic mark makes a word of it), so a space followed by a space
    // or by anything past ASCII is never cut. Before the space, UAX #29
    // also joins a space to spaces and marks before it; unicode-
    // segmentation does not, but a cut there would differ from the rules.
    let solid = |c: Option<&u8>| c.is_none_or(|c| c.is_ascii() && !space(*c));
    let cut =
        |i: usize| space(b[i]) && solid(i.checked_sub(1).map(|j| &b[j])) && solid(b.get(i + 1));
    let mut from = 0;
    while from < b.len() {
        let mut to = from;
        while to < b.len() && !cut(to) {
            to += 1;
        }
        let piece = &text[from..to];
        if piece.is_ascii() {
            AsciiWords::new(piece).for_each(|(at, w)| f(from + at, w));
        } else {
            piece
                .unicode_word_indices()
                .for_each(|(at, w)| f(from + at, w));
        }
        from = to + 1;
    }
}

/// The words of ASCII text exactly as `unicode_word_indices` finds them
/// (Unicode's word boundary rules, UAX #29, restricted to ASCII), without
/// looking up every character's class in a large table, which was nearly
/// half of a cold index build. In ASCII: letters, digits and
/// `_` join into one word; `:`, `.` and `'` join letters on both sides
/// (`e.g`, `don't`); `.`, `'`, `,` and `;` join digits on both sides
/// (`3.14`, `1,000`). A segment without a letter or digit is no word.
struct AsciiWords<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> AsciiWords<'a> {
    fn new(text: &'a str) -> Self {
        debug_assert!(text.is_ascii());
        AsciiWords { text, at: 0 }
    }
}

impl<'a> Iterator for AsciiWords<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        let b = self.text.as_bytes();
        let letter = |i: usize| b.get(i).is_some_and(u8::is_ascii_alphabetic);
        let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
        let joined = |i: usize| {
            b.get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        };
        loop {
            // Skip to a letter, digit or `_`: anything else is a segment of
            // its own, or part of a run of spaces, and holds no word.
            while self.at < b.len() && !joined(self.at) {
                self.at += 1;
            }
            if self.at >= b.len() {
                return None;
            }
            let start = self.at;
            let mut i = start;
            loop {
                while joined(i) {
                    i += 1;
                }
                // `i` is past the run; a middle character joins it to the
                // next when letters or digits stand on both sides.
                let mid = b.get(i).copied();
                let joins_letters =
                    matches!(mid, Some(b':' | b'.' | b'\'')) && letter(i - 1) && letter(i + 1);
                let joins_digits =
                    matches!(mid, Some(b'.' | b'\'' | b',' | b';')) && digit(i - 1) && digit(i + 1);
                if joins_letters || joins_digits {
                    i += 1;
                } else {
                    break;
                }
            }
            self.at = i;
            let word = &self.text[start..i];
            if word.bytes().any(|c| c.is_ascii_alphanumeric()) {
                return Some((start, word));
            }
        }
    }
}

/// Emits a word, and the alphanumeric parts of a word joined by
/// punctuation.
fn word_and_parts(word: &str, start: usize, emit: &mut impl FnMut(Cow<'_, str>, Range<usize>)) {
    emit(stem(lower(word)), start..start + word.len());
    // A word joined by punctuation (`replaced_by`, `Cargo.toml`,
    // `don't`) also yields its alphanumeric parts.
    if word.chars().any(|c| !c.is_alphanumeric()) {
        let mut from = 0;
        for (i, c) in word
            .char_indices()
            .chain(std::iter::once((word.len(), ' ')))
        {
            if !c.is_alphanumeric() || i == word.len() {
                if i > from {
                    let part = &word[from..i];
                    emit(stem(lower(part)), start + from..start + i);
                }
                from = i + c.len_utf8();
            }
        }
    }
}

/// English words (ASCII letters, three or more) reduced to their Snowball
/// stem, so that `retries` finds `retry` and `cached` finds `caching`; other
/// words, numbers and CJK bigrams stay as they are.
/// Longest word whose stem a thread keeps.
const STEM_KEPT_BYTES: usize = 40;

fn stem(word: Cow<'_, str>) -> Cow<'_, str> {
    if word.len() < 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word;
    }
    // A long run of letters (a pasted blob) is stemmed, not kept: the
    // kept words stay small whatever a text holds.
    if word.len() > STEM_KEPT_BYTES {
        return match stem_now(&word) {
            None => word,
            Some(s) => Cow::Owned(s),
        };
    }
    // Texts repeat their words: each thread keeps the stems it found
    // (the stemmer costs far more than a lookup), up to `STEMS_KEPT`
    // words, then starts again.
    const STEMS_KEPT: usize = 1 << 16;
    thread_local! {
        static STEMS: std::cell::RefCell<crate::model::hashing::Map<Box<str>, Option<Box<str>>>> =
            std::cell::RefCell::new(crate::model::hashing::Map::default());
    }
    STEMS.with_borrow_mut(|stems| {
        if let Some(known) = stems.get(&*word) {
            return match known {
                None => word,
                Some(s) => Cow::Owned(String::from(&**s)),
            };
        }
        let stemmed = stem_now(&word);
        if stems.len() >= STEMS_KEPT {
            stems.clear();
        }
        stems.insert(Box::from(&*word), stemmed.as_deref().map(Box::from));
        match stemmed {
            None => word,
            Some(s) => Cow::Owned(s),
        }
    })
}

/// The Snowball stem of `word` (ASCII lowercase, three bytes or more),
/// `None` when it is the word itself.
fn stem_now(word: &str) -> Option<String> {
    static STEMMER: std::sync::LazyLock<rust_stemmers::Stemmer> = std::sync::LazyLock::new(|| {
        rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English)
    });
    match STEMMER.stem(word) {
        Cow::Borrowed(s) if s.len() == word.len() => None,
        stemmed => Some(stemmed.into_owned()),
    }
}

fn lower(word: &str) -> Cow<'_, str> {
    if word.bytes().any(|b| b.is_ascii_uppercase()) || !word.is_ascii() {
        let low = word.to_lowercase();
        if low == word {
            Cow::Borrowed(word)
        } else {
            Cow::Owned(low)
        }
    } else {
        Cow::Borrowed(word)
    }
}

/// The distinct tokens of a query, in order of first appearance.
pub(crate) fn query_terms(query: &str) -> Vec<String> {
    // A word with an apostrophe (`caroline's`, `don't`) stands for its
    // parts, which it also yields: the whole is rarer than the name it
    // holds and would outweigh it; the clitic left (`s`, `t`, `ll`) is a
    // function word.
    let mut out: Vec<String> = Vec::new();
    let mut whole: Option<Range<usize>> = None;
    tokenize(query, |t, r| {
        let part = whole
            .as_ref()
            .is_some_and(|w| w.start <= r.start && r.end <= w.end);
        if !part && query[r.clone()].contains(['\'', '’']) {
            whole = Some(r);
            return;
        }
        if !out.iter().any(|o| *o == *t) {
            out.push(t.into_owned());
        }
    });
    // English function words match almost every record and rank by noise;
    // a query of nothing else keeps them.
    if out.iter().any(|t| !is_stop_word(t)) {
        out.retain(|t| !is_stop_word(t));
    }
    out
}

/// Whether `a` and `b` are at most `max` single-character edits apart
/// (insertions, deletions, substitutions; Levenshtein), computed in a band
/// of width `2 * max + 1` so that a dictionary can be scanned quickly.
pub(crate) fn within_edits(a: &str, b: &str, max: usize) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > max {
        return false;
    }
    let far = max + 1;
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j.min(far)).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![far; b.len() + 1];
        cur[0] = (i + 1).min(far);
        let lo = (i + 1).saturating_sub(max).max(1);
        let hi = (i + 1 + max).min(b.len());
        for j in lo..=hi {
            let cost = usize::from(*ca != b[j - 1]);
            cur[j] = (prev[j - 1] + cost)
                .min(prev[j] + 1)
                .min(cur[j - 1] + 1)
                .min(far);
        }
        if cur.iter().all(|&d| d > max) {
            return false;
        }
        prev = cur;
    }
    prev[b.len()] <= max
}

/// How many edits a query term that matches nothing may be from a term of
/// the index to stand for it: none for short words (too many neighbours),
/// one up to seven letters, two beyond.
pub(crate) fn typo_budget(term: &str) -> usize {
    match term.chars().count() {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

/// Common English function words (lowercase), and the clitics of
/// contractions and possessives (`s`, `t`, `ll`, …), sorted for a binary
/// search.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "before", "being", "between", "both", "but", "by", "can", "could", "d",
    "did", "do", "does", "doing", "during", "each", "for", "from", "had", "has", "have", "having",
    "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "itself", "just", "ll", "m", "me", "more", "most", "my", "no", "nor", "not", "of", "on",
    "once", "only", "or", "other", "our", "ours", "out", "over", "own", "re", "s", "same", "she",
    "should", "so", "some", "such", "t", "than", "that", "the", "their", "theirs", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
    "ve", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
    "why", "will", "with", "would", "you", "your", "yours",
];

/// Whether `term` is a common English function word (`the`, `what`, …),
/// as written or as the stem it is searched by (`does` is searched as
/// `doe`, `only` as `onli`).
pub(crate) fn is_stop_word(term: &str) -> bool {
    static STEMS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        let mut stems: Vec<String> = STOP_WORDS
            .iter()
            .map(|w| stem(Cow::Borrowed(w)).into_owned())
            .filter(|s| STOP_WORDS.binary_search(&s.as_str()).is_err())
            .collect();
        stems.sort_unstable();
        stems
    });
    STOP_WORDS.binary_search(&term).is_ok()
        || STEMS.binary_search_by(|s| s.as_str().cmp(term)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_stem_is_the_stemmers() {
        // Each word asked for three times (found, then kept), on threads
        // of their own, and past `STEMS_KEPT` words so that the kept
        // stems start again.
        let words: Vec<String> = [
            "retries", "caching", "cached", "the", "running", "skies", "dying", "news",
        ]
        .iter()
        .map(|w| w.to_string())
        .chain((0..70_000u32).map(|i| {
            // `i` in letters, with a suffix the stemmer takes off.
            let mut w: String = (0..4)
                .map(|k| char::from(b'a' + (i / 26u32.pow(k) % 26) as u8))
                .collect();
            w.push_str(["ing", "ed", "ies", "s", "ness"][i as usize % 5]);
            w
        }))
        .collect();
        let check = |words: &[String]| {
            for _ in 0..3 {
                for w in words {
                    assert!(w.bytes().all(|b| b.is_ascii_lowercase()), "{w}");
                    let direct = stem_now(w).unwrap_or_else(|| w.clone());
                    assert_eq!(stem(Cow::Borrowed(w.as_str())), direct, "{w}");
                }
            }
        };
        std::thread::scope(|s| {
            s.spawn(|| check(&words[..8]));
            s.spawn(|| check(&words));
        });
        assert_eq!(stem(Cow::Borrowed("retries")), "retri");
        // A word longer than those kept is stemmed all the same.
        let long = "abc".repeat(20) + "ing";
        assert_eq!(stem(Cow::Borrowed(long.as_str())), "abc".repeat(20));
    }

    #[test]
    fn edits_are_counted_in_the_band() {
        assert!(within_edits("backof", "backoff", 1));
        assert!(within_edits("retyr", "retry", 2));
        assert!(!within_edits("retyr", "retry", 1));
        assert!(within_edits("cache", "cache", 0));
        assert!(!within_edits("cache", "catch", 1));
        assert!(within_edits("検索", "検策", 1));
        assert!(!within_edits("a", "abcd", 2));
    }

    #[test]
    fn stop_words_are_sorted_and_dropped_unless_alone() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(query_terms("What did the cache do"), ["cach"]);
        // English words are stemmed, the index's and the query's alike.
        assert_eq!(query_terms("retries retrying"), ["retri"]);
        assert_eq!(query_terms("the"), ["the"]);
        // A possessive or contraction stands for its parts, its clitic a
        // function word.
        assert_eq!(
            query_terms("What does Caroline's necklace symbolize?"),
            ["carolin", "necklac", "symbol"]
        );
        assert_eq!(query_terms("don’t panic"), ["don", "panic"]);
        assert_eq!(query_terms("replaced_by"), ["replaced_by", "replac"]);
    }

    /// The words the general segmenter finds in `text`.
    fn unicode_words(text: &str) -> Vec<(usize, &str)> {
        text.unicode_word_indices().collect()
    }

    #[test]
    fn ascii_words_are_the_unicode_words() {
        // Every class of character the word rules tell apart in ASCII
        // (letters, digits, `_`, the middle characters of letters, of
        // numbers and of both, `'`, `"`, space, line feed, carriage
        // return, form feed, and others), four at a time.
        let pieces = [
            "a", "Z", "1", "_", ".", ":", "'", ",", ";", " ", "\n", "\r", "\u{c}", "-", "\"", "\t",
        ];
        for t in crate::syntax::text::every_text_of(&pieces, 4) {
            let fast: Vec<(usize, &str)> = AsciiWords::new(&t).collect();
            assert_eq!(fast, unicode_words(&t), "{t:?}");
        }
    }

    #[test]
    fn words_of_mixed_texts_are_the_unicode_words() {
        // Where a space may be cut, and where not: between ASCII, and
        // before marks that join the spaces before them (a combining
        // accent, a zero-width joiner, and an alphabetic mark, which makes
        // a word of those spaces: `a  \u{345}` is `a` and `  \u{345}`).
        let pieces = [
            "a", "1", ".", "'", " ", "\n", "\t", "é", "\u{301}", "\u{345}", "\u{200D}", "。", "日",
            "_", ":",
        ];
        for t in crate::syntax::text::every_text_of(&pieces, 4) {
            let mut got = Vec::new();
            word_indices(&t, |at, w| got.push((at, w)));
            assert_eq!(got, unicode_words(&t), "{t:?}");
        }
    }

    #[test]
    fn ascii_words_of_longer_texts_are_the_unicode_words() {
        // Longer runs: words joined several times over, numbers with
        // separators, identifiers, prose.
        let texts = [
            "Use e.g. the v1.2.3 loader; don't re-read 1,000,000 rows: a:b:c 3.14.15",
            "replaced_by: __init__ foo_bar-baz Cargo.toml x.y.z. ..a.. 1.a a.1 1:2 a;b",
            "'quoted' \"dq\" it's 'tis rock'n'roll 12'34 12''34 a''b _1_ 1_a_2",
        ];
        for t in texts {
            let fast: Vec<(usize, &str)> = AsciiWords::new(t).collect();
            assert_eq!(fast, unicode_words(t), "{t:?}");
        }
        let mut n = 0u64;
        let mut next = || {
            n = n
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (n >> 33) as usize
        };
        let alphabet = b"aaabZ0019_.:',; \n-\"";
        for _ in 0..2000 {
            let len = next() % 40;
            let t: String = (0..len)
                .map(|_| char::from(alphabet[next() % alphabet.len()]))
                .collect();
            let fast: Vec<(usize, &str)> = AsciiWords::new(&t).collect();
            assert_eq!(fast, unicode_words(&t), "{t:?}");
        }
    }

    fn toks(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        tokenize(s, |t, _| out.push(t.into_owned()));
        out
    }

    #[test]
    fn latin_words_are_lowercased_and_split_at_punctuation() {
        assert_eq!(
            toks("Use gix for replaced_by, see Cargo.toml"),
            [
                "use",
                "gix",
                "for",
                "replaced_by",
                "replac",
                "by",
                "see",
                "cargo.toml",
                "cargo",
                "toml"
            ]
        );
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(
            toks("日本語の検索"),
            ["日本", "本語", "語の", "の検", "検索"]
        );
        assert_eq!(
            toks("按二元组切分"),
            ["按二", "二元", "元组", "组切", "切分"]
        );
        assert_eq!(toks("の"), ["の"]);
        assert_eq!(
            toks("config loader の動作"),
            ["config", "loader", "の動", "動作"]
        );
        assert_eq!(toks("한국어"), ["한국", "국어"]);
    }

    #[test]
    fn token_ranges_point_into_the_text() {
        let text = "Das ÄRGER 検索 x";
        tokenize(text, |t, r| {
            assert_eq!(text[r].to_lowercase(), t.as_ref());
        });
    }
}
