//! `.memlint/`, the directory of memlint's caches, as every layer that
//! keeps something there (the store, the watcher) needs it: its name, its
//! creation, the cache format version and the key that ties a cache to the
//! configuration, the memlint version and the running executable.

use crate::io::stat::Stat;
use crate::model::config::Config;
use crate::model::workspace::Problem;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// The directory of the index and caches, under the workspace root.
pub(crate) const DIR: &str = ".memlint";

/// The on-disk format version; an index of another version is rebuilt.
pub(crate) const FORMAT: u32 = 9;

/// The key the stored diagnostics depend on: the format, memlint's version,
/// the running executable (a rebuilt binary may lint differently under the
/// same version) and the effective configuration.
pub fn key(config: &Config) -> u64 {
    let mut h = Xxh3::new();
    h.update(&FORMAT.to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    if let Some(meta) = std::env::current_exe()
        .ok()
        .and_then(|exe| std::fs::metadata(exe).ok())
    {
        let stat = Stat::of(&meta);
        h.update(&stat.size.to_le_bytes());
        h.update(&stat.mtime.to_le_bytes());
    }
    h.update(format!("{config:?}").as_bytes());
    h.digest()
}

/// Why `.memlint` cannot hold the caches, as the error [`make_dir`] gives.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// The problem an error of [`make_dir`] stands for when `.memlint` cannot
/// hold the caches ([`Problem::Cache`]): the command runs without them,
/// and the caller that met it returns it for the front end to tell its
/// user. `None` for any other error (a cache that could not be written
/// is simply computed again).
pub(crate) fn refusal(e: &std::io::Error) -> Option<Problem> {
    let refused = e.get_ref()?.downcast_ref::<Refused>()?;
    Some(Problem::Cache {
        reason: refused.0.clone(),
    })
}

/// Why `.memlint` under `root` cannot hold the caches, when it cannot
/// ([`make_dir`] would refuse it), as the problem to report.
pub(crate) fn refused(root: &Path) -> Option<Problem> {
    let m = std::fs::symlink_metadata(root.join(DIR)).ok()?;
    (!m.is_dir())
        .then(|| refused_as(&m))
        .and_then(|e| refusal(&e))
}

/// The error [`make_dir`] gives for a `.memlint` that is `m`, not a
/// directory.
fn refused_as(m: &std::fs::Metadata) -> std::io::Error {
    let what = match m.file_type().is_symlink() {
        true => "a symbolic link",
        false => "not a directory",
    };
    std::io::Error::other(Refused(format!("{DIR} is {what}")))
}

/// Creates `.memlint/` (with a `.gitignore` that keeps it out of commits)
/// when it is missing.
///
/// A `.memlint` that is a symbolic link is never written through: it
/// could lead out of the root, or to `.git` (whose `index` the cache's
/// would replace). Commands then run without their cache; the error says
/// why ([`refusal`] makes it the problem to report). A cache that cannot
/// be saved is simply computed again, so its saver drops the error: the
/// listing of the workspace, which every command that reads the records
/// makes before anything else, returns the refusal for the front end
/// (`store::listing::Listing::problems`).
pub(crate) fn make_dir(root: &Path) -> std::io::Result<PathBuf> {
    let dir = root.join(DIR);
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(m) => return Err(refused_as(&m)),
        Err(_) => {
            std::fs::create_dir_all(&dir)?;
            // Best effort: the directory is a cache even where `init` never ran.
            let _ = std::fs::write(dir.join(".gitignore"), "*\n");
        }
    }
    Ok(dir)
}
