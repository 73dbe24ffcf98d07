//! `memlint hook session-start|post-write|stop` (SPEC §6): adapters for the
//! hooks of Claude Code style agent runtimes. They read the runtime's JSON on
//! standard input and never block a session because memory is broken:
//! `session-start` and `stop` exit 0 whatever happens; `post-write` exits 2
//! only to hand lint errors back to the agent.

use crate::engine::workspace::{find_root, Workspace};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// The failure counts of `post-write`, under `.memlint/`.
pub const FAILURES_FILE: &str = "post-write-failures.json";

/// How long `session-start` may take before it prints what it has (the
/// runtime's timeout is 20 s). `MEMLINT_SESSION_START_BUDGET_MS` overrides.
pub const SESSION_START_BUDGET: Duration = Duration::from_secs(15);

/// Where the hook was asked to run: `--root`, `--config`.
#[derive(Debug, Clone, Default)]
pub struct Place {
    pub root: Option<PathBuf>,
    pub config: Option<PathBuf>,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// A panic inside a hook is reported on standard error and ends the process
/// with exit 0: a bug in memlint must not block the agent either.
fn never_fail_on_panic() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("memlint hook: internal error{at}; please report this bug");
        std::process::exit(0);
    }));
}

/// Standard input as JSON (`Null` when it is a terminal, empty or invalid).
fn read_input() -> serde_json::Value {
    use std::io::IsTerminal;
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return serde_json::Value::Null;
    }
    let mut bytes = Vec::new();
    let _ = stdin.lock().take(16 << 20).read_to_end(&mut bytes);
    serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null)
}

/// The workspace root: `--root`, else discovered from the runtime's `cwd`
/// (when it names a directory), else from the current directory.
fn root_of(place: &Place, input: &serde_json::Value) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    if let Some(r) = &place.root {
        return Some(cwd.join(r));
    }
    let start = input
        .get("cwd")
        .and_then(|c| c.as_str())
        .map(|c| cwd.join(c))
        .filter(|c| c.is_dir())
        .unwrap_or(cwd);
    Some(find_root(&start))
}

/// Whether `root` looks like a memlint workspace at all: without any of its
/// files the hooks stay silent and write nothing.
fn is_workspace(root: &Path) -> bool {
    [
        crate::model::config::FILE_NAME,
        crate::engine::context::CONTEXT_FILE,
        "memory",
        "knowledge",
    ]
    .iter()
    .any(|n| root.join(n).exists())
}

/// Loads the workspace at `root`; a broken configuration falls back to the
/// defaults with a note (the hooks must keep working).
fn load(root: &Path, config: Option<&Path>) -> Option<Workspace> {
    match Workspace::load(Some(root), config) {
        Ok(ws) => Some(ws),
        Err(e @ crate::engine::workspace::WorkspaceError::Config { .. }) => {
            for line in e.to_string().lines() {
                eprintln!("memlint hook: {line}");
            }
            eprintln!("memlint hook: using the default configuration");
            let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
            Some(Workspace::new(
                root,
                crate::model::config::Config::default(),
            ))
        }
        Err(e) => {
            eprintln!("memlint hook: {e}");
            None
        }
    }
}

/// Says on standard error what the walks of `ws` left out (an unreadable
/// directory, an ignore file not read); the hook's exit code stays what it
/// is: a broken memory never blocks the agent.
fn tell_problems(ws: &Workspace) {
    for p in ws.take_problems() {
        let level = if p.is_error() { "error" } else { "warning" };
        eprintln!("memlint hook: {level}: {p}");
    }
}

fn print(text: &str) {
    crate::syntax::sanitize::write_out(text);
}

/// The workspace the hook's input points at (`--root`, else the runtime's
/// `cwd`), when it is one memlint can load.
fn workspace_of(place: &Place, input: &serde_json::Value) -> Option<Workspace> {
    let root = root_of(place, input)?;
    if !is_workspace(&root) {
        return None;
    }
    load(&root, place.config.as_deref())
}

/// `memlint hook session-start`: refreshes the index and prints the context
/// (`--brief` after a compaction). Exit 0 always.
///
/// When the refresh would overrun the time budget (a cold index on a very
/// large workspace on a slow disk), the context is printed from what is at
/// hand without waiting — `CONTEXT.md` and the records of the stored index,
/// if any — and the process ends; the index is brought up to date by the
/// next command that needs it (the `stop` hook at the end of the turn).
pub fn session_start(place: &Place) -> ExitCode {
    never_fail_on_panic();
    let input = read_input();
    if crate::engine::context::inject_disabled(&env) {
        return ExitCode::SUCCESS;
    }
    let Some(ws) = workspace_of(place, &input) else {
        return ExitCode::SUCCESS;
    };
    let brief = input.get("source").and_then(|s| s.as_str()) == Some("compact");
    let flags = crate::engine::context::Flags {
        brief,
        ..Default::default()
    };
    let (settings, warnings) =
        crate::engine::context::Settings::resolve(&ws.config.context, &flags, &env);
    for w in warnings {
        eprintln!("memlint hook: {w}");
    }
    let budget = env("MEMLINT_SESSION_START_BUDGET_MS")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(SESSION_START_BUDGET, Duration::from_millis);

    let (tx, rx) = std::sync::mpsc::channel();
    {
        let ws = ws.clone();
        let max_chars = settings.max_chars;
        std::thread::spawn(move || {
            let _ = tx.send(crate::engine::context::gather(&ws, max_chars));
        });
    }
    match rx.recv_timeout(budget) {
        Ok(material) => {
            print(&crate::engine::context::render(&material, &settings));
            tell_problems(&ws);
        }
        Err(_) => {
            eprintln!(
                "memlint hook: the index refresh took longer than {} ms; the context comes from the stored index and is refreshed later",
                budget.as_millis()
            );
            let material = crate::engine::context::gather_stale(&ws, settings.max_chars);
            print(&crate::engine::context::render(&material, &settings));
            // The refresh thread is abandoned: its writes are atomic.
            std::process::exit(0);
        }
    }
    ExitCode::SUCCESS
}

/// `memlint hook stop`: rotates `CONTEXT.md` (`MEMORY_KEEP_N` blocks, default
/// 5) and refreshes the index. Exit 0 always.
pub fn stop(place: &Place) -> ExitCode {
    never_fail_on_panic();
    let input = read_input();
    let Some(ws) = workspace_of(place, &input) else {
        return ExitCode::SUCCESS;
    };
    let (keep, warnings) = crate::engine::context::keep_n(None, &env);
    for w in warnings {
        eprintln!("memlint hook: {w}");
    }
    match crate::engine::context::rotate(&ws.root, keep, false) {
        Ok(done @ crate::engine::context::RotateOutcome::Rotated { .. }) => print(&done.human()),
        Ok(done @ crate::engine::context::RotateOutcome::Raced) => {
            eprint!("memlint hook: {}", done.human())
        }
        Ok(_) => {}
        Err(e) => eprintln!("memlint hook: {e}"),
    }
    // Before the files are listed, so that any later change shows.
    let watch = crate::io::watch::stamp(&ws);
    let listing = crate::store::listing::listing(&ws);
    let opts = crate::engine::scan::Options {
        force: false,
        progress: None,
    };
    // The record table and the search index, so that the next session's
    // first search answers at once.
    if let Err(e) = crate::engine::search::refresh(&ws, &listing, &opts, watch)
        .0
        .saved
    {
        eprintln!("memlint hook: cannot write the index: {e}");
    }
    tell_problems(&ws);
    ExitCode::SUCCESS
}

/// The tools whose writes `post-write` lints.
const WRITE_TOOLS: [&str; 3] = ["Write", "Edit", "MultiEdit"];

/// `memlint hook post-write`: lints the record a Write/Edit/MultiEdit just
/// changed, with the cross-record rules. Errors go to standard error with
/// exit 2, so the runtime hands them to the agent; after
/// `post_write.max_failures` consecutive failures for the same file it
/// prints `{"continue": false, "stopReason": …}` instead and exits 0. A
/// clean lint resets the count. Anything that is not a record of this
/// workspace exits 0 silently.
pub fn post_write(place: &Place) -> ExitCode {
    never_fail_on_panic();
    let input = read_input();
    let tool = input
        .get("tool_name")
        .and_then(|t| t.as_str())
        .unwrap_or("");
    if !WRITE_TOOLS.contains(&tool) {
        return ExitCode::SUCCESS;
    }
    let Some(file) = input
        .pointer("/tool_input/file_path")
        .and_then(|f| f.as_str())
        .filter(|f| !f.is_empty())
    else {
        return ExitCode::SUCCESS;
    };
    let Some(ws) = workspace_of(place, &input) else {
        return ExitCode::SUCCESS;
    };
    // A relative path is relative to the session's directory.
    let base = input
        .get("cwd")
        .and_then(|c| c.as_str())
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let mut path = base.join(file);
    if let Ok(canonical) = path.canonicalize() {
        path = canonical;
    }
    let Some(rel) = ws.relative(&path).filter(|r| !r.is_empty()) else {
        return ExitCode::SUCCESS;
    };
    if crate::model::kind::classify(&rel, &ws.config.banned_dirs)
        == crate::model::kind::Place::Outside
    {
        return ExitCode::SUCCESS;
    }
    let files = crate::store::listing::files(&ws);
    tell_problems(&ws);
    // Ignored (`.gitignore`, `.memlintignore`) or gone: not memlint's business.
    if files.binary_search(&rel).is_err() {
        return ExitCode::SUCCESS;
    }
    let opts = crate::engine::scan::Options {
        force: false,
        progress: None,
    };
    let mut outcome = crate::engine::check::run_with(&ws, &files, &|p: &str| p == rel, &opts);
    // The hook exits right after: the whole workspace's reports are not
    // freed one by one.
    std::mem::forget(std::mem::take(&mut outcome.reports));
    let errors = outcome
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::model::diagnostic::Severity::Error)
        .map(crate::model::diagnostic::Diagnostic::count)
        .sum::<usize>();
    if errors == 0 {
        failures::reset(&ws.root, &rel);
        return ExitCode::SUCCESS;
    }
    let max = ws.config.post_write.max_failures;
    // Stop the agent at the limit; the next session starts counting afresh.
    let counted = failures::bump(&ws.root, &rel, max);
    let failures = counted.unwrap_or(1);
    if failures >= max {
        let reason = format!(
            "memlint: {rel} still has {errors} lint error(s) after {failures} attempts to fix it; \
             stopping so a person can look (`memlint check {rel}`)"
        );
        let stop = serde_json::json!({"continue": false, "stopReason": reason}).to_string();
        print(&format!("{}\n", crate::syntax::sanitize::json_text(&stop)));
        return ExitCode::SUCCESS;
    }
    let counted = counted.is_some();
    let mut text = String::new();
    // One line per diagnostic, whatever a file name or message holds.
    let line = crate::syntax::sanitize::line;
    for d in &outcome.diagnostics {
        text.push_str(&format!(
            "{}:{}:{}: {}[{}] {}\n",
            line(&d.path),
            d.line,
            d.column,
            d.severity.as_str(),
            d.rule,
            line(&d.message)
        ));
    }
    let rel = line(&rel);
    text.push_str(&format!(
        "memlint: {rel} has {errors} error(s) (attempt {failures} of {max}); fix them now. \
         `memlint check {rel}` shows them in context.\n"
    ));
    if !counted {
        text.push_str(&format!(
            "memlint: warning: attempts cannot be counted ({}/ cannot be written), so memlint will not stop you; stop after {max} attempts yourself.\n",
            crate::store::table::DIR
        ));
    }
    eprint!("{text}");
    ExitCode::from(2)
}

/// The consecutive post-write failures of each file (SPEC §6), in
/// `.memlint/post-write-failures.json` (`{"<root-relative path>": count}`).
/// Every change is a read-modify-write under an exclusive `flock` on
/// `.memlint/post-write-failures.lock`, so parallel hooks never lose one.
mod failures {
    use std::path::Path;

    type Counts = std::collections::BTreeMap<String, u32>;

    /// The lock file beside [`super::FAILURES_FILE`].
    const LOCK_FILE: &str = "post-write-failures.lock";

    /// Counts one more failure of `rel` and returns the count, forgetting
    /// it at `max`. `None` when `.memlint/` cannot be written (nothing is
    /// counted then).
    pub fn bump(root: &Path, rel: &str, max: u32) -> Option<u32> {
        update(root, |counts| {
            let n = counts.get(rel).copied().unwrap_or(0).saturating_add(1);
            if n >= max {
                counts.remove(rel);
            } else {
                counts.insert(rel.to_string(), n);
            }
            Some(n)
        })
        .flatten()
    }

    /// Forgets the failures of `rel` (a clean lint).
    pub fn reset(root: &Path, rel: &str) {
        // Without a count there is nothing to lock for.
        if read(
            &root
                .join(crate::store::table::DIR)
                .join(super::FAILURES_FILE),
        )
        .contains_key(rel)
        {
            update(root, |counts| counts.remove(rel).map(|_| ()));
        }
    }

    /// Runs `change` on the counts under the lock and writes them when it
    /// returns `Some`. `None` when the lock or the file cannot be written.
    fn update<R>(root: &Path, change: impl FnOnce(&mut Counts) -> Option<R>) -> Option<Option<R>> {
        let dir = crate::store::table::make_dir(root).ok()?;
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK_FILE))
            .ok()?;
        lock.lock().ok()?;
        let path = dir.join(super::FAILURES_FILE);
        let mut counts = read(&path);
        let Some(out) = change(&mut counts) else {
            return Some(None);
        };
        let text = serde_json::to_string_pretty(&counts).ok()?;
        crate::io::fs::write_cache(&path, text.as_bytes()).ok()?;
        Some(Some(out))
    }

    fn read(path: &Path) -> Counts {
        crate::io::fs::read_regular(path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }
}
