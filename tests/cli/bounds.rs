//! Every input is read within a bound (issue 44, items 10–16): bodies and
//! texts on standard input stop at `max_file_bytes`, a record over it is
//! not shown, git blobs and commit messages are not read whole, the
//! language server and the MCP server refuse oversized messages without
//! holding them, and a remote that never answers is given up.
//!
//! Each run's peak memory is taken from `wait4` (the child's maximum
//! resident set; on Linux it starts from this process's own peak, which
//! is why these tests never hold a large buffer themselves: streams are
//! generated on the fly, 100 MB each, and large files written in pieces),
//! against `max_file_bytes: 1000`.
#![cfg(unix)]

use crate::common;

use common::BIN;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// 100 MB: far above every bound, far below what a machine holds.
const STREAM: u64 = 100 << 20;
/// The most a bounded run may hold at its peak.
const BOUNDED_KIB: i64 = 64 << 10;

/// What a measured run gave.
#[derive(Debug)]
struct Measured {
    code: Option<i32>,
    signal: Option<i32>,
    /// At most the first 1 MiB of standard output.
    stdout: String,
    /// How many bytes standard output had in all.
    stdout_len: u64,
    /// How many lines.
    stdout_lines: u64,
    stderr: String,
    /// The peak resident set, in KiB.
    max_rss_kib: i64,
}

/// What standard input holds.
enum Feed {
    Nothing,
    Bytes(Vec<u8>),
    /// `prefix`, then `n` bytes of `x`, then `suffix`.
    Stream {
        prefix: Vec<u8>,
        n: u64,
        suffix: Vec<u8>,
    },
}

/// Runs memlint in `dir` with `feed` on standard input; a run that has not
/// ended after two minutes is killed and fails the test (a hang guard, not
/// a measure of speed).
fn measured(dir: &Path, args: &[&str], feed: Feed) -> Measured {
    measured_with(dir, args, feed, None)
}

fn measured_with(
    dir: &Path,
    args: &[&str],
    feed: Feed,
    stdout_gate: Option<Arc<AtomicU64>>,
) -> Measured {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn memlint");
    let written = Arc::new(AtomicU64::new(0));
    let mut stdin = child.stdin.take().expect("stdin");
    let counter = written.clone();
    let writer = std::thread::spawn(move || {
        // A broken pipe is expected: memlint stops reading early.
        let mut put = |bytes: &[u8]| {
            let ok = stdin.write_all(bytes).is_ok();
            counter.fetch_add(bytes.len() as u64, Ordering::SeqCst);
            ok
        };
        match feed {
            Feed::Nothing => {}
            Feed::Bytes(b) => {
                for chunk in b.chunks(1 << 16) {
                    if !put(chunk) {
                        return;
                    }
                }
            }
            Feed::Stream { prefix, n, suffix } => {
                if !put(&prefix) {
                    return;
                }
                let chunk = vec![b'x'; 1 << 16];
                let mut left = n;
                while left > 0 {
                    let k = left.min(chunk.len() as u64) as usize;
                    if !put(&chunk[..k]) {
                        return;
                    }
                    left -= k as u64;
                }
                put(&suffix);
            }
        }
        counter.fetch_or(1 << 62, Ordering::SeqCst);
    });
    let mut out = child.stdout.take().expect("stdout");
    let gate = stdout_gate.map(|_| written.clone());
    let reader = std::thread::spawn(move || {
        if let Some(written) = gate {
            // Read nothing while the writer still makes progress: a client
            // that does not read its replies.
            let mut last = u64::MAX;
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let now = written.load(Ordering::SeqCst);
                if now == last || now & (1 << 62) != 0 {
                    break;
                }
                last = now;
            }
        }
        let mut kept = Vec::new();
        let mut total = 0u64;
        let mut lines = 0u64;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match out.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    total += n as u64;
                    lines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
                    if kept.len() < 1 << 20 {
                        kept.extend_from_slice(&buf[..n]);
                    }
                }
            }
        }
        (kept, total, lines)
    });
    let mut err = child.stderr.take().expect("stderr");
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    let (status, rusage) = loop {
        let mut status = 0;
        // SAFETY: a zeroed rusage is a valid value to be filled in.
        let mut rusage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: waits for our own child, with valid out-pointers.
        let got = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut rusage) };
        if got == pid {
            break (status, rusage);
        }
        assert!(got == 0, "wait4: {}", std::io::Error::last_os_error());
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("memlint {args:?} did not exit");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = writer.join();
    let (stdout, stdout_len, stdout_lines) = reader.join().expect("reader");
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let stderr = err_reader.join().expect("stderr reader");
    assert!(!stderr.contains("panicked"), "memlint {args:?}: {stderr}");
    Measured {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        stdout,
        stdout_len,
        stdout_lines,
        stderr,
        max_rss_kib: rusage.ru_maxrss,
    }
}

/// A workspace in a git repository with `max_file_bytes: 1000`.
fn workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    common::git(tmp.path(), &["init", "-q", "-b", "main"]);
    let init = common::memlint(tmp.path(), &["init"]);
    assert_eq!(init.code, 0, "{init:?}");
    std::fs::write(tmp.path().join(".memlint.yml"), "max_file_bytes: 1000\n").expect("config");
    tmp
}

fn stream() -> Feed {
    Feed::Stream {
        prefix: Vec::new(),
        n: STREAM,
        suffix: Vec::new(),
    }
}

fn assert_bounded(run: &Measured, what: &str) {
    assert_bounded_by(run, what, BOUNDED_KIB);
}

fn assert_bounded_by(run: &Measured, what: &str, limit_kib: i64) {
    assert!(
        run.max_rss_kib < limit_kib,
        "{what} held {} KiB at its peak: {run:?}",
        run.max_rss_kib
    );
}

/// Files under the record directories (what a refused write must not add).
fn records(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for dir in ["memory", "knowledge", "staging"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                if e.path().is_dir() {
                    stack.push(e.path());
                } else {
                    found.push(e.path().display().to_string());
                }
            }
        }
    }
    found.sort();
    found
}

#[test]
fn bodies_on_standard_input_are_read_no_further_than_max_file_bytes() {
    let ws = workspace();
    let root = ws.path();
    let before = records(root);
    let cases: [(&[&str], &str); 3] = [
        (
            &[
                "new",
                "decision",
                "Big",
                "--source",
                "https://example.com/x",
                "--body-file",
                "-",
            ],
            "the body in standard input has more than 1000 bytes (`max_file_bytes`); nothing was written",
        ),
        (
            &["staging", "add", "--source", "tool", "--body-file", "-"],
            "the body in standard input has more than 1000 bytes (`max_file_bytes`); nothing was written",
        ),
        (
            &["compact", "import"],
            "the session text in standard input has more than 1000 bytes (`max_file_bytes`); nothing was stored",
        ),
    ];
    for (args, said) in cases {
        let run = measured(root, args, stream());
        assert_eq!(run.code, Some(1), "{args:?}: {run:?}");
        assert!(
            run.stderr
                .contains(&format!("memlint: error[format/too-large]: {said}")),
            "{args:?}: {}",
            run.stderr
        );
        assert_bounded(&run, &format!("{args:?}"));
        assert_eq!(records(root), before, "{args:?} wrote something");
    }
    // A body within the bound is still written.
    let run = measured(
        root,
        &["staging", "add", "--source", "tool", "--body-file", "-"],
        Feed::Bytes(b"a short log\n".to_vec()),
    );
    assert_eq!(run.code, Some(0), "{run:?}");
}

#[test]
fn fmt_stdin_stops_at_max_file_bytes_and_passes_other_text_through() {
    let ws = workspace();
    let root = ws.path();
    let run = measured(
        root,
        &["fmt", "--stdin-filepath", "memory/decisions/big.md"],
        stream(),
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(run.stdout_len, 0);
    assert!(
        run.stderr.contains(
            "memory/decisions/big.md: not formatted: the text has more than 1000 bytes (`max_file_bytes`)"
        ),
        "{}",
        run.stderr
    );
    assert_bounded(&run, "fmt --stdin-filepath (record)");
    // No record: the text comes back byte for byte, all of it, without
    // being held whole.
    let run = measured(
        root,
        &["fmt", "--stdin-filepath", "notes/big.txt"],
        stream(),
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout_len, STREAM);
    assert!(run.stdout.bytes().all(|b| b == b'x'));
    assert_bounded(&run, "fmt --stdin-filepath (other text)");
}

/// Writes a decision titled `title` at `rel` whose body is `n` bytes of
/// `fill`, in pieces.
fn big_record(root: &Path, rel: &str, title: &str, fill: u8, n: usize) {
    let mut f = std::fs::File::create(root.join(rel)).expect("create");
    write!(
        f,
        "---\ntitle: {title}\nstatus: active\ndate: 2026-01-02\nsources:\n  - https://example.com/x\n---\n"
    )
    .expect("write");
    let piece = vec![fill; 1 << 16];
    let mut left = n;
    while left > 0 {
        let k = left.min(piece.len());
        f.write_all(&piece[..k]).expect("write");
        left -= k;
    }
    f.write_all(b"\n").expect("write");
}

#[test]
fn show_and_memory_read_refuse_a_record_over_max_file_bytes() {
    let ws = workspace();
    let root = ws.path();
    big_record(root, "memory/decisions/big.md", "Big", b'y', 5 << 20);
    let run = measured(root, &["show", "big"], Feed::Nothing);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert_eq!(run.stdout_len, 0);
    assert!(
        run.stderr.contains(
            "memory/decisions/big.md has more than 1000 bytes (`max_file_bytes`); it is not shown"
        ),
        "{}",
        run.stderr
    );
    let input = format!(
        "{}\n{}\n{}\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_read","arguments":{"target":"big"}}}"#,
    );
    let run = measured(root, &["mcp"], Feed::Bytes(input.into_bytes()));
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout_len < 64 << 10, "{} bytes", run.stdout_len);
    let reply = reply(&run, 2);
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert!(reply.to_string().contains("it is not shown"), "{reply}");
}

/// The JSON-RPC message with `id` on standard output.
fn reply(run: &Measured, id: i64) -> serde_json::Value {
    run.stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("no reply to {id}: {run:?}"))
}

#[test]
fn git_blobs_and_commit_messages_are_read_within_bounds() {
    let ws = workspace();
    let root = ws.path();
    common::commit_all(root);
    // A 60 MB record at HEAD, its blob never inflated by `check --base`.
    big_record(root, "memory/decisions/huge.md", "Huge", b'z', 60 << 20);
    common::commit_all(root);
    std::fs::remove_file(root.join("memory/decisions/huge.md")).expect("rm");
    let run = measured(root, &["check", "--base", "HEAD~1"], Feed::Nothing);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stdout.contains(
            "memory/decisions/huge.md:1:1: the file has 62914648 bytes, more than `max_file_bytes` (1000);"
        ) && run.stdout.contains("it was not read"),
        "{run:?}"
    );
    assert_bounded(&run, "check --base");

    // A commit message of 3 MB, all of it lines that read as trailers.
    let mut message = String::from("Add a huge record\n\n");
    while message.len() < 3 << 20 {
        message.push_str("Memlint-GC: shred memory/decisions/huge everything\n");
    }
    let file = root.join(".git/MSG");
    std::fs::write(&file, message).expect("message");
    common::write(root, "memory/decisions/a.md", "x\n");
    common::git(root, &["add", "memory/decisions/a.md"]);
    let mut cmd = Command::new("git");
    common::test_identity(
        cmd.args(["commit", "-q", "-F"])
            .arg(&file)
            .current_dir(root),
    );
    assert!(cmd.status().expect("git").success());
    let run = measured(root, &["check", "--base", "HEAD~1"], Feed::Nothing);
    assert_eq!(run.code, Some(1), "{run:?}");
    // Its message is past the bound: no trailer of it is read.
    let printed = run.stdout_len + run.stderr.len() as u64;
    assert!(printed < 64 << 10, "check --base printed {printed} bytes");
    assert!(!run.stderr.contains("malformed"), "{run:?}");

    let run = measured(root, &["log", "--gc"], Feed::Nothing);
    assert_eq!(run.code, Some(0), "{run:?}");
    let printed = run.stdout_len + run.stderr.len() as u64;
    assert!(printed < 64 << 10, "log --gc printed {printed} bytes");
    let run = measured(root, &["log", "--format", "json"], Feed::Nothing);
    assert_eq!(run.code, Some(0), "{run:?}");
    let log: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let summary = log["commits"][0]["summary"].as_str().expect("summary");
    assert!(
        summary.starts_with("Add a huge record [a message of ")
            && summary.ends_with("bytes, more than 1048576: only its first line is read]"),
        "{summary}"
    );
}

#[test]
fn the_language_server_bounds_a_message_before_it_reads_the_body() {
    let ws = workspace();
    let root = ws.path();
    let said = |run: &Measured, what: &str| {
        assert_eq!((run.code, run.signal), (Some(1), None), "{run:?}");
        assert!(
            run.stderr
                .contains(&format!("memlint server: error: {what}")),
            "{}",
            run.stderr
        );
        assert_bounded(run, "server");
    };
    // A length no machine holds: refused at once (it used to abort).
    let run = measured(
        root,
        &["server"],
        Feed::Bytes(b"Content-Length: 99999999999999\r\n\r\n{".to_vec()),
    );
    said(
        &run,
        "a message declares Content-Length 99999999999999, more than the 16777216 bytes a message may have",
    );
    // A 100 MB body that is really sent: refused before a byte of it is held.
    let run = measured(
        root,
        &["server"],
        Feed::Stream {
            prefix: format!("Content-Length: {STREAM}\r\n\r\n").into_bytes(),
            n: STREAM,
            suffix: Vec::new(),
        },
    );
    said(
        &run,
        "a message declares Content-Length 104857600, more than the 16777216 bytes a message may have",
    );
    // A header line that never ends.
    let run = measured(root, &["server"], stream());
    said(&run, "a message header line is longer than 4096 bytes");
}

const MCP_INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

#[test]
fn mcp_answers_an_oversized_request_with_an_error_and_holds_none_of_it() {
    let ws = workspace();
    let root = ws.path();
    // A 100 MB request: refused under its id, and the server goes on.
    let prefix = format!(
        "{MCP_INIT}{}",
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_write","arguments":{"kind":"decision","title":"Big","body":""#
    );
    let suffix = format!(
        "\"}}}}}}\n{}\n",
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"memory_recent","arguments":{"limit":1}}}"#
    );
    let run = measured(
        root,
        &["mcp"],
        Feed::Stream {
            prefix: prefix.into_bytes(),
            n: STREAM,
            suffix: suffix.into_bytes(),
        },
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let refused = reply(&run, 7);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let message = refused["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("more than the 15728640 a message may have; it was not read"),
        "{message}"
    );
    assert_eq!(reply(&run, 8)["result"]["isError"], false);
    // A request up to the bound (15 MiB) is read whole before it is
    // judged: at most that is held.
    assert_bounded_by(&run, "mcp (oversized request)", 96 << 10);

    // 100 MB without a newline: one error, no id to answer under.
    let run = measured(
        root,
        &["mcp"],
        Feed::Stream {
            prefix: MCP_INIT.as_bytes().to_vec(),
            n: STREAM,
            suffix: Vec::new(),
        },
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let errors: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["id"].is_null() && m["error"]["code"] == -32600)
        .collect();
    assert_eq!(errors.len(), 1, "{run:?}");
    assert_bounded_by(&run, "mcp (endless line)", 96 << 10);
}

#[test]
fn mcp_reads_no_faster_than_a_client_takes_its_answers() {
    let ws = workspace();
    // A million malformed lines from a client that reads nothing while it
    // writes: each gets its parse error, and they do not pile up.
    const LINES: u64 = 1_000_000;
    let mut input = MCP_INIT.as_bytes().to_vec();
    input.extend(std::iter::repeat_n(*b"x\n", LINES as usize).flatten());
    let run = measured_with(
        ws.path(),
        &["mcp"],
        Feed::Bytes(input),
        Some(Arc::new(AtomicU64::new(0))),
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout_lines, LINES + 1);
    assert_bounded(&run, "mcp (unread answers)");
}

/// memlint's own caches under `.memlint/` are mapped, not read, when they
/// are large; one over the bound every cache is read within (2 GiB) is
/// refused unmapped and rebuilt, never paged in whole. Sparse files: 2 GiB
/// on paper, nothing on disk.
#[test]
fn a_cache_over_its_bound_is_rebuilt_not_mapped() {
    let ws = workspace();
    let root = ws.path();
    std::fs::write(
        root.join("memory/decisions/use-sqlite.md"),
        "---\ntitle: Use SQLite\nstatus: active\ndate: 2026-01-02\nsources:\n  - https://example.com/x\n---\n\nOne file.\n",
    )
    .expect("record");
    let first = measured(root, &["check"], Feed::Nothing);
    assert_eq!(first.code, Some(0), "{first:?}");
    for cache in ["index", "listing"] {
        let file = std::fs::File::create(root.join(".memlint").join(cache)).expect("create");
        file.set_len((2 << 30) + 1).expect("set_len");
    }
    let run = measured(root, &["check"], Feed::Nothing);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, first.stdout);
    assert_bounded(&run, "check over oversized caches");
    for cache in ["index", "listing"] {
        let len = std::fs::metadata(root.join(".memlint").join(cache))
            .expect("rebuilt")
            .len();
        assert!(len < 1 << 20, "{cache} was not rebuilt: {len} bytes");
    }
}
