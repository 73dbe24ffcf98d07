//! `secrets/detected` names each credential by a fingerprint, and
//! `secrets.allow` in `.memlint.yml` lets a documented example key stay;
//! the secret itself is never accepted there, nor printed.

use crate::common;

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
    let entry = allow_entry(message);
    assert!(
        entry.starts_with("knowledge/aws-example-credentials.md:"),
        "{entry}"
    );
    let config = std::fs::read_to_string(root.join(".memlint.yml")).expect("config");
    write(
        root,
        ".memlint.yml",
        &format!("{config}\nsecrets:\n  allow: [{entry}]\n"),
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
        run.stderr.contains("`secrets.allow` entry")
            && run.stderr.contains("is not an allow entry"),
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

/// The `secrets.allow` entry a `secrets/detected` message names (its
/// bare fingerprint when it names no entry).
fn allow_entry(message: &str) -> String {
    let named = message
        .split("add `")
        .nth(1)
        .and_then(|r| r.split('`').next());
    let bare = || {
        message
            .split("(fingerprint ")
            .nth(1)
            .and_then(|r| r.split(')').next())
    };
    named.or_else(bare).expect("an allow entry").to_string()
}

/// The `secrets/detected` messages of `memlint check --format json`.
fn secret_messages(root: &std::path::Path) -> Vec<String> {
    let run = memlint(root, &["check", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "secrets/detected")
        .map(|d| d["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

const KEYS: &str = "---\ntitle: Deploy keys\ndescription: Two keys.\nmodel_invocation: false\ndate: 2026-11-02\nsources:\n  - https://example.com/keys\n---\n\nThe sandbox key:\n\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAsandboxSANDBOX0123456789abcdef\n-----END RSA PRIVATE KEY-----\n\nThe production key:\n\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAproductionPROD9876543210fedcba\n-----END RSA PRIVATE KEY-----\n";

/// Issue 44, item 3: a private key was fingerprinted by its `BEGIN` line
/// alone, so allowing one RSA key allowed every RSA key.
#[test]
fn allowing_one_private_key_does_not_allow_another() {
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    memlint(root, &["init"]);
    write(root, "knowledge/deploy-keys.md", KEYS);
    let found = secret_messages(root);
    assert_eq!(found.len(), 2, "{found:?}");
    let (first, second) = (allow_entry(&found[0]), allow_entry(&found[1]));
    assert_ne!(first, second);
    write(
        root,
        ".memlint.yml",
        &format!("secrets:\n  allow: [{first}]\n"),
    );
    let left = secret_messages(root);
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(allow_entry(&left[0]), second);
    // Re-wrapping or re-indenting the allowed key keeps it the same key.
    write(
        root,
        "knowledge/deploy-keys.md",
        &KEYS.replace(
            "MIIEpAIBAAKCAQEAsandboxSANDBOX0123456789abcdef\n",
            "MIIEpAIBAAKCAQEAsandbox\n  SANDBOX0123456789abcdef\n",
        ),
    );
    assert_eq!(secret_messages(root), left);
}

/// Issue 44, item 4: the printed fingerprint was 12 hex digits of a fast
/// unsalted hash of the value, so a reader of a CI log could confirm a
/// guessed secret offline. Now: 4 hex digits of a SHA-256 keyed by the
/// file's path and hashed again 16384 times, in an entry that names the
/// file; it survives unrelated edits, and old entries keep working but
/// for private keys.
#[test]
fn fingerprints_are_short_slow_keyed_and_stable() {
    use sha2::{Digest, Sha256};
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    memlint(root, &["init"]);
    let path = "knowledge/aws-example-credentials.md";
    write(root, path, RECORD);
    let found = secret_messages(root);
    assert_eq!(found.len(), 1, "{found:?}");
    let entry = allow_entry(&found[0]);
    // Computed independently: what a reader needs to check one guess.
    let guess = "AKIAIOSFODNN7EXAMPLE";
    let mut h = Sha256::new();
    h.update(b"memlint secrets.allow v2\0");
    h.update(path.as_bytes());
    h.update([0u8]);
    h.update(guess.as_bytes());
    let mut d = [0u8; 32];
    d.copy_from_slice(&h.finalize());
    for _ in 0..16384 {
        let next = Sha256::digest(d);
        d.copy_from_slice(&next);
    }
    assert_eq!(entry, format!("{path}:{:02x}{:02x}", d[0], d[1]));
    assert!(found[0].contains(&format!("(fingerprint {:02x}{:02x})", d[0], d[1])));
    // The same value in another file has its own fingerprint.
    write(
        root,
        "knowledge/other.md",
        &RECORD.replace("AWS example", "Other"),
    );
    let both = secret_messages(root);
    assert_eq!(both.len(), 2);
    let other = allow_entry(&both[1]);
    assert!(other.starts_with("knowledge/other.md:"), "{other}");
    assert_ne!(other.rsplit(':').next(), entry.rsplit(':').next());
    std::fs::remove_file(root.join("knowledge/other.md")).expect("remove");
    // Unrelated edits of the file keep the entry valid.
    write(
        root,
        ".memlint.yml",
        &format!("secrets:\n  allow:\n    - {entry}\n"),
    );
    write(
        root,
        path,
        &RECORD
            .replace("AWS example credentials", "AWS documented example key")
            .replace(
                "\n\nThe documented",
                "\n\nA new first paragraph.\n\nThe documented",
            ),
    );
    assert_eq!(secret_messages(root), Vec::<String>::new());
    // Another value at the very same place is reported.
    write(
        root,
        path,
        &RECORD.replace("AKIAIOSFODNN7EXAMPLE", "AKIAQWERTYUIOPASDFGH"),
    );
    assert_eq!(secret_messages(root).len(), 1);
    // An entry of an earlier version (12 hex digits of the value's xxh3)
    // still allows its token, never a private key (its old fingerprint
    // was the `BEGIN` line's, the same for every key).
    let old = |s: &str| format!("{:012x}", xxhash_rust::xxh3::xxh3_64(s.as_bytes()) >> 16);
    write(root, path, RECORD);
    write(
        root,
        "knowledge/deploy-keys.md",
        KEYS.split("\nThe production").next().expect("first key"),
    );
    write(
        root,
        ".memlint.yml",
        &format!(
            "secrets:\n  allow: ['{}', '{}']\n",
            old(guess),
            old("-----BEGIN RSA PRIVATE KEY-----")
        ),
    );
    let left = secret_messages(root);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].contains("private key"), "{left:?}");
    assert!(
        left[0].contains(&format!(
            "the entry `{}` no longer allows it",
            old("-----BEGIN RSA PRIVATE KEY-----")
        )),
        "{left:?}"
    );
}
