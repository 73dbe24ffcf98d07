//! `.pre-commit-hooks.yaml` for real: `pre-commit try-repo` of this
//! repository against a temporary repository with a broken staged record
//! (the hooks must fail) and with a clean one (they must pass).
//!
//! Needs `pre-commit` (PyPI) on `PATH`; without it the test says so and
//! passes. `language: rust` makes pre-commit `cargo install` this crate:
//! the build goes to `<target>/pre-commit` with an unoptimised release
//! profile, so the dependencies are compiled once and each try-repo only
//! rebuilds memlint itself.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn git(dir: &Path, args: &[&str]) -> Output {
    common::test_identity(Command::new("git").args(args).current_dir(dir))
        .output()
        .expect("run git")
}

fn git_ok(dir: &Path, args: &[&str]) -> String {
    let out = git(dir, args);
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The repository to try: this one when its work tree is committed (as in
/// CI), else a one-commit snapshot of its work tree (tracked and untracked,
/// not ignored files), because try-repo leaves untracked files out.
fn repository_to_try(scratch: &Path) -> PathBuf {
    let here = manifest_dir();
    let top = git(&here, &["rev-parse", "--show-toplevel"]);
    let status = git(&here, &["status", "--porcelain"]);
    let is_top = top.status.success()
        && Path::new(String::from_utf8_lossy(&top.stdout).trim())
            .canonicalize()
            .ok()
            == here.canonicalize().ok();
    if is_top && status.status.success() && status.stdout.is_empty() {
        return here;
    }
    eprintln!("pre-commit test: the work tree has uncommitted changes; trying a snapshot of it");
    let snapshot = scratch.join("memlint-snapshot");
    let files = git_ok(
        &here,
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
    );
    for rel in files.split('\0').filter(|f| !f.is_empty()) {
        let from = here.join(rel);
        if !from.is_file() {
            continue; // deleted in the work tree
        }
        let to = snapshot.join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(&from, &to).expect("copy");
    }
    git_ok(&snapshot, &["init", "-q"]);
    git_ok(&snapshot, &["add", "-A"]);
    git_ok(
        &snapshot,
        &["commit", "-q", "--no-verify", "-m", "snapshot"],
    );
    snapshot
}

/// A repository with `record` staged as a decision.
fn user_repo(dir: &Path, record: &str) {
    std::fs::create_dir_all(dir.join("memory/decisions")).expect("mkdir");
    git_ok(dir, &["init", "-q"]);
    std::fs::write(dir.join("memory/decisions/use-gix.md"), record).expect("write");
    git_ok(dir, &["add", "-A"]);
}

fn try_repo(memlint_repo: &Path, user: &Path, target: &Path) -> Output {
    let mut cmd = Command::new("pre-commit");
    cmd.args([
        "try-repo",
        &memlint_repo.display().to_string(),
        "--verbose",
        "--color",
        "never",
    ])
    .current_dir(user)
    .env("CARGO_TARGET_DIR", target)
    // A quick build: the hooks are tested, not the optimiser.
    .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
    .env("CARGO_PROFILE_RELEASE_LTO", "false")
    .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
    .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
    .env("CARGO_INCREMENTAL", "0")
    .env("PRE_COMMIT_HOME", target.join("home"));
    common::test_identity(&mut cmd)
        .output()
        .expect("run pre-commit")
}

#[test]
fn pre_commit_try_repo_runs_the_hooks() {
    if Command::new("pre-commit")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!(
            "SKIPPED pre_commit_try_repo_runs_the_hooks: `pre-commit` is not on PATH (pip install pre-commit)"
        );
        return;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let memlint_repo = repository_to_try(scratch.path());
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join("target"))
        .join("pre-commit");

    // `pre-commit try-repo` on a fresh repository with one staged record:
    // whether it passed, and everything it printed.
    let attempt = |name: &str, record: &str| {
        let dir = scratch.path().join(name);
        user_repo(&dir, record);
        let out = try_repo(&memlint_repo, &dir, &target);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("pre-commit try-repo, {name} record:\n{text}");
        (out.status.success(), text)
    };

    let (passed, text) = attempt(
        "broken",
        "---\ntitle: [unclosed\nstatus: active\n---\n\nBody.\n",
    );
    assert!(!passed, "a broken staged record passed:\n{text}");
    assert!(text.contains("memlint check"), "{text}");
    assert!(text.contains("frontmatter/parse"), "{text}");
    assert!(text.contains("memory/decisions/use-gix.md"), "{text}");

    let (passed, text) = attempt(
        "clean",
        "---\ntitle: Use gix\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/gix\n---\n\nWe read git through gix.\n",
    );
    assert!(passed, "a clean staged record failed:\n{text}");
    assert!(
        text.contains("memlint check") && text.contains("memlint fmt"),
        "{text}"
    );
    assert!(!text.contains("(no files to check)Skipped"), "{text}");

    // A commit that only deletes a record still runs the check: here the
    // deleted record is the target of another one.
    let dir = scratch.path().join("deletion");
    user_repo(
        &dir,
        "---\ntitle: Use gix\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/gix\n---\n\nWe read git through gix.\n",
    );
    std::fs::write(
        dir.join("memory/decisions/old-way.md"),
        "---\ntitle: Old way\nstatus: replaced\nreplaced_by: use-gix\ndate: 2026-10-01\nsources:\n  - https://example.com/old\n---\n\nSuperseded.\n",
    )
    .expect("write");
    git_ok(&dir, &["add", "-A"]);
    git_ok(&dir, &["commit", "-q", "--no-verify", "-m", "records"]);
    git_ok(&dir, &["rm", "-q", "memory/decisions/use-gix.md"]);
    let out = try_repo(&memlint_repo, &dir, &target);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("pre-commit try-repo, deletion only:\n{text}");
    assert!(!out.status.success(), "a dangling target passed:\n{text}");
    assert!(text.contains("status/dangling-target"), "{text}");
}
