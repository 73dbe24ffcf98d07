//! `memlint hook session-start|post-write|stop` (SPEC §6), run as the real
//! binary with the runtime's JSON on standard input, on copies of
//! `fixtures/context`.

use crate::common;

use common::Memlint;

use serde_json::{json, Value};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

fn workspace() -> tempfile::TempDir {
    common::workspace("context")
}

/// Runs `memlint ARGS` in `dir` with `stdin` on standard input.
fn hook(dir: &Path, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    Memlint::new(dir)
        .args(args)
        .stdin(stdin)
        // A generous search budget, as tests/hook_prompt.rs gives it: on a
        // loaded machine the default two seconds would turn a test of what is
        // recalled into one of timing.
        .env("MEMLINT_PROMPT_BUDGET_MS", "60000")
        .envs(env)
        .output()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exit code")
}

fn session_start(dir: &Path, source: &str) -> Output {
    let input = json!({"session_id": "abc", "hook_event_name": "SessionStart", "source": source, "cwd": dir});
    hook(dir, &["hook", "session-start"], &input.to_string(), &[])
}

/// `memlint context` in `dir`, for comparison.
fn context(dir: &Path, args: &[&str]) -> String {
    let o = hook(dir, &[&["context"], args].concat(), "", &[]);
    assert_eq!(code(&o), 0, "{}", err(&o));
    out(&o)
}

// ------------------------------------------------------------ session-start

#[test]
fn session_start_prints_the_context_and_builds_the_index() {
    let ws = workspace();
    assert!(!ws.path().join(".memlint/index").exists());
    let o = session_start(ws.path(), "startup");
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert_eq!(err(&o), "");
    let text = out(&o);
    assert!(text.contains("## 2026-11-05 索引の再構築"));
    assert!(text.contains("- context-budget-rules — 上下文按字符计数"));
    assert!(
        ws.path().join(".memlint/index").is_file(),
        "index refreshed"
    );
    assert_eq!(text, context(ws.path(), &[]));
    for source in ["resume", "clear"] {
        assert_eq!(out(&session_start(ws.path(), source)), text, "{source}");
    }
}

#[test]
fn session_start_after_compaction_is_brief() {
    let ws = workspace();
    let o = session_start(ws.path(), "compact");
    assert_eq!(code(&o), 0);
    assert_eq!(out(&o), context(ws.path(), &["--brief"]));
    assert!(!out(&o).contains("Resident knowledge"));
}

#[test]
fn session_start_honours_the_environment() {
    let ws = workspace();
    let input = r#"{"hook_event_name":"SessionStart","source":"startup"}"#;
    let args = ["hook", "session-start"];
    let off = hook(ws.path(), &args, input, &[("MEMORY_INJECT", "0")]);
    assert_eq!((code(&off), out(&off).as_str()), (0, ""));
    let small = hook(
        ws.path(),
        &args,
        input,
        &[("MEMORY_INJECT_MAX_CHARS", "400")],
    );
    assert_eq!(code(&small), 0);
    assert!(out(&small).chars().count() <= 400);
    assert!(out(&small).contains("memlint search"));
    let two = hook(ws.path(), &args, input, &[("MEMORY_INJECT_BLOCKS", "2")]);
    assert!(out(&two).contains("## 2026-11-04 上下文注入"));
}

/// Whatever is wrong, session-start exits 0 (and prints what it can).
#[test]
fn session_start_exits_0_whatever_happens() {
    let args = ["hook", "session-start"];
    // Invalid, empty and non-object JSON: the full context.
    let ws = workspace();
    let full = context(ws.path(), &[]);
    for input in ["{not json", "", "[1, 2]", "null", "{\"source\": 7}"] {
        let o = hook(ws.path(), &args, input, &[]);
        assert_eq!(code(&o), 0, "{input}: {}", err(&o));
        assert_eq!(out(&o), full, "{input}");
    }

    // No workspace: nothing printed, nothing written.
    let empty = tempfile::tempdir().expect("tempdir");
    let o = session_start(empty.path(), "startup");
    assert_eq!((code(&o), out(&o).as_str()), (0, ""));
    assert_eq!(fs::read_dir(empty.path()).expect("ls").count(), 0);
    // A --root that does not exist.
    let o = hook(
        empty.path(),
        &["--root", "nowhere", "hook", "session-start"],
        "{}",
        &[],
    );
    assert_eq!(code(&o), 0);

    // CONTEXT.md is a directory.
    let ws = workspace();
    fs::remove_file(ws.path().join("CONTEXT.md")).expect("rm");
    fs::create_dir(ws.path().join("CONTEXT.md")).expect("mkdir");
    let o = session_start(ws.path(), "startup");
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert!(out(&o).contains("## Memory index"));

    // A broken record, a binary one, and a broken configuration.
    let ws = workspace();
    fs::write(
        ws.path().join("knowledge/broken.md"),
        "---\ntitle: [unclosed\n  description: x: y\n---\n",
    )
    .expect("write");
    fs::write(
        ws.path().join("memory/decisions/binary.md"),
        b"\x00\xff\xfe---",
    )
    .expect("write");
    let o = session_start(ws.path(), "startup");
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert!(out(&o).contains("- context-budget-rules — "));
    fs::write(
        ws.path().join(".memlint.yml"),
        "context: {max_chars: lots}\n",
    )
    .expect("write");
    let o = session_start(ws.path(), "startup");
    assert_eq!(code(&o), 0);
    assert!(out(&o).contains("## Memory index"));
    assert!(err(&o).contains(".memlint.yml"), "{}", err(&o));

    // An unreadable `.memlint/` (a file where the directory should be).
    let ws = workspace();
    fs::write(ws.path().join(".memlint"), "not a directory").expect("write");
    let o = session_start(ws.path(), "startup");
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert_eq!(out(&o), full);
}

#[test]
fn session_start_finds_the_workspace_from_the_runtime_cwd() {
    let ws = workspace();
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let input = json!({"hook_event_name": "SessionStart", "source": "startup", "cwd": ws.path()});
    let o = hook(
        elsewhere.path(),
        &["hook", "session-start"],
        &input.to_string(),
        &[],
    );
    assert_eq!(code(&o), 0);
    assert!(
        out(&o).contains("## 2026-11-05 索引の再構築"),
        "{}",
        out(&o)
    );
}

#[test]
fn session_start_over_its_time_budget_prints_what_is_at_hand() {
    let ws = workspace();
    let o = hook(
        ws.path(),
        &["hook", "session-start"],
        r#"{"source":"startup"}"#,
        &[("MEMLINT_SESSION_START_BUDGET_MS", "0")],
    );
    assert_eq!(code(&o), 0);
    assert!(err(&o).contains("refreshed later"), "{}", err(&o));
    // Without a stored index: the header and CONTEXT.md.
    assert!(
        out(&o).contains("## 2026-11-05 索引の再構築"),
        "{}",
        out(&o)
    );
}

#[test]
fn session_start_over_budget_shows_the_records_the_search_index_holds() {
    let ws = workspace();
    let root = ws.path();
    let o = Memlint::new(root).args(["search", "索引"]).output();
    assert_eq!(o.status.code(), Some(0));
    // Without the record table, the stored search index still has the
    // table of contents to show.
    fs::remove_file(root.join(".memlint/index")).expect("remove the record table");
    let o = hook(
        root,
        &["hook", "session-start"],
        r#"{"source":"startup"}"#,
        &[("MEMLINT_SESSION_START_BUDGET_MS", "0")],
    );
    assert_eq!(code(&o), 0);
    assert!(err(&o).contains("refreshed later"), "{}", err(&o));
    let text = out(&o);
    assert!(
        text.contains(
            "> memory/decisions/ (3)\n> - rebuild-index-in-parallel — 索引を並列に再構築する\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("> ## Resident knowledge\n> - index-rebuild-timing"),
        "{text}"
    );
}

// ------------------------------------------------------------ stop

fn eight_blocks(root: &Path) {
    let mut text = String::from("# Context\n");
    for d in (1..=8).rev() {
        text.push_str(&format!("\n## 2026-11-{d:02} 工作 {d}\n\n内容 {d}。\n"));
    }
    fs::write(root.join("CONTEXT.md"), text).expect("CONTEXT.md");
    common::commit_all(root);
}

fn blocks(root: &Path) -> usize {
    fs::read_to_string(root.join("CONTEXT.md"))
        .expect("read")
        .lines()
        .filter(|l| l.starts_with("## "))
        .count()
}

#[test]
fn stop_rotates_and_refreshes() {
    let ws = workspace();
    eight_blocks(ws.path());
    let o = hook(
        ws.path(),
        &["hook", "stop"],
        r#"{"hook_event_name":"Stop"}"#,
        &[],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    assert_eq!(blocks(ws.path()), 5);
    assert!(out(&o).contains("git history"));
    assert!(ws.path().join(".memlint/index").is_file());
    let o = hook(
        ws.path(),
        &["hook", "stop"],
        "{}",
        &[("MEMORY_KEEP_N", "2")],
    );
    assert_eq!(code(&o), 0);
    assert_eq!(blocks(ws.path()), 2);
}

#[test]
fn stop_exits_0_whatever_happens() {
    let ws = workspace();
    fs::remove_file(ws.path().join("CONTEXT.md")).expect("rm");
    fs::create_dir(ws.path().join("CONTEXT.md")).expect("mkdir");
    let o = hook(
        ws.path(),
        &["hook", "stop"],
        "garbage",
        &[("MEMORY_KEEP_N", "x")],
    );
    assert_eq!(code(&o), 0, "{}", err(&o));
    let empty = tempfile::tempdir().expect("tempdir");
    let o = hook(empty.path(), &["hook", "stop"], "", &[]);
    assert_eq!((code(&o), out(&o).as_str()), (0, ""));
    assert_eq!(fs::read_dir(empty.path()).expect("ls").count(), 0);
}

// ------------------------------------------------------------ post-write

fn post_write(dir: &Path, tool: &str, file: &Path) -> Output {
    let input = json!({
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": {"file_path": file, "content": "…"},
        "cwd": dir,
    });
    hook(dir, &["hook", "post-write"], &input.to_string(), &[])
}

const BROKEN: &str = "---\ntitle: 壊れた決定\nstatus: active\ndate: 昨日\nsources:\n  - file:CONTEXT.md\n---\n\n本文。\n";

fn decision(ws: &Path) -> PathBuf {
    ws.join("memory/decisions/rebuild-index-in-parallel.md")
}

#[test]
fn post_write_of_a_clean_record_is_silent() {
    let ws = workspace();
    for tool in ["Write", "Edit", "MultiEdit"] {
        let o = post_write(ws.path(), tool, &decision(ws.path()));
        assert_eq!((code(&o), out(&o).as_str(), err(&o).as_str()), (0, "", ""));
    }
}

#[test]
fn post_write_hands_errors_to_the_agent_then_stops_it() {
    let ws = workspace();
    let path = decision(ws.path());
    fs::write(&path, BROKEN).expect("write");
    for attempt in 1..=2 {
        let o = post_write(ws.path(), "Edit", &path);
        assert_eq!(code(&o), 2, "attempt {attempt}");
        assert_eq!(out(&o), "");
        let e = err(&o);
        assert!(
            e.contains("memory/decisions/rebuild-index-in-parallel.md:4:7: error[date/format]"),
            "{e}"
        );
        assert!(e.contains(&format!("attempt {attempt} of 3")), "{e}");
    }
    let o = post_write(ws.path(), "Edit", &path);
    assert_eq!(code(&o), 0);
    let stop: Value = serde_json::from_str(&out(&o)).expect("JSON on stdout");
    assert_eq!(stop["continue"], json!(false));
    assert!(stop["stopReason"]
        .as_str()
        .expect("reason")
        .contains("memory/decisions/rebuild-index-in-parallel.md"));
    // The count starts again afterwards.
    let o = post_write(ws.path(), "Write", &path);
    assert_eq!(code(&o), 2);
    assert!(err(&o).contains("attempt 1 of 3"));
}

#[test]
fn a_clean_lint_resets_the_count() {
    let ws = workspace();
    let path = decision(ws.path());
    let clean = fs::read_to_string(&path).expect("read");
    fs::write(&path, BROKEN).expect("write");
    assert_eq!(code(&post_write(ws.path(), "Write", &path)), 2);
    assert_eq!(code(&post_write(ws.path(), "Write", &path)), 2);
    fs::write(&path, &clean).expect("write");
    assert_eq!(code(&post_write(ws.path(), "Write", &path)), 0);
    fs::write(&path, BROKEN).expect("write");
    let o = post_write(ws.path(), "Write", &path);
    assert_eq!(code(&o), 2);
    assert!(err(&o).contains("attempt 1 of 3"), "{}", err(&o));
    // Counts are per file.
    let other = ws.path().join("knowledge/index-rebuild-timing.md");
    fs::write(&other, "---\ntitle: x\n---\n").expect("write");
    let o = post_write(ws.path(), "Write", &other);
    assert_eq!(code(&o), 2);
    assert!(err(&o).contains("attempt 1 of 3"), "{}", err(&o));
}

#[test]
fn post_write_says_so_when_it_cannot_count_attempts() {
    let ws = workspace();
    let path = decision(ws.path());
    fs::write(&path, BROKEN).expect("write");
    let _ = fs::remove_dir_all(ws.path().join(".memlint"));
    fs::write(ws.path().join(".memlint"), "a file, not a directory").expect("write");
    let o = post_write(ws.path(), "Edit", &path);
    assert_eq!(code(&o), 2);
    let e = err(&o);
    assert!(e.contains("attempt 1 of 3"), "{e}");
    assert!(e.contains("attempts cannot be counted"), "{e}");
}

#[test]
fn post_write_uses_max_failures_from_the_configuration() {
    let ws = workspace();
    fs::write(
        ws.path().join(".memlint.yml"),
        "post_write: {max_failures: 1}\n",
    )
    .expect("config");
    let path = decision(ws.path());
    fs::write(&path, BROKEN).expect("write");
    let o = post_write(ws.path(), "Write", &path);
    assert_eq!(code(&o), 0);
    assert!(out(&o).contains("\"continue\":false"), "{}", out(&o));
}

#[test]
fn post_write_resolves_references_against_the_whole_workspace() {
    let ws = workspace();
    let path = ws.path().join("memory/decisions/use-new-budget.md");
    let good = "---\ntitle: 新しい予算\nstatus: active\ndate: 2026-11-06\nsources:\n  - decision:inject-newest-first\n  - knowledge:context-budget-rules\n---\n\n本文。\n";
    fs::write(&path, good).expect("write");
    assert_eq!(code(&post_write(ws.path(), "Write", &path)), 0);
    // A replaced_by that names no decision is a cross-record error.
    let bad = "---\ntitle: 古い予算\nstatus: replaced\ndate: 2026-11-06\nsources:\n  - decision:inject-newest-first\nreplaced_by: no-such-decision\n---\n\n本文。\n";
    fs::write(&path, bad).expect("write");
    let o = post_write(ws.path(), "Write", &path);
    assert_eq!(code(&o), 2);
    assert!(err(&o).contains("status/dangling-target"), "{}", err(&o));
    // Only that file is reported.
    assert!(!err(&o).contains("inject-newest-first.md"), "{}", err(&o));
}

#[test]
fn post_write_ignores_what_is_not_a_record_of_this_workspace() {
    let ws = workspace();
    let outside = tempfile::tempdir().expect("tempdir");
    let foreign = outside.path().join("memory/decisions/x.md");
    fs::create_dir_all(foreign.parent().expect("parent")).expect("mkdir");
    fs::write(&foreign, BROKEN).expect("write");
    fs::create_dir_all(ws.path().join("src")).expect("mkdir");
    fs::write(ws.path().join("src/main.rs"), "fn main() {}\n").expect("write");
    let path = decision(ws.path());
    fs::write(&path, BROKEN).expect("write");
    let cases: Vec<(&str, PathBuf)> = vec![
        ("Write", foreign),
        ("Write", ws.path().join("src/main.rs")),
        ("Write", ws.path().join("memory/decisions/missing.md")),
        ("Read", path.clone()),
        ("Bash", path.clone()),
    ];
    for (tool, file) in cases {
        let o = post_write(ws.path(), tool, &file);
        assert_eq!(
            (code(&o), out(&o).as_str(), err(&o).as_str()),
            (0, "", ""),
            "{tool} {}",
            file.display()
        );
    }
    for input in ["not json", "{}", r#"{"tool_name":"Write"}"#, ""] {
        let o = hook(ws.path(), &["hook", "post-write"], input, &[]);
        assert_eq!((code(&o), out(&o).as_str()), (0, ""), "{input}");
    }
}

#[test]
fn post_write_takes_a_path_relative_to_the_session_cwd() {
    let ws = workspace();
    fs::write(decision(ws.path()), BROKEN).expect("write");
    let o = post_write(
        ws.path(),
        "Write",
        Path::new("memory/decisions/rebuild-index-in-parallel.md"),
    );
    assert_eq!(code(&o), 2, "{}", err(&o));
}

#[test]
fn post_write_lints_context_md() {
    let ws = workspace();
    let path = ws.path().join("CONTEXT.md");
    fs::write(&path, "# Context\n\n## 今日の作業\n\nx\n").expect("write");
    // context/block-date is a warning: not handed back.
    let o = post_write(ws.path(), "Edit", &path);
    assert_eq!((code(&o), err(&o).as_str()), (0, ""));
}

/// Issue 44 item 18: a runtime reads exit 2 as blocking, so a hook name it
/// does not know (a newer event, a typo, a stray flag) must not refuse the
/// user's prompts: exit 0, nothing on standard output, a note on standard
/// error naming the hooks there are. Other usage errors still exit 2.
#[test]
fn an_unknown_hook_name_exits_0_with_a_note_and_never_blocks() {
    let ws = workspace();
    let input = r#"{"hook_event_name":"UserPromptSubmit","prompt":"hello"}"#;
    for args in [
        &["hook", "user-prompt-submit"][..],
        &["hook", "pre-compact"],
        &["hook", "sesion-start"],
        &["hook"],
        &["hook", "post-write", "--bogus"],
        &["--root", ".", "-q", "hook", "userpromptsubmit"],
        &["--color=never", "hook", "Stop"],
    ] {
        let o = hook(ws.path(), args, input, &[]);
        assert_eq!(
            (code(&o), out(&o).as_str()),
            (0, ""),
            "{args:?}: {}",
            err(&o)
        );
        let said = err(&o);
        assert!(said.starts_with("memlint hook: note: "), "{args:?}: {said}");
        assert!(
            said.contains("nothing was done")
                && said.contains("`memlint hook session-start`, `memlint hook post-write` and `memlint hook stop`"),
            "{args:?}: {said}"
        );
        assert_eq!(said.lines().count(), 1, "{said}");
    }
    // Not a hook: a usage error as before.
    let o = hook(ws.path(), &["serch", "x"], "", &[]);
    assert_eq!(code(&o), 2);
    let o = hook(ws.path(), &["--root", "hook", "search"], "", &[]);
    assert_eq!(code(&o), 2, "{}", err(&o));
}
