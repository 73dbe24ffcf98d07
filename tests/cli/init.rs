//! `memlint init`: creates the layout, a `.memlint.yml` that parses, and the
//! `.gitignore` lines, never clobbering what exists; a second run changes
//! nothing.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_memlint");

/// Runs `memlint ARGS` in `dir`: (exit code, stdout).
fn memlint(dir: &Path, args: &[&str]) -> (i32, String) {
    let run = common::Memlint::new(dir).args(args).run();
    assert!(run.stderr.is_empty(), "memlint {args:?}: {}", run.stderr);
    (run.code, run.stdout)
}

/// Every file and directory under `root` with its contents (`None` for a
/// directory).
fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            let rel = path
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                out.insert(format!("{rel}/"), None);
                walk(root, &path, out);
            } else {
                out.insert(rel, Some(std::fs::read(&path).expect("read")));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn init_creates_the_layout() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let (code, out) = memlint(root, &["init"]);
    assert_eq!(code, 0, "{out}");
    let files = tree(root);
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        vec![
            ".gitignore",
            ".memlint.yml",
            "CONTEXT.md",
            "knowledge/",
            "knowledge/.gitkeep",
            "memory/",
            "memory/decisions/",
            "memory/decisions/.gitkeep",
            "memory/requests/",
            "memory/requests/.gitkeep",
            "memory/sessions/",
            "memory/sessions/.gitkeep",
            "memory/summary.md",
            "staging/",
            "staging/.gitkeep",
        ]
    );
    for line in [
        "created memory/decisions/",
        "created .memlint.yml",
        "created CONTEXT.md",
    ] {
        assert!(out.contains(line), "{line:?} not in {out}");
    }
    let gitignore = String::from_utf8(files[".gitignore"].clone().expect("file")).expect("UTF-8");
    let lines: Vec<&str> = gitignore.lines().collect();
    assert!(lines.contains(&".memlint/"), "{gitignore}");
    assert!(
        lines.contains(&"staging/.consolidation.lock"),
        "{gitignore}"
    );

    // The new workspace lints clean, with the configuration it was given.
    let (code, out) = memlint(root, &["check", "--color", "never"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "No problems in 2 files.\n");
}

#[test]
fn init_config_parses_to_the_defaults() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (code, _) = memlint(tmp.path(), &["init"]);
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(tmp.path().join(".memlint.yml")).expect("config");
    let config = memlint::syntax::config::parse(&text, &memlint::lint::registry::names())
        .unwrap_or_else(|e| panic!("the written .memlint.yml does not parse: {e}"));
    assert_eq!(config, memlint::model::config::Config::default());
    // Every key of SPEC §8 is spelled out for the user to edit.
    for key in [
        "banned_dirs:",
        "max_sources:",
        "max_body_chars:",
        "similar_slug_ratio:",
        "summary_max_tokens:",
        "max_file_bytes:",
        "rules:",
        "context:",
        "staging:",
        "post_write:",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(key)),
            "{key} missing from\n{text}"
        );
    }
}

#[test]
fn init_appends_to_an_existing_gitignore() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    // No final newline, and one of the two lines already there (without its
    // slash).
    std::fs::write(root.join(".gitignore"), "target/\n.memlint\n*.log").expect("write");
    let (code, out) = memlint(root, &["--root", ".", "init"]);
    assert_eq!(code, 0, "{out}");
    let text = std::fs::read_to_string(root.join(".gitignore")).expect("read");
    assert!(text.starts_with("target/\n.memlint\n*.log\n"), "{text:?}");
    let added: Vec<&str> = text
        .lines()
        .skip(3)
        .filter(|l| !l.starts_with('#'))
        .collect();
    assert_eq!(added, vec!["staging/.consolidation.lock"], "{text:?}");
    assert!(text.ends_with('\n'));
}

#[test]
fn init_keeps_existing_files() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    std::fs::write(root.join(".memlint.yml"), "max_sources: 4\n").expect("write");
    std::fs::write(root.join("CONTEXT.md"), "# Context\n\n## 2026-11-03 Kept\n").expect("write");
    let (code, out) = memlint(root, &["init"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("created .memlint.yml"), "{out}");
    assert_eq!(
        std::fs::read_to_string(root.join(".memlint.yml")).expect("read"),
        "max_sources: 4\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("CONTEXT.md")).expect("read"),
        "# Context\n\n## 2026-11-03 Kept\n"
    );
    assert!(root.join("memory/summary.md").is_file());
}

#[test]
fn second_init_changes_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    std::fs::write(root.join(".gitignore"), "node_modules/\n").expect("write");
    assert_eq!(memlint(root, &["init"]).0, 0);
    let before = tree(root);
    let (code, out) = memlint(root, &["init"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("already initialised; nothing changed"),
        "{out}"
    );
    assert_eq!(tree(root), before);
}

/// The hooks memlint registers, as `init --agent-settings` writes them.
fn memlint_hooks(
    settings: &serde_json::Value,
) -> Vec<(String, String, Option<String>, Option<u64>)> {
    let mut out = Vec::new();
    for (event, groups) in settings["hooks"].as_object().expect("hooks object") {
        for g in groups.as_array().expect("array") {
            for h in g["hooks"].as_array().expect("hooks array") {
                let command = h["command"].as_str().unwrap_or("").to_string();
                if command.starts_with("memlint ") {
                    out.push((
                        event.clone(),
                        command,
                        g["matcher"].as_str().map(str::to_string),
                        h["timeout"].as_u64(),
                    ));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn agent_settings_are_written_and_merged_without_clobbering() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let user = r#"{
  "permissions": {"allow": ["Bash(cargo test)"]},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]
  },
  "model": "opus"
}
"#;
    std::fs::create_dir(root.join(".claude")).expect("mkdir");
    std::fs::write(root.join(".claude/settings.json"), user).expect("write");
    let (code, out) = memlint(root, &["init", "--agent-settings"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "added memlint's SessionStart, UserPromptSubmit, PostToolUse, Stop hook(s) and the permission to run memlint's commands to .claude/settings.json"
        ),
        "{out}"
    );
    let text = std::fs::read_to_string(root.join(".claude/settings.json")).expect("read");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    // The user's settings and hooks stay, in their order.
    assert_eq!(json["permissions"]["allow"][0], "Bash(cargo test)");
    // The agent may run memlint's authoring and reading commands without
    // asking each time.
    assert_eq!(
        json["permissions"]["allow"],
        serde_json::json!([
            "Bash(cargo test)",
            "Bash(memlint new:*)",
            "Bash(memlint replace:*)",
            "Bash(memlint show:*)",
            "Bash(memlint search:*)",
            "Bash(memlint check:*)",
            "Bash(memlint fmt:*)",
            "Bash(memlint staging add:*)"
        ])
    );
    assert_eq!(json["model"], "opus");
    assert_eq!(
        json["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
    assert_eq!(json["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    let order = ["\"permissions\"", "\"hooks\"", "\"model\""].map(|k| text.find(k).expect(k));
    assert!(order[0] < order[1] && order[1] < order[2], "{text}");
    assert_eq!(
        memlint_hooks(&json),
        vec![
            (
                "PostToolUse".into(),
                "memlint hook post-write".into(),
                Some("Write|Edit|MultiEdit".into()),
                None
            ),
            (
                "SessionStart".into(),
                "memlint hook session-start".into(),
                None,
                Some(20)
            ),
            ("Stop".into(), "memlint hook stop".into(), None, None),
            (
                "UserPromptSubmit".into(),
                "memlint hook prompt".into(),
                None,
                Some(10)
            ),
        ]
    );
    // It says how to register the MCP server too.
    assert!(
        out.contains(r#"add {"mcpServers": {"memlint": {"command": "memlint", "args": ["mcp"]}}} to .mcp.json"#),
        "{out}"
    );
    // A second run adds nothing.
    let (code, out) = memlint(root, &["init", "--agent-settings"]);
    assert_eq!(code, 0);
    assert!(out.contains("already registers memlint's hooks"), "{out}");
    assert_eq!(
        std::fs::read_to_string(root.join(".claude/settings.json")).expect("read"),
        text
    );
}

#[test]
fn agent_settings_in_a_new_file_and_a_broken_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let (code, _) = memlint(root, &["init", "--agent-settings", "agent.json"]);
    assert_eq!(code, 0);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("agent.json")).expect("read"))
            .expect("JSON");
    assert_eq!(memlint_hooks(&json).len(), 4);
    // Not JSON: left alone, exit 2.
    std::fs::write(root.join("bad.json"), "{ nope").expect("write");
    let out = Command::new(BIN)
        .args(["init", "--agent-settings", "bad.json"])
        .current_dir(root)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.json is not valid JSON"));
    assert_eq!(
        std::fs::read_to_string(root.join("bad.json")).expect("read"),
        "{ nope"
    );
}

#[test]
fn init_hooks_prints_the_agent_settings() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(root)
        .status();
    if !git.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no git");
        return;
    }
    let (code, out) = memlint(root, &["init", "--hooks"]);
    assert_eq!(code, 0, "{out}");
    let at = out.find("{\n  \"hooks\"").expect("settings printed");
    let json: serde_json::Value = serde_json::from_str(&out[at..]).expect("JSON");
    assert_eq!(memlint_hooks(&json).len(), 4);
    assert_eq!(json["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 20);
    assert!(!root.join(".claude").exists());
}

#[test]
fn agent_settings_know_memlint_by_any_path_and_say_what_is_wrong() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    std::fs::create_dir_all(root.join(".claude")).expect("mkdir");
    let settings = root.join(".claude/settings.json");
    std::fs::write(
        &settings,
        r#"{"hooks":{"PostToolUse":[{"matcher":"Write|Edit|MultiEdit","hooks":[{"type":"command","command":"/usr/local/bin/memlint hook post-write"}]}]}}"#,
    )
    .expect("write");
    let (code, out) = memlint(root, &["init", "--agent-settings"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("SessionStart, UserPromptSubmit, Stop hook(s)"),
        "{out}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).expect("read")).expect("JSON");
    assert_eq!(
        json["hooks"]["PostToolUse"].as_array().expect("list").len(),
        1,
        "post-write is registered once: {json}"
    );

    std::fs::write(&settings, r#"{"hooks": []}"#).expect("write");
    let out = Command::new(BIN)
        .args(["init", "--agent-settings"])
        .current_dir(root)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(".claude/settings.json has a `hooks` that is not a JSON object"),
        "{err}"
    );
}

#[test]
fn agent_settings_add_post_write_only_for_the_tools_not_yet_covered() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    std::fs::create_dir_all(root.join(".claude")).expect("mkdir");
    let settings = root.join(".claude/settings.json");
    let post_write = |matcher: &str| {
        format!(
            r#"{{"hooks":{{"PostToolUse":[{{"matcher":"{matcher}","hooks":[{{"type":"command","command":"memlint hook post-write"}}]}}]}}}}"#
        )
    };
    let matchers = |settings: &Path| -> Vec<String> {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(settings).expect("read")).expect("JSON");
        json["hooks"]["PostToolUse"]
            .as_array()
            .expect("list")
            .iter()
            .map(|g| g["matcher"].as_str().unwrap_or("(none)").to_string())
            .collect()
    };
    // Registered for Write only: Edit and MultiEdit are added, Write is not
    // registered a second time.
    std::fs::write(&settings, post_write("Write")).expect("write");
    let (code, out) = memlint(root, &["init", "--agent-settings"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("SessionStart, UserPromptSubmit, PostToolUse, Stop hook(s)"),
        "{out}"
    );
    assert_eq!(matchers(&settings), ["Write", "Edit|MultiEdit"]);
    let (_, out) = memlint(root, &["init", "--agent-settings"]);
    assert!(out.contains("already registers memlint's hooks"), "{out}");

    // Every tool, as `*`, as a regular expression, or in another order.
    for covering in [
        "*",
        "Write|Edit|MultiEdit",
        "MultiEdit|Edit|Write",
        ".*Edit|Write",
    ] {
        std::fs::write(&settings, post_write(covering)).expect("write");
        let (code, out) = memlint(root, &["init", "--agent-settings"]);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains("SessionStart, UserPromptSubmit, Stop hook(s)"),
            "{covering}: {out}"
        );
        assert_eq!(matchers(&settings), [covering], "{covering}");
    }
}

#[cfg(unix)]
#[test]
fn init_never_writes_through_a_link_out_of_the_workspace() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::create_dir_all(outside.join("claude")).expect("mkdir");
    std::fs::write(outside.join("gitignore"), "target/\n").expect("write");
    std::os::unix::fs::symlink(outside.join("gitignore"), root.join(".gitignore"))
        .expect("symlink");
    let out = Command::new(BIN)
        .arg("init")
        .current_dir(&root)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(".gitignore leads out of") && err.contains("memlint never writes there"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("gitignore")).expect("read"),
        "target/\n"
    );
    assert!(!root.join("memory").exists(), "nothing is created");

    std::fs::remove_file(root.join(".gitignore")).expect("rm");
    std::os::unix::fs::symlink(outside.join("claude"), root.join(".claude")).expect("symlink");
    let out = Command::new(BIN)
        .args(["init", "--agent-settings"])
        .current_dir(&root)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(".claude/settings.json leads out of"));
    assert_eq!(
        std::fs::read_dir(outside.join("claude"))
            .expect("read")
            .count(),
        0
    );
}

/// Issue 44 item 22: `init --hooks` on a workspace that is there does not
/// say "nothing changed" before listing what it changed; `init` with
/// nothing to do still says so; `-q init` prints only what asks for the
/// user's hand; no line points at an internal document.
#[test]
fn init_on_an_existing_workspace_says_what_it_changed_and_q_is_quiet() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .expect("git")
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    let (code, out) = memlint(root, &["-q", "init"]);
    assert_eq!((code, out.as_str()), (0, ""));
    assert!(root.join(".memlint.yml").is_file());
    let (code, out) = memlint(root, &["init"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        format!(
            "memlint: {} is already initialised; nothing changed\n",
            root.display()
        )
    );
    let (code, out) = memlint(root, &["init", "--hooks"]);
    assert_eq!(code, 0);
    assert!(!out.contains("nothing changed"), "{out}");
    assert!(!out.contains("SPEC"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..4],
        [
            format!("memlint: {} is already initialised", root.display()).as_str(),
            "wrote .githooks/pre-commit",
            "set core.hooksPath to .githooks",
            "wrote .githooks/commit-msg",
        ],
        "{out}"
    );
    assert!(
        out.contains("Agent-runtime hooks: add to your runtime settings"),
        "{out}"
    );
    // Quiet: the settings to add are still printed, the status lines not.
    let (code, out) = memlint(root, &["-q", "init", "--hooks"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("\nAgent-runtime hooks: "), "{out}");
    assert!(
        !out.contains("up to date") && !out.contains("initialised"),
        "{out}"
    );
}

/// Every file and directory under `root`, names only.
fn names(root: &Path) -> Vec<String> {
    tree(root).into_keys().collect()
}

/// Issue 44 item 19: outside a workspace, the commands that read or write
/// the memory say there is none and how to make one, exit 2 and create
/// nothing (no `.memlint/`, no `memory/`); the hooks still exit 0 and
/// write nothing.
#[test]
fn outside_a_workspace_commands_say_so_and_create_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    let project = root.join("project");
    std::fs::create_dir_all(project.join("src")).expect("mkdir");
    std::fs::write(project.join("src/main.rs"), "fn main() {}\n").expect("write");
    let ok = Command::new("git")
        .args(["init", "-q", "-b", "main"])
        .current_dir(&project)
        .status()
        .expect("git")
        .success();
    assert!(ok);
    let before = names(&project);
    let said = format!(
        "memlint: error: {} is not a memlint workspace: it has no .memlint.yml, memory/, knowledge/ or CONTEXT.md (the root is the nearest directory above with .memlint.yml, else the top of the git work tree, else the current directory); run `memlint init` to make one, or name one with --root DIR\n",
        project.display()
    );
    for args in [
        &["search", "cache"][..],
        &["context"],
        &[
            "new",
            "decision",
            "Use gix",
            "--source",
            "https://example.com",
        ],
        &["show", "use-gix"],
        &["index"],
    ] {
        // From a subdirectory too: the root is the top of the work tree.
        for dir in [project.clone(), project.join("src")] {
            let out = Command::new(BIN)
                .args(args)
                .current_dir(&dir)
                .output()
                .expect("run memlint");
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert_eq!(out.stdout, b"", "{args:?}");
            assert_eq!(String::from_utf8_lossy(&out.stderr), said, "{args:?}");
            assert_eq!(names(&project), before, "{args:?} created files");
        }
    }
    // The hooks stay silent and succeed.
    for hook in ["session-start", "stop"] {
        let out = Command::new(BIN)
            .args(["hook", hook])
            .current_dir(&project)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run memlint");
        assert_eq!(out.status.code(), Some(0), "{hook}");
        assert_eq!((out.stdout.len(), out.stderr.len()), (0, 0), "{hook}");
    }
    assert_eq!(names(&project), before);
    // Made one: the same commands work.
    assert_eq!(memlint(&project, &["-q", "init"]).0, 0);
    let (code, _) = memlint(&project, &["search", "cache"]);
    assert_eq!(code, 0);
}
