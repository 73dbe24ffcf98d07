//! `memlint watch` (Linux): a background watcher whose token lets `search`
//! and `context` use the index without stat'ing every record. Run as the
//! real binary on copies of `fixtures/search`; every test stops the
//! watcher it started (and a watcher whose workspace is deleted stops by
//! itself).

#![cfg(target_os = "linux")]

mod common;

use common::{copy_dir, fixture, memlint, workspace, write, Run};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A watcher started for a test, stopped when the test ends.
struct Watched {
    root: PathBuf,
    pid: u32,
}

impl Watched {
    fn start(root: &Path) -> Watched {
        let run = memlint(root, &["watch", "start"]);
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stdout.starts_with("watching "), "{run:?}");
        Watched {
            root: root.to_path_buf(),
            pid: pid_in(&run.stdout),
        }
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        let _ = memlint(&self.root, &["watch", "stop"]);
    }
}

/// The process id in a status line (`… (pid N): …`).
fn pid_in(line: &str) -> u32 {
    let at = line.find("(pid ").expect("a pid") + 5;
    line[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a pid number")
}

/// Whether process `pid` still runs (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit(')').next().map(|r| r.trim_start().to_string()))
        .is_some_and(|rest| !rest.starts_with('Z'))
}

fn search_paths(root: &Path, query: &[&str]) -> Vec<String> {
    let mut args = vec!["search"];
    args.extend_from_slice(query);
    args.extend_from_slice(&["--format", "json"]);
    let run = memlint(root, &args);
    assert_eq!(run.code, 0, "{run:?}");
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    common::result_paths(&json)
}

/// The record `linked_from_outside` links to.
const LINKED: &str = "memory/decisions/cache-layer-for-the-index.md";

/// A copy of `fixtures/search`, a directory outside it, and a hard link
/// there to the record `LINKED`.
fn linked_from_outside() -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
    let ws = workspace("search");
    let outside = tempfile::tempdir().expect("tempdir");
    let link = outside.path().join("link.md");
    std::fs::hard_link(ws.path().join(LINKED), &link).expect("hard link");
    (ws, outside, link)
}

fn status(root: &Path) -> Run {
    memlint(root, &["watch", "status"])
}

const QUOKKA: &str = "---\ntitle: Adopt quokka naming\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/q\n---\n\nBody.\n";

#[test]
fn a_watched_search_sees_every_change() {
    let ws = workspace("search");
    let root = ws.path();
    let _watched = Watched::start(root);
    assert!(search_paths(root, &["quokka"]).is_empty());

    // An edit within the same second as the index was written.
    let edited = "memory/decisions/cache-layer-for-the-index.md";
    let text = std::fs::read_to_string(root.join(edited)).expect("read");
    write(
        root,
        edited,
        &text.replace("small cache", "small quokka cache"),
    );
    assert_eq!(search_paths(root, &["quokka"]), [edited]);

    // A record root that did not exist, and a new directory in one that
    // did: both made after the watcher started.
    assert!(!root.join("staging").exists() && !root.join("memory/sessions").exists());
    let (staged, session) = ("staging/quokka-log.md", "memory/sessions/quokka-session.md");
    write(
        root,
        staged,
        &QUOKKA.replace("Adopt quokka naming", "Quokka log"),
    );
    write(
        root,
        session,
        &QUOKKA.replace("Adopt quokka naming", "Quokka session"),
    );
    let found = search_paths(root, &["quokka"]);
    assert!(found.contains(&staged.to_string()), "{found:?}");
    assert!(found.contains(&session.to_string()), "{found:?}");

    // Deleted, renamed, replaced.
    std::fs::remove_dir_all(root.join("staging")).expect("remove");
    std::fs::remove_file(root.join(session)).expect("remove");
    write(root, "memory/decisions/adopt-quokka-naming.md", QUOKKA);
    std::fs::remove_file(root.join(edited)).expect("remove");
    assert_eq!(
        search_paths(root, &["quokka"]),
        ["memory/decisions/adopt-quokka-naming.md"]
    );
    std::fs::rename(
        root.join("memory/decisions/adopt-quokka-naming.md"),
        root.join("memory/decisions/name-things-after-quokkas.md"),
    )
    .expect("rename");
    assert_eq!(
        search_paths(root, &["quokka"]),
        ["memory/decisions/name-things-after-quokkas.md"]
    );
    write(
        root,
        "memory/decisions/name-things-after-quokkas.md",
        &QUOKKA.replace(
            "status: active",
            "status: replaced\nreplaced_by: use-gix-for-git-reads",
        ),
    );
    assert!(search_paths(root, &["quokka"]).is_empty());
    assert_eq!(search_paths(root, &["quokka", "--all"]).len(), 1);

    // An ignore file that leaves the record out.
    write(root, "memory/decisions/adopt-quokka-naming.md", QUOKKA);
    assert_eq!(
        search_paths(root, &["quokka"]),
        ["memory/decisions/adopt-quokka-naming.md"]
    );
    write(
        root,
        ".memlintignore",
        "memory/decisions/adopt-quokka-naming.md\n",
    );
    assert!(search_paths(root, &["quokka"]).is_empty());
}

/// A record changed through a hard link from outside the workspace is the
/// one change a watcher cannot see (as with git's file-system monitor): a
/// watched search then answers from the index as it was, which shows that
/// it trusted the watcher instead of stat'ing the records. Without the
/// watcher, the same search stats the file and sees the change.
#[test]
fn a_watched_search_trusts_the_watcher_instead_of_stating_records() {
    let (ws, _outside, link) = linked_from_outside();
    let root = ws.path();

    let watched = Watched::start(root);
    assert!(search_paths(root, &["wombat"]).is_empty());
    let before = status(root);
    let text = std::fs::read_to_string(&link).expect("read");
    std::fs::write(&link, text.replace("small cache", "small wombat cache")).expect("write");
    assert!(
        search_paths(root, &["wombat"]).is_empty(),
        "the watched search stat'ed the records"
    );
    let after = status(root);
    assert_ne!(
        before.stdout, after.stdout,
        "the search did not ask the watcher"
    );
    assert!(after.stdout.contains(" 0 events"), "{after:?}");

    drop(watched);
    assert_eq!(status(root).code, 1);
    assert_eq!(search_paths(root, &["wombat"]), [LINKED]);
}

#[test]
fn start_stop_and_status_say_what_runs() {
    let ws = workspace("search");
    let root = ws.path();
    let none = status(root);
    assert_eq!(none.code, 1, "{none:?}");
    assert!(none.stderr.contains("no watcher runs for"), "{none:?}");

    let watched = Watched::start(root);
    assert!(alive(watched.pid));
    let again = memlint(root, &["watch", "start"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.stdout.starts_with("already watching "), "{again:?}");
    assert_eq!(pid_in(&again.stdout), watched.pid);
    let second = memlint(root, &["watch", "run"]);
    assert_eq!(second.code, 2, "{second:?}");
    assert!(
        second.stderr.contains(&format!(
            "a watcher already runs for {}",
            root.canonicalize().unwrap().display()
        )),
        "{second:?}"
    );

    let shown = status(root);
    assert_eq!(shown.code, 0, "{shown:?}");
    assert!(shown.stdout.contains("directories"), "{shown:?}");
    assert!(!shown.stdout.contains("not trusted"), "{shown:?}");

    let stopped = memlint(root, &["watch", "stop"]);
    assert_eq!(stopped.code, 0, "{stopped:?}");
    assert_eq!(
        stopped.stdout,
        format!(
            "stopped the watcher of {} (pid {})\n",
            root.canonicalize().unwrap().display(),
            watched.pid
        )
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(watched.pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(watched.pid), "the watcher did not exit");
    assert!(!root.join(".memlint/watch.sock").exists());
    assert_eq!(status(root).code, 1);
    assert_eq!(memlint(root, &["watch", "stop"]).code, 1);
}

#[test]
fn a_symbolic_link_under_a_record_root_makes_the_watcher_step_aside() {
    let (ws, outside, link) = linked_from_outside();
    let root = ws.path();
    let _watched = Watched::start(root);
    assert!(search_paths(root, &["wombat"]).is_empty());

    std::os::unix::fs::symlink(outside.path(), root.join("memory/elsewhere")).expect("symlink");
    let shown = status(root);
    assert!(
        shown.stdout.contains(
            "not trusted, every command checks every file: memory/elsewhere is a symbolic link"
        ),
        "{shown:?}"
    );
    // Every file is checked again: even the change the watcher cannot see.
    let text = std::fs::read_to_string(&link).expect("read");
    std::fs::write(&link, text.replace("small cache", "small wombat cache")).expect("write");
    assert_eq!(search_paths(root, &["wombat"]), [LINKED]);
}

#[test]
fn deleting_the_workspace_cache_stops_the_watcher() {
    let ws = workspace("search");
    let root = ws.path();
    let watched = Watched::start(root);
    std::fs::remove_dir_all(root.join(".memlint")).expect("remove .memlint");
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(watched.pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(watched.pid), "the watcher outlived .memlint/");
    // Searches go on without it.
    assert!(!search_paths(root, &["gix"]).is_empty());
}

/// A socket path longer than a socket address holds is reached through
/// the directory's descriptor.
#[test]
fn a_deep_workspace_is_watched_too() {
    let base = tempfile::tempdir().expect("tempdir");
    let root = base
        .path()
        .join("a-rather-long-directory-name-for-a-workspace")
        .join("and-another-one-below-it-to-pass-the-limit");
    copy_dir(&fixture("search"), &root);
    assert!(root.join(".memlint/watch.sock").as_os_str().len() > 108);
    let _watched = Watched::start(&root);
    assert_eq!(status(&root).code, 0);
    write(&root, "memory/decisions/adopt-quokka-naming.md", QUOKKA);
    assert_eq!(
        search_paths(&root, &["quokka"]),
        ["memory/decisions/adopt-quokka-naming.md"]
    );
}

#[test]
fn context_is_the_same_with_a_watcher() {
    let ws = workspace("search");
    let root = ws.path();
    let plain = memlint(root, &["context"]);
    assert_eq!(plain.code, 0, "{plain:?}");
    let _watched = Watched::start(root);
    for _ in 0..2 {
        let watched = memlint(root, &["context"]);
        assert_eq!(watched.stdout, plain.stdout);
    }
    write(root, "memory/decisions/adopt-quokka-naming.md", QUOKKA);
    let changed = memlint(root, &["context"]);
    assert!(
        changed.stdout.contains("adopt-quokka-naming.md"),
        "{}",
        changed.stdout
    );
}

#[test]
fn watch_true_in_the_configuration_starts_a_watcher_from_a_search() {
    let ws = workspace("search");
    let root = ws.path();
    write(root, ".memlint.yml", "watch: true\n");
    assert_eq!(status(root).code, 1);
    assert!(!search_paths(root, &["gix"]).is_empty());
    let deadline = Instant::now() + Duration::from_secs(10);
    while status(root).code != 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let shown = status(root);
    assert_eq!(shown.code, 0, "no watcher started: {shown:?}");
    let _watched = Watched {
        root: root.to_path_buf(),
        pid: pid_in(&shown.stdout),
    };
    // The next searches use it, and see changes.
    write(root, "memory/decisions/adopt-quokka-naming.md", QUOKKA);
    assert_eq!(
        search_paths(root, &["quokka"]),
        ["memory/decisions/adopt-quokka-naming.md"]
    );

    let bad = memlint(root, &["watch", "status", "--config", "bad.yml"]);
    assert_eq!(bad.code, 2);
    write(root, "bad.yml", "watch: sometimes\n");
    let bad = memlint(root, &["search", "gix", "--config", "bad.yml"]);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert!(
        bad.stderr
            .contains("`watch` must be true or false, not a string"),
        "{bad:?}"
    );
}
