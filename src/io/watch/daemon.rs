//! The watcher itself (`memlint watch run`, Linux only): it holds an
//! inotify watch on every directory that can hold records or change what is
//! listed, counts what happens in them, and answers the client's questions
//! over `.memlint/watch.sock` (see [`crate::io::watch::client`] for the
//! protocol and what it is for).

use crate::io::ignores::NAMES as IGNORE_FILES;
use crate::io::watch::client::{reach, tops, Error, Reach, Status, Token, COOKIE, LOCK, SOCKET};
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
pub(crate) fn run(ws: &Workspace, started: impl FnOnce(&Status)) -> Result<(), Error> {
    let io = |what: &Path| {
        let shown = what.display().to_string();
        move |e| Error::Io(shown, e)
    };
    remote_refused(&ws.root)?;
    let own = crate::io::cache::make_dir(&ws.root).map_err(io(&ws.root))?;
    let lock = take_lock(&ws.root, &own)?;

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
    let listener = crate::io::watch::client::unix::with_short_path(&own, |p| UnixListener::bind(p))
        .map_err(io(&socket))?;
    listener.set_nonblocking(true).map_err(io(&socket))?;
    let bound = std::fs::symlink_metadata(&socket).map(|m| m.ino()).ok();
    // A mount inside the workspace shows a tree no watch is on: the
    // mount table, when it can be polled, says when to look again.
    let mounts = std::fs::File::open("/proc/self/mounts").ok();
    started(&w.status());
    serve_until_quit(&mut w, &listener, mounts.as_ref()).map_err(io(&ws.root))?;
    // Only our own socket: another watcher may have replaced it (after
    // `.memlint/` was deleted and made again).
    let ours = std::fs::symlink_metadata(&socket).map(|m| m.ino()).ok();
    if ours.is_some() && ours == bound {
        let _ = std::fs::remove_file(&socket);
    }
    drop(lock);
    Ok(())
}

/// Takes the lock that lets one watcher run per workspace (`own` is its
/// `.memlint/`), and writes this process's id in it.
fn take_lock(root: &Path, own: &Path) -> Result<std::fs::File, Error> {
    let lock_path = own.join(LOCK);
    let io = |e| Error::Io(lock_path.display().to_string(), e);
    let mut lock = crate::io::fs::open_regular_options(
        &lock_path,
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true),
    )
    .map_err(io)?;
    // SAFETY: a valid open descriptor; flock has no memory effects.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(Error::Running(
            root.display().to_string(),
            crate::io::watch::client::recorded_pid(own),
        ));
    }
    lock.set_len(0).map_err(io)?;
    writeln!(lock, "{}", std::process::id()).map_err(io)?;
    Ok(lock)
}

/// Reads events, follows mounts and answers questions until asked to stop
/// (or until the workspace or its `.memlint/` goes away).
fn serve_until_quit(
    w: &mut Watcher,
    listener: &UnixListener,
    mounts: Option<&std::fs::File>,
) -> std::io::Result<()> {
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
                fd: mounts.map_or(-1, |f| f.as_raw_fd()),
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
            return Err(e);
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
                    "the inotify watch limit is reached (raise fs.inotify.max_user_watches)".into(),
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
            } else if mask & (libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_IGNORED) != 0 {
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
        let deadline = Instant::now() + super::within(Duration::from_millis(900));
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
        let _ = stream.set_read_timeout(Some(super::within(Duration::from_millis(500))));
        let _ = stream.set_write_timeout(Some(super::within(Duration::from_millis(500))));
        if crate::io::watch::client::unix::same_user(&stream).is_err() {
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
