//! What the language server holds between messages: the workspace (its
//! configuration, or the defaults while `.memlint.yml` is broken), the open
//! buffers, and the workspace's records as the engine last read them. The
//! handlers in the sibling modules read it; only the loop changes it.

use super::documents::{self, Documents};
use crate::engine::author::verify::{self, Current, Linted};
use crate::engine::workspace::WorkspaceError;
use crate::lint::FileReport;
use crate::model::config::ConfigError;
use crate::model::kind::{classify, Kind, Place};
use crate::model::workspace::Workspace;
use lsp_types::Uri;
use std::path::{Path, PathBuf};

/// Where the documentation of the rules is, by default: `docs/rules.md` of
/// the repository, one heading per rule. Clients may name another copy with
/// the initialization option `rulesDocumentation`.
pub(crate) const RULES_DOC: &str = "https://github.com/memlint/memlint/blob/main/docs/rules.md";

/// The server's state.
pub(crate) struct State {
    /// The workspace, with the configuration in force.
    pub ws: Workspace,
    /// `--root` as given, to load the workspace again.
    pub root: PathBuf,
    /// `--config` as given.
    pub config_file: Option<PathBuf>,
    /// The problems of `.memlint.yml` when it does not load (the defaults
    /// are then in force), with the file's path.
    pub config_errors: Option<(String, Vec<ConfigError>)>,
    /// The open buffers.
    pub docs: Documents,
    /// The workspace's records as on disk, read when first needed and read
    /// again after a save (reading uses `.memlint/index`, as `check` does).
    current: Option<Current>,
    /// The base of the rules' documentation links.
    pub rules_doc: String,
    /// The `sources/drifted` findings of each open record, with the hash
    /// of the buffer text they were judged for: judging reads the git
    /// history, so it is done again only after the disk or the buffer
    /// changed.
    drift: std::collections::HashMap<String, (u64, Judged)>,
    /// What reading the workspace met that the user must hear about
    /// (an unreadable directory, an ignore file not read), for the
    /// client's log; the loop takes them after each message.
    pub notes: Vec<String>,
}

impl State {
    /// Loads the workspace at `root`; a broken configuration leaves the
    /// defaults in force and is kept to be shown.
    pub(crate) fn load(
        root: PathBuf,
        config_file: Option<PathBuf>,
    ) -> Result<State, WorkspaceError> {
        let mut state = State {
            ws: Workspace::new(root.clone(), Default::default()),
            root,
            config_file,
            config_errors: None,
            docs: Documents::default(),
            current: None,
            drift: Default::default(),
            rules_doc: RULES_DOC.to_string(),
            notes: Vec::new(),
        };
        state.reload()?;
        Ok(state)
    }

    /// Reads the configuration again (after `.memlint.yml` changed).
    pub(crate) fn reload(&mut self) -> Result<(), WorkspaceError> {
        match crate::cli::settings::load(Some(&self.root), self.config_file.as_deref()) {
            Ok(ws) => {
                self.ws = ws;
                self.config_errors = None;
            }
            Err(WorkspaceError::Config { path, errors }) => {
                self.ws = Workspace::new(self.ws.root.clone(), Default::default());
                self.config_errors = Some((path, errors));
            }
            Err(e) => return Err(e),
        }
        // Banned directories may have changed: which buffers are records.
        let uris: Vec<Uri> = self.docs.uris();
        for uri in uris {
            let rel = self.rel_of(&uri);
            if let Some(doc) = self.docs.get_mut(&uri) {
                doc.rel = rel;
            }
        }
        self.current = None;
        self.drift.clear();
        Ok(())
    }

    /// The path of the configuration file in force or looked for.
    pub(crate) fn config_path(&self) -> PathBuf {
        match &self.config_file {
            // Relative to the directory the server started in, as `--config`
            // is read.
            Some(p) => std::env::current_dir().map_or_else(|_| p.clone(), |d| d.join(p)),
            None => self.ws.root.join(crate::model::config::FILE_NAME),
        }
    }

    /// The workspace path of a URI, when it names a file inside the root.
    pub(crate) fn rel_of(&self, uri: &Uri) -> Option<String> {
        let path = documents::uri_path(uri)?;
        let path = crate::io::walk::normalize(&path);
        let path = canonical_parent(&path);
        crate::io::walk::relative(&self.ws, &path)
    }

    /// The URI of the workspace file `rel`: as the client spelled it when
    /// the file is open (clients escape characters differently), else
    /// made from its path.
    pub(crate) fn uri_of(&self, rel: &str) -> Option<Uri> {
        self.docs
            .uri_by_rel(rel)
            .or_else(|| documents::path_uri(&self.ws.root.join(rel)))
    }

    /// Forgets what was read of the disk: the next question reads it again.
    pub(crate) fn disk_changed(&mut self) {
        self.current = None;
        self.drift.clear();
    }

    /// The workspace's records as on disk.
    pub(crate) fn current(&mut self) -> &Current {
        if self.current.is_none() {
            let mut read = Current::read(&self.ws);
            // Told once for each read of the disk, so that they do not
            // pile up.
            let problems = crate::model::workspace::reported(std::mem::take(&mut read.problems));
            self.notes.extend(problems.iter().map(|p| p.to_string()));
            self.current = Some(read);
        }
        self.current.as_ref().expect("read just above")
    }

    /// Every open buffer that stands for a record or `CONTEXT.md`, as
    /// (path, text): what the engine lints in place of the files on disk.
    pub(crate) fn buffers(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .docs
            .iter()
            .filter_map(|(_, d)| {
                let rel = d.rel.as_ref()?;
                lintable(&self.ws, rel).then(|| (rel.clone(), d.text.clone()))
            })
            .collect();
        out.sort();
        out
    }

    /// Lints the open buffers against the workspace; the caller picks the
    /// diagnostics of the file it asks about.
    pub(crate) fn lint(&mut self) -> Linted {
        let buffers = self.buffers();
        self.current();
        let current = self.current.as_ref().expect("read by current()");
        let mut linted = verify::lint_changes(&self.ws, current, &buffers);
        let drifted = self.drifted(&buffers);
        if !drifted.is_empty() {
            // A renamed source is said once, by `sources/drifted`, as
            // `check` says it.
            let fixes: Vec<crate::engine::drift::SourceFix> = (buffers.iter())
                .flat_map(|(rel, text)| self.drift_fixes(rel, text).iter().cloned())
                .collect();
            let renamed = crate::engine::drift::Renamed::of(&self.ws, &fixes);
            linted.diagnostics.retain(|d| !renamed.covers(d));
            linted.diagnostics.extend(drifted);
            crate::model::diagnostic::sort(&mut linted.diagnostics);
        }
        linted
    }

    /// The `sources/drifted` findings of the open records whose buffer
    /// holds what is on disk (the history judges the file, so an unsaved
    /// edit is judged once saved), judged together for those not judged
    /// since the disk or the buffer changed.
    fn drifted(
        &mut self,
        buffers: &[(String, String)],
    ) -> Vec<crate::model::diagnostic::Diagnostic> {
        let mut judge: Vec<(String, u64, FileReport)> = Vec::new();
        for (rel, text) in buffers {
            let key = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
            if kind_of(&self.ws, rel).is_none()
                || self.drift.get(rel).is_some_and(|(k, _)| *k == key)
            {
                continue;
            }
            let saved = matches!(
                crate::io::read::read_capped(&self.ws.root.join(rel), self.ws.config.max_file_bytes),
                Ok(crate::model::content::Content::Bytes(bytes)) if bytes == text.as_bytes()
            );
            if saved {
                judge.push((rel.clone(), key, verify::lint_text(&self.ws, rel, text)));
            } else {
                self.drift.insert(rel.clone(), (key, Judged::default()));
            }
        }
        if !judge.is_empty() {
            let found = crate::engine::drift::drifted(
                &self.ws,
                judge.iter().map(|(rel, _, r)| (rel.as_str(), &r.info)),
                crate::engine::drift::Mode::WorkTree,
            );
            for (rel, key, _) in &judge {
                let mine = Judged {
                    diagnostics: (found.diagnostics.iter())
                        .filter(|d| d.path == *rel)
                        .cloned()
                        .collect(),
                    fixes: (found.fixes.iter())
                        .filter(|f| f.path == *rel)
                        .cloned()
                        .collect(),
                };
                self.drift.insert(rel.clone(), (*key, mine));
            }
        }
        buffers
            .iter()
            .filter_map(|(rel, _)| self.drift.get(rel))
            .flat_map(|(_, j)| j.diagnostics.iter().cloned())
            .collect()
    }

    /// The path rewrites and range moves `sources/drifted` found for the
    /// buffer `rel` holding `text`, as `check --fix` makes them: none once
    /// the buffer differs from what was judged.
    pub(crate) fn drift_fixes(&self, rel: &str, text: &str) -> &[crate::engine::drift::SourceFix] {
        match self.drift.get(rel) {
            Some((key, j)) if *key == xxhash_rust::xxh3::xxh3_64(text.as_bytes()) => &j.fixes,
            _ => &[],
        }
    }

    /// The report of the record of `kind` named `slug`: from its open
    /// buffer when one is open, else as on disk.
    pub(crate) fn record(&mut self, kind: Kind, slug: &str) -> Option<FileReport> {
        let on_disk = self.current().record(kind, slug).cloned();
        let rel = match &on_disk {
            Some(r) => r.path.clone(),
            None => format!("{}/{slug}.md", kind.dir()),
        };
        match self.docs.by_rel(&rel) {
            Some(d) => Some(verify::lint_text(&self.ws, &rel, &d.text)),
            None => on_disk,
        }
    }

    /// Calls `f` with every record's report, open buffers in place of
    /// their files.
    pub(crate) fn each_report(&mut self, mut f: impl FnMut(&FileReport)) {
        let buffers = self.buffers();
        let linted: Vec<FileReport> = buffers
            .iter()
            .map(|(p, t)| verify::lint_text(&self.ws, p, t))
            .collect();
        for r in self.current().reports.iter() {
            if !buffers.iter().any(|(p, _)| *p == r.path) {
                f(r);
            }
        }
        linted.iter().for_each(f);
    }

    /// The names of the records of `kind` (slugs, session ids), sorted.
    pub(crate) fn names(&mut self, kind: Kind) -> Vec<String> {
        let mut out = Vec::new();
        self.each_report(|r| {
            if r.info.kind == Some(kind) {
                out.push(crate::model::kind::stem(&r.path).to_string());
            }
        });
        out.sort();
        out.dedup();
        out
    }

    /// The text of workspace file `rel`: its open buffer, else the file.
    pub(crate) fn text_of(&self, rel: &str) -> Option<String> {
        match self.docs.by_rel(rel) {
            Some(d) => Some(d.text.clone()),
            None => {
                crate::io::fs::read_regular(&self.ws.root.join(rel), self.ws.config.max_file_bytes)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
            }
        }
    }
}

/// Whether the workspace file `rel` is one the linter reads (a record or
/// `CONTEXT.md`).
pub(crate) fn lintable(ws: &Workspace, rel: &str) -> bool {
    matches!(
        classify(rel, &ws.config.banned_dirs),
        Place::Record(_) | Place::Context
    )
}

/// The record kind of workspace file `rel`.
pub(crate) fn kind_of(ws: &Workspace, rel: &str) -> Option<Kind> {
    match classify(rel, &ws.config.banned_dirs) {
        Place::Record(k) => Some(k),
        _ => None,
    }
}

/// `path` with its parent directory's symbolic links resolved, as the
/// root is (the file itself may not exist yet).
fn canonical_parent(path: &Path) -> PathBuf {
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => dir
            .canonicalize()
            .map_or_else(|_| path.to_path_buf(), |d| d.join(name)),
        _ => path.to_path_buf(),
    }
}

/// What `sources/drifted` found for one open record: its findings, and the
/// repairs `check --fix` makes of them.
#[derive(Default)]
struct Judged {
    diagnostics: Vec<crate::model::diagnostic::Diagnostic>,
    fixes: Vec<crate::engine::drift::SourceFix>,
}
