//! The output audit: revision errors of `log` and `check --base` speak
//! plainly.

mod common;

use common::{git, memlint, write};

fn decision(title: &str, extra: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:docs/x.md\n{extra}---\n{body}\n"
    )
}

/// A repository with three commits on `main`, a side branch merged into
/// it, and 600 blobs, enough for two ids sharing their first 4 digits.
fn history() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    for i in 1..=3 {
        write(
            root,
            &format!("memory/decisions/d{i}.md"),
            &decision("D", "", "b"),
        );
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", &format!("c{i}")]);
    }
    git(root, &["checkout", "-q", "-b", "side", "HEAD~1"]);
    write(root, "memory/decisions/s.md", &decision("S", "", "b"));
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "side"]);
    git(root, &["checkout", "-q", "main"]);
    git(root, &["merge", "-q", "--no-edit", "side"]);
    let mut ids = std::collections::HashMap::new();
    let mut ambiguous = None;
    for i in 0..2000 {
        let path = root.join("blob.txt");
        std::fs::write(&path, format!("blob {i}\n")).expect("write");
        let id = git(root, &["hash-object", "-w", "blob.txt"]);
        if let Some(_other) = ids.insert(id[..4].to_string(), id.clone()) {
            ambiguous = Some(id[..4].to_string());
            break;
        }
    }
    std::fs::remove_file(root.join("blob.txt")).expect("remove");
    (dir, ambiguous.expect("two ids share 4 digits"))
}

/// Item 16: `memlint log HEAD~5..` past the first commit printed gix's
/// internals (`delegate.traverse(NthAncestor(5)) failed, input="~5"`).
#[test]
fn log_beyond_the_start_of_history_prints_gix_internals() {
    let (dir, _) = history();
    let run = memlint(dir.path(), &["log", "HEAD~5.."]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "memlint: error: unknown revision `HEAD~5`: `HEAD` has only 3 ancestors\n"
    );
}

/// Item 16, the class: every revision error of `log` and `check --base`
/// is a plain message, exit 2.
#[test]
fn revision_errors_are_plain() {
    let (dir, prefix) = history();
    let root = dir.path();
    let cases: Vec<(Vec<String>, String)> = vec![
        (vec!["log".into(), "HEAD~9..".into()], "unknown revision `HEAD~9`: `HEAD` has only 3 ancestors".into()),
        (vec!["log".into(), "HEAD^2~5..".into()], "unknown revision `HEAD^2~5`: `HEAD^2` has only 2 ancestors".into()),
        (vec!["log".into(), "HEAD^3..".into()], "unknown revision `HEAD^3`: `HEAD` has only 2 parents".into()),
        (vec!["log".into(), "HEAD~3^2..".into()], "unknown revision `HEAD~3^2`: `HEAD~3` has no parent (it is the first commit of its history)".into()),
        (vec!["log".into(), "HEAD~5".into()], "`HEAD~5` is neither a record (a path inside the workspace or a slug) nor a revision: `HEAD` has only 3 ancestors".into()),
        (vec!["log".into(), "nosuch..".into()], "unknown revision `nosuch`: no branch, tag or commit is named `nosuch`".into()),
        (vec!["log".into(), "mian..HEAD".into()], "unknown revision `mian`: no branch, tag or commit is named `mian` (did you mean `main`?)".into()),
        (vec!["log".into(), format!("{prefix}..")], format!("unknown revision `{prefix}`: `{prefix}` is ambiguous: 2 objects have ids starting with it; give more digits")),
        (vec!["log".into(), "a..b..c".into()], "`a..b..c` is not a range: write `A..B` (the commits of B not in A) or `A...B` (of either, not both)".into()),
        (vec!["log".into(), "HEAD...nosuch".into()], "unknown revision `nosuch`: no branch, tag or commit is named `nosuch`".into()),
        (vec!["log".into(), "HEAD~x..".into()], "unknown revision `HEAD~x`: it does not name a commit of this repository (memlint reads branch and tag names, commit ids of 4 to 40 hex digits, HEAD, and `~N` or `^N` after them)".into()),
        (vec!["log".into(), "@{upstream}..".into()], "unknown revision `@{upstream}`: `HEAD` has no upstream branch that memlint can find".into()),
        (vec!["check".into(), "--base".into(), "HEAD~4".into()], "unknown revision `HEAD~4`: `HEAD` has only 3 ancestors".into()),
        (vec!["check".into(), "--base".into(), "nosuch".into()], "unknown revision `nosuch`: no branch, tag or commit is named `nosuch`".into()),
        (vec!["check".into(), "--base".into(), prefix.clone()], format!("unknown revision `{prefix}`: `{prefix}` is ambiguous: 2 objects have ids starting with it; give more digits")),
        (vec!["check".into(), "--base".into(), "main..HEAD".into()], "unknown revision `main..HEAD`: a range is not a revision here: give one commit".into()),
        (vec!["check".into(), "--base".into(), "HEAD^{tree}".into()], "unknown revision `HEAD^{tree}` (it does not name a commit)".into()),
    ];
    for (args, message) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = memlint(root, &args);
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (2, "", format!("memlint: error: {message}\n").as_str()),
            "{args:?}"
        );
    }
    // An empty repository.
    let empty = tempfile::tempdir().expect("tempdir");
    git(empty.path(), &["init", "-q", "-b", "main"]);
    write(
        empty.path(),
        "memory/decisions/d.md",
        &decision("D", "", "b"),
    );
    for (args, message) in [
        (
            &["log", "HEAD~1.."][..],
            "unknown revision `HEAD~1..` (the repository has no commits yet)",
        ),
        (
            &["check", "--base", "main"][..],
            "the repository has no commits yet; `check --base` needs at least one commit",
        ),
    ] {
        let run = memlint(empty.path(), args);
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (2, format!("memlint: error: {message}\n").as_str()),
            "{args:?}"
        );
    }
}
