//! Reading with a ceiling: standard input, a pipe or a file is read up to
//! a limit and no further, so that a body, a record or a message that is
//! too large is refused after `limit + 1` bytes, not after it has been
//! held whole in memory.

use std::io::Read;
use std::path::Path;

/// What a bounded read found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bounded {
    /// Everything there was: at most the limit.
    Whole(Vec<u8>),
    /// More than the limit: reading stopped there and what was read is
    /// dropped.
    Over,
}

/// Reads `reader` to its end, or stops as soon as it has given more than
/// `limit` bytes.
pub fn read_at_most(reader: impl Read, limit: u64) -> std::io::Result<Bounded> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(if bytes.len() as u64 > limit {
        Bounded::Over
    } else {
        Bounded::Whole(bytes)
    })
}

/// The bytes of the regular file at `path`, when it holds at most `limit`
/// bytes (one that grows while it is read is cut off all the same).
pub fn read_regular_at_most(path: &Path, limit: u64) -> std::io::Result<Bounded> {
    let file = crate::io::fs::open_regular(path)?;
    if file.metadata()?.len() > limit {
        return Ok(Bounded::Over);
    }
    read_at_most(file, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_past_the_limit() {
        assert_eq!(
            read_at_most(&b"abc"[..], 3).unwrap(),
            Bounded::Whole(b"abc".to_vec())
        );
        assert_eq!(read_at_most(&b"abcd"[..], 3).unwrap(), Bounded::Over);
        // An endless stream ends all the same.
        assert_eq!(
            read_at_most(std::io::repeat(b'x'), 10).unwrap(),
            Bounded::Over
        );
    }
}
