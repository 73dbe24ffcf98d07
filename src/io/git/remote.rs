//! One ref on a git remote, read and replaced by compare-and-swap: the
//! consolidation lock that spans machines (`staging claim --remote`).
//!
//! The remote is reached through the `git` program, not gix: gix cannot
//! push, and the remote's transports (ssh, https) and credentials
//! (helpers, agents, `insteadOf` rewrites) are configured for `git`. The
//! lock's content is a blob, written and read locally through gix.

use crate::io::git::repo::Repo;
use crate::io::git::types::GitError;
use gix::ObjectId;
use std::path::Path;
use std::process::Command;

/// The remote ref the lock lives in.
pub const LOCK_REF: &str = "refs/memlint/consolidation-lock";

/// `git` in `dir`, with a message on failure naming what it was for.
fn git(dir: &Path, args: &[&str], what: &str) -> Result<std::process::Output, GitError> {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .map_err(|e| GitError::Read(format!("cannot run git to {what}: {e}")))
}

/// The object the remote's `LOCK_REF` points at, `None` when it has none.
pub fn remote_ref(repo: &Repo, remote: &str) -> Result<Option<ObjectId>, GitError> {
    let dir = work_dir(repo)?;
    let out = git(
        dir,
        &["ls-remote", "--", remote, LOCK_REF],
        &format!("read {LOCK_REF} on `{remote}`"),
    )?;
    if !out.status.success() {
        return Err(GitError::Read(format!(
            "git ls-remote {remote}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(line) = text.lines().find(|l| l.ends_with(LOCK_REF)) else {
        return Ok(None);
    };
    let hex = line.split_whitespace().next().unwrap_or_default();
    ObjectId::from_hex(hex.as_bytes())
        .map(Some)
        .map_err(|e| GitError::Read(format!("git ls-remote {remote} gave `{hex}`: {e}")))
}

/// The content of the lock blob `id` on `remote`, fetched when it is not
/// here yet.
pub fn read_lock(repo: &Repo, remote: &str, id: ObjectId) -> Result<Vec<u8>, GitError> {
    if let Some(bytes) = local_blob(repo, id) {
        return Ok(bytes);
    }
    let dir = work_dir(repo)?;
    let out = git(
        dir,
        &["fetch", "-q", "--no-tags", "--", remote, LOCK_REF],
        &format!("fetch {LOCK_REF} from `{remote}`"),
    )?;
    if !out.status.success() {
        return Err(GitError::Read(format!(
            "git fetch {remote} {LOCK_REF}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    // The ref may have moved since it was listed: what was fetched is
    // another lock, and the caller reads the ref again.
    local_blob(repo, id).ok_or_else(|| {
        GitError::Read(format!(
            "{LOCK_REF} on `{remote}` changed while it was read"
        ))
    })
}

fn local_blob(repo: &Repo, id: ObjectId) -> Option<Vec<u8>> {
    // A fresh handle: objects fetched by `git` since the repository was
    // opened are found.
    let fresh = gix::open(repo.repo.git_dir()).ok()?;
    let object = fresh.find_object(id).ok()?;
    (object.kind == gix::object::Kind::Blob).then(|| object.data.clone())
}

/// Writes `bytes` as a blob in the local repository.
pub fn write_blob(repo: &Repo, bytes: &[u8]) -> Result<ObjectId, GitError> {
    repo.repo
        .write_blob(bytes)
        .map(|id| id.detach())
        .map_err(|e| GitError::Write(format!("cannot write the lock object: {e}")))
}

/// What a compare-and-swap push did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swap {
    /// The ref now holds the new value (or already did).
    Done,
    /// The ref did not hold the expected value: someone else changed it.
    Lost,
}

/// Sets `LOCK_REF` on `remote` to `new` (deletes it for `None`) only while
/// it holds `expected` (absent for `None`): `git push
/// --force-with-lease`, which the remote checks and applies atomically.
pub fn swap(
    repo: &Repo,
    remote: &str,
    expected: Option<ObjectId>,
    new: Option<ObjectId>,
) -> Result<Swap, GitError> {
    let dir = work_dir(repo)?;
    let lease = format!(
        "--force-with-lease={LOCK_REF}:{}",
        expected.map(|e| e.to_string()).unwrap_or_default()
    );
    let spec = format!(
        "{}:{LOCK_REF}",
        new.map(|n| n.to_string()).unwrap_or_default()
    );
    let out = git(
        dir,
        &[
            "push",
            "--porcelain",
            "--no-verify",
            &lease,
            "--",
            remote,
            &spec,
        ],
        &format!("update {LOCK_REF} on `{remote}`"),
    )?;
    let text = String::from_utf8_lossy(&out.stdout);
    let flag = text
        .lines()
        .find(|l| l.contains(LOCK_REF))
        .and_then(|l| l.chars().next());
    match flag {
        Some('*' | ' ' | '+' | '-' | '=') if out.status.success() => Ok(Swap::Done),
        Some('!') => Ok(Swap::Lost),
        _ => Err(GitError::Write(format!(
            "git push {remote} {LOCK_REF}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))),
    }
}

fn work_dir(repo: &Repo) -> Result<&Path, GitError> {
    Ok(repo.repo.workdir().unwrap_or_else(|| repo.repo.git_dir()))
}
