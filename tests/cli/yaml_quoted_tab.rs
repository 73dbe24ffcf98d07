//! Issue 44, item 23: the yaml-test-suite's DK95-01 — a tab at the start
//! of a continuation line of a double-quoted value — was accepted (the
//! YAML parser lets it pass); it is a `frontmatter/parse` error at the tab.

use crate::common;

use common::{memlint, write};

#[test]
fn a_tab_indenting_a_quoted_continuation_line_is_a_parse_error() {
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    memlint(root, &["init"]);
    let record = "---\ntitle: \"Retry the bank sync\n\twith backoff\"\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/x\n---\n\nBody.\n";
    write(root, "memory/decisions/retry-bank-sync.md", record);
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 1, "{run:?}");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let d = &json["diagnostics"][0];
    assert_eq!(d["rule"], "frontmatter/parse", "{}", run.stdout);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(3), Some(1))
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap_or_default()
            .contains("YAML does not allow a tab for indentation (line 3)"),
        "{}",
        run.stdout
    );
    assert_eq!(json["diagnostics"].as_array().map(Vec::len), Some(1));
    // A space before the tab is what YAML asks for.
    write(
        root,
        "memory/decisions/retry-bank-sync.md",
        &record.replace("\n\twith", "\n \twith"),
    );
    let run = memlint(root, &["check"]);
    assert_eq!(run.code, 0, "{run:?}");
}
