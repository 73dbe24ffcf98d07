//! The `history/*` rules' git side: records removed without a
//! `Memlint-GC:` trailer naming them, and active decisions rewritten in
//! place. The engine reads the changes, trailers and blobs from git and
//! hands them, as values, to the rules' checks (`lint/rules/history/`),
//! which judge them. Run on
//! the changes since a revision (`check --base`, from [`super::version`])
//! and on the commit being made (`check --staged --commit-msg`, for git's
//! commit-msg hook).

use crate::engine::check::lint::Outcome;
use crate::engine::log::renames;
use crate::io::git::{Change, GitError, Object, Repo};
use crate::lint::rules::history::decision_rewritten;
use crate::lint::rules::history::unexplained_removal::{self, MalformedIn};
use crate::model::content::Content;
use crate::model::diagnostic::{self, Diagnostic};
use crate::model::kind::{classify, Kind, Place};
use crate::model::workspace::Workspace;
use crate::syntax::trailer::{trailers, GcOp, Malformed, TRAILER};
use gix::ObjectId;
use std::collections::HashMap;

/// `memlint check --staged --commit-msg FILE`: the `history/*` rules on
/// what the commit being made removes or rewrites (the index against
/// HEAD), with the `Memlint-GC:` trailers of its `message`, so that an
/// unexplained removal is stopped before it is a commit. Only the
/// `history/*` diagnostics: the pre-commit hook lints the records.
pub(crate) fn staged_history(
    ws: &Workspace,
    message: &str,
    selected: &dyn Fn(&str) -> bool,
) -> Result<Outcome, GitError> {
    let repo = Repo::open(&ws.root, crate::io::git::Asking::CommitMessage)?;
    let mut outcome = Outcome::default();
    // The first commit removes nothing.
    let Some(head) = repo.head()? else {
        return Ok(outcome);
    };
    let staged = repo.staged()?;
    let (good, bad) = trailers(message);
    // Each trailer must say what the commit does: a target it has, a
    // removal it makes. One that does not explains nothing.
    let in_commit = |rel: &str| staged.lookup(rel).is_some_and(|o| o.is_file());
    let removed = |rel: &str| {
        staged
            .changes
            .iter()
            .any(|c| c.path == rel && c.new.is_none())
    };
    let mut mismatched = Vec::new();
    let mut ops: Vec<Found<GcOp>> = good
        .into_iter()
        .filter(|op| match mismatch(op, &in_commit, &removed) {
            Some(why) => {
                mismatched.push(format!(
                    "the commit message's trailer `{TRAILER}: {}` does not match the commit: {why}",
                    crate::syntax::sanitize::line(&op.value()),
                ));
                false
            }
            None => true,
        })
        .map(|item| Found { commit: None, item })
        .collect();
    let mut malformed: Vec<Found<Malformed>> = bad
        .into_iter()
        .map(|item| Found { commit: None, item })
        .collect();
    outcome.warnings = malformed
        .iter()
        .map(|m| {
            format!(
                "the commit message has a malformed `{TRAILER}:` trailer `{}`: {}",
                crate::syntax::sanitize::line(&m.item.line),
                crate::syntax::sanitize::line(&m.item.reason)
            )
        })
        .collect();
    outcome.warnings.extend(mismatched);
    // A merge being committed: what the merged side(s) removed or rewrote
    // is explained by the trailers of their own commits (those HEAD does
    // not have); only what the merge itself does needs this message's.
    let merging = repo.merge_heads();
    if !merging.is_empty() {
        for c in repo.commits(&merging, &[head])? {
            let (good, bad) = trailers(&c.message);
            let commit = Some(c.id);
            ops.extend(good.into_iter().map(|item| Found { commit, item }));
            malformed.extend(bad.into_iter().map(|item| Found { commit, item }));
        }
    }
    let max = ws.config.max_file_bytes;
    let read = |rel: &str| -> Option<Content> {
        let object = staged.lookup(rel).filter(Object::is_file)?;
        repo.blob(object.id, max).ok()
    };
    let renamed = renames(&repo, &staged.changes, ws);
    let mut diags = unexplained_removals(
        ws,
        &repo,
        &staged.changes,
        &renamed,
        &ops,
        &malformed,
        &head,
        selected,
        &mut outcome,
    );
    diags.extend(rewritten_decisions(
        ws,
        &repo,
        &staged.changes,
        &renamed,
        &ops,
        &head,
        &read,
        selected,
        &mut outcome,
    ));
    // The files of the workspace the commit changes, not its code.
    outcome.files = staged
        .changes
        .iter()
        .filter(|c| classify(&c.path, &ws.config.banned_dirs) != Place::Outside)
        .count();
    outcome.diagnostics = diags;
    diagnostic::sort(&mut outcome.diagnostics);
    Ok(outcome)
}

/// Why a trailer does not match the commit being made, if it does not:
/// the record after `into` must be in the commit; `drop` and `merge` name a
/// record the commit removes, `trim` and `rewrite` one it keeps, `split`
/// one it removes or keeps. `in_commit` and `removed` answer for
/// root-relative file paths.
fn mismatch(
    op: &GcOp,
    in_commit: &dyn Fn(&str) -> bool,
    removed: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let file = |record: &str| format!("{record}.md");
    if let Some(into) = &op.into {
        if !in_commit(&file(into)) {
            return Some(format!(
                "`{into}` is not in this commit (there is no {}), so nothing went into it",
                file(into)
            ));
        }
    }
    let (record, subject) = (&op.record, file(&op.record));
    let (kept, gone) = (in_commit(&subject), removed(&subject));
    match op.op.as_str() {
        "drop" | "merge" if kept => Some(format!(
            "`{record}` is still in this commit; `{}` names a record the commit removes",
            op.op
        )),
        "trim" | "rewrite" if gone => Some(format!(
            "this commit removes `{record}`, but `{}` keeps the record; write `drop {record}` (or `merge {record} into <kind-dir>/<slug>`)",
            op.op
        )),
        _ if !kept && !gone => Some(format!(
            "there is no record `{record}` in this commit or removed by it"
        )),
        _ => None,
    }
}

/// A trailer found in a commit, with the commit it came from (`None`: the
/// message of the commit being made).
pub(crate) struct Found<T> {
    pub(crate) commit: Option<ObjectId>,
    pub(crate) item: T,
}

pub(crate) fn short(id: &ObjectId) -> String {
    id.to_hex_with_len(7).to_string()
}

/// In a shallow clone (a pull request's merge commit fetched alone), the
/// commits whose trailers explain a removal or a rewrite may not be there:
/// when the range was `cut_short`, the `history/*` findings `diags` are
/// taken out and a warning of `outcome` names their records instead.
pub(crate) fn not_judged_if_cut_short(
    cut_short: bool,
    diags: &mut Vec<Diagnostic>,
    base: &ObjectId,
    outcome: &mut Outcome,
) {
    if cut_short && !diags.is_empty() {
        outcome.warnings.push(cut_short_note(diags, base));
        diags.clear();
    }
}

/// Why the `history/*` findings `diags` are not reported: a commit between
/// `base` and HEAD that may explain them lies beyond the shallow clone.
fn cut_short_note(diags: &[Diagnostic], base: &ObjectId) -> String {
    const NAMED: usize = 3;
    let mut paths: Vec<&str> = diags.iter().map(|d| d.path.as_str()).collect();
    paths.dedup();
    let mut named: Vec<String> = paths
        .iter()
        .take(NAMED)
        .map(|p| crate::syntax::sanitize::line(p).into_owned())
        .collect();
    if paths.len() > NAMED {
        named.push(format!("{} more", paths.len() - NAMED));
    }
    let records = if paths.len() == 1 {
        "record"
    } else {
        "records"
    };
    format!(
        "history/*: {} {records} could not be judged ({}): the commits between {} and HEAD are not all in this shallow clone, and one of them may explain the change (fetch them, e.g. `fetch-depth: 0` in actions/checkout)",
        paths.len(),
        named.join(", "),
        short(base)
    )
}

/// `history/unexplained-removal`: records removed since `base` without a
/// `Memlint-GC:` trailer that drops them (nor a rename).
#[allow(clippy::too_many_arguments)]
pub(crate) fn unexplained_removals(
    ws: &Workspace,
    repo: &Repo,
    changes: &[Change],
    renamed: &HashMap<String, String>,
    ops: &[Found<GcOp>],
    malformed: &[Found<Malformed>],
    base: &ObjectId,
    selected: &dyn Fn(&str) -> bool,
    outcome: &mut Outcome,
) -> Vec<Diagnostic> {
    let max = ws.config.max_file_bytes;
    let base = short(base);
    let ops: Vec<&GcOp> = ops.iter().map(|f| &f.item).collect();
    let malformed: Vec<MalformedIn> = malformed
        .iter()
        .map(|m| MalformedIn {
            commit: m.commit.as_ref().map(short),
            item: &m.item,
        })
        .collect();
    let mut diags: Vec<Diagnostic> = Vec::new();
    for c in changes.iter().filter(|c| c.new.is_none()) {
        let Place::Record(kind) = classify(&c.path, &ws.config.banned_dirs) else {
            continue;
        };
        if !selected(&c.path) {
            continue;
        }
        let renamed = renamed.contains_key(&c.path);
        let Some(finding) =
            unexplained_removal::check(&c.path, kind, renamed, &base, &ops, &malformed)
        else {
            continue;
        };
        let text = c
            .old
            .and_then(|o| repo.blob(o.id, max).ok())
            .map(|b| match b {
                Content::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
                Content::TooLarge(_) => String::new(),
            })
            .unwrap_or_default();
        let found = crate::lint::to_diagnostics(&c.path, &text, vec![finding], &ws.config);
        if !found.is_empty() && !text.is_empty() {
            outcome.sources.entry(c.path.clone()).or_insert(text);
        }
        diags.extend(found);
    }
    diags
}

/// `history/decision-rewritten`: active decisions whose title or body
/// changed since `base` without a `Memlint-GC:` trailer naming them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rewritten_decisions(
    ws: &Workspace,
    repo: &Repo,
    changes: &[Change],
    renamed: &HashMap<String, String>,
    ops: &[Found<GcOp>],
    base: &ObjectId,
    read: &dyn Fn(&str) -> Option<Content>,
    selected: &dyn Fn(&str) -> bool,
    outcome: &mut Outcome,
) -> Vec<Diagnostic> {
    let max = ws.config.max_file_bytes;
    let base = short(base);
    let ops: Vec<&GcOp> = ops.iter().map(|f| &f.item).collect();
    let mut diags: Vec<Diagnostic> = Vec::new();
    let old_of: HashMap<&str, (&str, Object)> = changes
        .iter()
        .filter_map(|c| Some((c.path.as_str(), (c.path.as_str(), c.old?))))
        .chain(renamed.iter().filter_map(|(old, new)| {
            let o = changes.iter().find(|c| &c.path == old)?.old?;
            Some((new.as_str(), (old.as_str(), o)))
        }))
        .collect();
    for c in changes
        .iter()
        .filter(|c| c.new.is_some_and(|n| n.is_file()))
    {
        if classify(&c.path, &ws.config.banned_dirs) != Place::Record(Kind::Decision)
            || !selected(&c.path)
        {
            continue;
        }
        let Some(&(old_path, old)) = old_of.get(c.path.as_str()) else {
            continue;
        };
        if decision_rewritten::named(&c.path, old_path, &ops) {
            continue;
        }
        let (Some(Content::Bytes(old_bytes)), Some(Content::Bytes(new_bytes))) =
            (repo.blob(old.id, max).ok(), read(&c.path))
        else {
            continue;
        };
        let (Ok(old_text), Ok(new_text)) = (
            std::str::from_utf8(&old_bytes),
            std::str::from_utf8(&new_bytes),
        ) else {
            continue;
        };
        let decision = Place::Record(Kind::Decision);
        let lint = |path: &str, bytes: &[u8]| {
            crate::lint::lint_file(path, &decision, Content::Bytes(bytes), &ws.config).info
        };
        let (before, after) = (lint(old_path, &old_bytes), lint(&c.path, &new_bytes));
        let rewrite = decision_rewritten::Rewrite {
            path: &c.path,
            old_text,
            new_text,
            before: &before,
            after: &after,
            base: &base,
        };
        let Some(finding) = decision_rewritten::check(&rewrite) else {
            continue;
        };
        let found = crate::lint::to_diagnostics(&c.path, new_text, vec![finding], &ws.config);
        if !found.is_empty() {
            outcome
                .sources
                .entry(c.path.clone())
                .or_insert_with(|| new_text.to_string());
        }
        diags.extend(found);
    }
    diags
}
