//! The four output formats of `memlint check`: human (snapshots), GitHub
//! workflow commands (exact lines), SARIF 2.1.0 (validated against the OASIS
//! schema) and JSON (the shape of SPEC §4).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_memlint");

const SARIF_SCHEMA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/schemas/sarif-schema-2.1.0.json"
);

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// `memlint check --root ROOT ARGS…`: (exit code, stdout).
fn check(root: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(BIN)
        .arg("check")
        .arg("--root")
        .arg(root)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        // The snapshots are wrapped at the default width.
        .env_remove("COLUMNS")
        .output()
        .expect("run memlint");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "stderr: {stderr}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 output"),
    )
}

fn human(dir: &str) -> String {
    check(&fixture(dir), &["--color", "never"]).1
}

#[test]
fn human_clean() {
    assert_eq!(human("example"), "No problems in 14 files.\n");
    // Quiet prints nothing when clean.
    assert_eq!(
        check(&fixture("example"), &["--color", "never", "--quiet"]),
        (0, String::new())
    );
}

#[test]
fn human_cjk_columns() {
    insta::assert_snapshot!("human_date_relative", human("rules/date-relative"));
}

#[test]
fn human_precedence() {
    insta::assert_snapshot!("human_precedence", human("precedence"));
}

#[test]
fn human_crlf_and_encoding() {
    insta::assert_snapshot!("human_format_crlf", human("rules/format-crlf"));
    insta::assert_snapshot!("human_format_encoding", human("rules/format-encoding"));
}

#[test]
fn regression_human_header_column_counts_characters() {
    // The header read `[path:9:3:9:7]`: miette appended its own byte-based
    // line and column to ours.
    let out = human("rules/date-relative");
    assert!(
        out.contains("╭─[memory/requests/chinese-words.md:9:3]\n"),
        "{out}"
    );
    assert!(!out.contains(":9:3:"), "{out}");
}

#[test]
fn regression_nul_byte_is_not_written_to_the_terminal() {
    // A file with a NUL byte had it echoed raw in the source snippet.
    let out = human("rules/format-encoding");
    assert!(!out.contains('\0'), "{out:?}");
    assert!(out.contains("before\u{2400}after"), "{out}");
    assert!(out.contains("Caf\u{fffd} notes."), "{out}");
}

#[test]
fn human_session() {
    insta::assert_snapshot!("human_session_sections", human("rules/session-sections"));
}

#[test]
fn human_without_color_has_no_escapes() {
    for dir in [
        "rules/date-relative",
        "precedence",
        "rules/layout-banned-dir",
    ] {
        let out = human(dir);
        assert!(!out.contains('\u{1b}'), "{dir}: escape codes in {out}");
    }
    let (_, colored) = check(&fixture("precedence"), &["--color", "always"]);
    assert!(colored.contains('\u{1b}'), "--color always gave no colour");
}

#[test]
fn github_lines() {
    let (code, out) = check(
        &fixture("rules/frontmatter-hash-in-value"),
        &["--format", "github"],
    );
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "::warning file=memory/decisions/fix-cjk-width.md,line=2,col=12,endLine=2,endColumn=28,\
         title=frontmatter/hash-in-value::this value reads as `Fix`: YAML takes ` #2` as a \
         comment; quote the whole value\n\
         memlint: Found 0 errors and 1 warning in 1 file.\n"
    );

    let (code, out) = check(&fixture("rules/staging-id"), &["--format", "github"]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        vec![
            "::error file=staging/20261103-091500-3fa2.md,line=2,col=5,endLine=2,endColumn=25,\
             title=staging/id::staging id `20261103-091500-3FA2` is not of the form \
             YYYYMMDD-HHMMSS-xxxx (4 lowercase hex digits)",
            "::error file=staging/20261103-142210-b07c.md,line=2,col=5,endLine=2,endColumn=25,\
             title=staging/id::staging id `20261103-142210-b07d` differs from the file name \
             `20261103-142210-b07c.md`",
            "memlint: Found 2 errors and 0 warnings in 2 files.",
        ]
    );
}

#[test]
fn github_escapes_properties_and_data() {
    // A file name with `%` and `,`: escaped in the `file` property (`%25`,
    // `%2C`) and, for `%`, in the message.
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("knowledge");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("50%,off.md"),
        std::fs::read(fixture("rules/format-bom/knowledge/bom-record.md")).expect("read"),
    )
    .expect("write");
    let (code, out) = check(tmp.path(), &["--format", "github"]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    // Same place: sorted by rule name.
    assert_eq!(
        lines[0],
        "::warning file=knowledge/50%25%2Coff.md,line=1,col=1,endLine=1,endColumn=2,\
         title=format/bom::the file starts with a byte order mark; save it as UTF-8 without BOM"
    );
    assert_eq!(
        lines[1],
        "::error file=knowledge/50%25%2Coff.md,line=1,col=1,endLine=1,endColumn=1,\
         title=slug/format::file name `50%25,off` is not a slug: a slug is lowercase letters \
         and digits joined by single `-`; rename it to `50-off.md`"
    );
    assert_eq!(lines[2], "memlint: Found 1 error and 1 warning in 1 file.");
}

fn sarif_validator() -> Option<jsonschema::Validator> {
    let text = match std::fs::read_to_string(SARIF_SCHEMA) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("skipping SARIF schema validation: cannot read {SARIF_SCHEMA}: {e}");
            return None;
        }
    };
    let schema: Value = serde_json::from_str(&text).expect("SARIF schema is JSON");
    // Formats checked too: a `uri` must be a valid URI reference.
    Some(
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("SARIF schema compiles"),
    )
}

#[test]
fn sarif_is_valid_sarif_2_1_0() {
    let Some(validator) = sarif_validator() else {
        return;
    };
    for dir in [
        "example",
        "precedence",
        "rules/date-relative",
        "rules/session-absolute-path",
        "rules/layout-unknown-file",
        "rules/format-encoding",
    ] {
        let (_, out) = check(&fixture(dir), &["--format", "sarif"]);
        let log: Value = serde_json::from_str(&out).expect("SARIF is JSON");
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{dir}: invalid SARIF:\n{}",
            errors.join("\n")
        );

        // Same findings as the JSON output, in the same order.
        let (_, json) = check(&fixture(dir), &["--format", "json"]);
        let json: Value = serde_json::from_str(&json).expect("JSON");
        let diags = json["diagnostics"].as_array().expect("array");
        let run = &log["runs"][0];
        let results = run["results"].as_array().expect("results");
        assert_eq!(results.len(), diags.len(), "{dir}");
        let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
        for (r, d) in results.iter().zip(diags) {
            assert_eq!(r["ruleId"], d["rule"]);
            let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
            assert_eq!(
                rules[index]["id"], d["rule"],
                "ruleIndex points at its rule"
            );
            assert_eq!(r["level"], d["severity"]);
            assert_eq!(r["message"]["text"], d["message"]);
            let loc = &r["locations"][0]["physicalLocation"];
            assert_eq!(loc["artifactLocation"]["uri"], d["path"]);
            let region = &loc["region"];
            assert_eq!(region["startLine"], d["line"]);
            assert_eq!(region["startColumn"], d["column"]);
            assert_eq!(region["endLine"], d["end_line"]);
            assert_eq!(region["endColumn"], d["end_column"]);
        }
        assert_eq!(run["columnKind"], "unicodeCodePoints");
        assert_eq!(run["tool"]["driver"]["name"], "memlint");
    }
}

/// The notes `check` says besides its findings (here: a record citing a
/// file that could not be judged for drift, not committed yet) are the
/// SARIF run's tool notifications, as they are on standard error; with
/// `--quiet`, neither.
#[test]
fn sarif_carries_the_notes_as_tool_notifications() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .expect("git")
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    std::fs::write(root.join("src/a.rs"), "a\n").expect("write");
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "Add a"]);
    std::fs::create_dir_all(root.join("memory/decisions")).expect("mkdir");
    std::fs::write(
        root.join("memory/decisions/cache.md"),
        "---\ntitle: Cache\nstatus: active\ndate: 2026-01-02\nsources:\n  - file:src/a.rs\n---\n\nBody.\n",
    )
    .expect("write");
    let run = |args: &[&str]| {
        let out = Command::new(BIN)
            .args(["check", "--root"])
            .arg(root)
            .args(["--format", "sarif"])
            .args(args)
            .output()
            .expect("run memlint");
        let log: Value = serde_json::from_slice(&out.stdout).expect("SARIF is JSON");
        (log, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let note = "sources/drifted: 1 record citing files could not be judged for drift: 1 with changes not committed yet";
    let (log, stderr) = run(&[]);
    assert_eq!(stderr, format!("memlint: note: {note}\n"));
    assert_eq!(
        log["runs"][0]["invocations"],
        serde_json::json!([{
            "executionSuccessful": true,
            "toolExecutionNotifications": [{"level": "note", "message": {"text": note}}],
        }])
    );
    if let Some(validator) = sarif_validator() {
        let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "invalid SARIF: {}", errors.join("\n"));
    }
    let (log, stderr) = run(&["--quiet"]);
    assert_eq!(stderr, "");
    assert!(log["runs"][0].get("invocations").is_none(), "{log}");
}

#[test]
fn sarif_uris_are_percent_encoded() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(".memlint.yml"), "").expect("write");
    std::fs::create_dir_all(dir.path().join("knowledge")).expect("mkdir");
    std::fs::write(
        dir.path().join("knowledge/50% off é.md"),
        "no front matter\n",
    )
    .expect("write");
    let (code, out) = check(dir.path(), &["--format", "sarif"]);
    assert_eq!(code, 1);
    let log: Value = serde_json::from_str(&out).expect("SARIF is JSON");
    let uris: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .expect("uri")
        })
        .collect();
    assert!(!uris.is_empty());
    assert!(
        uris.iter()
            .all(|u| *u == "knowledge/50%25%20off%20%C3%A9.md"),
        "{uris:?}"
    );
    if let Some(validator) = sarif_validator() {
        let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "invalid SARIF: {errors:?}");
    }
}

#[test]
fn sarif_validator_rejects_broken_logs() {
    // The validation above can fail: a log without `version` is refused.
    let Some(validator) = sarif_validator() else {
        return;
    };
    let (_, out) = check(&fixture("rules/format-bom"), &["--format", "sarif"]);
    let mut log: Value = serde_json::from_str(&out).expect("JSON");
    assert!(validator.is_valid(&log));
    log.as_object_mut().expect("object").remove("version");
    assert!(!validator.is_valid(&log));
}

const DIAGNOSTIC_KEYS: [&str; 9] = [
    "column",
    "end_column",
    "end_line",
    "fixable",
    "line",
    "message",
    "path",
    "rule",
    "severity",
];

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    k.sort_unstable();
    k
}

#[test]
fn json_shape() {
    for dir in [
        "example",
        "precedence",
        "rules/date-relative",
        "rules/frontmatter-unknown-key",
        "rules/format-bom",
        "rules/session-sections",
    ] {
        let (code, out) = check(&fixture(dir), &["--format", "json"]);
        let json: Value = serde_json::from_str(&out).expect("JSON");
        assert_eq!(
            keys(&json),
            vec!["diagnostics", "summary", "version"],
            "{dir}"
        );
        assert_eq!(json["version"], 1);
        assert_eq!(
            keys(&json["summary"]),
            vec!["errors", "files", "warnings"],
            "{dir}"
        );
        let diags = json["diagnostics"].as_array().expect("array");
        let mut errors = 0;
        for d in diags {
            assert_eq!(keys(d), DIAGNOSTIC_KEYS, "{dir}: {d}");
            for k in ["line", "column", "end_line", "end_column"] {
                assert!(d[k].as_u64().is_some_and(|n| n >= 1), "{dir}: {k} in {d}");
            }
            assert!(
                (d["line"].as_u64(), d["column"].as_u64())
                    <= (d["end_line"].as_u64(), d["end_column"].as_u64()),
                "{dir}: end before start in {d}"
            );
            let rule = d["rule"].as_str().expect("rule");
            let registered = memlint::lint::registry::lookup(rule).expect("a registered rule");
            assert_eq!(d["fixable"], registered.rule.fixable(), "{dir}: {rule}");
            let path = d["path"].as_str().expect("path");
            assert!(
                !path.contains('\\') && !path.starts_with('/'),
                "{dir}: {path}"
            );
            match d["severity"].as_str() {
                Some("error") => errors += 1,
                Some("warning") => {}
                other => panic!("{dir}: severity {other:?}"),
            }
        }
        assert_eq!(json["summary"]["errors"], errors, "{dir}");
        assert_eq!(
            json["summary"]["warnings"],
            diags.len() as u64 - errors,
            "{dir}"
        );
        assert_eq!(code, i32::from(errors > 0), "{dir}");
        // Sorted by path, line, column, rule.
        let order: Vec<(String, u64, u64, String)> = diags
            .iter()
            .map(|d| {
                (
                    d["path"].as_str().unwrap_or_default().to_string(),
                    d["line"].as_u64().unwrap_or_default(),
                    d["column"].as_u64().unwrap_or_default(),
                    d["rule"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted, "{dir}: not sorted");
    }
}

#[test]
fn json_snapshot() {
    let (_, out) = check(
        &fixture("rules/frontmatter-unknown-key"),
        &["--format", "json"],
    );
    let json: Value = serde_json::from_str(&out).expect("JSON");
    insta::assert_json_snapshot!("json_frontmatter_unknown_key", json);
}

#[test]
fn human_output_never_sends_control_characters_of_a_file() {
    // A body line with a bell and an escape sequence: shown as symbols,
    // with the marker still under the word it points at.
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(".memlint.yml"), "").expect("write");
    std::fs::create_dir_all(dir.path().join("memory/decisions")).expect("mkdir");
    std::fs::write(
        dir.path().join("memory/decisions/c.md"),
        "---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:.memlint.yml\n---\nB\u{7}\u{1b}[31m decided yesterday.\n",
    )
    .expect("write");
    let (code, out) = check(dir.path(), &["--color", "never"]);
    assert_eq!(code, 0, "a warning only");
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(
        out.contains("B\u{2407}\u{241b}[31m decided yesterday."),
        "{out}"
    );
    // The marker of `date/relative` sits under `yesterday`.
    let lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("decided yesterday"))
        .expect("the body line");
    let col = lines[at][..lines[at].find("yesterday").expect("yesterday")]
        .chars()
        .count();
    let marker: Vec<char> = lines[at + 1].chars().collect();
    assert!(
        matches!(marker.get(col), Some('─' | '┬' | '^')) && marker[col - 1] == ' ',
        "the marker starts under `yesterday`:\n{}\n{}",
        lines[at],
        lines[at + 1]
    );
}

/// Issue 44 item 22: a file too large to read has no excerpt to show; it
/// is still a report like the others (rule, `×`, its place), and it says
/// how to get out of it, naming `max_file_bytes`.
#[test]
fn regression_a_file_too_large_is_reported_like_the_others_with_a_way_out() {
    let (code, out) = check(&fixture("rules/format-too-large"), &["--color", "never"]);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "format/too-large

  × knowledge/huge-record.md:1:1: the file has 962 bytes, more than `max_file_bytes` (512); it was
  │ not read. Shorten it or split it into several records, or raise `max_file_bytes` in
  │ .memlint.yml

Found 1 error and 0 warnings in 1 file.
"
    );
}
