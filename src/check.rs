//! `memlint check` over a workspace: per-file rules on every file (in
//! parallel), then the cross-record rules on the whole workspace, then the
//! selection the user asked for.

use crate::diagnostic::{self, Diagnostic};
use crate::lint::FileReport;
use crate::rules::workspace::{self, View, WsSink};
use crate::workspace::Workspace;
use std::collections::HashMap;

/// What `check` found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Files linted (in the selection).
    pub files: usize,
    /// Sorted diagnostics of the selected files.
    pub diagnostics: Vec<Diagnostic>,
    /// Texts of the selected files that have diagnostics, for rendering.
    pub sources: HashMap<String, String>,
}

/// Runs the cross-record rules over the reports of the whole workspace.
pub fn cross_record(ws: &Workspace, reports: &[FileReport]) -> Vec<Diagnostic> {
    let resolver = crate::git::DiskResolver::new(&ws.root);
    let view = View::new(
        reports.iter().map(|r| (r.path.as_str(), &r.info)),
        &ws.config,
        &resolver,
    );
    let mut sink = WsSink::new(&ws.config);
    workspace::check(&view, &mut sink);
    sink.diagnostics
}

/// Lints `all` (every file of the workspace) and reports on those for which
/// `selected` is true.
pub fn run(ws: &Workspace, all: &[String], selected: &dyn Fn(&str) -> bool) -> Outcome {
    let reports = ws.lint(all);
    let mut diags = cross_record(ws, &reports);
    diags.retain(|d| selected(&d.path));
    let mut out = Outcome::default();
    for r in reports {
        if !selected(&r.path) {
            continue;
        }
        out.files += 1;
        if let Some(src) = r.source {
            out.sources.insert(r.path.clone(), src);
        }
        diags.extend(r.diagnostics);
    }
    // Cross-record findings on files without per-file findings need their text too.
    for d in &diags {
        if !out.sources.contains_key(&d.path) {
            if let Ok(text) = std::fs::read_to_string(ws.root.join(&d.path)) {
                out.sources.insert(d.path.clone(), text);
            }
        }
    }
    diagnostic::sort(&mut diags);
    out.diagnostics = diags;
    out
}
