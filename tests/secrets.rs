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
