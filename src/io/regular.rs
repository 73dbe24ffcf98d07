//! Files that are not regular (a FIFO, a socket, a device, a directory):
//! what memlint calls them and the error it gives for one where a regular
//! file was wanted. A leaf: every reader and writer of `io` uses it.

/// What kind of file `meta` describes, for messages about a file that is
/// not a regular one ("a FIFO", "a directory").
pub(crate) fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// The error for a path that holds `kind` (see [`kind_of`]) where a regular
/// file was wanted: "not a regular file (a FIFO)".
pub(crate) fn not_regular(kind: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        NotRegular(format!("not a regular file ({kind})")),
    )
}

/// Whether `e` says the path was not a regular file ([`not_regular`]).
pub(crate) fn is_not_regular(e: &std::io::Error) -> bool {
    e.get_ref().is_some_and(|e| e.is::<NotRegular>())
}

#[derive(Debug)]
struct NotRegular(String);

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotRegular {}
