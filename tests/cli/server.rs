//! `memlint server`, driven over its pipes by the JSON-RPC client in
//! tests/lsp: the protocol's life cycle, diagnostics (pushed and pulled) on
//! unsaved buffers with the cross-record rules, code actions, formatting
//! equal to `memlint fmt`, navigation, rename, configuration changes, and
//! what a careless or crashed client sends.

use crate::common;
use crate::lsp;

use lsp::{uri, Client};
use serde_json::{json, Value};
use std::path::Path;

fn workspace() -> tempfile::TempDir {
    let ws = common::workspace("example");
    common::commit_all(ws.path());
    ws
}

/// A client that takes pushed diagnostics and applies file renames.
fn push_client(root: &Path) -> Client {
    Client::initialized(
        common::BIN,
        root,
        json!({ "workspace": { "workspaceEdit": {
            "documentChanges": true, "resourceOperations": ["create", "rename", "delete"] } } }),
    )
}

/// A decision that names a decision that does not exist, has an unknown
/// key and a duplicate source; its title is Japanese, so UTF-16 columns
/// differ from byte columns.
const BROKEN: &str = "---\ntitle: 金額は整数で持つ新方式\nstatus: replaced\ndate: 2026-10-01\nsources:\n  - decision:use-float-amounts\n  - decision:use-float-amounts\nreplaced_by: no-such-decision\ntgas: [x]\n---\n\nBody.\n";

fn codes(diags: &[Value]) -> Vec<(String, u64, u64, u64, u64)> {
    diags
        .iter()
        .map(|d| {
            let r = &d["range"];
            (
                d["code"].as_str().unwrap_or("").to_string(),
                r["start"]["line"].as_u64().unwrap(),
                r["start"]["character"].as_u64().unwrap(),
                r["end"]["line"].as_u64().unwrap(),
                r["end"]["character"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn diagnostics_of_an_unsaved_buffer_are_pushed_with_rule_codes_and_links() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let path = ws.path().join("memory/decisions/new-money.md");
    let u = c.open(&path, BROKEN);
    let diags = c.diagnostics(&u);
    assert_eq!(
        codes(&diags),
        [
            ("sources/duplicate".to_string(), 6, 4, 6, 30),
            ("status/dangling-target".to_string(), 7, 13, 7, 29),
            ("frontmatter/unknown-key".to_string(), 8, 0, 8, 4),
        ],
        "{diags:#?}"
    );
    let dangling = &diags[1];
    assert_eq!(dangling["severity"], 1);
    assert_eq!(dangling["source"], "memlint");
    assert_eq!(
        dangling["codeDescription"]["href"],
        "https://github.com/memlint/memlint/blob/main/docs/rules.md#statusdangling-target"
    );
    assert_eq!(diags[2]["severity"], 2);
    // The file is not on disk: nothing was written.
    assert!(!path.exists());

    // A change: the target now exists (cross-record rule against the
    // workspace); the fix of the key too.
    let fixed = BROKEN
        .replace("no-such-decision", "store-amounts-as-integer-minor-units")
        .replace("tgas: [x]\n", "");
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": u, "version": 2 },
                "contentChanges": [{ "text": fixed }] }),
    );
    let diags = c.diagnostics(&u);
    assert_eq!(
        codes(&diags),
        [("sources/duplicate".to_string(), 6, 4, 6, 30)]
    );

    // Closing clears them.
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": u } }),
    );
    assert_eq!(c.diagnostics(&u), Vec::<Value>::new());
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn the_cross_record_rules_see_the_other_open_buffers() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    // An unsaved new decision, and another buffer that points at it.
    let target = ws.path().join("memory/decisions/use-gix.md");
    let t = c.open(&target, "---\ntitle: Use gix\nstatus: active\ndate: 2026-10-01\nsources:\n  - file:docs/architecture.md\n---\n\nBody.\n");
    assert_eq!(c.diagnostics(&t), Vec::<Value>::new());
    let path = ws.path().join("memory/decisions/old-git.md");
    let u = c.open(&path, "---\ntitle: Old git\nstatus: replaced\ndate: 2026-09-01\nsources:\n  - decision:use-gix\nreplaced_by: use-gix\n---\n\nBody.\n");
    assert_eq!(c.diagnostics(&u), Vec::<Value>::new());
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn diagnostics_are_pulled_when_the_client_pulls() {
    let ws = workspace();
    let mut c = Client::initialized(
        common::BIN,
        ws.path(),
        json!({ "textDocument": { "diagnostic": { "dynamicRegistration": false } } }),
    );
    let path = ws.path().join("memory/decisions/new-money.md");
    let u = c.open(&path, BROKEN);
    let r = c.call(
        "textDocument/diagnostic",
        json!({ "textDocument": { "uri": u } }),
    );
    assert_eq!(r["kind"], "full");
    let items = r["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "{r}");
    assert_eq!(items[1]["code"], "status/dangling-target");
    // Nothing was pushed for the buffer.
    assert!(!c
        .notifications
        .iter()
        .any(|n| n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == u));
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn a_secret_is_never_shown_in_a_diagnostic() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let path = ws.path().join("memory/decisions/leaky.md");
    let text = "---\ntitle: Token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here\nstatus: active\ndate: 2026-10-01\nsources:\n  - decision:ghp_abcdefghijklmnopqrstuvwxyz0123456789\n---\n\nBody.\n";
    let u = c.open(&path, text);
    let diags = c.diagnostics(&u);
    assert!(
        diags.iter().any(|d| d["code"] == "secrets/detected"),
        "{diags:#?}"
    );
    let all = serde_json::to_string(&diags).unwrap();
    assert!(
        !all.contains("abcdefghijklmnopqrstuvwxyz0123456789"),
        "{all}"
    );
    // Hover on a slug whose record's title holds a token: masked.
    let replaced = "---\ntitle: Old\nstatus: replaced\ndate: 2026-09-01\nsources:\n  - file:docs/architecture.md\nreplaced_by: leaky\n---\n\nBody.\n";
    let o = c.open(&ws.path().join("memory/decisions/old.md"), replaced);
    let hover = c.call(
        "textDocument/hover",
        json!({ "textDocument": { "uri": o }, "position": { "line": 6, "character": 15 } }),
    );
    let value = hover["contents"]["value"].as_str().unwrap();
    assert!(value.contains("ghp_…[masked]"), "{value}");
    // Plain text: a title is never rendered as markdown (a black-box audit
    // of issue 44 made one fetch an image through the hover).
    assert_eq!(hover["contents"]["kind"], "plaintext", "{hover}");
    assert!(
        !value.contains("abcdefghijklmnopqrstuvwxyz0123456789"),
        "{value}"
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn formatting_equals_memlint_fmt_byte_for_byte() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let rel = "memory/decisions/unformatted.md";
    let text = "---\ntags: [a]\nstatus:   active\ntitle: \"Keep amounts in minor units\"\ndate: 2026-10-01\nsources: [file:docs/architecture.md]\n---\nBody.\n";
    let path = ws.path().join(rel);
    let u = c.open(&path, text);
    let edits = c.call(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    let edits = edits.as_array().unwrap();
    assert_eq!(edits.len(), 1);
    assert_eq!(
        edits[0]["range"]["start"],
        json!({ "line": 0, "character": 0 })
    );
    assert_eq!(
        edits[0]["range"]["end"],
        json!({ "line": 8, "character": 0 })
    );
    let formatted = edits[0]["newText"].as_str().unwrap();
    // The same text through `memlint fmt` on disk.
    common::write(ws.path(), rel, text);
    let run = common::memlint(ws.path(), &["fmt", rel]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let on_disk = std::fs::read_to_string(&path).unwrap();
    assert_ne!(on_disk, text);
    assert_eq!(formatted, on_disk);
    // Range formatting formats the front matter the same way.
    let ranged = c.call(
        "textDocument/rangeFormatting",
        json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true },
                "range": { "start": { "line": 1, "character": 0 }, "end": { "line": 2, "character": 0 } } }),
    );
    assert_eq!(ranged[0]["newText"], formatted);
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn code_actions_fix_one_finding_or_all() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let path = ws.path().join("memory/decisions/new-money.md");
    let u = c.open(&path, BROKEN);
    let diags = c.diagnostics(&u);
    let unknown = diags[2].clone();
    let actions = c.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": unknown["range"],
                "context": { "diagnostics": [unknown] } }),
    );
    let actions = actions.as_array().unwrap();
    let quick: Vec<&Value> = actions.iter().filter(|a| a["kind"] == "quickfix").collect();
    assert_eq!(quick.len(), 1, "{actions:#?}");
    assert_eq!(quick[0]["title"], "Fix `frontmatter/unknown-key`");
    let edits = &quick[0]["edit"]["changes"][&u];
    let new_text = lsp::applied(BROKEN, edits);
    assert!(new_text.contains("\ntags: [x]\n"), "{new_text}");
    // Issue 44 item 21: only what differs changes (`tgas` → `tags`), not
    // the whole document.
    assert_eq!(
        edits,
        &json!([{ "range": { "start": { "line": 8, "character": 1 }, "end": { "line": 8, "character": 3 } }, "newText": "ag" }])
    );
    assert!(new_text.contains("  - decision:use-float-amounts\n  - decision:use-float-amounts\n"));
    // Fix all: the duplicate source goes too.
    let all = c.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u },
                "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } },
                "context": { "diagnostics": [], "only": ["source.fixAll.memlint"] } }),
    );
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(all[0]["kind"], "source.fixAll.memlint");
    let fixed = lsp::applied(BROKEN, &all[0]["edit"]["changes"][&u]);
    assert_eq!(
        fixed.matches("decision:use-float-amounts").count(),
        1,
        "{fixed}"
    );
    assert!(fixed.contains("\ntags: [x]\n"), "{fixed}");
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn status_chain_is_fixed_to_the_final_record() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    // use-float-amounts is replaced by store-amounts-…: pointing at it is a chain.
    let path = ws.path().join("memory/decisions/older.md");
    let text = "---\ntitle: Older\nstatus: replaced\ndate: 2026-08-01\nsources:\n  - file:docs/architecture.md\nreplaced_by: use-float-amounts\n---\n\nBody.\n";
    let u = c.open(&path, text);
    let diags = c.diagnostics(&u);
    assert_eq!(codes(&diags), [("status/chain".to_string(), 6, 13, 6, 30)]);
    let actions = c.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": diags[0]["range"],
                "context": { "diagnostics": diags } }),
    );
    let edits = &actions[0]["edit"]["changes"][&u];
    let fixed = lsp::applied(text, edits);
    assert!(
        fixed.contains("replaced_by: store-amounts-as-integer-minor-units\n"),
        "{fixed}"
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn definition_references_and_hover_follow_slugs_and_sources() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let path = ws.path().join("memory/decisions/use-float-amounts.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let u = c.open(&path, &text);
    // `replaced_by: store-…` is line 7.
    let at = |line: u32, character: u32| json!({ "textDocument": { "uri": u }, "position": { "line": line, "character": character } });
    let def = c.call("textDocument/definition", at(7, 20));
    let target = ws
        .path()
        .canonicalize()
        .unwrap()
        .join("memory/decisions/store-amounts-as-integer-minor-units.md");
    assert_eq!(def["uri"], uri(&target));
    // `file:docs/architecture.md` is line 5.
    let def = c.call("textDocument/definition", at(5, 12));
    assert_eq!(
        def["uri"],
        uri(&ws
            .path()
            .canonicalize()
            .unwrap()
            .join("docs/architecture.md"))
    );
    // Hover on the slug: the record's title, status and date.
    let hover = c.call("textDocument/hover", at(7, 20));
    let value = hover["contents"]["value"].as_str().unwrap();
    let target_text = std::fs::read_to_string(&target).unwrap();
    let title = target_text
        .lines()
        .find_map(|l| l.strip_prefix("title: "))
        .unwrap();
    assert!(value.contains(title), "{value}");
    assert!(value.contains("status: active"), "{value}");
    assert_eq!(
        hover["range"],
        json!({ "start": { "line": 7, "character": 13 }, "end": { "line": 7, "character": 49 } })
    );
    // References to the record the cursor names: who replaces or cites it,
    // an unsaved buffer included.
    let draft = ws.path().join("memory/requests/draft.md");
    c.open(&draft, "---\ntitle: Draft\nstatus: open\ndate: 2026-10-02\nsources: [decision:store-amounts-as-integer-minor-units]\n---\n");
    let refs = c.call(
        "textDocument/references",
        json!({ "textDocument": { "uri": u }, "position": { "line": 7, "character": 20 },
                "context": { "includeDeclaration": false } }),
    );
    let root = ws.path().canonicalize().unwrap();
    let found: Vec<(String, u64, u64, u64)> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let u = r["uri"].as_str().unwrap();
            let rel = u
                .strip_prefix(&format!("{}/", uri(&root)))
                .unwrap()
                .to_string();
            let range = &r["range"];
            (
                rel,
                range["start"]["line"].as_u64().unwrap(),
                range["start"]["character"].as_u64().unwrap(),
                range["end"]["character"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("knowledge/minor-unit-rounding.md", 7, 13, 49),
        ("memory/decisions/use-float-amounts.md", 7, 13, 49),
        ("memory/requests/draft.md", 4, 19, 55),
        ("memory/requests/export-monthly-csv.md", 6, 13, 49),
        ("memory/requests/show-amounts-in-yen.md", 6, 13, 49),
    ]
    .map(|(p, l, s, e)| (p.to_string(), l, s, e));
    assert_eq!(found, expected);
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn completion_offers_keys_enum_values_and_slugs() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let path = ws.path().join("memory/decisions/draft.md");
    let text = "---\ntitle: Draft\nstatus: \nreplaced_by: use-\nsources:\n  - decision:st\n\n---\n";
    let u = c.open(&path, text);
    let at = |line: u32, character: u32| json!({ "textDocument": { "uri": u }, "position": { "line": line, "character": character } });
    let labels = |v: &Value| -> Vec<String> {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    let status = c.call("textDocument/completion", at(2, 8));
    assert_eq!(labels(&status), ["active", "replaced"]);
    let slugs = c.call("textDocument/completion", at(3, 17));
    assert_eq!(
        labels(&slugs),
        ["use-float-amounts", "use-sqlite-statement-cache"]
    );
    assert_eq!(
        slugs["items"][0]["textEdit"]["range"],
        json!({ "start": { "line": 3, "character": 13 }, "end": { "line": 3, "character": 17 } })
    );
    let sources = c.call("textDocument/completion", at(5, 15));
    assert_eq!(
        labels(&sources),
        ["decision:store-amounts-as-integer-minor-units"]
    );
    let keys = c.call("textDocument/completion", at(6, 0));
    let keys = labels(&keys);
    assert!(
        keys.contains(&"date".to_string()) && !keys.contains(&"title".to_string()),
        "{keys:?}"
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn rename_of_a_slug_renames_the_file_and_every_reference() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let path = ws.path().join("memory/decisions/use-float-amounts.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let u = c.open(&path, &text);
    // On `replaced_by: store-…`: renames that record.
    let edit = c.call(
        "textDocument/rename",
        json!({ "textDocument": { "uri": u }, "position": { "line": 7, "character": 20 },
                "newName": "keep-integer-minor-units" }),
    );
    let ops = edit["documentChanges"].as_array().unwrap();
    let last = ops.last().unwrap();
    assert_eq!(last["kind"], "rename");
    let root = ws.path().canonicalize().unwrap();
    assert_eq!(
        last["oldUri"],
        uri(&root.join("memory/decisions/store-amounts-as-integer-minor-units.md"))
    );
    assert_eq!(
        last["newUri"],
        uri(&root.join("memory/decisions/keep-integer-minor-units.md"))
    );
    let mut edited: Vec<String> = ops[..ops.len() - 1]
        .iter()
        .map(|o| {
            o["textDocument"]["uri"]
                .as_str()
                .unwrap()
                .replace(&format!("{}/", uri(&root)), "")
        })
        .collect();
    edited.sort();
    assert_eq!(
        edited,
        [
            "knowledge/minor-unit-rounding.md",
            "memory/decisions/use-float-amounts.md",
            "memory/requests/export-monthly-csv.md",
            "memory/requests/show-amounts-in-yen.md"
        ]
    );
    // Files not open carry no version; nothing is written by the server.
    assert!(ops
        .iter()
        .any(|o| o["textDocument"]["version"].is_null() && o.get("edits").is_some()));
    assert!(root
        .join("memory/decisions/store-amounts-as-integer-minor-units.md")
        .exists());
    let mine = ops
        .iter()
        .find(|o| o["textDocument"]["uri"] == u)
        .expect("an edit of the open buffer");
    assert_eq!(mine["textDocument"]["version"], 1);
    assert_eq!(
        mine["edits"],
        json!([{ "range": { "start": { "line": 7, "character": 13 }, "end": { "line": 7, "character": 49 } },
                 "newText": "keep-integer-minor-units" }])
    );
    // Refused: a name taken, a name that is no slug.
    for bad in ["use-float-amounts", "Not A Slug"] {
        let r = c.request(
            "textDocument/rename",
            json!({ "textDocument": { "uri": u }, "position": { "line": 7, "character": 20 }, "newName": bad }),
        );
        assert!(r.get("error").is_some(), "{r}");
    }
    // Refused without repeating it (a black-box audit of issue 44): a
    // credential-shaped name, which would be committed as a file name.
    let token = "glpat-abcdefghij1234567890";
    let r = c.request(
        "textDocument/rename",
        json!({ "textDocument": { "uri": u }, "position": { "line": 7, "character": 20 }, "newName": token }),
    );
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("looks like"), "{r}");
    assert!(!r.to_string().contains(token), "{r}");
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn a_broken_configuration_is_a_diagnostic_and_the_server_runs_on_defaults() {
    let ws = workspace();
    common::write(ws.path(), ".memlint.yml", "max_sources: many\n");
    let mut c = push_client(ws.path());
    let config = uri(&ws.path().canonicalize().unwrap().join(".memlint.yml"));
    let diags = c.diagnostics(&config);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["severity"], 1);
    assert_eq!(diags[0]["range"]["start"]["line"], 0);
    // Records are still linted, on the defaults.
    let path = ws.path().join("memory/decisions/new-money.md");
    let u = c.open(&path, BROKEN);
    assert_eq!(c.diagnostics(&u).len(), 3);
    // Formatting works on the defaults too.
    let edits = c.call(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert!(edits.is_array(), "{edits}");
    // Fixed and saved: the problem goes, and the buffers are linted again
    // with the new configuration.
    common::write(
        ws.path(),
        ".memlint.yml",
        "rules:\n  frontmatter/unknown-key: off\n",
    );
    c.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": config } }),
    );
    assert_eq!(c.diagnostics(&config), Vec::<Value>::new());
    let diags = c.diagnostics(&u);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn careless_clients_get_protocol_errors_not_a_crash() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let ghost = uri(&ws.path().join("memory/decisions/never-opened.md"));
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": ghost, "version": 2 }, "contentChanges": [{ "text": "x" }] }),
    );
    // A position past the end, and one inside a surrogate pair.
    let path = ws.path().join("memory/decisions/emoji.md");
    let u = c.open(&path, "---\ntitle: 😀 x\n---\n");
    for (line, character) in [(99, 0), (1, 8)] {
        let r = c.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": u }, "position": { "line": line, "character": character } }),
        );
        assert_eq!(r["error"]["code"], -32602, "{r}");
    }
    // An invalid range in a change is refused and logged; the text stays.
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": u, "version": 2 },
                "contentChanges": [{ "range": { "start": { "line": 50, "character": 0 }, "end": { "line": 50, "character": 1 } }, "text": "x" }] }),
    );
    let r = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": ghost }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(c
        .notifications
        .iter()
        .any(|n| n["method"] == "window/logMessage"
            && n["params"]["message"]
                .as_str()
                .unwrap()
                .contains("not open")));
    let r = c.request("no/such/method", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // After shutdown, requests are refused; exit ends the process with 0.
    let r = c.request("shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    let r = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": u }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(r["error"]["code"], -32600, "{r}");
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(), Some(0));
    assert!(!c.stderr().contains("panicked"));
}

#[test]
fn a_burst_of_changes_and_a_large_buffer_are_linted_once_each() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let path = ws.path().join("memory/decisions/typing.md");
    let u = c.open(&path, "---\ntitle: T\nstatus: active\ndate: 2026-10-01\nsources:\n  - file:docs/architecture.md\n---\n\n");
    assert_eq!(c.diagnostics(&u), Vec::<Value>::new());
    c.forget();
    for i in 0..1000u32 {
        c.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": u, "version": i + 2 },
                    "contentChanges": [{ "range": { "start": { "line": 8, "character": i }, "end": { "line": 8, "character": i } }, "text": "x" }] }),
        );
    }
    // The diagnostics after the burst are of its last version, and few
    // lints ran (debounced), not one per change.
    let diags = c.diagnostics(&u);
    assert_eq!(diags, Vec::<Value>::new());
    let hover = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": u }, "position": { "line": 8, "character": 1000 } }),
    );
    assert!(
        hover.get("error").is_none(),
        "the text has the 1000 characters: {hover}"
    );
    let pushed = c
        .notifications
        .iter()
        .filter(|n| n["method"] == "textDocument/publishDiagnostics")
        .count();
    assert!(pushed < 10, "{pushed} pushes for one burst");
    // 5 MB: over max_file_bytes, one format/too-large, no crash.
    let big = format!("---\ntitle: Big\n---\n{}", "word ".repeat(1_000_000));
    let b = c.open(&ws.path().join("memory/decisions/big.md"), &big);
    let diags = c.diagnostics(&b);
    assert_eq!(codes(&diags)[0].0, "format/too-large", "{diags:#?}");
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn a_crashed_client_ends_the_server() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    c.open(
        &ws.path().join("memory/decisions/x.md"),
        "---\ntitle: X\n---\n",
    );
    c.close_stdin();
    // EOF without shutdown: exit code 1, as the protocol says.
    assert_eq!(c.wait_exit(), Some(1));
    assert!(!c.stderr().contains("panicked"));
}

#[test]
fn a_malformed_message_ends_the_server_without_a_panic() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    c.write_raw(b"Content-Length: 5\r\n\r\n{oops").unwrap();
    assert_eq!(c.wait_exit(), Some(1));
    let err = c.stderr();
    assert!(err.contains("memlint server: error"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn rename_on_the_slug_line_rewrites_the_slug_key_and_the_sources() {
    let ws = workspace();
    let rel = "knowledge/sqlite-wal-pitfalls.md";
    let text = std::fs::read_to_string(ws.path().join(rel)).unwrap();
    let text = text.replacen("---\n", "---\nslug: \"sqlite-wal-pitfalls\"\n", 1);
    common::write(ws.path(), rel, &text);
    let mut c = push_client(ws.path());
    let u = c.open(&ws.path().join(rel), &text);
    let edit = c.call(
        "textDocument/rename",
        json!({ "textDocument": { "uri": u }, "position": { "line": 1, "character": 2 },
                "newName": "sqlite-wal-limits" }),
    );
    let root = ws.path().canonicalize().unwrap();
    let ops = edit["documentChanges"].as_array().unwrap();
    assert_eq!(ops.len(), 3, "{edit:#}");
    let of = |rel: &str| {
        ops.iter()
            .find(|o| o["textDocument"]["uri"] == uri(&root.join(rel)))
            .unwrap_or_else(|| panic!("no edit of {rel}: {edit:#}"))["edits"]
            .clone()
    };
    assert_eq!(
        of(rel),
        json!([{ "range": { "start": { "line": 1, "character": 7 }, "end": { "line": 1, "character": 26 } },
                 "newText": "sqlite-wal-limits" }])
    );
    assert_eq!(
        of("memory/decisions/use-sqlite-statement-cache.md"),
        json!([{ "range": { "start": { "line": 6, "character": 14 }, "end": { "line": 6, "character": 33 } },
                 "newText": "sqlite-wal-limits" }])
    );
    assert_eq!(
        ops[2]["newUri"],
        uri(&root.join("knowledge/sqlite-wal-limits.md"))
    );
    // Elsewhere than the slug line or a reference, there is nothing to rename.
    let r = c.request(
        "textDocument/rename",
        json!({ "textDocument": { "uri": u }, "position": { "line": 2, "character": 2 }, "newName": "x-y" }),
    );
    assert!(r.get("error").is_some(), "{r}");
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn encoding_findings_have_quick_fixes_too() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let path = ws.path().join("memory/decisions/windows.md");
    let text = "\u{feff}---\r\ntitle: From Windows\r\nstatus: active\r\ndate: 2026-10-01\r\nsources:\r\n  - file:docs/architecture.md\r\n---\r\n\r\nBody.\r\n";
    let u = c.open(&path, text);
    let diags = c.diagnostics(&u);
    let rules: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(rules, ["format/bom", "format/crlf"], "{diags:#?}");
    let actions = c.call(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": u }, "range": diags[1]["range"],
                "context": { "diagnostics": [diags[1]] } }),
    );
    let crlf = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"] == "Fix `format/crlf`")
        .unwrap_or_else(|| panic!("{actions:#}"));
    let fixed = lsp::applied(text, &crlf["edit"]["changes"][&u]);
    assert_eq!(fixed, text.replace("\r\n", "\n"));
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn a_client_that_never_pauses_still_gets_diagnostics() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let path = ws.path().join("memory/decisions/typing.md");
    let u = c.open(&path, "---\ntitle: T\n---\n");
    c.diagnostics(&u);
    c.forget();
    // A change every 50 ms until diagnostics come (a minute at most):
    // never quiet for the 150 ms debounce, so they come because the server
    // publishes at the latest a second after the first change, however
    // slow the machine.
    let mut published = None;
    let mut sent = 1;
    while published.is_none() && sent < 1200 {
        sent += 1;
        c.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": u, "version": sent },
                    "contentChanges": [{ "range": { "start": { "line": 3, "character": 0 }, "end": { "line": 3, "character": 0 } }, "text": "x" }] }),
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
        c.poll();
        published = c
            .notifications
            .iter()
            .find(|n| n["method"] == "textDocument/publishDiagnostics")
            .map(|n| n["params"]["version"].as_i64());
    }
    let version = published.expect("diagnostics while the changes went on");
    // Of a version the client sent, while it went on sending.
    assert!(
        version.is_some_and(|v| (2..=sent).contains(&v)),
        "{version:?} of {sent}"
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn a_buffer_outside_the_workspace_gets_nothing_and_no_error() {
    let ws = workspace();
    let elsewhere = tempfile::tempdir().unwrap();
    let mut c = push_client(ws.path());
    let u = c.open(&elsewhere.path().join("notes.md"), "---\ntitle: x\n---\n");
    for (method, params) in [
        (
            "textDocument/formatting",
            json!({ "textDocument": { "uri": u }, "options": { "tabSize": 2, "insertSpaces": true } }),
        ),
        (
            "textDocument/hover",
            json!({ "textDocument": { "uri": u }, "position": { "line": 0, "character": 0 } }),
        ),
        (
            "textDocument/completion",
            json!({ "textDocument": { "uri": u }, "position": { "line": 1, "character": 0 } }),
        ),
    ] {
        assert_eq!(c.call(method, params), Value::Null, "{method}");
    }
    // A Markdown file of the workspace that is no record: formatted as is.
    let doc = c.open(&ws.path().join("docs/notes.md"), "# Notes\n");
    let edits = c.call(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": doc }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    assert_eq!(edits, json!([]));
    assert_eq!(c.diagnostics(&doc), Vec::<Value>::new());
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn a_watching_client_is_asked_to_watch_the_configuration() {
    let ws = workspace();
    let mut c = Client::initialized(
        common::BIN,
        ws.path(),
        json!({ "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } } }),
    );
    let path = ws.path().join("memory/decisions/new-money.md");
    let u = c.open(&path, BROKEN);
    assert_eq!(c.diagnostics(&u).len(), 3);
    assert!(
        c.server_requests
            .iter()
            .any(|r| r["method"] == "client/registerCapability"
                && r["params"]["registrations"][0]["method"] == "workspace/didChangeWatchedFiles"),
        "{:?}",
        c.server_requests
    );
    // .memlint.yml changes on disk (another program wrote it).
    common::write(
        ws.path(),
        ".memlint.yml",
        "rules:\n  status/dangling-target: off\n",
    );
    let config = uri(&ws.path().canonicalize().unwrap().join(".memlint.yml"));
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": config, "type": 2 }] }),
    );
    let diags = c.diagnostics(&u);
    let rules: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(rules, ["sources/duplicate", "frontmatter/unknown-key"]);
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn definition_follows_every_kind_of_record_source() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let path = ws.path().join("memory/decisions/cites-all.md");
    let text = "---\ntitle: Cites all\nstatus: active\ndate: 2026-10-01\nsources:\n  - request:export-monthly-csv\n  - knowledge:bank-api-rate-limits\n  - cmem:CMEM-20261102-174500\n  - decision:nowhere\n---\n\nBody.\n";
    let u = c.open(&path, text);
    let root = ws.path().canonicalize().unwrap();
    for (line, target) in [
        (5, "memory/requests/export-monthly-csv.md"),
        (6, "knowledge/bank-api-rate-limits.md"),
        (7, "memory/sessions/CMEM-20261102-174500.md"),
    ] {
        let def = c.call(
            "textDocument/definition",
            json!({ "textDocument": { "uri": u }, "position": { "line": line, "character": 20 } }),
        );
        assert_eq!(def["uri"], uri(&root.join(target)), "line {line}");
    }
    // A source that names nothing leads nowhere (and is a diagnostic).
    let def = c.call(
        "textDocument/definition",
        json!({ "textDocument": { "uri": u }, "position": { "line": 8, "character": 14 } }),
    );
    assert_eq!(def, Value::Null);
    let diags = c.diagnostics(&u);
    assert_eq!(
        codes(&diags),
        [("sources/dangling".to_string(), 8, 4, 8, 20)]
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn context_md_is_linted_too() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let u = c.open(
        &ws.path().join("CONTEXT.md"),
        "# Context\n\n## Circuit breaker rollout\n\nBreaker on in staging.\n",
    );
    let diags = c.diagnostics(&u);
    assert_eq!(codes(&diags)[0].0, "context/block-date", "{diags:#?}");
    assert_eq!(codes(&diags)[0].1, 2);
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn root_and_config_flags_choose_the_workspace_and_its_configuration() {
    let ws = workspace();
    common::write(
        ws.path(),
        "cfg/lint.yml",
        "rules:\n  status/dangling-target: off\n",
    );
    let elsewhere = tempfile::tempdir().unwrap();
    // Started outside the workspace, with no root URI: the flags decide.
    let config = ws.path().join("cfg/lint.yml");
    let mut c = Client::start_with(
        common::BIN,
        elsewhere.path(),
        &[
            "--root",
            ws.path().to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
    );
    let r = c.request(
        "initialize",
        json!({ "processId": null, "rootUri": null, "capabilities": {} }),
    );
    assert!(r.get("result").is_some(), "{r}");
    c.notify("initialized", json!({}));
    let u = c.open(&ws.path().join("memory/decisions/new-money.md"), BROKEN);
    let rules: Vec<String> = codes(&c.diagnostics(&u)).into_iter().map(|c| c.0).collect();
    assert_eq!(rules, ["sources/duplicate", "frontmatter/unknown-key"]);
    assert_eq!(c.shutdown(), Some(0));
}

/// Issue 44 item 21: `initialize` without `rootUri` (no params at all, a
/// root that does not exist, only the old `rootPath`) is answered, and the
/// server works from what the client named or from its current directory;
/// a workspace it cannot load gets an error answer, never silence.
#[test]
fn initialize_without_a_root_uri_is_answered() {
    let ws = workspace();
    let elsewhere = tempfile::tempdir().expect("tempdir");
    for (dir, params) in [
        (ws.path(), Value::Null),
        (ws.path(), json!({ "capabilities": {} })),
        (
            ws.path(),
            json!({ "capabilities": {}, "rootUri": "file:///no/such/directory" }),
        ),
        (
            elsewhere.path(),
            json!({ "capabilities": {}, "rootPath": ws.path() }),
        ),
    ] {
        let mut c = lsp::Client::start(common::BIN, dir);
        let r = c.request("initialize", params.clone());
        assert!(r["result"]["capabilities"].is_object(), "{params}: {r}");
        c.notify("initialized", json!({}));
        let u = c.open(&ws.path().join("memory/decisions/new-money.md"), BROKEN);
        assert!(!c.diagnostics(&u).is_empty(), "{params}");
        assert_eq!(c.shutdown(), Some(0), "{params}");
    }
    // A configuration that leads out of the root: an error answer.
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("x.yml"), "max_sources: 3\n").expect("write");
    std::fs::remove_file(ws.path().join(".memlint.yml")).expect("remove");
    std::os::unix::fs::symlink(outside.path().join("x.yml"), ws.path().join(".memlint.yml"))
        .expect("symlink");
    let mut c = lsp::Client::start(common::BIN, ws.path());
    let r = c.request("initialize", json!({ "capabilities": {} }));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // Issue 48 item 6: in neutral words, without the command line's
    // `--config`.
    let root = ws.path().canonicalize().expect("canonicalize");
    assert_eq!(
        r["error"]["message"],
        format!(
            "memlint server: .memlint.yml leads out of {} through a symbolic link; memlint never reads there",
            root.display()
        ),
        "{r}"
    );
}

/// Issue 48 item 6: a root that is no directory is named in neutral
/// words, not as the command line's `--root`.
#[test]
fn a_root_that_is_no_directory_is_named_plainly() {
    let ws = workspace();
    let mut c = lsp::Client::start_with(common::BIN, ws.path(), &["--root", "missing"]);
    let r = c.request("initialize", json!({ "capabilities": {} }));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert_eq!(
        r["error"]["message"],
        format!(
            "memlint server: the workspace root {}: not a directory",
            ws.path()
                .canonicalize()
                .expect("canonicalize")
                .join("missing")
                .display()
        ),
        "{r}"
    );
}

/// Issue 44 item 21: after `shutdown`, a `didOpen` publishes nothing.
#[test]
fn nothing_is_published_after_shutdown() {
    let ws = workspace();
    let mut c = push_client(ws.path());
    let r = c.request("shutdown", Value::Null);
    assert_eq!(r["result"], Value::Null);
    let u = c.open(&ws.path().join("memory/decisions/new-money.md"), BROKEN);
    // The `exit` after it is read in order: anything published before it
    // has been sent by the time the process ends.
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(), Some(0));
    std::thread::sleep(std::time::Duration::from_millis(100));
    c.poll();
    assert!(
        !c.notifications
            .iter()
            .any(|n| n["method"] == "textDocument/publishDiagnostics"
                && n["params"]["uri"] == u.as_str()),
        "{:?}",
        c.notifications
    );
}
