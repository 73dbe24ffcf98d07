//! The git modes end to end: `check --staged`, `check --base`, `log` and
//! `init --hooks` on real repositories built in temporary directories. `git`
//! only sets the repositories up; memlint always runs with `PATH` emptied, so
//! any attempt of memlint to run `git` would fail these tests.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_memlint");

/// What one run of memlint gave.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// (rule, path, line) of every diagnostic of `--format json` output.
    fn found(&self) -> Vec<(String, String, u64)> {
        self.json()["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| {
                (
                    d["rule"].as_str().expect("rule").to_string(),
                    d["path"].as_str().expect("path").to_string(),
                    d["line"].as_u64().expect("line"),
                )
            })
            .collect()
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs memlint in `dir` with no `PATH`: it must never need the `git` program.
fn memlint(dir: &Path, args: &[&str]) -> Run {
    let out = common::Memlint::new(dir)
        .args(args)
        .env("PATH", "")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A repository in a temporary directory, driven with `git` for set-up.
struct Repo {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    /// Commits get increasing, fixed dates.
    clock: std::cell::Cell<u32>,
}

impl Repo {
    fn new() -> Repo {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().canonicalize().expect("canonical");
        let repo = Repo {
            _tmp: tmp,
            root,
            clock: std::cell::Cell::new(0),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    fn git_in(&self, dir: &Path, args: &[&str]) -> String {
        let n = self.clock.get();
        let date = format!("2026-11-{:02}T10:{:02}:00+09:00", 1 + n / 50, n % 50);
        common::git_with(
            dir,
            args,
            &[("GIT_AUTHOR_DATE", &date), ("GIT_COMMITTER_DATE", &date)],
        )
    }

    fn git(&self, args: &[&str]) -> String {
        self.git_in(&self.root, args)
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&[
            "commit",
            "-q",
            "--no-verify",
            "--allow-empty",
            "-m",
            message,
        ]);
        self.clock.set(self.clock.get() + 1);
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    fn check(&self, args: &[&str]) -> Run {
        let mut all = vec!["check", "--format", "json"];
        all.extend_from_slice(args);
        memlint(&self.root, &all)
    }
}

fn decision(title: &str, extra: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/{}\n{extra}---\n\n{body}\n",
        title.len()
    )
}

fn replaced(title: &str, by: &str) -> String {
    format!(
        "---\ntitle: {title}\nstatus: replaced\ndate: 2026-10-01\nsources:\n  - https://example.com/old\nreplaced_by: {by}\n---\n\nSuperseded.\n"
    )
}

const BROKEN: &str = "---\ntitle: [unclosed\nstatus: active\n---\n\nBody.\n";

/// A repository with two decisions, `old-way` replaced by `use-gix`, committed.
fn seeded() -> Repo {
    let repo = Repo::new();
    repo.write(".memlint.yml", "max_sources: 10\n");
    repo.write(
        "memory/decisions/use-gix.md",
        &decision("Use gix", "", "We read git through gix."),
    );
    repo.write(
        "memory/decisions/old-way.md",
        &replaced("Run the git program", "use-gix"),
    );
    repo.write("src/main.rs", "fn main() {}\n");
    repo.commit("Seed the memory");
    repo
}

#[test]
fn staged_broken_but_fixed_in_the_work_tree_fails() {
    let repo = seeded();
    repo.write("memory/decisions/new-idea.md", BROKEN);
    repo.git(&["add", "memory/decisions/new-idea.md"]);
    repo.write(
        "memory/decisions/new-idea.md",
        &decision("New idea", "", "Fixed, but not staged."),
    );
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "frontmatter/parse".into(),
            "memory/decisions/new-idea.md".into(),
            3
        )]
    );
    assert_eq!(run.json()["summary"]["files"], 1, "{run:?}");
    // The work tree alone is fine.
    let plain = repo.check(&[]);
    assert_eq!(plain.code, 0, "{plain:?}");
}

#[test]
fn staged_fine_but_broken_in_the_work_tree_passes() {
    let repo = seeded();
    repo.write(
        "memory/decisions/new-idea.md",
        &decision("New idea", "", "Staged fine."),
    );
    repo.git(&["add", "memory/decisions/new-idea.md"]);
    repo.write("memory/decisions/new-idea.md", BROKEN);
    repo.write("memory/decisions/use-gix.md", BROKEN);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.found(), vec![]);
    assert_eq!(run.json()["summary"]["files"], 1, "{run:?}");
    assert_eq!(repo.check(&[]).code, 1);
}

#[test]
fn staged_mode_resolves_against_the_staged_workspace() {
    let repo = seeded();
    // A staged record that points at a record only the work tree has, and
    // at a file only the work tree has.
    repo.write(
        "memory/decisions/unstaged-target.md",
        &decision("Unstaged", "", "Not staged."),
    );
    repo.write("notes/design.md", "notes\n");
    repo.write(
        "memory/decisions/pointer.md",
        &replaced("Pointer", "unstaged-target").replace(
            "  - https://example.com/old\n",
            "  - https://example.com/old\n  - file:notes/design.md\n  - file:src/main.rs\n",
        ),
    );
    repo.git(&["add", "memory/decisions/pointer.md"]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 1, "{run:?}");
    let found = run.found();
    assert!(
        found.contains(&(
            "status/dangling-target".into(),
            "memory/decisions/pointer.md".into(),
            9
        )),
        "{run:?}"
    );
    assert!(
        found.contains(&(
            "sources/dangling".into(),
            "memory/decisions/pointer.md".into(),
            7
        )),
        "{run:?}"
    );
    // `file:src/main.rs` is committed: not dangling.
    assert_eq!(found.len(), 2, "{run:?}");
    // A chain through an unchanged record is seen: pointer → old-way → use-gix.
    repo.git(&["reset", "-q"]);
    repo.write(
        "memory/decisions/pointer.md",
        &replaced("Pointer", "old-way"),
    );
    repo.git(&["add", "memory/decisions/pointer.md"]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "status/chain".into(),
            "memory/decisions/pointer.md".into(),
            7
        )]
    );
}

#[test]
fn staged_rename_is_linted_under_its_new_name() {
    let repo = seeded();
    // A rename that leaves `old-way`'s `replaced_by: use-gix` dangling.
    repo.git(&[
        "mv",
        "memory/decisions/use-gix.md",
        "memory/decisions/use-gitoxide.md",
    ]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "status/dangling-target".into(),
            "memory/decisions/old-way.md".into(),
            7
        )]
    );
    // Fixing the reference in the index makes the commit clean.
    repo.write(
        "memory/decisions/old-way.md",
        &replaced("Run the git program", "use-gitoxide"),
    );
    repo.git(&["add", "memory/decisions/old-way.md"]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["summary"]["files"], 2, "{run:?}");
    // A rename to a name that is no slug.
    repo.git(&[
        "mv",
        "memory/decisions/use-gitoxide.md",
        "memory/decisions/Use_Gitoxide.md",
    ]);
    let run = repo.check(&["--staged"]);
    let found = run.found();
    assert!(
        found.contains(&(
            "slug/format".into(),
            "memory/decisions/Use_Gitoxide.md".into(),
            1
        )),
        "{run:?}"
    );
}

#[test]
fn staged_deletion_of_a_decision() {
    let repo = seeded();
    repo.write(
        "memory/decisions/lonely.md",
        &decision("Lonely", "", "Nobody points here."),
    );
    repo.commit("Add a lonely decision");
    // Nothing points at it: deleting it is fine.
    repo.git(&["rm", "-q", "memory/decisions/lonely.md"]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.found(), vec![]);
    // The work tree still has a deleted file: the index decides.
    repo.git(&["reset", "-q", "HEAD", "--", "memory/decisions/lonely.md"]);
    repo.git(&["checkout", "--", "memory/decisions/lonely.md"]);
    repo.git(&["rm", "-q", "--cached", "memory/decisions/use-gix.md"]);
    assert!(repo.root.join("memory/decisions/use-gix.md").is_file());
    // An unstaged edit of the record that points at it changes nothing.
    repo.write(
        "memory/decisions/old-way.md",
        &replaced("Run the git program", "lonely"),
    );
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "status/dangling-target".into(),
            "memory/decisions/old-way.md".into(),
            7
        )]
    );
}

#[test]
fn staged_with_a_path_limits_the_report() {
    let repo = seeded();
    repo.write("memory/decisions/a-one.md", BROKEN);
    repo.write("knowledge/b-two.md", BROKEN);
    repo.git(&["add", "-A"]);
    let run = repo.check(&["--staged", "knowledge"]);
    assert_eq!(run.code, 1, "{run:?}");
    let paths: Vec<String> = run.found().into_iter().map(|f| f.1).collect();
    assert_eq!(paths, vec!["knowledge/b-two.md".to_string()]);
}

#[test]
fn staged_in_a_repository_without_commits() {
    let repo = Repo::new();
    repo.write(
        "memory/decisions/first.md",
        &decision("First", "", "The first record."),
    );
    repo.write("memory/decisions/second.md", BROKEN);
    repo.git(&["add", "-A"]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "frontmatter/parse".into(),
            "memory/decisions/second.md".into(),
            3
        )]
    );
    assert_eq!(run.json()["summary"]["files"], 2);
    // `--base` needs a commit.
    let run = repo.check(&["--base", "main"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("no commits yet"), "{run:?}");
    // The log of an empty history is empty.
    let run = memlint(&repo.root, &["log", "--format", "json"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json(), serde_json::json!({"commits": []}));
}

#[test]
fn outside_a_repository_the_git_modes_exit_2() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join(".memlint.yml"), "max_sources: 10\n").expect("write");
    for args in [
        vec!["check", "--staged"],
        vec!["check", "--base", "main"],
        vec!["log"],
        vec!["init", "--hooks"],
    ] {
        let run = memlint(tmp.path(), &args);
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(
            run.stderr.contains("not in a git repository"),
            "{args:?}: {run:?}"
        );
        assert!(!run.stderr.contains("panicked"), "{run:?}");
    }
}

#[test]
fn init_hooks_outside_a_repository_creates_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = memlint(tmp.path(), &["init", "--hooks"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("not in a git repository"), "{run:?}");
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert!(left.is_empty(), "a refused init --hooks created {left:?}");
}

#[test]
fn unknown_revision_exits_2() {
    let repo = seeded();
    let run = repo.check(&["--base", "no-such-branch"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("unknown revision `no-such-branch`"),
        "{run:?}"
    );
}

#[test]
fn base_lints_only_what_changed() {
    let repo = seeded();
    // A broken record committed before the base is not reported.
    repo.write("knowledge/old-broken.md", BROKEN);
    repo.commit("An old mistake");
    repo.git(&["branch", "base"]);
    repo.write("memory/decisions/new-idea.md", BROKEN);
    repo.write(
        "memory/requests/add-x.md",
        &decision("Add x", "", "Body.").replace("status: active", "status: open"),
    );
    repo.commit("Two new records");
    let run = repo.check(&["--base", "base"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "frontmatter/parse".into(),
            "memory/decisions/new-idea.md".into(),
            3
        )]
    );
    assert_eq!(run.json()["summary"]["files"], 2, "{run:?}");
    // The work tree does not matter: HEAD does.
    repo.write(
        "memory/decisions/new-idea.md",
        &decision("New idea", "", "Fixed later."),
    );
    assert_eq!(repo.check(&["--base", "base"]).code, 1);
}

/// The seeded repository with a branch `base` that has
/// `memory/decisions/stale.md`, and HEAD one commit later without it.
fn stale_removed(message: &str) -> Repo {
    let repo = seeded();
    repo.write(
        "memory/decisions/stale.md",
        &decision("Stale", "", "Old news."),
    );
    repo.commit("Add a stale decision");
    repo.git(&["branch", "base"]);
    repo.git(&["rm", "-q", "memory/decisions/stale.md"]);
    repo.commit(message);
    repo
}

#[test]
fn base_removal_without_trailer_is_an_error_on_the_old_path() {
    let repo = stale_removed("Remove a decision");
    let run = repo.check(&["--base", "base"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "history/unexplained-removal".into(),
            "memory/decisions/stale.md".into(),
            1
        )]
    );
    let d = &run.json()["diagnostics"][0];
    assert_eq!(d["column"], 1);
    assert_eq!(d["severity"], "error");
    let msg = d["message"].as_str().expect("message");
    assert!(
        msg.contains("Memlint-GC: drop memory/decisions/stale"),
        "{msg}"
    );
    // Human output shows the removed file's first line.
    let human = memlint(&repo.root, &["check", "--base", "base", "--color", "never"]);
    assert!(
        human.stdout.contains("memory/decisions/stale.md:1:1"),
        "{human:?}"
    );
    assert!(human.stdout.contains("title: Stale"), "{human:?}");
    // The rule can be turned off.
    repo.write(
        ".memlint.yml",
        "rules: {history/unexplained-removal: off}\n",
    );
    repo.commit("Silence the rule");
    assert_eq!(repo.check(&["--base", "base"]).code, 0);
}

#[test]
fn base_removal_explained_by_a_later_trailer() {
    let repo = seeded();
    repo.write(
        "memory/decisions/stale.md",
        &decision("Stale", "", "Old news."),
    );
    repo.write(
        "memory/decisions/twin-a.md",
        &decision("Twin A", "", "One."),
    );
    repo.commit("Add decisions");
    repo.git(&["branch", "base"]);
    repo.git(&[
        "rm",
        "-q",
        "memory/decisions/stale.md",
        "memory/decisions/twin-a.md",
    ]);
    repo.commit("Tidy up");
    // A later commit of the range names both removals.
    repo.commit(
        "Record the tidy-up\n\nMemlint-GC: drop memory/decisions/stale outdated\nMemlint-GC: merge memory/decisions/twin-a into memory/decisions/use-gix superseded,noisy\n",
    );
    let run = repo.check(&["--base", "base"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.found(), vec![]);
    // A trailer outside the range does not count.
    let run = repo.check(&["--base", "HEAD"]);
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn base_rename_is_no_removal() {
    let repo = seeded();
    repo.write(
        "memory/decisions/pin-rayon.md",
        &decision("Pin rayon", "", "Pin rayon for the index."),
    );
    repo.commit("Add");
    repo.git(&["branch", "base"]);
    repo.git(&[
        "mv",
        "memory/decisions/pin-rayon.md",
        "memory/decisions/pin-rayon-index.md",
    ]);
    repo.commit("Rename");
    let run = repo.check(&["--base", "base"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.found(), vec![]);
}

#[test]
fn malformed_trailer_is_reported() {
    let repo = stale_removed("Drop it\n\nMemlint-GC: drop memory/decisions/stale.md stale\n");
    let run = repo.check(&["--base", "base"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.contains("malformed `Memlint-GC:` trailer"),
        "{run:?}"
    );
    let found = run.found();
    assert_eq!(found.len(), 1, "{run:?}");
    assert_eq!(found[0].0, "history/unexplained-removal");
    let msg = run.json()["diagnostics"][0]["message"]
        .as_str()
        .expect("m")
        .to_string();
    assert!(msg.contains("malformed trailer"), "{msg}");
    // `log --gc` shows it too.
    let log = memlint(&repo.root, &["log", "--gc"]);
    assert_eq!(log.code, 0, "{log:?}");
    assert!(
        log.stdout.contains("malformed Memlint-GC trailer"),
        "{log:?}"
    );
    assert!(log.stdout.contains("without `.md`"), "{log:?}");
    assert!(log.stderr.contains("malformed"), "{log:?}");
    // And a JSON reader sees it, beside the well-formed ones.
    let json = memlint(&repo.root, &["log", "--gc", "--format", "json"]).json();
    let commit = &json["commits"][0];
    assert_eq!(commit["gc"], serde_json::json!([]));
    assert_eq!(
        commit["malformed_gc"][0]["line"],
        "Memlint-GC: drop memory/decisions/stale.md stale"
    );
    assert!(
        commit["malformed_gc"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("without `.md`")),
        "{json}"
    );
}

#[test]
fn base_decision_rewritten_in_place() {
    let repo = seeded();
    repo.git(&["branch", "base"]);
    repo.write(
        "memory/decisions/use-gix.md",
        &decision("Use gix everywhere", "", "We read git through gix."),
    );
    repo.commit("Retitle");
    let run = repo.check(&["--base", "base"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "history/decision-rewritten".into(),
            "memory/decisions/use-gix.md".into(),
            2
        )]
    );
    assert_eq!(run.json()["diagnostics"][0]["severity"], "warning");
    assert_eq!(repo.check(&["--base", "base", "--deny-warnings"]).code, 1);
    // Replacing it properly: the old one is marked replaced, a new one added.
    repo.git(&["reset", "-q", "--hard", "base"]);
    repo.write(
        "memory/decisions/use-gix.md",
        &decision("Use gix", "", "We read git through gix.")
            .replace("status: active\ndate: 2026-11-01\nsources:\n  - https://example.com/7\n", "status: replaced\ndate: 2026-11-01\nsources:\n  - https://example.com/7\nreplaced_by: use-gix-everywhere\n"),
    );
    repo.write(
        "memory/decisions/use-gix-everywhere.md",
        &decision("Use gix everywhere", "", "Even in tests."),
    );
    repo.write(
        "memory/decisions/old-way.md",
        &replaced("Run the git program", "use-gix-everywhere"),
    );
    repo.commit("Replace");
    let run = repo.check(&["--base", "base"]);
    let rules: Vec<String> = run.found().into_iter().map(|f| f.0).collect();
    assert!(
        !rules.contains(&"history/decision-rewritten".to_string()),
        "{run:?}"
    );
    // A body rewrite named by a GC trailer is explained.
    repo.git(&["reset", "-q", "--hard", "base"]);
    repo.write(
        "memory/decisions/use-gix.md",
        &decision("Use gix", "", "Trimmed."),
    );
    repo.commit("Trim\n\nMemlint-GC: trim memory/decisions/use-gix noisy\n");
    assert_eq!(repo.check(&["--base", "base"]).found(), vec![]);
}

#[test]
fn detached_head_and_shallow_clone() {
    let repo = seeded();
    repo.write(
        "memory/decisions/second.md",
        &decision("Second", "", "Two."),
    );
    repo.commit("Second");
    repo.write("memory/decisions/third.md", BROKEN);
    repo.commit("Third");
    // Detached HEAD: both modes work.
    repo.git(&["checkout", "-q", "--detach", "HEAD~1"]);
    let run = repo.check(&["--base", "HEAD~1"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["summary"]["files"], 1);
    repo.write("memory/decisions/fourth.md", BROKEN);
    repo.git(&["add", "-A"]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 1, "{run:?}");
    repo.git(&["reset", "-q", "--hard"]);
    repo.git(&["checkout", "-q", "main"]);
    // A shallow clone of depth 1: `--staged` works, `--base` into the
    // missing history says why it cannot.
    let clones = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", repo.root.display());
    repo.git_in(
        clones.path(),
        &["clone", "-q", "--depth", "1", &url, "shallow"],
    );
    let shallow = clones.path().join("shallow");
    std::fs::write(shallow.join("memory/decisions/fifth.md"), BROKEN).expect("write");
    repo.git_in(&shallow, &["add", "-A"]);
    let run = memlint(&shallow, &["check", "--staged", "--format", "json"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.json()["summary"]["files"], 1, "{run:?}");
    let run = memlint(&shallow, &["check", "--base", "HEAD~1"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("shallow"), "{run:?}");
    // Deep enough: the base is in the clone.
    repo.git_in(
        clones.path(),
        &["clone", "-q", "--depth", "2", &url, "deeper"],
    );
    let run = memlint(
        &clones.path().join("deeper"),
        &["check", "--base", "HEAD~1", "--format", "json"],
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "frontmatter/parse".into(),
            "memory/decisions/third.md".into(),
            3
        )]
    );
}

/// A pull request checked out as CI does: `repo`'s merge (branch `merged`)
/// of a branch whose commit explains a removal, cloned into the returned
/// directory with its merge commit fetched alone (depth 1), the base branch
/// `main` fetched beside it at depth 1 (as `origin/main`).
fn merge_fetched_alone(repo: &Repo) -> (tempfile::TempDir, PathBuf) {
    repo.write(
        "memory/decisions/stale.md",
        &decision("Stale", "", "Old news."),
    );
    repo.commit("Add a stale decision");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.git(&["rm", "-q", "memory/decisions/stale.md"]);
    repo.commit("Drop stale\n\nMemlint-GC: drop memory/decisions/stale outdated\n");
    repo.commit("More work");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("notes.txt", "main moved on\n");
    repo.commit("Main moves on");
    repo.git(&["checkout", "-q", "-b", "merged"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "feature"]);
    // With the whole history, the trailer explains the removal.
    let run = repo.check(&["--base", "main"]);
    assert_eq!((run.code, run.found()), (0, vec![]), "{run:?}");
    let clones = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", repo.root.display());
    repo.git_in(
        clones.path(),
        &["clone", "-q", "--depth", "1", "-b", "merged", &url, "ci"],
    );
    let ci = clones.path().join("ci");
    repo.git_in(
        &ci,
        &[
            "fetch",
            "-q",
            "--depth",
            "1",
            "origin",
            "main:refs/remotes/origin/main",
        ],
    );
    (clones, ci)
}

/// A pull request checked out as CI does: its merge commit fetched alone
/// (depth 1), the base branch fetched beside it at depth 1.
#[test]
fn base_in_a_pull_requests_merge_commit_fetched_alone() {
    let repo = seeded();
    let (_clones, ci) = merge_fetched_alone(&repo);
    // The commit with the trailer is not in the clone: the removal is not
    // judged, and the check says so instead of failing.
    let run = memlint(&ci, &["check", "--base", "origin/main", "--format", "json"]);
    assert_eq!((run.code, run.found()), (0, vec![]), "{run:?}");
    let base = repo.git(&["rev-parse", "--short=7", "main"]);
    assert_eq!(
        run.stderr,
        format!(
            "memlint: warning: history/*: 1 record could not be judged (memory/decisions/stale.md): the commits between {} and HEAD are not all in this shallow clone, and one of them may explain the change (fetch them, e.g. `fetch-depth: 0` in actions/checkout)\n",
            base.trim()
        )
    );
    // Fetched whole, the trailer is read again.
    repo.git_in(&ci, &["fetch", "-q", "--unshallow", "origin", "merged"]);
    let run = memlint(&ci, &["check", "--base", "origin/main", "--format", "json"]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    // And without the trailer, the removal is an error again.
    repo.git(&["checkout", "-q", "-b", "bare-removal", "main"]);
    repo.git(&["rm", "-q", "memory/decisions/stale.md"]);
    repo.commit("Remove it");
    let run = repo.check(&["--base", "main"]);
    assert_eq!(run.code, 1, "{run:?}");
}

/// `--format github`: the warning that the `history/*` findings are not
/// judged in a shallow clone is a workflow command of the output (not a
/// line on standard error), so that the pull request's Actions page shows
/// it.
#[test]
fn base_cut_short_by_a_shallow_clone_warns_in_github_format() {
    let repo = seeded();
    let (_clones, ci) = merge_fetched_alone(&repo);
    let run = memlint(
        &ci,
        &["check", "--base", "origin/main", "--format", "github"],
    );
    let base = repo.git(&["rev-parse", "--short=7", "main"]);
    let warning = format!(
        "history/*: 1 record could not be judged (memory/decisions/stale.md): the commits between {} and HEAD are not all in this shallow clone, and one of them may explain the change (fetch them, e.g. `fetch-depth: 0` in actions/checkout)",
        base.trim()
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        format!("::warning title=memlint::{warning}\nmemlint: No problems in 0 files.\n"),
        "{run:?}"
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn log_follows_a_record_through_renames() {
    let repo = seeded();
    repo.git(&[
        "mv",
        "memory/decisions/use-gix.md",
        "memory/decisions/use-gitoxide.md",
    ]);
    repo.write(
        "memory/decisions/old-way.md",
        &replaced("Run the git program", "use-gitoxide"),
    );
    repo.commit("Rename use-gix");
    repo.write("knowledge/unrelated.md", "---\ntitle: Unrelated\n---\n");
    repo.commit("Unrelated");
    repo.write(
        "memory/decisions/use-gitoxide.md",
        &decision(
            "Use gix",
            "",
            "We read git through gix, the gitoxide crate.",
        ),
    );
    repo.commit("Say gitoxide");
    let run = memlint(
        &repo.root,
        &[
            "log",
            "memory/decisions/use-gitoxide.md",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let log = run.json();
    let summaries: Vec<&str> = log["commits"]
        .as_array()
        .expect("commits")
        .iter()
        .map(|c| c["summary"].as_str().expect("summary"))
        .collect();
    assert_eq!(
        summaries,
        vec!["Say gitoxide", "Rename use-gix", "Seed the memory"]
    );
    assert_eq!(
        log["commits"][1]["paths"],
        serde_json::json!([
            "memory/decisions/use-gitoxide.md",
            "memory/decisions/use-gix.md"
        ])
    );
    assert_eq!(
        log["commits"][2]["paths"],
        serde_json::json!(["memory/decisions/use-gix.md"])
    );
    let first = &log["commits"][0];
    assert_eq!(first["time"], "2026-11-01T10:03:00+09:00");
    assert_eq!(first["id"].as_str().expect("id").len(), 40);
    assert_eq!(first["gc"], serde_json::json!([]));
    // By slug, from a subdirectory.
    let by_slug = memlint(
        &repo.root.join("memory"),
        &["log", "use-gitoxide", "--format", "json"],
    );
    assert_eq!(by_slug.json(), log, "{by_slug:?}");
    // The workspace log has every commit touching records, newest first.
    let all = memlint(&repo.root, &["log", "--format", "json"]).json();
    assert_eq!(all["commits"].as_array().expect("commits").len(), 4);
    // A range.
    let range = memlint(&repo.root, &["log", "HEAD~2..HEAD", "--format", "json"]).json();
    assert_eq!(range["commits"].as_array().expect("commits").len(), 2);
}

#[test]
fn log_gc_lists_the_trailers() {
    let repo = seeded();
    repo.write("memory/decisions/twin.md", &decision("Twin", "", "Twin."));
    repo.commit("Add twin");
    repo.git(&["rm", "-q", "memory/decisions/twin.md"]);
    repo.commit(
        "Consolidate\n\nMemlint-GC: merge memory/decisions/twin into memory/decisions/use-gix superseded\nMemlint-GC: drop knowledge/gone outdated,unused\nMemlint-GC: shred memory/decisions/x noisy\n",
    );
    let run = memlint(&repo.root, &["log", "--gc", "--format", "json"]);
    assert_eq!(run.code, 0, "{run:?}");
    let log = run.json();
    let commits = log["commits"].as_array().expect("commits");
    assert_eq!(commits.len(), 1, "{run:?}");
    assert_eq!(commits[0]["summary"], "Consolidate");
    assert_eq!(
        commits[0]["paths"],
        serde_json::json!(["memory/decisions/twin.md"])
    );
    assert_eq!(
        commits[0]["gc"],
        serde_json::json!([
            {"op": "merge", "record": "memory/decisions/twin", "into": "memory/decisions/use-gix", "categories": ["superseded"]},
            {"op": "drop", "record": "knowledge/gone", "into": null, "categories": ["outdated", "unused"]}
        ])
    );
    assert!(run.stderr.contains("unknown operation `shred`"), "{run:?}");
    let human = memlint(&repo.root, &["log", "--gc"]);
    assert!(
        human.stdout.contains(
            "Memlint-GC: merge memory/decisions/twin into memory/decisions/use-gix superseded"
        ),
        "{human:?}"
    );
    // The GC history of one record.
    let one = memlint(&repo.root, &["log", "twin", "--gc", "--format", "json"]).json();
    assert_eq!(one["commits"].as_array().expect("commits").len(), 1);
    let none = memlint(&repo.root, &["log", "old-way", "--gc", "--format", "json"]).json();
    assert_eq!(none["commits"], serde_json::json!([]));
}

#[test]
fn init_hooks_writes_the_hook_and_sets_hooks_path() {
    let repo = Repo::new();
    let run = memlint(&repo.root, &["init", "--hooks"]);
    assert_eq!(run.code, 0, "{run:?}");
    let hook = repo.root.join(".githooks/pre-commit");
    let text = std::fs::read_to_string(&hook).expect("hook");
    assert_eq!(text, memlint::engine::init::templates::PRE_COMMIT);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&hook).expect("meta").permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "{mode:o}");
    }
    assert_eq!(repo.git(&["config", "core.hooksPath"]).trim(), ".githooks");
    assert!(run.stdout.contains("memlint hook session-start"), "{run:?}");
    // A second run changes nothing; a foreign hook is kept without --force.
    let again = memlint(&repo.root, &["init", "--hooks"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(again.stdout.contains("up to date"), "{again:?}");
    std::fs::write(&hook, "#!/bin/sh\necho mine\n").expect("write");
    let refused = memlint(&repo.root, &["init", "--hooks"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    // The engine's refusal, worded for the command line (issue 48 item 6).
    assert_eq!(
        refused.stderr,
        "memlint: error: .githooks/pre-commit exists and is not memlint's hook; rerun with --force to replace it\n",
        "{refused:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&hook).expect("hook"),
        "#!/bin/sh\necho mine\n"
    );
    let forced = memlint(&repo.root, &["init", "--hooks", "--force"]);
    assert_eq!(forced.code, 0, "{forced:?}");
    assert_eq!(
        std::fs::read_to_string(&hook).expect("hook"),
        memlint::engine::init::templates::PRE_COMMIT
    );
    // Another core.hooksPath is kept without --force, and nothing is
    // written.
    repo.git(&["config", "core.hooksPath", ".husky"]);
    std::fs::remove_file(&hook).expect("remove the hook");
    let refused = memlint(&repo.root, &["init", "--hooks"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert_eq!(
        refused.stderr,
        "memlint: error: core.hooksPath is already `.husky`, and git runs the hooks there; rerun with --force to point it at .githooks (the hooks in `.husky` then stop running)\n",
        "{refused:?}"
    );
    assert!(!refused.stderr.contains("cannot read"), "{refused:?}");
    assert!(!refused.stdout.contains("wrote"), "{refused:?}");
    assert!(!hook.exists(), "nothing written");
    assert_eq!(repo.git(&["config", "core.hooksPath"]).trim(), ".husky");
}

#[test]
fn init_hooks_keeps_a_hook_git_would_stop_running() {
    let repo = Repo::new();
    let old = repo.root.join(".git/hooks/pre-commit");
    std::fs::write(&old, "#!/bin/sh\necho mine\n").expect("write");
    let refused = memlint(&repo.root, &["init", "--hooks"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert_eq!(
        refused.stderr,
        "memlint: error: .git/hooks/pre-commit exists, and git would stop running it once core.hooksPath points at .githooks; move what it does into .githooks/pre-commit after installing, or rerun with --force\n",
        "{refused:?}"
    );
    assert!(!repo.root.join(".githooks/pre-commit").exists());
    // A refusal creates nothing, not even the layout.
    assert!(!repo.root.join(".memlint.yml").exists(), "{refused:?}");
    assert!(!repo.root.join("memory").exists(), "{refused:?}");
    let config = std::fs::read_to_string(repo.root.join(".git/config")).expect("config");
    assert!(!config.contains("hooksPath"), "{config}");
    // --force installs, and says what stops running.
    let forced = memlint(&repo.root, &["init", "--hooks", "--force"]);
    assert_eq!(forced.code, 0, "{forced:?}");
    assert!(
        forced
            .stdout
            .contains("note: git now runs the hooks in .githooks/"),
        "{forced:?}"
    );
    assert_eq!(repo.git(&["config", "core.hooksPath"]).trim(), ".githooks");
}

#[test]
fn the_projects_own_hook_is_the_one_init_writes() {
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join(".githooks/pre-commit");
    let text = std::fs::read_to_string(&own).expect(".githooks/pre-commit");
    assert_eq!(text, memlint::engine::init::templates::PRE_COMMIT);
}

/// The hook in action: `git commit` runs it, with memlint on `PATH`.
#[cfg(unix)]
#[test]
fn the_pre_commit_hook_stops_a_broken_commit() {
    let repo = seeded();
    assert_eq!(memlint(&repo.root, &["init", "--hooks"]).code, 0);
    repo.commit("Hooks");
    let bin_dir = Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let commit = |message: &str| {
        Command::new("git")
            .args(["commit", "-q", "-m", message])
            .current_dir(&repo.root)
            .env("PATH", &path)
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("git commit")
    };
    // Broken in the index, fixed in the work tree: refused.
    repo.write("memory/decisions/new-idea.md", BROKEN);
    repo.git(&["add", "-A"]);
    repo.write(
        "memory/decisions/new-idea.md",
        &decision("New idea", "", "Fixed."),
    );
    let out = commit("Broken");
    assert!(!out.status.success(), "the hook let a broken record in");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("git commit --no-verify"), "{stderr}");
    // Valid but not formatted (keys out of order): refused, named.
    repo.write(
        "memory/decisions/new-idea.md",
        "---\nstatus: active\ntitle: New idea\ndate: 2026-11-01\nsources:\n  - https://example.com/n\n---\n\nBody.\n",
    );
    repo.git(&["add", "-A"]);
    let out = commit("Unformatted");
    assert!(
        !out.status.success(),
        "the hook let an unformatted record in"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not formatted") && stderr.contains("memory/decisions/new-idea.md"),
        "{stderr}"
    );
    // Clean: accepted.
    repo.write(
        "memory/decisions/new-idea.md",
        &decision("New idea", "", "Fixed."),
    );
    repo.git(&["add", "-A"]);
    let out = commit("Clean");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `git commit -a` commits the work tree: the hook sees that index.
    repo.write("memory/decisions/new-idea.md", BROKEN);
    let out = Command::new("git")
        .args(["commit", "-q", "-a", "-m", "All"])
        .current_dir(&repo.root)
        .env("PATH", &path)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git commit -a");
    assert!(!out.status.success(), "commit -a let a broken record in");
}

#[test]
fn staged_honours_memlintignore_from_the_index() {
    let repo = seeded();
    repo.write(".memlintignore", "knowledge/vendor/\n");
    repo.write("knowledge/vendor/third-party.md", BROKEN);
    repo.git(&["add", "-A"]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.json()["summary"]["files"], 0, "{run:?}");
    // As the work-tree check does.
    assert_eq!(repo.check(&[]).code, 0);
}

#[test]
fn staged_lints_a_record_added_over_gitignore() {
    // `.gitignore` keeps untracked files out of a commit; a record added
    // with `git add -f` is in it, and is linted.
    let repo = seeded();
    repo.write(".gitignore", "memory/decisions/secret*.md\n");
    repo.commit("Ignore secrets");
    repo.write("memory/decisions/secret-x.md", BROKEN);
    repo.git(&["add", "-f", "memory/decisions/secret-x.md"]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "frontmatter/parse".into(),
            "memory/decisions/secret-x.md".into(),
            3
        )]
    );
}

#[test]
fn workspace_in_a_subdirectory_of_the_repository() {
    let repo = Repo::new();
    repo.write("README.md", "# A project\n");
    repo.write("agent/.memlint.yml", "max_sources: 10\n");
    repo.write(
        "agent/memory/decisions/use-gix.md",
        &decision("Use gix", "", "We read git through gix."),
    );
    repo.write(
        "agent/memory/decisions/old-way.md",
        &replaced("Old way", "use-gix"),
    );
    repo.commit("Seed");
    repo.git(&["branch", "base"]);
    repo.write("agent/memory/decisions/new-idea.md", BROKEN);
    repo.git(&["rm", "-q", "agent/memory/decisions/use-gix.md"]);
    let run = memlint(
        &repo.root.join("agent"),
        &["check", "--staged", "--format", "json"],
    );
    assert_eq!(run.code, 1, "{run:?}");
    // Paths are relative to the workspace root; the unstaged new file is not
    // in the commit.
    assert_eq!(
        run.found(),
        vec![(
            "status/dangling-target".into(),
            "memory/decisions/old-way.md".into(),
            7
        )]
    );
    repo.git(&["add", "-A"]);
    repo.commit("Change");
    let run = memlint(
        &repo.root.join("agent"),
        &["check", "--base", "base", "--format", "json"],
    );
    let found = run.found();
    assert!(
        found.contains(&(
            "frontmatter/parse".into(),
            "memory/decisions/new-idea.md".into(),
            3
        )),
        "{run:?}"
    );
    assert!(
        found.contains(&(
            "history/unexplained-removal".into(),
            "memory/decisions/use-gix.md".into(),
            1
        )),
        "{run:?}"
    );
    let log = memlint(
        &repo.root.join("agent"),
        &["log", "use-gix", "--format", "json"],
    )
    .json();
    assert_eq!(
        log["commits"].as_array().expect("commits").len(),
        2,
        "{log}"
    );
    assert_eq!(
        log["commits"][0]["paths"],
        serde_json::json!(["memory/decisions/use-gix.md"])
    );
}

#[test]
fn unresolved_conflicts_exit_2() {
    let repo = seeded();
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write(
        "memory/decisions/use-gix.md",
        &decision("Use gix", "", "Other side."),
    );
    repo.commit("Other");
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        "memory/decisions/use-gix.md",
        &decision("Use gix", "", "This side."),
    );
    repo.commit("This");
    let merge = Command::new("git")
        .args(["merge", "-q", "other"])
        .current_dir(&repo.root)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .expect("git merge");
    assert!(!merge.status.success(), "the merge should conflict");
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("unresolved conflicts"), "{run:?}");
    assert!(
        run.stderr.contains("memory/decisions/use-gix.md"),
        "{run:?}"
    );
}

#[test]
fn log_human_output() {
    let repo = seeded();
    repo.git(&["rm", "-q", "memory/decisions/old-way.md"]);
    repo.commit("Drop old-way\n\nMemlint-GC: drop memory/decisions/old-way superseded\n");
    let run = memlint(&repo.root, &["log"]);
    assert_eq!(run.code, 0, "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].ends_with(" 2026-11-01T10:01:00+09:00 Drop old-way"),
        "{run:?}"
    );
    assert_eq!(lines[1], "    D memory/decisions/old-way.md");
    assert_eq!(
        lines[2],
        "    Memlint-GC: drop memory/decisions/old-way superseded"
    );
    assert!(
        lines[3].ends_with(" 2026-11-01T10:00:00+09:00 Seed the memory"),
        "{run:?}"
    );
    // `src/main.rs` is not memlint's business.
    assert!(!run.stdout.contains("src/main.rs"), "{run:?}");
    // A revision alone is a range; an unknown word is an error.
    let run = memlint(&repo.root, &["log", "HEAD~1", "--format", "json"]);
    assert_eq!(
        run.json()["commits"].as_array().expect("commits").len(),
        1,
        "{run:?}"
    );
    let run = memlint(&repo.root, &["log", "no/such:thing"]);
    assert_eq!(run.code, 2, "{run:?}");
}

#[test]
fn staged_similar_slugs_are_reported_on_the_cluster() {
    let repo = seeded();
    // `use-gi` sorts before `use-gix`: the warning lands on the committed one.
    repo.write(
        "memory/decisions/use-gi.md",
        &decision("Use gi", "", "A near-duplicate."),
    );
    repo.git(&["add", "-A"]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "slug/similar".into(),
            "memory/decisions/use-gix.md".into(),
            1
        )]
    );
    // The same finding as the whole-workspace check gives.
    let all = repo.check(&[]);
    assert_eq!(all.found(), run.found(), "{all:?}");
}

#[test]
fn a_path_matching_nothing_is_a_usage_error_in_the_git_modes() {
    let repo = seeded();
    let run = repo.check(&["--staged", "memory/decisions/no-such-record.md"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("memory/decisions/no-such-record.md: no such file"),
        "{run:?}"
    );
    // A record deleted and staged is gone from the work tree, but the staged
    // version says so: not an error.
    repo.git(&["rm", "-q", "memory/decisions/old-way.md"]);
    let run = repo.check(&["--staged", "memory/decisions"]);
    assert_ne!(run.code, 2, "{run:?}");
}

#[test]
fn log_of_a_record_that_never_existed_exits_2() {
    let repo = seeded();
    for word in ["no-such-slug", "memory/decisions/no-such-slug.md"] {
        let run = memlint(&repo.root, &["log", word]);
        assert_eq!(run.code, 2, "{word}: {run:?}");
        assert!(
            run.stderr.contains(&format!("`{word}` names no record")),
            "{run:?}"
        );
        assert!(
            !run.stderr.contains("cannot read the git repository"),
            "{run:?}"
        );
    }
    // A deleted record still has its history.
    repo.git(&["rm", "-q", "memory/decisions/old-way.md"]);
    repo.commit("Drop old-way\n\nMemlint-GC: drop memory/decisions/old-way superseded\n");
    for word in ["old-way", "memory/decisions/old-way.md"] {
        let run = memlint(&repo.root, &["log", word]);
        assert_eq!(run.code, 0, "{word}: {run:?}");
        assert!(run.stdout.contains("Drop old-way"), "{run:?}");
    }
}

#[test]
fn a_change_that_puts_unchanged_records_on_a_chain_or_cycle_reports_them() {
    // `old-way` (unchanged) is replaced by `use-gix`; staging `use-gix` as
    // replaced puts `old-way` on a chain, which a full check reports there.
    let repo = seeded();
    repo.write(
        "memory/decisions/use-git2.md",
        &decision("Use git2", "", "Bindings to libgit2."),
    );
    repo.commit("Add use-git2");
    repo.write(
        "memory/decisions/use-gix.md",
        &replaced("Use gix", "use-git2"),
    );
    repo.git(&["add", "-A"]);
    let chain = vec![(
        "status/chain".to_string(),
        "memory/decisions/old-way.md".to_string(),
        7,
    )];
    assert_eq!(repo.check(&[]).found(), chain);
    // A warning: exit 0.
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.found(), chain);
    let base = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    repo.commit("Replace use-gix");
    let run = repo.check(&["--base", &base]);
    assert_eq!(run.code, 0, "{run:?}");
    // (Rewriting the body of a decision in place is reported too.)
    let mut with_rewrite = chain.clone();
    with_rewrite.push((
        "history/decision-rewritten".to_string(),
        "memory/decisions/use-gix.md".to_string(),
        9,
    ));
    assert_eq!(run.found(), with_rewrite);

    // Pointing `use-gix` back at `old-way` closes a cycle: both members.
    repo.write(
        "memory/decisions/use-gix.md",
        &replaced("Use gix", "old-way"),
    );
    repo.git(&["add", "-A"]);
    let cycle = vec![
        (
            "status/cycle".to_string(),
            "memory/decisions/old-way.md".to_string(),
            7,
        ),
        (
            "status/cycle".to_string(),
            "memory/decisions/use-gix.md".to_string(),
            7,
        ),
    ];
    assert_eq!(repo.check(&[]).found(), cycle);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.found(), cycle);
}

#[test]
fn every_removal_can_be_explained_and_only_by_naming_what_went() {
    let repo = seeded();
    repo.write(
        "memory/summary.md",
        "---\nupdated: 2026-11-01\n---\n\nThe rolling summary.\n",
    );
    repo.write(
        "memory/decisions/Bad_Name.md",
        &decision("Bad name", "", "Misnamed."),
    );
    repo.commit("Add a summary and a misnamed decision");
    repo.git(&["branch", "base"]);
    repo.git(&[
        "rm",
        "-q",
        "memory/summary.md",
        "memory/decisions/Bad_Name.md",
        "memory/decisions/use-gix.md",
    ]);
    repo.write(
        "memory/decisions/old-way.md",
        &replaced("Run the git program", "use-git2"),
    );
    repo.write(
        "memory/decisions/use-git2.md",
        &decision("Use git2", "", "Bindings."),
    );
    // `use-gix` is named only as what something was merged into: that
    // does not explain its removal.
    repo.commit(
        "Tidy up\n\nMemlint-GC: drop memory/summary outdated\nMemlint-GC: drop memory/decisions/Bad_Name noisy\nMemlint-GC: merge memory/decisions/old-way into memory/decisions/use-gix superseded\n",
    );
    let run = repo.check(&["--base", "base"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.is_empty(), "{run:?}");
    let removals: Vec<_> = run
        .found()
        .into_iter()
        .filter(|(rule, ..)| rule == "history/unexplained-removal")
        .collect();
    assert_eq!(
        removals,
        vec![(
            "history/unexplained-removal".into(),
            "memory/decisions/use-gix.md".into(),
            1
        )]
    );
}

#[test]
fn base_beyond_a_shallow_clone_says_the_clone_is_shallow() {
    let repo = seeded();
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write(
        "memory/decisions/second.md",
        &decision("Second", "", "Two."),
    );
    repo.commit("Second");
    repo.write(
        "memory/decisions/third.md",
        &decision("Third", "", "Three."),
    );
    repo.commit("Third");
    let clones = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", repo.root.display());
    repo.git_in(
        clones.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-single-branch",
            &url,
            "shallow",
        ],
    );
    let shallow = clones.path().join("shallow");
    repo.git_in(&shallow, &["checkout", "-q", "feat"]);
    let run = memlint(&shallow, &["check", "--base", "origin/main"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("shallow clone"), "{run:?}");
    assert!(run.stderr.contains("fetch-depth: 0"), "{run:?}");
}

#[test]
fn a_blob_id_never_stands_for_a_file_git_converts() {
    // With `.gitattributes` asking for CRLF, a checkout writes CRLF while
    // the git index vouches for the LF blob: the record table must not
    // take the file for the content it linted before.
    let repo = seeded();
    let rel = "memory/decisions/use-gix.md";
    // Past git's racy window, so that the git index vouches for the file.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert_eq!(repo.check(&[]).code, 0);
    repo.write(".gitattributes", "*.md text eol=crlf\n");
    std::fs::remove_file(repo.root.join(rel)).expect("remove");
    repo.git(&["checkout", "--", rel]);
    // `git status` writes the index again, after the checkout: its entry
    // for the file is no longer racy, and vouches for the LF blob.
    repo.git(&["status", "--short"]);
    let text = std::fs::read_to_string(repo.root.join(rel)).expect("read");
    assert!(text.contains("\r\n"), "git wrote CRLF");
    let run = repo.check(&[]);
    assert_eq!(
        run.found(),
        vec![("format/crlf".to_string(), rel.to_string(), 1)],
        "{run:?}"
    );
}

/// The example workspace, committed, then checked out sparsely with a sparse
/// index: only `memory/requests/` (and the files at the top of each parent)
/// in the work tree, `memory/decisions/` and `knowledge/` one index entry
/// each. `None` when this git has no sparse index.
fn sparse_example(before_sparse: impl Fn(&Repo)) -> Option<Repo> {
    let repo = Repo::new();
    common::copy_dir(&common::fixture("example"), &repo.root);
    repo.commit("Seed the memory");
    before_sparse(&repo);
    let set = Command::new("git")
        .args([
            "sparse-checkout",
            "set",
            "--cone",
            "--sparse-index",
            "memory/requests",
        ])
        .current_dir(&repo.root)
        .output()
        .expect("git");
    if !set.status.success() {
        eprintln!("skipped: git has no sparse index");
        return None;
    }
    let listed = repo.git(&["ls-files", "--sparse"]);
    assert!(listed.lines().any(|l| l == "memory/decisions/"), "{listed}");
    assert!(!repo.root.join("memory/decisions").exists());
    Some(repo)
}

#[test]
fn staged_reads_the_records_of_a_sparse_index_directory() {
    let Some(repo) = sparse_example(|_| {}) else {
        return;
    };
    // A request that cites a decision outside the sparse checkout, and one
    // that does not exist.
    let path = "memory/requests/export-monthly-csv.md";
    let text = std::fs::read_to_string(repo.root.join(path)).expect("read");
    let edited = text.replace(
        "  - decision:store-amounts-as-integer-minor-units\n",
        "  - decision:store-amounts-as-integer-minor-units\n  - decision:no-such-decision\n",
    );
    assert_ne!(edited, text);
    repo.write(path, &edited);
    repo.git(&["add", path]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 0, "a warning: {run:?}");
    assert_eq!(
        run.found(),
        vec![("sources/dangling".into(), path.into(), 8)],
        "{run:?}"
    );
}

#[test]
fn staged_sees_changes_inside_a_sparse_index_directory() {
    // The last commit changed a decision; with the index kept and HEAD moved
    // back, the change sits inside a collapsed directory entry.
    let Some(repo) = sparse_example(|repo| {
        let path = "memory/decisions/use-float-amounts.md";
        let text = std::fs::read_to_string(repo.root.join(path)).expect("read");
        repo.write(
            path,
            &text.replace("  - file:docs/architecture.md\n", "  - file:docs/gone.md\n"),
        );
        repo.commit("Cite a missing document");
    }) else {
        return;
    };
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    let run = repo.check(&["--staged"]);
    assert_eq!(run.code, 0, "a warning: {run:?}");
    assert_eq!(
        run.found(),
        vec![(
            "sources/dangling".into(),
            "memory/decisions/use-float-amounts.md".into(),
            6
        )],
        "{run:?}"
    );
}

#[test]
fn a_memlint_link_to_the_git_directory_is_never_written_through() {
    let repo = seeded();
    repo.write("notes.txt", "staged\n");
    repo.git(&["add", "notes.txt"]);
    std::os::unix::fs::symlink(".git", repo.root.join(".memlint")).expect("symlink");
    let index = std::fs::read(repo.root.join(".git/index")).expect("read");
    let listing = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let before = listing(&repo.root.join(".git"));
    let index_run = memlint(&repo.root, &["index"]);
    assert_eq!(index_run.code, 2, "{index_run:?}");
    assert!(
        index_run.stderr.contains("cannot write")
            && index_run.stderr.contains(".memlint is a symbolic link"),
        "{index_run:?}"
    );
    for args in [&["check"][..], &["search", "gix"], &["context"]] {
        let run = memlint(&repo.root, args);
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        assert!(
            run.stderr
                .contains("warning: .memlint is a symbolic link; memlint keeps no cache there"),
            "{args:?}: {run:?}"
        );
    }
    // The git modes keep no cache.
    let staged = memlint(&repo.root, &["check", "--staged"]);
    assert_eq!(staged.code, 0, "{staged:?}");
    let found = memlint(&repo.root, &["search", "gix", "--format", "json"]);
    assert_eq!(
        common::result_paths(&found.json()),
        ["memory/decisions/use-gix.md"]
    );
    assert_eq!(
        std::fs::read(repo.root.join(".git/index")).expect("read"),
        index
    );
    assert_eq!(listing(&repo.root.join(".git")), before);
    assert!(repo.git(&["status", "--short"]).contains("A  notes.txt"));
}

#[test]
fn init_hooks_never_writes_through_a_githooks_link_out_of_the_repository() {
    let repo = Repo::new();
    let outside = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(outside.path(), repo.root.join(".githooks")).expect("symlink");
    let run = memlint(&repo.root, &["init", "--hooks"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains(".githooks/pre-commit leads out of"),
        "{run:?}"
    );
    assert_eq!(std::fs::read_dir(outside.path()).expect("read").count(), 0);
    assert!(
        !repo.root.join(".memlint.yml").exists(),
        "nothing is created"
    );
}
