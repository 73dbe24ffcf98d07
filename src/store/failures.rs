//! The consecutive post-write failures of each file, per agent session
//! (docs/agent-hooks.md), in `.memlint/post-write-failures.json`:
//!
//! ```json
//! {"sessions": {"<session_id>": {"touched": 1764860000, "files": {"<path>": 2}}}}
//! ```
//!
//! A session's count is its own: a new session's first bad write is its
//! first attempt, and `hook session-start` clears the counts of the session
//! it starts (a resume or a compaction starts afresh too). Without a session
//! id, hooks share one key (`""`). Every change is a read-modify-write under
//! an exclusive `flock` on `.memlint/post-write-failures.lock`, so parallel
//! hooks never lose one. Each write also drops the files that no longer
//! exist and the sessions untouched for [`SESSION_TTL_SECS`], and keeps at
//! most [`MAX_SESSIONS`], so the file stays small.

use crate::model::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The counts file, under `.memlint/`.
pub(crate) const FILE: &str = "post-write-failures.json";

/// The lock file beside [`FILE`].
const LOCK_FILE: &str = "post-write-failures.lock";

/// A session not heard of for this long is forgotten.
pub(crate) const SESSION_TTL_SECS: i64 = 7 * 24 * 3600;

/// Most sessions kept; the least recently touched go first.
pub(crate) const MAX_SESSIONS: usize = 64;

#[derive(Debug, Default, Serialize, Deserialize)]
struct Counts {
    #[serde(default)]
    sessions: BTreeMap<String, Session>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Session {
    /// Seconds since the epoch of the last change.
    #[serde(default)]
    touched: i64,
    #[serde(default)]
    files: BTreeMap<String, u32>,
}

/// Counts one more failure of `rel` in `session` and returns the count,
/// forgetting it at `max`. `None` when `.memlint/` cannot be written
/// (nothing is counted then).
pub(crate) fn bump(ws: &Workspace, session: &str, rel: &str, max: u32, now: i64) -> Option<u32> {
    update(ws, now, |counts| {
        let s = counts.sessions.entry(session.to_string()).or_default();
        s.touched = now;
        let n = s.files.get(rel).copied().unwrap_or(0).saturating_add(1);
        if n >= max {
            s.files.remove(rel);
        } else {
            s.files.insert(rel.to_string(), n);
        }
        Some(n)
    })
    .flatten()
}

/// Forgets the failures of `rel` in `session` (a clean lint).
pub(crate) fn reset(ws: &Workspace, session: &str, rel: &str, now: i64) {
    let root = &ws.root;
    // Without a count there is nothing to lock for.
    let counted = read(&root.join(crate::io::cache::DIR).join(FILE))
        .sessions
        .get(session)
        .is_some_and(|s| s.files.contains_key(rel));
    if counted {
        update(ws, now, |counts| {
            let s = counts.sessions.get_mut(session)?;
            s.files.remove(rel)?;
            s.touched = now;
            Some(())
        });
    }
}

/// Forgets every count of `session` (it starts, resumes or was compacted).
pub(crate) fn start_session(ws: &Workspace, session: &str, now: i64) {
    let path = ws.root.join(crate::io::cache::DIR).join(FILE);
    if read(&path).sessions.contains_key(session) {
        update(ws, now, |counts| {
            counts.sessions.remove(session).map(|_| ())
        });
    }
}

/// Runs `change` on the counts under the lock and writes them (pruned)
/// when it returns `Some`. `None` when the lock or the file cannot be
/// written.
fn update<R>(
    ws: &Workspace,
    now: i64,
    change: impl FnOnce(&mut Counts) -> Option<R>,
) -> Option<Option<R>> {
    let dir = crate::io::cache::make_dir(&ws.root).ok()?;
    let _lock = crate::io::lock::lock_file(&dir.join(LOCK_FILE)).ok()?;
    let path = dir.join(FILE);
    let mut counts = read(&path);
    let Some(out) = change(&mut counts) else {
        return Some(None);
    };
    prune(&mut counts, &ws.root, now);
    let text = serde_json::to_string_pretty(&counts).ok()?;
    crate::io::fs::write_cache(&path, text.as_bytes()).ok()?;
    Some(Some(out))
}

/// Drops files that are gone, empty sessions, sessions untouched for
/// [`SESSION_TTL_SECS`], and the oldest beyond [`MAX_SESSIONS`].
fn prune(counts: &mut Counts, root: &Path, now: i64) {
    for s in counts.sessions.values_mut() {
        s.files
            .retain(|rel, _| crate::io::files::symlink_metadata(root.join(rel)).is_ok());
    }
    counts
        .sessions
        .retain(|_, s| !s.files.is_empty() && now - s.touched < SESSION_TTL_SECS);
    if counts.sessions.len() > MAX_SESSIONS {
        let mut touched: Vec<i64> = counts.sessions.values().map(|s| s.touched).collect();
        touched.sort_unstable_by(|a, b| b.cmp(a));
        let oldest_kept = touched[MAX_SESSIONS - 1];
        counts.sessions.retain(|_, s| s.touched >= oldest_kept);
    }
}

/// The counts at `path`; empty when absent or unreadable (the format of an
/// older memlint, a path → count map, counts nothing).
fn read(path: &Path) -> Counts {
    crate::io::fs::read_regular(path, crate::io::fs::CACHE_FILE_MAX)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_per_session_and_pruned() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let ws = Workspace::new(root.to_path_buf(), Default::default());
        std::fs::write(root.join("a.md"), "x").expect("write");
        std::fs::write(root.join("b.md"), "x").expect("write");
        assert_eq!(bump(&ws, "s1", "a.md", 3, 100), Some(1));
        assert_eq!(bump(&ws, "s1", "a.md", 3, 101), Some(2));
        assert_eq!(bump(&ws, "s2", "a.md", 3, 102), Some(1));
        // At the limit the count is forgotten.
        assert_eq!(bump(&ws, "s1", "a.md", 3, 103), Some(3));
        assert_eq!(bump(&ws, "s1", "a.md", 3, 104), Some(1));
        start_session(&ws, "s1", 105);
        assert_eq!(bump(&ws, "s1", "a.md", 3, 106), Some(1));
        reset(&ws, "s2", "a.md", 107);
        assert_eq!(bump(&ws, "s2", "a.md", 3, 108), Some(1));
        // A gone file and an old session are dropped at the next write.
        bump(&ws, "s3", "b.md", 3, 109);
        std::fs::remove_file(root.join("b.md")).expect("rm");
        bump(&ws, "s4", "a.md", 3, 109 + SESSION_TTL_SECS);
        let text = std::fs::read_to_string(root.join(".memlint").join(FILE)).expect("read");
        let counts: Counts = serde_json::from_str(&text).expect("json");
        assert_eq!(counts.sessions.keys().collect::<Vec<_>>(), ["s4"]);
    }
}
