//! `secrets/detected` names each credential by a fingerprint, and
//! `secrets.allow` in `.memlint.yml` lets a documented example key stay;
//! the secret itself is never accepted there, nor printed.

mod common;

use common::{memlint, write};

const RECORD: &str = "---\ntitle: AWS example credentials\ndescription: The key id AWS documents for examples.\nmodel_invocation: false\ndate: 2026-11-02\nsources:\n  - https://docs.aws.amazon.com/IAM/latest/UserGuide/security-creds.html\n---\n\nThe documented example key id is AKIAIOSFODNN7EXAMPLE.\n";

#[test]
fn an_allowed_fingerprint_silences_that_credential_only() {
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    memlint(root, &["init"]);
    write(root, "knowledge/aws-example-credentials.md", RECORD);
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(!run.stdout.contains("IOSFODNN7EXAMPLE"), "{}", run.stdout);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let message = json["diagnostics"][0]["message"].as_str().expect("message");
    let print = message
        .split("(fingerprint ")
        .nth(1)
        .and_then(|r| r.get(..12))
        .expect("a fingerprint")
        .to_string();
    assert!(print.bytes().all(|b| b.is_ascii_hexdigit()), "{print}");
    let config = std::fs::read_to_string(root.join(".memlint.yml")).expect("config");
    write(
        root,
        ".memlint.yml",
        &format!("{config}\nsecrets:\n  allow: [{print}]\n"),
    );
    let run = memlint(root, &["check"]);
    assert_eq!(run.code, 0, "{run:?}");
    // Another credential in the same record is still reported.
    write(
        root,
        "knowledge/aws-example-credentials.md",
        &RECORD.replace(
            "EXAMPLE.\n",
            "EXAMPLE.\nAnd ghp_abcdefghijklmnopqrstuvwxyz0123456789 is not.\n",
        ),
    );
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("a GitHub token"), "{}", run.stdout);
    assert!(!run.stdout.contains("AWS access key"), "{}", run.stdout);
}

#[test]
fn the_secret_itself_is_refused_in_the_allow_list() {
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    memlint(root, &["init"]);
    write(
        root,
        ".memlint.yml",
        "secrets:\n  allow: [AKIAIOSFODNN7EXAMPLE]\n",
    );
    let run = memlint(root, &["check"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("`secrets.allow` entry") && run.stderr.contains("is not a fingerprint"),
        "{}",
        run.stderr
    );
}

#[test]
fn files_where_no_record_belongs_are_checked_for_secrets_too() {
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    common::git(root, &["init", "-q", "-b", "main"]);
    memlint(root, &["init"]);
    write(
        root,
        "knowledge/sub/notes.md",
        "notes\nthe key is AKIAIOSFODNN7EXAMPLE\n",
    );
    write(
        root,
        "memory/workflow/plan.md",
        "x\npassword: Xk9fQ2mLp8Rt4vWz7\n",
    );
    let rules = |run: &common::Run| -> Vec<(String, String, u64)> {
        let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
        json["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| {
                (
                    d["path"].as_str().unwrap_or_default().to_string(),
                    d["rule"].as_str().unwrap_or_default().to_string(),
                    d["line"].as_u64().unwrap_or_default(),
                )
            })
            .collect()
    };
    let want = vec![
        (
            "knowledge/sub/notes.md".to_string(),
            "layout/unknown-file".to_string(),
            1,
        ),
        (
            "knowledge/sub/notes.md".to_string(),
            "secrets/detected".to_string(),
            2,
        ),
        (
            "memory/workflow/plan.md".to_string(),
            "layout/banned-dir".to_string(),
            1,
        ),
        (
            "memory/workflow/plan.md".to_string(),
            "secrets/detected".to_string(),
            2,
        ),
    ];
    let run = memlint(root, &["check", "--format", "json"]);
    assert_eq!(run.code, 1);
    assert_eq!(rules(&run), want);
    assert!(!run.stdout.contains("IOSFODNN7EXAMPLE") && !run.stdout.contains("Xk9fQ2mLp8Rt4vWz7"));
    // The same from the git index, as the pre-commit hook sees it.
    common::git(root, &["add", "-A"]);
    let staged = memlint(root, &["check", "--staged", "--format", "json"]);
    assert_eq!(rules(&staged), want);
    // And the human report shows the line masked.
    let human = memlint(root, &["check"]);
    assert!(human.stdout.contains("the key is AKIA"), "{}", human.stdout);
    assert!(
        !human.stdout.contains("IOSFODNN7EXAMPLE"),
        "{}",
        human.stdout
    );
}

#[test]
fn a_record_whose_front_matter_cannot_be_read_is_checked_for_secrets() {
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    memlint(root, &["init"]);
    write(
        root,
        "knowledge/plain.md",
        "no front matter\nkey AKIAIOSFODNN7EXAMPLE\n",
    );
    write(
        root,
        "knowledge/broken.md",
        "---\ntitle: [broken\n---\nkey AKIAIOSFODNN7EXAMPLE\n",
    );
    let run = memlint(root, &["check", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let found: Vec<(&str, &str)> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or(""),
                d["rule"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("knowledge/broken.md", "frontmatter/parse"),
            ("knowledge/broken.md", "secrets/detected"),
            ("knowledge/plain.md", "frontmatter/missing"),
            ("knowledge/plain.md", "secrets/detected"),
        ]
    );
    assert!(!run.stdout.contains("IOSFODNN7EXAMPLE"));
}
