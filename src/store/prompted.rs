//! The records the prompt hook has already put before the agent, per agent
//! session, in `.memlint/prompt-sessions.json`:
//!
//! ```json
//! {"sessions": {"<session_id>": {"touched": 1764860000, "records": ["knowledge/x.md"]}}}
//! ```
//!
//! `hook session-start` starts a session's list afresh (with the records
//! its own context already shows); each prompt adds what it injected.
//! Every change is a read-modify-write under an exclusive `flock` on
//! `.memlint/prompt-sessions.lock`, so that prompts hooked in parallel in
//! one session never inject a record twice. Each write drops the sessions
//! untouched for [`SESSION_TTL_SECS`] and keeps at most [`MAX_SESSIONS`]
//! sessions of at most [`MAX_RECORDS`] records, so the file stays small.

use crate::model::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The state file, under `.memlint/`.
pub(crate) const FILE: &str = "prompt-sessions.json";

/// The lock file beside [`FILE`].
const LOCK_FILE: &str = "prompt-sessions.lock";

/// A session not heard of for this long is forgotten.
pub(crate) const SESSION_TTL_SECS: i64 = 7 * 24 * 3600;

/// Most sessions kept; the least recently touched go first.
pub(crate) const MAX_SESSIONS: usize = 64;

/// Most records remembered for one session (the oldest entries are not
/// told apart: past this many, the list starts again).
pub(crate) const MAX_RECORDS: usize = 20_000;

/// Largest state file read, in bytes; a larger one counts as empty.
const MAX_FILE_BYTES: u64 = 16 << 20;

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    #[serde(default)]
    sessions: BTreeMap<String, Session>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Session {
    /// Seconds since the epoch of the last change.
    #[serde(default)]
    touched: i64,
    #[serde(default)]
    records: BTreeSet<String>,
}

/// The key of a resident knowledge record shown by the session-start
/// context (which names records by slug); other records are kept by path.
pub(crate) fn resident_key(slug: &str) -> String {
    format!("knowledge:{slug}")
}

/// Starts `session` afresh with `shown` as already injected (what the
/// session-start context shows). `false` when `.memlint/` cannot be
/// written.
pub(crate) fn start_session(
    ws: &Workspace,
    session: &str,
    shown: BTreeSet<String>,
    now: i64,
) -> bool {
    update(ws, now, |state| {
        state.sessions.insert(
            session.to_string(),
            Session {
                touched: now,
                records: shown,
            },
        );
        Some(())
    })
    .is_ok()
}

/// The records already injected in `session`, read without the lock (for
/// a draft that [`claim`] then checks under it).
pub(crate) fn peek(ws: &Workspace, session: &str) -> BTreeSet<String> {
    // As `update` finds it: never through a link.
    if crate::io::cache::refused(&ws.root).is_some() {
        return BTreeSet::new();
    }
    read(&ws.root.join(crate::io::cache::DIR).join(FILE))
        .sessions
        .remove(session)
        .map(|s| s.records)
        .unwrap_or_default()
}

/// Runs `pick` on the records already injected in `session`, under the
/// lock; what it returns is added to them and written. When the lock or
/// the file cannot be had (`pick` is not run then, or what it added is not
/// kept), why: `.memlint is a symbolic link`, or the file and what went
/// wrong with it.
pub(crate) fn claim<R>(
    ws: &Workspace,
    session: &str,
    now: i64,
    pick: impl FnOnce(&BTreeSet<String>) -> (Vec<String>, R),
) -> Result<R, String> {
    update(ws, now, |state| {
        let s = state.sessions.entry(session.to_string()).or_default();
        let (new, out) = pick(&s.records);
        if s.records.len() + new.len() > MAX_RECORDS {
            s.records.clear();
        }
        s.records.extend(new);
        s.touched = now;
        Some(out)
    })?
    .ok_or_else(String::new)
}

/// Runs `change` on the state under the lock and writes it (pruned) when it
/// returns `Some`. When the lock or the file cannot be written, why (see
/// [`claim`]).
fn update<R>(
    ws: &Workspace,
    now: i64,
    change: impl FnOnce(&mut State) -> Option<R>,
) -> Result<Option<R>, String> {
    use crate::io::cache::DIR;
    let dir = crate::io::cache::make_dir(&ws.root).map_err(|e| e.to_string())?;
    let _lock = crate::io::lock::lock_file(&dir.join(LOCK_FILE))
        .map_err(|e| format!("{DIR}/{LOCK_FILE}: {e}"))?;
    let path = dir.join(FILE);
    let mut state = read(&path);
    let Some(out) = change(&mut state) else {
        return Ok(None);
    };
    prune(&mut state, now);
    let text = serde_json::to_string(&state).map_err(|e| e.to_string())?;
    crate::io::fs::write_cache(&path, text.as_bytes()).map_err(|e| format!("{DIR}/{FILE}: {e}"))?;
    Ok(Some(out))
}

/// Drops sessions untouched for [`SESSION_TTL_SECS`] and the oldest beyond
/// [`MAX_SESSIONS`].
fn prune(state: &mut State, now: i64) {
    state
        .sessions
        .retain(|_, s| now - s.touched < SESSION_TTL_SECS);
    if state.sessions.len() > MAX_SESSIONS {
        let mut touched: Vec<i64> = state.sessions.values().map(|s| s.touched).collect();
        touched.sort_unstable_by(|a, b| b.cmp(a));
        let oldest_kept = touched[MAX_SESSIONS - 1];
        state.sessions.retain(|_, s| s.touched >= oldest_kept);
    }
}

/// The state at `path`; empty when absent, too large or unreadable.
fn read(path: &Path) -> State {
    crate::io::fs::read_regular(path, MAX_FILE_BYTES)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_claimed_once_per_session() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let ws = Workspace::new(root.to_path_buf(), Default::default());
        let shown: BTreeSet<String> = ["knowledge:a".to_string()].into();
        assert!(start_session(&ws, "s1", shown, 100));
        let pick = |seen: &BTreeSet<String>| {
            let new: Vec<String> = ["knowledge:a", "b.md"]
                .iter()
                .filter(|k| !seen.contains(**k))
                .map(|k| k.to_string())
                .collect();
            (new.clone(), new)
        };
        assert_eq!(claim(&ws, "s1", 101, pick), Ok(vec!["b.md".to_string()]));
        assert_eq!(claim(&ws, "s1", 102, pick), Ok(vec![]));
        assert_eq!(claim(&ws, "s2", 103, pick).map(|v| v.len()), Ok(2));
        assert!(start_session(&ws, "s1", BTreeSet::new(), 104));
        assert_eq!(claim(&ws, "s1", 105, pick).map(|v| v.len()), Ok(2));
    }
}
