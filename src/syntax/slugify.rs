//! Slugs made from titles (`memlint new`): the title's ASCII words,
//! lowercase, joined by `-`, at most `MAX_LEN` characters.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The longest slug docs/records.md allows.
pub(crate) const MAX_LEN: usize = 64;

/// The slug `title` gives: its letters and digits in ASCII, lowercase, each
/// run of anything else one `-`, cut at a word boundary to `MAX_LEN`.
/// Latin letters lose their accents (`Café` → `cafe`, `Straße` →
/// `strasse`); an apostrophe joins (`Don't` → `dont`). `None` when the
/// title has no ASCII word, as a Japanese or Chinese title: a slug made up
/// by transliteration would be one nobody searches for, so the caller asks
/// for one.
pub fn from_title(title: &str) -> Option<String> {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in title.nfkd() {
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
        } else if let Some(s) = latin_letter(c) {
            word.push_str(s);
        } else if is_combining_mark(c) || matches!(c, '\'' | '\u{2019}') {
            // An accent of the letter before, or an apostrophe: same word.
        } else if !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    let mut slug = String::new();
    for w in &words {
        if slug.is_empty() {
            slug.push_str(&w[..w.len().min(MAX_LEN)]);
        } else if slug.len() + 1 + w.len() <= MAX_LEN {
            slug.push('-');
            slug.push_str(w);
        } else {
            break;
        }
    }
    (!slug.is_empty()).then_some(slug)
}

/// Latin letters that decomposition leaves whole, in ASCII.
fn latin_letter(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' => "ss",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        'ø' | 'Ø' => "o",
        'đ' | 'Đ' | 'ð' | 'Ð' => "d",
        'ł' | 'Ł' => "l",
        'þ' | 'Þ' => "th",
        'ı' => "i",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_become_slugs() {
        let cases = [
            ("Use gix for git reads", Some("use-gix-for-git-reads")),
            (
                "  Retry bank sync -- with backoff!  ",
                Some("retry-bank-sync-with-backoff"),
            ),
            ("Don't store floats", Some("dont-store-floats")),
            ("Café au lait für Straße", Some("cafe-au-lait-fur-strasse")),
            ("ＵＳＥ ｆｕｌｌｗｉｄｔｈ", Some("use-fullwidth")),
            ("SQLite WAL v2", Some("sqlite-wal-v2")),
            ("日本語のタイトル", None),
            ("使用 gix 读取", Some("gix")),
            ("!!! ... ???", None),
            ("", None),
        ];
        for (title, want) in cases {
            assert_eq!(from_title(title).as_deref(), want, "{title:?}");
        }
    }

    #[test]
    fn long_titles_are_cut_at_a_word() {
        let title = "word ".repeat(400);
        let slug = from_title(&title).unwrap();
        assert!(slug.len() <= MAX_LEN && !slug.ends_with('-'), "{slug}");
        assert_eq!(slug.len(), 64);
        let one = "a".repeat(100);
        assert_eq!(from_title(&one).unwrap().len(), MAX_LEN);
        assert!(crate::model::kind::is_slug(&from_title(&title).unwrap()));
    }
}
