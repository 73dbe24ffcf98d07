//! memlint's temporary files (`.<name>.memlint-<pid>-…tmp`, written by
//! `io::fs` before a rename, and a staging claim's
//! `.consolidation.lock.tmp.<pid>.…`): whose writer still runs, and the
//! removal of those whose writer is gone.

use std::path::Path;

/// Whether `name` is a temporary file of a memlint process that runs on
/// this host now: one of `tempfile_in`'s (`.<name>.memlint-<pid>-…tmp`)
/// or a staging claim's (`.consolidation.lock.tmp.<pid>.…`). Such a file is
/// another run's write in progress, not a file of the workspace. A file
/// whose writer is gone (killed mid-write) is not live; nor is one written
/// on another host or in another pid namespace, which cannot be told apart.
#[cfg(test)] // only the unit tests call it
pub(crate) fn live_temporary(name: &std::ffi::OsStr) -> bool {
    temporary_writer(name).is_some_and(|pid| pid_alive(pid) == Some(true))
}

/// Whether the file a directory listing showed at `path` is a memlint
/// temporary file that is still being written or is already gone: its
/// writer runs ([`live_temporary`]), or it finished and removed the file
/// after the directory was read (the file is looked at again after the
/// writer, so that one finishing in between is not taken for one killed).
pub(crate) fn temporary_in_progress(path: &Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    temporary_writer(name)
        .is_some_and(|pid| pid_alive(pid) == Some(true) || std::fs::symlink_metadata(path).is_err())
}

/// The pid in the name of a memlint temporary file.
fn temporary_writer(name: &std::ffi::OsStr) -> Option<u32> {
    if name.as_encoded_bytes().first() != Some(&b'.') {
        return None;
    }
    let name = name.to_str()?;
    let pid = if let Some(rest) = name.strip_prefix(".consolidation.lock.tmp.") {
        rest.split('.').next()
    } else if let Some(inner) = name.strip_suffix(".tmp") {
        inner
            .rsplit_once(".memlint-")
            .and_then(|(_, rest)| rest.split('-').next())
    } else {
        None
    };
    pid.and_then(|p| p.parse::<u32>().ok())
}

/// Whether process `pid` exists on this host; `None` where that cannot be
/// told.
pub(crate) fn pid_alive(pid: u32) -> Option<bool> {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return Some(false);
        };
        if pid <= 0 {
            return Some(false);
        }
        // SAFETY: signal 0 sends nothing; kill only checks that the process
        // exists and may be signalled.
        let r = unsafe { libc::kill(pid, 0) };
        // EPERM: it exists but belongs to another user.
        Some(r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM))
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        None
    }
}

/// Removes the memlint temporary files in `dir` (a cache directory, small)
/// whose writer is gone (see `io::fs`'s temporary files); best effort,
/// and once per process (a run writes several caches).
pub(crate) fn sweep(dir: &Path) {
    static SWEPT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    if SWEPT.set(()).is_err() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let dead =
            temporary_writer(&entry.file_name()).is_some_and(|pid| pid_alive(pid) == Some(false));
        if dead {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_temporaries_of_live_processes_are_live() {
        let me = std::process::id();
        let live = |n: String| live_temporary(std::ffi::OsStr::new(&n));
        assert!(live(format!(".use-gix.md.memlint-{me}-3f2a-0.tmp")));
        assert!(live(format!(".a.md.memlint-x.md.memlint-{me}-3f2a-0.tmp")));
        assert!(live(format!(".consolidation.lock.tmp.{me}.3f2a.0")));
        let gone = i32::MAX as u32;
        assert!(!live(format!(".use-gix.md.memlint-{gone}-3f2a-0.tmp")));
        assert!(!live(format!(".consolidation.lock.tmp.{gone}.3f2a.0")));
        assert!(!live(format!("use-gix.md.memlint-{me}-3f2a-0.tmp")));
        assert!(!live(format!(".use-gix.md.memlint-{me}-3f2a-0.md")));
        assert!(!live(".memlint-x.tmp".into()));
        // A dead writer's file is a leftover while it is there; one that
        // is gone was removed by its writer after the listing.
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(format!(".r.md.memlint-{gone}-3f2a-0.tmp"));
        assert!(temporary_in_progress(&path));
        std::fs::write(&path, "x").expect("write");
        assert!(!temporary_in_progress(&path));
        assert!(!temporary_in_progress(&dir.path().join("r.md")));
    }
}
