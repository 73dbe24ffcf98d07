//! Reading a file of lines (JSON Lines) with a ceiling on each line: a
//! line longer than the limit is skipped without ever being held whole in
//! memory, so a 100 MB line costs a read, never 100 MB.

use std::io::BufRead;

/// One line of a file read by [`for_each_line`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Line {
    /// The line's bytes, without its line break.
    Text(Vec<u8>),
    /// The line is longer than the limit: its length in bytes, counted
    /// while it was skipped.
    Over(u64),
}

/// Calls `each(number, line)` for each line of `reader` (numbered from 1),
/// each line held only while it is at most `limit` bytes long.
pub(crate) fn for_each_line(
    reader: impl std::io::Read,
    limit: usize,
    mut each: impl FnMut(usize, Line),
) -> std::io::Result<()> {
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, reader);
    let mut number = 0;
    let mut line: Vec<u8> = Vec::new();
    let mut over: Option<u64> = None;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            if over.is_some() || !line.is_empty() {
                number += 1;
                each(number, finish(&mut line, &mut over));
            }
            return Ok(());
        }
        let (chunk, ends) = match buf.iter().position(|&b| b == b'\n') {
            Some(at) => (&buf[..at], Some(at + 1)),
            None => (buf, None),
        };
        match &mut over {
            Some(n) => *n += chunk.len() as u64,
            None if line.len() + chunk.len() > limit => {
                over = Some((line.len() + chunk.len()) as u64);
                line = Vec::new();
            }
            None => line.extend_from_slice(chunk),
        }
        let used = ends.unwrap_or(buf.len());
        reader.consume(used);
        if ends.is_some() {
            number += 1;
            each(number, finish(&mut line, &mut over));
        }
    }
}

fn finish(line: &mut Vec<u8>, over: &mut Option<u64>) -> Line {
    match over.take() {
        Some(n) => Line::Over(n),
        None => {
            let mut l = std::mem::take(line);
            if l.last() == Some(&b'\r') {
                l.pop();
            }
            Line::Text(l)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_skipped_not_held() {
        let text = b"ab\nabcdef\r\n\nxyz".to_vec();
        let mut seen = Vec::new();
        for_each_line(&text[..], 3, |n, l| seen.push((n, l))).unwrap();
        assert_eq!(
            seen,
            vec![
                (1, Line::Text(b"ab".to_vec())),
                (2, Line::Over(7)),
                (3, Line::Text(Vec::new())),
                (4, Line::Text(b"xyz".to_vec())),
            ]
        );
    }
}
