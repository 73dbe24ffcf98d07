//! Issue 48 item 6: the engine names no command-line flag; the command
//! line names its own flags (and the commands that read git) in the
//! engine's messages, word for word as before the engine stopped wording
//! them.

use crate::common::{self, memlint, memlint_stdin, TempWorkspace};
use std::path::Path;

/// A workspace (`.memlint.yml` only) outside any git repository, and its
/// root as memlint shows it.
fn outside_git() -> (tempfile::TempDir, String) {
    let dir = TempWorkspace::new().config("max_sources: 10\n").build();
    let shown = dir.path().canonicalize().expect("canonicalize");
    (dir, shown.display().to_string())
}

/// `memlint ARGS` in `dir` exits 2 with exactly `stderr`.
fn refused(dir: &Path, args: &[&str], stderr: &str) {
    let run = memlint(dir, args);
    assert_eq!(run.code, 2, "{args:?}: {run:?}");
    assert_eq!(run.stderr, stderr, "{args:?}");
}

#[test]
fn the_flags_given_are_named_as_flags() {
    let (dir, shown) = outside_git();
    let ws = dir.path();
    refused(
        ws,
        &["new", "decision", "A title here", "--source", "file:x", "--date", "yesterday"],
        "memlint: error: --date yesterday: not an absolute date; give it as YYYY-MM-DD (memory outlives the day it was written, so relative dates are never stored)\n",
    );
    let json = memlint(
        ws,
        &[
            "new",
            "decision",
            "A title here",
            "--source",
            "file:x",
            "--date",
            "yesterday",
            "--format",
            "json",
        ],
    );
    let value: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(
        value["error"],
        "--date yesterday: not an absolute date; give it as YYYY-MM-DD (memory outlives the day it was written, so relative dates are never stored)"
    );
    for (source, said) in [
        (
            "",
            "--source is empty; say where the activity log comes from (such as session:<id>)",
        ),
        ("a\nb", "--source must be one line"),
    ] {
        let run = memlint_stdin(ws, &["staging", "add", "--source", source], "");
        assert_eq!(run.code, 2, "{run:?}");
        assert_eq!(run.stderr, format!("memlint: error: {said}\n"));
    }
    refused(
        ws,
        &["export", "agents-md", "--file", "NOPE.md"],
        "memlint: error: --file NOPE.md: the block is written to one of AGENTS.md, CLAUDE.md, GEMINI.md, .github/copilot-instructions.md\n",
    );
    for command in [&["check"][..], &["search", "x"], &["mcp"]] {
        let mut args = vec!["--root", "missing"];
        args.extend_from_slice(command);
        let prefix = if command == ["mcp"] {
            "memlint mcp"
        } else {
            "memlint"
        };
        refused(
            ws,
            &args,
            &format!("{prefix}: error: --root {shown}/missing: not a directory\n"),
        );
    }
    refused(
        ws,
        &["init", "--agent-settings", "../x.json"],
        &format!("memlint: error: --agent-settings ../x.json: the file is outside the workspace root {shown}; memlint writes only inside it\n"),
    );
}

#[test]
fn the_git_modes_are_named_as_commands() {
    let (dir, shown) = outside_git();
    let ws = dir.path();
    common::write(ws, "msg", "Subject\n");
    for (args, command) in [
        (&["check", "--staged"][..], "`check --staged`"),
        (
            &["check", "--staged", "--commit-msg", "msg"],
            "`check --staged --commit-msg`",
        ),
        (&["check", "--base", "main"], "`check --base`"),
        (&["log"], "`log`"),
        (&["init", "--hooks"], "`init --hooks`"),
        (
            &["staging", "claim", "--pod", "p", "--remote", "origin"],
            "`staging --remote`",
        ),
        (
            &["staging", "release", "--pod", "p", "--remote", "origin"],
            "`staging --remote`",
        ),
    ] {
        refused(
            ws,
            args,
            &format!("memlint: error: {shown} is not in a git repository; {command} reads git (run `git init` first)\n"),
        );
    }
    // `init --merge` lays the workspace out first.
    let run = memlint(ws, &["init", "--merge"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert_eq!(
        run.stderr,
        format!("memlint: error: {shown} is not in a git repository; `init --merge` reads git (run `git init` first)\n")
    );
    let fresh = TempWorkspace::new()
        .git()
        .config("max_sources: 10\n")
        .build();
    refused(
        fresh.path(),
        &["check", "--base", "main"],
        "memlint: error: the repository has no commits yet; `check --base` needs at least one commit\n",
    );
}

#[test]
fn what_to_do_next_is_worded_with_flags() {
    let empty = tempfile::tempdir().expect("tempdir");
    let shown = empty.path().canonicalize().expect("canonicalize");
    refused(
        empty.path(),
        &["search", "x"],
        &format!("memlint: error: {} is not a memlint workspace: it has no .memlint.yml, memory/, knowledge/ or CONTEXT.md (the root is the nearest directory above with .memlint.yml, else the top of the git work tree, else the current directory); run `memlint init` to make one, or name one with --root DIR\n", shown.display()),
    );
    // A configuration that leads out of the root, for a command and a hook.
    let outside = tempfile::tempdir().expect("tempdir");
    common::write(outside.path(), "cfg.yml", "max_sources: 3\n");
    let ws = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(
        outside.path().join("cfg.yml"),
        ws.path().join(".memlint.yml"),
    )
    .expect("symlink");
    let root = ws.path().canonicalize().expect("canonicalize");
    let said = format!(
        ".memlint.yml leads out of {} through a symbolic link; memlint never reads there (name it with --config to use it)\n",
        root.display()
    );
    refused(ws.path(), &["check"], &format!("memlint: error: {said}"));
    let hook = memlint_stdin(ws.path(), &["hook", "session-start"], "{}");
    assert_eq!(hook.code, 0, "{hook:?}");
    assert_eq!(hook.stderr, format!("memlint hook: {said}"));
}

#[test]
fn init_hooks_tells_what_to_run_in_a_hook_it_leaves_alone() {
    let ws = TempWorkspace::new().git().build();
    let first = memlint(ws.path(), &["init", "--hooks"]);
    assert_eq!(first.code, 0, "{first:?}");
    let agent = "\nAgent-runtime hooks: add to your runtime settings, e.g. .claude/settings.json (or let `memlint init --agent-settings` merge them in):\n";
    assert!(first.stdout.contains(agent), "{}", first.stdout);
    common::write(ws.path(), ".githooks/commit-msg", "#!/bin/sh\necho mine\n");
    let again = memlint(ws.path(), &["init", "--hooks"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(
        again.stdout.contains(
            "left .githooks/commit-msg as it is (it is not memlint's); add `memlint check --staged --commit-msg \"$1\"` to it\n"
        ),
        "{}",
        again.stdout
    );
    assert!(again.stdout.contains(agent), "{}", again.stdout);
}
