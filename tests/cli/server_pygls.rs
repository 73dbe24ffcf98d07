//! `memlint server` driven by pygls's LanguageClient (tests/pygls/client.py),
//! a client library from PyPI whose lsprotocol types check the shape of
//! every answer against the protocol's specification. Skipped, with a
//! message, when pygls is not installed (`pip install pygls`; `.ci/run`
//! installs it).

use crate::common;

use serde_json::json;
use std::path::Path;
use std::process::Command;

#[test]
fn a_protocol_checked_client_gets_well_formed_answers() {
    let has_pygls = Command::new("python3")
        .args(["-c", "import pygls.lsp.client, lsprotocol.types"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pygls {
        eprintln!("skipped: pygls is not installed (pip install 'pygls>=2,<3')");
        return;
    }
    let ws = common::workspace("example");
    common::commit_all(ws.path());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pygls/client.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(common::BIN)
        .arg(ws.path())
        .current_dir(ws.path())
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let docs = "https://github.com/memlint/memlint/blob/main/docs/rules.md";
    assert_eq!(
        got,
        json!({
            "server": "memlint",
            "sync": 2,
            "diagnostics": [
                ["sources/duplicate", 6, 4, 30, 2, format!("{docs}#sourcesduplicate")],
                ["status/dangling-target", 7, 13, 29, 1, format!("{docs}#statusdangling-target")],
                ["frontmatter/unknown-key", 8, 0, 4, 2, format!("{docs}#frontmatterunknown-key")]
            ],
            "actions": ["Fix `frontmatter/unknown-key`", "Fix `sources/duplicate`", "Fix all memlint findings"],
            "formatted": null,
            "definition": "memory/decisions/use-float-amounts.md",
            "hover": "金額を浮動小数点で保持する\n\nstatus: replaced · date: 2026-09-14 · memory/decisions/use-float-amounts.md",
            "references": ["memory/decisions/new-money.md", "memory/decisions/new-money.md"],
            "completion": ["active", "replaced"],
            "rename": ["TextDocumentEdit", "RenameFile"]
        })
    );
    // Nothing the client could not handle went to its log.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("Failed"), "{stderr}");
}
