//! Issue 44, "Hardening, round two": what output shows of credentials and
//! invisible characters. Each test drives the real binary (the command
//! line, the agent hook, the MCP server over raw JSON-RPC) and fails on the
//! code before its fix.

use crate::common;
#[allow(dead_code)]
use crate::lsp;

use common::{memlint, memlint_stdin, write, Run, BIN};
use serde_json::Value;
use std::path::Path;

const GH: &str = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
/// What of [`GH`] must never be shown: everything after its kind.
const GH_SECRET: &str = "AbCdEfGhIj";

/// Calls MCP tool `name` with `arguments` on `memlint mcp` in `root`: the
/// raw JSON-RPC text the server wrote, and the call's result.
fn mcp_call(root: &Path, name: &str, arguments: Value) -> (String, Value) {
    let call = serde_json::json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}
    });
    let input = format!(
        "{}\n{}\n{call}\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
    );
    let run = memlint_stdin(root, &["--root", &root.to_string_lossy(), "mcp"], &input);
    assert_eq!(run.code, 0, "{run:?}");
    let result = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m["id"] == 2)
        .map(|m| m["result"].clone())
        .expect("an answer to the call");
    (run.stdout, result)
}

fn knowledge(title: &str) -> String {
    format!(
        "---\ntitle: {title}\ndescription: d\nmodel_invocation: false\ndate: 2026-11-01\nsources:\n  - https://example.com/x\n---\n\nBody.\n"
    )
}

/// Item 1: the memory index cut titles to 80 characters before masking
/// them, so a title ending in a GitHub token showed 35 of its 36 secret
/// characters (`context`, `hook session-start`, MCP `memory_context`);
/// `frontmatter/unknown-key` did the same with a long key (60).
#[test]
fn index_titles_are_masked_before_they_are_cut() {
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    memlint(root, &["init"]);
    let title = format!("Rotate the leaked deploy token right now {GH}");
    assert_eq!(title.chars().count(), 81);
    write(root, "knowledge/rotate-token.md", &knowledge(&title));
    let context = memlint(root, &["context"]);
    assert!(
        context
            .stdout
            .contains("- rotate-token — Rotate the leaked deploy token right now ghp_…[masked]\n"),
        "{}",
        context.stdout
    );
    let hook = memlint_stdin(
        root,
        &["hook", "session-start"],
        r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
    );
    assert_eq!(hook.stdout, context.stdout);
    let (wire, result) = mcp_call(root, "memory_context", serde_json::json!({}));
    assert!(!wire.contains(GH_SECRET), "{wire}");
    assert!(
        result["structuredContent"]["text"]
            .as_str()
            .expect("text")
            .contains("right now ghp_…[masked]"),
        "{result}"
    );
    // An unknown key named in a message is masked before it is cut too.
    let key = format!("{}-{GH}", "k".repeat(29));
    write(
        root,
        "knowledge/rotate-token.md",
        &knowledge("Rotate").replace("---\n\n", &format!("{key}: v\n---\n\n")),
    );
    let check = memlint(root, &["check", "--format", "json"]);
    assert!(
        check.stdout.contains("is not a knowledge key"),
        "{}",
        check.stdout
    );
    assert!(!check.stdout.contains(GH_SECRET), "{}", check.stdout);
}

/// Item 2: a refused `memlint new "Rotate AKIA… now"` printed the slug
/// made from the title (`rotate-akiaqwertyuiopasdfgh-now`), lower-casing
/// hiding nothing, in human and JSON output and through MCP
/// `memory_write`; a `--slug ghp_…` was refused with a hint repeating it.
/// The slug is made from the title without its credentials, and a slug
/// that looks like one is refused without being repeated.
#[test]
fn slugs_are_never_made_from_a_secret() {
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    memlint(root, &["init"]);
    let aws = "AKIAQWERTYUIOPASDFGH";
    let hidden = "qwertyuiopasdfgh";
    let shown = |run: &Run| format!("{}{}", run.stdout, run.stderr).to_lowercase();
    let title = format!("Rotate {aws} now");
    let args = [
        "new",
        "decision",
        &title,
        "--source",
        "https://example.com/x",
    ];
    let human = memlint(root, &args);
    assert_eq!(human.code, 1, "{human:?}");
    assert!(!shown(&human).contains(hidden), "{human:?}");
    assert!(
        human
            .stderr
            .contains("memory/decisions/rotate-now.md would have 1 error(s)"),
        "{human:?}"
    );
    let json = memlint(root, &[&args[..], &["--format", "json"]].concat());
    assert!(!shown(&json).contains(hidden), "{json:?}");
    let v: Value = serde_json::from_str(&json.stdout).expect("json");
    assert_eq!(v["path"], "memory/decisions/rotate-now.md");
    assert_eq!(v["diagnostics"][0]["rule"], "secrets/detected");
    let (wire, result) = mcp_call(
        root,
        "memory_write",
        serde_json::json!({"kind": "decision", "title": title, "sources": ["https://example.com/x"]}),
    );
    assert!(!wire.to_lowercase().contains(hidden), "{wire}");
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"]["diagnostics"][0]["path"],
        "memory/decisions/rotate-now.md"
    );
    // A slug given that looks like a credential: refused, neither it nor
    // a hint made from it repeated.
    for slug in [GH, "sk-abcdefghij0123456789abcd"] {
        let run = memlint(root, &["new", "decision", "x", "--slug", slug]);
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.stderr.contains("the slug given looks like"), "{run:?}");
        assert!(!shown(&run).contains("abcdefghij"), "{run:?}");
    }
    let (wire, result) = mcp_call(
        root,
        "memory_write",
        serde_json::json!({"kind": "decision", "title": "x", "slug": GH, "sources": ["https://example.com/x"]}),
    );
    assert!(!wire.to_lowercase().contains("abcdefghij"), "{wire}");
    assert_eq!(result["isError"], true, "{result}");
    // A title of a credential alone makes no slug.
    let run = memlint(root, &["new", "decision", aws]);
    assert_eq!(run.code, 2);
    assert!(!shown(&run).contains(hidden), "{run:?}");
    let written: Vec<_> = std::fs::read_dir(root.join("memory/decisions"))
        .expect("decisions")
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().ends_with(".md"))
        .collect();
    assert_eq!(written, Vec::<std::ffi::OsString>::new());
}

/// Whether `text` holds an invisible format character other than a joiner
/// inside an emoji sequence.
fn raw_invisibles(text: &str) -> Vec<char> {
    let text = text.replace("👩\u{200d}💻", "");
    text.chars()
        .filter(|c| {
            matches!(c, '\u{ad}' | '\u{61c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}' | '\u{feff}' | '\u{e0000}'..='\u{e007f}')
        })
        .collect()
}

/// Item 5: bidi overrides and other invisible format characters, accepted
/// in titles by `new` and MCP, were printed raw by `context`, `show`,
/// `search` and the MCP tools (a title can then read backwards or hide
/// text). They are shown as `�`, one for one, as control characters are
/// shown as symbols; JSON keeps them as `\uXXXX` escapes; a joiner inside
/// an emoji sequence stays.
#[test]
fn invisible_format_characters_are_shown_on_every_output() {
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    memlint(root, &["init"]);
    let title = "Pay \u{202e}gnp.exe\u{202c} invoice \u{200b}\u{2066}x\u{2069}\u{feff}\u{e0041}\u{e007f} 👩\u{200d}💻";
    let shown = "Pay �gnp.exe� invoice ��x���� 👩\u{200d}💻";
    let new = memlint(
        root,
        &[
            "new",
            "decision",
            title,
            "--source",
            "https://example.com/x",
        ],
    );
    // `new` refuses them (`text/invisible`); the record is written as an
    // editor would write it.
    assert_eq!(new.code, 1, "{new:?}");
    assert!(new.stderr.contains("text/invisible"), "{new:?}");
    let slug = "pay-gnp-exe-invoice-x";
    std::fs::write(
        root.join(format!("memory/decisions/{slug}.md")),
        format!("---\ntitle: {title}\nstatus: active\ndate: 2026-12-01\nsources:\n  - https://example.com/x\n---\n"),
    )
    .expect("write the record");
    let mut outputs = Vec::new();
    let context = memlint(root, &["context"]);
    assert!(
        context.stdout.contains(&format!("- {slug} — {shown}\n")),
        "{}",
        context.stdout
    );
    outputs.push(context);
    let show = memlint(root, &["show", slug]);
    assert!(
        show.stdout.contains(&format!("title: {shown}\n")),
        "{}",
        show.stdout
    );
    outputs.push(show);
    let search = memlint(root, &["search", "invoice"]);
    assert!(search.stdout.contains(shown), "{}", search.stdout);
    outputs.push(search);
    outputs.push(memlint_stdin(
        root,
        &["hook", "session-start"],
        r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
    ));
    for args in [
        &["show", slug, "--format", "json"][..],
        &["search", "invoice", "--format", "json"][..],
    ] {
        let run = memlint(root, args);
        let v: Value = serde_json::from_str(&run.stdout).expect("json");
        let title_of = |v: &Value| {
            v.pointer("/fields/title")
                .or_else(|| v.pointer("/results/0/title"))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        // Exact once decoded, and escaped where it is printed.
        assert_eq!(title_of(&v).as_deref(), Some(title), "{}", run.stdout);
        assert!(run.stdout.contains(r"\u202e"), "{}", run.stdout);
        outputs.push(run);
    }
    for run in &outputs {
        assert_eq!(raw_invisibles(&run.stdout), Vec::<char>::new(), "{run:?}");
    }
    // MCP: the wire and the decoded strings the model reads.
    for (tool, args) in [
        ("memory_context", serde_json::json!({})),
        ("memory_read", serde_json::json!({"target": slug})),
        ("memory_search", serde_json::json!({"query": "invoice"})),
    ] {
        let (wire, result) = mcp_call(root, tool, args);
        assert_eq!(raw_invisibles(&wire), Vec::<char>::new(), "{tool}: {wire}");
        let decoded = result.to_string();
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert_eq!(raw_invisibles(text), Vec::<char>::new(), "{tool}: {text}");
        assert!(
            decoded.contains("gnp.exe") && !decoded.contains("\\u202e"),
            "{tool}: {decoded}"
        );
        let structured = serde_json::to_string(&result["structuredContent"]).unwrap_or_default();
        let strings: String = serde_json::from_str::<Value>(&structured)
            .map(|v| collect_strings(&v))
            .unwrap_or_default();
        assert_eq!(
            raw_invisibles(&strings),
            Vec::<char>::new(),
            "{tool}: {strings}"
        );
        assert!(strings.contains("�gnp.exe�"), "{tool}: {strings}");
    }
}

/// Every string of `v`, joined.
fn collect_strings(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(collect_strings).collect(),
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| format!("{k}{}", collect_strings(v)))
            .collect(),
        _ => String::new(),
    }
}

/// Item 5 in the language server: a hover shows the title of the record
/// a reference names, and a diagnostic's message may quote a key; both
/// showed invisible characters raw.
#[test]
fn the_language_server_shows_invisible_characters() {
    let ws = common::workspace("example");
    common::commit_all(ws.path());
    let mut c = lsp::Client::initialized(BIN, ws.path(), serde_json::json!({}));
    let target = "---\ntitle: Pay \u{202e}gnp.exe\u{202c} invoice\nstatus: active\ndate: 2026-10-01\nsources:\n  - file:docs/architecture.md\n---\n\nBody.\n";
    write(ws.path(), "memory/decisions/pay-invoice.md", target);
    let old = "---\ntitle: Old\nstatus: replaced\ndate: 2026-09-01\nsources:\n  - file:docs/architecture.md\nreplaced_by: pay-invoice\nnote\u{200b}: x\n---\n\nBody.\n";
    let path = ws.path().join("memory/decisions/old.md");
    let u = c.open(&path, old);
    let hover = c.call(
        "textDocument/hover",
        serde_json::json!({ "textDocument": { "uri": u }, "position": { "line": 6, "character": 15 } }),
    );
    let value = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(value.contains("Pay �gnp.exe� invoice"), "{hover}");
    let diags = c.diagnostics(&u);
    let messages = serde_json::to_string(&diags).unwrap_or_default();
    assert!(messages.contains("note�"), "{messages}");
    assert_eq!(
        raw_invisibles(&format!("{value}{messages}")),
        Vec::<char>::new()
    );
    assert_eq!(c.shutdown(), Some(0));
}
