//! Staging and the consolidation lock (docs/consolidation.md): `memlint staging status`,
//! `claim` and `release`.
//!
//! Phase 1 drops activity logs into `staging/`; one consolidation worker at a
//! time claims them with `staging/.consolidation.lock` and, when done, releases
//! exactly the files it consumed.
//!
//! Every function here keeps three rules, which together make the protocol
//! safe under any number of concurrent claims and under crashes:
//!
//! - A lock comes into being only by hard-linking a complete, synced temporary
//!   file into place. `link` never replaces an existing name, so among racing
//!   creators exactly one wins, and a reader sees a whole lock or none.
//! - A claim snapshots the staging ids and makes its lock, and a release
//!   deletes the consumed files and removes its lock, only while holding an
//!   exclusive `flock` on the staging directory, so a claim never lists a
//!   file a racing release is deleting. An existing lock is replaced (stale
//!   takeover) only after re-reading it under that guard and finding the
//!   very bytes that were judged. The kernel drops the guard when its holder
//!   dies.
//! - Release deletes the consumed files first and the lock last: a release cut
//!   short leaves the lock in place, and running it again finishes the job.

use crate::io::files;
use crate::model::clock;
use crate::model::config::StagingConfig;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The staging directory, relative to the workspace root.
pub(crate) const DIR: &str = "staging";

/// The lock's file name inside the staging directory.
pub(crate) const LOCK_FILE: &str = ".consolidation.lock";

/// The lock's root-relative path, as messages show it.
pub(crate) const LOCK_PATH: &str = "staging/.consolidation.lock";

/// Prefix of the temporary files a claim writes before linking one into
/// place; `<pid>.<nanos>.<n>` follows.
const TMP_PREFIX: &str = ".consolidation.lock.tmp.";

/// A temporary older than this is debris from a crash, whoever wrote it.
const TMP_MAX_AGE_SECS: u64 = 60;

/// How often a claim re-reads a lock that keeps changing under it before it
/// gives up. Each retry means another process made progress.
const MAX_ATTEMPTS: usize = 200;

/// The content of `staging/.consolidation.lock`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Lock {
    /// The consolidation worker's pod id.
    pub pod: String,
    /// The worker's process id on `host`.
    pub pid: u32,
    /// The host the worker runs on.
    pub host: String,
    /// When the claim was made, RFC 3339.
    pub started: String,
    /// The staging ids snapshotted by the claim, sorted.
    pub consumed: Vec<String>,
}

impl Lock {
    /// Who holds this lock.
    pub(crate) fn holder(&self) -> Holder {
        Holder {
            pod: self.pod.clone(),
            pid: self.pid,
            host: self.host.clone(),
            started: self.started.clone(),
        }
    }
}

/// Who held a lock: the `took_over` object of `claim`, and the subject of a
/// conflict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Holder {
    /// The holder's pod id.
    pub pod: String,
    /// The holder's process id on `host`.
    pub pid: u32,
    /// The holder's host.
    pub host: String,
    /// When the holder claimed, RFC 3339.
    pub started: String,
}

impl fmt::Display for Holder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pod `{}` (pid {} on {}, since {})",
            // Read from a lock file anyone may have written.
            crate::syntax::sanitize::line(&self.pod),
            self.pid,
            crate::syntax::sanitize::line(&self.host),
            crate::syntax::sanitize::line(&self.started)
        )
    }
}

/// The process making a claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Claimant {
    /// The worker's pod id.
    pub pod: String,
    /// The worker's process id, recorded in the lock.
    pub pid: u32,
    /// This machine's host name.
    pub host: String,
}

impl Claimant {
    /// A claimant for `pod` on this machine. The pid defaults to the parent
    /// of this process: memlint exits right after the claim, while the worker
    /// that ran it lives on and holds the lock.
    pub(crate) fn here(pod: &str, pid: Option<u32>) -> Claimant {
        Claimant {
            pod: pod.to_string(),
            pid: pid.unwrap_or_else(parent_pid),
            host: host_name(),
        }
    }
}

/// The staging backlog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Backlog {
    /// Number of staging files.
    pub files: usize,
    /// Their total size in bytes.
    pub bytes: u64,
    /// True when `max_files` or `max_bytes` is reached.
    pub due: bool,
}

/// What `staging status` reports (docs/commands.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Status {
    /// Number of staging files.
    pub files: usize,
    /// Their total size in bytes.
    pub bytes: u64,
    /// True when `max_files` or `max_bytes` is reached.
    pub due: bool,
    /// The current lock, if any.
    pub lock: Option<Lock>,
    /// Why the lock file that exists cannot be read (`lock` is then
    /// `None`: nobody can be named as its holder).
    #[serde(skip)]
    pub unreadable_lock: Option<String>,
}

/// What `staging claim` reports (docs/commands.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Claimed {
    /// The claiming pod.
    pub pod: String,
    /// The staging ids this claim consumes, sorted.
    pub consumed: Vec<String>,
    /// The stale holder this claim replaced, if any.
    pub took_over: Option<Holder>,
    /// Why the lock replaced with `--force` could not be read, if it was.
    #[serde(skip)]
    pub replaced_unreadable: Option<String>,
}

/// What `staging release` reports (docs/commands.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Released {
    /// The staging ids deleted (the claim's consumed list).
    pub released: Vec<String>,
    /// Staging files left, added after the claim.
    pub remaining: usize,
    /// True when entries remain, so the caller runs the next round.
    pub coalesce: bool,
}

impl Status {
    /// What is wrong with a lock file that cannot be read, in one sentence.
    pub(crate) fn lock_problem(&self, words: crate::engine::advice::Words) -> Option<String> {
        self.unreadable_lock.as_deref().map(|reason| {
            format!(
                "{LOCK_PATH} cannot be read ({reason}); claims fail until it is removed or replaced with{}",
                words(&crate::engine::advice::Advice::ForceClaim)
            )
        })
    }
}

/// Errors of the staging commands.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StagingError {
    /// A live worker holds the lock.
    #[error("staging is claimed by {0}")]
    Held(Holder),
    /// The lock exists but is not a lock memlint can read.
    #[error(
        "{lock} cannot be read as a consolidation lock ({reason}); it is not taken over: \
         inspect it, then remove it"
    )]
    Unreadable {
        /// Where the lock is: [`LOCK_PATH`], or the ref on a remote.
        lock: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Release by a pod that does not hold the lock.
    #[error("pod `{pod}` does not hold the consolidation lock; {holder} does")]
    NotHolder {
        /// The pod that asked.
        pod: String,
        /// The actual holder.
        holder: Holder,
    },
    /// Release while no lock exists.
    #[error("staging is not claimed: there is no {lock}")]
    NotClaimed {
        /// Where the lock would be: [`LOCK_PATH`], or the ref on a remote.
        lock: String,
    },
    /// A pod id memlint cannot record.
    #[error("invalid pod id `{0}`: it must be non-empty and free of control characters")]
    BadPod(String),
    /// `staging/` is a symbolic link out of the root.
    #[error("{DIR}/ is a symbolic link that leads out of the workspace root; memlint does not follow it")]
    Escapes,
    /// The remote holding the lock could not be read or written.
    #[error("{0}")]
    Remote(String),
    /// Git could not be read for the remote lock.
    #[error(transparent)]
    Git(crate::io::git::GitError),
    /// A file-system failure.
    #[error("{path}: {source}")]
    Io {
        /// Root-relative path of the file.
        path: String,
        /// The failure.
        #[source]
        source: io::Error,
    },
}

impl StagingError {
    /// The message, with what it names in a front end's `names` (the
    /// error's [`std::fmt::Display`] uses neutral ones).
    pub(crate) fn text(&self, names: crate::engine::advice::Names) -> String {
        use crate::engine::advice::Name;
        match self {
            StagingError::Git(e) => e.text(&|asking| names(&Name::Git(asking))),
            other => other.to_string(),
        }
    }

    /// What the user can do next, for the front end to word.
    pub(crate) fn advice(&self) -> Option<crate::engine::advice::Advice> {
        match self {
            StagingError::Unreadable { .. } => Some(crate::engine::advice::Advice::OrClaimForced),
            _ => None,
        }
    }

    /// True for conflicts over the lock, which exit 3; the others exit 2.
    pub(crate) fn is_conflict(&self) -> bool {
        matches!(
            self,
            StagingError::Held(_)
                | StagingError::Unreadable { .. }
                | StagingError::NotHolder { .. }
                | StagingError::NotClaimed { .. }
        )
    }
}

pub(crate) fn io_err(path: &str) -> impl Fn(io::Error) -> StagingError + '_ {
    move |source| StagingError::Io {
        path: path.to_string(),
        source,
    }
}

/// The backlog: every regular `staging/<id>.md` file counts. Hidden names are
/// skipped (writers' in-progress temporaries); invalid ids still count, since
/// the `staging/id` rule reports them and the worker must consume them.
pub(crate) fn backlog(root: &Path, cfg: &StagingConfig) -> Result<Backlog, StagingError> {
    let dir = staging_dir(root)?;
    let listing = list(&dir)?;
    Ok(listing.backlog(cfg))
}

/// The backlog and the current lock. A lock that cannot be read is an error.
pub(crate) fn status(root: &Path, cfg: &StagingConfig) -> Result<Status, StagingError> {
    let dir = staging_dir(root)?;
    let b = list(&dir)?.backlog(cfg);
    // An unreadable lock does not hide the backlog: it is reported beside.
    let (lock, unreadable_lock) = match read_lock(&dir.join(LOCK_FILE))? {
        Seen::Absent => (None, None),
        Seen::Bytes(bytes) => match parse_lock(&bytes) {
            Ok(lock) => (Some(lock), None),
            Err(reason) => (None, Some(reason)),
        },
        Seen::Odd(reason) => (None, Some(reason)),
    };
    Ok(Status {
        files: b.files,
        bytes: b.bytes,
        due: b.due,
        lock,
        unreadable_lock,
    })
}

/// Claims staging for `who` at `now` (seconds since the epoch): snapshots the
/// staging ids and creates the lock. A live lock is a conflict; a stale one is
/// taken over; an unreadable one is replaced only with `force`.
pub(crate) fn claim(
    root: &Path,
    cfg: &StagingConfig,
    who: &Claimant,
    now: i64,
    force: bool,
) -> Result<Claimed, StagingError> {
    check_pod(&who.pod)?;
    let dir = staging_dir(root)?;
    files::create_dir_all(&dir).map_err(io_err(DIR))?;
    let lock_path = dir.join(LOCK_FILE);
    for _ in 0..MAX_ATTEMPTS {
        // A shortcut that spares losers the wait for the guard; what counts
        // is judged again under it.
        judge(&read_lock(&lock_path)?, who, now, cfg, force)?;
        // The snapshot and the lock are made under the guard a release
        // deletes under: a claim and a release that race cannot interleave,
        // so every id snapshotted still has its file when the lock appears.
        let guard = guard(root, &dir)?;
        let seen = read_lock(&lock_path)?;
        let takeover = judge(&seen, who, now, cfg, force)?;
        let listing = list(&dir)?;
        sweep(&dir, &listing.temporaries);
        let lock = Lock {
            pod: who.pod.clone(),
            pid: who.pid,
            host: who.host.clone(),
            started: clock::rfc3339(now),
            consumed: listing.entries.into_iter().map(|(id, _)| id).collect(),
        };
        let mut tmp = crate::io::lock::Temp::write(&dir, TMP_PREFIX, &lock_bytes(&lock))
            .map_err(io_err(LOCK_PATH))?;
        let Some(Takeover {
            holder: took_over,
            unreadable,
        }) = takeover
        else {
            // `link` never replaces a lock, even one made by a claim that
            // did not take the guard (an older memlint).
            match tmp.link_to(&lock_path) {
                Ok(()) => {
                    sync_dir(&dir);
                    return Ok(claimed(lock, None, None));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                // Our temporary was swept as debris: write it again.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_err(LOCK_PATH)(e)),
            }
            drop(guard);
            continue;
        };
        // Replace the lock we judged, and only that one: under the guard
        // only a claim without it could have changed it since.
        if read_lock(&lock_path)? != seen {
            drop(guard);
            continue;
        }
        // A lock that is an empty directory (never one with files in it)
        // gives way to the forced claim.
        let replaced = tmp.rename_to(&lock_path).or_else(|e| {
            let odd = matches!(seen, Seen::Odd(_)) && lock_path.is_dir();
            if !odd {
                return Err(io_err(LOCK_PATH)(e));
            }
            crate::io::lock::remove_empty_dir(&lock_path).map_err(|_| {
                StagingError::Unreadable {
                    lock: LOCK_PATH.to_string(),
                    reason: "a directory that is not empty; remove it by hand".into(),
                }
            })?;
            tmp.rename_to(&lock_path).map_err(io_err(LOCK_PATH))
        });
        match replaced {
            Ok(()) => {
                sync_dir(&dir);
                return Ok(claimed(lock, took_over, unreadable));
            }
            Err(StagingError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                continue
            }
            Err(e) => return Err(e),
        }
    }
    Err(StagingError::Io {
        path: LOCK_PATH.to_string(),
        source: io::Error::other(format!(
            "the lock kept changing; gave up after {MAX_ATTEMPTS} attempts"
        )),
    })
}

/// What a claim would replace.
pub(crate) struct Takeover {
    /// The stale holder.
    pub(crate) holder: Option<Holder>,
    /// Why the lock replaced with `--force` cannot be read.
    pub(crate) unreadable: Option<String>,
}

/// Judges what sits at the lock's path for a claim: `None` when nothing does,
/// a takeover when the lock is stale (or unreadable, with `force`), an error
/// when its holder is alive (or it is unreadable, without `force`).
pub(crate) fn judge(
    seen: &Seen,
    who: &Claimant,
    now: i64,
    cfg: &StagingConfig,
    force: bool,
) -> Result<Option<Takeover>, StagingError> {
    let reason = match seen {
        Seen::Absent => return Ok(None),
        Seen::Bytes(bytes) => match parse_lock(bytes) {
            Ok(old) if is_live(&old, &who.host, now, cfg) => {
                return Err(StagingError::Held(old.holder()))
            }
            Ok(old) => {
                return Ok(Some(Takeover {
                    holder: Some(old.holder()),
                    unreadable: None,
                }))
            }
            Err(reason) => reason,
        },
        Seen::Odd(reason) => reason.clone(),
    };
    if force {
        Ok(Some(Takeover {
            holder: None,
            unreadable: Some(reason),
        }))
    } else {
        Err(StagingError::Unreadable {
            lock: LOCK_PATH.to_string(),
            reason,
        })
    }
}

pub(crate) fn claimed(
    lock: Lock,
    took_over: Option<Holder>,
    unreadable: Option<String>,
) -> Claimed {
    Claimed {
        pod: lock.pod,
        consumed: lock.consumed,
        took_over,
        replaced_unreadable: unreadable,
    }
}

/// Releases the lock held by `pod`: deletes exactly the consumed staging
/// files, then the lock. Files added after the claim stay. Safe to repeat
/// after a crash: the lock goes last.
pub(crate) fn release(root: &Path, pod: &str) -> Result<Released, StagingError> {
    check_pod(pod)?;
    let dir = staging_dir(root)?;
    let lock_path = dir.join(LOCK_FILE);
    if read_lock(&lock_path)? == Seen::Absent {
        return Err(StagingError::NotClaimed {
            lock: LOCK_PATH.to_string(),
        });
    }
    let _guard = guard(root, &dir)?;
    let lock = held_by(read_lock(&lock_path)?, pod)?;
    consume(&dir, &lock.consumed)?;
    // The deletions must be durable before the lock that records them goes.
    sync_dir(&dir);
    match files::remove_file(&lock_path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_err(LOCK_PATH)(e)),
    }
    sync_dir(&dir);
    released(&dir, lock)
}

/// The lock `seen` holds, when `pod` holds it; the error says who does
/// otherwise, or why there is no lock to release.
pub(crate) fn held_by(seen: Seen, pod: &str) -> Result<Lock, StagingError> {
    let lock = match seen {
        Seen::Absent => {
            return Err(StagingError::NotClaimed {
                lock: LOCK_PATH.to_string(),
            })
        }
        Seen::Odd(reason) => {
            return Err(StagingError::Unreadable {
                lock: LOCK_PATH.to_string(),
                reason,
            })
        }
        Seen::Bytes(bytes) => parse_lock(&bytes).map_err(|reason| StagingError::Unreadable {
            lock: LOCK_PATH.to_string(),
            reason,
        })?,
    };
    if lock.pod != pod {
        return Err(StagingError::NotHolder {
            pod: pod.to_string(),
            holder: lock.holder(),
        });
    }
    Ok(lock)
}

/// What a release of `lock` reports, once its lock is gone: the entries
/// it consumed, and those left (claim temporaries of crashed claims are
/// swept on the way).
pub(crate) fn released(dir: &Path, lock: Lock) -> Result<Released, StagingError> {
    let listing = list(dir)?;
    sweep(dir, &listing.temporaries);
    let remaining = listing.entries.len();
    Ok(Released {
        released: lock.consumed,
        remaining,
        coalesce: remaining > 0,
    })
}

/// Deletes the staging files `consumed` names (those already gone are
/// skipped: an earlier release was cut short).
pub(crate) fn consume(dir: &Path, consumed: &[String]) -> Result<(), StagingError> {
    for id in consumed {
        let name = format!("{id}.md");
        match files::remove_file(dir.join(&name)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(&format!("{DIR}/{name}"))(e)),
        }
    }
    Ok(())
}

/// Parses and checks the bytes of a lock; the error says what is wrong.
pub(crate) fn parse_lock(bytes: &[u8]) -> Result<Lock, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("the file is empty".to_string());
    }
    let lock: Lock =
        serde_json::from_slice(bytes).map_err(|e| format!("not a lock JSON object: {e}"))?;
    if lock.pod.trim().is_empty() {
        return Err("`pod` is empty".to_string());
    }
    if lock.pid == 0 || lock.pid > i32::MAX as u32 {
        return Err(format!("`pid` {} is not a process id", lock.pid));
    }
    if clock::parse_rfc3339(&lock.started).is_none() {
        return Err(format!(
            "`started` `{}` is not an RFC 3339 timestamp",
            lock.started
        ));
    }
    if let Some(bad) = lock.consumed.iter().find(|id| !is_entry_id(id)) {
        return Err(format!(
            "`consumed` entry `{bad}` is not the name of a staging file"
        ));
    }
    Ok(lock)
}

/// Whether the holder of `lock` is alive, seen from host `here` at `now`: on
/// the same host its pid must run; on another host it must be younger than
/// `stale_after_secs`.
pub(crate) fn is_live(lock: &Lock, here: &str, now: i64, cfg: &StagingConfig) -> bool {
    if lock.host == here {
        if let Some(alive) = pid_alive(lock.pid) {
            return alive;
        }
    }
    let Some(started) = clock::parse_rfc3339(&lock.started) else {
        return false;
    };
    let limit = i64::try_from(cfg.stale_after_secs).unwrap_or(i64::MAX);
    now.saturating_sub(started) < limit
}

/// This machine's host name, or `localhost` when it cannot be read.
pub fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: `buf` is valid for writes of `buf.len()` bytes, and
        // gethostname writes at most that many.
        let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if r == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            if let Ok(name) = std::str::from_utf8(&buf[..end]) {
                if !name.trim().is_empty() {
                    return name.trim().to_string();
                }
            }
        }
    }
    "localhost".to_string()
}

fn parent_pid() -> u32 {
    #[cfg(unix)]
    {
        std::os::unix::process::parent_id()
    }
    #[cfg(not(unix))]
    {
        std::process::id()
    }
}

/// Whether process `pid` exists on this host; `None` where that cannot be
/// told, and the age rule applies instead.
fn pid_alive(pid: u32) -> Option<bool> {
    crate::io::temporaries::pid_alive(pid)
}

pub(crate) fn check_pod(pod: &str) -> Result<(), StagingError> {
    if pod.trim().is_empty() || pod.chars().any(char::is_control) {
        return Err(StagingError::BadPod(pod.to_string()));
    }
    Ok(())
}

/// A stem that names a staging file directly in `staging/`: non-empty, not
/// hidden, no path separator. Lock entries are held to the same rule, so a
/// hand-edited lock can never make release delete outside `staging/`.
fn is_entry_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && !id.contains(['/', '\\', '\0'])
        && !id.chars().any(char::is_control)
}

/// The staging directory, refusing a symbolic link out of the root.
pub(crate) fn staging_dir(root: &Path) -> Result<PathBuf, StagingError> {
    let dir = root.join(DIR);
    if let Ok(meta) = files::symlink_metadata(&dir) {
        if meta.file_type().is_symlink() {
            let target = dir.canonicalize().map_err(io_err(DIR))?;
            let root = root.canonicalize().map_err(io_err("."))?;
            if !target.starts_with(&root) {
                return Err(StagingError::Escapes);
            }
        }
    }
    Ok(dir)
}

/// One scan of `staging/`.
pub(crate) struct Listing {
    /// `(id, bytes)` of each staging file, sorted by id.
    pub(crate) entries: Vec<(String, u64)>,
    /// Names of claim temporaries.
    pub(crate) temporaries: Vec<String>,
}

impl Listing {
    fn backlog(&self, cfg: &StagingConfig) -> Backlog {
        let files = self.entries.len();
        let bytes = self.entries.iter().map(|(_, b)| b).sum();
        Backlog {
            files,
            bytes,
            due: files >= cfg.max_files || bytes >= cfg.max_bytes,
        }
    }
}

pub(crate) fn list(dir: &Path) -> Result<Listing, StagingError> {
    let mut listing = Listing {
        entries: Vec::new(),
        temporaries: Vec::new(),
    };
    let read = match files::read_dir(dir) {
        Ok(read) => read,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(listing),
        Err(e) => return Err(io_err(DIR)(e)),
    };
    for entry in read {
        let entry = entry.map_err(io_err(DIR))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if name.starts_with(TMP_PREFIX) {
            listing.temporaries.push(name.to_string());
            continue;
        }
        let Some(id) = name.strip_suffix(".md").filter(|id| is_entry_id(id)) else {
            continue;
        };
        // `DirEntry::metadata` does not follow links: a link is no staging file.
        let meta = match entry.metadata() {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io_err(&format!("{DIR}/{name}"))(e)),
        };
        if meta.is_file() {
            listing.entries.push((id.to_string(), meta.len()));
        }
    }
    listing.entries.sort();
    Ok(listing)
}

/// Removes claim temporaries left by crashed claims: their writer is gone, or
/// they are too old to belong to a claim in progress. Removing a live claim's
/// temporary is harmless: its link fails and it writes a new one.
pub(crate) fn sweep(dir: &Path, temporaries: &[String]) {
    for name in temporaries {
        let Some(rest) = name.strip_prefix(TMP_PREFIX) else {
            continue;
        };
        let writer = rest.split('.').next().and_then(|p| p.parse::<u32>().ok());
        let dead = writer.is_none_or(|pid| pid_alive(pid) == Some(false));
        let path = dir.join(name);
        let old = files::symlink_metadata(&path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() >= TMP_MAX_AGE_SECS);
        if dead || old {
            let _ = files::remove_file(path);
        }
    }
}

pub(crate) fn lock_bytes(lock: &Lock) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(lock).expect("a lock always serializes");
    bytes.push(b'\n');
    bytes
}

/// What sits at the lock's path.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Seen {
    Absent,
    Bytes(Vec<u8>),
    /// Something that cannot be read as a file; the reason says what.
    Odd(String),
}

fn read_lock(path: &Path) -> Result<Seen, StagingError> {
    match files::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Seen::Absent),
        Err(e) => Err(io_err(LOCK_PATH)(e)),
        Ok(meta) if !meta.is_file() => Ok(Seen::Odd("it is not a regular file".to_string())),
        Ok(_) => match crate::io::fs::read_regular(path, crate::io::fs::SMALL_FILE_MAX) {
            Ok(bytes) => Ok(Seen::Bytes(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Seen::Absent),
            Err(e) => Ok(Seen::Odd(e.to_string())),
        },
    }
}

/// The exclusive guard under which an existing lock is replaced or
/// removed: on Unix an `flock` on the staging directory itself; where a
/// directory cannot be locked, a file in the never-committed cache
/// directory. The kernel releases it when the holder exits or dies.
fn guard(root: &Path, dir: &Path) -> Result<crate::io::lock::Held, StagingError> {
    crate::io::lock::lock_dir(dir, &root.join(".memlint").join("staging.guard"))
        .map_err(io_err(DIR))
}

pub(crate) fn sync_dir(dir: &Path) {
    crate::io::fs::sync_dir(dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> StagingConfig {
        StagingConfig {
            max_files: 3,
            max_bytes: 100,
            stale_after_secs: 60,
            remote_timeout_secs: 60,
        }
    }

    fn lock(host: &str, pid: u32, started: &str) -> Lock {
        Lock {
            pod: "p".into(),
            pid,
            host: host.into(),
            started: started.into(),
            consumed: vec!["20261101-101500-0a9f".into()],
        }
    }

    #[test]
    fn parse_lock_rejects_what_release_could_misuse() {
        let good = lock("h", 42, "2026-11-01T10:15:00Z");
        assert_eq!(parse_lock(&lock_bytes(&good)), Ok(good.clone()));
        assert!(parse_lock(b"").unwrap_err().contains("empty"));
        assert!(parse_lock(b"{\"pod\":").is_err());
        for bad in ["../x", ".hidden", "a/b", "a\\b", ""] {
            let mut l = good.clone();
            l.consumed = vec![bad.into()];
            assert!(parse_lock(&lock_bytes(&l)).is_err(), "{bad}");
        }
        let mut l = good.clone();
        l.pid = 0;
        assert!(parse_lock(&lock_bytes(&l)).is_err());
        let mut l = good;
        l.started = "yesterday".into();
        assert!(parse_lock(&lock_bytes(&l)).is_err());
    }

    #[test]
    fn other_host_lock_is_live_while_younger_than_the_limit() {
        let now = clock::parse_rfc3339("2026-11-01T10:15:00Z").expect("valid");
        let l = lock("elsewhere", 42, "2026-11-01T10:14:01Z");
        assert!(is_live(&l, "here", now, &cfg()));
        let l = lock("elsewhere", 42, "2026-11-01T10:14:00Z");
        assert!(!is_live(&l, "here", now, &cfg()));
    }

    #[test]
    fn same_host_lock_follows_the_pid() {
        let now = clock::now_secs();
        let me = lock("here", std::process::id(), "2000-01-01T00:00:00Z");
        assert!(is_live(&me, "here", now, &cfg()));
        let gone = lock("here", i32::MAX as u32, &clock::rfc3339(now));
        assert!(!is_live(&gone, "here", now, &cfg()));
    }
}
