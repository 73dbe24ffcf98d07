//! What the steps of `init` share: files created only where nothing is,
//! never through a link out of the root, errors that name the file, and
//! the [`Report`] each step adds its lines to.

use crate::engine::workspace::WorkspaceError;
use std::path::Path;

pub(crate) fn io(path: &Path) -> impl Fn(std::io::Error) -> WorkspaceError + '_ {
    move |source| WorkspaceError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The error of a failed write (`action`: "write", "create the directory").
pub(crate) fn write_err<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl Fn(std::io::Error) -> WorkspaceError + 'a {
    move |source| WorkspaceError::Write {
        action,
        path: path.display().to_string(),
        source,
    }
}

/// Reads the file `init` merges into (`.gitignore`, the agent settings):
/// `None` when it is absent; an error when it is anything but a regular
/// file, which would hold `init` up (a FIFO) or cannot be merged into.
pub(crate) fn read_existing(path: &Path) -> Result<Option<Vec<u8>>, WorkspaceError> {
    match crate::io::fs::read_regular(path, crate::io::fs::SMALL_FILE_MAX) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path)(e)),
    }
}

/// The error of [`crate::io::fs::update`] on `path`.
pub(crate) fn update_err(
    path: &Path,
) -> impl Fn(&'static str, std::io::Error) -> WorkspaceError + '_ {
    move |action, source| {
        let path = path.display().to_string();
        match action {
            "read" => WorkspaceError::Io { path, source },
            _ => WorkspaceError::Write {
                action: "write",
                path,
                source,
            },
        }
    }
}

/// Creates `path` holding `bytes` unless something is there already (also
/// when it appeared since it was looked at): false then.
pub(crate) fn create(path: &Path, bytes: &[u8]) -> Result<bool, WorkspaceError> {
    match crate::io::fs::write_new(path, bytes) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(write_err("write", path)(e)),
    }
}

/// Refuses to write `path` through a symbolic link that leads out of
/// `root` (docs/configuration.md): a cloned repository could point `.gitignore` or
/// `.githooks` anywhere.
pub(crate) fn inside(root: &Path, path: &Path) -> Result<(), WorkspaceError> {
    match crate::io::fs::path_stays_inside(root, path) {
        true => Ok(()),
        false => Err(WorkspaceError::Usage(format!(
            "{} leads out of {} through a symbolic link; memlint never writes there",
            path.strip_prefix(root).unwrap_or(path).display(),
            root.display()
        ))),
    }
}

/// What `init` did, line by line, for the front end to print on standard
/// output. The steps add to it as they go, so that what was done before a
/// step failed is still told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Report {
    /// One line each (without the line feed).
    pub lines: Vec<String>,
}

impl Report {
    pub(crate) fn say(&mut self, line: String) {
        self.lines.push(line);
    }
}
