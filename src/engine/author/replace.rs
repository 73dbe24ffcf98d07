//! `memlint replace OLD NEW`: OLD gets `status: replaced` and
//! `replaced_by: NEW`, and every record of the kind that was replaced by
//! OLD now points at NEW, so that no chain is left behind. A loop is
//! refused; so is a NEW that is itself replaced (the current record is
//! named instead), and an OLD already replaced by another record (its
//! successor is named; `force` re-points it).
//!
//! Replacements take turns over the workspace (`Turn` on the root, from
//! the first read to the last write), and decide on the records as they
//! are on disk then: `replace a b` and `replace b a` at once make one
//! replacement and one refused loop, and of several `new --replaces old`
//! at once one replaces `old` and the others are told it already is.

use super::commit::{commit, Write};
use super::draft::{checked_slug, scalar, AUTHORED};
use super::verify::{self, Current};
use super::AuthorError;
use crate::io::fs::Snapshot;
use crate::io::turn::Turn;
use crate::lint::{lint_file, FileReport};
use crate::model::content::Content;
use crate::model::diagnostic::Diagnostic;
use crate::model::kind::{classify, Kind};
use crate::model::workspace::Workspace;
use crate::syntax::edit::{apply, Edit};
use crate::syntax::frontmatter::{self, Split};
use serde::Serialize;

/// What `replace` did.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Replaced {
    pub kind: Kind,
    /// Path of the record now replaced.
    pub old: String,
    /// Path of the record that replaces it.
    pub new: String,
    /// Paths of the records that pointed at OLD and now point at NEW.
    pub retargeted: Vec<String>,
    /// False when OLD was already replaced by NEW: nothing was written.
    pub changed: bool,
    /// Warnings on the files written (errors refuse the change).
    pub warnings: Vec<Diagnostic>,
}

/// The files a replacement rewrites, read and changed but not written.
pub(super) struct Plan {
    pub old_path: String,
    /// (path, what was read, new text), OLD first.
    pub rewrites: Vec<(String, Snapshot, String)>,
}

impl Plan {
    /// The new texts, for the rules.
    pub(crate) fn changes(&self) -> impl Iterator<Item = (String, String)> + '_ {
        self.rewrites.iter().map(|(p, _, t)| (p.clone(), t.clone()))
    }

    /// The writes, OLD before the records retargeted: every state in
    /// between is valid (a record pointing at a replaced record is a
    /// `status/chain` warning, not an error).
    pub(crate) fn writes(self) -> impl Iterator<Item = Write> {
        self.rewrites
            .into_iter()
            .map(|(path, seen, text)| Write::Replace { path, seen, text })
    }
}

/// Replaces record `old` with record `new`, both of `kind` (found by slug
/// when `kind` is `None`; a slug two kinds share must be told apart).
/// `force` re-points an `old` already replaced by another record.
///
/// # Examples
///
/// ```ignore
/// use memlint::engine::author;
/// use memlint::model::workspace::Workspace;
///
/// let cwd = std::env::current_dir().expect("the current directory");
/// let at = memlint::engine::workspace::Surroundings { cwd: &cwd, env: &|name| std::env::var(name).ok() };
/// let ws = memlint::engine::workspace::load(&at, None, None)?;
/// let done = author::replace(&ws, None, "use-git2", "use-gix", false)?;
/// println!("{} is replaced by {}; retargeted {:?}", done.old, done.new, done.retargeted);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub(crate) fn replace(
    ws: &Workspace,
    kind: Option<Kind>,
    old: &str,
    new: &str,
    force: bool,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Result<Replaced, AuthorError> {
    let (old, new) = (checked_slug(old)?, checked_slug(new)?);
    let _turn = turn(ws);
    let current = Current::read(ws);
    problems.extend(current.problems.iter().cloned());
    let kind = match kind {
        Some(k) => k,
        None => kind_of(&current, &old)?,
    };
    let target = current.record(kind, &new).ok_or_else(|| {
        AuthorError::Usage(format!(
            "there is no {kind} `{new}` to replace `{old}` with"
        ))
    })?;
    let new_path = target.path.clone();
    let Some(plan) = plan(ws, &current, kind, &old, &new, force)? else {
        let old_path = current.record(kind, &old).map(|r| r.path.clone());
        return Ok(Replaced {
            kind,
            old: old_path.unwrap_or_default(),
            new: new_path,
            retargeted: Vec::new(),
            changed: false,
            warnings: Vec::new(),
        });
    };
    let changes: Vec<(String, String)> = plan.changes().collect();
    let diagnostics = verify::diagnostics(ws, &current, &changes);
    if verify::has_errors(&diagnostics) {
        return Err(AuthorError::Refused {
            path: plan.old_path.clone(),
            diagnostics,
            texts: changes,
        });
    }
    let retargeted = plan.rewrites[1..].iter().map(|(p, ..)| p.clone()).collect();
    let old_path = plan.old_path.clone();
    commit(&ws.root, plan.writes().collect())?;
    Ok(Replaced {
        kind,
        old: old_path,
        new: new_path,
        retargeted,
        changed: true,
        warnings: diagnostics,
    })
}

/// The kind of the record named `slug`: the one kind that has it.
fn kind_of(current: &Current, slug: &str) -> Result<Kind, AuthorError> {
    let kinds: Vec<Kind> = AUTHORED
        .into_iter()
        .filter(|k| current.record(*k, slug).is_some())
        .collect();
    match kinds[..] {
        [k] => Ok(k),
        [] => Err(AuthorError::Usage(format!(
            "there is no decision, request or knowledge record named `{slug}`"
        ))),
        _ => Err(AuthorError::SeveralKinds {
            slug: slug.to_string(),
        }),
    }
}

/// The turn replacements take: held from before the records are read
/// until the last is written.
pub(super) fn turn(ws: &Workspace) -> Turn {
    Turn::take(&ws.root)
}

/// Plans replacing `old` with `new` (of `kind`); `new` may be a record
/// about to be created. `None` when `old` is already replaced by `new`.
/// An `old` replaced by another record is refused unless `force`. The
/// caller holds the [`turn`].
pub(super) fn plan(
    ws: &Workspace,
    current: &Current,
    kind: Kind,
    old: &str,
    new: &str,
    force: bool,
) -> Result<Option<Plan>, AuthorError> {
    if old == new {
        return Err(AuthorError::Cycle(format!(
            "a record cannot replace itself (`{old}`)"
        )));
    }
    let record = current
        .record(kind, old)
        .ok_or_else(|| AuthorError::Usage(format!("there is no {kind} `{old}` to replace")))?;
    let old_path = record.path.clone();
    // Decided on OLD as it is on disk now, read with the rewrite.
    let mut successor = None;
    let first = rewrite(ws, &old_path, kind, |text, report| {
        successor = replaced_by(report);
        set_fields(text, kind, &[("status", "replaced"), ("replaced_by", new)])
    })?;
    match successor {
        Some(by) if by == new => return Ok(None),
        Some(by) if !force => {
            let path = current.record(kind, &by).map(|r| r.path.clone());
            return Err(AuthorError::AlreadyReplaced {
                old: old.to_string(),
                by,
                path,
                new: new.to_string(),
            });
        }
        _ => {}
    }
    refuse_loops(ws, current, kind, old, new)?;
    let mut rewrites = vec![first];
    for r in current.of_kind(kind) {
        let points = r.info.replaced_by.as_ref().is_some_and(|l| l.value == old);
        if points && r.path != old_path {
            rewrites.push(rewrite(ws, &r.path, kind, |text, report| {
                let at = report
                    .info
                    .replaced_by
                    .as_ref()
                    .filter(|l| l.value == old)?;
                apply(
                    text,
                    vec![Edit {
                        span: at.span.clone(),
                        text: scalar(new),
                    }],
                )
                .ok()
            })?);
        }
    }
    Ok(Some(Plan { old_path, rewrites }))
}

/// Refuses a `new` that leads back to `old` through `replaced_by`, and a
/// `new` that is itself replaced (its current record is named).
fn refuse_loops(
    ws: &Workspace,
    current: &Current,
    kind: Kind,
    old: &str,
    new: &str,
) -> Result<(), AuthorError> {
    let mut seen = vec![new.to_string()];
    let mut at = new.to_string();
    while let Some(next) = current
        .record(kind, &at)
        .and_then(|r| on_disk(ws, &r.path).unwrap_or_else(|| replaced_by(r)))
    {
        if next == old {
            return Err(AuthorError::Cycle(format!(
                "replacing `{old}` with `{new}` would close a loop of replaced_by: {} → `{old}` → `{new}`",
                ticked(&seen)
            )));
        }
        if seen.contains(&next) {
            break;
        }
        seen.push(next.clone());
        at = next;
    }
    if seen.len() > 1 {
        let last = seen.last().map(String::as_str).unwrap_or(new);
        return Err(AuthorError::Cycle(format!(
            "`{new}` is itself replaced ({}); replace `{old}` with the current record `{last}`",
            ticked(&seen)
        )));
    }
    Ok(())
}

/// The successor a record's report names, when it is `status: replaced`.
fn replaced_by(report: &FileReport) -> Option<String> {
    (report.info.status.as_deref() == Some("replaced"))
        .then(|| report.info.replaced_by.as_ref().map(|l| l.value.clone()))
        .flatten()
}

/// [`replaced_by`] of the record at `path` as it is on disk now (the index
/// may lag behind a replacement that just ended); `None` when it cannot
/// be read or is larger than `max_file_bytes`.
fn on_disk(ws: &Workspace, path: &str) -> Option<Option<String>> {
    let read = crate::io::read::read_capped(&ws.root.join(path), ws.config.max_file_bytes);
    let Content::Bytes(bytes) = read.ok()? else {
        return None;
    };
    let place = classify(path, &ws.config.banned_dirs);
    let report = lint_file(path, &place, Content::Bytes(&bytes), &ws.config);
    report.info.parsed.then(|| replaced_by(&report))
}

/// `a` → `b` → `c`.
fn ticked(slugs: &[String]) -> String {
    let ticked: Vec<String> = slugs.iter().map(|s| format!("`{s}`")).collect();
    ticked.join(" → ")
}

/// Reads `path` as it is now and changes its text with `change`, given the
/// text and its report; the result is laid out as the formatter would.
fn rewrite(
    ws: &Workspace,
    path: &str,
    kind: Kind,
    change: impl FnOnce(&str, &FileReport) -> Option<String>,
) -> Result<(String, Snapshot, String), AuthorError> {
    let (seen, text) = super::commit::read_to_replace(ws, path)?;
    let text = text.as_str();
    let unreadable = || AuthorError::Unreadable {
        path: path.to_string(),
    };
    let place = classify(path, &ws.config.banned_dirs);
    let report = lint_file(path, &place, Content::Bytes(text.as_bytes()), &ws.config);
    if !report.info.parsed {
        return Err(unreadable());
    }
    let changed = change(text, &report).ok_or_else(unreadable)?;
    let laid = match crate::fmt::format_record(&changed, kind) {
        crate::fmt::Outcome::Formatted(t) => t,
        _ => changed,
    };
    Ok((path.to_string(), seen, laid))
}

/// `text` with each (key, value) set in its front matter: the value of a
/// key present is replaced, a key absent is added at the end (the
/// formatter then puts it in its place).
pub(crate) fn set_fields(text: &str, _kind: Kind, fields: &[(&str, &str)]) -> Option<String> {
    let Split::Found(parts) = frontmatter::split(text) else {
        return None;
    };
    let doc = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start).ok()?;
    let root = doc.root.as_ref();
    let mut edits = Vec::new();
    let mut added = String::new();
    for (key, value) in fields {
        match root.and_then(|r| r.get(key)) {
            Some(entry) => edits.push(Edit {
                span: entry.value.span.clone(),
                text: scalar(value),
            }),
            None => added += &format!("{key}: {}\n", scalar(value)),
        }
    }
    if !added.is_empty() {
        let at = parts.closer.start;
        // The closing line follows a line break, unless the front matter
        // is empty and the break belongs to the opening line.
        edits.push(Edit {
            span: at..at,
            text: added,
        });
    }
    apply(text, edits).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_set_in_place_or_added() {
        let text = "---\ntitle: A\nstatus: active # now\ndate: 2026-01-01\n---\nbody\n";
        let out = set_fields(
            text,
            Kind::Decision,
            &[("status", "replaced"), ("replaced_by", "b")],
        )
        .unwrap();
        assert_eq!(
            out,
            "---\ntitle: A\nstatus: replaced # now\ndate: 2026-01-01\nreplaced_by: b\n---\nbody\n"
        );
        assert_eq!(set_fields("no front matter", Kind::Decision, &[]), None);
    }
}
