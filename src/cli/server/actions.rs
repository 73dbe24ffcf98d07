//! `textDocument/codeAction`: each repair `check --fix` makes, offered as a
//! quick fix on the diagnostic it repairs, and `source.fixAll.memlint`,
//! every repair at once. The fixed text comes from the rules' own fixes
//! (`lint::fix::fix_record`, as `engine::fix` applies them to files), with
//! the `status/chain` target the engine's cross-record pass computes.

use super::documents;
use super::state::{self, State};
use crate::lint::fix::Fired;
use crate::model::diagnostic::Diagnostic;
use crate::model::rule::Rule;
use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, Range, Uri, WorkspaceEdit};
use std::collections::HashMap;

/// The kind of the fix-all action.
pub(crate) const FIX_ALL: &str = "source.fixAll.memlint";

/// The code actions for `range` of the buffer `rel`: quick fixes for the
/// fixable findings in the range or among the diagnostics the client sends
/// (`asked`), and fix-all (`only`: the kinds the client asks for, when it
/// narrows them).
pub(crate) fn actions(
    state: &mut State,
    uri: &Uri,
    rel: &str,
    text: &str,
    range: Range,
    asked: &[lsp_types::Diagnostic],
    only: Option<&[CodeActionKind]>,
) -> Vec<CodeActionOrCommand> {
    if !state::lintable(&state.ws, rel) {
        return Vec::new();
    }
    let wants = |kind: &CodeActionKind| {
        only.is_none_or(|o| {
            o.iter().any(|k| {
                kind.as_str() == k.as_str()
                    || kind.as_str().starts_with(&format!("{}.", k.as_str()))
            })
        })
    };
    let linted = state.lint();
    let chain = linted.chain_targets.get(rel).cloned();
    let mine: Vec<&Diagnostic> = linted
        .diagnostics
        .iter()
        .filter(|d| d.path == rel && d.fixable)
        .collect();
    let moves = state.drift_fixes(rel, text);
    // A fix rewrites the record: its drifted sources are pinned as its
    // commit held them, as `check --fix` pins them.
    let held = match mine.is_empty() {
        true => Vec::new(),
        false => held_drift(state, rel, text, &linted.diagnostics),
    };
    let mut out = Vec::new();
    if wants(&CodeActionKind::QUICKFIX) {
        for d in &mine {
            let at = documents::range(text, &d.span);
            let named = asked.iter().any(|a| {
                a.range == at
                    && a.code == Some(lsp_types::NumberOrString::String(d.rule.as_str().into()))
            });
            if !named && !overlaps(at, range) {
                continue;
            }
            let (fired, moved) = match d.rule {
                // A renamed path or a moved range: the rewrite of its entry.
                Rule::SourcesDrifted => (
                    Fired::default(),
                    moves.iter().filter(|f| f.span == d.span).collect(),
                ),
                _ => {
                    let mut fired = Fired::from_diagnostics([*d]);
                    if d.rule == Rule::StatusChain {
                        fired.chain_target = chain.clone();
                    }
                    (fired, Vec::new())
                }
            };
            let Some(fixed) =
                crate::engine::fix::fixed_text(&state.ws, rel, text, &fired, &moved, &held)
            else {
                continue;
            };
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Fix `{}`", d.rule),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![super::diagnostics::to_lsp(d, text, &state.rules_doc)]),
                edit: Some(edit(uri, text, fixed)),
                is_preferred: Some(true),
                ..Default::default()
            }));
        }
    }
    if wants(&CodeActionKind::QUICKFIX) {
        let drifted: Vec<&Diagnostic> = linted
            .diagnostics
            .iter()
            .filter(|d| d.path == rel && d.rule == Rule::SourcesDrifted)
            .filter(|d| {
                let at = documents::range(text, &d.span);
                overlaps(at, range)
                    || asked.iter().any(|a| {
                        a.range == at
                            && a.code
                                == Some(lsp_types::NumberOrString::String(d.rule.as_str().into()))
                    })
            })
            .collect();
        if !drifted.is_empty() {
            out.extend(mark_verified(state, uri, rel, text, &drifted));
        }
    }
    let fix_all = CodeActionKind::from(FIX_ALL);
    if wants(&fix_all) && !mine.is_empty() {
        let mut fired = Fired::from_diagnostics(mine.iter().copied());
        if mine.iter().any(|d| d.rule == Rule::StatusChain) {
            fired.chain_target = chain;
        }
        let moved: Vec<_> = moves.iter().collect();
        if let Some(fixed) =
            crate::engine::fix::fixed_text(&state.ws, rel, text, &fired, &moved, &held)
        {
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: "Fix all memlint findings".into(),
                kind: Some(fix_all),
                edit: Some(edit(uri, text, fixed)),
                ..Default::default()
            }));
        }
    }
    out
}

/// "Mark as verified" on a record's `sources/drifted` findings: the edit
/// `memlint verify` makes (today's `verified` and a pin of each `file:`
/// source as the work tree holds it), applied to the buffer. Offered
/// disabled, saying why, when a source cannot be pinned.
fn mark_verified(
    state: &State,
    uri: &Uri,
    rel: &str,
    text: &str,
    drifted: &[&Diagnostic],
) -> Option<CodeActionOrCommand> {
    let kind = state::kind_of(&state.ws, rel)?;
    let report = crate::engine::author::verify::lint_text(&state.ws, rel, text);
    let (moved, sources, _) =
        crate::engine::author::pin::moved_first(&state.ws, rel, &report.info, text);
    let today = crate::engine::author::today();
    let verified =
        crate::engine::author::pin::verified_text(&state.ws, rel, kind, &sources, &moved, &today);
    let (edit, disabled) = match verified {
        Ok((edited, _)) if edited != text => (Some(edit(uri, text, edited)), None),
        Ok(_) => return None,
        Err(e) => (
            None,
            Some(lsp_types::CodeActionDisabled {
                reason: e.to_string(),
            }),
        ),
    };
    Some(CodeActionOrCommand::CodeAction(CodeAction {
        title: "Mark as verified".into(),
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(
            drifted
                .iter()
                .map(|d| super::diagnostics::to_lsp(d, text, &state.rules_doc))
                .collect(),
        ),
        edit,
        disabled,
        ..Default::default()
    }))
}

/// The pins of the record's drifted sources that no rewrite repairs, as
/// the record's commit held them (`engine::drift::pins_as_written`).
fn held_drift(state: &State, rel: &str, text: &str, diags: &[Diagnostic]) -> Vec<String> {
    let spans: Vec<&std::ops::Range<usize>> = diags
        .iter()
        .filter(|d| d.path == rel && d.rule == Rule::SourcesDrifted && !d.fixable)
        .map(|d| &d.span)
        .collect();
    if spans.is_empty() {
        return Vec::new();
    }
    let report = crate::engine::author::verify::lint_text(&state.ws, rel, text);
    let sources: Vec<&str> = (report.info.sources.iter())
        .filter(|s| spans.contains(&&s.span))
        .map(|s| s.value.as_str())
        .collect();
    crate::engine::drift::pins_as_written(&state.ws, &[(rel, sources)])
        .remove(rel)
        .unwrap_or_default()
}

/// A workspace edit changing only what the fix changes.
fn edit(uri: &Uri, text: &str, fixed: String) -> WorkspaceEdit {
    let edits = documents::edits(text, &fixed);
    WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..Default::default()
    }
}

/// Whether two ranges meet (an empty range at a diagnostic's edge counts).
fn overlaps(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}
