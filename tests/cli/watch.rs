//! `memlint watch` (Linux): a background watcher whose token lets `search`
//! and `context` use the index without stat'ing every record. Run as the
//! real binary on copies of `fixtures/search`; every test stops the
//! watcher it started (and a watcher whose workspace is deleted stops by
//! itself).

#![cfg(target_os = "linux")]

use crate::common;

use common::{copy_dir, fixture, memlint, workspace, write, Run};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A watcher started for a test, stopped when the test ends.
struct Watched {
    root: PathBuf,
    pid: u32,
}

/// Debug builds wait this long for the watcher instead of a second or
/// less, for a test that must be answered by it on a loaded machine.
const PATIENT: (&str, &str) = ("MEMLINT_TEST_WATCH_WAIT_MS", "30000");

impl Watched {
    fn start(root: &Path) -> Watched {
        Watched::start_with(root, &[])
    }

    /// A watcher whose own waits (for its cookie, for a question) are
    /// [`PATIENT`].
    fn start_patient(root: &Path) -> Watched {
        Watched::start_with(root, &[PATIENT])
    }

    fn start_with(root: &Path, env: &[(&str, &str)]) -> Watched {
        let run = common::memlint_with(root, &["watch", "start"], env);
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
    search_paths_with(root, query, &[])
}

fn search_paths_with(root: &Path, query: &[&str], env: &[(&str, &str)]) -> Vec<String> {
    let mut args = vec!["search"];
    args.extend_from_slice(query);
    args.extend_from_slice(&["--format", "json"]);
    let run = common::memlint_with(root, &args, env);
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
        // Staging entries and sessions have no title: search finds their
        // body.
        &QUOKKA.replace("Body.", "Quokka log."),
    );
    write(root, session, &QUOKKA.replace("Body.", "Quokka session."));
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

    // Patient: a search the watcher does not answer within a second stats
    // the records, which is what this test tells apart.
    let watched = Watched::start_patient(root);
    assert!(search_paths_with(root, &["wombat"], &[PATIENT]).is_empty());
    let before = status(root);
    let text = std::fs::read_to_string(&link).expect("read");
    std::fs::write(&link, text.replace("small cache", "small wombat cache")).expect("write");
    assert!(
        search_paths_with(root, &["wombat"], &[PATIENT]).is_empty(),
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
    // As a person deletes it: the watcher may be writing a cache there
    // meanwhile (a file made between the listing and the removal of the
    // directory), so the removal is tried again, as `rm -rf` is.
    let mut removed = std::fs::remove_dir_all(root.join(".memlint"));
    for _ in 0..100 {
        match &removed {
            Err(e) if e.kind() == std::io::ErrorKind::DirectoryNotEmpty => {
                std::thread::sleep(Duration::from_millis(20));
                removed = std::fs::remove_dir_all(root.join(".memlint"));
            }
            _ => break,
        }
    }
    removed.expect("remove .memlint");
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
        changed
            .stdout
            .contains("- adopt-quokka-naming — Adopt quokka naming\n"),
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

#[test]
fn a_hard_linked_copy_is_not_answered_by_the_originals_watcher() {
    let ws = workspace("search");
    let root = ws.path();
    let watched = Watched::start(root);
    assert!(search_paths(root, &["quokka"]).is_empty());
    // `cp -al`: the copy's `.memlint/` holds the original's socket and index.
    let copy = tempfile::tempdir().expect("tempdir");
    copy_dir(root, copy.path());
    std::fs::create_dir(copy.path().join(".memlint")).expect("mkdir");
    for entry in std::fs::read_dir(root.join(".memlint")).expect("read_dir") {
        let entry = entry.expect("entry");
        std::fs::hard_link(
            entry.path(),
            copy.path().join(".memlint").join(entry.file_name()),
        )
        .expect("hard link");
    }
    let none = status(copy.path());
    assert_eq!(none.code, 1, "{none:?}");
    assert!(none.stderr.contains("no watcher runs for"), "{none:?}");
    write(
        copy.path(),
        "memory/decisions/adopt-quokka-naming.md",
        QUOKKA,
    );
    assert_eq!(
        search_paths(copy.path(), &["quokka"]),
        ["memory/decisions/adopt-quokka-naming.md"]
    );
    // Stopping in the copy stops nothing.
    assert_eq!(memlint(copy.path(), &["watch", "stop"]).code, 1);
    assert!(alive(watched.pid));
    assert!(search_paths(root, &["quokka"]).is_empty());
}

#[test]
fn a_worktrees_exclude_file_is_followed_with_and_without_a_watcher() {
    let main = tempfile::tempdir().expect("tempdir");
    common::git(main.path(), &["init", "-q", "-b", "main"]);
    common::git(
        main.path(),
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@e",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "i",
        ],
    );
    let parent = tempfile::tempdir().expect("tempdir");
    let tree = parent.path().join("wt");
    common::git(
        main.path(),
        &["worktree", "add", "-q", tree.to_str().expect("UTF-8")],
    );
    copy_dir(&fixture("search"), &tree);
    write(&tree, "memory/decisions/adopt-quokka-naming.md", QUOKKA);
    let exclude = main.path().join(".git/info/exclude");
    let quokka = ["memory/decisions/adopt-quokka-naming.md"];
    for watcher in [false, true] {
        std::fs::write(&exclude, "").expect("write");
        let _watched = watcher.then(|| Watched::start(&tree));
        assert_eq!(
            search_paths(&tree, &["quokka"]),
            quokka,
            "watcher: {watcher}"
        );
        assert_eq!(
            search_paths(&tree, &["quokka"]),
            quokka,
            "watcher: {watcher}"
        );
        std::fs::write(&exclude, "/memory/decisions/adopt-quokka-naming.md\n").expect("write");
        assert!(
            search_paths(&tree, &["quokka"]).is_empty(),
            "an excluded record is found (watcher: {watcher})"
        );
        let check = memlint(&tree, &["check", "--format", "json"]);
        assert!(!check.stdout.contains("adopt-quokka-naming"), "{check:?}");
    }
}

#[test]
fn an_ignore_file_that_is_a_link_is_followed_or_distrusted() {
    let ws = workspace("search");
    let root = ws.path();
    write(root, "memory/decisions/adopt-quokka-naming.md", QUOKKA);
    write(root, "conf/memlintignore", "");
    std::os::unix::fs::symlink("conf/memlintignore", root.join(".memlintignore")).expect("symlink");
    let quokka = ["memory/decisions/adopt-quokka-naming.md"];
    assert_eq!(search_paths(root, &["quokka"]), quokka);
    // Without a watcher, the listing follows the link's target.
    write(root, "conf/memlintignore", "adopt-quokka-naming.md\n");
    assert!(search_paths(root, &["quokka"]).is_empty());
    write(root, "conf/memlintignore", "");
    assert_eq!(search_paths(root, &["quokka"]), quokka);
    // The watcher cannot follow it: it says so, and every file is checked.
    let _watched = Watched::start(root);
    let shown = status(root);
    assert!(
        shown.stdout.contains(
            "not trusted, every command checks every file: .memlintignore is a symbolic link"
        ),
        "{shown:?}"
    );
    assert_eq!(search_paths(root, &["quokka"]), quokka);
    write(root, "conf/memlintignore", "adopt-quokka-naming.md\n");
    assert!(search_paths(root, &["quokka"]).is_empty());
}

#[test]
fn a_watcher_that_does_not_answer_never_holds_a_command_up() {
    use std::os::fd::{AsRawFd, FromRawFd};
    let ws = workspace("search");
    let root = ws.path();
    let watched = Watched::start(root);
    assert!(search_paths(root, &["quokka"]).is_empty());
    // Stopped, and its backlog filled with connections it never accepts.
    // SAFETY: a signal to the watcher this test started.
    assert_eq!(unsafe { libc::kill(watched.pid as i32, libc::SIGSTOP) }, 0);
    let socket = root.join(".memlint/watch.sock");
    let mut held = Vec::new();
    for _ in 0..100_000 {
        // SAFETY: plain socket calls on descriptors owned by `held`.
        unsafe {
            let fd = libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_NONBLOCK, 0);
            assert!(fd >= 0);
            let owned = std::os::fd::OwnedFd::from_raw_fd(fd);
            let mut addr: libc::sockaddr_un = std::mem::zeroed();
            addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
            let path = socket.to_str().expect("UTF-8").as_bytes();
            for (to, from) in addr.sun_path.iter_mut().zip(path) {
                *to = *from as libc::c_char;
            }
            let len = std::mem::size_of::<libc::sa_family_t>() + path.len() + 1;
            let r = libc::connect(
                owned.as_raw_fd(),
                (&addr as *const libc::sockaddr_un).cast(),
                len as u32,
            );
            if r != 0 {
                break;
            }
            held.push(owned);
        }
    }
    write(root, "memory/decisions/adopt-quokka-naming.md", QUOKKA);
    // A hang, not a speed, is what this looks for: the search gets a minute.
    let mut search = std::process::Command::new(env!("CARGO_BIN_EXE_memlint"))
        .args(["search", "quokka", "--format", "json"])
        .current_dir(root)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run memlint");
    let deadline = Instant::now() + Duration::from_secs(60);
    let finished = loop {
        match search.try_wait().expect("wait") {
            Some(status) => break Some(status),
            None if Instant::now() > deadline => break None,
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    if finished.is_none() {
        let _ = search.kill();
    }
    // SAFETY: as above.
    unsafe { libc::kill(watched.pid as i32, libc::SIGCONT) };
    drop(held);
    assert!(finished.is_some_and(|s| s.success()), "the search hung");
    let out = search.wait_with_output().expect("output");
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        common::result_paths(&json),
        ["memory/decisions/adopt-quokka-naming.md"]
    );
}

#[test]
fn watch_start_returns_once_the_watcher_holds_the_index() {
    // Enough records that loading them takes the watcher a while after it
    // first answers for its status.
    let ws = workspace("search");
    let root = ws.path();
    for i in 0..3000 {
        write(
            root,
            &format!("knowledge/note-{i:04}.md"),
            &format!(
                "---\ntitle: Note {i}\ndescription: Numbered note {i}.\nmodel_invocation: false\ndate: 2026-03-02\nsources:\n  - https://example.com/{i}\n---\n\nThe numbered note {i} of the wombat series.\n"
            ),
        );
    }
    let stored = root.join(".memlint/search");
    assert!(!stored.exists());
    let run = common::memlint(root, &["watch", "start"]);
    assert_eq!(run.code, 0, "{run:?}");
    let _watched = Watched {
        root: root.to_path_buf(),
        pid: pid_in(&run.stdout),
    };
    // Building the index is the long wait, and the user is told of it.
    assert_eq!(
        run.stderr,
        "memlint: the watcher is building the search index (none is stored yet)\n"
    );
    // The index it loaded was built from the records and stored before
    // `watch start` came back; a search removed afterwards is not made
    // again behind the test's back.
    assert!(
        stored.is_file(),
        "watch start returned before the index was loaded"
    );
    std::fs::remove_file(&stored).expect("remove the stored index");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!stored.exists(), "the watcher stored the index after start");
    // With an index stored, the watcher only loads it: nothing to say.
    drop(_watched);
    let run = common::memlint(root, &["search", "wombat"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(stored.is_file(), "search stores the index");
    let run = common::memlint(root, &["watch", "start"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let _watched = Watched {
        root: root.to_path_buf(),
        pid: pid_in(&run.stdout),
    };
}
