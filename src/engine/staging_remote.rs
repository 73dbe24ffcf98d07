//! `memlint staging claim|release --remote NAME`: the consolidation lock as
//! a ref on a git remote (`refs/memlint/consolidation-lock`), so that
//! consolidators on several machines exclude each other. The ref is
//! created only where it is absent, and replaced (a stale lock taken over)
//! or deleted (released) only over the exact value read: git's ref update
//! is a compare-and-swap on the server. The lock's JSON, the liveness and
//! takeover rules and the release are those of the local lock.

use crate::engine::staging::{
    check_pod, claimed, consume, held_by, judge, list, lock_bytes, released, staging_dir, sweep,
    sync_dir, Claimant, Claimed, Lock, Released, Seen, StagingError, Takeover,
};
use crate::io::git::remote::{self, LockObject, Remote, Swap, LOCK_REF};
use crate::io::git::Repo;
use crate::model::config::StagingConfig;
use std::path::Path;

/// How often a claim reads the remote again after losing a race.
const ATTEMPTS: usize = 20;

fn remote_err(e: crate::io::git::GitError) -> StagingError {
    StagingError::Git(e)
}

fn open(root: &Path) -> Result<Repo, StagingError> {
    Repo::open(root, crate::io::git::Asking::StagingRemote).map_err(remote_err)
}

/// What the remote's lock ref holds now: its object and what it says.
/// A ref that points at no lock (a tree, a commit, a huge blob) is seen
/// as an unreadable lock: `--force` replaces it.
fn read(repo: &Repo, to: Remote) -> Result<(Option<gix::ObjectId>, Seen), StagingError> {
    let Some(id) = remote::remote_ref(repo, to).map_err(remote_err)? else {
        return Ok((None, Seen::Absent));
    };
    let seen = match remote::read_lock(repo, to, id).map_err(remote_err)? {
        LockObject::Blob(bytes) => Seen::Bytes(bytes),
        LockObject::Malformed(reason) => Seen::Odd(reason),
    };
    Ok((Some(id), seen))
}

/// The remote `name`, reached within the configured time.
fn remote_of<'a>(name: &'a str, cfg: &StagingConfig) -> Remote<'a> {
    Remote {
        name,
        timeout: std::time::Duration::from_secs(cfg.remote_timeout_secs),
    }
}

/// `e` with the lock it names placed where it is: the ref on remote
/// `name`, not the file a local claim uses.
fn on_remote(e: StagingError, name: &str) -> StagingError {
    let lock = format!("{LOCK_REF} on the remote `{name}`");
    match e {
        StagingError::Unreadable { reason, .. } => StagingError::Unreadable { lock, reason },
        StagingError::NotClaimed { .. } => StagingError::NotClaimed { lock },
        other => other,
    }
}

/// Claims staging on remote `name` for `who` at `now`: a live lock there is
/// a conflict, a stale one is taken over, an unreadable one is replaced
/// only with `force`.
pub(crate) fn claim(
    root: &Path,
    cfg: &StagingConfig,
    who: &Claimant,
    now: i64,
    force: bool,
    name: &str,
) -> Result<Claimed, StagingError> {
    check_pod(&who.pod)?;
    let repo = open(root)?;
    let dir = staging_dir(root)?;
    let to = remote_of(name, cfg);
    for _ in 0..ATTEMPTS {
        let (current, seen) = read(&repo, to)?;
        let takeover = judge(&seen, who, now, cfg, force).map_err(|e| on_remote(e, name))?;
        let listing = list(&dir)?;
        sweep(&dir, &listing.temporaries);
        let lock = Lock {
            pod: who.pod.clone(),
            pid: who.pid,
            host: who.host.clone(),
            started: crate::model::clock::rfc3339(now),
            consumed: listing.entries.into_iter().map(|(id, _)| id).collect(),
        };
        let blob = remote::write_blob(&repo, &lock_bytes(&lock)).map_err(remote_err)?;
        match remote::swap(&repo, to, current, Some(blob)).map_err(remote_err)? {
            Swap::Done => {
                let Takeover { holder, unreadable } = takeover.unwrap_or(Takeover {
                    holder: None,
                    unreadable: None,
                });
                return Ok(claimed(lock, holder, unreadable));
            }
            // Another claim got there first: judge what it wrote.
            Swap::Lost => continue,
        }
    }
    Err(StagingError::Remote(format!(
        "{LOCK_REF} on `{name}` kept changing; gave up after {ATTEMPTS} attempts"
    )))
}

/// Releases the lock `pod` holds on remote `name`: deletes the consumed
/// staging files here, then the remote ref (only while it still is the
/// lock read).
pub(crate) fn release(
    root: &Path,
    cfg: &StagingConfig,
    pod: &str,
    name: &str,
) -> Result<Released, StagingError> {
    check_pod(pod)?;
    let repo = open(root)?;
    let dir = staging_dir(root)?;
    let to = remote_of(name, cfg);
    let (current, seen) = read(&repo, to)?;
    let lock = held_by(seen, pod).map_err(|e| on_remote(e, name))?;
    consume(&dir, &lock.consumed)?;
    sync_dir(&dir);
    if remote::swap(&repo, to, current, None).map_err(remote_err)? == Swap::Lost {
        return Err(StagingError::Remote(format!(
            "{LOCK_REF} on `{name}` changed while it was released (taken over as stale?); the consumed files are deleted"
        )));
    }
    released(&dir, lock)
}
