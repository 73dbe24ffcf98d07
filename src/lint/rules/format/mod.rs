//! `format/*`: the file is text a record can be read from. The reader of
//! the linter emits these rules; the fixes of `format/bom` and
//! `format/crlf` are here.

use crate::syntax::edit::Edit;
use crate::syntax::frontmatter;

/// The `format/bom` fix: remove the UTF-8 byte order mark, when there is one.
pub fn bom_edit(text: &str) -> Option<Edit> {
    (frontmatter::bom_len(text) > 0).then(|| Edit {
        span: 0..3,
        text: String::new(),
    })
}

/// The `format/crlf` fix: turn every CRLF into LF.
pub fn crlf_edits(text: &str) -> Vec<Edit> {
    // The whole run of CRs before a LF goes, as the formatter does, so that
    // `\r\r\n` leaves no CRLF behind.
    let bytes = text.as_bytes();
    text.match_indices("\r\n")
        .map(|(i, _)| {
            let run = bytes[..i].iter().rev().take_while(|&&b| b == b'\r').count();
            Edit {
                span: i - run..i + 1,
                text: String::new(),
            }
        })
        .collect()
}
