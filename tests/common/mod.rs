//! Helpers shared by the CLI tests: run the real binary, copy a fixture
//! workspace into a temporary directory.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const BIN: &str = env!("CARGO_BIN_EXE_memlint");

/// What one run of the binary gave.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// The variables the tests clear before each run: the context settings, the
/// hook budgets, and `COLUMNS` (human output wraps at the default width).
const CLEARED: &[&str] = &[
    "MEMORY_INJECT",
    "MEMORY_INJECT_MAX_CHARS",
    "MEMORY_INJECT_BLOCKS",
    "MEMORY_KEEP_N",
    "MEMLINT_PROMPT_BUDGET_MS",
    "MEMLINT_SESSION_START_BUDGET_MS",
    "COLUMNS",
];

/// One run of the binary under test, set up step by step:
///
/// ```ignore
/// let run = Memlint::new(dir).args(&["hook", "prompt"]).stdin(json)
///     .env("MEMORY_INJECT", "off").timeout(Duration::from_secs(30)).run();
/// ```
///
/// It runs in `dir` with colours off and [`CLEARED`] unset; standard input
/// is what [`Memlint::stdin`] gave (empty otherwise), fed while the output
/// is read so that neither side blocks; a [`Memlint::timeout`] kills the
/// run and fails the test. [`Memlint::run`] and [`Memlint::output`] fail
/// the test when memlint panicked or reported an internal error.
pub struct Memlint {
    cmd: Command,
    args: Vec<String>,
    stdin: Vec<u8>,
    timeout: Option<std::time::Duration>,
}

impl Memlint {
    /// `memlint` in `dir`, no arguments yet.
    pub fn new(dir: &Path) -> Self {
        let mut cmd = Command::new(BIN);
        cmd.current_dir(dir).env("NO_COLOR", "1");
        for var in CLEARED {
            cmd.env_remove(var);
        }
        Memlint {
            cmd,
            args: Vec::new(),
            stdin: Vec::new(),
            timeout: None,
        }
    }

    /// Appends arguments.
    pub fn args<S: AsRef<std::ffi::OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        for arg in args {
            let arg = arg.as_ref();
            self.args.push(arg.to_string_lossy().into_owned());
            self.cmd.arg(arg);
        }
        self
    }

    /// Appends one argument.
    pub fn arg(self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.args([arg])
    }

    /// What standard input carries.
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Self {
        self.stdin = bytes.as_ref().to_vec();
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.env(key, value);
        self
    }

    /// Sets each `(name, value)`.
    pub fn envs(mut self, vars: &[(&str, &str)]) -> Self {
        for (k, v) in vars {
            self.cmd.env(k, v);
        }
        self
    }

    /// Unsets an environment variable.
    pub fn env_remove(mut self, key: &str) -> Self {
        self.cmd.env_remove(key);
        self
    }

    /// Kills the run and fails the test when it has not ended after `limit`.
    pub fn timeout(mut self, limit: std::time::Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// The command itself, for what the builder does not cover
    /// (`pre_exec`, a user id).
    pub fn command(&mut self) -> &mut Command {
        &mut self.cmd
    }

    /// Runs it: the exit code and both outputs as text.
    pub fn run(self) -> Run {
        let out = self.output();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Runs it: the status and both outputs as bytes.
    pub fn output(self) -> std::process::Output {
        let args = self.args.clone();
        let out = self.output_unchecked();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("panicked") && !stderr.contains("internal error"),
            "memlint {args:?} crashed:\n{stderr}"
        );
        out
    }

    /// Starts it and gives it its standard input, which is then closed;
    /// standard output and error are pipes (for runs side by side).
    pub fn spawn(mut self) -> std::process::Child {
        use std::io::Write;
        use std::process::Stdio;
        let mut child = self
            .cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn memlint");
        let mut input = child.stdin.take().expect("stdin");
        let bytes = std::mem::take(&mut self.stdin);
        std::thread::spawn(move || {
            let _ = input.write_all(&bytes);
        });
        child
    }

    /// [`Memlint::output`] without the crash check, for the tests that
    /// look at a crash themselves.
    pub fn output_unchecked(mut self) -> std::process::Output {
        use std::io::{Read, Write};
        use std::process::Stdio;
        let mut child = self
            .cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn memlint");
        let mut input = child.stdin.take().expect("stdin");
        let bytes = std::mem::take(&mut self.stdin);
        // A run may stop reading early (a size cap): its error is no failure.
        let feeder = std::thread::spawn(move || {
            let _ = input.write_all(&bytes);
        });
        let pipe = |mut r: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = r.read_to_end(&mut bytes);
                bytes
            })
        };
        let stdout = pipe(Box::new(child.stdout.take().expect("stdout")));
        let stderr = pipe(Box::new(child.stderr.take().expect("stderr")));
        let status = match self.timeout {
            None => child.wait().expect("wait"),
            Some(limit) => {
                let deadline = std::time::Instant::now() + limit;
                loop {
                    if let Some(status) = child.try_wait().expect("wait") {
                        break status;
                    }
                    if std::time::Instant::now() > deadline {
                        let _ = child.kill();
                        let _ = child.wait();
                        panic!("memlint {:?} was still running after {limit:?}", self.args);
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            }
        };
        let _ = feeder.join();
        std::process::Output {
            status,
            stdout: stdout.join().expect("stdout"),
            stderr: stderr.join().expect("stderr"),
        }
    }
}

/// Runs `memlint ARGS` in `dir` with colours off and the context variables
/// and `COLUMNS` cleared, and fails the test on a panic or an internal error.
pub fn memlint(dir: &Path, args: &[&str]) -> Run {
    Memlint::new(dir).args(args).run()
}

/// [`memlint`] with extra environment variables.
pub fn memlint_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    Memlint::new(dir).args(args).envs(env).run()
}

/// [`memlint`] with `stdin` on standard input.
pub fn memlint_stdin(dir: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> Run {
    Memlint::new(dir).args(args).stdin(stdin).run()
}

/// `fixtures/<name>` in the source tree.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// Copies a directory tree, leaving out `.memlint/` caches.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for entry in fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name();
        if name == ".memlint" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if src.is_dir() {
            copy_dir(&src, &dst);
        } else {
            fs::copy(&src, &dst).expect("copy");
        }
    }
}

/// A fresh copy of `fixtures/<name>` in a temporary directory.
pub fn workspace(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture(name), dir.path());
    dir
}

/// Writes `text` to `root/rel`, creating directories.
pub fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, text).expect("write");
}

/// Gives `cmd` a fixed git identity and no user or system git
/// configuration, so that repositories the tests set up are the same on
/// every machine.
pub fn test_identity(cmd: &mut Command) -> &mut Command {
    cmd.env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
}

/// Runs `git ARGS` in `root` (tests use `git` only to set repositories up)
/// with [`test_identity`] and `env`; fails the test when git fails, and
/// returns its standard output.
pub fn git_with(root: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new("git");
    test_identity(cmd.args(args).current_dir(root));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// [`git_with`] without extra variables, its output trimmed.
pub fn git(root: &Path, args: &[&str]) -> String {
    git_with(root, args, &[]).trim().to_string()
}

/// `git add -A` and `git commit -q -m MESSAGE` in `root`.
pub fn commit(root: &Path, message: &str) {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", message]);
}

/// Makes `root` a git repository (if it is not one) and commits everything
/// in it.
pub fn commit_all(root: &Path) {
    if !root.join(".git").exists() {
        git(root, &["init", "-q", "-b", "main"]);
    }
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "--allow-empty", "-m", "snapshot"]);
}

/// A workspace in a temporary directory, set up step by step:
///
/// ```ignore
/// let dir = TempWorkspace::new().git().init()
///     .file("memory/decisions/use-a.md", &decision("Use a", &["https://example.com/a"]))
///     .commit("base").build();
/// ```
///
/// Each step runs at once and fails the test when it fails; git runs with
/// [`test_identity`].
pub struct TempWorkspace {
    dir: tempfile::TempDir,
}

impl TempWorkspace {
    /// An empty temporary directory.
    pub fn new() -> Self {
        TempWorkspace {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// Its root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Makes it a git repository on branch `main`.
    pub fn git(self) -> Self {
        git(self.path(), &["init", "-q", "-b", "main"]);
        self
    }

    /// Runs `memlint init` in it, which must succeed.
    pub fn init(self) -> Self {
        self.init_with(&[])
    }

    /// Runs `memlint init ARGS` in it, which must succeed.
    pub fn init_with(self, args: &[&str]) -> Self {
        let run = Memlint::new(self.path()).arg("init").args(args).run();
        assert_eq!(run.code, 0, "memlint init {args:?}: {run:?}");
        self
    }

    /// Writes the configuration, `.memlint.yml`.
    pub fn config(self, yaml: &str) -> Self {
        self.file(".memlint.yml", yaml)
    }

    /// Writes `text` to `rel`, creating directories.
    pub fn file(self, rel: &str, text: &str) -> Self {
        write(self.path(), rel, text);
        self
    }

    /// Commits everything with `message` (the directory must be a
    /// repository: [`TempWorkspace::git`]).
    pub fn commit(self, message: &str) -> Self {
        git(self.path(), &["add", "-A"]);
        git(
            self.path(),
            &["commit", "-q", "--allow-empty", "-m", message],
        );
        self
    }

    /// The directory, removed when dropped.
    pub fn build(self) -> tempfile::TempDir {
        self.dir
    }
}

impl Default for TempWorkspace {
    fn default() -> Self {
        Self::new()
    }
}

/// The `sources` key with one line per source (none: a key without a
/// value).
fn sources_yaml(sources: &[&str]) -> String {
    let mut text = String::from("sources:\n");
    for s in sources {
        text.push_str(&format!("  - {s}\n"));
    }
    text
}

/// An active decision dated 2026-01-02 citing `sources` (one per line).
pub fn decision(title: &str, sources: &[&str]) -> String {
    format!(
        "---\ntitle: {title}\nstatus: active\ndate: 2026-01-02\n{}---\n\nBody.\n",
        sources_yaml(sources)
    )
}

/// An open request dated 2026-01-02 citing `sources`.
pub fn request(title: &str, sources: &[&str]) -> String {
    format!(
        "---\ntitle: {title}\nstatus: open\ndate: 2026-01-02\n{}---\n\nBody.\n",
        sources_yaml(sources)
    )
}

/// A knowledge record dated 2026-01-02 citing `sources`, injected at
/// session start when `model_invocation` is true.
pub fn knowledge(
    title: &str,
    description: &str,
    model_invocation: bool,
    sources: &[&str],
) -> String {
    format!(
        "---\ntitle: {title}\ndescription: {description}\nmodel_invocation: {model_invocation}\ndate: 2026-01-02\n{}---\n\nBody.\n",
        sources_yaml(sources)
    )
}

/// The rolling summary, updated 2026-01-02.
pub fn summary(title: &str, body: &str) -> String {
    format!("---\ntitle: {title}\nupdated: 2026-01-02\n---\n\n{body}")
}

/// Sets the mtime of every directory under `root` (and `root`) an hour back,
/// so the listing cache trusts them.
pub fn age_directories(root: &Path) {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let entry = entry.expect("entry");
            if entry.file_type().expect("type").is_dir() {
                stack.push(entry.path());
            }
        }
        age(&dir);
    }
}

/// Sets the mtime of a file or directory an hour back, so that the listing
/// cache trusts it (an ignore file just written is not trusted either).
pub fn age(path: &Path) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let file = if path.is_dir() {
        fs::File::open(path)
    } else {
        fs::File::options().append(true).open(path)
    };
    file.and_then(|f| f.set_modified(past))
        .unwrap_or_else(|e| panic!("set the mtime of {}: {e}", path.display()));
}

/// The `path` of every result of `memlint search --format json`, in order.
pub fn result_paths(json: &serde_json::Value) -> Vec<String> {
    json["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["path"].as_str().expect("path").to_string())
        .collect()
}

/// Sets up `cmd` (pre-commit, pip, maturin) to build memlint quickly in
/// `<target>/pre-commit`: a release build without the optimiser, so the
/// dependencies are compiled once and shared by the wheel and pre-commit
/// tests (the hooks and the packaging are tested, not the optimiser).
pub fn quick_release_build(cmd: &mut Command) -> &mut Command {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("pre-commit");
    cmd.env("CARGO_TARGET_DIR", &target)
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
        .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
        .env("CARGO_INCREMENTAL", "0")
        .env("PRE_COMMIT_HOME", target.join("home"))
}

/// Held by each test that builds with [`quick_release_build`]: they share
/// its target directory and pre-commit home, and run one at a time, as
/// they did when each was a test binary of its own.
pub fn packaging_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether the slow packaging tests (wheel, pre-commit builds) are turned
/// off by `MEMLINT_SKIP_PACKAGING_TESTS=1`; says so when they are.
pub fn packaging_tests_skipped(test: &str) -> bool {
    let off = std::env::var("MEMLINT_SKIP_PACKAGING_TESTS").is_ok_and(|v| v == "1");
    if off {
        eprintln!("SKIPPED {test}: MEMLINT_SKIP_PACKAGING_TESTS=1");
    }
    off
}

/// Builds the `memlint-cli` wheel (python/memlint-cli) with `python -m
/// maturin` into `out` and returns its path; `None` (with a message) when
/// that Python has no maturin.
pub fn build_wheel(out: &Path) -> Option<PathBuf> {
    let python = ["python3", "python"].into_iter().find(|py| {
        Command::new(py)
            .args(["-m", "maturin", "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    })?;
    let mut build = Command::new(python);
    build
        .args(["-m", "maturin", "build", "--release", "--out"])
        .arg(out)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("python/memlint-cli"));
    let started = std::time::Instant::now();
    let done = quick_release_build(&mut build)
        .output()
        .expect("run maturin");
    assert!(
        done.status.success(),
        "maturin build failed:\n{}{}",
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr)
    );
    eprintln!("wheel built in {:.1?}", started.elapsed());
    let wheel = fs::read_dir(out)
        .expect("wheels")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .expect("maturin wrote no wheel");
    Some(wheel)
}

/// `program ARGS` in `dir` with [`test_identity`], colours off, and the
/// memlint under test first on `PATH`, so that git runs it as a merge
/// driver or hook.
pub fn run_on_path(dir: &Path, program: &str, args: &[&str]) -> std::process::Output {
    let bin_dir = Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(program);
    test_identity(cmd.args(args).current_dir(dir))
        .env("PATH", path)
        .env("NO_COLOR", "1");
    cmd.output().expect("run")
}

/// [`run_on_path`], failing the test unless it succeeds; its standard output.
pub fn ok_on_path(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = run_on_path(dir, program, args);
    assert!(
        out.status.success(),
        "{program} {args:?} in {}: {}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// (path, line) of the findings of `rule` that `memlint check --format json
/// ARGS` reports in `root`.
pub fn rule_findings(root: &Path, rule: &str, args: &[&str]) -> Vec<(String, u64)> {
    rule_messages(root, rule, args)
        .into_iter()
        .map(|(path, line, _)| (path, line))
        .collect()
}

/// (path, line, message) of the findings of `rule` that `memlint check
/// --format json ARGS` reports in `root`.
pub fn rule_messages(root: &Path, rule: &str, args: &[&str]) -> Vec<(String, u64, String)> {
    rule_json(root, rule, args)
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or("").to_string(),
                d["line"].as_u64().unwrap_or(0),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The JSON diagnostics of `rule` that `memlint check --format json ARGS`
/// reports in `root`, in its order.
pub fn rule_json(root: &Path, rule: &str, args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let run = memlint(root, &all);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == rule)
        .cloned()
        .collect()
}

/// Whether `strace` runs here (the tests that count system calls need
/// it); when not, says so on standard error for the skipping test.
/// Runs `memlint ARGS` in `dir` under `strace -f -qq -y -e trace=CALLS`
/// (no colour, no `COLUMNS`), the log kept outside the workspace (a file
/// made in it would change what memlint sees): its standard output and
/// the trace. `None` when strace cannot run here (said on stderr).
pub fn strace(dir: &Path, calls: &str, args: &[&str]) -> Option<(String, String)> {
    if !strace_runs() {
        return None;
    }
    let logs = tempfile::tempdir().expect("tempdir");
    let log = logs.path().join("strace.log");
    let out = Command::new("strace")
        .args(["-f", "-qq", "-y", "-e", &format!("trace={calls}"), "-o"])
        .arg(&log)
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .expect("strace");
    assert!(out.status.code().is_some(), "memlint {args:?} was killed");
    let trace = std::fs::read_to_string(&log).expect("trace");
    Some((String::from_utf8_lossy(&out.stdout).into_owned(), trace))
}

pub fn strace_runs() -> bool {
    let runs = Command::new("strace")
        .args(["-qq", "-o", "/dev/null", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        eprintln!("strace cannot run here: skipped");
    }
    runs
}
