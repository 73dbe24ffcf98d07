//! The commit-msg hook `memlint init --hooks` installs: a real `git commit`
//! that removes a record without a `Memlint-GC:` trailer naming it is
//! stopped before it is a commit; with the trailer it goes through.

mod common;

use common::{ok_on_path as ok, run_on_path as run, BIN};
use std::fs;

const RECORD: &str = "---\ntitle: Bank API rate limits\ndescription: The bank API allows 60 requests per minute per token.\nmodel_invocation: false\ndate: 2026-11-02\nsources:\n  - https://www.rfc-editor.org/rfc/rfc9110#name-retry-after\n---\n\nThe limit is per token.\n";

#[test]
fn a_commit_removing_a_record_needs_a_trailer_naming_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    ok(&root, "git", &["init", "-q", "-b", "main"]);
    let said = ok(&root, BIN, &["init", "--hooks"]);
    assert!(said.contains("wrote .githooks/commit-msg"), "{said}");
    fs::write(root.join("knowledge/bank-api-rate-limits.md"), RECORD).expect("write");
    ok(&root, "git", &["add", "-A"]);
    ok(&root, "git", &["commit", "-q", "-m", "Add the rate limits"]);

    ok(
        &root,
        "git",
        &["rm", "-q", "knowledge/bank-api-rate-limits.md"],
    );
    let out = run(&root, "git", &["commit", "-q", "-m", "Remove old notes"]);
    assert!(!out.status.success());
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("history/unexplained-removal"), "{said}");
    assert!(
        said.contains("`knowledge/bank-api-rate-limits.md` was removed since"),
        "{said}"
    );
    assert!(
        said.contains("memlint commit-msg: commit stopped"),
        "{said}"
    );
    assert_eq!(
        ok(&root, "git", &["rev-list", "--count", "HEAD"]).trim(),
        "1"
    );

    let message = "Remove old notes\n\nMemlint-GC: drop knowledge/bank-api-rate-limits outdated\n";
    ok(&root, "git", &["commit", "-q", "-m", message]);
    assert_eq!(
        ok(&root, "git", &["rev-list", "--count", "HEAD"]).trim(),
        "2"
    );
}

#[test]
fn check_staged_commit_msg_reports_only_history_rules_and_reads_the_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    ok(&root, "git", &["init", "-q", "-b", "main"]);
    ok(&root, BIN, &["init"]);
    fs::write(root.join("knowledge/bank-api-rate-limits.md"), RECORD).expect("write");
    // A record with a finding of its own, which the pre-commit hook reports.
    fs::write(root.join("knowledge/broken.md"), "no front matter\n").expect("write");
    ok(&root, "git", &["add", "-A"]);
    ok(&root, "git", &["commit", "-q", "--no-verify", "-m", "base"]);
    ok(
        &root,
        "git",
        &["rm", "-q", "knowledge/bank-api-rate-limits.md"],
    );
    fs::write(
        root.join("MSG"),
        "Tidy up\n\nMemlint-GC: drop knowledge/nothing-here\n",
    )
    .expect("write");
    let out = run(
        &root,
        BIN,
        &[
            "check",
            "--staged",
            "--commit-msg",
            "MSG",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let rules: Vec<&str> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["rule"].as_str().expect("rule"))
        .collect();
    assert_eq!(rules, ["history/unexplained-removal"]);
    let warned = String::from_utf8_lossy(&out.stderr);
    assert!(
        warned.contains("malformed `Memlint-GC:` trailer"),
        "{warned}"
    );
    let missing = run(&root, BIN, &["check", "--staged", "--commit-msg", "NOPE"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read NOPE"));
}

/// Issue 44 item 22: the git hooks say nothing on a commit of code only,
/// and a commit of records gets one count line (pre-commit's), not a
/// second one from the commit-msg hook.
#[test]
fn the_git_hooks_are_quiet_when_there_is_nothing_to_check() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    ok(&root, "git", &["init", "-q", "-b", "main"]);
    ok(&root, BIN, &["init", "--hooks"]);
    ok(&root, "git", &["add", "-A"]);
    ok(&root, "git", &["commit", "-q", "-m", "Set up memory"]);
    let said = |out: &std::process::Output| {
        assert!(out.status.success(), "{out:?}");
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };
    fs::write(root.join("main.rs"), "fn main() {}\n").expect("write");
    ok(&root, "git", &["add", "main.rs"]);
    let out = run(&root, "git", &["commit", "-q", "-m", "Code only"]);
    assert_eq!(said(&out), "");

    fs::write(root.join("knowledge/bank-api-rate-limits.md"), RECORD).expect("write");
    ok(&root, "git", &["add", "-A"]);
    let out = run(&root, "git", &["commit", "-q", "-m", "Add the rate limits"]);
    assert_eq!(said(&out), "No problems in 1 file.\n");
}
