//! `memlint hook session-start|post-write|stop` (docs/agent-hooks.md): adapters for the
//! hooks of Claude Code style agent runtimes. They never block a session
//! because memory is broken: `session-start` and `stop` always proceed;
//! `post-write` blocks only to hand lint errors back to the agent.
//!
//! The front end reads the runtime's JSON and the environment and passes
//! them in ([`Request`]); each hook returns what to print and what the
//! runtime should do ([`Reply`]).

use crate::engine::workspace::find_root;
use crate::model::workspace::{Problem, Workspace};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long `session-start` may take before it prints what it has (the
/// runtime's timeout is 20 s). `MEMLINT_SESSION_START_BUDGET_MS` overrides.
pub(crate) const SESSION_START_BUDGET: Duration = Duration::from_secs(15);

/// What a hook is given: where it was asked to run (`--root`,
/// `--config`), the process's current directory, the runtime's JSON and
/// the environment.
pub(crate) struct Request<'a> {
    /// The agent runtime whose protocol to answer in (`--agent`); `None`:
    /// recognised from the input ([`crate::engine::agents::Agent::recognise`]).
    pub agent: Option<crate::engine::agents::Agent>,
    /// `--root`, relative to `cwd`.
    pub root: Option<PathBuf>,
    /// `--config`.
    pub config: Option<PathBuf>,
    /// The current directory (`None` when it cannot be read: the hook then
    /// does nothing).
    pub cwd: Option<PathBuf>,
    /// The runtime's JSON from standard input (`Null` when there was none
    /// or it was not JSON).
    pub input: serde_json::Value,
    /// Reads an environment variable.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The front end's words for the advice the context ends with when cut
    /// (and the advice of a workspace that cannot be loaded).
    pub words: crate::engine::advice::Words,
    /// The front end's names for what its messages name (a root that is no
    /// directory).
    pub names: crate::engine::advice::Names,
}

impl Request<'_> {
    /// The agent runtime to answer: `--agent`, else recognised from the
    /// input.
    pub(crate) fn agent(&self) -> crate::engine::agents::Agent {
        self.agent
            .unwrap_or_else(|| crate::engine::agents::Agent::recognise(&self.input))
    }
}

/// What the runtime should do after the hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Go on (exit 0).
    Proceed,
    /// Hand standard error back to the agent to act on (exit 2).
    Block,
    /// Stop the agent: standard output holds `{"continue": false, …}`
    /// (exit 0, as the runtime expects for a JSON answer).
    Stop,
}

/// What a hook prints and what the runtime should do.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    /// For standard output (the context; the stop request).
    pub stdout: String,
    /// For standard error: notes and warnings, each line starting with
    /// `memlint hook:`, or the lint errors for the agent.
    pub stderr: String,
    /// What the runtime should do.
    pub verdict: Verdict,
}

impl Reply {
    pub(crate) fn new() -> Reply {
        Reply {
            stdout: String::new(),
            stderr: String::new(),
            verdict: Verdict::Proceed,
        }
    }

    /// Adds one line to standard error.
    pub(crate) fn note(&mut self, line: impl std::fmt::Display) {
        let _ = writeln!(self.stderr, "memlint hook: {line}");
    }
}

/// The workspace root: `--root`, else discovered from the runtime's `cwd`
/// (when it names a directory), else from the current directory.
fn root_of(request: &Request) -> Option<PathBuf> {
    let cwd = request.cwd.clone()?;
    if let Some(r) = &request.root {
        return Some(cwd.join(r));
    }
    // Cursor sends no `cwd`, only its `workspace_roots`.
    let start = request
        .input
        .get("cwd")
        .and_then(|c| c.as_str())
        .or_else(|| {
            request
                .input
                .pointer("/workspace_roots/0")
                .and_then(|c| c.as_str())
        })
        .map(|c| cwd.join(c))
        .filter(|c| c.is_dir())
        .unwrap_or(cwd);
    let root = find_root(&start);
    if crate::engine::workspace::is_workspace(&root) {
        return Some(root);
    }
    // Without `.memlint.yml` or git to mark the root, a session that runs
    // in a subdirectory of the workspace finds it by its files.
    Some(
        start
            .ancestors()
            .find(|dir| crate::engine::workspace::is_workspace(dir))
            .map_or(root, Path::to_path_buf),
    )
}

/// Loads the workspace at `root` (the request's `config` relative to
/// `cwd`); a broken configuration falls back to the defaults with a note
/// (the hooks must keep working). Any other failure is a note in the
/// request's words.
fn load(
    at: &crate::engine::workspace::Surroundings,
    root: &Path,
    request: &Request,
    reply: &mut Reply,
) -> Option<Workspace> {
    match crate::engine::workspace::load(at, Some(root), request.config.as_deref()) {
        Ok(ws) => Some(ws),
        Err(e @ crate::engine::workspace::WorkspaceError::Config { .. }) => {
            for line in e.to_string().lines() {
                reply.note(line);
            }
            reply.note("using the default configuration");
            let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
            let mut ws = Workspace::new(root, crate::model::config::Config::default());
            ws.env_max_chars = crate::engine::context::settings::env_max_chars(at.env);
            Some(ws)
        }
        Err(e) => {
            let advice = e.advice().map(|a| (request.words)(&a)).unwrap_or_default();
            reply.note(format_args!("{}{advice}", e.text(request.names)));
            None
        }
    }
}

/// Says on standard error what reading the workspace met (an unreadable
/// directory, an ignore file not read, a `.memlint` that keeps no cache);
/// the hook's verdict stays what it is: a broken memory never blocks the
/// agent.
fn tell_problems(problems: Vec<Problem>, reply: &mut Reply) {
    for p in crate::model::workspace::reported(problems) {
        let level = if p.is_error() { "error" } else { "warning" };
        reply.note(format_args!("{level}: {p}"));
    }
}

/// The workspace the hook's input points at (`--root`, else the runtime's
/// `cwd`), when it is one memlint can load.
pub(crate) fn workspace_of(request: &Request, reply: &mut Reply) -> Option<Workspace> {
    let root = root_of(request)?;
    if !crate::engine::workspace::is_workspace(&root) {
        return None;
    }
    let cwd = request.cwd.as_deref()?;
    let at = crate::engine::workspace::Surroundings {
        cwd,
        env: request.env,
    };
    load(&at, &root, request, reply)
}

/// `memlint hook session-start`: refreshes the index and returns the
/// context (`--brief` after a compaction). Always proceeds.
///
/// When the refresh would overrun the time budget (a cold index on a very
/// large workspace on a slow disk), the context comes from what is at
/// hand without waiting — `CONTEXT.md` and the records of the stored index,
/// if any — and the refresh is left running: the front end prints the
/// reply and ends the process (the refresh's writes are atomic); the index
/// is brought up to date by the next command that needs it (the `stop`
/// hook at the end of the turn).
pub(crate) fn session_start(request: &Request) -> Reply {
    let mut reply = Reply::new();
    let env = request.env;
    if crate::engine::context::inject_disabled(env) {
        return reply;
    }
    let Some(ws) = workspace_of(request, &mut reply) else {
        return reply;
    };
    // The session's post-write attempts start afresh, also on a resume
    // or after a compaction.
    crate::store::failures::start_session(
        &ws,
        session_of(&request.input),
        crate::model::clock::now_secs(),
    );
    let brief = request.input.get("source").and_then(|s| s.as_str()) == Some("compact");
    let flags = crate::engine::context::Flags {
        brief,
        ..Default::default()
    };
    let (settings, warnings) =
        crate::engine::context::Settings::resolve(&ws.config.context, &flags, env, request.words);
    for w in warnings {
        reply.note(w);
    }
    let budget = env("MEMLINT_SESSION_START_BUDGET_MS")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(SESSION_START_BUDGET, Duration::from_millis);

    // A budget of zero takes the stale path at once: a refresh that won
    // the race against the timer would otherwise be waited for.
    let fresh = (!budget.is_zero()).then(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        let ws = ws.clone();
        let max_chars = settings.max_chars;
        std::thread::spawn(move || {
            let _ = tx.send(crate::engine::context::gather(&ws, max_chars));
        });
        rx.recv_timeout(budget).ok()
    });
    let (material, context) = match fresh.flatten() {
        Some(mut material) => {
            let context = crate::engine::context::render(&material, &settings);
            tell_problems(std::mem::take(&mut material.problems), &mut reply);
            (material, context)
        }
        None => {
            reply.note(format_args!(
                "the index refresh took longer than {} ms; the context comes from the stored index and is refreshed later",
                budget.as_millis()
            ));
            let material = crate::engine::context::gather_stale(&ws, settings.max_chars);
            let context = crate::engine::context::render(&material, &settings);
            (material, context)
        }
    };
    // In the agent's own protocol: plain text for Claude Code, JSON for
    // the others.
    reply.stdout = request.agent().session_start_answer(&context);
    // The prompt hook starts afresh too, counting the resident knowledge
    // this context shows as already injected.
    let shown = shown_resident(&material, &context);
    crate::store::prompted::start_session(
        &ws,
        session_of(&request.input),
        shown,
        crate::model::clock::now_secs(),
    );
    reply
}

/// The keys (see the prompt hook) of the resident knowledge records whose
/// line the rendered `context` shows.
fn shown_resident(
    material: &crate::store::material::Material,
    context: &str,
) -> std::collections::BTreeSet<String> {
    let lines: std::collections::BTreeSet<&str> = context.lines().collect();
    material
        .resident
        .iter()
        .filter(|(slug, _)| {
            let plain = format!("- {slug}");
            lines.contains(plain.as_str()) || context.contains(&format!("{plain} — "))
        })
        .map(|(slug, _)| crate::store::prompted::resident_key(slug))
        .collect()
}

/// `memlint hook stop`: rotates `CONTEXT.md` (`MEMORY_KEEP_N` blocks, default
/// 5) and refreshes the index. Always proceeds. What it did goes to
/// standard output for Claude Code (which logs it) and to standard error
/// for the others, whose end-of-turn hooks take only JSON there.
pub(crate) fn stop(request: &Request) -> Reply {
    let mut reply = stop_quietly(request);
    if request.agent() != crate::engine::agents::Agent::Claude {
        let said = std::mem::take(&mut reply.stdout);
        for line in said.lines() {
            reply.note(line);
        }
    }
    reply
}

/// [`stop`], its report on standard output.
fn stop_quietly(request: &Request) -> Reply {
    let mut reply = Reply::new();
    let Some(ws) = workspace_of(request, &mut reply) else {
        return reply;
    };
    let (keep, warnings) = crate::engine::context::keep_n(None, request.env);
    for w in warnings {
        reply.note(w);
    }
    match crate::engine::context::rotate(&ws.root, keep, false, ws.config.max_file_bytes) {
        Ok(done @ crate::engine::context::RotateOutcome::Rotated { .. }) => {
            reply.stdout.push_str(&done.human(request.words))
        }
        Ok(done @ crate::engine::context::RotateOutcome::Raced) => {
            let _ = write!(reply.stderr, "memlint hook: {}", done.human(request.words));
        }
        Ok(_) => {}
        Err(e) => reply.note(e),
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
        reply.note(format_args!("cannot write the index: {e}"));
    }
    tell_problems(listing.problems, &mut reply);
    reply
}

/// The runtime's session id (`""` when it sends none: hooks without one
/// share their counts).
pub(crate) fn session_of(input: &serde_json::Value) -> &str {
    input
        .get("session_id")
        .and_then(|s| s.as_str())
        .unwrap_or("")
}

/// The tools whose writes `post-write` lints.
const WRITE_TOOLS: [&str; 3] = ["Write", "Edit", "MultiEdit"];

/// `memlint hook post-write`: lints the record a Write/Edit/MultiEdit just
/// changed, with the cross-record rules. Errors go to standard error and
/// block, so the runtime hands them to the agent; after
/// `post_write.max_failures` consecutive failures for the same file it
/// answers `{"continue": false, "stopReason": …}` instead
/// ([`Verdict::Stop`]). A clean lint resets the count. Anything that is not
/// a record of this workspace proceeds silently.
///
/// # Examples
///
/// ```ignore
/// use memlint::engine::hook::{post_write, Request, Verdict};
///
/// let input = serde_json::json!({
///     "hook_event_name": "PostToolUse",
///     "tool_name": "Write",
///     "tool_input": {"file_path": "memory/decisions/use-gix.md"},
/// });
/// let reply = post_write(&Request {
///     agent: None,
///     root: None,
///     config: None,
///     cwd: std::env::current_dir().ok(),
///     input,
///     env: &|name| std::env::var(name).ok(),
///     words: |_| String::new(),
///     names: |n| n.to_string(),
/// });
/// print!("{}", reply.stdout);
/// eprint!("{}", reply.stderr);
/// let code = if reply.verdict == Verdict::Block { 2 } else { 0 };
/// # let _ = code;
/// ```
pub(crate) fn post_write(request: &Request) -> Reply {
    let mut reply = Reply::new();
    let Some((ws, rel)) = written_record(request, &mut reply) else {
        return reply;
    };
    let listing = crate::store::listing::listing(&ws);
    let files = listing.files;
    tell_problems(listing.problems, &mut reply);
    // Ignored (`.gitignore`, `.memlintignore`) or gone: not memlint's business.
    if files.binary_search(&rel).is_err() {
        return reply;
    }
    let opts = crate::engine::scan::Options {
        force: false,
        progress: None,
    };
    let mut outcome = crate::engine::check::lint::run_with(&ws, &files, &|p: &str| p == rel, &opts);
    // The hook exits right after: the whole workspace's reports are not
    // freed one by one.
    std::mem::forget(std::mem::take(&mut outcome.reports));
    let errors = outcome
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::model::severity::Severity::Error)
        .map(crate::model::diagnostic::Diagnostic::count)
        .sum::<usize>();
    let session = session_of(&request.input);
    let now = crate::model::clock::now_secs();
    if errors == 0 {
        crate::store::failures::reset(&ws, session, &rel, now);
        let formatted = crate::engine::feedback::format_record(&ws, &rel);
        if let Some(context) = crate::engine::feedback::post_write(
            &rel,
            &outcome.diagnostics,
            &formatted,
            request.words,
        ) {
            let out = serde_json::json!({
                "hookSpecificOutput": {
                    "hookEventName": "PostToolUse",
                    "additionalContext": context,
                }
            });
            reply.stdout = format!("{}\n", crate::syntax::sanitize::json_text(&out.to_string()));
        }
        return reply;
    }
    let max = ws.config.post_write.max_failures;
    // Stop the agent at the limit; the next session starts counting afresh.
    let counted = crate::store::failures::bump(&ws, session, &rel, max, now);
    let failures = counted.unwrap_or(1);
    if failures >= max {
        let reason = format!(
            "memlint: {rel} still has {errors} lint error(s) after {failures} attempts to fix it; \
             stopping so a person can look (`memlint check {rel}`)"
        );
        let stop = serde_json::json!({"continue": false, "stopReason": reason}).to_string();
        reply.stdout = format!("{}\n", crate::syntax::sanitize::json_text(&stop));
        reply.verdict = Verdict::Stop;
        return reply;
    }
    let attempt = Attempt {
        rel: &rel,
        errors,
        failures,
        max,
        counted: counted.is_some(),
    };
    reply.stderr.push_str(&attempt.text(&outcome.diagnostics));
    reply.verdict = Verdict::Block;
    reply
}

/// The workspace and the root-relative path of the record the runtime's
/// input says was written, when it is a write of a place memlint lints.
fn written_record(request: &Request, reply: &mut Reply) -> Option<(Workspace, String)> {
    let input = &request.input;
    let tool = input
        .get("tool_name")
        .and_then(|t| t.as_str())
        .unwrap_or("");
    if !WRITE_TOOLS.contains(&tool) {
        return None;
    }
    let file = input
        .pointer("/tool_input/file_path")
        .and_then(|f| f.as_str())
        .filter(|f| !f.is_empty())?;
    let ws = workspace_of(request, reply)?;
    // A relative path is relative to the session's directory.
    let base = input
        .get("cwd")
        .and_then(|c| c.as_str())
        .map(PathBuf::from)
        .or_else(|| request.cwd.clone())
        .unwrap_or_default();
    let mut path = base.join(file);
    if let Ok(canonical) = path.canonicalize() {
        path = canonical;
    }
    let rel = crate::io::walk::relative(&ws, &path).filter(|r| !r.is_empty())?;
    if crate::model::kind::classify(&rel, &ws.config.banned_dirs)
        == crate::model::kind::Place::Outside
    {
        return None;
    }
    Some((ws, rel))
}

/// A failed attempt of the agent at a clean record, as `post-write` tells it.
struct Attempt<'a> {
    rel: &'a str,
    errors: usize,
    failures: u32,
    max: u32,
    /// Whether the failure could be counted (`.memlint/` is writable).
    counted: bool,
}

impl Attempt<'_> {
    /// One line per diagnostic, whatever a file name or message holds,
    /// then what to do.
    fn text(&self, diagnostics: &[crate::model::diagnostic::Diagnostic]) -> String {
        let Attempt {
            errors,
            failures,
            max,
            ..
        } = *self;
        let mut text = String::new();
        let line = crate::syntax::sanitize::line;
        for d in diagnostics {
            let _ = writeln!(
                text,
                "{}:{}:{}: {}[{}] {}",
                line(&d.path),
                d.line,
                d.column,
                d.severity.as_str(),
                d.rule,
                line(&d.message)
            );
        }
        let rel = line(self.rel);
        let _ = writeln!(
            text,
            "memlint: {rel} has {errors} error(s) (attempt {failures} of {max}); fix them now. \
             `memlint check {rel}` shows them in context."
        );
        if !self.counted {
            let _ = writeln!(
                text,
                "memlint: warning: attempts cannot be counted ({}/ cannot be written), so memlint will not stop you; stop after {max} attempts yourself.",
                crate::io::cache::DIR
            );
        }
        text
    }
}
