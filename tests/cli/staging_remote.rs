//! `memlint staging claim|release --remote NAME`: the consolidation lock as
//! a ref on a bare git remote, claimed at once from 6 clones: exactly one
//! claim wins each round, a dead holder's lock is taken over, a lock from
//! another machine is taken over only once it is stale, and only the
//! holder may release.

use crate::common;

use common::{ok_on_path as ok, run_on_path as run, BIN};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CLONES: usize = 6;
const ROUNDS: usize = 20;
const REF: &str = "refs/memlint/consolidation-lock";

/// A bare remote with a workspace, and `n` clones of it.
fn clones(dir: &Path, n: usize) -> Vec<PathBuf> {
    ok(
        dir,
        "git",
        &["init", "-q", "--bare", "-b", "main", "remote.git"],
    );
    let seed = dir.join("seed");
    fs::create_dir(&seed).expect("mkdir");
    ok(&seed, "git", &["init", "-q", "-b", "main"]);
    ok(&seed, BIN, &["init"]);
    ok(&seed, "git", &["add", "-A"]);
    ok(&seed, "git", &["commit", "-q", "-m", "seed"]);
    ok(&seed, "git", &["push", "-q", "../remote.git", "main"]);
    (0..n)
        .map(|i| {
            let name = format!("clone-{i}");
            ok(dir, "git", &["clone", "-q", "remote.git", &name]);
            dir.join(name)
        })
        .collect()
}

/// The test process: alive for the whole test, so a lock naming it is live.
fn me() -> String {
    std::process::id().to_string()
}

fn claim(clone: &Path, pod: &str, pid: &str) -> Output {
    run(
        clone,
        BIN,
        &[
            "staging", "claim", "--remote", "origin", "--pod", pod, "--pid", pid, "--format",
            "json",
        ],
    )
}

#[test]
fn six_clones_claiming_at_once_get_exactly_one_holder_each_round() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let clones = clones(tmp.path(), CLONES);
    for round in 0..ROUNDS {
        let outs: Vec<(usize, Output)> = std::thread::scope(|s| {
            let handles: Vec<_> = clones
                .iter()
                .enumerate()
                .map(|(i, c)| s.spawn(move || (i, claim(c, &format!("pod-{i}"), &me()))))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("claim"))
                .collect()
        });
        let winners: Vec<usize> = outs
            .iter()
            .filter(|(_, o)| o.status.code() == Some(0))
            .map(|(i, _)| *i)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {outs:?}");
        for (i, o) in &outs {
            if *i != winners[0] {
                assert_eq!(o.status.code(), Some(3), "round {round}, clone {i}: {o:?}");
                let said = String::from_utf8_lossy(&o.stderr);
                assert!(said.contains("staging is claimed by pod `pod-"), "{said}");
            }
        }
        let winner = winners[0];
        let claimed: serde_json::Value =
            serde_json::from_slice(&outs[winner].1.stdout).expect("json");
        assert_eq!(claimed["pod"], format!("pod-{winner}"));
        // Somebody else cannot release it.
        let other = (winner + 1) % CLONES;
        let refused = run(
            &clones[other],
            BIN,
            &[
                "staging",
                "release",
                "--remote",
                "origin",
                "--pod",
                &format!("pod-{other}"),
            ],
        );
        assert_eq!(refused.status.code(), Some(3), "{refused:?}");
        assert!(String::from_utf8_lossy(&refused.stderr)
            .contains("does not hold the consolidation lock"));
        ok(
            &clones[winner],
            BIN,
            &[
                "staging",
                "release",
                "--remote",
                "origin",
                "--pod",
                &format!("pod-{winner}"),
            ],
        );
    }
    assert_eq!(ok(&clones[0], "git", &["ls-remote", "origin", REF]), "");
}

#[test]
fn a_dead_holders_lock_is_taken_over_and_release_consumes_only_the_claimed_entries() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let clones = clones(tmp.path(), 2);
    let entry = "---\nsession: s1\n---\n\nDid things.\n";
    fs::write(clones[1].join("staging/20261102-101500-a1b2.md"), entry).expect("write");
    // A holder that has exited.
    let mut child = Command::new("true").spawn().expect("spawn");
    let dead = child.id().to_string();
    child.wait().expect("wait");
    let first = claim(&clones[0], "crashed", &dead);
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let took = claim(&clones[1], "next", &me());
    assert_eq!(took.status.code(), Some(0), "{took:?}");
    let claimed: serde_json::Value = serde_json::from_slice(&took.stdout).expect("json");
    assert_eq!(claimed["took_over"]["pod"], "crashed");
    assert_eq!(
        claimed["consumed"],
        serde_json::json!(["20261102-101500-a1b2"])
    );
    // An entry written after the claim stays.
    fs::write(clones[1].join("staging/20261102-111500-c3d4.md"), entry).expect("write");
    let released = ok(
        &clones[1],
        BIN,
        &[
            "staging", "release", "--remote", "origin", "--pod", "next", "--format", "json",
        ],
    );
    let released: serde_json::Value = serde_json::from_str(&released).expect("json");
    assert_eq!(
        released["released"],
        serde_json::json!(["20261102-101500-a1b2"])
    );
    assert_eq!(released["remaining"], 1);
    assert!(!clones[1].join("staging/20261102-101500-a1b2.md").exists());
    assert!(clones[1].join("staging/20261102-111500-c3d4.md").exists());
}

/// Pushes a lock written on another machine at `started` to the remote.
fn foreign_lock(clone: &Path, started: &str) {
    let json = format!(
        "{{\"pod\": \"far\", \"pid\": 4242, \"host\": \"another-machine\", \"started\": \"{started}\", \"consumed\": []}}\n"
    );
    fs::write(clone.join("lock.json"), json).expect("write");
    let blob = ok(clone, "git", &["hash-object", "-w", "lock.json"]);
    ok(
        clone,
        "git",
        &[
            "push",
            "-q",
            "origin",
            &format!("{}:{REF}", blob.trim()),
            "--force",
        ],
    );
    fs::remove_file(clone.join("lock.json")).expect("remove");
}

#[test]
fn another_machines_lock_is_taken_over_only_once_it_is_stale() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let clones = clones(tmp.path(), 2);
    let now = ok(&clones[0], "date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"]);
    foreign_lock(&clones[0], now.trim());
    let held = claim(&clones[1], "here", &me());
    assert_eq!(held.status.code(), Some(3), "{held:?}");
    assert!(
        String::from_utf8_lossy(&held.stderr).contains("pod `far` (pid 4242 on another-machine")
    );
    foreign_lock(&clones[0], "2026-01-01T00:00:00Z");
    let took = claim(&clones[1], "here", &me());
    assert_eq!(took.status.code(), Some(0), "{took:?}");
    let claimed: serde_json::Value = serde_json::from_slice(&took.stdout).expect("json");
    assert_eq!(claimed["took_over"]["host"], "another-machine");
}

#[test]
fn a_remote_that_cannot_be_reached_is_an_error_not_a_claim() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let clones = clones(tmp.path(), 1);
    let out = run(
        &clones[0],
        BIN,
        &["staging", "claim", "--remote", "nowhere", "--pod", "p"],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("git ls-remote nowhere"));
    assert!(!clones[0].join("staging/.consolidation.lock").exists());
}

/// Issue 44 item 21: a lock on the remote that is not one memlint can read
/// is reported as the ref it is, on the remote it is on, not as the local
/// lock file; so is a release with no lock there, and a forced takeover.
#[test]
fn a_garbage_remote_lock_is_named_as_the_ref_on_the_remote() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let clones = clones(tmp.path(), 2);
    let release = run(
        &clones[1],
        BIN,
        &["staging", "release", "--remote", "origin", "--pod", "here"],
    );
    assert_eq!(release.status.code(), Some(3), "{release:?}");
    assert_eq!(
        String::from_utf8_lossy(&release.stderr),
        format!(
            "memlint: error: staging is not claimed: there is no {REF} on the remote `origin`\n"
        )
    );
    fs::write(clones[0].join("lock.json"), "not a lock\n").expect("write");
    let blob = ok(&clones[0], "git", &["hash-object", "-w", "lock.json"]);
    ok(
        &clones[0],
        "git",
        &[
            "push",
            "-q",
            "origin",
            &format!("{}:{REF}", blob.trim()),
            "--force",
        ],
    );
    let refused = claim(&clones[1], "here", &me());
    assert_eq!(refused.status.code(), Some(3), "{refused:?}");
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.starts_with(&format!(
            "memlint: error: {REF} on the remote `origin` cannot be read as a consolidation lock ("
        )),
        "{said}"
    );
    assert!(!said.contains("staging/.consolidation.lock"), "{said}");
    let forced = run(
        &clones[1],
        BIN,
        &[
            "staging", "claim", "--remote", "origin", "--pod", "here", "--force", "--format",
            "json",
        ],
    );
    assert_eq!(forced.status.code(), Some(0), "{forced:?}");
    let said = String::from_utf8_lossy(&forced.stderr);
    assert!(
        said.starts_with(&format!(
            "memlint: warning: replaced the unreadable {REF} on the remote `origin` ("
        )),
        "{said}"
    );
}

/// Points the remote's lock ref at `object` (any kind), as a hand edit or
/// a stray push would.
fn point_lock_at(remote: &Path, object: &str) {
    ok(remote, "git", &["update-ref", REF, object]);
}

fn force_claim(clone: &Path, pod: &str) -> Output {
    run(
        clone,
        BIN,
        &[
            "staging",
            "claim",
            "--remote",
            "origin",
            "--pod",
            pod,
            "--pid",
            &me(),
            "--force",
            "--format",
            "json",
        ],
    )
}

#[test]
fn a_remote_lock_ref_at_a_tree_a_commit_or_a_huge_blob_is_replaced_with_force() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let clones = clones(tmp.path(), 1);
    let remote = tmp.path().join("remote.git");
    let commit = ok(&remote, "git", &["rev-parse", "main"]);
    let tree = ok(&remote, "git", &["rev-parse", "main^{tree}"]);
    // A blob of 2 MiB, more than any lock holds.
    fs::write(remote.join("big"), vec![b'{'; 2 << 20]).expect("write");
    let big = ok(&remote, "git", &["hash-object", "-w", "big"]);
    let cases = [
        (
            tree.trim(),
            "refs/memlint/consolidation-lock points at a tree, not at a blob",
        ),
        (
            commit.trim(),
            "refs/memlint/consolidation-lock points at a commit, not at a blob",
        ),
        (
            big.trim(),
            "its blob has 2097152 bytes, more than a lock ever holds (1048576)",
        ),
    ];
    for (i, (object, why)) in cases.into_iter().enumerate() {
        point_lock_at(&remote, object);
        // Not taken over without --force: exit 3, saying what is wrong.
        let refused = claim(&clones[0], "p", &me());
        assert_eq!(refused.status.code(), Some(3), "{why}: {refused:?}");
        let said = String::from_utf8_lossy(&refused.stderr);
        assert!(
            said.contains(&format!(
                "{REF} on the remote `origin` cannot be read as a consolidation lock ({why}); it is not taken over"
            )),
            "{said}"
        );
        assert!(said.contains("claim with --force"), "{said}");
        // --force replaces it with a lock.
        let pod = format!("forced-{i}");
        let took = force_claim(&clones[0], &pod);
        assert_eq!(took.status.code(), Some(0), "{why}: {took:?}");
        let said = String::from_utf8_lossy(&took.stderr);
        assert!(
            said.contains(&format!(
                "memlint: warning: replaced the unreadable {REF} on the remote `origin` ({why})"
            )),
            "{said}"
        );
        let kind = ok(&remote, "git", &["cat-file", "-t", REF]);
        assert_eq!(kind.trim(), "blob");
        ok(
            &clones[0],
            BIN,
            &["staging", "release", "--remote", "origin", "--pod", &pod],
        );
    }
}

#[test]
fn a_remote_that_never_answers_is_given_up_after_the_configured_time() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let clones = clones(tmp.path(), 1);
    // A server that accepts connections and never says a word.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for conn in listener.incoming() {
            held.push(conn);
        }
    });
    let url = format!("git://127.0.0.1:{port}/memory.git");
    ok(&clones[0], "git", &["remote", "add", "silent", &url]);
    fs::write(
        clones[0].join(".memlint.yml"),
        "staging: {remote_timeout_secs: 2}\n",
    )
    .expect("config");
    for args in [
        &["staging", "claim", "--remote", "silent", "--pod", "p"][..],
        &["staging", "release", "--remote", "silent", "--pod", "p"][..],
    ] {
        // A hang guard, not a measure of speed: the run must end by itself.
        let mut child = Command::new(BIN)
            .args(args)
            .current_dir(&clones[0])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        let start = std::time::Instant::now();
        while child.try_wait().expect("wait").is_none() {
            if start.elapsed() > std::time::Duration::from_secs(120) {
                let _ = child.kill();
                panic!("{args:?} never gave up on a remote that does not answer");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let out = child.wait_with_output().expect("output");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains(&format!(
                "git did not finish within 2 s trying to read {REF} on `silent`; gave up (raise `staging.remote_timeout_secs` for a slow remote)"
            )),
            "{said}"
        );
    }
    assert!(!clones[0].join("staging/.consolidation.lock").exists());
}

/// Whether process `pid` still runs (gone, or a zombie waiting to be
/// reaped, is not running).
fn running(pid: &str) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// A black-box audit of issue 44: a timed-out remote operation killed git
/// but left the transport it started (ssh here) running, reparented to
/// init, once per claim. The whole process group is ended now.
#[cfg(target_os = "linux")]
#[test]
fn a_timed_out_remote_leaves_no_transport_process_behind() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let clones = clones(tmp.path(), 1);
    let pidfile = tmp.path().join("transport.pid");
    let ssh = tmp.path().join("slow-ssh");
    fs::write(
        &ssh,
        format!(
            "#!/bin/sh\necho $$ > '{}'\nexec sleep 40\n",
            pidfile.display()
        ),
    )
    .expect("write");
    ok(&clones[0], "chmod", &["+x", &ssh.to_string_lossy()]);
    ok(
        &clones[0],
        "git",
        &["remote", "add", "slow", "ssh://example.invalid/memory.git"],
    );
    fs::write(
        clones[0].join(".memlint.yml"),
        // Time enough for git to start the transport on a loaded machine;
        // the transport outlives it.
        "staging: {remote_timeout_secs: 10}\n",
    )
    .expect("config");
    let out = Command::new(BIN)
        .args(["staging", "claim", "--remote", "slow", "--pod", "p"])
        .current_dir(&clones[0])
        .env("GIT_SSH_COMMAND", &ssh)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let pid = fs::read_to_string(&pidfile).expect("the transport ran");
    let pid = pid.trim();
    // The group is killed before memlint exits; give the kernel a moment
    // to deliver the signal.
    let gone = (0..500).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        !running(pid)
    });
    if !gone {
        let _ = Command::new("kill").args(["-9", pid]).status();
    }
    assert!(gone, "the transport (pid {pid}) outlived the timeout");
}
