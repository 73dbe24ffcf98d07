//! Turns: an exclusive `flock` on a directory, which memlint processes and
//! threads take so that some work of theirs never overlaps. A file's
//! directory while the file is compared and replaced
//! ([`crate::io::fs::replace_if_unchanged`]); the workspace root while a
//! replacement reads the records and rewrites them (`memlint replace`,
//! `new --replaces`). A turn needs no file of its own, so nothing is left
//! behind, and the kernel releases it when its holder exits or is killed:
//! no lock is ever stale. A process must not take the turn of a directory
//! it already holds (a second `flock` of it waits for the first).

use std::path::Path;

/// A held turn; dropping it ends the turn.
#[derive(Debug)]
pub(crate) struct Turn {
    _held: Option<std::fs::File>,
}

impl Turn {
    /// Waits for and takes the turn of `dir`. Best effort: where the
    /// directory cannot be locked (other systems, some network file
    /// systems) the turn is not exclusive.
    pub(crate) fn take(dir: &Path) -> Turn {
        #[cfg(unix)]
        if let Ok(file) = std::fs::File::open(dir) {
            loop {
                match file.lock() {
                    Ok(()) => return Turn { _held: Some(file) },
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
        }
        #[cfg(not(unix))]
        let _ = dir;
        Turn { _held: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time() {
        let dir = tempfile::tempdir().expect("tempdir");
        let held = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (dir, held) = (dir.path().to_path_buf(), held.clone());
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let _turn = Turn::take(&dir);
                        let now = held.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        assert_eq!(now, 0, "two holders at once");
                        std::thread::yield_now();
                        held.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
    }
}
