//! `memlint mcp`, driven by the official MCP Python SDK's stdio client
//! (tests/mcp/client.py): initialize, the tool list, every tool's happy
//! path, refusals with diagnostics and nothing on disk, bad input, and
//! clients racing to write one title. Skipped, with a message, when the
//! SDK is not installed (`pip install mcp`; `.ci/run` installs it).

use crate::common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Runs a scenario of the Python client; `None` when the SDK is missing.
fn scenario(root: &Path, name: &str) -> Option<Value> {
    let has_sdk = Command::new("python3")
        .args(["-c", "import mcp.client.stdio"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_sdk {
        eprintln!("skipped: the MCP Python SDK is not installed (pip install mcp)");
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(common::BIN)
        .arg(root)
        .arg(name)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "client {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).expect("the client prints JSON"))
}

fn workspace() -> tempfile::TempDir {
    let ws = common::workspace("example");
    common::commit_all(ws.path());
    ws
}

#[test]
fn the_tools_are_few_small_and_typed() {
    let ws = workspace();
    let Some(out) = scenario(ws.path(), "tools") else {
        return;
    };
    assert_eq!(out["server"], "memlint");
    let tools = out["tools"].as_array().expect("tools");
    let mut names: Vec<&str> = tools
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "memory_context",
            "memory_log",
            "memory_read",
            "memory_recent",
            "memory_search",
            "memory_update",
            "memory_write",
            "session_memory"
        ]
    );
    for t in tools {
        let chars = t["description_chars"].as_u64().expect("chars");
        assert!(chars > 0 && chars < 400, "{t}");
        assert_eq!(t["input_schema"]["type"], "object", "{t}");
        let name = t["name"].as_str().expect("name");
        assert!(!name.contains('.') && name == name.to_lowercase());
    }
    let write = tools
        .iter()
        .find(|t| t["name"] == "memory_write")
        .expect("write");
    assert_eq!(
        write["input_schema"]["required"],
        serde_json::json!(["kind", "title", "sources"])
    );
}

#[test]
fn every_tool_works_end_to_end() {
    let ws = workspace();
    let Some(out) = scenario(ws.path(), "happy") else {
        return;
    };
    let ok = |key: &str| -> &Value {
        assert_eq!(out[key]["is_error"], false, "{key}: {}", out[key]);
        &out[key]["structured"]
    };
    assert_eq!(
        ok("write")["path"],
        "memory/decisions/use-gix-for-git-reads.md"
    );
    let written =
        std::fs::read_to_string(ws.path().join("memory/decisions/use-gix-for-git-reads.md"))
            .expect("written");
    assert!(
        written.contains("title: Use gix for git reads\nstatus: active\n"),
        "{written}"
    );
    assert_eq!(ok("read")["fields"]["title"], "Use gix for git reads");
    assert_eq!(ok("update")["changed"], true);
    let updated =
        std::fs::read_to_string(ws.path().join("memory/decisions/use-gix-for-git-reads.md"))
            .expect("updated");
    assert!(updated.contains("tags: [git, reads]\n"), "{updated}");
    // An active decision's body is not rewritten in place.
    assert_eq!(out["rewrite"]["is_error"], true);
    assert!(out["rewrite"]["text"]
        .as_str()
        .expect("text")
        .contains("write a new decision that replaces it"));
    let paths = |v: &Value| -> Vec<String> {
        v["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["path"].as_str().expect("path").to_string())
            .collect()
    };
    assert_eq!(
        paths(ok("search"))[0],
        "memory/decisions/use-gix-for-git-reads.md"
    );
    assert_eq!(
        paths(ok("search_ja"))[0],
        "knowledge/minor-unit-rounding.md"
    );
    let context = ok("context")["text"].as_str().expect("text");
    assert!(
        context.contains("- use-gix-for-git-reads — Use gix for git reads"),
        "{context}"
    );
    assert_eq!(ok("recent")["records"][0]["slug"], "use-gix-for-git-reads");
    assert_eq!(ok("log")["commits"][0]["summary"], "snapshot");
    assert!(ok("export")["text"]
        .as_str()
        .expect("text")
        .contains("## Session ID"));
    assert_eq!(out["import"]["is_error"], true);
    assert!(out["import"]["text"]
        .as_str()
        .expect("text")
        .contains("session/sections"));
}

#[test]
fn refusals_come_back_as_tool_errors_and_nothing_is_written() {
    let ws = workspace();
    let before = common::git(ws.path(), &["status", "--porcelain"]);
    let Some(out) = scenario(ws.path(), "refused") else {
        return;
    };
    let error = |key: &str| -> &Value {
        assert_eq!(out[key]["is_error"], true, "{key}: {}", out[key]);
        &out[key]
    };
    let d = &error("bad_source")["structured"]["diagnostics"][0];
    assert_eq!(
        (&d["rule"], &d["line"], &d["column"]),
        (&"sources/format".into(), &6.into(), &5.into())
    );
    // Words for a model with tools: the rule's document, not a command.
    assert_eq!(
        d["fix"],
        "the rule is explained at https://github.com/memlint/memlint/blob/main/docs/rules.md#sourcesformat"
    );
    let secret = error("secret");
    assert!(secret["text"]
        .as_str()
        .expect("text")
        .contains("secrets/detected"));
    assert!(!secret
        .to_string()
        .contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"));
    assert_eq!(
        error("similar")["structured"]["similar"][0]["path"],
        "memory/decisions/use-sqlite-statement-cache.md"
    );
    assert!(error("exists")["text"]
        .as_str()
        .expect("text")
        .contains("already exists"));
    assert!(error("escape")["text"].as_str().expect("text").contains(
        "not where a record lives (records live under memory/, knowledge/ and staging/)"
    ));
    assert!(error("bad_slug")["text"]
        .as_str()
        .expect("text")
        .contains("is not a slug"));
    assert!(error("bad_kind")["text"]
        .as_str()
        .expect("text")
        .contains("decision, request or knowledge"));
    assert!(error("huge")["text"]
        .as_str()
        .expect("text")
        .contains("format/too-large"));
    assert!(out["unknown_tool"]
        .as_str()
        .expect("error")
        .contains("tool not found"));
    assert!(error("missing_arg")["text"]
        .as_str()
        .expect("text")
        .contains("missing field `target`"));
    assert!(error("mistyped_arg")["text"]
        .as_str()
        .expect("text")
        .contains("invalid type"));
    assert_eq!(out["after"]["is_error"], false);
    // Nothing reached the disk.
    assert_eq!(common::git(ws.path(), &["status", "--porcelain"]), before);
}

#[test]
fn clients_racing_to_write_one_title_make_one_record() {
    let ws = workspace();
    let Some(out) = scenario(ws.path(), "race") else {
        return;
    };
    let results = out["results"].as_array().expect("results");
    assert_eq!(
        results.iter().filter(|r| r["is_error"] == false).count(),
        1,
        "{out}"
    );
    for r in results.iter().filter(|r| r["is_error"] == true) {
        assert!(
            r["text"].as_str().expect("text").contains("already exists"),
            "{r}"
        );
    }
}

/// Runs `memlint mcp` with `input` on standard input (then EOF): its exit
/// code and the JSON-RPC messages it wrote, one per line.
fn raw(root: &Path, input: &[u8]) -> (i32, Vec<Value>, String) {
    let out = common::Memlint::new(root)
        .arg("--root")
        .arg(root)
        .arg("mcp")
        .stdin(input)
        .output();
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let messages = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {l}")))
        .collect();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), messages, stderr)
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

#[test]
fn the_protocol_survives_bad_input_and_stdout_holds_only_messages() {
    let ws = workspace();
    // Malformed JSON and a lone surrogate in a path, then a good call: the
    // server keeps serving and answers it.
    let input = format!(
        "{INIT}garbage{{\n{}\n{}\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_read","arguments":{"target":"memory/decisions/\udc80.md"}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_recent","arguments":{"limit":1}}}"#
    );
    let (code, messages, _) = raw(ws.path(), input.as_bytes());
    assert_eq!(code, 0);
    let by_id = |id: i64| messages.iter().find(|m| m["id"] == id).cloned();
    assert_eq!(
        by_id(1).expect("initialized")["result"]["serverInfo"]["name"],
        "memlint"
    );
    // The garbage and the message with a lone surrogate (not JSON) each
    // get the JSON-RPC parse error.
    let parse_errors = messages
        .iter()
        .filter(|m| m["id"].is_null() && m["error"]["code"] == -32700)
        .count();
    assert_eq!(parse_errors, 2, "{messages:?}");
    assert!(by_id(2).is_none());
    assert_eq!(by_id(3).expect("still serving")["result"]["isError"], false);

    // A request before initialize gets an error; EOF ends the server with 0.
    let (code, messages, _) = raw(
        ws.path(),
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}
"#,
    );
    assert_eq!(code, 0);
    assert!(
        messages.iter().all(|m| m.get("result").is_none()),
        "{messages:?}"
    );

    // EOF in the middle of a message: exit 0, no partial write anywhere.
    let before = common::git(ws.path(), &["status", "--porcelain"]);
    let cut = format!(
        "{INIT}{}",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_write","arguments":{"kind":"decision","title":"Cut"#
    );
    let (code, _, _) = raw(ws.path(), cut.as_bytes());
    assert_eq!(code, 0);
    assert_eq!(common::git(ws.path(), &["status", "--porcelain"]), before);
}

#[test]
fn no_tool_ever_shows_a_secret() {
    let ws = workspace();
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    common::write(
        ws.path(),
        "knowledge/deploy-with-a-token.md",
        &format!("---\ntitle: Deploy with a token {token}\ndescription: The deploy token is {token}\nmodel_invocation: true\ndate: 2026-12-01\nsources:\n  - file:docs/bank-api.md\n---\n\nDeploy token: {token}\n"),
    );
    let Some(out) = scenario(ws.path(), "secret") else {
        return;
    };
    let text = out.to_string();
    assert!(!text.contains(token), "{text}");
    assert_eq!(
        out["search"]["structured"]["results"][0]["path"],
        "knowledge/deploy-with-a-token.md"
    );
    assert!(out["read"]["structured"]["body"]
        .as_str()
        .expect("body")
        .contains("Deploy token: "));
}

/// Issue 44 items 20 and 21: the server words the engine's advice for a
/// model with tools (tool and parameter names, never `memlint …` commands
/// or `--force`), and a value it cannot write names the real problem.
#[test]
fn refusals_and_texts_speak_in_tools_not_commands() {
    let ws = workspace();
    let config = ws.path().join(".memlint.yml");
    let text = std::fs::read_to_string(&config).expect("read");
    // A small budget, so that the context is cut and says how to recall.
    std::fs::write(&config, text.replace("max_chars: 3000", "max_chars: 900")).expect("write");
    let Some(out) = scenario(ws.path(), "advice") else {
        return;
    };
    let text = |k: &str| {
        assert_eq!(out[k]["is_error"], k != "context", "{k}: {}", out[k]);
        out[k]["text"].as_str().expect("text").to_string()
    };
    for k in [
        "similar", "control", "rewrite", "context", "bad_id", "missing", "empty",
    ] {
        let t = text(k);
        assert!(!t.contains("memlint ") && !t.contains("--"), "{k}: {t}");
    }
    assert!(text("similar").starts_with(
        "use-sqlite-statement-caches looks like a near-duplicate of `use-sqlite-statement-cache` (memory/decisions/use-sqlite-statement-cache.md); update that record instead (or call memory_write again with force: true to write it anyway)\n"
    ), "{}", text("similar"));
    assert_eq!(
        text("control"),
        "the new `title` holds the control character U+0007 at character 17; a front-matter value is one line of plain text: remove it (a body may hold line breaks)"
    );
    assert!(
        text("rewrite").ends_with(": write a new decision that replaces it (memory_write with replaces: use-sqlite-statement-cache)"),
        "{}",
        text("rewrite")
    );
    let context = out["context"]["structured"]["text"]
        .as_str()
        .expect("context")
        .to_string();
    assert!(
        context.starts_with("Search memory (memory_search) before starting work"),
        "{context}"
    );
    assert!(
        context
            .trim_end()
            .ends_with("memory_search recalls the rest]")
            || context.trim_end().ends_with("memory_search recalls more]"),
        "{context}"
    );
    for k in ["bad_id", "missing"] {
        assert!(
            text(k).ends_with(" (memory_recent with kind session lists the stored ones)"),
            "{k}: {}",
            text(k)
        );
    }
    assert!(text("empty").starts_with("the session text is empty; nothing to import (a session text has the 14 level-2 sections"), "{}", text("empty"));
}

/// Issue 44 item 19: outside a workspace a tool creates nothing (no
/// `.memlint/`, no `memory/`) and says there is none and how to make one.
#[test]
fn outside_a_workspace_the_tools_create_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = format!(
        "{INIT}{}\n{}\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"cache"}}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_write","arguments":{"kind":"decision","title":"Use gix","sources":["https://example.com"]}}}"#
    );
    let (code, messages, _) = raw(dir.path(), input.as_bytes());
    assert_eq!(code, 0);
    for id in [2, 3] {
        let m = messages.iter().find(|m| m["id"] == id).expect("answered");
        assert_eq!(m["result"]["isError"], true, "{m}");
        let error = m["result"]["structuredContent"]["error"]
            .as_str()
            .expect("error");
        assert!(error.contains("is not a memlint workspace"), "{error}");
        assert!(error.contains("`memlint init`"), "{error}");
        // Issue 48 item 6: the way out in the server's words, not the
        // command line's (`--root DIR`).
        assert!(
            error.ends_with("; run `memlint init` to make one, or start the MCP server in one"),
            "{error}"
        );
        assert!(!error.contains("--"), "{error}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).expect("read_dir").count(), 0);
}

/// Issue 48 item 6: a tool that reads git outside a repository names
/// itself, not the command line's `log`; a configuration that leads out
/// of the root is told without `--config`.
#[test]
fn tool_errors_name_tools_not_command_line_flags() {
    let dir = common::TempWorkspace::new()
        .config("max_sources: 10\n")
        .build();
    let input = format!(
        "{INIT}{}\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_log","arguments":{}}}"#
    );
    let (code, messages, _) = raw(dir.path(), input.as_bytes());
    assert_eq!(code, 0);
    let m = messages.iter().find(|m| m["id"] == 2).expect("answered");
    assert_eq!(m["result"]["isError"], true, "{m}");
    let root = dir.path().canonicalize().expect("canonicalize");
    assert_eq!(
        m["result"]["structuredContent"]["error"],
        format!(
            "{} is not in a git repository; memory_log reads git (run `git init` first)",
            root.display()
        )
    );
    // The configuration turns into a link out of the root after the
    // server started.
    let outside = tempfile::tempdir().expect("tempdir");
    common::write(outside.path(), "cfg.yml", "max_sources: 3\n");
    let ws = common::TempWorkspace::new()
        .config("max_sources: 10\n")
        .build();
    let mut memlint = common::Memlint::new(ws.path())
        .arg("--root")
        .arg(ws.path())
        .arg("mcp");
    use std::process::Stdio;
    let mut server = memlint
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn memlint mcp");
    use std::io::{BufRead, Write};
    let mut stdin = server.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(server.stdout.take().expect("stdout"));
    let mut line = String::new();
    stdin.write_all(INIT.as_bytes()).expect("write");
    stdout.read_line(&mut line).expect("initialize answered");
    std::fs::remove_file(ws.path().join(".memlint.yml")).expect("remove");
    std::os::unix::fs::symlink(
        outside.path().join("cfg.yml"),
        ws.path().join(".memlint.yml"),
    )
    .expect("symlink");
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"cache"}}}"#;
    stdin
        .write_all(format!("{call}\n").as_bytes())
        .expect("write");
    line.clear();
    stdout.read_line(&mut line).expect("call answered");
    drop(stdin);
    let _ = server.wait();
    let m: Value = serde_json::from_str(&line).expect("JSON-RPC");
    assert_eq!(m["result"]["isError"], true, "{m}");
    let root = ws.path().canonicalize().expect("canonicalize");
    assert_eq!(
        m["result"]["structuredContent"]["error"],
        format!(
            ".memlint.yml leads out of {} through a symbolic link; memlint never reads there (start the MCP server with it as its configuration to use it)",
            root.display()
        )
    );
}

#[test]
fn memory_write_refuses_a_copy_of_an_active_record_unless_forced() {
    // The title and body of use-sqlite-statement-cache under another slug.
    let ws = workspace();
    let before = common::git(ws.path(), &["status", "--porcelain"]);
    let body = "The statement cache is one SQLite database under `~/.local/share/ledgerd/`, opened in WAL mode so the exporter can read while a sync writes. Alternatives considered: a directory of JSON files (no transactions, slow lookups by date) and an embedded key-value store (no ad-hoc queries for the monthly export).";
    let call = |id: i64, force: bool| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "memory_write",
            "arguments": {"kind": "decision", "title": "Use SQLite with WAL for the statement cache",
                          "slug": "statement-cache-in-wal-sqlite", "body": body,
                          "sources": ["file:docs/bank-api.md"], "force": force}}})
        .to_string()
    };
    let input = format!("{INIT}{}\n", call(2, false));
    let (code, messages, _) = raw(ws.path(), input.as_bytes());
    assert_eq!(code, 0);
    let refused = &messages.iter().find(|m| m["id"] == 2).expect("answer")["result"];
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["structuredContent"]["similar"][0]["path"],
        "memory/decisions/use-sqlite-statement-cache.md",
        "{refused}"
    );
    assert!(
        refused["structuredContent"]["error"]
            .as_str()
            .expect("error")
            .contains("statement-cache-in-wal-sqlite says nearly the same as `use-sqlite-statement-cache`"),
        "{refused}"
    );
    assert_eq!(common::git(ws.path(), &["status", "--porcelain"]), before);
    let input = format!("{INIT}{}\n", call(2, true));
    let (_, messages, _) = raw(ws.path(), input.as_bytes());
    let written = &messages.iter().find(|m| m["id"] == 2).expect("answer")["result"];
    assert_eq!(written["isError"], false, "{written}");
    assert!(ws
        .path()
        .join("memory/decisions/statement-cache-in-wal-sqlite.md")
        .exists());
}

/// A black-box audit of issue 44 (N7): a title with no ASCII words to make
/// a slug from is refused naming the tool's `slug` parameter, never the
/// command line's `--slug`.
#[test]
fn a_title_without_a_slug_asks_for_the_slug_parameter() {
    let ws = workspace();
    let input = format!(
        "{INIT}{}\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_write","arguments":{"kind":"decision","title":"日本語のタイトル","sources":["https://example.com"]}}}"#
    );
    let (code, messages, _) = raw(ws.path(), input.as_bytes());
    assert_eq!(code, 0);
    let m = messages.iter().find(|m| m["id"] == 2).expect("answered");
    assert_eq!(m["result"]["isError"], true, "{m}");
    let error = m["result"]["structuredContent"]["error"]
        .as_str()
        .expect("error");
    assert_eq!(
        error,
        "the title has no ASCII words to make a slug from; give one in the slug parameter (lowercase ASCII words joined by `-`, such as slug: use-gix-for-git-reads)"
    );
}

/// A running `memlint mcp`, driven one request at a time over raw
/// JSON-RPC, so that files can change between two calls.
struct Server {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    next: i64,
}

impl Server {
    fn start(root: &Path) -> Server {
        use std::io::Write;
        let mut child = Command::new(common::BIN)
            .arg("--root")
            .arg(root)
            .arg("mcp")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        stdin.write_all(INIT.as_bytes()).expect("initialize");
        let mut server = Server {
            child,
            stdin,
            stdout,
            next: 2,
        };
        assert_eq!(server.answer(1)["result"]["serverInfo"]["name"], "memlint");
        server
    }

    fn answer(&mut self, id: i64) -> Value {
        use std::io::BufRead;
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read");
            assert!(n > 0, "the server closed its output");
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC");
            if message["id"] == id {
                return message;
            }
        }
    }

    /// The paths `memory_search` finds for `query`.
    fn search(&mut self, query: &str) -> Vec<String> {
        use std::io::Write;
        let id = self.next;
        self.next += 1;
        let call = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "memory_search", "arguments": {"query": query}}});
        writeln!(self.stdin, "{call}").expect("call");
        let reply = self.answer(id);
        assert_eq!(reply["result"]["isError"], false, "{reply}");
        common::result_paths(&reply["result"]["structuredContent"])
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_server_keeps_its_index_and_sees_every_change_made_by_others() {
    let ws = workspace();
    let root = ws.path();
    let mut server = Server::start(root);
    assert_eq!(server.search("zebracorn"), Vec::<String>::new());
    let rounding = server.search("rounding");
    assert!(rounding.contains(&"knowledge/minor-unit-rounding.md".to_string()));
    // The index is held: with its stored copy gone, the next search is
    // answered from memory and does not build it again.
    let stored = root.join(".memlint/search");
    std::fs::remove_file(&stored).expect("remove the stored index");
    assert_eq!(server.search("rounding"), rounding);
    assert!(!stored.exists(), "the index was loaded again");

    // Changes made by another process are all seen at the next call: a
    // new record, a changed one, a deleted one.
    let rel = "knowledge/zebracorn-notes.md";
    let record = |word: &str| {
        format!("---\ntitle: Stable notes\ndescription: What the stable holds.\nmodel_invocation: false\ndate: 2026-03-02\nsources:\n  - file:docs/bank-api.md\n---\n\nThe {word} lives in the stable.\n")
    };
    common::write(root, rel, &record("zebracorn"));
    assert_eq!(server.search("zebracorn"), [rel]);
    common::write(root, rel, &record("hippogriff"));
    assert_eq!(server.search("zebracorn"), Vec::<String>::new());
    assert_eq!(server.search("hippogriff"), [rel]);
    let wal = "knowledge/sqlite-wal-pitfalls.md";
    let text = std::fs::read_to_string(root.join(wal)).expect("read");
    common::write(
        root,
        wal,
        &format!("{text}\nA hippogriff once ate the WAL.\n"),
    );
    let mut both = server.search("hippogriff");
    both.sort();
    assert_eq!(both, [wal, rel]);
    std::fs::remove_file(root.join(rel)).expect("delete");
    assert_eq!(server.search("hippogriff"), [wal]);
    assert_eq!(server.search("stable"), Vec::<String>::new());
}

#[cfg(target_os = "linux")]
#[test]
fn under_a_watcher_the_server_answers_from_memory_and_sees_changes() {
    struct Watcher<'a>(&'a Path);
    impl Drop for Watcher<'_> {
        fn drop(&mut self) {
            let _ = common::memlint(self.0, &["watch", "stop"]);
        }
    }
    let ws = workspace();
    let root = ws.path();
    let started = common::memlint(root, &["watch", "start"]);
    assert_eq!(started.code, 0, "{started:?}");
    let _watcher = Watcher(root);
    let mut server = Server::start(root);
    let rounding = server.search("rounding");
    assert!(!rounding.is_empty());
    let stored = root.join(".memlint/search");
    std::fs::remove_file(&stored).expect("remove the stored index");
    assert_eq!(server.search("rounding"), rounding);
    assert!(!stored.exists(), "the index was loaded again");
    let rel = "knowledge/okapi-notes.md";
    common::write(
        root,
        rel,
        "---\ntitle: Okapi notes\ndescription: What the okapi eats.\nmodel_invocation: false\ndate: 2026-03-02\nsources:\n  - file:docs/bank-api.md\n---\n\nThe okapi eats leaves.\n",
    );
    assert_eq!(server.search("okapi"), [rel]);
    std::fs::remove_file(root.join(rel)).expect("delete");
    assert_eq!(server.search("okapi"), Vec::<String>::new());
}

#[test]
fn a_refused_cache_is_told_in_the_answer_of_each_call_that_met_it() {
    let ws = workspace();
    let elsewhere = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(elsewhere.path(), ws.path().join(".memlint")).expect("symlink");
    let call = |id: i64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"memory_search","arguments":{{"query":"sqlite"}}}}}}"#
        )
    };
    let input = format!("{INIT}{}\n{}\n", call(2), call(3));
    let (code, messages, stderr) = raw(ws.path(), input.as_bytes());
    assert_eq!(code, 0, "{stderr}");
    let warning = "warning: .memlint is a symbolic link; memlint keeps no cache there \
                   (every run checks every file)";
    for id in [2, 3] {
        let reply = messages
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no answer {id}: {messages:?}"));
        assert_eq!(reply["result"]["isError"], false, "{reply}");
        let texts: Vec<&str> = reply["result"]["content"]
            .as_array()
            .expect("content")
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect();
        assert_eq!(texts.last(), Some(&warning), "{reply}");
        // The search still answered.
        assert!(texts[0].contains("use-sqlite-statement-cache"), "{reply}");
    }
    // Nothing is left for the end of the process, and nothing was written
    // through the link.
    assert!(!stderr.contains("keeps no cache"), "{stderr}");
    assert_eq!(
        std::fs::read_dir(elsewhere.path())
            .expect("read_dir")
            .count(),
        0
    );
}

#[test]
fn a_refused_cache_is_told_by_every_tool_that_reads_the_records_and_by_no_other() {
    let ws = workspace();
    let elsewhere = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(elsewhere.path(), ws.path().join(".memlint")).expect("symlink");
    let call = |id: i64, name: &str, arguments: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
        )
    };
    let calls = [
        call(
            2,
            "memory_read",
            r#"{"target":"use-sqlite-statement-cache"}"#,
        ),
        call(3, "memory_recent", r#"{"limit":2}"#),
        call(4, "memory_read", r#"{"target":"no-such-record"}"#),
        call(
            5,
            "memory_write",
            r#"{"kind":"decision","title":"Keep a Postgres replica","body":"Reads go to a replica.","sources":["https://example.com/replica"]}"#,
        ),
        call(
            6,
            "memory_update",
            r#"{"target":"keep-a-postgres-replica","tags":["storage"]}"#,
        ),
        call(7, "memory_log", r#"{}"#),
    ];
    let input = format!("{INIT}{}\n", calls.join("\n"));
    let (code, messages, stderr) = raw(ws.path(), input.as_bytes());
    assert_eq!(code, 0, "{stderr}");
    let warning = "warning: .memlint is a symbolic link; memlint keeps no cache there \
                   (every run checks every file)";
    let texts = |id: i64| -> Vec<String> {
        let reply = messages
            .iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("no answer {id}: {messages:?}"));
        reply["result"]["content"]
            .as_array()
            .unwrap_or_else(|| panic!("no content: {reply}"))
            .iter()
            .filter_map(|c| c["text"].as_str().map(str::to_string))
            .collect()
    };
    // Told once, after the answer, also when the tool refused.
    for id in [2, 3, 4, 5, 6] {
        let texts = texts(id);
        assert_eq!(
            texts.last().map(String::as_str),
            Some(warning),
            "{id}: {texts:?}"
        );
        assert_eq!(
            texts.iter().filter(|t| *t == warning).count(),
            1,
            "{id}: {texts:?}"
        );
    }
    // The history is git's: no record is read, nothing is said.
    let log = texts(7);
    assert!(log.iter().all(|t| !t.contains("keeps no cache")), "{log:?}");
    assert!(!stderr.contains("keeps no cache"), "{stderr}");
}
