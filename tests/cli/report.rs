//! `memlint report` (SPEC §4): the JSON shape and contents on
//! `fixtures/report`, a workspace with a `replaced_by` chain of three, a
//! replaced request, a cluster of three near-duplicate slugs, a record over
//! `max_sources` and a staging backlog that is due.

use crate::common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/report")
}

fn report(root: &Path, args: &[&str]) -> (i32, String) {
    let run = common::Memlint::new(root)
        .arg("report")
        .arg("--root")
        .arg(root)
        .args(args)
        .run();
    assert!(run.stderr.is_empty(), "stderr: {}", run.stderr);
    (run.code, run.stdout)
}

fn report_json(root: &Path) -> Value {
    let (code, out) = report(root, &["--format", "json"]);
    assert_eq!(code, 0);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
}

#[test]
fn json_shape_and_contents() {
    let json = report_json(&fixture());
    let keys: Vec<&str> = json
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        vec![
            "diagnostics",
            "drifted",
            "duplicates",
            "records",
            "replaced_chains",
            "similar_slugs",
            "staging",
            "too_many_sources"
        ]
    );
    assert_eq!(json["records"], 12);
    assert_eq!(
        json["replaced_chains"],
        json!([
            ["export-to-csv", "export-reports"],
            [
                "use-float-amounts",
                "use-decimal-amounts",
                "use-integer-minor-units"
            ]
        ])
    );
    assert_eq!(
        json["too_many_sources"],
        json!(["memory/decisions/split-the-index-writer.md"])
    );
    assert_eq!(
        json["similar_slugs"],
        json!([[
            "cache-parsed-records",
            "cache-parsed-records-new",
            "cache-parsed-records-v2"
        ]])
    );
    assert_eq!(
        json["staging"],
        json!({"files": 2, "bytes": 264, "due": true})
    );
    // The diagnostics are exactly `check`'s, field for field.
    let check = common::Memlint::new(&fixture())
        .args(["check", "--format", "json", "--root"])
        .arg(fixture())
        .output();
    let check: Value = serde_json::from_slice(&check.stdout).expect("check JSON");
    assert_eq!(json["diagnostics"], check["diagnostics"]);
    let located: Vec<(&str, &str, u64, u64, u64, u64)> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or(""),
                d["path"].as_str().unwrap_or(""),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0),
                d["end_line"].as_u64().unwrap_or(0),
                d["end_column"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        located,
        vec![
            (
                "slug/similar",
                "memory/decisions/cache-parsed-records-new.md",
                1,
                1,
                1,
                1
            ),
            (
                "slug/similar",
                "memory/decisions/cache-parsed-records-v2.md",
                1,
                1,
                1,
                1
            ),
            (
                "sources/too-many",
                "memory/decisions/split-the-index-writer.md",
                5,
                1,
                5,
                8
            ),
            (
                "status/chain",
                "memory/decisions/use-float-amounts.md",
                7,
                14,
                7,
                33
            ),
        ]
    );
}

#[test]
fn json_keys_follow_the_specification_order() {
    let (_, out) = report(&fixture(), &["--format", "json"]);
    let at = |key: &str| out.find(&format!("\"{key}\":")).unwrap_or(usize::MAX);
    let order = [
        at("records"),
        at("diagnostics"),
        at("replaced_chains"),
        at("too_many_sources"),
        at("similar_slugs"),
        at("staging"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{out}");
}

#[test]
fn human_report_lists_every_section() {
    let (code, out) = report(&fixture(), &[]);
    assert_eq!(code, 0);
    for needle in [
        "memory/decisions/use-float-amounts.md\n  7:14 warning status/chain: ",
        "Replaced chains (2):\n  export-to-csv → export-reports\n  use-float-amounts → use-decimal-amounts → use-integer-minor-units\n",
        "Records over max_sources (1):\n  memory/decisions/split-the-index-writer.md\n",
        "Similar slugs (1):\n  cache-parsed-records, cache-parsed-records-new, cache-parsed-records-v2\n",
        "Staging: 2 files, 264 bytes, due for consolidation\n",
        "12 records, 0 errors, 4 warnings.\n",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in:\n{out}");
    }
}

#[test]
fn empty_workspace() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = report_json(dir.path());
    assert_eq!(
        json,
        json!({
            "records": 0,
            "diagnostics": [],
            "replaced_chains": [],
            "too_many_sources": [],
            "similar_slugs": [],
            "staging": {"files": 0, "bytes": 0, "due": false},
            "duplicates": [],
            "drifted": [],
        })
    );
}

#[test]
fn chains_skip_cycles_and_join_at_shared_targets() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path().join("memory/decisions");
    std::fs::create_dir_all(&d).expect("mkdir");
    let write = |slug: &str, status: &str, by: Option<&str>| {
        let extra = by
            .map(|b| format!("replaced_by: {b}\n"))
            .unwrap_or_default();
        let text = format!(
            "---\ntitle: {slug}\nstatus: {status}\ndate: 2026-11-01\nsources:\n  - https://example.com/{slug}\n{extra}---\n\nBody.\n"
        );
        std::fs::write(d.join(format!("{slug}.md")), text).expect("write");
    };
    // Two records replaced by one: two chains meeting at the final record.
    write("first-draft", "replaced", Some("final-plan"));
    write("second-draft", "replaced", Some("final-plan"));
    write("final-plan", "active", None);
    // A cycle, with a record leading into it: no chain.
    write("loop-a", "replaced", Some("loop-b"));
    write("loop-b", "replaced", Some("loop-a"));
    write("into-loop", "replaced", Some("loop-a"));
    // A dangling target: no chain either.
    write("lost", "replaced", Some("nowhere"));
    let json = report_json(dir.path());
    assert_eq!(
        json["replaced_chains"],
        json!([
            ["first-draft", "final-plan"],
            ["second-draft", "final-plan"]
        ])
    );
    assert_eq!(json["records"], 7);
}

#[cfg(unix)]
#[test]
fn control_characters_in_file_names_never_reach_the_terminal() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("memory/decisions");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("e\u{1b}[31mred\nx.md"), "---\ntitle: x\n---\n").expect("write");
    let (_, out) = report(tmp.path(), &[]);
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert!(
        out.contains("memory/decisions/e\u{241b}[31mred\u{240a}x.md\n"),
        "{out}"
    );
}

#[test]
fn records_that_say_nearly_the_same_are_listed_in_json_and_text() {
    let dir = tempfile::tempdir().expect("temp dir");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rules/content-duplicate");
    for sub in ["knowledge", "memory/decisions"] {
        std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        for entry in std::fs::read_dir(from.join(sub)).expect("fixture") {
            let entry = entry.expect("entry");
            std::fs::copy(entry.path(), dir.path().join(sub).join(entry.file_name()))
                .expect("copy");
        }
    }
    let json = report_json(dir.path());
    assert_eq!(
        json["duplicates"],
        json!([
            {"records": ["knowledge/cdn-ttl.md", "knowledge/product-page-ttl.md"], "percent": 92},
            {"records": ["memory/decisions/cache-product-pages.md",
                         "memory/decisions/edge-caching-for-catalogue.md"], "percent": 90}
        ])
    );
    let (code, text) = report(dir.path(), &[]);
    assert_eq!(code, 0);
    assert!(
        text.contains(
            "Duplicate records (2):\n  knowledge/cdn-ttl.md ≈ knowledge/product-page-ttl.md (92% alike)\n  memory/decisions/cache-product-pages.md ≈ memory/decisions/edge-caching-for-catalogue.md (90% alike)\n"
        ),
        "{text}"
    );
    // The fixture of `report` has none.
    assert_eq!(report_json(&fixture())["duplicates"], json!([]));
}
