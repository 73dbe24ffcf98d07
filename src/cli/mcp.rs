//! `memlint mcp`: the memory as tools for any agent, over the Model Context
//! Protocol on standard input and output (the official Rust SDK, `rmcp`).
//!
//! Standard output carries protocol messages only; anything else goes to
//! standard error. The tokio runtime the SDK needs is started here, for
//! this command alone, on the current thread. Every tool calls the same
//! engine functions as the command line, and every value it returns goes
//! through the sanitizer: a secret in a record is masked in snippets,
//! bodies and context as `check` masks it.

use crate::engine::advice::{Advice, Name};
use crate::engine::author::{self, AuthorError};
use crate::engine::workspace::WorkspaceError;
use crate::io::git::Asking;
use crate::model::kind::Kind;
use crate::model::workspace::Workspace;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde::Deserialize;
use std::path::PathBuf;
use std::process::ExitCode;

/// Where the server finds its workspace: `--root`, `--config`.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    pub root: Option<PathBuf>,
    pub config: Option<PathBuf>,
}

/// Runs the server until the client closes standard input (exit 0).
pub(crate) fn run(place: Place) -> ExitCode {
    // The workspace must load once before serving: a broken configuration
    // is a clear error at start, not on the first call.
    if let Err(e) = super::settings::load(place.root.as_deref(), place.config.as_deref()) {
        errln!("memlint mcp: error: {}", super::advice::workspace_error(&e));
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            errln!("memlint mcp: error: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let served = runtime.block_on(async {
        let (transport, reader, writer) = super::mcp_stdio::gated_stdio();
        let reader = tokio::spawn(reader);
        let writer = tokio::spawn(writer);
        let served = match (Memory {
            place,
            held: Default::default(),
        })
        .serve(transport)
        .await
        {
            Ok(service) => service
                .waiting()
                .await
                .map(|_| ())
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        // The server is done: stop reading, and let what it wrote reach
        // standard output before the process ends.
        reader.abort();
        let _ = writer.await;
        served
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        // The client went away before or while initializing: nothing to
        // serve, nothing lost.
        Err(e) => {
            errln!("memlint mcp: {e}");
            ExitCode::SUCCESS
        }
    }
}

/// The server: the workspace is loaded again for each call, so a changed
/// `.memlint.yml` counts at once; the search index is kept in memory
/// between calls and used again while nothing it depends on changed
/// ([`crate::engine::search::search_held`]).
#[derive(Debug, Clone)]
struct Memory {
    place: Place,
    held: std::sync::Arc<std::sync::Mutex<Option<crate::engine::search::Held>>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct SearchArgs {
    /// Words to look for (any language; Japanese and Chinese too)
    query: String,
    /// decision, request, knowledge, session, summary or staging
    kind: Option<String>,
    /// Most results (default 10)
    limit: Option<u32>,
    /// Include replaced records
    include_replaced: Option<bool>,
    /// Only records of this day or later, YYYY-MM-DD
    since: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ReadArgs {
    /// A slug, kind:slug (decision:use-gix) or a path relative to the root
    target: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct WriteArgs {
    /// decision, request or knowledge
    kind: String,
    /// One line, at most 120 characters
    title: String,
    /// Markdown body
    body: Option<String>,
    /// Source strings: decision:<slug>, file:<path>, commit:<hex>, session:<id>, https://…
    sources: Vec<String>,
    tags: Option<Vec<String>>,
    /// Knowledge: the one line injected at session start
    description: Option<String>,
    /// Knowledge: inject the description at every session start
    resident: Option<bool>,
    /// The file name; made from the title's ASCII words when absent
    slug: Option<String>,
    /// Slug of a record of the same kind this one replaces
    replaces: Option<String>,
    /// Write it even when its slug looks like an active record's, or its
    /// title and body say nearly the same as one's; point `replaces` here
    /// even when another record already replaces it
    force: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct UpdateArgs {
    /// A slug, kind:slug or a path relative to the root
    target: String,
    title: Option<String>,
    description: Option<String>,
    /// The new markdown body (replaces the old one)
    body: Option<String>,
    /// The new list of sources (replaces the old one)
    sources: Option<Vec<String>>,
    /// The new list of tags (replaces the old one)
    tags: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct RecentArgs {
    /// Most records (default 20)
    limit: Option<u32>,
    /// decision, request, knowledge, session or summary
    kind: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct LogArgs {
    /// A record's slug or path; the whole workspace when absent
    target: Option<String>,
    /// Only commits with Memlint-GC trailers
    gc_only: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct SessionArgs {
    /// import or export
    action: String,
    /// import: the structured 14-section session text
    text: Option<String>,
    /// import: one line saying what the session was about
    description: Option<String>,
    /// import: tags
    tags: Option<Vec<String>>,
    /// export: the CMEM-YYYYMMDD-HHMMSS id
    id: Option<String>,
}

#[tool_router]
impl Memory {
    #[tool(
        description = "Search the project's memory (decisions, requests, knowledge, sessions) by words, best first: path, kind, slug, title, status, date, score, snippet, drifted. Search before starting work and whenever past context is needed. drifted (else null): a cited file changed after the record was written, {source, commit, date}; check it, then `memlint verify SLUG` or replace it (memory_write replaces).",
        annotations(read_only_hint = true)
    )]
    fn memory_search(&self, Parameters(a): Parameters<SearchArgs>) -> CallToolResult {
        notes(self.call(|ws, problems| {
            let kind = parse_kind(a.kind.as_deref(), true)?;
            let query = crate::engine::search::Query {
                text: a.query.clone(),
                kind,
                limit: a.limit.map_or(10, |n| n as usize),
                all: a.include_replaced.unwrap_or(false),
                since: a.since.clone(),
            };
            if a.query.trim().is_empty() {
                return Err(usage("the query is empty"));
            }
            if let Some(d) = a
                .since
                .as_deref()
                .filter(|d| !crate::model::kind::is_date(d))
            {
                return Err(usage(&format!("since `{d}` is not a date YYYY-MM-DD")));
            }
            let opts = crate::engine::scan::Options {
                force: false,
                progress: None,
            };
            // A panic while it was held (caught by `call`) leaves the
            // index in an unknown state: it is dropped then.
            let mut held = self.held.lock().unwrap_or_else(|poisoned| {
                let mut held = poisoned.into_inner();
                *held = None;
                held
            });
            let mut answer = crate::engine::search::search_held(&ws, &mut held, &query, &opts);
            drop(held);
            problems.append(&mut answer.problems);
            let hits = answer.hits;
            let text = super::search::json(&a.query, &hits);
            serde_json::from_str(&text).map_err(|e| usage(&e.to_string()))
        }))
    }

    #[tool(
        description = "Read one record: its fields, body, the records it replaces and the records that cite it. target is a slug, kind:slug or a path. `drifted` says which cited file changed since the record was written, in which commit: such a record may be stale: check it against the file, then run `memlint verify SLUG` if it still holds, or replace it (memory_write with replaces).",
        annotations(read_only_hint = true)
    )]
    fn memory_read(&self, Parameters(a): Parameters<ReadArgs>) -> CallToolResult {
        notes(self.call(|ws, problems| {
            author::show(&ws, &a.target, problems)
                .map(to_value)
                .map_err(author_error)
        }))
    }

    #[tool(
        description = "Save a new decision, request or knowledge record. Every lint rule runs first: on any error nothing is written and the diagnostics come back. Never overwrites; a near-duplicate slug or content is refused naming the record to update instead (force: true writes it anyway). Knowledge needs description. replaces: slug of the record this one supersedes.",
        annotations(destructive_hint = false, idempotent_hint = false)
    )]
    fn memory_write(&self, Parameters(a): Parameters<WriteArgs>) -> CallToolResult {
        self.call(|ws, problems| {
            let kind = parse_kind(Some(&a.kind), false)?;
            let draft = author::Draft {
                kind,
                title: a.title.clone(),
                slug: a.slug.clone(),
                sources: a.sources.clone(),
                tags: a.tags.clone().unwrap_or_default(),
                description: a.description.clone(),
                resident: a.resident.unwrap_or(false),
                body: a.body.clone().unwrap_or_default(),
                date: None,
            };
            let opts = author::NewOptions {
                force: a.force.unwrap_or(false),
                replaces: a.replaces.clone(),
            };
            author::new(&ws, &draft, &opts, &author::today(), problems)
                .map(to_value)
                .map_err(author_error)
        })
    }

    #[tool(
        description = "Change a record in place: title, description, body, sources or tags (lists are replaced whole). Same checks as memory_write. An active decision's title and body are never rewritten: write a new decision with replaces instead.",
        annotations(destructive_hint = true, idempotent_hint = true)
    )]
    fn memory_update(&self, Parameters(a): Parameters<UpdateArgs>) -> CallToolResult {
        self.call(|ws, problems| {
            let changes = author::Changes {
                title: a.title.clone(),
                description: a.description.clone(),
                body: a.body.clone(),
                sources: a.sources.clone(),
                tags: a.tags.clone(),
            };
            author::update(&ws, &a.target, &changes, problems)
                .map(to_value)
                .map_err(author_error)
        })
    }

    #[tool(
        description = "The session-start context: guidance, the newest CONTEXT.md block, resident knowledge and the memory index (newest active records). `(drifted: FILE changed in COMMIT)` marks a record whose cited file changed since: check it, then `memlint verify SLUG` or replace it (memory_write replaces).",
        annotations(read_only_hint = true)
    )]
    fn memory_context(&self) -> CallToolResult {
        let mut result = self.call(|ws, problems| {
            let env = |_: &str| None;
            let (mut settings, _) = crate::engine::context::Settings::resolve(
                &ws.config.context,
                &crate::engine::context::Flags::default(),
                &env,
                words,
            );
            // The default header names commands; a model here has tools.
            if settings.header == crate::model::config::DEFAULT_HEADER {
                settings.header = HEADER.to_string();
            }
            let mut material = crate::engine::context::gather(&ws, settings.max_chars);
            problems.append(&mut material.problems);
            let text = crate::engine::context::render(&material, &settings);
            Ok(serde_json::json!({ "text": text }))
        });
        // The context frames its notes itself: the text as it is.
        if result.is_error != Some(true) {
            if let Some(text) = result
                .structured_content
                .as_ref()
                .and_then(|v| v["text"].as_str())
            {
                result.content = vec![ContentBlock::text(text.to_string())];
            }
        }
        result
    }

    #[tool(
        description = "The newest records by date, newest first: path, kind, slug, title, date, status. Replaced records are left out.",
        annotations(read_only_hint = true)
    )]
    fn memory_recent(&self, Parameters(a): Parameters<RecentArgs>) -> CallToolResult {
        notes(self.call(|ws, problems| {
            let kind = parse_kind(a.kind.as_deref(), true)?;
            let limit = a.limit.map_or(20, |n| n as usize);
            Ok(serde_json::json!({ "records": author::recent(&ws, kind, limit, false, problems) }))
        }))
    }

    #[tool(
        description = "The git history of a record (following renames) or of the whole memory, newest first, with parsed Memlint-GC trailers (why records were removed or merged).",
        annotations(read_only_hint = true)
    )]
    fn memory_log(&self, Parameters(a): Parameters<LogArgs>) -> CallToolResult {
        self.call(|ws, _| {
            let request = crate::engine::log::LogRequest {
                record: a.target.clone(),
                range: None,
                gc_only: a.gc_only.unwrap_or(false),
            };
            crate::engine::log::log(&ws, &request)
                .map(to_value)
                .map_err(|e| usage(&e.text(&|asking| name(&Name::Git(asking)))))
        })
    }

    #[tool(
        description = "Compacted session memories. action import: store a structured 14-section session text (validated; returns its id). action export: the stored text of a CMEM id.",
        annotations(destructive_hint = false)
    )]
    fn session_memory(&self, Parameters(a): Parameters<SessionArgs>) -> CallToolResult {
        self.call(|ws, _| match a.action.as_str() {
            "import" => {
                let text = a
                    .text
                    .as_deref()
                    .ok_or_else(|| usage("import needs text: the session text"))?;
                let tags = a.tags.clone().unwrap_or_default();
                let request = crate::engine::compact::ImportRequest {
                    text: text.as_bytes(),
                    description: a.description.as_deref().unwrap_or(""),
                    tags: &tags,
                    force: false,
                };
                let now = crate::model::clock::now_secs();
                match crate::engine::compact::import(&ws.root, &ws.config, &request, now) {
                    Ok(done) => Ok(serde_json::json!({"id": done.id, "path": done.path})),
                    Err(crate::engine::compact::CompactError::Refused { problems, .. }) => {
                        let problems: Vec<String> = problems
                            .iter()
                            .map(|p| {
                                let at = match p.at {
                                    crate::engine::compact::Location::Text { line, column } => {
                                        format!("{line}:{column}: ")
                                    }
                                    _ => String::new(),
                                };
                                format!("{at}{}[{}] {}", p.severity.as_str(), p.rule, p.message)
                            })
                            .collect();
                        Err(serde_json::json!({
                            "error": "the session text was refused; nothing was stored",
                            "problems": problems,
                        }))
                    }
                    Err(e) => Err(compact_error(&e)),
                }
            }
            "export" => {
                let id =
                    a.id.as_deref()
                        .ok_or_else(|| usage("export needs id: a CMEM-YYYYMMDD-HHMMSS id"))?;
                crate::engine::compact::export(&ws.root, id, ws.config.max_file_bytes)
                    .map(|b| serde_json::json!({"id": id, "text": String::from_utf8_lossy(&b)}))
                    .map_err(|e| compact_error(&e))
            }
            other => Err(usage(&format!(
                "action must be import or export, not `{other}`"
            ))),
        })
    }
}

#[tool_handler(
    name = "memlint",
    instructions = "The project's long-term memory: decisions, user requests, knowledge and session memories kept as markdown records in git. Search it before starting work; save decisions, requests and lasting facts with memory_write as soon as they appear; write absolute dates."
)]
impl ServerHandler for Memory {}

impl Memory {
    /// Runs a tool on the workspace, loaded afresh: its value as
    /// structured content, or its error as a tool error the model can act
    /// on. A panic in the engine becomes a tool error too, and the server
    /// keeps serving. `f` adds to the list it is given what the engine
    /// returned of the problems reading the workspace met; those the model
    /// should hear about are told in the answer.
    fn call(
        &self,
        f: impl FnOnce(
            Workspace,
            &mut Vec<crate::model::workspace::Problem>,
        ) -> Result<serde_json::Value, serde_json::Value>,
    ) -> CallToolResult {
        let place = self.place.clone();
        // What the call was given, kept also when it panicked.
        let mut problems = Vec::new();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let ws = super::settings::load(place.root.as_deref(), place.config.as_deref())
                .map_err(|e| workspace_error(&e))?;
            // Outside a workspace nothing is created (no `.memlint/`, no
            // `memory/`): the tool says there is none.
            if !crate::engine::workspace::is_workspace(&ws.root) {
                let e = WorkspaceError::NoWorkspace { root: ws.root };
                return Err(workspace_error(&e));
            }
            f(ws, &mut problems)
        }))
        .unwrap_or_else(|_| Err(usage("internal error in memlint; please report this bug")));
        let mut result = match outcome {
            Ok(value) => {
                let value = masked(&value);
                let mut result = CallToolResult::structured(value.clone());
                result.content = vec![ContentBlock::text(pretty(&value))];
                result
            }
            Err(value) => {
                let value = masked(&value);
                let mut result = CallToolResult::structured_error(value.clone());
                result.content = vec![ContentBlock::text(readable_error(&value))];
                result
            }
        };
        // What the call met that the model should hear about (`.memlint`
        // could keep no cache): one more text block of this call's answer.
        let cache = problems
            .into_iter()
            .filter(crate::model::workspace::Problem::is_cache)
            .collect();
        for p in crate::model::workspace::reported(cache) {
            result
                .content
                .push(ContentBlock::text(format!("warning: {p}")));
        }
        result
    }
}

/// The session-start header for a model that has memlint's tools (the
/// configured header when `context.header` is set).
const HEADER: &str = "Search memory (memory_search) before starting work and whenever past context is needed. \
Save decisions, user preferences and lasting facts as soon as they appear, not later. \
Always write absolute dates (YYYY-MM-DD), never relative ones.
Save with memory_write (kind decision, request or knowledge; knowledge also takes description and \
resident); a record that changes an earlier decision takes replaces: OLD-SLUG. memory_read reads one.";

/// The MCP server's words for the engine's advice: tools and their
/// parameters, never command-line flags.
fn words(advice: &Advice) -> String {
    match advice {
        // memory_write is the one tool with a force parameter.
        Advice::Force => " (or call memory_write again with force: true to write it anyway)".to_string(),
        Advice::SupersedeOrForce { old } => format!(
            ", or call memory_write with replaces: {old} if this one supersedes it (or again with force: true to write it anyway)"
        ),
        Advice::Retry => ", call the tool again".to_string(),
        Advice::Overrule { then } => format!("; call the tool again with force: true to {then}"),
        Advice::OrOverrule => ", or call the tool again with force: true".to_string(),
        Advice::GiveSlug { example } => format!(
            "; give one in the slug parameter (lowercase ASCII words joined by `-`, such as slug: {example})"
        ),
        Advice::RePoint { old, new } => format!(
            " (or call memory_write again with force: true to re-point `{old}` at `{new}`)"
        ),
        Advice::Search => " memory_search recalls the rest".to_string(),
        Advice::VerifyOrReplace => " then run `memlint verify SLUG` if it still holds, or replace it (memory_write with replaces: SLUG)".to_string(),
        Advice::SearchBrief => " memory_search recalls more".to_string(),
        Advice::ListSessions => {
            " (memory_recent with kind session lists the stored ones)".to_string()
        }
        Advice::SessionTemplate => " (a session text has the 14 level-2 sections from `## Session ID` to `## Notes`, in order)".to_string(),
        Advice::Check { path } => format!(" (fix the front matter in {path} itself)"),
        Advice::ReplaceDecision { slug } => format!(" (memory_write with replaces: {slug})"),
        Advice::Fix { path } => format!("fix: rewrite {path} in its canonical form"),
        Advice::WasForced => " (forced)".to_string(),
        Advice::OrForceDrop => ", or rotate with force to drop them".to_string(),
        Advice::ForceClaim => " a forced claim".to_string(),
        Advice::OrClaimForced => " or claim with force".to_string(),
        Advice::SayKind => "; say which in the kind parameter".to_string(),
        // The server works on the workspace it was started in.
        Advice::NameRoot => ", or start the MCP server in one".to_string(),
        Advice::NameConfig => {
            " (start the MCP server with it as its configuration to use it)".to_string()
        }
        Advice::MergeAgentSettings => {
            " (or let memlint merge them into the runtime's settings)".to_string()
        }
    }
}

/// The MCP server's names for what the engine's messages name: a tool's
/// parameters and the tools themselves, else neutral words.
fn name(name: &Name) -> String {
    match name {
        Name::Git(Asking::Log) => "memory_log".to_string(),
        other => crate::engine::advice::neutral(other),
    }
}

/// A workspace that cannot be used, as a tool error's value in the MCP
/// server's words.
fn workspace_error(e: &WorkspaceError) -> serde_json::Value {
    let advice = e.advice().as_ref().map(words).unwrap_or_default();
    usage(&format!("{}{advice}", e.text(name)))
}

/// A `compact` error as a tool error's value, its advice worded for tools.
fn compact_error(e: &crate::engine::compact::CompactError) -> serde_json::Value {
    // No session tool takes force: that refusal stands.
    let advice = e
        .advice()
        .filter(|a| *a != Advice::Force)
        .as_ref()
        .map(words)
        .unwrap_or_default();
    usage(&format!("{e}{advice}"))
}

/// A usage error as a tool error's value.
fn usage(message: &str) -> serde_json::Value {
    serde_json::json!({ "error": message })
}

/// An authoring refusal as a tool error's value: the message, and for a
/// refusal by the rules each diagnostic (rule, line, column, message, and
/// how `--fix` repairs it when it can), or the similar records.
fn author_error(e: AuthorError) -> serde_json::Value {
    let advice = e.advice().as_ref().map(words).unwrap_or_default();
    let mut value = serde_json::json!({ "error": format!("{e}{advice}") });
    match &e {
        AuthorError::Refused { diagnostics, .. } => {
            let diagnostics: Vec<serde_json::Value> = diagnostics
                .iter()
                .map(|d| {
                    serde_json::json!({
                        "rule": d.rule,
                        "severity": d.severity,
                        "path": d.path,
                        "line": d.line,
                        "column": d.column,
                        "message": d.message,
                        // Nothing was written: the model corrects its
                        // input; the rule's document says why it matters.
                        "fix": if d.fixable {
                            "correct the value as the message says and call the tool again".to_string()
                        } else {
                            format!(
                                "the rule is explained at {}#{}",
                                super::server::state::RULES_DOC,
                                super::server::diagnostics::anchor(d.rule)
                            )
                        },
                    })
                })
                .collect();
            value["diagnostics"] = diagnostics.into();
        }
        AuthorError::AlreadyReplaced { by, path, .. } => {
            value["successor"] = serde_json::json!({"slug": by, "path": path});
        }
        AuthorError::Similar { similar, .. } => {
            let similar: Vec<serde_json::Value> = similar
                .iter()
                .map(|(slug, path)| serde_json::json!({"slug": slug, "path": path}))
                .collect();
            value["similar"] = similar.into();
        }
        AuthorError::Duplicate { duplicates, .. } => {
            let similar: Vec<serde_json::Value> = duplicates
                .iter()
                .map(|(slug, path, percent)| {
                    serde_json::json!({"slug": slug, "path": path, "alike": percent})
                })
                .collect();
            value["similar"] = similar.into();
        }
        _ => {}
    }
    value
}

fn to_value<T: serde::Serialize>(value: T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// `value` with every secret masked and control characters neutralised,
/// as the command line prints it, and its invisible format characters
/// (bidi overrides, zero-width spaces, tag characters) shown: the model
/// reads the decoded strings, where an escape would be invisible again.
fn masked(value: &serde_json::Value) -> serde_json::Value {
    let text = crate::syntax::sanitize::json(value);
    let mut value = serde_json::from_str(&text).unwrap_or_else(|_| value.clone());
    show_invisibles(&mut value);
    value
}

/// Every string of `value` (object keys too) with its invisible format
/// characters shown.
fn show_invisibles(value: &mut serde_json::Value) {
    use crate::syntax::sanitize::invisibles;
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(shown) = invisibles(s) {
                *s = shown;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(show_invisibles),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (k, mut v) in entries {
                show_invisibles(&mut v);
                map.insert(invisibles(&k).into_owned(), v);
            }
        }
        _ => {}
    }
}

/// A result that hands records to the model, its text content framed as
/// notes: the preface line, then the JSON with every line quoted (its
/// strings escape line breaks, so a record's text stays inside its line).
/// The structured content is unchanged.
fn notes(mut result: CallToolResult) -> CallToolResult {
    if result.is_error != Some(true) {
        if let Some(value) = &result.structured_content {
            let text = crate::syntax::framing::framed(&pretty(value));
            // The first block is the value; any after it are warnings.
            match result.content.first_mut() {
                Some(first) => *first = ContentBlock::text(text),
                None => result.content = vec![ContentBlock::text(text)],
            }
        }
    }
    result
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A tool error as the model reads it: the message, then one line per
/// diagnostic or similar record.
fn readable_error(value: &serde_json::Value) -> String {
    let mut text = value["error"].as_str().unwrap_or("error").to_string();
    for d in value["diagnostics"].as_array().into_iter().flatten() {
        text += &format!(
            "\n{}:{}:{}: {}[{}] {} ({})",
            d["path"].as_str().unwrap_or(""),
            d["line"],
            d["column"],
            d["severity"].as_str().unwrap_or(""),
            d["rule"].as_str().unwrap_or(""),
            d["message"].as_str().unwrap_or(""),
            d["fix"].as_str().unwrap_or("")
        );
    }
    for s in value["similar"].as_array().into_iter().flatten() {
        text += &format!(
            "\nsimilar: {} ({})",
            s["slug"].as_str().unwrap_or(""),
            s["path"].as_str().unwrap_or("")
        );
    }
    for p in value["problems"].as_array().into_iter().flatten() {
        text += &format!("\n{}", p.as_str().unwrap_or(""));
    }
    text
}

/// A kind named by a tool argument: its name, or its directory's name
/// (`decisions`). `any` allows every kind, else only the authored ones.
fn parse_kind(name: Option<&str>, any: bool) -> Result<Option<Kind>, serde_json::Value> {
    let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    let kind = Kind::parse(name).filter(|k| any || author::draft::AUTHORED.contains(k));
    match kind {
        Some(k) => Ok(Some(k)),
        None if any => Err(usage(&format!(
            "unknown kind `{name}`: decision, request, knowledge, session, summary or staging"
        ))),
        None => Err(usage(&format!(
            "kind must be decision, request or knowledge, not `{name}`"
        ))),
    }
}
