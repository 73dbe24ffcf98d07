//! Regression tests for the audit of the files memlint opens: special
//! files (a FIFO, a socket) wherever memlint reads, paths that lead out of
//! the root, unreadable directories, and what `init`, `check` and the
//! configuration say when something is off.

#![cfg(unix)]

use crate::common;

use common::{git, memlint, write, Memlint, Run, TempWorkspace, BIN};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// How long a run may take before it counts as held up by a special file
/// (`MEMLINT_TEST_TIMEOUT_SECS` shortens it to check the tests against a
/// build that hangs).
fn limit() -> Duration {
    let secs = std::env::var("MEMLINT_TEST_TIMEOUT_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    Duration::from_secs(secs)
}

/// Runs `memlint ARGS` in `dir` with `stdin`, killing it and failing the
/// test when it has not ended within [`limit`].
fn bounded(dir: &Path, args: &[&str], stdin: &str) -> Run {
    Memlint::new(dir)
        .args(args)
        .stdin(stdin)
        .timeout(limit())
        .run()
}

/// A decision that lints clean and is formatted.
const DECISION: &str = "---\ntitle: Adopt quokka naming\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/quokka\n---\n\nWe name things after quokkas.\n";

/// A git repository made a workspace by `memlint init`, with one clean
/// decision, all committed.
fn repo() -> tempfile::TempDir {
    TempWorkspace::new()
        .git()
        .init()
        .file("memory/decisions/adopt-quokka-naming.md", DECISION)
        .commit("snapshot")
        .build()
}

/// What sits at a position instead of a regular file.
#[derive(Clone, Copy, Debug)]
enum Special {
    Fifo,
    Socket,
}

impl Special {
    /// The words memlint uses for it.
    fn named(self) -> &'static str {
        match self {
            Special::Fifo => "not a regular file (a FIFO)",
            Special::Socket => "not a regular file (a socket)",
        }
    }
}

/// Replaces whatever is at `root/rel` with `special`.
fn make(root: &Path, rel: &str, special: Special) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    if std::fs::symlink_metadata(&path).is_ok() {
        std::fs::remove_file(&path).expect("remove");
    }
    match special {
        Special::Fifo => {
            let c = std::ffi::CString::new(path.to_str().expect("UTF-8")).expect("C string");
            // SAFETY: a valid C string.
            assert_eq!(
                unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
                0,
                "mkfifo {rel}"
            );
        }
        Special::Socket => {
            // The file stays when the listener is dropped.
            std::os::unix::net::UnixListener::bind(&path).expect("bind a socket");
        }
    }
}

/// How many files `check --format json` counted.
fn files_checked(run: &Run) -> u64 {
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    json["summary"]["files"].as_u64().expect("files")
}

/// The PostToolUse input of a Write to `rel` under `root`.
fn post_write_input(root: &Path, rel: &str) -> String {
    serde_json::json!({
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": root.join(rel)},
        "cwd": root,
    })
    .to_string()
}

/// An ignore file that is a FIFO or a socket holds no command up: every
/// command that walks the workspace reads the rest as if the file were
/// absent and names it in a warning; the hooks exit 0 and say it too.
fn special_ignore_file_is_left_out(rel: &str, special: Special) {
    let ws = repo();
    let root = ws.path();
    // Counted with an empty file there (a file in a record directory counts).
    write(root, rel, "");
    let before = bounded(root, &["check", "--format", "json"], "");
    let files = files_checked(&before);
    make(root, rel, special);
    let warning = format!(
        "memlint: warning: {rel} is {}; its rules are not applied\n",
        special.named()
    );
    let run = bounded(root, &["check", "--format", "json"], "");
    assert_eq!(run.code, before.code, "{run:?}");
    assert_eq!(files_checked(&run), files, "{run:?}");
    assert_eq!(run.stderr, warning);
    for args in [
        &["check", "--fix"][..],
        &["fmt", "--check"],
        &["fmt"],
        &["search", "quokka"],
        &["context"],
        &["report"],
        &["index"],
    ] {
        let run = bounded(root, args, "");
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        assert!(run.stderr.contains(&warning), "{args:?}: {run:?}");
    }
    let found = bounded(root, &["search", "quokka", "--format", "json"], "");
    assert!(found.stdout.contains("adopt-quokka-naming.md"), "{found:?}");
    let hook_warning = format!("memlint hook: warning: {rel} is {}", special.named());
    for (args, input) in [
        (
            &["hook", "session-start"][..],
            r#"{"hook_event_name":"SessionStart","source":"startup"}"#.to_string(),
        ),
        (&["hook", "stop"], "{}".to_string()),
        (
            &["hook", "post-write"],
            post_write_input(root, "memory/decisions/adopt-quokka-naming.md"),
        ),
    ] {
        let run = bounded(root, args, &input);
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        assert!(run.stderr.contains(&hook_warning), "{args:?}: {run:?}");
    }
}

#[test]
fn a_fifo_gitignore_hangs_no_command() {
    special_ignore_file_is_left_out(".gitignore", Special::Fifo);
}

#[test]
fn a_fifo_dot_ignore_hangs_no_command() {
    special_ignore_file_is_left_out(".ignore", Special::Fifo);
}

#[test]
fn a_fifo_memlintignore_hangs_no_command() {
    special_ignore_file_is_left_out(".memlintignore", Special::Fifo);
}

#[test]
fn a_fifo_gitignore_in_a_record_directory_hangs_no_command() {
    special_ignore_file_is_left_out("memory/.gitignore", Special::Fifo);
}

#[test]
fn a_fifo_git_info_exclude_hangs_no_command() {
    special_ignore_file_is_left_out(".git/info/exclude", Special::Fifo);
}

#[test]
fn a_socket_memlintignore_is_named_and_left_out() {
    special_ignore_file_is_left_out(".memlintignore", Special::Socket);
}

#[test]
fn an_ignore_file_linking_out_of_the_root_is_not_read() {
    let ws = repo();
    let root = ws.path();
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("ignore"), "*.md\n").expect("write");
    std::os::unix::fs::symlink(outside.path().join("ignore"), root.join(".memlintignore"))
        .expect("symlink");
    let run = bounded(root, &["check", "--format", "json"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("\"files\": 3"),
        "the records are still listed: {run:?}"
    );
    assert_eq!(
        run.stderr,
        "memlint: warning: .memlintignore is a symbolic link leading out of the workspace root, which memlint never follows; its rules are not applied\n"
    );
}

/// A file of the git repository that is a FIFO: `check` lints without git
/// (and says so), the commands that need git refuse with its name, and the
/// hooks go on.
fn special_git_file_is_named(rel: &str) {
    let ws = repo();
    let root = ws.path();
    make(root, rel, Special::Fifo);
    let run = bounded(root, &["check"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stderr,
        format!("memlint: warning: {rel} is not a regular file (a FIFO); the git repository is not read (`commit:` sources are not checked)\n")
    );
    let refused = format!(
        "memlint: error: cannot read the git repository: {rel} is not a regular file (a FIFO)\n"
    );
    for args in [
        &["check", "--staged"][..],
        &["log"],
        &["check", "--base", "HEAD"],
    ] {
        let run = bounded(root, args, "");
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert_eq!(run.stderr, refused, "{args:?}");
    }
    for args in [
        &["search", "quokka"][..],
        &["context"],
        &["index"],
        &["report"],
    ] {
        let run = bounded(root, args, "");
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
    }
    for (args, input) in [
        (&["hook", "session-start"][..], "{}".to_string()),
        (&["hook", "stop"], "{}".to_string()),
        (
            &["hook", "post-write"],
            post_write_input(root, "memory/decisions/adopt-quokka-naming.md"),
        ),
    ] {
        assert_eq!(bounded(root, args, &input).code, 0, "{args:?}");
    }
}

#[test]
fn a_fifo_git_head_hangs_no_command() {
    special_git_file_is_named(".git/HEAD");
}

#[test]
fn a_fifo_git_config_hangs_no_command() {
    special_git_file_is_named(".git/config");
}

#[test]
fn a_fifo_git_index_hangs_no_command() {
    special_git_file_is_named(".git/index");
}

#[test]
fn a_fifo_branch_ref_hangs_no_command() {
    special_git_file_is_named(".git/refs/heads/main");
}

#[test]
fn a_fifo_configuration_is_an_error_not_a_hang() {
    let ws = repo();
    let root = ws.path();
    make(root, ".memlint.yml", Special::Fifo);
    let run = bounded(root, &["check"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: error: cannot read .memlint.yml: not a regular file (a FIFO)\n"
    );
    for args in [&["hook", "session-start"][..], &["hook", "stop"]] {
        let run = bounded(root, args, "{}");
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        assert!(
            run.stderr.contains("not a regular file (a FIFO)"),
            "{run:?}"
        );
    }
    // Named with --config, the same, named as given.
    make(root, "other.yml", Special::Fifo);
    let run = bounded(root, &["--config", "other.yml", "check"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: error: cannot read other.yml: not a regular file (a FIFO)\n".to_string()
    );
}

#[test]
fn a_socket_configuration_is_named() {
    let ws = repo();
    let root = ws.path();
    make(root, ".memlint.yml", Special::Socket);
    let run = bounded(root, &["check"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .ends_with(".memlint.yml: not a regular file (a socket)\n"),
        "{run:?}"
    );
}

#[test]
fn a_fifo_context_file_hangs_no_command() {
    let ws = repo();
    let root = ws.path();
    make(root, "CONTEXT.md", Special::Fifo);
    let run = bounded(root, &["check", "--format", "json"], "");
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout
            .contains("\"message\": \"the file cannot be read: not a regular file (a FIFO); make it a readable regular file, or move it out of the memory directories\""),
        "{run:?}"
    );
    let run = bounded(root, &["context"], "");
    assert_eq!(run.code, 0, "{run:?}");
    let run = bounded(root, &["context", "rotate"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: error: CONTEXT.md is not a regular file\n"
    );
    for args in [&["hook", "session-start"][..], &["hook", "stop"]] {
        assert_eq!(bounded(root, args, "{}").code, 0, "{args:?}");
    }
}

#[test]
fn a_fifo_consolidation_lock_hangs_no_command() {
    let ws = repo();
    let root = ws.path();
    make(root, "staging/.consolidation.lock", Special::Fifo);
    let run = bounded(root, &["staging", "status", "--format", "json"], "");
    assert_eq!(run.code, 0, "{run:?}");
    let run = bounded(root, &["staging", "claim", "--pod", "p1"], "");
    assert_eq!(run.code, 3, "{run:?}");
    assert!(run.stderr.contains("not a regular file"), "{run:?}");
}

#[test]
fn a_fifo_session_file_hangs_no_compact_command() {
    let ws = repo();
    let root = ws.path();
    make(
        root,
        "memory/sessions/CMEM-20261101-101500.md",
        Special::Fifo,
    );
    let run = bounded(
        root,
        &["compact", "export", "--id", "CMEM-20261101-101500"],
        "",
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .ends_with("memory/sessions/CMEM-20261101-101500.md: not a regular file (a FIFO)\n"),
        "{run:?}"
    );
    let run = bounded(root, &["compact", "list"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: warning: memory/sessions/CMEM-20261101-101500.md: skipped: not a regular file (a FIFO)\n"
    );
}

#[test]
fn a_fifo_named_by_compact_import_file_is_refused_with_a_hint() {
    let ws = repo();
    let root = ws.path();
    make(root, "session.fifo", Special::Fifo);
    let run = bounded(root, &["compact", "import", "--file", "session.fifo"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: error: cannot read session.fifo: not a regular file (a FIFO); pipe it to standard input instead (`--file -`)\n"
    );
}

#[test]
fn init_refuses_a_fifo_gitignore_before_creating_anything() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    make(root, ".gitignore", Special::Fifo);
    let run = bounded(root, &["init"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "memlint: error: cannot read {}: not a regular file (a FIFO)\n",
            root.join(".gitignore").display()
        )
    );
    assert!(!root.join("memory").exists(), "nothing is created");
}

#[test]
fn init_hooks_never_reads_or_replaces_a_fifo_hook() {
    let ws = repo();
    let root = ws.path();
    make(root, ".githooks/pre-commit", Special::Fifo);
    let run = bounded(root, &["init", "--hooks"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        "memlint: error: .githooks/pre-commit exists and is not memlint's hook; rerun with --force to replace it\n"
    );
}

#[test]
fn fifo_caches_hang_no_command() {
    let ws = repo();
    let root = ws.path();
    assert_eq!(bounded(root, &["index"], "").code, 0);
    for rel in [
        ".memlint/listing",
        ".memlint/index",
        ".memlint/search",
        ".memlint/slugs",
        ".memlint/post-write-failures.json",
        ".memlint/watch.lock",
    ] {
        make(root, rel, Special::Fifo);
    }
    for args in [
        &["check"][..],
        &["search", "quokka"],
        &["context"],
        &["report"],
        &["watch", "status"],
    ] {
        let run = bounded(root, args, "");
        assert!(run.code == 0 || args[0] == "watch", "{args:?}: {run:?}");
    }
    let input = post_write_input(root, "memory/decisions/adopt-quokka-naming.md");
    assert_eq!(bounded(root, &["hook", "post-write"], &input).code, 0);
}

#[cfg(target_os = "linux")]
#[test]
fn a_fifo_watch_log_or_lock_is_refused_not_waited_on() {
    let ws = repo();
    let root = ws.path();
    std::fs::create_dir_all(root.join(".memlint")).expect("mkdir");
    make(root, ".memlint/watch.lock", Special::Fifo);
    let run = bounded(root, &["watch", "run"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .ends_with(".memlint/watch.lock: not a regular file (a FIFO)\n"),
        "{run:?}"
    );
    std::fs::remove_file(root.join(".memlint/watch.lock")).expect("rm");
    make(root, ".memlint/watch.log", Special::Fifo);
    let run = bounded(root, &["watch", "start"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .ends_with(".memlint/watch.log: not a regular file (a FIFO)\n"),
        "{run:?}"
    );
}

// ----------------------------------------------------------------------
// Unreadable directories (run as an unprivileged user: root ignores
// permission bits).

/// Opens `path` and everything under it to every user, so that the
/// unprivileged user of [`unprivileged`] can work there.
fn open_to_all(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(path).expect("stat");
    if meta.file_type().is_symlink() {
        return;
    }
    let mode = if meta.is_dir() { 0o777 } else { 0o666 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    if meta.is_dir() {
        for entry in std::fs::read_dir(path).expect("ls") {
            open_to_all(&entry.expect("entry").path());
        }
    }
}

/// `memlint ARGS` in `dir` as a user without privileges: the user running
/// the tests, or `nobody` (65534) when that is root. `None`, said on
/// standard error, when no such user can run it here.
fn unprivileged(dir: &Path, args: &[&str]) -> Option<Memlint> {
    use std::os::unix::process::CommandExt;
    let mut cmd = Memlint::new(dir).args(args).timeout(limit());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some(cmd);
    }
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.command().pre_exec(|| {
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(65534) != 0
                || libc::setuid(65534) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // The temporary directory's parent must be passable too.
    let mut probe = Command::new(BIN);
    probe.arg("--version").current_dir(dir);
    // SAFETY: as above.
    unsafe {
        probe.pre_exec(|| {
            if libc::setgid(65534) != 0 || libc::setuid(65534) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    match probe.output() {
        Ok(out) if out.status.success() => Some(cmd),
        _ => {
            eprintln!("skipped: memlint cannot run as the unprivileged user 65534 here");
            None
        }
    }
}

/// A workspace with a readable decision and an unreadable
/// `memory/requests` holding a request, open to the unprivileged user.
fn with_unreadable_requests() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let ws = repo();
    let root = ws.path();
    write(
        root,
        "memory/requests/export-csv.md",
        "---\ntitle: Export CSV\nstatus: open\ndate: 2026-11-01\nsources:\n  - https://example.com/csv\n---\n\nPlease.\n",
    );
    open_to_all(root);
    std::fs::set_permissions(
        root.join("memory/requests"),
        std::fs::Permissions::from_mode(0o000),
    )
    .expect("chmod");
    ws
}

#[test]
fn an_unreadable_record_directory_is_an_error_not_skipped_in_silence() {
    let ws = with_unreadable_requests();
    let root = ws.path();
    let error = "memlint: error: cannot read memory/requests: Permission denied (os error 13); the records in it are left out\n";
    for args in [
        &["check"][..],
        &["check", "--format", "json"],
        &["search", "quokka"],
        &["context"],
        &["report"],
        &["index"],
        &["fmt"],
        &["fmt", "--check"],
    ] {
        let Some(cmd) = unprivileged(root, args) else {
            return;
        };
        let run = cmd.run();
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stderr.ends_with(error), "{args:?}: {run:?}");
        // Twice: a listing stored by the first run must not hide it.
        let Some(cmd) = unprivileged(root, args) else {
            return;
        };
        let again = cmd.run();
        assert_eq!(again.code, 2, "{args:?} again: {again:?}");
    }
    // The hooks still exit 0, and say it.
    for (args, input) in [
        (&["hook", "session-start"][..], "{}".to_string()),
        (&["hook", "stop"], "{}".to_string()),
        (
            &["hook", "post-write"],
            post_write_input(root, "memory/decisions/adopt-quokka-naming.md"),
        ),
    ] {
        let Some(cmd) = unprivileged(root, args) else {
            return;
        };
        let run = cmd.stdin(input).run();
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        assert!(
            run.stderr.contains(
                "memlint hook: error: cannot read memory/requests: Permission denied (os error 13)"
            ),
            "{args:?}: {run:?}"
        );
    }
}

// ----------------------------------------------------------------------
// Paths that lead out of the root (nothing outside is read or revealed).

/// A workspace at `<tmp>/ws` whose `docs` links to `<tmp>/outside`, which
/// holds `shadow` (and no `nope`).
fn linked_out() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).expect("mkdir");
    assert_eq!(memlint(&root, &["init"]).code, 0);
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(outside.join("sessions")).expect("mkdir");
    std::fs::write(outside.join("shadow"), "secret\n").expect("write");
    std::os::unix::fs::symlink(&outside, root.join("docs")).expect("symlink");
    (dir, root)
}

#[test]
fn a_file_source_through_a_directory_link_out_of_the_root_gets_one_answer() {
    let (_dir, root) = linked_out();
    write(
        &root,
        "memory/decisions/cite-docs.md",
        "---\ntitle: Cite docs\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:docs/shadow\n  - file:docs/nope\n---\n\nBody.\n",
    );
    let run = bounded(&root, &["check", "--format", "json"], "");
    assert_eq!(run.code, 0, "{run:?}");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let found: Vec<(String, u64, String)> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().expect("rule").to_string(),
                d["line"].as_u64().expect("line"),
                d["message"].as_str().expect("message").to_string(),
            )
        })
        .collect();
    let said = |source: &str| {
        format!("`{source}` leads out of the workspace root through the symbolic link `docs`; memlint never looks there")
    };
    assert_eq!(
        found,
        [
            ("sources/dangling".to_string(), 6, said("file:docs/shadow")),
            ("sources/dangling".to_string(), 7, said("file:docs/nope")),
        ]
    );
}

#[test]
fn check_and_fmt_on_a_path_through_a_link_out_of_the_root_say_the_same_whatever_is_there() {
    let (_dir, root) = linked_out();
    for cmd in ["check", "fmt"] {
        let runs: Vec<Run> = ["docs/shadow", "docs/nope"]
            .iter()
            .map(|p| bounded(&root, &[cmd, p], ""))
            .collect();
        for (run, p) in runs.iter().zip(["docs/shadow", "docs/nope"]) {
            assert_eq!(run.code, 0, "{cmd} {p}: {run:?}");
            assert_eq!(
                run.stderr,
                format!("memlint: warning: {p} leads out of the workspace root through the symbolic link docs, which memlint never follows; nothing under it is looked at\n"),
                "{cmd} {p}"
            );
        }
        assert_eq!(runs[0].stdout, runs[1].stdout, "{cmd}");
    }
}

#[test]
fn fmt_on_a_link_out_of_the_root_says_so() {
    let (dir, root) = linked_out();
    std::fs::write(dir.path().join("outside/r.md"), DECISION).expect("write");
    std::os::unix::fs::symlink(
        dir.path().join("outside/r.md"),
        root.join("memory/decisions/r.md"),
    )
    .expect("symlink");
    let run = bounded(&root, &["fmt", "memory/decisions/r.md"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "0 files reformatted, 0 unchanged.\n");
    assert_eq!(
        run.stderr,
        "memlint: warning: memory/decisions/r.md is a symbolic link, which memlint never follows out of the workspace root; nothing under it is looked at\n"
    );
}

#[test]
fn compact_through_a_sessions_link_out_of_the_root_says_the_same_whatever_is_there() {
    let (dir, root) = linked_out();
    std::fs::remove_dir_all(root.join("memory/sessions")).expect("rm");
    std::fs::write(
        dir.path().join("outside/sessions/CMEM-20261101-101500.md"),
        "---\nid: CMEM-20261101-101500\n---\nsecret\n",
    )
    .expect("write");
    let expected = "memlint: error: memory/sessions: leads out of the workspace root through the symbolic link memory/sessions; memlint does not follow links out of the root\n";
    for target in ["outside/sessions", "outside/none"] {
        let link = root.join("memory/sessions");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(dir.path().join(target), &link).expect("symlink");
        for id in ["CMEM-20261101-101500", "CMEM-20261101-101501"] {
            let run = bounded(&root, &["compact", "export", "--id", id], "");
            assert_eq!(run.code, 2, "{target} {id}: {run:?}");
            assert_eq!(run.stderr, expected, "{target} {id}");
        }
        let run = bounded(&root, &["compact", "import", "--force"], "x\n");
        assert_eq!(run.code, 2, "{target}: {run:?}");
        assert_eq!(run.stderr, expected, "{target}");
    }
    assert!(
        !dir.path().join("outside/none").exists(),
        "nothing created out there"
    );
}

// ----------------------------------------------------------------------
// `init`: the agent settings only inside the root, read only when they are
// a regular file, and write failures named as such.

#[test]
fn init_agent_settings_outside_the_root_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).expect("mkdir");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::os::unix::fs::symlink(&outside, root.join("elsewhere")).expect("symlink");
    let absolute = dir.path().join("x.json");
    let absolute = absolute.to_str().expect("UTF-8");
    for file in ["../x.json", absolute, "nope/../../x.json"] {
        let run = bounded(&root, &["init", "--agent-settings", file], "");
        assert_eq!(run.code, 2, "{file}: {run:?}");
        assert_eq!(
            run.stderr,
            format!(
                "memlint: error: --agent-settings {file}: the file is outside the workspace root {}; memlint writes only inside it\n",
                root.display()
            )
        );
    }
    let run = bounded(&root, &["init", "--agent-settings", "elsewhere/x.json"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "memlint: error: elsewhere/x.json leads out of {} through a symbolic link; memlint never writes there\n",
            root.display()
        )
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("ls").count(),
        2,
        "only ws and outside"
    );
    assert_eq!(std::fs::read_dir(&outside).expect("ls").count(), 0);
    assert!(!root.join("memory").exists(), "nothing is created");
    // Inside the root, absolute or not, it is written.
    let inside = root.join("conf/agent.json");
    let run = bounded(
        &root,
        &["init", "--agent-settings", inside.to_str().expect("UTF-8")],
        "",
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(inside.is_file());
}

#[test]
fn init_refuses_a_fifo_agent_settings_file_before_creating_anything() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    make(root, ".claude/settings.json", Special::Fifo);
    let run = bounded(root, &["init", "--agent-settings"], "");
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "memlint: error: cannot read {}: not a regular file (a FIFO)\n",
            root.join(".claude/settings.json").display()
        )
    );
    assert!(!root.join("memory").exists(), "nothing is created");
}

#[test]
fn init_names_a_write_failure_as_a_write() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).expect("mkdir");
    open_to_all(dir.path());
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let Some(cmd) = unprivileged(&root, &["init"]) else {
        return;
    };
    let run = cmd.run();
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        format!(
            "memlint: error: cannot create the directory {}: Permission denied (os error 13)\n",
            root.join("memory/decisions").display()
        )
    );
    // A file that cannot be written is named as one.
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    for d in [
        "memory/decisions",
        "memory/requests",
        "memory/sessions",
        "knowledge",
        "staging",
    ] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
    open_to_all(&root);
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let Some(cmd) = unprivileged(&root, &["init"]) else {
        return;
    };
    let run = cmd.run();
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.starts_with(&format!(
            "memlint: error: cannot write {}: Permission denied",
            root.join(".memlint.yml").display()
        )),
        "{run:?}"
    );
}

// ----------------------------------------------------------------------
// What `check`, `init` and the configuration say when something is off.

#[test]
fn check_in_a_repository_without_a_workspace_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    let run = bounded(root, &["check"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "No problems in 0 files.\n");
    assert_eq!(
        run.stderr,
        format!(
            "memlint: warning: {} holds no memlint workspace: none of memory/, knowledge/, staging/ or CONTEXT.md is there (`memlint init` creates them)\n",
            root.canonicalize().expect("canonical").display()
        )
    );
}

#[test]
fn check_on_a_path_that_is_no_record_says_why() {
    let ws = repo();
    let root = ws.path();
    write(root, "README.md", "# Readme\n");
    write(root, "memory/decisions/.memlintignore", "drafts/\n");
    write(root, "memory/decisions/drafts/idea.md", DECISION);
    for (path, why) in [
        (
            "README.md",
            "README.md is not a record: memlint checks the .md files under memory/, knowledge/ and staging/, and CONTEXT.md",
        ),
        (
            "memory/decisions/drafts/idea.md",
            "memory/decisions/drafts/idea.md is excluded by an ignore file (.gitignore, .ignore, .memlintignore or .git/info/exclude)",
        ),
        (
            "memory/requests",
            "memory/requests holds no record: memlint checks the .md files under memory/, knowledge/ and staging/, and CONTEXT.md",
        ),
    ] {
        let run = bounded(root, &["check", path], "");
        assert_eq!(run.code, 0, "{path}: {run:?}");
        assert_eq!(run.stdout, "No problems in 0 files.\n", "{path}");
        assert_eq!(run.stderr, format!("memlint: warning: {why}\n"), "{path}");
        let run = bounded(root, &["fmt", path], "");
        assert_eq!(run.code, 0, "{path}: {run:?}");
        assert_eq!(run.stderr, format!("memlint: warning: {why}\n"), "{path}");
    }
    // A path that selects records says nothing more.
    let run = bounded(root, &["check", "memory"], "");
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
}

#[test]
fn init_from_a_subdirectory_of_a_work_tree_uses_its_top_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let top = dir.path().canonicalize().expect("canonical");
    git(&top, &["init", "-q", "-b", "main"]);
    let sub = top.join("src/deep");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let run = bounded(&sub, &["init"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout
            .starts_with(&format!("memlint: initialised {}\n", top.display())),
        "{run:?}"
    );
    assert_eq!(
        run.stderr,
        format!(
            "memlint: note: the workspace root is {} (the top of the git work tree), where every memlint command run here looks; `memlint --root . init` makes {} a workspace of its own instead\n",
            top.display(),
            sub.display()
        )
    );
    assert!(top.join(".memlint.yml").is_file());
    assert!(!sub.join(".memlint.yml").exists());
    // Every command run there finds it.
    let run = bounded(&sub, &["check"], "");
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    // `--root .` makes the subdirectory a workspace, and says where.
    let run = bounded(&sub, &["--root", ".", "init"], "");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout
            .starts_with(&format!("memlint: initialised {}\n", sub.display())),
        "{run:?}"
    );
    assert!(sub.join(".memlint.yml").is_file());
}

#[test]
fn a_configuration_with_several_errors_shows_them_all() {
    let ws = repo();
    let root = ws.path();
    write(
        root,
        ".memlint.yml",
        "max_sources: many\nrules:\n  date/relative: warn\n  nope/rule: off\ncontext: {blocks: -1, colour: red}\nmax_source: 3\n",
    );
    let run = bounded(root, &["check"], "");
    assert_eq!(run.code, 2, "{run:?}");
    // Named from the current directory, the workspace's root.
    let path = ".memlint.yml";
    let expected = [
        format!("{path}:1:14: `max_sources` must be a non-negative whole number, not a string"),
        format!("{path}:3:18: severity of `date/relative` must be `off`, `warning` or `error` (did you mean `warning`?)"),
        format!("{path}:4:3: unknown rule `nope/rule` under `rules`"),
        format!("{path}:5:19: `context.blocks` must be a non-negative whole number, not `-1`"),
        format!("{path}:5:23: unknown configuration key `context.colour`"),
        format!("{path}:6:1: unknown configuration key `max_source` (did you mean `max_sources`?)"),
    ];
    let lines: Vec<&str> = run.stderr.lines().collect();
    let expected: Vec<String> = expected
        .iter()
        .map(|l| format!("memlint: error: {l}"))
        .collect();
    assert_eq!(lines, expected);
}

#[test]
fn a_misspelt_severity_gets_a_did_you_mean() {
    let ws = repo();
    let root = ws.path();
    for (written, meant) in [("warn", "warning"), ("Error", "error"), ("of", "off")] {
        write(
            root,
            ".memlint.yml",
            &format!("rules: {{date/relative: {written}}}\n"),
        );
        let run = bounded(root, &["check"], "");
        assert_eq!(run.code, 2, "{run:?}");
        assert!(
            run.stderr.ends_with(&format!(
                ":1:24: severity of `date/relative` must be `off`, `warning` or `error` (did you mean `{meant}`?)\n"
            )),
            "{written}: {run:?}"
        );
    }
}
