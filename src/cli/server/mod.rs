//! `memlint server`: a language server over standard input/output
//! (synchronous, on `lsp-server`, the stack rust-analyzer and ruff use).
//! This module is the loop: it reads messages, keeps the open buffers,
//! debounces changes, and hands each request to the module of its concern
//! (diagnostics, actions, formatting, navigation, rename), all of which
//! call the engine. See docs/language-server.md.

mod actions;
pub(super) mod diagnostics;
mod documents;
mod formatting;
mod navigation;
mod rename;
pub(super) mod state;
mod stdio;

use crossbeam_channel::RecvTimeoutError;
use documents::Document;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{notification as n, request as r, Uri};
use serde::de::DeserializeOwned;
use state::State;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How long the buffer must stay unchanged before it is linted again: a
/// burst of keystrokes is linted once, at its end.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// Longest a changed buffer waits for its diagnostics while changes keep
/// coming (a client that never pauses still sees them).
const MAX_DELAY: Duration = Duration::from_millis(1000);

/// `--root` and `--config` as given.
pub(crate) struct Place {
    /// `--root`.
    pub root: Option<PathBuf>,
    /// `--config`.
    pub config: Option<PathBuf>,
}

/// Serves until the client says `exit` or closes the pipe. Exit code 0
/// after `shutdown` then `exit`, 1 otherwise (as the protocol asks).
pub(crate) fn run(place: Place) -> ExitCode {
    let (conn, io) = stdio::connection();
    let served = serve(&conn, &place);
    // The writer stops when the last sender is gone.
    drop(conn);
    // Input given up (an oversized or malformed message) is the cause of
    // whatever the loop then saw: it alone is reported.
    if let Err(e) = io.join() {
        errln!("memlint server: error: {e}");
        return ExitCode::from(1);
    }
    match served {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            errln!("memlint server: error: {e}");
            ExitCode::from(1)
        }
    }
}

/// What the client can do, read from `initialize`.
#[derive(Default)]
struct Client {
    /// It pulls diagnostics (`textDocument/diagnostic`): none are pushed.
    pull: bool,
    /// It accepts `workspace/diagnostic/refresh`.
    refresh: bool,
    /// It applies file renames in workspace edits.
    renames: bool,
    /// It watches files for the server when asked to
    /// (`workspace.didChangeWatchedFiles.dynamicRegistration`).
    watches: bool,
}

struct Server<'c> {
    conn: &'c Connection,
    state: State,
    client: Client,
    /// Buffers changed since they were last linted.
    dirty: BTreeSet<String>,
    /// When the oldest of `dirty` changed.
    dirty_since: Instant,
    shut_down: bool,
    next_id: i32,
}

/// Initializes, then runs the loop. `Ok(true)` when the client shut the
/// server down before `exit`.
fn serve(conn: &Connection, place: &Place) -> Result<bool, String> {
    let (id, params) = conn.initialize_start().map_err(|e| e.to_string())?;
    // Whatever goes wrong now, the client gets an answer, never silence.
    let refuse = |code: ErrorCode, message: String| {
        let response = Response::new_err(id.clone(), code as i32, message.clone());
        let _ = conn.sender.send(response.into());
        message
    };
    // No params, or no capabilities, read as a client that declares none.
    let mut params = match params {
        serde_json::Value::Null => serde_json::json!({}),
        p => p,
    };
    if let Some(o) = params.as_object_mut() {
        o.entry("capabilities")
            .or_insert_with(|| serde_json::json!({}));
    }
    let init: lsp_types::InitializeParams = serde_json::from_value(params)
        .map_err(|e| refuse(ErrorCode::InvalidParams, format!("initialize: {e}")))?;
    let client = Client::of(&init);
    let root = match &place.root {
        Some(r) => r.clone(),
        None => workspace_root(&init),
    };
    let mut state = State::load(root, place.config.clone())
        .map_err(|e| refuse(ErrorCode::InvalidParams, format!("memlint server: {e}")))?;
    if let Some(base) = init
        .initialization_options
        .as_ref()
        .and_then(|o| o.get("rulesDocumentation"))
        .and_then(|v| v.as_str())
    {
        state.rules_doc = base.trim_end_matches('#').to_string();
    }
    let result = lsp_types::InitializeResult {
        capabilities: capabilities(&client),
        server_info: Some(lsp_types::ServerInfo {
            name: "memlint".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    let result = serde_json::to_value(result).map_err(|e| e.to_string())?;
    conn.initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    let mut server = Server {
        conn,
        state,
        client,
        dirty: BTreeSet::new(),
        dirty_since: Instant::now(),
        shut_down: false,
        next_id: 0,
    };
    server.publish_config();
    server.watch_config();
    server.run()
}

/// The root the client names (its first workspace folder, else its root
/// URI, else its root path), as memlint finds a root from there; else the
/// current directory's. A named directory that does not exist is passed
/// over, as if not named.
fn workspace_root(init: &lsp_types::InitializeParams) -> PathBuf {
    #[allow(deprecated)]
    let named = init
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| f.uri.clone())
        .and_then(|u| documents::uri_path(&u))
        .filter(|p| p.is_dir())
        .or_else(|| {
            init.root_uri
                .as_ref()
                .and_then(documents::uri_path)
                .filter(|p| p.is_dir())
        })
        .or_else(|| {
            init.root_path
                .as_deref()
                .map(PathBuf::from)
                .filter(|p| p.is_absolute() && p.is_dir())
        });
    let start = named.unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| ".".into()));
    crate::engine::workspace::find_root(&start)
}

impl Client {
    fn of(init: &lsp_types::InitializeParams) -> Client {
        let caps = &init.capabilities;
        let text = caps.text_document.as_ref();
        let ws = caps.workspace.as_ref();
        Client {
            pull: text.and_then(|t| t.diagnostic.as_ref()).is_some(),
            refresh: ws
                .and_then(|w| w.diagnostic.as_ref())
                .and_then(|d| d.refresh_support)
                .unwrap_or(false),
            watches: ws
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            renames: ws.and_then(|w| w.workspace_edit.as_ref()).is_some_and(|e| {
                e.document_changes == Some(true)
                    && e.resource_operations
                        .as_ref()
                        .is_some_and(|ops| ops.contains(&lsp_types::ResourceOperationKind::Rename))
            }),
        }
    }
}

fn capabilities(client: &Client) -> lsp_types::ServerCapabilities {
    use lsp_types::*;
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        diagnostic_provider: client.pull.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("memlint".into()),
                inter_file_dependencies: true,
                workspace_diagnostics: false,
                ..Default::default()
            })
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::from(actions::FIX_ALL),
            ]),
            ..Default::default()
        })),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_range_formatting_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), " ".into()]),
            ..Default::default()
        }),
        rename_provider: Some(OneOf::Left(true)),
        ..Default::default()
    }
}

/// A request's failure, as the protocol's error response.
struct Failure(ErrorCode, String);

fn invalid(message: impl Into<String>) -> Failure {
    Failure(ErrorCode::InvalidParams, message.into())
}

impl Server<'_> {
    fn run(&mut self) -> Result<bool, String> {
        loop {
            // What the last message's reading met, before waiting again.
            self.tell_notes();
            let waited = self.dirty_since.elapsed();
            let msg = if self.dirty.is_empty() {
                self.conn
                    .receiver
                    .recv()
                    .map_err(|_| RecvTimeoutError::Disconnected)
            } else if waited >= MAX_DELAY {
                Err(RecvTimeoutError::Timeout)
            } else {
                self.conn
                    .receiver
                    .recv_timeout(DEBOUNCE.min(MAX_DELAY - waited))
            };
            match msg {
                Ok(Message::Request(req)) => self.request(req),
                Ok(Message::Notification(not)) if not.method == n::Exit::METHOD => {
                    return Ok(self.shut_down)
                }
                Ok(Message::Notification(not)) => self.notification(not),
                Ok(Message::Response(_)) => {}
                Err(RecvTimeoutError::Timeout) => self.publish_dirty(),
                // The client went away without `exit`.
                Err(RecvTimeoutError::Disconnected) => return Ok(false),
            }
        }
    }

    /// Logs what reading the workspace met (see `State::notes`).
    fn tell_notes(&mut self) {
        for note in std::mem::take(&mut self.state.notes) {
            self.log(lsp_types::MessageType::WARNING, format!("memlint: {note}"));
        }
    }

    fn send(&self, msg: impl Into<Message>) {
        // Only fails when the client is gone; the loop ends on its own then.
        let _ = self.conn.sender.send(msg.into());
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params));
    }

    /// A message in the client's log (`window/logMessage`).
    fn log(&self, typ: lsp_types::MessageType, message: String) {
        self.notify::<n::LogMessage>(lsp_types::LogMessageParams { typ, message });
    }

    fn request(&mut self, req: Request) {
        if self.shut_down {
            let msg = format!("`{}` after shutdown", req.method);
            return self.send(Response::new_err(
                req.id,
                ErrorCode::InvalidRequest as i32,
                msg,
            ));
        }
        let id = req.id.clone();
        let method = req.method.clone();
        // A bug in a handler answers its request with an error; the
        // server and the client's buffers go on.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(req)))
            .unwrap_or_else(|_| {
                Err(Failure(
                    ErrorCode::InternalError,
                    format!("internal error in memlint while answering `{method}`; please report this bug"),
                ))
            });
        let response = match outcome {
            Ok(value) => Response::new_ok(id, value),
            Err(Failure(code, message)) => Response::new_err(id, code as i32, message),
        };
        self.send(response);
    }

    fn handle(&mut self, req: Request) -> Result<serde_json::Value, Failure> {
        if self.outside(&req) {
            // An editor asks of every Markdown buffer: the answer for one
            // memlint does not serve is "nothing", not an error.
            return Ok(match req.method.as_str() {
                r::DocumentDiagnosticRequest::METHOD => {
                    serde_json::json!({ "kind": "full", "items": [] })
                }
                _ => serde_json::Value::Null,
            });
        }
        let value = match req.method.as_str() {
            r::Shutdown::METHOD => {
                self.shut_down = true;
                // Nothing is published after the answer.
                self.dirty.clear();
                serde_json::Value::Null
            }
            r::DocumentDiagnosticRequest::METHOD => json(self.pull_diagnostics(params(req)?)?),
            r::CodeActionRequest::METHOD => {
                let p: lsp_types::CodeActionParams = params(req)?;
                let (rel, text) = self.buffer(&p.text_document.uri)?;
                json(actions::actions(
                    &mut self.state,
                    &p.text_document.uri,
                    &rel,
                    &text,
                    p.range,
                    &p.context.diagnostics,
                    p.context.only.as_deref(),
                ))
            }
            r::Formatting::METHOD => {
                let p: lsp_types::DocumentFormattingParams = params(req)?;
                json(self.format(&p.text_document.uri)?)
            }
            r::RangeFormatting::METHOD => {
                // The formatter works on the whole front matter.
                let p: lsp_types::DocumentRangeFormattingParams = params(req)?;
                json(self.format(&p.text_document.uri)?)
            }
            r::GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams = params(req)?;
                let (rel, text, at) = self.at(&p.text_document_position_params)?;
                json(navigation::definition(&mut self.state, &rel, &text, at))
            }
            r::References::METHOD => {
                let p: lsp_types::ReferenceParams = params(req)?;
                let (rel, text, at) = self.at(&p.text_document_position)?;
                let with_decl = p.context.include_declaration;
                json(navigation::references(
                    &mut self.state,
                    &rel,
                    &text,
                    at,
                    with_decl,
                ))
            }
            r::HoverRequest::METHOD => {
                let p: lsp_types::HoverParams = params(req)?;
                let (rel, text, at) = self.at(&p.text_document_position_params)?;
                json(navigation::hover(&mut self.state, &rel, &text, at))
            }
            r::Completion::METHOD => {
                let p: lsp_types::CompletionParams = params(req)?;
                let (rel, text, at) = self.at(&p.text_document_position)?;
                json(navigation::completion(&mut self.state, &rel, &text, at))
            }
            r::Rename::METHOD => {
                let p: lsp_types::RenameParams = params(req)?;
                let (rel, text, offset) = self.at(&p.text_document_position)?;
                if !self.client.renames {
                    return Err(Failure(
                        ErrorCode::RequestFailed,
                        "renaming a record renames its file: the client must accept file renames in workspace edits".into(),
                    ));
                }
                let edit = rename::rename(&mut self.state, &rel, &text, offset, &p.new_name)
                    .map_err(|e| Failure(ErrorCode::RequestFailed, e))?;
                json(edit)
            }
            other => {
                return Err(Failure(
                    ErrorCode::MethodNotFound,
                    format!("memlint server does not answer `{other}`"),
                ))
            }
        };
        Ok(value)
    }

    /// Whether a request is about an open buffer outside the workspace.
    fn outside(&self, req: &Request) -> bool {
        let uri = req
            .params
            .pointer("/textDocument/uri")
            .and_then(|u| u.as_str());
        let Some(uri) = uri.and_then(|u| u.parse::<Uri>().ok()) else {
            return false;
        };
        self.state.docs.get(&uri).is_some_and(|d| d.rel.is_none())
    }

    /// The workspace path and text of an open buffer.
    fn buffer(&self, uri: &Uri) -> Result<(String, String), Failure> {
        let doc = self
            .state
            .docs
            .get(uri)
            .ok_or_else(|| invalid(format!("{} is not open", uri.as_str())))?;
        let rel = doc
            .rel
            .clone()
            .ok_or_else(|| invalid(format!("{} is not in the workspace", uri.as_str())))?;
        Ok((rel, doc.text.clone()))
    }

    /// The workspace path, text and byte offset of a position in an open
    /// buffer; `InvalidParams` when the position is not in the text.
    fn at(
        &self,
        at: &lsp_types::TextDocumentPositionParams,
    ) -> Result<(String, String, usize), Failure> {
        let (rel, text) = self.buffer(&at.text_document.uri)?;
        let offset = offset(&text, at.position)?;
        Ok((rel, text, offset))
    }
}

fn offset(text: &str, p: lsp_types::Position) -> Result<usize, Failure> {
    documents::offset(text, p).ok_or_else(|| {
        invalid(format!(
            "position {} is not in the document",
            documents::show(p)
        ))
    })
}

impl Server<'_> {
    fn format(&self, uri: &Uri) -> Result<Vec<lsp_types::TextEdit>, Failure> {
        let (rel, text) = self.buffer(uri)?;
        formatting::format(&self.state, &rel, &text)
            .map_err(|e| Failure(ErrorCode::RequestFailed, e))
    }

    fn pull_diagnostics(
        &mut self,
        p: lsp_types::DocumentDiagnosticParams,
    ) -> Result<lsp_types::DocumentDiagnosticReportResult, Failure> {
        let items = self.diagnostics_of(&p.text_document.uri)?;
        Ok(lsp_types::DocumentDiagnosticReportResult::Report(
            lsp_types::DocumentDiagnosticReport::Full(
                lsp_types::RelatedFullDocumentDiagnosticReport {
                    related_documents: None,
                    full_document_diagnostic_report: lsp_types::FullDocumentDiagnosticReport {
                        result_id: None,
                        items,
                    },
                },
            ),
        ))
    }

    /// The diagnostics of an open buffer: its findings, or the problems of
    /// the configuration when it is `.memlint.yml`.
    fn diagnostics_of(&mut self, uri: &Uri) -> Result<Vec<lsp_types::Diagnostic>, Failure> {
        let (rel, text) = self.buffer(uri)?;
        if self.is_config(uri) {
            return Ok(match &self.state.config_errors {
                Some((_, errors)) => diagnostics::of_config(errors, &text),
                None => Vec::new(),
            });
        }
        Ok(diagnostics::of_buffer(&mut self.state, &rel, &text))
    }

    fn is_config(&self, uri: &Uri) -> bool {
        documents::uri_path(uri).is_some_and(|p| {
            let p = crate::io::walk::normalize(&p);
            let config = crate::io::walk::normalize(&self.state.config_path());
            p == config || p.canonicalize().ok() == config.canonicalize().ok() && p.exists()
        })
    }

    fn notification(&mut self, not: Notification) {
        // After `shutdown` only `exit` counts (handled by the loop): no
        // buffer is opened, no diagnostics are published.
        if self.shut_down {
            return;
        }
        match not.method.as_str() {
            n::DidOpenTextDocument::METHOD => {
                let Some(p) = self.extract::<lsp_types::DidOpenTextDocumentParams>(not) else {
                    return;
                };
                let uri = p.text_document.uri;
                let rel = self.state.rel_of(&uri);
                let doc = Document {
                    text: p.text_document.text,
                    version: p.text_document.version,
                    rel,
                };
                self.state.docs.open(&uri, doc);
                self.mark_dirty(&uri);
                // The first diagnostics without waiting.
                self.publish_dirty();
            }
            n::DidChangeTextDocument::METHOD => {
                let Some(p) = self.extract::<lsp_types::DidChangeTextDocumentParams>(not) else {
                    return;
                };
                let uri = p.text_document.uri;
                let Some(doc) = self.state.docs.get_mut(&uri) else {
                    let msg = format!("didChange for {}, which is not open: ignored", uri.as_str());
                    return self.log(lsp_types::MessageType::ERROR, msg);
                };
                doc.version = p.text_document.version;
                let mut failed = None;
                for change in &p.content_changes {
                    if let Err(e) = documents::apply_change(&mut doc.text, change) {
                        failed = Some(e);
                        break;
                    }
                }
                if let Some(e) = failed {
                    let msg = format!("didChange for {}: {e}; the rest of the change was ignored (reopen the file to resynchronise)", uri.as_str());
                    self.log(lsp_types::MessageType::ERROR, msg);
                }
                self.mark_dirty(&uri);
            }
            n::DidSaveTextDocument::METHOD => {
                let Some(p) = self.extract::<lsp_types::DidSaveTextDocumentParams>(not) else {
                    return;
                };
                if self.is_config(&p.text_document.uri) {
                    self.config_changed();
                } else {
                    self.state.disk_changed();
                }
            }
            n::DidCloseTextDocument::METHOD => {
                let Some(p) = self.extract::<lsp_types::DidCloseTextDocumentParams>(not) else {
                    return;
                };
                let uri = p.text_document.uri;
                self.state.docs.close(&uri);
                self.dirty.remove(uri.as_str());
                if !self.client.pull && !self.is_config(&uri) {
                    self.push(uri, Vec::new(), None);
                }
            }
            n::DidChangeWatchedFiles::METHOD => {
                let Some(p) = self.extract::<lsp_types::DidChangeWatchedFilesParams>(not) else {
                    return;
                };
                if p.changes.iter().any(|c| self.is_config(&c.uri)) {
                    self.config_changed();
                } else {
                    self.state.disk_changed();
                    self.relint_all();
                }
            }
            _ => {}
        }
    }

    fn extract<P: DeserializeOwned>(&self, not: Notification) -> Option<P> {
        let method = not.method.clone();
        match not.extract::<P>(&method) {
            Ok(p) => Some(p),
            Err(e) => {
                self.log(
                    lsp_types::MessageType::ERROR,
                    format!("{method}: invalid parameters: {e:?}"),
                );
                None
            }
        }
    }

    /// `.memlint.yml` changed: load it again (the defaults stay in force
    /// while it is broken), show its problems and lint every buffer again.
    fn config_changed(&mut self) {
        if let Err(e) = self.state.reload() {
            self.log(lsp_types::MessageType::ERROR, format!("memlint: {e}"));
        }
        self.publish_config();
        self.relint_all();
    }

    fn relint_all(&mut self) {
        if self.client.pull {
            if self.client.refresh {
                self.next_id += 1;
                let id = RequestId::from(format!("memlint-refresh-{}", self.next_id));
                let req = Request::new(id, r::WorkspaceDiagnosticRefresh::METHOD.into(), ());
                self.send(req);
            }
            return;
        }
        for uri in self.state.docs.uris() {
            self.mark_dirty(&uri);
        }
        self.publish_dirty();
    }

    /// Pushes the problems of the configuration (none when it loads) on
    /// `.memlint.yml`, open or not.
    fn publish_config(&mut self) {
        let path = self.state.config_path();
        let Some(uri) = documents::path_uri(&path) else {
            return;
        };
        let text = match self.state.docs.get(&uri) {
            Some(d) => d.text.clone(),
            None => crate::io::fs::read_regular(&path, crate::io::fs::SMALL_FILE_MAX)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .unwrap_or_default(),
        };
        let items = match &self.state.config_errors {
            Some((_, errors)) => diagnostics::of_config(errors, &text),
            None => Vec::new(),
        };
        self.push(uri, items, None);
    }

    /// Asks the client to tell about changes of `.memlint.yml` on disk.
    fn watch_config(&mut self) {
        // Only a client that said it can: others answer with an error.
        if !self.client.watches {
            return;
        }
        let options = lsp_types::DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![lsp_types::FileSystemWatcher {
                glob_pattern: lsp_types::GlobPattern::String("**/.memlint.yml".into()),
                kind: None,
            }],
        };
        let registration = lsp_types::Registration {
            id: "memlint-config".into(),
            method: n::DidChangeWatchedFiles::METHOD.into(),
            register_options: serde_json::to_value(options).ok(),
        };
        let params = lsp_types::RegistrationParams {
            registrations: vec![registration],
        };
        self.next_id += 1;
        let id = RequestId::from(format!("memlint-watch-{}", self.next_id));
        self.send(Request::new(
            id,
            r::RegisterCapability::METHOD.into(),
            params,
        ));
    }

    /// Lints the buffers changed since they were last linted and pushes
    /// their diagnostics (a client that pulls asks for them itself).
    fn mark_dirty(&mut self, uri: &Uri) {
        if self.dirty.is_empty() {
            self.dirty_since = Instant::now();
        }
        self.dirty.insert(uri.as_str().to_string());
    }

    fn publish_dirty(&mut self) {
        let dirty = std::mem::take(&mut self.dirty);
        if self.client.pull {
            return;
        }
        // One lint of every open buffer serves all the changed ones.
        let mut linted = None;
        for key in dirty {
            let Ok(uri) = key.parse::<Uri>() else {
                continue;
            };
            if self.is_config(&uri) {
                self.publish_config();
                continue;
            }
            let Some(doc) = self.state.docs.get(&uri) else {
                continue;
            };
            let Some(rel) = doc.rel.clone() else {
                continue;
            };
            let (text, version) = (doc.text.clone(), doc.version);
            let items = if state::lintable(&self.state.ws, &rel) {
                let linted = linted.get_or_insert_with(|| self.state.lint());
                diagnostics::of_linted(linted, &rel, &text, &self.state.rules_doc)
            } else {
                Vec::new()
            };
            self.push(uri, items, Some(version));
        }
    }

    fn push(&self, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        self.notify::<n::PublishDiagnostics>(lsp_types::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        });
    }
}

fn params<P: DeserializeOwned>(req: Request) -> Result<P, Failure> {
    serde_json::from_value(req.params).map_err(|e| invalid(format!("invalid parameters: {e}")))
}

fn json(value: impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}
