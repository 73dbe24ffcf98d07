//! Drift is visible wherever memory is met (issue 45, items 3 and 7): a
//! record whose cited file changed after it was written is marked in the
//! context, in search results (text, JSON, MCP), by the prompt hook, in
//! `show` and `memory_read`, and the language server publishes
//! `sources/drifted` with a "Mark as verified" code action. Real git
//! repositories, built by the test.

use crate::common;
use crate::lsp;

use common::{git, memlint, write, Memlint};
use serde_json::{json, Value};
use std::path::Path;

const CACHE: &str = "---\ntitle: The cache is one SQLite file\nstatus: active\ndate: 2026-01-02\nsources:\n  - file:src/cache.rs\n---\n\nThe cache lives in `cache.db` next to the binary.\n";
const QUEUE: &str = "---\ntitle: The queue is a cache table\nstatus: active\ndate: 2026-01-01\nsources:\n  - file:src/queue.rs\n---\n\nThe queue lives in the cache database too.\n";

/// A repository whose decision `cache` cites `src/cache.rs`, which a later
/// commit changes; `queue` cites a file no commit changed. Returns the
/// directory, the changing commit's id and its date.
fn drifted_repo() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(
        root,
        "src/cache.rs",
        "pub const CACHE: &str = \"cache.db\";\n",
    );
    write(root, "src/queue.rs", "pub const QUEUE: &str = \"queue\";\n");
    write(root, "memory/decisions/cache.md", CACHE);
    write(root, "memory/decisions/queue.md", QUEUE);
    // Records on other things, so that the cache's words weigh in search.
    for i in 0..12 {
        write(
            root,
            &format!("memory/decisions/other-{i}.md"),
            &format!("---\ntitle: Other topic {i}\nstatus: active\ndate: 2025-01-01\nsources:\n  - https://example.com/notes\n---\n\nAbout logging, tracing and metrics number {i}.\n"),
        );
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "Keep the cache in SQLite"]);
    write(
        root,
        "src/cache.rs",
        "pub const CACHE: &str = \"redis://cache:6379\";\n",
    );
    git(root, &["commit", "-q", "-am", "Move the cache to Redis"]);
    let id = git(root, &["rev-parse", "HEAD"]);
    let date = git(root, &["log", "-1", "--format=%ad", "--date=short"]);
    (dir, id, date)
}

fn search_json(root: &Path, query: &str) -> Value {
    let run = memlint(root, &["search", query, "--format", "json"]);
    serde_json::from_str(&run.stdout).expect(&run.stdout)
}

/// The `drifted` field of each result, by path.
fn drifted_by_path(json: &Value) -> Vec<(String, Value)> {
    json["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_string(),
                r["drifted"].clone(),
            )
        })
        .collect()
}

/// `memlint hook EVENT` with `input` on standard input: its standard output.
fn hook(root: &Path, event: &str, input: &Value) -> String {
    let out = Memlint::new(root)
        .args(["hook", event])
        .env("MEMLINT_PROMPT_BUDGET_MS", "60000")
        .stdin(input.to_string())
        .output();
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn prompt_hook(root: &Path, prompt: &str) -> String {
    let input = json!({
        "session_id": format!("s-{prompt}"),
        "cwd": root,
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    });
    let out = hook(root, "prompt", &input);
    let out: Value = serde_json::from_str(&out).expect("hook JSON");
    out["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("context added")
        .to_string()
}

#[test]
fn drift_is_marked_in_context_search_and_the_prompt_hook() {
    let (dir, id, date) = drifted_repo();
    let root = dir.path();
    let mark = format!("(drifted: src/cache.rs changed in {})", &id[..7]);

    // Nothing judged yet: nothing is marked (no guess, no history walk).
    let context = memlint(root, &["context"]).stdout;
    assert!(
        context.contains("> - cache — The cache is one SQLite file\n"),
        "{context}"
    );
    assert!(!context.contains("drifted"), "{context}");
    let json = search_json(root, "cache");
    assert!(drifted_by_path(&json).iter().all(|(_, d)| d.is_null()));

    // `check` judges and keeps what it found; a second check, which reuses
    // the stored verdicts, keeps the marks too.
    let check = memlint(root, &["check"]);
    assert!(check.stdout.contains("sources/drifted"), "{}", check.stdout);
    let again = memlint(root, &["check"]);
    assert_eq!(again.stdout, check.stdout);

    let context = memlint(root, &["context"]).stdout;
    assert!(
        context.contains(&format!(
            "> - cache — The cache is one SQLite file {mark}\n"
        )),
        "{context}"
    );
    assert!(
        context.contains("> - queue — The queue is a cache table\n"),
        "{context}"
    );
    assert!(
        context.contains("A record marked `drifted` cites a file that changed after the record was written or verified (as the last `memlint check` found): it may be stale. Before relying on it, check it against the file; then run `memlint verify SLUG` if it still holds, or replace it (`memlint new … --replaces SLUG`).\n"),
        "{context}"
    );

    let brief = memlint(root, &["context", "--brief"]).stdout;
    assert!(!brief.contains("drifted"), "{brief}");
    let started = hook(
        root,
        "session-start",
        &json!({ "hook_event_name": "SessionStart", "source": "startup", "session_id": "s0", "cwd": root }),
    );
    assert!(
        started.contains(&format!(
            "> - cache — The cache is one SQLite file {mark}\n"
        )),
        "{started}"
    );

    let json = search_json(root, "cache");
    assert_eq!(
        drifted_by_path(&json),
        vec![
            (
                "memory/decisions/cache.md".to_string(),
                json!({ "source": "file:src/cache.rs", "commit": id, "date": date })
            ),
            ("memory/decisions/queue.md".to_string(), Value::Null),
        ]
    );
    let text = memlint(root, &["search", "cache"]).stdout;
    assert!(
        text.contains(&format!(
            "memory/decisions/cache.md  The cache is one SQLite file {mark}  (score"
        )),
        "{text}"
    );

    let added = prompt_hook(root, "where does the sqlite cache live");
    assert!(
        added.contains(&format!(
            "> - memory/decisions/cache.md — The cache is one SQLite file (2026-01-02) {mark}\n"
        )),
        "{added}"
    );

    // Turned off, the rule marks nothing, though the last check kept marks.
    write(root, ".memlint.yml", "rules:\n  sources/drifted: off\n");
    let context = memlint(root, &["context"]).stdout;
    assert!(!context.contains("drifted"), "{context}");
    let json = search_json(root, "cache");
    assert!(drifted_by_path(&json).iter().all(|(_, d)| d.is_null()));
    std::fs::remove_file(root.join(".memlint.yml")).expect("remove");
    let context = memlint(root, &["context"]).stdout;
    assert!(context.contains(&mark), "{context}");

    // Verified: the record changed since it was judged, so the mark is gone
    // without another check.
    let verified = memlint(root, &["verify", "cache"]);
    assert_eq!(verified.code, 0, "{}", verified.stderr);
    let context = memlint(root, &["context"]).stdout;
    assert!(!context.contains("drifted"), "{context}");
    let json = search_json(root, "cache");
    assert!(drifted_by_path(&json).iter().all(|(_, d)| d.is_null()));
}

/// Runs `memlint mcp` with `input` on standard input: the messages it wrote.
fn mcp(root: &Path, input: &str) -> Vec<Value> {
    let out = Memlint::new(root)
        .arg("--root")
        .arg(root)
        .arg("mcp")
        .stdin(input)
        .output();
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect(l))
        .collect()
}

#[test]
fn mcp_search_context_and_read_say_which_source_drifted() {
    let (dir, id, date) = drifted_repo();
    let root = dir.path();
    let check = memlint(root, &["check"]);
    assert!(check.stdout.contains("sources/drifted"), "{}", check.stdout);
    let call = |n: u32, name: &str, args: Value| {
        json!({ "jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": { "name": name, "arguments": args } })
        .to_string()
    };
    let input = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        call(2, "memory_search", json!({ "query": "cache" })),
        call(3, "memory_context", json!({})),
        call(4, "memory_read", json!({ "target": "cache" })),
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#.to_string(),
    ]
    .join("\n")
        + "\n";
    let messages = mcp(root, &input);
    let result = |n: u32| {
        messages
            .iter()
            .find(|m| m["id"] == n)
            .unwrap_or_else(|| panic!("no answer {n}: {messages:?}"))["result"]
            .clone()
    };
    let search = result(2);
    assert_eq!(search["isError"], false, "{search}");
    assert_eq!(
        drifted_by_path(&search["structuredContent"]),
        vec![
            (
                "memory/decisions/cache.md".to_string(),
                json!({ "source": "file:src/cache.rs", "commit": id, "date": date })
            ),
            ("memory/decisions/queue.md".to_string(), Value::Null),
        ]
    );
    let context = result(3)["structuredContent"]["text"]
        .as_str()
        .expect("text")
        .to_string();
    assert!(
        context.contains(&format!(
            "> - cache — The cache is one SQLite file (drifted: src/cache.rs changed in {})\n",
            &id[..7]
        )),
        "{context}"
    );
    assert!(
        context.contains("check it against the file; then run `memlint verify SLUG` if it still holds, or replace it (memory_write with replaces: SLUG)."),
        "{context}"
    );
    let read = result(4)["structuredContent"].clone();
    let drifted = read["drifted"].as_array().expect("drifted");
    assert_eq!(drifted.len(), 1, "{read}");
    let said = drifted[0].as_str().unwrap();
    assert!(
        said.starts_with(&format!("`file:src/cache.rs` changed after this record was last written: 1 commit, the newest {} ({date}, \"Move the cache to Redis\")", &id[..7])),
        "{said}"
    );
    let tools = result(5)["tools"].as_array().expect("tools").clone();
    let description = |name: &str| {
        tools.iter().find(|t| t["name"] == name).expect(name)["description"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for name in ["memory_search", "memory_context", "memory_read"] {
        let d = description(name);
        assert!(d.contains("memlint verify SLUG"), "{name}: {d}");
        assert!(d.contains("replaces"), "{name}: {d}");
    }
}

#[test]
fn the_official_mcp_sdk_reads_drifted_in_search_results() {
    let has_sdk = std::process::Command::new("python3")
        .args(["-c", "import mcp.client.stdio"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_sdk {
        eprintln!("skipped: the MCP Python SDK is not installed (pip install mcp)");
        return;
    }
    let (dir, id, date) = drifted_repo();
    let root = dir.path();
    memlint(root, &["check"]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(common::BIN)
        .arg(root)
        .arg("drift")
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(out["search"]["is_error"], false, "{out}");
    assert_eq!(
        drifted_by_path(&out["search"]["structured"]),
        vec![
            (
                "memory/decisions/cache.md".to_string(),
                json!({ "source": "file:src/cache.rs", "commit": id, "date": date })
            ),
            ("memory/decisions/queue.md".to_string(), Value::Null),
        ]
    );
    let context = out["context"]["text"].as_str().expect("text");
    assert!(
        context.contains(&format!("(drifted: src/cache.rs changed in {})", &id[..7])),
        "{context}"
    );
}

#[test]
fn the_language_server_publishes_drift_and_marks_a_record_verified() {
    let (dir, _, _) = drifted_repo();
    let root = dir.path();
    let mut c = lsp::Client::initialized(common::BIN, root, json!({}));
    let path = root.join("memory/decisions/cache.md");
    let u = c.open(&path, CACHE);
    let diags = c.diagnostics(&u);
    let drifted: Vec<&Value> = diags
        .iter()
        .filter(|d| d["code"] == "sources/drifted")
        .collect();
    assert_eq!(drifted.len(), 1, "{diags:#?}");
    assert_eq!(
        drifted[0]["range"],
        json!({ "start": { "line": 5, "character": 4 }, "end": { "line": 5, "character": 21 } })
    );
    let actions = c.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": drifted[0]["range"],
                "context": { "diagnostics": [drifted[0]] } }),
    );
    let actions = actions.as_array().expect("actions");
    let verify: Vec<&Value> = actions
        .iter()
        .filter(|a| a["title"] == "Mark as verified")
        .collect();
    assert_eq!(verify.len(), 1, "{actions:#?}");
    assert_eq!(verify[0]["kind"], "quickfix");
    let edited = lsp::applied(CACHE, &verify[0]["edit"]["changes"][&u]);
    assert_eq!(c.shutdown(), Some(0));

    // The edit is the one `memlint verify` writes.
    let run = memlint(root, &["verify", "cache"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let written = std::fs::read_to_string(&path).expect("verified");
    assert_eq!(edited, written);
    assert!(
        edited.contains("\nverified: ") && edited.contains("\npins:\n  - file:src/cache.rs xxh3:"),
        "{edited}"
    );

    // Verified and saved: no drift is published.
    let mut c = lsp::Client::initialized(common::BIN, root, json!({}));
    let u = c.open(&path, &written);
    let diags = c.diagnostics(&u);
    assert!(
        diags.iter().all(|d| d["code"] != "sources/drifted"),
        "{diags:#?}"
    );
    assert_eq!(c.shutdown(), Some(0));
}

/// The language server offers the repairs `check --fix` makes of drift: a
/// moved range and a renamed path, each as a quick fix on its finding, and
/// all at once with fix-all, pinning the source that changed as the
/// record's commit held it; the edits are the bytes `check --fix` writes.
#[test]
fn the_language_server_moves_ranges_and_renamed_paths_as_check_fix_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    let lines: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    write(root, "src/a.txt", &lines);
    write(root, "src/old.txt", "old\n");
    write(root, "src/c.txt", "c\n");
    let record = "---\ntitle: The loader reads lines three and four\nstatus: active\ndate: 2026-01-02\nsources:\n  - file:src/a.txt#L3-L4\n  - file:src/old.txt\n  - file:src/c.txt\n---\n\nThe loader of the cache is in a.txt and nothing else describes it.\n";
    write(root, "memory/decisions/loader.md", record);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "Write the loader decision"]);
    write(root, "src/a.txt", &format!("line 0\n{lines}"));
    git(root, &["mv", "src/old.txt", "src/new.txt"]);
    write(root, "src/c.txt", "changed\n");
    git(root, &["commit", "-q", "-am", "Move, rename and change"]);

    let path = root.join("memory/decisions/loader.md");
    let mut c = lsp::Client::initialized(common::BIN, root, json!({}));
    let u = c.open(&path, record);
    let diags = c.diagnostics(&u);
    let drifted: Vec<&Value> = diags
        .iter()
        .filter(|d| d["code"] == "sources/drifted")
        .collect();
    assert_eq!(drifted.len(), 3, "{diags:#?}");
    // The renamed source is said once, by drift, as `check` says it.
    assert!(
        diags.iter().all(|d| d["code"] != "sources/dangling"),
        "{diags:#?}"
    );
    let fix_of = |c: &mut lsp::Client, d: &Value| -> String {
        let actions = c.call(
            "textDocument/codeAction",
            json!({ "textDocument": { "uri": u }, "range": d["range"],
                    "context": { "diagnostics": [d] } }),
        );
        let fixes: Vec<Value> = (actions.as_array().expect("actions").iter())
            .filter(|a| a["title"] == "Fix `sources/drifted`")
            .cloned()
            .collect();
        assert_eq!(fixes.len(), 1, "{actions:#?}");
        lsp::applied(record, &fixes[0]["edit"]["changes"][&u])
    };
    let moved = fix_of(&mut c, drifted[0]);
    assert!(moved.contains("\n  - file:src/a.txt#L4-L5\n"), "{moved}");
    assert!(
        moved.contains("\npins:\n  - file:src/c.txt xxh3:"),
        "{moved}"
    );
    let renamed = fix_of(&mut c, drifted[1]);
    assert!(renamed.contains("\n  - file:src/new.txt\n"), "{renamed}");
    let all = c.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u },
                "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } },
                "context": { "diagnostics": [], "only": ["source.fixAll.memlint"] } }),
    );
    let all = all.as_array().expect("actions");
    assert_eq!(all.len(), 1, "{all:#?}");
    let fixed_all = lsp::applied(record, &all[0]["edit"]["changes"][&u]);
    assert_eq!(c.shutdown(), Some(0));

    // The bytes `check --fix` writes.
    let run = memlint(root, &["check", "--fix"]);
    assert!(run.stderr.contains("fixed 1 file(s)"), "{}", run.stderr);
    let written = std::fs::read_to_string(&path).expect("fixed");
    assert_eq!(fixed_all, written);
    assert!(
        written.contains("  - file:src/a.txt#L4-L5\n  - file:src/new.txt\n  - file:src/c.txt\n"),
        "{written}"
    );
}
