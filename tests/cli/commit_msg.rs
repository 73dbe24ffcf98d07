//! The commit-msg hook `memlint init --hooks` installs: a real `git commit`
//! that removes a record without a `Memlint-GC:` trailer naming it is
//! stopped before it is a commit; with the trailer it goes through.

use crate::common;

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

/// Issue 44 item 17: trailers are read as git reads them (the last
/// paragraph, never the subject, comment lines left out), and each must
/// say what the commit does: its `into` target is in the commit, `drop`
/// and `merge` name a record it removes, `trim` and `rewrite` one it
/// keeps. Anything else stops the commit with the reason.
#[test]
fn commit_msg_trailers_must_be_trailers_and_match_the_commit() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    ok(&root, "git", &["init", "-q", "-b", "main"]);
    ok(&root, BIN, &["init"]);
    fs::write(root.join("knowledge/old-limits.md"), RECORD).expect("write");
    fs::write(root.join("knowledge/bank-api-rate-limits.md"), RECORD).expect("write");
    ok(&root, "git", &["add", "-A"]);
    ok(&root, "git", &["commit", "-q", "--no-verify", "-m", "base"]);
    ok(&root, "git", &["rm", "-q", "knowledge/old-limits.md"]);
    let check = |message: &str| {
        fs::write(root.join("MSG"), message).expect("write");
        let out = run(
            &root,
            BIN,
            &[
                "check",
                "--staged",
                "--commit-msg",
                "MSG",
                "--color",
                "never",
            ],
        );
        (
            out.status.code().expect("exit code"),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let refused = |message: &str, why: &str| {
        let (code, out, err) = check(message);
        assert_eq!(code, 1, "{message:?}: {out}{err}");
        assert!(err.starts_with("memlint: error: "), "{message:?}: {err}");
        assert!(err.contains(why), "{message:?}: {err}");
    };
    let stopped = "does not match the commit: ";
    refused(
        "Merge\n\nMemlint-GC: merge knowledge/old-limits into knowledge/nonexistent superseded\n",
        &format!("{stopped}`knowledge/nonexistent` is not in this commit (there is no knowledge/nonexistent.md), so nothing went into it"),
    );
    refused(
        "Merge\n\nMemlint-GC: merge knowledge/old-limits into knowledge/old-limits superseded\n",
        "names the same record twice: a record cannot go into itself",
    );
    refused(
        "Trim\n\nMemlint-GC: trim knowledge/old-limits noisy\n",
        &format!(
            "{stopped}this commit removes `knowledge/old-limits`, but `trim` keeps the record"
        ),
    );
    refused(
        "Drop\n\nMemlint-GC: drop knowledge/old-limits outdated\nMemlint-GC: drop knowledge/bank-api-rate-limits outdated\n",
        &format!("{stopped}`knowledge/bank-api-rate-limits` is still in this commit"),
    );
    refused(
        "Memlint-GC: drop knowledge/old-limits outdated\n",
        "it is the subject line, and git reads trailers only from the last paragraph",
    );
    refused(
        "Drop\n\nMemlint-GC: drop knowledge/old-limits outdated\n\nThe limits moved to the bank API record.\n",
        "it is not in the message's last paragraph, where git reads trailers",
    );
    // The removal is unexplained too: the refused trailer explains nothing.
    let (_, out, _) = check("Trim\n\nMemlint-GC: trim knowledge/old-limits noisy\n");
    assert!(out.contains("history/unexplained-removal"), "{out}");

    // As git reads them: the last paragraph, with other trailers, and the
    // comment lines git's editor template adds are no paragraph.
    for message in [
        "Drop\n\nMemlint-GC: drop knowledge/old-limits outdated\n",
        "Merge\n\nThe limits live in one record now.\n\nMemlint-GC: merge knowledge/old-limits into knowledge/bank-api-rate-limits superseded\nSigned-off-by: A <a@example.com>\n",
        "Drop\n\nMemlint-GC: drop knowledge/old-limits outdated\n\n# Please enter the commit message for your changes. Lines starting\n# with '#' will be ignored.\n#\n# ------------------------ >8 ------------------------\n\nNot: a trailer\n",
    ] {
        assert_eq!(check(message), (0, String::new(), String::new()), "{message:?}");
    }
}

/// A plain `git merge` of a branch whose own commit removed a record with
/// a `Memlint-GC:` trailer is not stopped by the commit-msg hook: the
/// merged side's trailers explain its removals. A removal the merge itself
/// makes still needs the merge message's trailer.
#[test]
fn merging_a_branch_whose_commit_explains_a_removal_goes_through() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    ok(&root, "git", &["init", "-q", "-b", "master"]);
    ok(&root, BIN, &["init", "--hooks"]);
    for name in ["aaa-one", "bbb-two", "ccc-three"] {
        fs::write(root.join(format!("knowledge/{name}.md")), RECORD).expect("write");
    }
    ok(&root, "git", &["add", "-A"]);
    ok(&root, "git", &["commit", "-q", "-m", "base"]);
    ok(&root, "git", &["checkout", "-q", "-b", "feat"]);
    ok(&root, "git", &["rm", "-q", "knowledge/bbb-two.md"]);
    let message = "Drop bbb\n\nMemlint-GC: drop knowledge/bbb-two outdated\n";
    ok(&root, "git", &["commit", "-q", "-m", message]);
    ok(&root, "git", &["checkout", "-q", "master"]);
    fs::write(root.join("notes.txt"), "other work\n").expect("write");
    ok(&root, "git", &["add", "notes.txt"]);
    ok(&root, "git", &["commit", "-q", "-m", "other work"]);

    let out = run(&root, "git", &["merge", "--no-edit", "feat"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("history/unexplained-removal"), "{said}");
    let parents = ok(&root, "git", &["log", "-1", "--format=%P"]);
    assert_eq!(parents.split_whitespace().count(), 2, "{parents}");
    assert!(!root.join("knowledge/bbb-two.md").exists());

    // The merge itself removing another record needs its own trailer.
    ok(&root, "git", &["checkout", "-q", "-b", "more", "HEAD~1"]);
    fs::write(root.join("more.txt"), "more\n").expect("write");
    ok(&root, "git", &["add", "more.txt"]);
    ok(&root, "git", &["commit", "-q", "-m", "more"]);
    ok(&root, "git", &["checkout", "-q", "master"]);
    ok(&root, "git", &["merge", "-q", "--no-commit", "more"]);
    ok(&root, "git", &["rm", "-q", "knowledge/ccc-three.md"]);
    let out = run(&root, "git", &["commit", "-q", "--no-edit"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("`knowledge/ccc-three.md` was removed since"),
        "{said}"
    );
    assert!(!said.contains("bbb-two"), "{said}");
    let message = "Merge more\n\nMemlint-GC: drop knowledge/ccc-three outdated\n";
    ok(&root, "git", &["commit", "-q", "-m", message]);
    let parents = ok(&root, "git", &["log", "-1", "--format=%P"]);
    assert_eq!(parents.split_whitespace().count(), 2, "{parents}");
}

/// A malformed trailer in the message being committed is blamed on that
/// message, not on HEAD, and the form it suggests is one that is accepted.
#[test]
fn a_malformed_trailer_of_the_message_is_blamed_on_it_and_its_fix_is_accepted() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    ok(&root, "git", &["init", "-q", "-b", "main"]);
    ok(&root, BIN, &["init"]);
    fs::write(root.join("knowledge/aaa-one.md"), RECORD).expect("write");
    ok(&root, "git", &["add", "-A"]);
    ok(&root, "git", &["commit", "-q", "--no-verify", "-m", "base"]);
    let head = ok(&root, "git", &["rev-parse", "--short=7", "HEAD"]);
    ok(&root, "git", &["rm", "-q", "knowledge/aaa-one.md"]);
    let check = |message: &str| {
        fs::write(root.join("MSG"), message).expect("write");
        let out = run(
            &root,
            BIN,
            &[
                "check",
                "--staged",
                "--commit-msg",
                "MSG",
                "--color",
                "never",
            ],
        );
        (
            out.status.code().expect("exit code"),
            // The human report wraps long messages: compared as words.
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
            .replace('│', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        )
    };
    let (code, said) = check("Drop\n\nMemlint-GC: drop ./knowledge/aaa-one.md outdated\n");
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("(the commit message has a malformed trailer naming it: `./knowledge/aaa-one.md`: name the record without `.md` (`knowledge/aaa-one`))"),
        "{said}"
    );
    assert!(!said.contains(&format!("commit {}", head.trim())), "{said}");
    let (code, said) = check("Drop\n\nMemlint-GC: drop ./knowledge/aaa-one outdated\n");
    assert_eq!(code, 1, "{said}");
    assert!(
        said.contains("`./knowledge/aaa-one`: name the record relative to the workspace root, without `./` (`knowledge/aaa-one`)"),
        "{said}"
    );
    assert_eq!(
        check("Drop\n\nMemlint-GC: drop knowledge/aaa-one outdated\n"),
        (0, String::new())
    );
}
