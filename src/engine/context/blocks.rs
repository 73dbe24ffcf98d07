//! The blocks of a `CONTEXT.md` text: splitting it at its level-2
//! headings, the first blocks the context shows, and the trimming of
//! `context rotate`. Pure text.

use std::ops::Range;

/// The byte ranges of the blocks of a `CONTEXT.md` text: a block is a
/// level-2 heading and what follows it, up to the next heading of level 1
/// or 2 outside fenced code, or the end.
pub(crate) fn blocks(text: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut open: Option<usize> = None;
    let mut fence: Option<(char, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let t = line.trim_end_matches(['\n', '\r']);
        let stripped = t.trim_start_matches(' ');
        let indent = t.len() - stripped.len();
        if indent <= 3 {
            let marker = stripped.chars().next().filter(|c| *c == '`' || *c == '~');
            if let Some(c) = marker {
                let run = stripped.chars().take_while(|x| *x == c).count();
                if run >= 3 {
                    match fence {
                        None => fence = Some((c, run)),
                        Some((fc, fr))
                            if fc == c && run >= fr && stripped[run..].trim().is_empty() =>
                        {
                            fence = None
                        }
                        Some(_) => {}
                    }
                    continue;
                }
            }
        }
        if fence.is_some() || indent > 3 {
            continue;
        }
        let level = stripped.chars().take_while(|c| *c == '#').count();
        let is_heading = (1..=2).contains(&level)
            && stripped[level..]
                .chars()
                .next()
                .is_none_or(|c| c == ' ' || c == '\t');
        if is_heading {
            if let Some(s) = open.take() {
                out.push(s..start);
            }
            if level == 2 {
                open = Some(start);
            }
        }
    }
    if let Some(s) = open {
        out.push(s..text.len());
    }
    out
}

/// The first `n` blocks of a `CONTEXT.md` text, each without trailing blank
/// lines and with LF line endings.
pub(crate) fn first_blocks(text: &str, n: usize) -> Vec<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    blocks(text)
        .into_iter()
        .take(n)
        .map(|r| {
            text[r]
                .lines()
                .map(|l| l.trim_end_matches('\r'))
                .collect::<Vec<_>>()
                .join("\n")
                .trim_end()
                .to_string()
        })
        .filter(|b| !b.is_empty())
        .collect()
}

/// The result of trimming a `CONTEXT.md` text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rotated {
    /// The new text (`None` when nothing changes).
    pub text: Option<String>,
    /// Blocks before and after.
    pub before: usize,
    /// Blocks kept.
    pub kept: usize,
    /// Older blocks kept because `droppable` refused them.
    pub held: usize,
}

/// Keeps the first `keep` blocks of `text` and everything that is not a
/// block (the title and introduction, level-1 sections); the later blocks go,
/// except those `droppable` refuses (text that is not in git history yet).
pub(crate) fn rotate_text(text: &str, keep: usize, droppable: &dyn Fn(&str) -> bool) -> Rotated {
    let all = blocks(text);
    let before = all.len();
    let gone: Vec<&Range<usize>> = all
        .iter()
        .skip(keep)
        .filter(|r| droppable(&text[(*r).clone()]))
        .collect();
    let held = before.saturating_sub(keep) - gone.len();
    if gone.is_empty() {
        return Rotated {
            text: None,
            before,
            kept: before,
            held,
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in gone.iter().copied() {
        out.push_str(&text[at..r.start]);
        at = r.end;
    }
    out.push_str(&text[at..]);
    // One final newline, however the removed blocks ended.
    let trimmed = out.trim_end_matches(['\n', '\r', ' ', '\t']).len();
    out.truncate(trimmed);
    out.push_str(if text.contains("\r\n") { "\r\n" } else { "\n" });
    Rotated {
        text: Some(out),
        before,
        kept: before - gone.len(),
        held,
    }
}
