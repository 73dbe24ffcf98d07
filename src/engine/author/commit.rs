//! Writing the files of one authoring command so that no state in between
//! is broken: new files are created first (never over an existing one),
//! then changed files are replaced in the order given, each only while it
//! still holds what was read. When another program changed one of them
//! meanwhile, what was already written is put back and the command fails.

use super::AuthorError;
use crate::io::fs::{replace_if_unchanged, write_new, Replaced, Snapshot};
use std::path::Path;

/// One file to write.
pub(crate) enum Write {
    /// Create `path`; it must not exist.
    Create { path: String, text: String },
    /// Replace `path`, which held `seen` when it was read.
    Replace {
        path: String,
        seen: Snapshot,
        text: String,
    },
}

/// Reads the record at root-relative `path` that a command is about to
/// replace: what it holds now (`seen` of a [`Write::Replace`]) and its
/// text. A file over `max_file_bytes` or one that cannot be read is an
/// [`AuthorError::Read`] naming it (and the setting); one that is not UTF-8,
/// [`AuthorError::Unreadable`].
pub(crate) fn read_to_replace(
    ws: &crate::model::workspace::Workspace,
    path: &str,
) -> Result<(Snapshot, String), AuthorError> {
    let max = ws.config.max_file_bytes;
    let seen = Snapshot::read(&ws.root.join(path), max).map_err(|e| AuthorError::Read {
        path: path.to_string(),
        source: crate::io::fs::name_bound(e, max, "max_file_bytes"),
    })?;
    let text = std::str::from_utf8(&seen.bytes)
        .map_err(|_| AuthorError::Unreadable {
            path: path.to_string(),
        })?
        .to_string();
    Ok((seen, text))
}

impl Write {
    fn path(&self) -> &str {
        match self {
            Write::Create { path, .. } | Write::Replace { path, .. } => path,
        }
    }
}

/// Writes `writes` (root-relative paths) in order: creations first.
pub(crate) fn commit(root: &Path, writes: Vec<Write>) -> Result<(), AuthorError> {
    let (creates, replaces): (Vec<Write>, Vec<Write>) = writes
        .into_iter()
        .partition(|w| matches!(w, Write::Create { .. }));
    // Before anything is written: a file changed since it was read fails
    // the command while nothing needs putting back.
    for w in &replaces {
        if let Write::Replace { path, seen, .. } = w {
            let now = match Snapshot::read(&root.join(path), seen.bytes.len() as u64) {
                Err(e) if e.kind() == std::io::ErrorKind::FileTooLarge => {
                    return Err(AuthorError::Changed(path.clone()))
                }
                now => now.map_err(|source| AuthorError::Write {
                    path: path.clone(),
                    source,
                })?,
            };
            if now.bytes != seen.bytes {
                return Err(AuthorError::Changed(path.clone()));
            }
        }
    }
    let mut done: Vec<&Write> = Vec::new();
    for w in creates.iter().chain(&replaces) {
        if let Err(e) = write_one(root, w) {
            undo(root, &done);
            return Err(e);
        }
        done.push(w);
    }
    Ok(())
}

fn write_one(root: &Path, w: &Write) -> Result<(), AuthorError> {
    // Nothing is written outside the root (docs/guarantees.md): not through a kind
    // directory that is a symbolic link out of it, not by creating
    // directories out there.
    if let crate::io::fs::Resolved::Escapes(link) =
        crate::io::fs::resolve_inside(root, Path::new(w.path()))
    {
        return Err(AuthorError::Usage(format!(
            "{link} leads out of the workspace root through a symbolic link; memlint never writes there"
        )));
    }
    let full = root.join(w.path());
    let io = |source| AuthorError::Write {
        path: w.path().to_string(),
        source,
    };
    match w {
        Write::Create { path, text } => {
            if let Some(dir) = full.parent() {
                crate::io::files::create_dir_all(dir).map_err(io)?;
            }
            write_new(&full, text.as_bytes()).map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => AuthorError::Exists { path: path.clone() },
                _ => io(e),
            })
        }
        Write::Replace { path, seen, text } => {
            match replace_if_unchanged(&full, seen, text.as_bytes()).map_err(io)? {
                Replaced::Written => Ok(()),
                Replaced::Changed => Err(AuthorError::Changed(path.clone())),
            }
        }
    }
}

/// Puts back what `done` wrote, newest first: a created file is removed
/// while it still holds what was written, a replaced one gets its old
/// bytes back while it still holds the new ones.
fn undo(root: &Path, done: &[&Write]) {
    for w in done.iter().rev() {
        let full = root.join(w.path());
        let written = match w {
            Write::Create { text, .. } | Write::Replace { text, .. } => text.len() as u64,
        };
        let Ok(now) = Snapshot::read(&full, written) else {
            continue;
        };
        match w {
            Write::Create { text, .. } if now.bytes == text.as_bytes() => {
                let _ = crate::io::files::remove_file(&full);
            }
            Write::Replace { seen, text, .. } if now.bytes == text.as_bytes() => {
                let _ = replace_if_unchanged(&full, &now, &seen.bytes);
            }
            _ => {}
        }
    }
}
