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
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The remote ref the lock lives in.
pub(crate) const LOCK_REF: &str = "refs/memlint/consolidation-lock";

/// The most a lock blob may hold: its JSON names a pod, a host and the
/// staging ids consumed, far below this. A larger one is not read.
pub(crate) const LOCK_MAX: u64 = 1 << 20;

/// The most of `git`'s output that is kept (a ref listing, messages).
const OUTPUT_MAX: u64 = 1 << 20;

/// How `git` reaches the remote: which one, and how long any one
/// operation may take before it is given up (`staging.remote_timeout_secs`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Remote<'a> {
    pub name: &'a str,
    pub timeout: Duration,
}

/// `git` in `dir`, with a message on failure naming what it was for; killed
/// when it has not finished within `timeout` (a remote that accepts a
/// connection and never answers would otherwise hold it for ever).
fn git(
    dir: &Path,
    args: &[&str],
    what: &str,
    timeout: Duration,
) -> Result<std::process::Output, GitError> {
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group, so that a timeout ends what git started too
    // (ssh, an upload-pack helper), not git alone.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .spawn()
        .map_err(|e| GitError::Read(format!("cannot run git to {what}: {e}")))?;
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            if let Some(pipe) = pipe {
                // Keep the first OUTPUT_MAX bytes, read (and drop) the rest
                // so that git never blocks on a full pipe.
                let mut pipe = pipe;
                let _ = std::io::Read::read_to_end(
                    &mut std::io::Read::take(&mut pipe, OUTPUT_MAX),
                    &mut kept,
                );
                let _ = std::io::copy(&mut pipe, &mut std::io::sink());
            }
            kept
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                kill_group(&mut child);
                let _ = child.wait();
                // The readers are left behind: a program git started may
                // still hold the pipes open.
                return Err(GitError::Read(format!(
                    "git did not finish within {} s trying to {what}; gave up (raise `staging.remote_timeout_secs` for a slow remote)",
                    timeout.as_secs()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(GitError::Read(format!("cannot run git to {what}: {e}"))),
        }
    };
    Ok(std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// Kills `child` and every process of its group (it leads one of its own).
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals that process group;
        // it touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

/// The object the remote's `LOCK_REF` points at, `None` when it has none.
pub(crate) fn remote_ref(repo: &Repo, to: Remote) -> Result<Option<ObjectId>, GitError> {
    let remote = to.name;
    let dir = work_dir(repo)?;
    let out = git(
        dir,
        &["ls-remote", "--", remote, LOCK_REF],
        &format!("read {LOCK_REF} on `{remote}`"),
        to.timeout,
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

/// What the remote's lock ref points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LockObject {
    /// A blob of at most [`LOCK_MAX`] bytes: its content.
    Blob(Vec<u8>),
    /// Something no lock can be (a tree, a commit, a blob too large to be
    /// one); the reason says what. A claim with `--force` replaces it.
    Malformed(String),
}

/// The lock object `id` on `remote`, fetched when it is not here yet.
pub(crate) fn read_lock(repo: &Repo, to: Remote, id: ObjectId) -> Result<LockObject, GitError> {
    if let Some(found) = local_lock(repo, id) {
        return Ok(found);
    }
    let remote = to.name;
    let dir = work_dir(repo)?;
    let out = git(
        dir,
        &["fetch", "-q", "--no-tags", "--", remote, LOCK_REF],
        &format!("fetch {LOCK_REF} from `{remote}`"),
        to.timeout,
    )?;
    if !out.status.success() {
        return Err(GitError::Read(format!(
            "git fetch {remote} {LOCK_REF}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    // The ref may have moved since it was listed: what was fetched is
    // another lock, and the caller reads the ref again.
    local_lock(repo, id).ok_or_else(|| {
        GitError::Read(format!(
            "{LOCK_REF} on `{remote}` changed while it was read"
        ))
    })
}

/// The object `id` here as a lock, `None` when it is not here. Its kind
/// and size are read from its header first: a large object is never
/// inflated into memory.
fn local_lock(repo: &Repo, id: ObjectId) -> Option<LockObject> {
    // A fresh handle: objects fetched by `git` since the repository was
    // opened are found.
    let fresh = gix::open(repo.repo.git_dir()).ok()?;
    let header = fresh.find_header(id).ok()?;
    if header.kind() != gix::object::Kind::Blob {
        return Some(LockObject::Malformed(format!(
            "{LOCK_REF} points at a {}, not at a blob",
            header.kind()
        )));
    }
    if header.size() > LOCK_MAX {
        return Some(LockObject::Malformed(format!(
            "its blob has {} bytes, more than a lock ever holds ({LOCK_MAX})",
            header.size()
        )));
    }
    let object = fresh.find_object(id).ok()?;
    Some(LockObject::Blob(object.data.clone()))
}

/// Writes `bytes` as a blob in the local repository.
pub(crate) fn write_blob(repo: &Repo, bytes: &[u8]) -> Result<ObjectId, GitError> {
    repo.repo
        .write_blob(bytes)
        .map(|id| id.detach())
        .map_err(|e| GitError::Write(format!("cannot write the lock object: {e}")))
}

/// What a compare-and-swap push did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Swap {
    /// The ref now holds the new value (or already did).
    Done,
    /// The ref did not hold the expected value: someone else changed it.
    Lost,
}

/// Sets `LOCK_REF` on `remote` to `new` (deletes it for `None`) only while
/// it holds `expected` (absent for `None`): `git push
/// --force-with-lease`, which the remote checks and applies atomically.
pub(crate) fn swap(
    repo: &Repo,
    to: Remote,
    expected: Option<ObjectId>,
    new: Option<ObjectId>,
) -> Result<Swap, GitError> {
    let remote = to.name;
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
        to.timeout,
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
