//! `memlint watch`: a watcher that spares recall the stat of every record.
//!
//! A search must never answer from a stale index (docs/recall.md), and on a large
//! workspace stat'ing every record to prove the index fresh costs more than
//! everything else a search does. A watcher running in the background
//! (`memlint watch start`) holds an inotify watch on every directory that
//! can hold records or change what is listed (the root, the record roots
//! and every directory below them, `.git/info`), and counts what happens
//! in them. A command that needs the search index first asks it for its
//! [`Token`]: the watcher's identity and that count, answered only after
//! every event up to the question has been read (a cookie file created in
//! `.memlint/` has come back through inotify). The index stores the token
//! it was checked or built under; while the token is the same, nothing the
//! index depends on has changed, and it is used without stat'ing a file.
//! Any other answer, or none, and the command checks every file as it
//! always does.
//!
//! The watcher stops trusting itself, for good, when it sees what inotify
//! cannot follow (a symbolic link under a record root, a full watch table)
//! and says so in `memlint watch status`; it refuses to start on a network
//! file system. A record modified through a hard link from outside the
//! workspace, or through a shared memory map, is not seen (as with git's
//! file-system monitor): do not watch such a workspace.
//!
//! Protocol, one line each way over `.memlint/watch.sock` (peers of
//! another user are refused on both sides; every question ends with the
//! device and inode of the asker's root, and a watcher of another root,
//! reached through a hard-linked copy, answers nothing else): `sync` →
//! `ok INSTANCE SEQ` or `untrusted REASON`; `status` → `pid PID dirs N
//! events N answered N REASON`; `stop` → `stopping`. A watcher that does
//! not accept at once is treated as none.

use crate::model::workspace::Workspace;
use std::path::Path;

/// The socket's name inside `.memlint/`.
pub(crate) const SOCKET: &str = "watch.sock";

/// The lock file a running watcher holds, with its process id.
pub(crate) const LOCK: &str = "watch.lock";

/// Where a detached watcher writes what it has to say.
pub(crate) const LOG: &str = "watch.log";

/// Cookie files are named with this prefix.
pub(crate) const COOKIE: &str = "watch-cookie-";

/// How long a command waits for the watcher's answer before it checks
/// every file instead.
const ANSWER_WITHIN: std::time::Duration = std::time::Duration::from_millis(1000);

/// What a watcher vouches for: nothing watched changed since it gave the
/// same token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    /// Tells watchers apart (a restarted one starts counting anew).
    pub instance: u64,
    /// Events seen.
    pub seq: u64,
}

impl Token {
    /// The stamp an index built for `ws` under this token stores: it also
    /// depends on the configuration and the executable, which can change
    /// without any file under watch changing (`--config`, an upgrade).
    pub(crate) fn stamp(&self, ws: &Workspace) -> u64 {
        let mut bytes = [0u8; 24];
        bytes[..8].copy_from_slice(&self.instance.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.seq.to_le_bytes());
        bytes[16..].copy_from_slice(&crate::io::cache::key(&ws.config).to_le_bytes());
        xxhash_rust::xxh3::xxh3_64(&bytes)
    }
}

/// The stamp of the watcher's current token for `ws`, when a watcher runs
/// and vouches for the tree; `None` otherwise (the caller then checks
/// every file). Costs one failed `connect` when no watcher runs; with
/// `watch: true` in the configuration, one is then started in the
/// background for the next command.
pub(crate) fn stamp(ws: &Workspace) -> Option<u64> {
    match ask(&ws.root, "sync") {
        Ok(line) => parse_token(&line).map(|t| t.stamp(ws)),
        Err(_) => {
            if ws.config.watch {
                let _ = spawn(&ws.root, None);
            }
            None
        }
    }
}

fn parse_token(line: &str) -> Option<Token> {
    let mut words = line.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some("ok"), Some(i), Some(s)) => Some(Token {
            instance: i.parse().ok()?,
            seq: s.parse().ok()?,
        }),
        _ => None,
    }
}

/// What a running watcher says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Status {
    pub pid: u32,
    /// Directories watched.
    pub dirs: usize,
    /// Events seen since it started.
    pub events: u64,
    /// Questions answered.
    pub answered: u64,
    /// Why it no longer vouches for the tree, if it does not.
    pub untrusted: Option<String>,
}

impl Status {
    /// One line for `memlint watch status`.
    pub(crate) fn human(&self, root: &Path) -> String {
        let count = |n: u64, one: &str, many: &str| match n {
            1 => format!("1 {one}"),
            _ => format!("{n} {many}"),
        };
        let mut out = format!(
            "watching {} (pid {}): {}, {}, {} answered\n",
            root.display(),
            self.pid,
            count(self.dirs as u64, "directory", "directories"),
            count(self.events, "event", "events"),
            count(self.answered, "question", "questions")
        );
        if let Some(why) = &self.untrusted {
            out.push_str(&format!(
                "not trusted, every command checks every file: {why}\n"
            ));
        }
        out
    }
}

/// The status of the watcher of the workspace at `root`, if one answers.
pub(crate) fn status(root: &Path) -> Option<Status> {
    let line = ask(root, "status").ok()?;
    parse_status(&line)
}

fn parse_status(line: &str) -> Option<Status> {
    let mut words = line.splitn(9, ' ');
    let mut field = |name: &str| -> Option<&str> {
        (words.next()? == name).then_some(())?;
        words.next()
    };
    let pid = field("pid")?.parse().ok()?;
    let dirs = field("dirs")?.parse().ok()?;
    let events = field("events")?.parse().ok()?;
    let answered = field("answered")?.parse().ok()?;
    let untrusted = words.next().map(str::trim).filter(|r| !r.is_empty());
    Some(Status {
        pid,
        dirs,
        events,
        answered,
        untrusted: untrusted.map(str::to_string),
    })
}

/// Asks the watcher to stop; its process id when one answered.
pub(crate) fn stop(root: &Path) -> Option<u32> {
    let pid = status(root)?.pid;
    let answer = ask(root, "stop").ok()?;
    (answer.trim() == "stopping").then_some(pid)
}

/// Sends one line to the watcher of `root` and reads one line back.
#[cfg(unix)]
fn ask(root: &Path, question: &str) -> std::io::Result<String> {
    use std::io::{BufRead, Read, Write};
    use std::os::unix::fs::MetadataExt;
    let dir = root.join(crate::io::cache::DIR);
    // The watcher answers only for the root it watches: a socket reached
    // through a hard-linked copy of `.memlint/` leads to another's.
    let me = std::fs::metadata(root)?;
    let stream = unix::connect(&dir)?;
    stream.set_read_timeout(Some(super::within(ANSWER_WITHIN)))?;
    stream.set_write_timeout(Some(super::within(ANSWER_WITHIN)))?;
    unix::same_user(&stream)?;
    (&stream).write_all(format!("{question} {} {}\n", me.dev(), me.ino()).as_bytes())?;
    let mut line = String::new();
    std::io::BufReader::new((&stream).take(4096)).read_line(&mut line)?;
    Ok(line)
}

#[cfg(not(unix))]
fn ask(_root: &Path, _question: &str) -> std::io::Result<String> {
    Err(std::io::ErrorKind::Unsupported.into())
}

#[cfg(unix)]
pub(crate) mod unix {
    use std::os::unix::net::UnixStream;
    use std::path::Path;

    /// A socket address longer than `sun_path` holds is reached through
    /// the directory's descriptor.
    const SUN_PATH: usize = 100;

    /// Runs `f` with a path naming the socket in `dir` that fits a socket
    /// address.
    pub(crate) fn with_short_path<T>(
        dir: &Path,
        f: impl FnOnce(&Path) -> std::io::Result<T>,
    ) -> std::io::Result<T> {
        with_short_path_to(dir, super::SOCKET, f)
    }

    /// [`with_short_path`] for the socket `name` in `dir`.
    pub(crate) fn with_short_path_to<T>(
        dir: &Path,
        name: &str,
        f: impl FnOnce(&Path) -> std::io::Result<T>,
    ) -> std::io::Result<T> {
        let direct = dir.join(name);
        if direct.as_os_str().len() < SUN_PATH {
            return f(&direct);
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let held = std::fs::File::open(dir)?;
            let via = format!("/proc/self/fd/{}/{}", held.as_raw_fd(), name);
            f(Path::new(&via))
        }
        #[cfg(not(target_os = "linux"))]
        {
            Err(std::io::ErrorKind::InvalidInput.into())
        }
    }

    /// Connects without waiting: a watcher that does not accept (stopped,
    /// or its backlog full) is no watcher.
    #[cfg(target_os = "linux")]
    pub(super) fn connect(dir: &Path) -> std::io::Result<UnixStream> {
        connect_to(dir, super::SOCKET)
    }

    /// [`connect`] to the socket `name` in `dir`.
    #[cfg(target_os = "linux")]
    pub(crate) fn connect_to(dir: &Path, name: &str) -> std::io::Result<UnixStream> {
        use std::os::fd::FromRawFd;
        use std::os::unix::ffi::OsStrExt;
        with_short_path_to(dir, name, |p| {
            let bytes = p.as_os_str().as_bytes();
            // SAFETY: a plain value type, all zeroes is valid.
            let mut addr: libc::sockaddr_un = unsafe { std::mem::zeroed() };
            if bytes.len() >= addr.sun_path.len() {
                return Err(std::io::ErrorKind::InvalidInput.into());
            }
            addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
            for (to, from) in addr.sun_path.iter_mut().zip(bytes) {
                *to = *from as libc::c_char;
            }
            // SAFETY: no pointers; the result is checked.
            let fd = unsafe {
                libc::socket(
                    libc::AF_UNIX,
                    libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                    0,
                )
            };
            if fd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: `fd` was just opened and is owned here alone.
            let stream = unsafe { UnixStream::from_raw_fd(fd) };
            let len = std::mem::size_of::<libc::sa_family_t>() + bytes.len() + 1;
            // SAFETY: `addr` is a valid address of at least `len` bytes.
            let r = unsafe {
                libc::connect(
                    fd,
                    (&addr as *const libc::sockaddr_un).cast(),
                    len as libc::socklen_t,
                )
            };
            if r != 0 {
                return Err(std::io::Error::last_os_error());
            }
            stream.set_nonblocking(false)?;
            Ok(stream)
        })
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn connect(dir: &Path) -> std::io::Result<UnixStream> {
        connect_to(dir, super::SOCKET)
    }

    #[cfg(not(target_os = "linux"))]
    pub(crate) fn connect_to(dir: &Path, name: &str) -> std::io::Result<UnixStream> {
        with_short_path_to(dir, name, |p| UnixStream::connect(p))
    }

    /// Refuses a peer running as another user.
    #[cfg(target_os = "linux")]
    pub(crate) fn same_user(stream: &UnixStream) -> std::io::Result<()> {
        use std::os::fd::AsRawFd;
        let mut cred = libc::ucred {
            pid: 0,
            uid: 0,
            gid: 0,
        };
        let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
        // SAFETY: `cred` and `len` are valid for writes of the sizes given.
        let r = unsafe {
            libc::getsockopt(
                stream.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_PEERCRED,
                (&mut cred as *mut libc::ucred).cast(),
                &mut len,
            )
        };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: getuid cannot fail.
        if cred.uid != unsafe { libc::getuid() } {
            return Err(std::io::ErrorKind::PermissionDenied.into());
        }
        Ok(())
    }

    #[cfg(not(target_os = "linux"))]
    pub(crate) fn same_user(_stream: &UnixStream) -> std::io::Result<()> {
        Ok(())
    }
}

/// Why a watcher cannot run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    #[error("a watcher already runs for {0} (pid {1})")]
    Running(String, String),
    #[error("{0}")]
    Unsupported(String),
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
}

/// Watching needs inotify.
#[cfg(not(target_os = "linux"))]
pub(crate) fn run(_ws: &Workspace, _started: impl FnOnce(&Status)) -> Result<(), Error> {
    run_unsupported()
}

/// Starts a watcher for the workspace at `root` in the background (a
/// `memlint watch run` of this executable in a session of its own, writing
/// to `.memlint/watch.log`) and waits until it answers.
#[cfg(target_os = "linux")]
pub(crate) fn start(root: &Path, config: Option<&Path>) -> Result<Status, Error> {
    let (mut child, log_path) = spawn(root, config)?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        if let Some(status) = status(root) {
            // Reaped by nobody: it outlives this process, in its own session.
            std::mem::forget(child);
            return Ok(status);
        }
        if let Ok(Some(exit)) = child.try_wait() {
            let said = crate::io::fs::read_regular(&log_path, crate::io::fs::SMALL_FILE_MAX)
                .unwrap_or_default();
            let said = String::from_utf8_lossy(&said);
            let last = said.lines().last().unwrap_or("").to_string();
            return Err(Error::Unsupported(format!(
                "the watcher exited at once ({exit}): {last}"
            )));
        }
        if std::time::Instant::now() > deadline {
            return Err(Error::Unsupported(format!(
                "the watcher did not answer within 30 s; see {}",
                log_path.display()
            )));
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Starts `memlint watch run` for `root` in a session of its own; the
/// child and the log it writes to.
#[cfg(target_os = "linux")]
fn spawn(
    root: &Path,
    config: Option<&Path>,
) -> Result<(std::process::Child, std::path::PathBuf), Error> {
    use std::os::unix::process::CommandExt;
    let io = |what: &Path| {
        let shown = what.display().to_string();
        move |e| Error::Io(shown, e)
    };
    let own = crate::io::cache::make_dir(root).map_err(io(root))?;
    let log_path = own.join(LOG);
    // Never waiting for a reader: a FIFO there is refused.
    let log = crate::io::fs::open_regular_options(
        &log_path,
        std::fs::OpenOptions::new().create(true).append(true),
    )
    .map_err(io(&log_path))?;
    let exe = std::env::current_exe().map_err(io(Path::new("memlint")))?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("--root").arg(root);
    if let Some(c) = config {
        cmd.arg("--config").arg(c);
    }
    cmd.args(["watch", "run"])
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .stdout(log.try_clone().map_err(io(&log_path))?)
        .stderr(log);
    // SAFETY: setsid is async-signal-safe; nothing else runs between fork
    // and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let child = cmd.spawn().map_err(io(root))?;
    Ok((child, log_path))
}

/// Watching needs inotify.
#[cfg(not(target_os = "linux"))]
pub(crate) fn start(_root: &Path, _config: Option<&Path>) -> Result<Status, Error> {
    run_unsupported()
}

#[cfg(not(target_os = "linux"))]
fn spawn(_root: &Path, _config: Option<&Path>) -> Result<(), Error> {
    run_unsupported()
}

#[cfg(not(target_os = "linux"))]
fn run_unsupported<T>() -> Result<T, Error> {
    Err(Error::Unsupported(
        "memlint watch needs Linux (inotify); every command checks every file instead".into(),
    ))
}

/// The process id recorded in the lock file of the watcher of `root`.
pub(crate) fn recorded_pid(dir: &Path) -> String {
    crate::io::fs::read_regular(&dir.join(LOCK), crate::io::fs::SMALL_FILE_MAX)
        .ok()
        .map(|s| String::from_utf8_lossy(&s).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// The directories to watch below the root, root-relative: the record
/// roots and the banned directories outside them, as the walk enters them.
pub(crate) fn tops(ws: &Workspace) -> Vec<String> {
    let mut tops: Vec<String> = crate::model::kind::RECORD_ROOTS
        .iter()
        .map(|r| r.to_string())
        .collect();
    for dir in &ws.config.banned_dirs {
        let dir = dir.trim_matches('/');
        if !tops
            .iter()
            .any(|t| dir == t || dir.starts_with(&format!("{t}/")))
        {
            tops.push(dir.to_string());
        }
    }
    tops
}

/// Where a root-relative directory stands to the tops: inside one (watched
/// with everything below it), leading to one (watched alone), or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    Inside,
    Leading,
    Outside,
}

pub(crate) fn reach(tops: &[String], rel: &str) -> Reach {
    let mut out = Reach::Outside;
    for t in tops {
        if rel == t || rel.starts_with(&format!("{t}/")) {
            return Reach::Inside;
        }
        if t.starts_with(&format!("{rel}/")) {
            out = Reach::Leading;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_tells_inside_leading_and_outside() {
        let tops = vec!["memory".to_string(), "docs/old/workflow".to_string()];
        assert_eq!(reach(&tops, "memory"), Reach::Inside);
        assert_eq!(reach(&tops, "memory/decisions"), Reach::Inside);
        assert_eq!(reach(&tops, "memoryx"), Reach::Outside);
        assert_eq!(reach(&tops, "docs"), Reach::Leading);
        assert_eq!(reach(&tops, "docs/old"), Reach::Leading);
        assert_eq!(reach(&tops, "docs/new"), Reach::Outside);
        assert_eq!(reach(&tops, "docs/old/workflow/x"), Reach::Inside);
    }

    #[test]
    fn a_status_line_round_trips() {
        let s = parse_status("pid 12 dirs 3 events 7 answered 2 memory/a.md is a symbolic link\n")
            .expect("parses");
        assert_eq!(s.pid, 12);
        assert_eq!(s.dirs, 3);
        assert_eq!(s.events, 7);
        assert_eq!(s.answered, 2);
        assert_eq!(
            s.untrusted.as_deref(),
            Some("memory/a.md is a symbolic link")
        );
        let clean = parse_status("pid 1 dirs 1 events 0 answered 0 \n").expect("parses");
        assert_eq!(clean.untrusted, None);
    }

    /// Issue 44 item 22: `watch status` counts in English.
    #[test]
    fn status_line_says_one_question_not_one_questions() {
        let status = |dirs, events, answered| Status {
            pid: 7,
            dirs,
            events,
            answered,
            untrusted: None,
        };
        let root = Path::new("/repo");
        assert_eq!(
            status(1, 1, 1).human(root),
            "watching /repo (pid 7): 1 directory, 1 event, 1 question answered\n"
        );
        assert_eq!(
            status(10, 0, 12).human(root),
            "watching /repo (pid 7): 10 directories, 0 events, 12 questions answered\n"
        );
    }
}
