//! The watcher's recall socket, `.memlint/recall.sock`: a watcher started
//! by `memlint watch` also keeps the search index in memory and answers
//! queries here, so that a command started for every prompt (`memlint hook
//! prompt`) need not load the index itself.
//!
//! One line each way: the question (at most [`MAX_QUESTION`] bytes) and
//! the answer (at most [`MAX_ANSWER`] bytes), each ending with a newline.
//! The socket is made readable and writable by its owner only; a client
//! refuses a socket file owned by another user and a peer running as
//! another user, and the server refuses such peers too. A client waits
//! only as long as it is told and treats anything else (no socket, a
//! stale one, a refusal, a cut answer, a timeout) as an error, after which
//! it answers by itself.
//!
//! What the lines mean is the caller's (see `engine::search::served`).

use std::path::Path;
use std::time::{Duration, Instant};

/// The socket's name inside `.memlint/`.
pub(crate) const RECALL_SOCKET: &str = "recall.sock";

/// Longest question read, newline included.
pub(crate) const MAX_QUESTION: usize = 64 << 10;

/// Longest answer read, newline included.
pub(crate) const MAX_ANSWER: usize = 16 << 20;

/// How long the server waits for a client's question.
const QUESTION_WITHIN: Duration = Duration::from_millis(500);

/// A bound recall socket, removed when dropped if it is still this one.
#[cfg(unix)]
pub(crate) struct Bound {
    listener: std::os::unix::net::UnixListener,
    path: std::path::PathBuf,
    ino: Option<u64>,
}

/// Binds `.memlint/recall.sock` in the workspace at `root` (replacing a
/// file left there by a watcher that died: the caller holds the watcher's
/// lock), readable and writable by its owner only.
#[cfg(unix)]
pub(crate) fn bind(root: &Path) -> std::io::Result<Bound> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::net::UnixListener;
    let own = root.join(crate::io::cache::DIR);
    let path = own.join(RECALL_SOCKET);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    // Peers of another user are refused on both sides whatever the
    // socket's mode; it is set to 0600 as well.
    let listener =
        super::client::unix::with_short_path_to(&own, RECALL_SOCKET, |p| UnixListener::bind(p))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    let ino = std::fs::symlink_metadata(&path).map(|m| m.ino()).ok();
    Ok(Bound {
        listener,
        path,
        ino,
    })
}

#[cfg(unix)]
impl Bound {
    /// Answers every question with `answer` in a thread of its own until
    /// the process ends (`first` runs there before). A question is handled
    /// at a time; a peer of another user, a question that is too long, not
    /// ended or not in time gets no answer.
    pub(crate) fn spawn(
        &self,
        first: impl FnOnce() + Send + 'static,
        answer: impl FnMut(&str) -> String + Send + 'static,
    ) -> std::io::Result<()> {
        let listener = self.listener.try_clone()?;
        std::thread::Builder::new()
            .name("recall".into())
            .spawn(move || {
                first();
                serve(&listener, answer)
            })?;
        Ok(())
    }
}

#[cfg(unix)]
fn serve(listener: &std::os::unix::net::UnixListener, mut answer: impl FnMut(&str) -> String) {
    {
        for stream in listener.incoming() {
            let Ok(stream) = stream else {
                continue;
            };
            if let Some(question) = read_question(&stream) {
                use std::io::Write;
                let mut line = answer(&question);
                line.retain(|c| c != '\n');
                line.push('\n');
                let _ = stream.set_write_timeout(Some(super::within(QUESTION_WITHIN)));
                let _ = (&stream).write_all(line.as_bytes());
            }
        }
    }
}

#[cfg(unix)]
impl Drop for Bound {
    fn drop(&mut self) {
        use std::os::unix::fs::MetadataExt;
        // Only our own socket: another watcher may have bound it anew.
        let now = std::fs::symlink_metadata(&self.path).map(|m| m.ino()).ok();
        if now.is_some() && now == self.ino {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(unix)]
fn read_question(stream: &std::os::unix::net::UnixStream) -> Option<String> {
    use std::io::{BufRead, Read};
    stream.set_nonblocking(false).ok()?;
    stream
        .set_read_timeout(Some(super::within(QUESTION_WITHIN)))
        .ok()?;
    super::client::unix::same_user(stream).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(stream.take(MAX_QUESTION as u64))
        .read_until(b'\n', &mut line)
        .ok()?;
    if line.pop() != Some(b'\n') {
        return None;
    }
    String::from_utf8(line).ok()
}

/// Sends `question` (one line) to the recall socket of the workspace at
/// `root` and returns the answer line, without its newline, when a
/// watcher of this user answers whole within `within`.
#[cfg(unix)]
pub(crate) fn ask(root: &Path, question: &str, within: Duration) -> std::io::Result<String> {
    use std::io::{Read, Write};
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let deadline = Instant::now() + within;
    let dir = root.join(crate::io::cache::DIR);
    let meta = std::fs::symlink_metadata(dir.join(RECALL_SOCKET))?;
    // SAFETY: getuid cannot fail.
    if !meta.file_type().is_socket() || meta.uid() != unsafe { libc::getuid() } {
        return Err(std::io::ErrorKind::PermissionDenied.into());
    }
    if question.contains('\n') || question.len() >= MAX_QUESTION {
        return Err(std::io::ErrorKind::InvalidInput.into());
    }
    let stream = super::client::unix::connect_to(&dir, RECALL_SOCKET)?;
    super::client::unix::same_user(&stream)?;
    let left = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or(std::io::Error::from(std::io::ErrorKind::TimedOut))
    };
    stream.set_write_timeout(Some(left()?))?;
    (&stream).write_all(format!("{question}\n").as_bytes())?;
    let mut answer = Vec::new();
    let mut chunk = [0u8; 64 << 10];
    loop {
        stream.set_read_timeout(Some(left()?))?;
        let n = (&stream).read(&mut chunk)?;
        if n == 0 {
            // The server went away before the answer's end.
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        answer.extend_from_slice(&chunk[..n]);
        if answer.last() == Some(&b'\n') {
            answer.pop();
            break;
        }
        if answer.len() >= MAX_ANSWER {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
    }
    String::from_utf8(answer).map_err(|_| std::io::ErrorKind::InvalidData.into())
}

/// Recall through a watcher needs Unix sockets.
#[cfg(not(unix))]
pub(crate) fn ask(_root: &Path, _question: &str, _within: Duration) -> std::io::Result<String> {
    Err(std::io::ErrorKind::Unsupported.into())
}
