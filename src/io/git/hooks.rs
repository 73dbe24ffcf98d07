//! The repository's hooks path (`core.hooksPath`), read and set.

use crate::io::git::repo::Repo;
use crate::io::git::types::*;
use gix::bstr::ByteSlice;

/// What `set_hooks_path` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HooksPath {
    /// It already was the wanted directory.
    Unchanged,
    /// It was set (or replaced with `force`).
    Set,
}

/// The repository's own `core.hooksPath`, if set.
pub(crate) fn hooks_path(repo: &Repo) -> Result<Option<String>, GitError> {
    let path = repo.repo.common_dir().join("config");
    let file = gix::config::File::from_path_no_includes(path, gix::config::Source::Local)
        .map_err(read_err)?;
    Ok(file
        .raw_value("core.hooksPath")
        .ok()
        .map(|v| v.to_str_lossy().into_owned()))
}

/// Sets `core.hooksPath` to `dir` in the repository's own configuration
/// file, through gix. A different value is kept unless `force`.
pub(crate) fn set_hooks_path(repo: &Repo, dir: &str, force: bool) -> Result<HooksPath, GitError> {
    let written = edit_local_config(repo, |file| {
        if let Ok(current) = file.raw_value("core.hooksPath") {
            if current.as_bytes() == dir.as_bytes() {
                return Ok(false);
            }
            if !force {
                return Err(GitError::Read(format!(
                    "core.hooksPath was set to `{}` meanwhile, by another program; it is left as it is, not pointed at {dir}",
                    current.to_str_lossy()
                )));
            }
        }
        file.set_raw_value("core.hooksPath", dir)
            .map_err(read_err)?;
        Ok(true)
    })?;
    Ok(match written {
        true => HooksPath::Set,
        false => HooksPath::Unchanged,
    })
}

/// Sets each `(key, value)` in the repository's own configuration file,
/// through gix; `true` when anything changed.
pub(crate) fn set_config(repo: &Repo, values: &[(&str, &str)]) -> Result<bool, GitError> {
    edit_local_config(repo, |file| {
        let mut changed = false;
        for (key, value) in values {
            if file
                .raw_value(*key)
                .is_ok_and(|v| v.as_bytes() == value.as_bytes())
            {
                continue;
            }
            file.set_raw_value(*key, *value).map_err(read_err)?;
            changed = true;
        }
        Ok(changed)
    })
}

/// Edits the repository's own configuration file with `edit` (which says
/// whether it changed anything). The file is rewritten only while it
/// still holds what was read (a `git config` run meanwhile is read again,
/// never overwritten).
fn edit_local_config(
    repo: &Repo,
    edit: impl Fn(&mut gix::config::File) -> Result<bool, GitError>,
) -> Result<bool, GitError> {
    let path = repo.repo.common_dir().join("config");
    crate::io::fs::update(
        &path,
        |bytes| {
            let bytes =
                bytes.ok_or_else(|| GitError::Read(format!("{}: no such file", path.display())))?;
            let meta = gix::config::file::Metadata::from(gix::config::Source::Local).at(&path);
            let mut file =
                gix::config::File::from_bytes_no_includes(bytes, meta, Default::default())
                    .map_err(read_err)?;
            if !edit(&mut file)? {
                return Ok(None);
            }
            let mut out = Vec::new();
            file.write_to(&mut out).map_err(read_err)?;
            Ok(Some(out))
        },
        |action, e| {
            let message = format!("cannot {action} {}: {e}", path.display());
            match action {
                "write" => GitError::Write(message),
                _ => GitError::Read(message),
            }
        },
    )
}
