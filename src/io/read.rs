//! The one way memlint reads a file it was given (a record, `CONTEXT.md`,
//! a file to import): a regular file only, its size taken before it is
//! read, and nothing over the cap (`max_file_bytes`) read at all. What it
//! gives is a [`Content`]: the bytes, or only the size. The git blob reader
//! gives the same (`crate::io::git::Repo::blob`), and so does a bounded
//! read of a stream (`crate::io::bounded::read_at_most`).

use crate::io::fs::open_regular;
use crate::model::content::Content;
use std::io::Read;
use std::path::Path;

/// The one way memlint reads a file it lints or formats: a regular file
/// only (following symbolic links; anything else is a [`crate::io::regular::not_regular`]
/// error, never a wait), its size taken before it is read: over `max`
/// bytes it is not read and only its size is given. One that grows past
/// `max` while it is read is cut off there and given as too large.
pub(crate) fn read_capped(path: &Path, max: u64) -> std::io::Result<Content> {
    let file = open_regular(path)?;
    let len = file.metadata()?.len();
    if len > max {
        return Ok(Content::TooLarge(len));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(match bytes.len() as u64 {
        n if n > max => Content::TooLarge(n),
        _ => Content::Bytes(bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_regular_files_under_the_cap_and_refuses_the_rest_unread() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.md");
        std::fs::write(&path, b"abcd").expect("write");
        assert_eq!(
            read_capped(&path, 4).expect("read"),
            Content::Bytes(b"abcd".to_vec())
        );
        assert_eq!(read_capped(&path, 3).expect("read"), Content::TooLarge(4));
        let e = read_capped(dir.path(), 4).expect_err("a directory");
        assert!(crate::io::regular::is_not_regular(&e), "{e}");
        assert_eq!(e.to_string(), "not a regular file (a directory)");
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let c = std::ffi::CString::new(fifo.to_str().expect("utf-8")).expect("c");
            // SAFETY: a valid C string.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            let e = read_capped(&fifo, 4).expect_err("a FIFO is never waited on");
            assert_eq!(e.to_string(), "not a regular file (a FIFO)");
        }
        assert!(read_capped(&dir.path().join("missing"), 4).is_err());
    }
}
