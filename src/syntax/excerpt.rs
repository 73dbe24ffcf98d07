//! Excerpts: the sentences of a line that hold the words a search
//! matched, so that a reader with little room (the prompt hook's budget)
//! gets the part of a record that bears on the question and more records
//! fit.

use std::ops::Range;

/// The sentences of `line` that hold a mark (byte ranges of matched words
/// in `line`), in order. Where sentences are left out, `…` stands for
/// them: before the first one kept, between two kept ones that are not
/// neighbours (` … `) and after the last one kept. Without a mark inside
/// `line`, its first sentence.
///
/// A sentence ends after `.`, `!` or `?` (and any closing quotes or
/// brackets) followed by white space and a character that is not a
/// lowercase letter (so `e.g. this` is one sentence), and after `。`, `！`
/// or `？`.
///
/// # Examples
///
/// ```ignore
/// use memlint::syntax::excerpt::sentences;
///
/// let line = "Hi there! I went to the lake. It was cold. Then we ate.";
/// let at = line.find("lake").unwrap();
/// assert_eq!(sentences(line, &[at..at + 4]), "… I went to the lake. …");
/// ```
pub(crate) fn sentences(line: &str, marks: &[Range<usize>]) -> String {
    let bounds = sentence_bounds(line);
    let marked: Vec<bool> = bounds
        .iter()
        .map(|s| {
            marks
                .iter()
                .any(|m| m.start >= s.start && m.end <= s.end && m.start < m.end)
        })
        .collect();
    let keep: Vec<bool> = if marked.iter().any(|&m| m) {
        marked
    } else {
        (0..bounds.len()).map(|i| i == 0).collect()
    };
    let mut out = String::new();
    let mut gap = false;
    for (s, &k) in bounds.iter().zip(&keep) {
        if !k {
            gap = true;
            continue;
        }
        if gap {
            out.push_str(if out.is_empty() { "… " } else { " … " });
        } else if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(line[s.clone()].trim());
        gap = false;
    }
    if gap && !out.is_empty() {
        out.push_str(" …");
    }
    out
}

/// The byte ranges of the sentences of `line`, white space between them
/// left out; none for a blank line.
fn sentence_bounds(line: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let end = if matches!(c, '。' | '！' | '？') {
            Some(at + c.len_utf8())
        } else if matches!(c, '.' | '!' | '?') {
            // Closing quotes and brackets belong to the sentence.
            let mut j = i + 1;
            while j < chars.len() && matches!(chars[j].1, '"' | '\'' | ')' | ']' | '”' | '’') {
                j += 1;
            }
            let spaced = j < chars.len() && chars[j].1.is_whitespace();
            let mut k = j;
            while k < chars.len() && chars[k].1.is_whitespace() {
                k += 1;
            }
            let next_lower = chars.get(k).is_some_and(|(_, n)| n.is_lowercase());
            (spaced && k < chars.len() && !next_lower)
                .then(|| chars.get(j).map_or(line.len(), |x| x.0))
        } else {
            None
        };
        if let Some(end) = end {
            push_trimmed(line, start..end, &mut out);
            start = end;
        }
        i += 1;
    }
    push_trimmed(line, start..line.len(), &mut out);
    out
}

/// `range` of `line` without its leading and trailing white space, pushed
/// when anything is left.
fn push_trimmed(line: &str, range: Range<usize>, out: &mut Vec<Range<usize>>) {
    let text = &line[range.clone()];
    let lead = text.len() - text.trim_start().len();
    let trail = text.len() - text.trim_end().len();
    if lead + trail < text.len() {
        out.push(range.start + lead..range.end - trail);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of [`sentences`]' documentation (a doctest cannot
    /// reach a `pub(crate)` item).
    #[test]
    fn the_documented_example_holds() {
        let line = "Hi there! I went to the lake. It was cold. Then we ate.";
        let at = line.find("lake").unwrap();
        assert_eq!(sentences(line, &[at..at + 4]), "… I went to the lake. …");
    }

    fn mark(line: &str, word: &str) -> Range<usize> {
        let at = line.find(word).expect("word in line");
        at..at + word.len()
    }

    #[test]
    fn the_marked_sentences_are_kept_and_gaps_shown() {
        let line = "Hey Mel! Long time no talk. Take a look at this. [shares an image: a necklace with a cross]";
        assert_eq!(
            sentences(line, &[mark(line, "necklace")]),
            "… [shares an image: a necklace with a cross]"
        );
        assert_eq!(
            sentences(line, &[mark(line, "Mel"), mark(line, "necklace")]),
            "Hey Mel! … [shares an image: a necklace with a cross]"
        );
        assert_eq!(
            sentences(line, &[mark(line, "talk"), mark(line, "look")]),
            "… Long time no talk. Take a look at this. …"
        );
        assert_eq!(sentences(line, &[]), "Hey Mel! …");
        assert_eq!(sentences("One sentence only", &[]), "One sentence only");
        assert_eq!(sentences("", &[]), "");
    }

    #[test]
    fn abbreviations_quotes_and_cjk_stops() {
        let line = "Use a cache, e.g. the page cache. \"It works!\" She said so.";
        assert_eq!(
            sentences(line, &[mark(line, "page")]),
            "Use a cache, e.g. the page cache. …"
        );
        assert_eq!(sentences(line, &[mark(line, "works")]), "… \"It works!\" …");
        let cjk = "検索は速い。索引は小さい。";
        assert_eq!(sentences(cjk, &[mark(cjk, "索引")]), "… 索引は小さい。");
    }
}
