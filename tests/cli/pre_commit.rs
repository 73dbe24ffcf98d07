//! `.pre-commit-hooks.yaml` for real: `pre-commit try-repo` of this
//! repository against a temporary repository with a broken staged record
//! (the hooks must fail) and with a clean one (they must pass).
//!
//! Needs `pre-commit` (PyPI) on `PATH`; without it the tests say so and
//! pass. The `language: python` hooks are tried with no cargo on PATH:
//! pre-commit installs pyproject.toml, whose dependency, the memlint-cli
//! wheel, is built first by maturin and offered to pip as a find-links
//! directory, standing in for PyPI. `language: rust` (the `-rust` ids)
//! makes pre-commit `cargo install` this crate:
//! the build goes to `<target>/pre-commit` with an unoptimised release
//! profile, so the dependencies are compiled once and each try-repo only
//! rebuilds memlint itself.

use crate::common;

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

/// `pre-commit try-repo MEMLINT_REPO HOOK` in `user` (a quick build: the
/// hooks are tested, not the optimiser).
fn try_repo(memlint_repo: &Path, user: &Path, hook: &str) -> Output {
    let mut cmd = Command::new("pre-commit");
    cmd.args(["try-repo", &memlint_repo.display().to_string(), hook]);
    cmd.args(["--verbose", "--color", "never"])
        .current_dir(user);
    common::test_identity(common::quick_release_build(&mut cmd))
        .output()
        .expect("run pre-commit")
}

/// Both outputs of a run, for messages and searches.
fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn pre_commit_try_repo_runs_the_hooks() {
    let _one_at_a_time = common::packaging_lock();
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

    // `pre-commit try-repo` of the `language: rust` hooks on a fresh
    // repository with one staged record: whether both passed, and
    // everything they printed.
    let attempt = |name: &str, record: &str| {
        let dir = scratch.path().join(name);
        user_repo(&dir, record);
        let mut passed = true;
        let mut all = String::new();
        for hook in ["memlint-check-rust", "memlint-fmt-rust"] {
            let out = try_repo(&memlint_repo, &dir, hook);
            eprintln!("pre-commit try-repo {hook}, {name} record:\n{}", text(&out));
            passed &= out.status.success();
            all.push_str(&text(&out));
        }
        (passed, all)
    };

    let (passed, said) = attempt(
        "broken",
        "---\ntitle: [unclosed\nstatus: active\n---\n\nBody.\n",
    );
    assert!(!passed, "a broken staged record passed:\n{said}");
    assert!(said.contains("memlint check"), "{said}");
    assert!(said.contains("frontmatter/parse"), "{said}");
    assert!(said.contains("memory/decisions/use-gix.md"), "{said}");

    let (passed, said) = attempt(
        "clean",
        "---\ntitle: Use gix\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/gix\n---\n\nWe read git through gix.\n",
    );
    assert!(passed, "a clean staged record failed:\n{said}");
    assert!(
        said.contains("memlint check") && said.contains("memlint fmt"),
        "{said}"
    );
    assert!(!said.contains("(no files to check)Skipped"), "{said}");

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
    let out = try_repo(&memlint_repo, &dir, "memlint-check-rust");
    let said = text(&out);
    eprintln!("pre-commit try-repo, deletion only:\n{said}");
    assert!(!out.status.success(), "a dangling target passed:\n{said}");
    assert!(said.contains("status/dangling-target"), "{said}");
}

/// The Python interpreter (its real path, not a shim) that has pre-commit.
fn python_with_pre_commit() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args(["-c", "import sys, pre_commit; print(sys.executable)"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// The directory holding `program` on the current PATH.
fn dir_of(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find(|d| d.join(program).is_file())
}

#[test]
fn pre_commit_python_hooks_run_without_cargo() {
    let _one_at_a_time = common::packaging_lock();
    let test = "pre_commit_python_hooks_run_without_cargo";
    if common::packaging_tests_skipped(test) {
        return;
    }
    let Some(python) = python_with_pre_commit() else {
        eprintln!(
            "SKIPPED {test}: pre-commit is not installed (python3 -m pip install pre-commit)"
        );
        return;
    };
    let scratch = tempfile::tempdir().expect("tempdir");
    let wheels = scratch.path().join("wheels");
    if common::build_wheel(&wheels).is_none() {
        eprintln!("SKIPPED {test}: maturin is not installed (python3 -m pip install maturin)");
        return;
    }
    let memlint_repo = repository_to_try(scratch.path());

    // PATH: this Python, git and the system directories; no cargo, no rustup.
    let mut dirs = vec![python.parent().expect("python dir").to_path_buf()];
    dirs.extend(dir_of("git"));
    dirs.extend(["/usr/local/bin", "/usr/bin", "/bin"].map(PathBuf::from));
    assert!(
        dirs.iter().all(|d| !d.join("cargo").exists()),
        "cargo is in one of {dirs:?}: the test would not show a build without it"
    );
    let path = std::env::join_paths(&dirs).expect("PATH");
    let started = std::time::Instant::now();
    let run = |dir: &Path, args: &[&str]| {
        let mut cmd = Command::new(&python);
        cmd.args(["-m", "pre_commit", "try-repo"])
            .arg(&memlint_repo)
            .args(args)
            .args(["--verbose", "--color", "never"])
            .current_dir(dir)
            .env("PATH", &path)
            .env_remove("CARGO")
            .env_remove("RUSTUP_TOOLCHAIN")
            // maturin would fetch a Rust toolchain: nothing may be built.
            .env("MATURIN_NO_INSTALL_RUST", "1")
            .env("PIP_FIND_LINKS", &wheels)
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
        let out = common::test_identity(common::quick_release_build(&mut cmd))
            .output()
            .expect("run pre-commit");
        eprintln!(
            "pre-commit try-repo {args:?} in {}:\n{}",
            dir.display(),
            text(&out)
        );
        out
    };

    let broken = scratch.path().join("broken");
    user_repo(
        &broken,
        "---\ntitle: [unclosed\nstatus: active\n---\n\nBody.\n",
    );
    let out = run(&broken, &["memlint-check"]);
    assert!(!out.status.success(), "a broken staged record passed");
    let said = text(&out);
    assert!(
        said.contains("memlint check") && said.contains("Failed"),
        "{said}"
    );
    assert!(said.contains("frontmatter/parse"), "{said}");
    assert!(said.contains("memory/decisions/use-gix.md"), "{said}");
    assert!(
        !said.contains("Compiling"),
        "something was compiled:\n{said}"
    );

    let clean = scratch.path().join("clean");
    user_repo(
        &clean,
        "---\ntitle: Use gix\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/gix\n---\n\nWe read git through gix.\n",
    );
    for hook in ["memlint-check", "memlint-fmt"] {
        let out = run(&clean, &[hook]);
        assert!(
            out.status.success(),
            "{hook} failed on a clean record:\n{}",
            text(&out)
        );
        assert!(text(&out).contains("Passed"), "{}", text(&out));
    }

    // The whole-workspace hook, as `pre-commit run --all-files` runs it: the
    // broken record committed, nothing staged.
    git_ok(&broken, &["commit", "-q", "--no-verify", "-m", "broken"]);
    let out = run(&broken, &["memlint-check-all", "--all-files"]);
    assert!(
        !out.status.success(),
        "memlint-check-all passed a broken record"
    );
    assert!(
        text(&out).contains("memlint check (whole workspace)"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("frontmatter/parse"), "{}", text(&out));
    eprintln!("python hooks tried in {:.1?}", started.elapsed());
}
