//! `memlint watch`: a watcher that spares recall the stat of every record.
//!
//! A search must never answer from a stale index (SPEC §7), and on a large
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
pub const SOCKET: &str = "watch.sock";

/// The lock file a running watcher holds, with its process id.
pub const LOCK: &str = "watch.lock";

/// Where a detached watcher writes what it has to say.
pub const LOG: &str = "watch.log";

/// Cookie files are named with this prefix.
const COOKIE: &str = "watch-cookie-";

/// How long a command waits for the watcher's answer before it checks
/// every file instead.
const ANSWER_WITHIN: std::time::Duration = std::time::Duration::from_millis(1000);

/// What a watcher vouches for: nothing watched changed since it gave the
/// same token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// Tells watchers apart (a restarted one starts counting anew).
    pub instance: u64,
    /// Events seen.
    pub seq: u64,
}

impl Token {
    /// The stamp an index built for `ws` under this token stores: it also
    /// depends on the configuration and the executable, which can change
    /// without any file under watch changing (`--config`, an upgrade).
    pub fn stamp(&self, ws: &Workspace) -> u64 {
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
pub fn stamp(ws: &Workspace) -> Option<u64> {
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

/// The token of the watcher of the workspace at `root`; see [`stamp`].
pub fn sync(root: &Path) -> Option<Token> {
    parse_token(&ask(root, "sync").ok()?)
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
pub struct Status {
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
    pub fn human(&self, root: &Path) -> String {
        let mut out = format!(
            "watching {} (pid {}): {} directories, {} events, {} questions answered\n",
            root.display(),
            self.pid,
            self.dirs,
            self.events,
            self.answered
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
pub fn status(root: &Path) -> Option<Status> {
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
pub fn stop(root: &Path) -> Option<u32> {
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
    stream.set_read_timeout(Some(ANSWER_WITHIN))?;
    stream.set_write_timeout(Some(ANSWER_WITHIN))?;
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
mod unix {
    use std::os::unix::net::UnixStream;
    use std::path::Path;

    /// A socket address longer than `sun_path` holds is reached through
    /// the directory's descriptor.
    const SUN_PATH: usize = 100;

    /// Runs `f` with a path naming the socket in `dir` that fits a socket
    /// address.
    pub(super) fn with_short_path<T>(
        dir: &Path,
        f: impl FnOnce(&Path) -> std::io::Result<T>,
    ) -> std::io::Result<T> {
        let direct = dir.join(super::SOCKET);
        if direct.as_os_str().len() < SUN_PATH {
            return f(&direct);
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let held = std::fs::File::open(dir)?;
            let via = format!("/proc/self/fd/{}/{}", held.as_raw_fd(), super::SOCKET);
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
        use std::os::fd::FromRawFd;
        use std::os::unix::ffi::OsStrExt;
        with_short_path(dir, |p| {
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
        with_short_path(dir, |p| UnixStream::connect(p))
    }

    /// Refuses a peer running as another user.
    #[cfg(target_os = "linux")]
    pub(super) fn same_user(stream: &UnixStream) -> std::io::Result<()> {
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
    pub(super) fn same_user(_stream: &UnixStream) -> std::io::Result<()> {
        Ok(())
    }
}

/// Why a watcher cannot run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("a watcher already runs for {0} (pid {1})")]
    Running(String, String),
    #[error("{0}")]
    Unsupported(String),
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
}

#[cfg(target_os = "linux")]
pub use daemon::run;

/// Watching needs inotify.
#[cfg(not(target_os = "linux"))]
pub fn run(_ws: &Workspace, _started: impl FnOnce(&Status)) -> Result<(), Error> {
    run_unsupported()
}

/// Starts a watcher for the workspace at `root` in the background (a
/// `memlint watch run` of this executable in a session of its own, writing
/// to `.memlint/watch.log`) and waits until it answers.
#[cfg(target_os = "linux")]
pub fn start(root: &Path, config: Option<&Path>) -> Result<Status, Error> {
    let (mut child, log_path) = spawn(root, config)?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        if let Some(status) = status(root) {
            // Reaped by nobody: it outlives this process, in its own session.
            std::mem::forget(child);
            return Ok(status);
        }
        if let Ok(Some(exit)) = child.try_wait() {
            let said = crate::io::fs::read_regular(&log_path).unwrap_or_default();
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
pub fn start(_root: &Path, _config: Option<&Path>) -> Result<Status, Error> {
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
fn recorded_pid(dir: &Path) -> String {
    crate::io::fs::read_regular(&dir.join(LOCK))
        .ok()
        .map(|s| String::from_utf8_lossy(&s).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// The directories to watch below the root, root-relative: the record
/// roots and the banned directories outside them, as the walk enters them.
fn tops(ws: &Workspace) -> Vec<String> {
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
enum Reach {
    Inside,
    Leading,
    Outside,
}

fn reach(tops: &[String], rel: &str) -> Reach {
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

#[cfg(target_os = "linux")]
mod daemon {
    use super::{reach, tops, Error, Reach, Status, Token, COOKIE, LOCK, SOCKET};
    use crate::io::ignores::NAMES as IGNORE_FILES;
    use crate::model::workspace::Workspace;
    use std::collections::HashMap;
    use std::io::{BufRead, Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    /// What to watch every directory for.
    const DIR_EVENTS: u32 = libc::IN_CREATE
        | libc::IN_DELETE
        | libc::IN_MODIFY
        | libc::IN_ATTRIB
        | libc::IN_CLOSE_WRITE
        | libc::IN_MOVED_FROM
        | libc::IN_MOVED_TO
        | libc::IN_DELETE_SELF
        | libc::IN_MOVE_SELF
        | libc::IN_ONLYDIR
        | libc::IN_DONT_FOLLOW;

    /// What to watch `.memlint/` for: cookies, and its socket or itself
    /// going away.
    const OWN_EVENTS: u32 = libc::IN_CREATE
        | libc::IN_DELETE
        | libc::IN_MOVED_FROM
        | libc::IN_DELETE_SELF
        | libc::IN_MOVE_SELF
        | libc::IN_ONLYDIR;

    /// File systems whose changes may come from another machine, which
    /// inotify never hears of.
    const REMOTE: [i64; 8] = [
        0x6969,                // NFS
        0x517B,                // SMB
        0xFF53_4D42u32 as i64, // CIFS
        0xFE53_4D42u32 as i64, // SMB2
        0x6573_5546,           // FUSE
        0x0102_1997,           // 9P
        0x00C3_6400,           // Ceph
        0x5346_414F,           // AFS
    ];

    /// Whether `dir` lies on a file system inotify hears every change of.
    fn local(dir: &Path) -> Result<(), String> {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
            return Ok(());
        };
        let mut fs = std::mem::MaybeUninit::<libc::statfs>::uninit();
        // SAFETY: `c` is a valid C string; `fs` is written before it is read.
        if unsafe { libc::statfs(c.as_ptr(), fs.as_mut_ptr()) } != 0 {
            return Ok(());
        }
        // SAFETY: statfs succeeded.
        #[allow(clippy::unnecessary_cast)] // `f_type` is not i64 everywhere.
        let kind = unsafe { fs.assume_init() }.f_type as i64;
        if REMOTE.contains(&kind) {
            return Err(format!(
                "is on a network or user-space file system (type {kind:#x}): \
                 changes made elsewhere are never reported"
            ));
        }
        Ok(())
    }

    struct Watcher {
        root: PathBuf,
        own: PathBuf,
        inotify: OwnedFd,
        /// Watch descriptor → directory.
        dirs: HashMap<i32, PathBuf>,
        own_wd: i32,
        root_wd: i32,
        /// `.git`, watched only for `info` (its `exclude` file changes
        /// what is listed) coming and going.
        git_wd: i32,
        tops: Vec<String>,
        /// The root's device and inode: a question from another root (a
        /// hard-linked copy of `.memlint/`) is not answered.
        root_id: (u64, u64),
        instance: u64,
        seq: u64,
        answered: u64,
        cookies: u64,
        /// Cookies seen come back, by number.
        seen_cookie: Option<u64>,
        untrusted: Option<String>,
        quit: bool,
    }

    /// Watches the workspace until asked to stop, or until the workspace
    /// or its `.memlint/` goes away. `started` is told once every watch is
    /// in place and the socket answers.
    pub fn run(ws: &Workspace, started: impl FnOnce(&Status)) -> Result<(), Error> {
        let io = |what: &Path| {
            let shown = what.display().to_string();
            move |e| Error::Io(shown, e)
        };
        remote_refused(&ws.root)?;
        let own = crate::io::cache::make_dir(&ws.root).map_err(io(&ws.root))?;
        let lock_path = own.join(LOCK);
        let mut lock = crate::io::fs::open_regular_options(
            &lock_path,
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true),
        )
        .map_err(io(&lock_path))?;
        // SAFETY: a valid open descriptor; flock has no memory effects.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Err(Error::Running(
                ws.root.display().to_string(),
                super::recorded_pid(&own),
            ));
        }
        lock.set_len(0).map_err(io(&lock_path))?;
        writeln!(lock, "{}", std::process::id()).map_err(io(&lock_path))?;

        // SAFETY: no pointers involved; the result is checked.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if fd < 0 {
            return Err(io(&ws.root)(std::io::Error::last_os_error()));
        }
        let instance = {
            let now = crate::io::stat::now_ns() as u64;
            xxhash_rust::xxh3::xxh3_64(
                &[
                    now.to_le_bytes(),
                    u64::from(std::process::id()).to_le_bytes(),
                ]
                .concat(),
            )
        };
        let root_meta = std::fs::metadata(&ws.root).map_err(io(&ws.root))?;
        let mut w = Watcher {
            root_id: (root_meta.dev(), root_meta.ino()),
            root: ws.root.clone(),
            own: own.clone(),
            // SAFETY: `fd` was just opened and is owned here alone.
            inotify: unsafe { OwnedFd::from_raw_fd(fd) },
            dirs: HashMap::new(),
            own_wd: -1,
            root_wd: -1,
            git_wd: -1,
            tops: tops(ws),
            instance,
            seq: 0,
            answered: 0,
            cookies: 0,
            seen_cookie: None,
            untrusted: None,
            quit: false,
        };
        w.own_wd = w.add(&own, OWN_EVENTS).map_err(io(&own))?;
        w.root_wd = w.add(&ws.root, DIR_EVENTS).map_err(io(&ws.root))?;
        w.watch_everything();

        // A socket left by a watcher that died: the lock says none runs.
        let socket = own.join(SOCKET);
        match std::fs::remove_file(&socket) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&socket)(e)),
            _ => {}
        }
        let listener =
            super::unix::with_short_path(&own, |p| UnixListener::bind(p)).map_err(io(&socket))?;
        listener.set_nonblocking(true).map_err(io(&socket))?;
        let bound = std::fs::symlink_metadata(&socket).map(|m| m.ino()).ok();
        // A mount inside the workspace shows a tree no watch is on: the
        // mount table, when it can be polled, says when to look again.
        let mounts = std::fs::File::open("/proc/self/mounts").ok();
        started(&w.status());
        while !w.quit {
            let mut fds = [
                libc::pollfd {
                    fd: w.inotify.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: listener.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                libc::pollfd {
                    fd: mounts.as_ref().map_or(-1, |f| f.as_raw_fd()),
                    events: libc::POLLPRI,
                    revents: 0,
                },
            ];
            // SAFETY: `fds` is valid for its length.
            let r = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
            if r < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(io(&ws.root)(e));
            }
            if fds[0].revents != 0 {
                w.read_events();
            }
            if fds[2].revents & (libc::POLLPRI | libc::POLLERR) != 0 {
                w.seq += 1;
                w.watch_everything();
            }
            if fds[1].revents != 0 {
                while let Ok((stream, _)) = listener.accept() {
                    w.serve(stream);
                    if w.quit {
                        break;
                    }
                }
            }
        }
        // Only our own socket: another watcher may have replaced it (after
        // `.memlint/` was deleted and made again).
        let ours = std::fs::symlink_metadata(&socket).map(|m| m.ino()).ok();
        if ours.is_some() && ours == bound {
            let _ = std::fs::remove_file(&socket);
        }
        drop(lock);
        Ok(())
    }

    /// Refuses a root on a file system changed from elsewhere.
    fn remote_refused(root: &Path) -> Result<(), Error> {
        local(root).map_err(|why| {
            Error::Unsupported(format!("{} {why}, so it is not watched", root.display()))
        })
    }

    impl Watcher {
        fn add(&mut self, dir: &Path, mask: u32) -> std::io::Result<i32> {
            use std::os::unix::ffi::OsStrExt;
            let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
            // SAFETY: a valid descriptor and C string.
            let wd = unsafe { libc::inotify_add_watch(self.inotify.as_raw_fd(), c.as_ptr(), mask) };
            if wd < 0 {
                return Err(std::io::Error::last_os_error());
            }
            self.dirs.insert(wd, dir.to_path_buf());
            Ok(wd)
        }

        fn rel(&self, path: &Path) -> Option<String> {
            let rel = path.strip_prefix(&self.root).ok()?;
            Some(
                rel.components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/"),
            )
        }

        fn distrust(&mut self, why: String) {
            if self.untrusted.is_none() {
                self.untrusted = Some(why);
            }
        }

        /// Watches `dir` when it can hold records or lead to them, and
        /// what lies below it that can.
        fn watch_tree(&mut self, dir: &Path) {
            let Some(rel) = self.rel(dir) else { return };
            let reach = reach(&self.tops, &rel);
            if reach == Reach::Outside {
                return;
            }
            match self.add(dir, DIR_EVENTS) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => {
                    self.distrust(
                        "the inotify watch limit is reached (raise fs.inotify.max_user_watches)"
                            .into(),
                    );
                    return;
                }
                // Gone already, or not a directory (a link is not followed):
                // its parent's event said so.
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::ENOENT | libc::ENOTDIR | libc::ELOOP)
                    ) =>
                {
                    if reach == Reach::Inside
                        && std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink())
                    {
                        self.distrust(format!("{rel} is a symbolic link"));
                    }
                    return;
                }
                // Unreadable (permissions): what it will hold is never seen.
                Err(e) => {
                    self.distrust(format!("{rel} cannot be watched ({e})"));
                    return;
                }
            }
            if let Err(why) = local(dir) {
                self.distrust(format!("{rel} {why}"));
                return;
            }
            self.distrust_linked_ignore_files(dir, &rel);
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    self.watch_tree(&entry.path());
                } else if kind.is_symlink() && reach == Reach::Inside {
                    let rel = format!("{rel}/{}", entry.file_name().to_string_lossy());
                    self.distrust(format!("{rel} is a symbolic link"));
                }
            }
        }

        /// Watches every directory that matters, as at the start (again
        /// after the kernel dropped events).
        fn watch_everything(&mut self) {
            // The git directory whose `info/exclude` applies: `.git`, what a
            // `.git` link points at, or a worktree's common directory.
            let git = crate::io::ignores::git_common_dir(&self.root);
            let git = std::fs::canonicalize(&git).unwrap_or(git);
            if git.is_dir() {
                match self.add(&git, DIR_EVENTS) {
                    Ok(wd) => self.git_wd = wd,
                    Err(e) => self.add_failed(&git, e),
                }
                let info = git.join("info");
                if std::fs::metadata(info.join("exclude")).is_ok_and(|m| !m.is_file()) {
                    self.distrust(format!(
                        "{} is not a regular file",
                        info.join("exclude").display()
                    ));
                }
                if info.is_dir() {
                    if let Err(e) = self.add(&info, DIR_EVENTS) {
                        self.add_failed(&info, e);
                    }
                } else if info.is_symlink() {
                    self.distrust(format!("{} is a symbolic link", info.display()));
                }
            }
            self.distrust_linked_ignore_files(&self.root.clone(), "");
            let mut leads: Vec<PathBuf> = Vec::new();
            for top in self.tops.clone() {
                let mut at = self.root.clone();
                for part in top.split('/') {
                    at.push(part);
                    leads.push(at.clone());
                }
            }
            leads.sort();
            leads.dedup();
            for dir in leads {
                // A top's subtree is walked from the top itself; its
                // leading directories alone.
                if self.rel(&dir).is_some_and(|r| self.tops.contains(&r)) {
                    self.watch_tree(&dir);
                } else if dir.is_dir() && !dir.is_symlink() {
                    match self.add(&dir, DIR_EVENTS) {
                        Ok(_) => {
                            let rel = self.rel(&dir).unwrap_or_default();
                            self.distrust_linked_ignore_files(&dir, &rel);
                        }
                        Err(e) => self.add_failed(&dir, e),
                    }
                }
            }
        }

        /// A watch on a directory that exists could not be added: on a
        /// full watch table or without permission, changes there go unseen.
        fn add_failed(&mut self, dir: &Path, e: std::io::Error) {
            match e.raw_os_error() {
                Some(libc::ENOENT | libc::ENOTDIR) => {}
                Some(libc::ENOSPC) => self.distrust(
                    "the inotify watch limit is reached (raise fs.inotify.max_user_watches)".into(),
                ),
                _ => self.distrust(format!("{} cannot be watched ({e})", dir.display())),
            }
        }

        /// An ignore file that is a link changes with its target, which
        /// may lie anywhere: not followed. One that is not a regular file
        /// is not read, and every walk says so: no walk is spared.
        fn distrust_linked_ignore_files(&mut self, dir: &Path, rel: &str) {
            for name in IGNORE_FILES {
                let Ok(meta) = std::fs::symlink_metadata(dir.join(name)) else {
                    continue;
                };
                let shown = if rel.is_empty() {
                    name.to_string()
                } else {
                    format!("{rel}/{name}")
                };
                if meta.file_type().is_symlink() {
                    self.distrust(format!("{shown} is a symbolic link"));
                } else if !meta.is_file() {
                    self.distrust(format!("{shown} is not a regular file"));
                }
            }
        }

        /// Reads and handles every event queued.
        fn read_events(&mut self) {
            #[repr(C, align(8))]
            struct Buf([u8; 64 * 1024]);
            let mut buf = Buf([0; 64 * 1024]);
            loop {
                // SAFETY: `buf` is valid for writes of its length.
                let n = unsafe {
                    libc::read(
                        self.inotify.as_raw_fd(),
                        buf.0.as_mut_ptr().cast(),
                        buf.0.len(),
                    )
                };
                if n <= 0 {
                    return;
                }
                let mut at = 0usize;
                let n = n as usize;
                let head = std::mem::size_of::<libc::inotify_event>();
                while at + head <= n {
                    // SAFETY: the kernel wrote whole events; read unaligned
                    // to be safe whatever the offset.
                    let ev: libc::inotify_event =
                        unsafe { std::ptr::read_unaligned(buf.0.as_ptr().add(at).cast()) };
                    let name_bytes = &buf.0[at + head..(at + head + ev.len as usize).min(n)];
                    let end = name_bytes
                        .iter()
                        .position(|b| *b == 0)
                        .unwrap_or(name_bytes.len());
                    let name = String::from_utf8_lossy(&name_bytes[..end]).into_owned();
                    self.event(ev.wd, ev.mask, &name);
                    at += head + ev.len as usize;
                }
            }
        }

        fn event(&mut self, wd: i32, mask: u32, name: &str) {
            if mask & libc::IN_Q_OVERFLOW != 0 {
                self.seq += 1;
                self.watch_everything();
                return;
            }
            if wd == self.own_wd {
                if mask & (libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_IGNORED) != 0
                    || (name == SOCKET && mask & (libc::IN_DELETE | libc::IN_MOVED_FROM) != 0)
                {
                    self.quit = true;
                }
                if mask & libc::IN_CREATE != 0 {
                    if let Some(n) = name
                        .strip_prefix(COOKIE)
                        .and_then(|rest| rest.strip_prefix(&format!("{}-", std::process::id())))
                        .and_then(|n| n.parse().ok())
                    {
                        self.seen_cookie = Some(n);
                    }
                }
                return;
            }
            if wd == self.root_wd {
                if mask & (libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_IGNORED) != 0 {
                    self.quit = true;
                    return;
                }
                if name == crate::io::cache::DIR {
                    return;
                }
                if name == ".git" {
                    // Made, removed, or pointed elsewhere (a worktree's file).
                    self.seq += 1;
                    self.watch_everything();
                    return;
                }
            }
            if wd == self.git_wd && wd != -1 {
                if name == "info" {
                    self.seq += 1;
                    self.watch_everything();
                } else if mask & (libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_IGNORED) != 0
                {
                    self.seq += 1;
                    self.dirs.remove(&wd);
                    self.git_wd = -1;
                }
                return;
            }
            if mask & libc::IN_UNMOUNT != 0 {
                self.distrust("a watched file system was unmounted".into());
            }
            self.seq += 1;
            let Some(dir) = self.dirs.get(&wd).cloned() else {
                return;
            };
            if mask & libc::IN_IGNORED != 0 {
                self.dirs.remove(&wd);
                return;
            }
            if mask & (libc::IN_CREATE | libc::IN_MOVED_TO) == 0 || name.is_empty() {
                return;
            }
            let path = dir.join(name);
            if IGNORE_FILES.contains(&name) {
                let rel = self.rel(&dir).unwrap_or_default();
                self.distrust_linked_ignore_files(&dir, &rel);
            } else if mask & libc::IN_ISDIR != 0 {
                self.watch_tree(&path);
            } else if self
                .rel(&path)
                .is_some_and(|r| reach(&self.tops, &r) == Reach::Inside)
                && std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink())
            {
                let rel = self.rel(&path).unwrap_or_default();
                self.distrust(format!("{rel} is a symbolic link"));
            }
        }

        fn status(&self) -> Status {
            Status {
                pid: std::process::id(),
                dirs: self.dirs.len(),
                events: self.seq,
                answered: self.answered,
                untrusted: self.untrusted.clone(),
            }
        }

        /// Reads every event up to now: creates a cookie in `.memlint/`
        /// and reads events until it comes back. False when it did not
        /// within the time a command waits.
        fn catch_up(&mut self) -> bool {
            self.cookies += 1;
            let n = self.cookies;
            let cookie = self.own.join(format!("{COOKIE}{}-{n}", std::process::id()));
            if std::fs::File::create(&cookie).is_err() {
                return false;
            }
            let deadline = Instant::now() + Duration::from_millis(900);
            let mut caught = false;
            while !self.quit {
                self.read_events();
                if self.seen_cookie.is_some_and(|s| s >= n) {
                    caught = true;
                    break;
                }
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                let mut fd = libc::pollfd {
                    fd: self.inotify.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd.
                unsafe { libc::poll(&mut fd, 1, left.as_millis().max(1) as i32) };
            }
            let _ = std::fs::remove_file(&cookie);
            caught
        }

        fn serve(&mut self, stream: UnixStream) {
            let _ = stream.set_nonblocking(false);
            let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
            let _ = stream.set_write_timeout(Some(Duration::from_millis(500)));
            if super::unix::same_user(&stream).is_err() {
                return;
            }
            let mut line = String::new();
            if std::io::BufReader::new(&stream)
                .take(4096)
                .read_line(&mut line)
                .is_err()
            {
                return;
            }
            self.answered += 1;
            let mut words = line.split_whitespace();
            let question = words.next().unwrap_or_default();
            let asker = (
                words.next().and_then(|w| w.parse::<u64>().ok()),
                words.next().and_then(|w| w.parse::<u64>().ok()),
            );
            let question = match asker {
                (Some(dev), Some(ino)) if (dev, ino) == self.root_id => question,
                _ => "elsewhere",
            };
            let answer = match question {
                "sync" => match (self.catch_up(), &self.untrusted) {
                    (_, Some(why)) => format!("untrusted {why}"),
                    (true, None) => {
                        let t = Token {
                            instance: self.instance,
                            seq: self.seq,
                        };
                        format!("ok {} {}", t.instance, t.seq)
                    }
                    (false, None) => "busy".to_string(),
                },
                "status" => {
                    let s = self.status();
                    format!(
                        "pid {} dirs {} events {} answered {} {}",
                        s.pid,
                        s.dirs,
                        s.events,
                        s.answered,
                        s.untrusted.unwrap_or_default()
                    )
                }
                "stop" => {
                    self.quit = true;
                    "stopping".to_string()
                }
                "elsewhere" => "not the watcher of the asking root".to_string(),
                _ => "unknown question".to_string(),
            };
            let _ = (&stream).write_all(format!("{answer}\n").as_bytes());
        }
    }
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
}
