//! Replacements at once, by real processes (issue 44, item 9): `replace a
//! b` and `replace b a` make one replacement and a refused loop, never a
//! cycle; of several `new … --replaces old` one replaces `old` and the
//! others are told who did; a record already replaced is never re-pointed
//! silently (`--force`, or `force` for the MCP tool, does it); and a
//! replacement killed mid-way holds up no other.

use crate::common;

use common::{memlint, BIN};
use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn decision(title: &str) -> String {
    format!("---\ntitle: {title}\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/{}\n---\n\n{title}.\n", title.len())
}

/// A workspace with these active decisions (slug, title).
fn workspace(records: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join(".memlint.yml"), "max_sources: 10\n").expect("write");
    for (slug, title) in records {
        common::write(
            tmp.path(),
            &format!("memory/decisions/{slug}.md"),
            &decision(title),
        );
    }
    tmp
}

/// (status, replaced_by) of a decision on disk.
fn state(root: &Path, slug: &str) -> (String, Option<String>) {
    let text = fs::read_to_string(root.join(format!("memory/decisions/{slug}.md")))
        .unwrap_or_else(|e| panic!("{slug}: {e}"));
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}: ")))
            .map(str::to_string)
    };
    (field("status").expect("status"), field("replaced_by"))
}

fn spawn(root: &Path, args: &[&str]) -> std::process::Child {
    Command::new(BIN)
        .args(args)
        .current_dir(root)
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn memlint")
}

fn finish(child: std::process::Child) -> (i32, String) {
    let out: Output = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn replace_a_b_and_replace_b_a_at_once_make_one_replacement_never_a_cycle() {
    for run in 0..30 {
        let tmp = workspace(&[
            ("use-gix", "Use gix for git"),
            ("use-git2", "Use git2 bindings"),
        ]);
        let root = tmp.path();
        let one = spawn(root, &["replace", "use-gix", "use-git2"]);
        let two = spawn(root, &["replace", "use-git2", "use-gix"]);
        let (one, two) = (finish(one), finish(two));
        let codes = [one.0, two.0];
        assert!(
            codes == [0, 1] || codes == [1, 0],
            "run {run}: exits {codes:?}\n{}\n{}",
            one.1,
            two.1
        );
        let refused = if one.0 == 1 { &one.1 } else { &two.1 };
        assert!(
            refused.contains("would close a loop of replaced_by"),
            "{refused}"
        );
        let (a, b) = (state(root, "use-gix"), state(root, "use-git2"));
        let replaced = [&a, &b].iter().filter(|s| s.0 == "replaced").count();
        assert_eq!(replaced, 1, "run {run}: {a:?} {b:?}");
        if run % 10 == 0 {
            let check = memlint(root, &["check"]);
            assert_eq!(check.code, 0, "{}", check.stdout);
        }
    }
}

#[test]
fn four_new_records_replacing_one_at_once_leave_one_successor() {
    let titles = [
        "Adopt libgit2 bindings",
        "Shell out to the git program",
        "Vendor a reader of packfiles",
        "Keep a mirror through rsync",
    ];
    for run in 0..8 {
        let tmp = workspace(&[("use-gix", "Use gix for git")]);
        let root = tmp.path();
        let children: Vec<_> = titles
            .iter()
            .map(|t| {
                spawn(
                    root,
                    &[
                        "new",
                        "decision",
                        t,
                        "--source",
                        "https://example.com/x",
                        "--replaces",
                        "use-gix",
                    ],
                )
            })
            .collect();
        let results: Vec<(i32, String)> = children.into_iter().map(finish).collect();
        let winners: Vec<usize> = (0..4).filter(|i| results[*i].0 == 0).collect();
        assert_eq!(winners.len(), 1, "run {run}: {results:#?}");
        let slug = |t: &str| memlint::syntax::slugify::from_title(t).expect("a slug");
        let winner = slug(titles[winners[0]]);
        assert_eq!(
            state(root, "use-gix"),
            ("replaced".to_string(), Some(winner.clone()))
        );
        for (i, (code, said)) in results.iter().enumerate() {
            if *code == 0 {
                continue;
            }
            assert_eq!(*code, 1, "{said}");
            assert!(
                said.contains(&format!("`use-gix` is already replaced by `{winner}`")),
                "{said}"
            );
            let loser = slug(titles[i]);
            assert!(!root.join(format!("memory/decisions/{loser}.md")).exists());
        }
        let mut files: Vec<String> = fs::read_dir(root.join("memory/decisions"))
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut expected = vec![format!("{winner}.md"), "use-gix.md".to_string()];
        expected.sort();
        assert_eq!(files, expected, "run {run}");
    }
}

#[test]
fn an_already_replaced_record_is_refused_naming_its_successor_and_force_re_points_it() {
    let tmp = workspace(&[
        ("use-gix", "Use gix for git"),
        ("use-git2", "Use git2 bindings"),
        ("shell-out", "Shell out to git"),
    ]);
    let root = tmp.path();
    assert_eq!(memlint(root, &["replace", "use-gix", "use-git2"]).code, 0);
    let before = fs::read_to_string(root.join("memory/decisions/use-gix.md")).expect("read");

    let refused = memlint(root, &["replace", "use-gix", "shell-out"]);
    assert_eq!(refused.code, 1);
    assert_eq!(
        refused.stderr.trim_end(),
        "memlint: error: `use-gix` is already replaced by `use-git2` (memory/decisions/use-git2.md); replace `use-git2` instead (or give --force to re-point `use-gix` at `shell-out`)"
    );
    let new = memlint(
        root,
        &[
            "new",
            "decision",
            "Vendor a packfile reader",
            "--source",
            "https://example.com/v",
            "--replaces",
            "use-gix",
        ],
    );
    assert_eq!(new.code, 1, "{}", new.stderr);
    assert!(
        new.stderr
            .contains("`use-gix` is already replaced by `use-git2` (memory/decisions/use-git2.md)"),
        "{}",
        new.stderr
    );
    assert!(!root
        .join("memory/decisions/vendor-a-packfile-reader.md")
        .exists());
    assert_eq!(
        fs::read_to_string(root.join("memory/decisions/use-gix.md")).expect("read"),
        before
    );
    // Replacing it again with its own successor changes nothing.
    let again = memlint(root, &["replace", "use-gix", "use-git2"]);
    assert_eq!(again.code, 0);
    assert!(
        again.stdout.contains("is already replaced by"),
        "{}",
        again.stdout
    );

    let forced = memlint(root, &["replace", "use-gix", "shell-out", "--force"]);
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_eq!(
        state(root, "use-gix"),
        ("replaced".to_string(), Some("shell-out".to_string()))
    );
    let forced = memlint(
        root,
        &[
            "new",
            "decision",
            "Vendor a packfile reader",
            "--source",
            "https://example.com/v",
            "--replaces",
            "use-gix",
            "--force",
        ],
    );
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_eq!(
        state(root, "use-gix"),
        (
            "replaced".to_string(),
            Some("vendor-a-packfile-reader".to_string())
        )
    );
}

/// Runs `memlint mcp` with `lines` on standard input, then EOF: the
/// responses, by id.
fn mcp(root: &Path, calls: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let mut child = Command::new(BIN)
        .arg("--root")
        .arg(root)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = String::from(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#,
    );
    for (i, args) in calls.iter().enumerate() {
        let call = serde_json::json!({"jsonrpc": "2.0", "id": i + 2, "method": "tools/call", "params": {"name": "memory_write", "arguments": args}});
        input += &format!("{call}\n");
    }
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let messages: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON-RPC"))
        .collect();
    (2..calls.len() + 2)
        .map(|id| {
            messages
                .iter()
                .find(|m| m["id"] == id)
                .unwrap_or_else(|| panic!("no answer to {id}: {messages:?}"))["result"]
                .clone()
        })
        .collect()
}

#[test]
fn memory_write_refuses_to_re_point_a_replaced_record_unless_forced() {
    let tmp = workspace(&[
        ("use-gix", "Use gix for git"),
        ("use-git2", "Use git2 bindings"),
    ]);
    let root = tmp.path();
    assert_eq!(memlint(root, &["replace", "use-gix", "use-git2"]).code, 0);
    let write = |force: Option<bool>| {
        let mut args = serde_json::json!({"kind": "decision", "title": "Shell out to git", "sources": ["https://example.com/s"], "replaces": "use-gix"});
        if let Some(f) = force {
            args["force"] = f.into();
        }
        args
    };
    let answers = mcp(root, &[write(None), write(Some(true))]);
    assert_eq!(answers[0]["isError"], true, "{}", answers[0]);
    let refusal = &answers[0]["structuredContent"];
    assert_eq!(
        refusal["successor"],
        serde_json::json!({"slug": "use-git2", "path": "memory/decisions/use-git2.md"})
    );
    assert!(
        refusal["error"]
            .as_str()
            .expect("error")
            .starts_with("`use-gix` is already replaced by `use-git2`"),
        "{refusal}"
    );
    assert_eq!(answers[1]["isError"], false, "{}", answers[1]);
    assert_eq!(
        state(root, "use-gix"),
        ("replaced".to_string(), Some("shell-out-to-git".to_string()))
    );
}

/// A replacement stopped (by the debug build's hold) in the middle of its
/// writes holds its turn: another waits for it. Killed there, it leaves
/// nothing half-done and no lock behind: the other goes ahead at once.
#[test]
fn a_replacement_waits_for_one_in_progress_and_not_for_one_killed() {
    if !cfg!(debug_assertions) {
        eprintln!("skipped: a release build of memlint cannot hold before a replace");
        return;
    }
    let tmp = workspace(&[
        ("use-gix", "Use gix for git"),
        ("use-git2", "Use git2 bindings"),
    ]);
    let root = tmp.path();
    let hold = tempfile::tempdir().expect("tempdir");
    let mut first = Command::new(BIN)
        .args(["replace", "use-gix", "use-git2"])
        .current_dir(root)
        .env("MEMLINT_TEST_HOLD_REPLACE", hold.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let held = hold.path().join("use-gix.md.held");
    let start = Instant::now();
    while !held.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "never held");
        assert!(first.try_wait().expect("try_wait").is_none(), "exited");
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut second = spawn(root, &["replace", "use-git2", "use-gix"]);
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        second.try_wait().expect("try_wait").is_none(),
        "the second replacement did not wait for the first"
    );
    first.kill().expect("SIGKILL");
    first.wait().expect("wait");
    let start = Instant::now();
    let code = loop {
        if let Some(status) = second.try_wait().expect("try_wait") {
            break status.code();
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the second replacement waits for a killed one"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(code, Some(0));
    assert_eq!(state(root, "use-gix"), ("active".to_string(), None));
    assert_eq!(
        state(root, "use-git2"),
        ("replaced".to_string(), Some("use-gix".to_string()))
    );
}
