//! The front-matter splitter: finds the `---` delimiters of a record and
//! returns byte ranges into the original text, so every later span points at
//! the file as it is on disk (BOM and CR included).

use std::ops::Range;

/// Why a file has no front matter, so the diagnostic can say it plainly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Absence {
    /// The file does not start with a delimiter at all.
    Plain,
    /// The file opens with TOML front matter (`+++`).
    Toml,
    /// Blank lines stand before the opening `---`.
    BlankLinesBefore { line: usize },
    /// The delimiter is indented.
    Indented,
    /// The first line starts with `---` followed by other text (`---glt`).
    JunkAfterOpener,
    /// The lines end with a bare CR (classic Mac OS), so the file reads as
    /// one line that starts with `---`.
    CrLineEndings,
    /// The file is empty.
    Empty,
}

/// The result of splitting a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split {
    /// No front matter.
    None(Absence),
    /// An opening `---` with no closing one.
    Unclosed {
        /// The opening delimiter line (without its line break).
        opener: Range<usize>,
    },
    /// Front matter found.
    Found(Parts),
}

/// Byte ranges of a record whose front matter was delimited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    /// The opening delimiter line, without its line break.
    pub opener: Range<usize>,
    /// The YAML text between the delimiter lines (line breaks included).
    pub yaml: Range<usize>,
    /// The closing delimiter line, without its line break.
    pub closer: Range<usize>,
    /// Everything after the closing delimiter's line break.
    pub body: Range<usize>,
}

/// Length of the UTF-8 byte order mark at the start of `text`, if any.
pub(crate) fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{feff}') {
        3
    } else {
        0
    }
}

/// Iterates the lines of `text[from..]` as (content range, next line start).
/// The content excludes `\n` and a `\r` before it.
fn lines(text: &str, from: usize) -> impl Iterator<Item = (Range<usize>, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut pos = from;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        let (end, next) = match memchr(b'\n', &bytes[start..]) {
            Some(i) => (start + i, start + i + 1),
            None => (bytes.len(), bytes.len()),
        };
        let content_end = if end > start && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        pos = next;
        Some((start..content_end, next))
    })
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

/// A delimiter line: `---` with optional trailing spaces or tabs.
fn is_delimiter(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|rest| rest.bytes().all(|b| b == b' ' || b == b'\t'))
}

/// Splits `text` (the whole file, BOM included if present) into front matter
/// and body.
pub fn split(text: &str) -> Split {
    let start = bom_len(text);
    if start == text.len() {
        return Split::None(Absence::Empty);
    }
    let mut it = lines(text, start);
    let Some((first, after_first)) = it.next() else {
        return Split::None(Absence::Empty);
    };
    let first_line = &text[first.clone()];
    if !is_delimiter(first_line) {
        return Split::None(classify_absence(text, start));
    }
    for (line, next) in lines(text, after_first) {
        if is_delimiter(&text[line.clone()]) {
            return Split::Found(Parts {
                opener: first.clone(),
                yaml: after_first..line.start,
                closer: line,
                body: next..text.len(),
            });
        }
    }
    Split::Unclosed { opener: first }
}

fn classify_absence(text: &str, start: usize) -> Absence {
    let mut blank = 0;
    for (line, _) in lines(text, start) {
        let content = &text[line];
        if content.trim().is_empty() {
            blank += 1;
            continue;
        }
        if blank == 0 {
            if content.starts_with("+++") {
                return Absence::Toml;
            }
            // `---` then a bare CR: a line break to everyone but us.
            if content.starts_with("---\r") {
                return Absence::CrLineEndings;
            }
            if content.starts_with("---") {
                return Absence::JunkAfterOpener;
            }
            if is_delimiter(content.trim_start()) {
                return Absence::Indented;
            }
            return Absence::Plain;
        }
        if is_delimiter(content) {
            return Absence::BlankLinesBefore { line: blank + 1 };
        }
        if is_delimiter(content.trim_start()) {
            return Absence::Indented;
        }
        if content.starts_with("+++") {
            return Absence::Toml;
        }
        return Absence::Plain;
    }
    Absence::Empty
}

impl Absence {
    /// A plain-words explanation for `frontmatter/missing`.
    pub(crate) fn message(self) -> String {
        match self {
            Absence::Plain => "the file has no front matter: a record starts with a `---` line, \
                 then YAML keys, then a closing `---` line"
                .to_string(),
            Absence::Toml => "the file opens with TOML front matter (`+++`); memlint records use \
                 YAML front matter between `---` lines"
                .to_string(),
            Absence::BlankLinesBefore { line } => format!(
                "the front matter must start on the first line, but blank lines stand before \
                 the `---` on line {line}; delete them"
            ),
            Absence::Indented => {
                "the front matter delimiter is indented; `---` must start at column 1".to_string()
            }
            Absence::JunkAfterOpener => {
                "the first line starts with `---` but has other text after it; the opening \
                 delimiter must be `---` alone on its line"
                    .to_string()
            }
            Absence::CrLineEndings => {
                "the file ends its lines with a bare CR (classic Mac OS line endings), so it \
                 reads as one line; save it with LF line endings"
                    .to_string()
            }
            Absence::Empty => "the file is empty: a record needs front matter".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Parts {
        match split(text) {
            Split::Found(p) => p,
            other => panic!("expected front matter, got {other:?}"),
        }
    }

    #[test]
    fn splits_lf() {
        let t = "---\na: 1\n---\nbody\n";
        let p = found(t);
        assert_eq!(&t[p.yaml.clone()], "a: 1\n");
        assert_eq!(&t[p.body.clone()], "body\n");
        assert_eq!(&t[p.closer.clone()], "---");
    }

    #[test]
    fn splits_crlf_and_bom() {
        let t = "\u{feff}---\r\na: 1\r\n---\r\nbody\r\n";
        let p = found(t);
        assert_eq!(p.opener, 3..6);
        assert_eq!(&t[p.yaml.clone()], "a: 1\r\n");
        assert_eq!(&t[p.body.clone()], "body\r\n");
    }

    #[test]
    fn empty_front_matter_and_eof_after_closer() {
        let p = found("---\n---");
        assert_eq!(p.yaml, 4..4);
        assert_eq!(p.body, 7..7);
    }

    #[test]
    fn absences() {
        assert_eq!(split("+++\na = 1\n+++\n"), Split::None(Absence::Toml));
        assert_eq!(
            split("\n---\na: 1\n---\n"),
            Split::None(Absence::BlankLinesBefore { line: 2 })
        );
        assert_eq!(
            split("  ---\na: 1\n  ---\n"),
            Split::None(Absence::Indented)
        );
        assert_eq!(
            split("---glt\na: 1\n---\n"),
            Split::None(Absence::JunkAfterOpener)
        );
        assert_eq!(split("# Title\n"), Split::None(Absence::Plain));
        assert_eq!(
            split("---\ra: 1\r---\rbody\r"),
            Split::None(Absence::CrLineEndings)
        );
        assert_eq!(
            split("\u{feff}---\ra: 1\r---\r"),
            Split::None(Absence::CrLineEndings)
        );
        assert_eq!(split(""), Split::None(Absence::Empty));
    }

    #[test]
    fn unclosed() {
        assert_eq!(split("---\na: 1\n"), Split::Unclosed { opener: 0..3 });
    }

    #[test]
    fn delimiter_with_trailing_space() {
        let p = found("--- \na: 1\n---  \nx");
        assert_eq!(p.closer, 10..15);
    }
}
