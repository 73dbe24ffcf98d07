//! Creating many new files at once (an import): each written to a
//! temporary file in its directory and hard-linked into place, so it
//! appears complete or not at all and never replaces a file, as
//! [`crate::io::fs::write_new`] does; but the file system is flushed once
//! at the end instead of once per file, which for thousands of files is
//! the difference between seconds and a blink.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Creates each `(path, bytes)` (parent directories included, each made
/// once), in parallel; then flushes the file system holding `root` once. One result
/// per file, in order: [`std::io::ErrorKind::AlreadyExists`] when the path
/// exists.
pub(crate) fn write_new_all(root: &Path, files: &[(PathBuf, Vec<u8>)]) -> Vec<std::io::Result<()>> {
    use rayon::prelude::*;
    // Each directory made once (not once per file), before the files.
    let mut dirs: Vec<&Path> = files
        .iter()
        .map(|(path, _)| path.parent().unwrap_or(Path::new(".")))
        .collect();
    dirs.sort_unstable();
    dirs.dedup();
    let made: std::collections::HashSet<&Path> = dirs
        .into_iter()
        .filter(|d| std::fs::create_dir_all(d).is_ok())
        .collect();
    let pid = std::process::id();
    let results: Vec<std::io::Result<()>> = files
        .par_iter()
        .map(|(path, bytes)| {
            let dir = path.parent().unwrap_or(Path::new("."));
            if !made.contains(dir) {
                // Tried again for the error to report.
                std::fs::create_dir_all(dir)?;
            }
            create(path, bytes, pid)
        })
        .collect();
    flush(root, files);
    results
}

fn create(path: &Path, bytes: &[u8], pid: u32) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    // The name `live_temporary` knows: another run's walk skips it.
    let tmp = dir.join(format!(".{name}.memlint-{pid}-b{n:x}.tmp"));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
        Err(_) if !path.exists() => std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .and_then(|mut f| f.write_all(bytes)),
        Err(e) => Err(e),
    }
}

/// One flush of the file system holding `root` (`syncfs`); where there is
/// none, each file is synced.
fn flush(root: &Path, files: &[(PathBuf, Vec<u8>)]) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(dir) = std::fs::File::open(root) {
            // SAFETY: syncfs takes a valid open descriptor and nothing else.
            if unsafe { libc::syncfs(dir.as_raw_fd()) } == 0 {
                return;
            }
        }
    }
    let _ = root;
    for (path, _) in files {
        if let Ok(f) = std::fs::File::open(path) {
            let _ = f.sync_all();
        }
    }
}
