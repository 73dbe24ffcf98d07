//! Small text helpers shared by rules: CJK detection and the prose parts of
//! markdown (outside code spans and fenced code).

use std::ops::Range;

/// Han, Hiragana, Katakana, Hangul and CJK punctuation/fullwidth forms.
pub fn is_cjk(c: char) -> bool {
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

/// Byte ranges of `text` that are prose: fenced code blocks and inline code
/// spans are left out.
pub fn prose_ranges(text: &str) -> Vec<Range<usize>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_code() {
        let t = "a `b` c\n```\nx\n```\nd\n";
        let parts: Vec<&str> = prose_ranges(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(parts, vec!["a ", " c\n", "d\n"]);
    }
}
