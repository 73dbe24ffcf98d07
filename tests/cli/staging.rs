//! `memlint staging status | claim | release` (SPEC §9), run as the real
//! binary: the lock protocol under concurrency and crashes.
#![cfg(unix)]

use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Barrier};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_memlint");
const LOCK: &str = "staging/.consolidation.lock";
const CONFIG: &str = "staging: {max_files: 3, max_bytes: 100, stale_after_secs: 3600}\n";

/// A workspace with the test configuration and an empty `staging/`.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(dir.path().join(".memlint.yml"), CONFIG).expect("config");
    fs::create_dir(dir.path().join("staging")).expect("staging dir");
    dir
}

/// The staging id number `n`.
fn id(n: usize) -> String {
    format!("20261101-101500-{n:04x}")
}

/// Writes `staging/<id>.md` of exactly `size` bytes.
fn add(root: &Path, id: &str, size: usize) {
    fs::write(root.join(format!("staging/{id}.md")), "x".repeat(size)).expect("staging file");
}

fn cmd(root: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(BIN);
    c.arg("--root").arg(root).args(args);
    c.stdin(Stdio::null());
    c
}

fn run(root: &Path, args: &[&str]) -> Output {
    cmd(root, args).output().expect("run memlint")
}

fn code(out: &Output) -> i32 {
    out.status.code().expect("exit code")
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The sorted staging ids present now.
fn present(root: &Path) -> Vec<String> {
    let mut ids: Vec<String> = fs::read_dir(root.join("staging"))
        .expect("read staging")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".md").map(str::to_string))
        .collect();
    ids.sort();
    ids
}

/// Every name in `staging/`, sorted.
fn names(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root.join("staging"))
        .expect("read staging")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The lock, parsed; panics when it is not a complete lock.
fn lock(root: &Path) -> Option<Value> {
    let bytes = match fs::read(root.join(LOCK)) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("cannot read the lock: {e}"),
    };
    let v: Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
        panic!(
            "half-written lock ({e}): {:?}",
            String::from_utf8_lossy(&bytes)
        )
    });
    for key in ["pod", "pid", "host", "started", "consumed"] {
        assert!(v.get(key).is_some(), "lock lacks `{key}`: {v}");
    }
    Some(v)
}

fn write_lock(root: &Path, pod: &str, pid: u32, host: &str, started: &str, consumed: &[String]) {
    let v = json!({"pod": pod, "pid": pid, "host": host, "started": started, "consumed": consumed});
    fs::write(root.join(LOCK), v.to_string()).expect("write lock");
}

/// The pid of a process that has exited and been reaped.
fn dead_pid() -> u32 {
    let mut child = Command::new(BIN)
        .arg("--version")
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    child.wait().expect("wait");
    pid
}

fn now() -> i64 {
    memlint::model::clock::now_secs()
}

fn ago(secs: i64) -> String {
    memlint::model::clock::rfc3339(now() - secs)
}

/// A small deterministic generator for kill delays.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn kill_after(mut child: Child, micros: u64) {
    std::thread::sleep(Duration::from_micros(micros));
    let _ = child.kill();
    child.wait().expect("reap");
}

#[test]
fn status_reports_files_bytes_and_no_lock() {
    let ws = workspace();
    let root = ws.path();
    let out = run(root, &["staging", "status", "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout_json(&out),
        json!({"files": 0, "bytes": 0, "due": false, "lock": null})
    );
    add(root, &id(1), 10);
    add(root, &id(2), 20);
    // Not staging entries: hidden, other extension, subdirectory.
    fs::write(root.join("staging/.20261101-100000-aaaa.md"), "x").expect("hidden");
    fs::write(root.join("staging/notes.txt"), "x").expect("txt");
    fs::create_dir(root.join("staging/sub.md")).expect("dir");
    let out = run(root, &["staging", "status", "--format", "json"]);
    assert_eq!(
        stdout_json(&out),
        json!({"files": 2, "bytes": 30, "due": false, "lock": null})
    );
    let out = run(root, &["staging", "status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("2 files, 30 bytes, not due"), "{text}");
    assert!(text.contains("lock: none"), "{text}");
}

#[test]
fn due_at_the_thresholds() {
    let ws = workspace();
    let root = ws.path();
    let due = |root: &Path| {
        stdout_json(&run(root, &["staging", "status", "--format", "json"]))["due"]
            .as_bool()
            .expect("due is a bool")
    };
    // max_files: 3
    add(root, &id(1), 1);
    add(root, &id(2), 1);
    assert!(!due(root), "2 files of max 3");
    add(root, &id(3), 1);
    assert!(due(root), "3 files of max 3");
    // max_bytes: 100
    for n in 1..=3 {
        fs::remove_file(root.join(format!("staging/{}.md", id(n)))).expect("remove");
    }
    add(root, &id(4), 99);
    assert!(!due(root), "99 bytes of max 100");
    add(root, &id(4), 100);
    assert!(due(root), "100 bytes of max 100");
}

#[test]
fn claim_snapshots_sorted_ids_and_writes_a_complete_lock() {
    let ws = workspace();
    let root = ws.path();
    for n in [3, 1, 2] {
        add(root, &id(n), 5);
    }
    let out = run(
        root,
        &["staging", "claim", "--pod", "w1", "--format", "json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let expected = vec![id(1), id(2), id(3)];
    assert_eq!(
        stdout_json(&out),
        json!({"pod": "w1", "consumed": expected, "took_over": null})
    );
    let l = lock(root).expect("lock");
    assert_eq!(l["pod"], "w1");
    assert_eq!(l["consumed"], json!(expected));
    // The worker that ran memlint (this test) holds the lock, not memlint.
    assert_eq!(l["pid"], std::process::id());
    assert_eq!(l["host"], memlint::engine::staging::host_name());
    let started = l["started"].as_str().expect("started");
    let at = memlint::model::clock::parse_rfc3339(started).expect("RFC 3339");
    assert!((now() - at).abs() < 60);
    // Only the lock was added: no temporaries left behind.
    let mut want: Vec<String> = expected.iter().map(|i| format!("{i}.md")).collect();
    want.insert(0, ".consolidation.lock".into());
    assert_eq!(names(root), want);
    let status = stdout_json(&run(root, &["staging", "status", "--format", "json"]));
    assert_eq!(status["lock"], l);
}

#[test]
fn claim_records_an_explicit_pid_and_creates_a_missing_staging_dir() {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(dir.path().join(".memlint.yml"), CONFIG).expect("config");
    let out = run(
        dir.path(),
        &["staging", "claim", "--pod", "w", "--pid", "4242"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let l = lock(dir.path()).expect("lock");
    assert_eq!(l["pid"], 4242);
    assert_eq!(l["consumed"], json!([]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("claimed 0 staging entries for pod `w`"),
        "{text}"
    );
}

#[test]
fn claim_while_held_exits_3_naming_the_holder() {
    let ws = workspace();
    let root = ws.path();
    add(root, &id(1), 5);
    assert_eq!(code(&run(root, &["staging", "claim", "--pod", "first"])), 0);
    let before = fs::read(root.join(LOCK)).expect("lock");
    add(root, &id(2), 5);
    let out = run(
        root,
        &["staging", "claim", "--pod", "second", "--format", "json"],
    );
    assert_eq!(code(&out), 3);
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("pod `first`"), "{}", stderr(&out));
    assert_eq!(fs::read(root.join(LOCK)).expect("lock"), before);
}

#[test]
fn release_by_a_non_holder_changes_nothing() {
    let ws = workspace();
    let root = ws.path();
    add(root, &id(1), 5);
    add(root, &id(2), 5);
    assert_eq!(code(&run(root, &["staging", "claim", "--pod", "owner"])), 0);
    let before = fs::read(root.join(LOCK)).expect("lock");
    let out = run(root, &["staging", "release", "--pod", "intruder"]);
    assert_eq!(code(&out), 3);
    assert!(stderr(&out).contains("`intruder`"), "{}", stderr(&out));
    assert!(stderr(&out).contains("`owner`"), "{}", stderr(&out));
    assert_eq!(fs::read(root.join(LOCK)).expect("lock"), before);
    assert_eq!(present(root), vec![id(1), id(2)]);
}

#[test]
fn release_without_a_lock_exits_3() {
    let ws = workspace();
    let root = ws.path();
    add(root, &id(1), 5);
    let out = run(root, &["staging", "release", "--pod", "w"]);
    assert_eq!(code(&out), 3);
    assert!(stderr(&out).contains(LOCK), "{}", stderr(&out));
    assert_eq!(present(root), vec![id(1)]);
}

#[test]
fn release_keeps_new_arrivals_and_asks_to_coalesce() {
    let ws = workspace();
    let root = ws.path();
    add(root, &id(1), 5);
    add(root, &id(2), 5);
    assert_eq!(code(&run(root, &["staging", "claim", "--pod", "w"])), 0);
    add(root, &id(3), 5);
    add(root, &id(4), 5);
    let out = run(
        root,
        &["staging", "release", "--pod", "w", "--format", "json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout_json(&out),
        json!({"released": [id(1), id(2)], "remaining": 2, "coalesce": true})
    );
    assert_eq!(present(root), vec![id(3), id(4)]);
    assert!(lock(root).is_none());
    // The next round takes what arrived, and then nothing remains.
    let out = run(
        root,
        &["staging", "claim", "--pod", "w", "--format", "json"],
    );
    assert_eq!(stdout_json(&out)["consumed"], json!([id(3), id(4)]));
    let out = run(root, &["staging", "release", "--pod", "w"]);
    assert_eq!(code(&out), 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("released 2 staging entries; none remain"),
        "{text}"
    );
    assert!(present(root).is_empty());
    assert_eq!(names(root), Vec::<String>::new());
}

#[test]
fn malformed_lock_is_not_taken_over_without_force() {
    let ws = workspace();
    let root = ws.path();
    add(root, &id(1), 5);
    let garbage = b"{\"pod\": \"half-writ";
    fs::write(root.join(LOCK), garbage).expect("lock");
    // `status` still reports the backlog, the lock's trouble beside it.
    let out = run(root, &["staging", "status", "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout_json(&out),
        json!({"files": 1, "bytes": 5, "due": false, "lock": null})
    );
    assert!(stderr(&out).contains(LOCK), "{}", stderr(&out));
    let out = run(root, &["staging", "status"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("lock: {LOCK} cannot be read")),
        "{text}"
    );
    for args in [
        &["staging", "claim", "--pod", "w"][..],
        &["staging", "release", "--pod", "w"][..],
    ] {
        let out = run(root, args);
        assert_eq!(code(&out), 3, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(LOCK), "{args:?}: {}", stderr(&out));
        assert_eq!(fs::read(root.join(LOCK)).expect("lock"), garbage);
        assert_eq!(present(root), vec![id(1)]);
    }
    // A lock whose entries would lead out of staging/ is unreadable too.
    write_lock(root, "x", 1, "h", &ago(0), &["../../victim".to_string()]);
    assert_eq!(code(&run(root, &["staging", "release", "--pod", "x"])), 3);

    fs::write(root.join(LOCK), garbage).expect("lock");
    let out = run(
        root,
        &[
            "staging", "claim", "--pod", "w", "--force", "--format", "json",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout_json(&out),
        json!({"pod": "w", "consumed": [id(1)], "took_over": null})
    );
    assert!(stderr(&out).contains("unreadable"), "{}", stderr(&out));
    assert_eq!(lock(root).expect("lock")["pod"], "w");
}

#[test]
fn a_lock_that_is_a_directory_gives_way_to_force_only_when_empty() {
    let ws = workspace();
    let root = ws.path();
    add(root, &id(1), 5);
    fs::create_dir_all(root.join(LOCK).join("inside")).expect("mkdir");
    let out = run(root, &["staging", "claim", "--pod", "w", "--force"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(root.join(LOCK).join("inside").is_dir(), "never removed");
    fs::remove_dir(root.join(LOCK).join("inside")).expect("rmdir");
    assert_eq!(code(&run(root, &["staging", "claim", "--pod", "w"])), 3);
    let out = run(root, &["staging", "claim", "--pod", "w", "--force"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(lock(root).expect("lock")["pod"], "w");
}

#[test]
fn force_never_replaces_a_live_lock() {
    let ws = workspace();
    let root = ws.path();
    assert_eq!(code(&run(root, &["staging", "claim", "--pod", "a"])), 0);
    let out = run(root, &["staging", "claim", "--pod", "b", "--force"]);
    assert_eq!(code(&out), 3);
    assert_eq!(lock(root).expect("lock")["pod"], "a");
}

#[test]
fn other_host_lock_younger_than_stale_after_secs_is_held() {
    let ws = workspace();
    let root = ws.path();
    add(root, &id(1), 5);
    // stale_after_secs: 3600. The pid is meaningless on another host.
    write_lock(
        root,
        "far",
        dead_pid(),
        "elsewhere.example",
        &ago(3000),
        &[],
    );
    let before = fs::read(root.join(LOCK)).expect("lock");
    let out = run(root, &["staging", "claim", "--pod", "w"]);
    assert_eq!(code(&out), 3);
    assert!(stderr(&out).contains("pod `far`"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("elsewhere.example"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read(root.join(LOCK)).expect("lock"), before);
}

#[test]
fn other_host_lock_older_than_stale_after_secs_is_taken_over() {
    let ws = workspace();
    let root = ws.path();
    add(root, &id(1), 5);
    let started = ago(4000);
    write_lock(root, "far", 1, "elsewhere.example", &started, &[id(9)]);
    let out = run(
        root,
        &["staging", "claim", "--pod", "w", "--format", "json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout_json(&out),
        json!({"pod": "w", "consumed": [id(1)], "took_over":
            {"pod": "far", "pid": 1, "host": "elsewhere.example", "started": started}})
    );
    let l = lock(root).expect("lock");
    assert_eq!(l["pod"], "w");
    assert_eq!(l["consumed"], json!([id(1)]));
}

#[test]
fn lock_of_a_dead_pid_on_this_host_is_taken_over() {
    let ws = workspace();
    let root = ws.path();
    add(root, &id(1), 5);
    let host = memlint::engine::staging::host_name();
    let pid = dead_pid();
    // Fresh by age: only the dead pid makes it stale.
    write_lock(root, "crashed", pid, &host, &ago(0), &[id(1)]);
    let out = run(root, &["staging", "status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("lock: stale"), "{text}");
    let out = run(
        root,
        &["staging", "claim", "--pod", "w", "--format", "json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let took = &stdout_json(&out)["took_over"];
    assert_eq!(took["pod"], "crashed");
    assert_eq!(took["pid"], pid);
    assert_eq!(lock(root).expect("lock")["pod"], "w");
    let out = run(root, &["staging", "claim", "--pod", "w2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code(&out), 3, "{text}");
}

#[test]
fn lock_of_a_live_pid_on_this_host_is_held_however_old() {
    let ws = workspace();
    let root = ws.path();
    let host = memlint::engine::staging::host_name();
    write_lock(root, "slow", std::process::id(), &host, &ago(100_000), &[]);
    let out = run(root, &["staging", "claim", "--pod", "w"]);
    assert_eq!(code(&out), 3);
    assert!(stderr(&out).contains("pod `slow`"), "{}", stderr(&out));
}

/// Starts `n` claims at once, one pod each, and returns `(pod, output)`.
fn claim_race(root: &Path, n: usize) -> Vec<(String, Output)> {
    let barrier = Arc::new(Barrier::new(n));
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let barrier = Arc::clone(&barrier);
            let root: PathBuf = root.to_path_buf();
            std::thread::spawn(move || {
                let pod = format!("pod-{i}");
                let mut c = cmd(
                    &root,
                    &["staging", "claim", "--pod", &pod, "--format", "json"],
                );
                barrier.wait();
                (pod, c.output().expect("run claim"))
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("claim thread"))
        .collect()
}

/// Checks one race: exactly one winner, every loser exits 3 naming the
/// winner, the lock parses and consumed all files present, nothing is left
/// but the staging files and the lock. Returns the winner's report.
fn check_race(root: &Path, results: &[(String, Output)]) -> Value {
    let winners: Vec<&(String, Output)> = results.iter().filter(|(_, o)| code(o) == 0).collect();
    assert_eq!(
        winners.len(),
        1,
        "winners: {:?}",
        winners.iter().map(|w| &w.0).collect::<Vec<_>>()
    );
    let (pod, out) = winners[0];
    for (other, o) in results {
        if other != pod {
            assert_eq!(code(o), 3, "{other}: {}", stderr(o));
            assert!(
                stderr(o).contains(&format!("pod `{pod}`")),
                "{other}: {}",
                stderr(o)
            );
        }
    }
    let l = lock(root).expect("lock after the race");
    assert_eq!(&l["pod"], pod.as_str());
    let ids = present(root);
    assert_eq!(l["consumed"], json!(ids));
    let mut want: Vec<String> = ids.iter().map(|i| format!("{i}.md")).collect();
    want.insert(0, ".consolidation.lock".into());
    assert_eq!(names(root), want, "leftovers in staging/");
    let report = stdout_json(out);
    assert_eq!(report["consumed"], json!(ids));
    report
}

#[test]
fn sixteen_simultaneous_claims_one_wins() {
    let ws = workspace();
    let root = ws.path();
    for n in 0..20 {
        add(root, &id(n), 10);
    }
    let results = claim_race(root, 16);
    let report = check_race(root, &results);
    assert_eq!(report["took_over"], Value::Null);
}

#[test]
fn a_crowd_of_256_simultaneous_claims_has_one_winner() {
    let ws = workspace();
    let root = ws.path();
    for n in 0..50 {
        add(root, &id(n), 10);
    }
    let results = claim_race(root, 256);
    check_race(root, &results);
    // And the same crowd racing for the takeover of a stale lock.
    fs::remove_file(root.join(LOCK)).expect("remove lock");
    let host = memlint::engine::staging::host_name();
    write_lock(root, "crashed", dead_pid(), &host, &ago(0), &[]);
    let results = claim_race(root, 256);
    let report = check_race(root, &results);
    assert_eq!(report["took_over"]["pod"], "crashed");
}

/// 40 rounds of 16 by default (640 claims, 1 to 3 s on 2 cores); set
/// `MEMLINT_RACE_ROUNDS` for a longer soak.
#[test]
fn claim_races_in_a_loop_each_have_one_winner() {
    let ws = workspace();
    let root = ws.path();
    let host = memlint::engine::staging::host_name();
    let dead = dead_pid();
    let rounds: usize = std::env::var("MEMLINT_RACE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    for round in 0..rounds {
        add(root, &id(round), 10);
        // Odd rounds race for the takeover of a stale lock instead.
        let stale = round % 2 == 1;
        if stale {
            write_lock(root, "crashed", dead, &host, &ago(0), &[]);
        }
        let results = claim_race(root, 16);
        let report = check_race(root, &results);
        if stale {
            assert_eq!(report["took_over"]["pod"], "crashed", "round {round}");
        } else {
            assert_eq!(report["took_over"], Value::Null, "round {round}");
        }
        fs::remove_file(root.join(LOCK)).expect("remove lock");
    }
}

/// The kill delay adapts to the machine's speed so that kills keep landing
/// inside the claim, whatever the load: it grows while claims die before
/// locking and shrinks while they finish.
#[test]
fn killed_claimers_never_leave_a_half_written_lock() {
    let ws = workspace();
    let root = ws.path();
    for n in 0..40 {
        add(root, &id(n), 10);
    }
    let ids = present(root);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut locked, mut unlocked) = (0, 0);
    let mut limit: u64 = 3000;
    for _ in 0..300 {
        if locked >= 20 && unlocked >= 20 {
            break;
        }
        let child = cmd(root, &["staging", "claim", "--pod", "victim"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        kill_after(child, rng.below(limit));
        if let Some(l) = lock(root) {
            locked += 1;
            limit = (limit * 9 / 10).max(500);
            assert_eq!(l["pod"], "victim");
            assert_eq!(l["consumed"], json!(ids));
            fs::remove_file(root.join(LOCK)).expect("remove lock");
        } else {
            unlocked += 1;
            limit = (limit * 5 / 4).min(500_000);
        }
    }
    assert!(
        locked > 0 && unlocked > 0,
        "{locked} locked, {unlocked} not"
    );
    // The next claim sweeps what killed claims left, and succeeds.
    let out = run(root, &["staging", "claim", "--pod", "next"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let mut want: Vec<String> = ids.iter().map(|i| format!("{i}.md")).collect();
    want.insert(0, ".consolidation.lock".into());
    assert_eq!(names(root), want);
}

/// Kills releases at random points (the delay adapts as above, aiming at
/// the middle of the deletions), then repeats them.
#[test]
fn killed_release_can_be_repeated() {
    let ws = workspace();
    let root = ws.path();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut midway, mut finished, mut untouched) = (0, 0, 0);
    let mut limit: u64 = 6000;
    for round in 0..40 {
        if midway >= 2 && round >= 4 {
            break;
        }
        let base = round * 1000;
        for n in 0..200 {
            add(root, &id(base + n), 10);
        }
        let out = run(
            root,
            &["staging", "claim", "--pod", "w", "--format", "json"],
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let consumed: Vec<String> = stdout_json(&out)["consumed"]
            .as_array()
            .expect("consumed")
            .iter()
            .map(|v| v.as_str().expect("id").to_string())
            .collect();
        let arrivals: Vec<String> = (200..205).map(|n| id(base + n)).collect();
        for a in &arrivals {
            add(root, a, 10);
        }
        let child = cmd(root, &["staging", "release", "--pod", "w"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        kill_after(child, rng.below(limit));
        let left = present(root);
        if lock(root).is_none() {
            // A lock gone means the release finished its deletions.
            finished += 1;
            limit = (limit * 2 / 3).max(500);
            assert_eq!(
                left, arrivals,
                "round {round}: lock gone, consumed files remain"
            );
            let out = run(root, &["staging", "release", "--pod", "w"]);
            assert_eq!(code(&out), 3, "round {round}: nothing left to release");
        } else {
            if consumed.iter().all(|c| left.contains(c)) {
                untouched += 1;
                limit = (limit * 3 / 2).min(1_000_000);
            } else {
                midway += 1;
            }
            let out = run(
                root,
                &["staging", "release", "--pod", "w", "--format", "json"],
            );
            assert_eq!(code(&out), 0, "round {round}: {}", stderr(&out));
            let report = stdout_json(&out);
            assert_eq!(report["released"], json!(consumed));
            assert_eq!(report["remaining"], 5);
            assert_eq!(report["coalesce"], true);
        }
        assert!(lock(root).is_none());
        assert_eq!(present(root), arrivals, "round {round}");
        for a in &arrivals {
            fs::remove_file(root.join(format!("staging/{a}.md"))).expect("clean");
        }
    }
    assert!(
        midway > 0,
        "no release was killed midway ({finished} finished, {untouched} untouched)"
    );
}

/// The command line words the way out of an unreadable lock with its flag,
/// exactly as before the engine's advice was typed.
#[test]
fn unreadable_lock_messages_name_the_forced_claim() {
    let ws = workspace();
    let root = ws.path();
    fs::write(root.join(LOCK), b"{\"pod\": \"half-writ").expect("lock");
    let reason = "not a lock JSON object: EOF while parsing a string at line 1 column 18";
    let out = run(root, &["staging", "status"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "staging: 0 files, 0 bytes, not due\nlock: {LOCK} cannot be read ({reason}); claims fail until it is removed or replaced with `staging claim --force`\n"
        )
    );
    let out = run(root, &["staging", "claim", "--pod", "w"]);
    assert_eq!(code(&out), 3);
    assert_eq!(
        stderr(&out),
        format!(
            "memlint: error: {LOCK} cannot be read as a consolidation lock ({reason}); it is not taken over: inspect it, then remove it or claim with --force\n"
        )
    );
}
