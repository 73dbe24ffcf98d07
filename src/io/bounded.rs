//! Reading with a ceiling: standard input, a pipe or a file is read up to
//! a limit and no further, so that a body, a record or a message that is
//! too large is refused after `limit + 1` bytes, not after it has been
//! held whole in memory.

use crate::model::content::Content;
use std::io::Read;

/// Reads `reader` to its end, or stops as soon as it has given more than
/// `limit` bytes: then what was read is dropped and only how much it was
/// is given (`limit + 1`: a stream's size is not known before its end). A
/// file is read with [`crate::io::read::read_capped`].
pub(crate) fn read_at_most(reader: impl Read, limit: u64) -> std::io::Result<Content> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(if bytes.len() as u64 > limit {
        Content::TooLarge(bytes.len() as u64)
    } else {
        Content::Bytes(bytes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_past_the_limit() {
        assert_eq!(
            read_at_most(&b"abc"[..], 3).unwrap(),
            Content::Bytes(b"abc".to_vec())
        );
        assert_eq!(read_at_most(&b"abcd"[..], 3).unwrap(), Content::TooLarge(4));
        // An endless stream ends all the same.
        assert_eq!(
            read_at_most(std::io::repeat(b'x'), 10).unwrap(),
            Content::TooLarge(11)
        );
    }
}
