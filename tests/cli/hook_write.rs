//! `memlint hook post-write` tells the agent everything, in the runtime's
//! own protocol, and counts failed attempts exactly, per session: driven
//! with the JSON shapes the runtime sends (Write, Edit, MultiEdit, Bash, a
//! relative `file_path`, `cwd` in a subdirectory), stdout, stderr and exit
//! codes checked separately.

use crate::common;

use common::Memlint;

use serde_json::{json, Value};
use std::fs;
use std::path::Path;
use std::process::Output;

fn hook(dir: &Path, event: &str, input: &Value) -> Output {
    Memlint::new(dir)
        .args(["hook", event])
        .stdin(input.to_string())
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

/// The PostToolUse input of a Write (content), an Edit (old/new string) or
/// a MultiEdit (edits) of `file`, in a session run from `cwd`.
fn write_input(tool: &str, file: &str, cwd: &Path, session: &str) -> Value {
    let tool_input = match tool {
        "Write" => json!({"file_path": file, "content": "…"}),
        "Edit" => json!({"file_path": file, "old_string": "a", "new_string": "b"}),
        "MultiEdit" => {
            json!({"file_path": file, "edits": [{"old_string": "a", "new_string": "b"}]})
        }
        other => panic!("{other}"),
    };
    json!({
        "session_id": session,
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": cwd,
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_response": {"filePath": file, "success": true},
    })
}

const DECISION: &str = "memory/decisions/rebuild-index-in-parallel.md";

/// A decision with only warnings: a relative date in the body, a dangling
/// `file:` source, a misspelt key.
const WARNED: &str = "---\ntitle: Rebuild the index in parallel\nstatus: active\ndate: 2026-11-20\nsources:\n  - file:docs/nowhere.md\ntagz: [index]\n---\n\nDecided yesterday.\n";

/// A decision with an error (a relative `date`).
const BROKEN: &str = "---\ntitle: Rebuild the index in parallel\nstatus: active\ndate: yesterday\nsources:\n  - file:CONTEXT.md\n---\n\nBody.\n";

/// Valid, but not in canonical form (key order, list layout).
const UNFORMATTED: &str = "---\nstatus: active\ntitle: Rebuild the index in parallel\nsources: [file:CONTEXT.md]\ndate: 2026-11-20\n---\n\nBody.\n";

fn context_of(o: &Output) -> String {
    let v: Value = serde_json::from_str(&out(o)).unwrap_or_else(|e| panic!("{e}: {}", out(o)));
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("additionalContext")
        .to_string()
}

#[test]
fn warnings_reach_the_agent_as_additional_context() {
    let ws = common::workspace("context");
    fs::write(ws.path().join(DECISION), WARNED).expect("write");
    for tool in ["Write", "Edit", "MultiEdit"] {
        let o = hook(
            ws.path(),
            "post-write",
            &write_input(tool, DECISION, ws.path(), "s1"),
        );
        assert_eq!(code(&o), 0, "{tool}: {}", err(&o));
        assert_eq!(err(&o), "", "{tool}");
        let context = context_of(&o);
        let lines: Vec<&str> = context.lines().collect();
        assert_eq!(lines.len(), 4, "{context}");
        assert!(
            lines[0].starts_with(&format!("memlint: {DECISION} has 3 warning(s)")),
            "{context}"
        );
        assert!(
            lines[1].starts_with(&format!("{DECISION}:6:5: warning[sources/dangling]")),
            "{context}"
        );
        assert!(
            lines[2].starts_with(&format!("{DECISION}:7:1: warning[frontmatter/unknown-key]")),
            "{context}"
        );
        assert!(
            lines[2].ends_with(&format!(" (fix: `memlint check --fix {DECISION}`)")),
            "{context}"
        );
        assert!(
            lines[3].starts_with(&format!("{DECISION}:10:9: warning[date/relative]")),
            "{context}"
        );
    }
}

#[test]
fn an_unformatted_record_is_named_with_the_command_that_formats_it() {
    let ws = common::workspace("context");
    fs::write(ws.path().join(DECISION), UNFORMATTED).expect("write");
    let o = hook(
        ws.path(),
        "post-write",
        &write_input("Write", DECISION, ws.path(), "s1"),
    );
    assert_eq!((code(&o), err(&o).as_str()), (0, ""));
    let context = context_of(&o);
    assert!(
        context.contains(&format!(
            "{DECISION} is not in canonical form; run `memlint fmt {DECISION}`"
        )),
        "{context}"
    );
    // Nothing was changed behind the agent's back.
    assert_eq!(
        fs::read_to_string(ws.path().join(DECISION)).expect("read"),
        UNFORMATTED
    );

    // With post_write.format the hook formats it and says so.
    let config = ws.path().join(".memlint.yml");
    let mut text = fs::read_to_string(&config).unwrap_or_default();
    text.push_str("post_write:\n  format: true\n");
    fs::write(&config, text).expect("config");
    let o = hook(
        ws.path(),
        "post-write",
        &write_input("Write", DECISION, ws.path(), "s1"),
    );
    assert_eq!((code(&o), err(&o).as_str()), (0, ""));
    let context = context_of(&o);
    assert!(
        context.contains(&format!("memlint formatted {DECISION}")),
        "{context}"
    );
    let formatted = fs::read_to_string(ws.path().join(DECISION)).expect("read");
    assert!(formatted.starts_with("---\ntitle: Rebuild the index in parallel\nstatus: active\ndate: 2026-11-20\nsources:\n  - file:CONTEXT.md\n---\n"), "{formatted}");
}

#[test]
fn a_clean_formatted_record_and_other_tools_stay_silent() {
    let ws = common::workspace("context");
    let o = hook(
        ws.path(),
        "post-write",
        &write_input("Edit", DECISION, ws.path(), "s1"),
    );
    assert_eq!((code(&o), out(&o).as_str(), err(&o).as_str()), (0, "", ""));
    let bash = json!({
        "session_id": "s1", "cwd": ws.path(), "hook_event_name": "PostToolUse",
        "tool_name": "Bash", "tool_input": {"command": "echo hi > memory/decisions/x.md"},
        "tool_response": {"stdout": "", "stderr": "", "interrupted": false},
    });
    let o = hook(ws.path(), "post-write", &bash);
    assert_eq!((code(&o), out(&o).as_str(), err(&o).as_str()), (0, "", ""));
}

#[test]
fn errors_still_block_with_exit_2_on_standard_error() {
    let ws = common::workspace("context");
    fs::write(ws.path().join(DECISION), BROKEN).expect("write");
    // A relative file_path, from a session whose cwd is a subdirectory.
    let sub = ws.path().join("memory");
    let o = hook(
        ws.path(),
        "post-write",
        &write_input("Edit", "decisions/rebuild-index-in-parallel.md", &sub, "s1"),
    );
    assert_eq!(code(&o), 2, "{}", err(&o));
    assert_eq!(out(&o), "");
    assert!(
        err(&o).contains(&format!("{DECISION}:4:7: error[date/format]")),
        "{}",
        err(&o)
    );
    assert!(err(&o).contains("attempt 1 of 3"), "{}", err(&o));
}

fn attempt_of(o: &Output) -> u32 {
    let e = err(o);
    let at = e.find("(attempt ").unwrap_or_else(|| panic!("{e}")) + 9;
    e[at..]
        .split(' ')
        .next()
        .expect("n")
        .parse()
        .expect("number")
}

#[test]
fn the_count_is_per_session_and_reset_at_session_start() {
    let ws = common::workspace("context");
    fs::write(ws.path().join(DECISION), BROKEN).expect("write");
    let fail = |session: &str| {
        hook(
            ws.path(),
            "post-write",
            &write_input("Edit", DECISION, ws.path(), session),
        )
    };
    assert_eq!(attempt_of(&fail("old")), 1);
    assert_eq!(attempt_of(&fail("old")), 2);
    // A new session's first bad write is its first attempt.
    assert_eq!(attempt_of(&fail("new")), 1);
    // The old session resumed after a compaction starts afresh too.
    let start = json!({"session_id": "old", "hook_event_name": "SessionStart", "source": "compact", "cwd": ws.path()});
    assert_eq!(code(&hook(ws.path(), "session-start", &start)), 0);
    assert_eq!(attempt_of(&fail("old")), 1);
    assert_eq!(attempt_of(&fail("new")), 2);
    // Without a session id the count is shared.
    let anonymous = |_: ()| {
        let mut input = write_input("Edit", DECISION, ws.path(), "x");
        input.as_object_mut().expect("object").remove("session_id");
        hook(ws.path(), "post-write", &input)
    };
    assert_eq!(attempt_of(&anonymous(())), 1);
    assert_eq!(attempt_of(&anonymous(())), 2);
}

#[test]
fn a_file_that_is_gone_leaves_no_count_behind() {
    let ws = common::workspace("context");
    fs::write(ws.path().join(DECISION), BROKEN).expect("write");
    let o = hook(
        ws.path(),
        "post-write",
        &write_input("Edit", DECISION, ws.path(), "s1"),
    );
    assert_eq!(code(&o), 2);
    fs::remove_file(ws.path().join(DECISION)).expect("rm");
    let other = "memory/decisions/other.md";
    fs::write(ws.path().join(other), BROKEN).expect("write");
    let o = hook(
        ws.path(),
        "post-write",
        &write_input("Edit", other, ws.path(), "s1"),
    );
    assert_eq!(code(&o), 2);
    let counts =
        fs::read_to_string(ws.path().join(".memlint/post-write-failures.json")).expect("counts");
    assert!(!counts.contains("rebuild-index-in-parallel"), "{counts}");
    assert!(counts.contains("other.md"), "{counts}");
}

#[test]
fn sixty_four_parallel_hooks_count_sixty_four_failures() {
    let ws = common::workspace("context");
    fs::write(ws.path().join(DECISION), BROKEN).expect("write");
    fs::write(
        ws.path().join(".memlint.yml"),
        "post_write:\n  max_failures: 1000\n",
    )
    .expect("config");
    let input = write_input("Edit", DECISION, ws.path(), "parallel").to_string();
    let children: Vec<_> = (0..64)
        .map(|_| {
            Memlint::new(ws.path())
                .args(["hook", "post-write"])
                .stdin(&input)
                .spawn()
        })
        .collect();
    let mut attempts: Vec<u32> = children
        .into_iter()
        .map(|c| {
            let o = c.wait_with_output().expect("wait");
            assert_eq!(code(&o), 2, "{}", err(&o));
            attempt_of(&o)
        })
        .collect();
    attempts.sort_unstable();
    assert_eq!(attempts, (1..=64).collect::<Vec<u32>>());
}
