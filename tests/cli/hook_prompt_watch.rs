//! `memlint hook prompt` under `memlint watch`: the watcher answers the
//! search from the index it holds, over `.memlint/recall.sock`, and the
//! hook's answer is the same, to the character, as without a watcher;
//! a watcher that died, a stale socket, or one that answers nothing or
//! half an answer leave the hook answering by itself.
#![cfg(target_os = "linux")]

use crate::common;

use common::Memlint;

use serde_json::json;
use std::io::{BufRead, Write};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

/// Prompts with one, several or no records to add.
const PROMPTS: &[&str] = &[
    "What is in the release checklist?",
    "上下文预算规则",
    "rounding of amounts and the retry backoff",
    "release notes and the checklist for the next version",
    "zymurgy",
];

/// Debug builds wait this long for the watcher instead of a second or
/// less, for the tests that must be answered by it on a loaded machine.
const PATIENT: (&str, &str) = ("MEMLINT_TEST_WATCH_WAIT_MS", "30000");

/// How long the hook waits for the watcher.
#[derive(Clone, Copy)]
enum Wait {
    /// As a user's hook does (at most a second).
    AsUsers,
    /// [`PATIENT`].
    Patient,
}

fn hook(dir: &Path, session: &str, prompt: &str) -> Output {
    hook_waiting(dir, session, prompt, Wait::AsUsers)
}

fn hook_waiting(dir: &Path, session: &str, prompt: &str, wait: Wait) -> Output {
    let input = json!({
        "session_id": session,
        "cwd": dir,
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    });
    // A generous search budget, as tests/hook_prompt.rs gives it; the
    // watcher is still asked for at most a second (unless patient).
    let mut run = Memlint::new(dir)
        .args(["hook", "prompt"])
        .env("MEMLINT_PROMPT_BUDGET_MS", "60000");
    if let Wait::Patient = wait {
        run = run.env(PATIENT.0, PATIENT.1);
    }
    let o = run.stdin(input.to_string()).output();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{prompt:?}");
    o
}

/// What the hook prints for every prompt of [`PROMPTS`], each in a
/// session of its own named `tag`.
fn answers(dir: &Path, tag: &str) -> Vec<String> {
    answers_waiting(dir, tag, Wait::AsUsers)
}

fn answers_waiting(dir: &Path, tag: &str, wait: Wait) -> Vec<String> {
    PROMPTS
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let o = hook_waiting(dir, &format!("{tag}-{i}"), p, wait);
            String::from_utf8(o.stdout).expect("utf-8")
        })
        .collect()
}

struct Watcher<'a>(&'a Path);

impl Watcher<'_> {
    fn start(root: &Path) -> Watcher<'_> {
        // The watcher's own waits (for its cookie, for a question) are
        // patient too; they only end early when something is wrong.
        let started = common::memlint_with(root, &["watch", "start"], &[PATIENT]);
        assert_eq!(started.code, 0, "{started:?}");
        Watcher(root)
    }

    fn pid(&self) -> i32 {
        let status = common::memlint(self.0, &["watch", "status"]);
        let after = status.stdout.split("(pid ").nth(1).expect("a pid");
        after[..after.find(')').expect(")")].parse().expect("pid")
    }
}

impl Drop for Watcher<'_> {
    fn drop(&mut self) {
        let _ = common::memlint(self.0, &["watch", "stop"]);
    }
}

/// A workspace and another just like it, neither with a watcher, with the
/// answers of the first.
fn twins() -> (tempfile::TempDir, tempfile::TempDir, Vec<String>) {
    let plain = common::workspace("context");
    let other = common::workspace("context");
    let expected = answers(plain.path(), "s");
    assert!(
        expected
            .iter()
            .filter(|a| a.contains("additionalContext"))
            .count()
            >= 3,
        "{expected:#?}"
    );
    (plain, other, expected)
}

#[test]
fn under_a_watcher_the_hook_answers_the_same_from_the_index_it_holds() {
    let (plain, watched, expected) = twins();
    let root = watched.path();
    let _watcher = Watcher::start(root);
    // Once the watcher has loaded the index (it answers), the stored index
    // is removed: a hook that searched by itself would build it again from
    // the records and store it.
    assert_eq!(answers_waiting(root, "warm", Wait::Patient), expected);
    let stored = root.join(".memlint/search");
    std::fs::remove_file(&stored).expect("remove the stored index");
    assert_eq!(answers_waiting(root, "s", Wait::Patient), expected);
    assert!(!stored.exists(), "the hook searched by itself");
    // Once per session holds as well.
    for (i, p) in PROMPTS.iter().enumerate() {
        assert_eq!(
            hook_waiting(root, &format!("s-{i}"), p, Wait::Patient).stdout,
            b"",
            "{p:?}"
        );
    }
    // A record written since is found through the watcher too.
    let rel = "knowledge/okapi-notes.md";
    let text = "---\ntitle: Okapi notes\ndescription: What the okapi eats.\nmodel_invocation: false\ndate: 2026-03-02\nsources:\n  - file:CONTEXT.md\n---\n\nThe okapi eats leaves.\n";
    common::write(plain.path(), rel, text);
    common::write(root, rel, text);
    let want = hook(plain.path(), "t", "what does the okapi eat").stdout;
    assert!(String::from_utf8_lossy(&want).contains(rel));
    assert_eq!(
        hook_waiting(root, "t", "what does the okapi eat", Wait::Patient).stdout,
        want
    );
    std::fs::remove_file(root.join(rel)).expect("delete");
    assert_eq!(
        hook_waiting(root, "u", "what does the okapi eat", Wait::Patient).stdout,
        b""
    );
}

#[test]
fn a_watcher_killed_mid_run_leaves_a_stale_socket_and_the_hook_still_answers() {
    let (_plain, watched, expected) = twins();
    let root = watched.path();
    let watcher = Watcher::start(root);
    assert_eq!(answers(root, "warm"), expected);
    // SAFETY: kill has no memory effects.
    assert_eq!(unsafe { libc::kill(watcher.pid(), libc::SIGKILL) }, 0);
    let socket = root.join(".memlint/recall.sock");
    let deadline = Instant::now() + Duration::from_secs(10);
    while common::memlint(root, &["watch", "status"]).code == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        socket.exists(),
        "the killed watcher's socket is left behind"
    );
    let t = Instant::now();
    assert_eq!(answers(root, "s"), expected);
    assert!(t.elapsed() < Duration::from_secs(20));
}

/// A recall socket bound by the test in the workspace at `root`.
fn fake_socket(root: &Path) -> UnixListener {
    std::fs::create_dir_all(root.join(".memlint")).expect("mkdir");
    UnixListener::bind(root.join(".memlint/recall.sock")).expect("bind")
}

#[test]
fn a_socket_that_answers_nothing_or_half_an_answer_leaves_the_hook_answering() {
    let (_plain, ws, expected) = twins();
    let root = ws.path();
    // Accepts, reads the question, sends the start of an answer and hangs
    // up.
    let listener = fake_socket(root);
    listener.set_nonblocking(true).expect("nonblocking");
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let over = done.clone();
    let cut = std::thread::spawn(move || {
        let mut asked = 0;
        while !over.load(std::sync::atomic::Ordering::SeqCst) {
            let Ok((stream, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            stream.set_nonblocking(false).expect("blocking");
            let mut line = String::new();
            std::io::BufReader::new(&stream)
                .read_line(&mut line)
                .expect("question");
            assert!(line.contains("\"text\""), "{line}");
            // The hook may have given up on a late answer already.
            let _ = (&stream).write_all(b"{\"hits\": [");
            asked += 1;
        }
        asked
    });
    assert_eq!(answers(root, "cut"), expected);
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    // Every hook that had something to search asked the socket first.
    assert_eq!(cut.join().expect("server"), PROMPTS.len());
    std::fs::remove_file(root.join(".memlint/recall.sock")).expect("remove");
    // Accepts nothing: the question waits in the backlog until the hook
    // gives up on it (at most a second) and searches by itself.
    let _silent = fake_socket(root);
    let t = Instant::now();
    let o = hook(root, "silent", PROMPTS[0]);
    assert_eq!(String::from_utf8(o.stdout).expect("utf-8"), expected[0]);
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    // A plain file where the socket should be.
    std::fs::remove_file(root.join(".memlint/recall.sock")).expect("remove");
    std::fs::write(root.join(".memlint/recall.sock"), "not a socket").expect("write");
    assert_eq!(answers(root, "file"), expected);
}
