//! What reading a file, or a git blob, gave: its bytes, or only its size
//! when it is larger than the limit it was read under (`max_file_bytes`).
//! The one capped reader of a file (`crate::io::read::read_capped`) and the
//! git blob reader (`crate::io::git::Repo::blob`) give it; the linter takes
//! it borrowed (`Content<&[u8]>`).

/// What was read of a file: its bytes (`B`, owned or borrowed), or only its
/// size when it is larger than the limit and was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Content<B = Vec<u8>> {
    /// The whole content.
    Bytes(B),
    /// Larger than the limit: not read, only its size in bytes.
    TooLarge(u64),
}

impl<B: AsRef<[u8]>> Content<B> {
    /// The same content, borrowed.
    pub(crate) fn as_slice(&self) -> Content<&[u8]> {
        match self {
            Content::Bytes(b) => Content::Bytes(b.as_ref()),
            Content::TooLarge(n) => Content::TooLarge(*n),
        }
    }
}

impl<B> Content<B> {
    /// The bytes, when they were read.
    #[cfg(test)] // only the unit tests call it
    pub(crate) fn bytes(self) -> Option<B> {
        match self {
            Content::Bytes(b) => Some(b),
            Content::TooLarge(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrows_and_gives_its_bytes() {
        let owned: Content = Content::Bytes(b"abc".to_vec());
        assert_eq!(owned.as_slice(), Content::Bytes(&b"abc"[..]));
        assert_eq!(
            Content::<Vec<u8>>::TooLarge(9).as_slice(),
            Content::TooLarge(9)
        );
        assert_eq!(owned.bytes(), Some(b"abc".to_vec()));
        assert_eq!(Content::<Vec<u8>>::TooLarge(9).bytes(), None);
    }
}
