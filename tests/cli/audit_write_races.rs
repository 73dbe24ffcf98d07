//! Many writers changing one record at once (issue 44, item 8): every
//! write memlint says succeeded is on disk or was overwritten by a later
//! success, and no write it says failed ("nothing was written") is ever
//! on disk. Threads calling the engine's `update` (what the MCP server's
//! `memory_update` runs), then real `memlint mcp` processes.

use crate::common;

use memlint::engine::author::{self, AuthorError, Changes};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier, Mutex};
use std::time::Instant;

const RECORD: &str = "memory/decisions/use-gix.md";

/// A workspace holding one active decision, tagged `start`.
fn workspace() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join(".memlint.yml"), "max_sources: 10\n").expect("write");
    common::write(
        tmp.path(),
        RECORD,
        "---\ntitle: Use gix for git\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://github.com/GitoxideLabs/gitoxide\ntags: [start]\n---\n\nWe read git with gix.\n",
    );
    tmp
}

/// The tag on disk (each writer writes one tag of its own).
fn tag_on_disk(root: &Path) -> String {
    let text = fs::read_to_string(root.join(RECORD)).expect("read");
    let line = text
        .lines()
        .find(|l| l.starts_with("tags: ["))
        .unwrap_or_else(|| panic!("no tags line:\n{text}"));
    line["tags: [".len()..line.len() - 1].to_string()
}

/// One writer's attempt: its tag, whether memlint said it was written,
/// and when the call started and returned.
#[derive(Debug, Clone)]
struct Attempt {
    tag: String,
    written: bool,
    start: Instant,
    end: Instant,
}

/// Checks one round: `before` was on disk when it started, `after` when
/// every attempt had returned.
fn check_round(round: usize, before: &str, after: &str, attempts: &[Attempt]) {
    let failed: Vec<&Attempt> = attempts.iter().filter(|a| !a.written).collect();
    let written: Vec<&Attempt> = attempts.iter().filter(|a| a.written).collect();
    assert!(
        failed.iter().all(|a| a.tag != after),
        "round {round}: `{after}` is on disk, but its writer was told nothing was written: {attempts:#?}"
    );
    let Some(last) = written.iter().find(|a| a.tag == after) else {
        assert!(
            written.is_empty() && after == before,
            "round {round}: `{after}` is on disk, but {} succeeded: {attempts:#?}",
            written.len()
        );
        return;
    };
    // A success that started after the one on disk had returned read it,
    // so it must have replaced it: the one on disk is the last.
    for a in &written {
        assert!(
            a.start <= last.end,
            "round {round}: `{}` succeeded after `{after}` was written, yet `{after}` is on disk (so `{}` was lost): {attempts:#?}",
            a.tag,
            a.tag
        );
    }
}

#[test]
fn eight_threads_updating_one_record_1000_times_never_lose_a_success_or_keep_a_failure() {
    const WRITERS: usize = 8;
    const ROUNDS: usize = 1000;
    let tmp = workspace();
    let root = tmp.path().canonicalize().expect("canonical");
    let ws = Arc::new(
        memlint::engine::workspace::load(
            &memlint::engine::workspace::Surroundings {
                cwd: &root,
                env: &|_| None,
            },
            Some(&root),
            None,
        )
        .expect("workspace"),
    );
    let barrier = Arc::new(Barrier::new(WRITERS));
    let rounds: Arc<Mutex<Vec<Vec<Attempt>>>> = Arc::new(Mutex::new(vec![Vec::new(); ROUNDS]));
    let disk: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(vec![String::new(); ROUNDS]));
    let started = Instant::now();
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (ws, barrier, rounds, disk, root) = (
                ws.clone(),
                barrier.clone(),
                rounds.clone(),
                disk.clone(),
                root.clone(),
            );
            std::thread::spawn(move || {
                for r in 0..ROUNDS {
                    barrier.wait();
                    let tag = format!("w{w}-r{r}");
                    let changes = Changes {
                        tags: Some(vec![tag.clone()]),
                        ..Changes::default()
                    };
                    let start = Instant::now();
                    let result = author::update(&ws, "use-gix", &changes, &mut Vec::new());
                    let end = Instant::now();
                    let written = match result {
                        Ok(u) => {
                            assert!(u.changed, "{u:?}");
                            true
                        }
                        Err(AuthorError::Changed(_)) => false,
                        Err(e) => panic!("round {r}, writer {w}: {e}"),
                    };
                    rounds.lock().expect("lock")[r].push(Attempt {
                        tag,
                        written,
                        start,
                        end,
                    });
                    if barrier.wait().is_leader() {
                        disk.lock().expect("lock")[r] = tag_on_disk(&root);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("writer thread");
    }
    let (rounds, disk) = (rounds.lock().expect("lock"), disk.lock().expect("lock"));
    let mut before = "start".to_string();
    let mut successes = 0;
    let mut contested = 0;
    for (r, attempts) in rounds.iter().enumerate() {
        assert_eq!(attempts.len(), WRITERS);
        check_round(r, &before, &disk[r], attempts);
        let won = attempts.iter().filter(|a| a.written).count();
        successes += won;
        contested += usize::from(won < WRITERS);
        before = disk[r].clone();
    }
    // Writers did overlap: rounds had a loser. (How many depends on the
    // machine's load, which serialises the threads more or less.)
    assert!(
        contested > 0,
        "{contested} of {ROUNDS} rounds contested, {successes} successes"
    );
    eprintln!(
        "{WRITERS} writers x {ROUNDS} rounds: {successes} successes in {:?}",
        started.elapsed()
    );
}

/// A `memlint mcp` server driven over its standard input and output.
struct Client {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Client {
    fn start(root: &Path, hold: &Path) -> Client {
        let mut child = Command::new(common::BIN)
            .env("MEMLINT_TEST_HOLD_REPLACE", hold)
            .arg("--root")
            .arg(root)
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn memlint mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut c = Client {
            child,
            stdin,
            stdout,
            next: 1,
        };
        c.request("initialize", serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "race", "version": "1"}}));
        c.send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    fn send(&mut self, message: serde_json::Value) {
        writeln!(self.stdin, "{message}").expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and returns its response's `result`.
    fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        let id = self.next;
        self.next += 1;
        self.send(
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read");
            assert!(n > 0, "the server closed its output");
            let msg: serde_json::Value = serde_json::from_str(&line).expect("JSON-RPC");
            if msg["id"] == id {
                return msg["result"].clone();
            }
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Six `memlint mcp` processes, each told to update the record's tags in
/// the same round. The debug build's hold (`MEMLINT_TEST_HOLD_REPLACE`)
/// stops each one just before it compares and replaces the file, and a
/// conductor releases them together, so that their replaces overlap (a
/// release build has no hold: its clients race as they come).
#[test]
fn six_mcp_clients_running_memory_update_at_once_agree_with_the_disk() {
    const CLIENTS: usize = 6;
    const ROUNDS: usize = 100;
    let tmp = workspace();
    let root = tmp.path().canonicalize().expect("canonical");
    let hold = tempfile::tempdir().expect("tempdir");
    let (held, go) = (
        hold.path().join("use-gix.md.held"),
        hold.path().join("use-gix.md.go"),
    );
    // Clients and the conductor meet before each round and after it.
    let barrier = Arc::new(Barrier::new(CLIENTS + 1));
    let rounds: Arc<Mutex<Vec<Vec<Attempt>>>> = Arc::new(Mutex::new(vec![Vec::new(); ROUNDS]));
    let threads: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (barrier, rounds, root, hold) = (
                barrier.clone(),
                rounds.clone(),
                root.clone(),
                hold.path().to_path_buf(),
            );
            std::thread::spawn(move || {
                let mut client = Client::start(&root, &hold);
                for r in 0..ROUNDS {
                    barrier.wait();
                    let tag = format!("c{c}-r{r}");
                    let start = Instant::now();
                    let result = client.request(
                        "tools/call",
                        serde_json::json!({"name": "memory_update", "arguments": {"target": "use-gix", "tags": [tag]}}),
                    );
                    let end = Instant::now();
                    let text = result["content"][0]["text"].as_str().unwrap_or_default();
                    let written = match result["isError"].as_bool() {
                        Some(false) => true,
                        // Worded for a model with tools, never a command.
                        Some(true)
                            if text.contains("nothing was written, call the tool again")
                                && !text.contains("command") =>
                        {
                            false
                        }
                        _ => panic!("round {r}, client {c}: {result}"),
                    };
                    rounds.lock().expect("lock")[r].push(Attempt {
                        tag,
                        written,
                        start,
                        end,
                    });
                    barrier.wait();
                    barrier.wait();
                }
            })
        })
        .collect();
    let mut disk = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        barrier.wait();
        // The first to get there holds; give the others time to join it.
        // A release build cannot hold: its clients race unheld, and a
        // round does not wait for a hold that never comes.
        if cfg!(debug_assertions) {
            let start = Instant::now();
            while !held.exists() && start.elapsed() < std::time::Duration::from_secs(10) {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            std::thread::sleep(std::time::Duration::from_millis(40));
        }
        fs::write(&go, b"").expect("go");
        barrier.wait();
        disk.push(tag_on_disk(&root));
        let _ = fs::remove_file(&go);
        let _ = fs::remove_file(&held);
        barrier.wait();
    }
    for t in threads {
        t.join().expect("client thread");
    }
    let rounds = rounds.lock().expect("lock");
    let mut before = "start".to_string();
    let mut successes = 0;
    for (r, attempts) in rounds.iter().enumerate() {
        check_round(r, &before, &disk[r], attempts);
        successes += attempts.iter().filter(|a| a.written).count();
        before = disk[r].clone();
    }
    eprintln!("{CLIENTS} clients x {ROUNDS} rounds: {successes} successes");
}
