//! Changing a record in place (the MCP server's `memory_update`): a new
//! title, description, body, sources or tags, checked by every rule
//! before the file is replaced. An active decision's title and body are
//! not rewritten in place — that is what `history/decision-rewritten`
//! reports — so such a change is refused with the way to do it instead: a
//! new decision that replaces the old one.

use super::commit::{commit, Write};
use super::draft::{flow_scalar, scalar};
use super::verify::{self, Current};
use super::AuthorError;
use crate::model::diagnostic::Diagnostic;
use crate::model::kind::Kind;
use crate::model::workspace::Workspace;
use crate::syntax::edit::{apply, Edit};
use crate::syntax::frontmatter::{self, Split};
use serde::Serialize;

/// What to change; `None` leaves a part as it is.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    pub title: Option<String>,
    pub description: Option<String>,
    pub body: Option<String>,
    pub sources: Option<Vec<String>>,
    pub tags: Option<Vec<String>>,
}

/// What `update` wrote.
#[derive(Debug, Clone, Serialize)]
pub struct Updated {
    pub path: String,
    pub kind: Kind,
    pub slug: String,
    /// False when the record already held all that: nothing was written.
    pub changed: bool,
    /// Warnings on what was written (an error refuses the write).
    pub warnings: Vec<Diagnostic>,
}

/// Applies `changes` to the record `target` names (see
/// `super::show::show`).
///
/// # Examples
///
/// ```ignore
/// use memlint::engine::author::{self, Changes};
/// use memlint::model::workspace::Workspace;
///
/// let cwd = std::env::current_dir().expect("the current directory");
/// let at = memlint::engine::workspace::Surroundings { cwd: &cwd, env: &|name| std::env::var(name).ok() };
/// let ws = memlint::engine::workspace::load(&at, None, None)?;
/// let changes = Changes { tags: Some(vec!["git".into()]), ..Changes::default() };
/// let updated = author::update(&ws, "use-gix", &changes, &mut Vec::new())?;
/// println!("{} changed: {}", updated.path, updated.changed);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn update(
    ws: &Workspace,
    target: &str,
    changes: &Changes,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Result<Updated, AuthorError> {
    let current = Current::read(ws);
    problems.extend(current.problems.iter().cloned());
    let report = super::show::find(&current, ws, target)?;
    let kind = report
        .info
        .kind
        .ok_or_else(|| AuthorError::Usage(format!("{} is not a record", report.path)))?;
    let path = report.path.clone();
    let slug = crate::model::kind::stem(&path).to_string();
    let (seen, text) = super::commit::read_to_replace(ws, &path)?;
    let text = text.as_str();
    if kind == Kind::Decision && report.info.status.as_deref() == Some("active") {
        refuse_rewrite(text, &slug, changes)?;
    }
    let changed = edit(text, changes).map_err(|e| e.unwrap_or_else(|| unreadable(&path)))?;
    let changed = match crate::fmt::format_record(&changed, kind) {
        crate::fmt::Outcome::Formatted(t) => t,
        _ => changed,
    };
    if changed == text {
        return Ok(Updated {
            path,
            kind,
            slug,
            changed: false,
            warnings: Vec::new(),
        });
    }
    let changes = vec![(path.clone(), changed.clone())];
    let diagnostics = verify::diagnostics(ws, &current, &changes);
    if verify::has_errors(&diagnostics) {
        return Err(AuthorError::Refused {
            path,
            diagnostics,
            texts: changes,
        });
    }
    commit(
        &ws.root,
        vec![Write::Replace {
            path: path.clone(),
            seen,
            text: changed,
        }],
    )?;
    Ok(Updated {
        path,
        kind,
        slug,
        changed: true,
        warnings: diagnostics,
    })
}

fn unreadable(path: &str) -> AuthorError {
    AuthorError::Unreadable {
        path: path.to_string(),
    }
}

/// An active decision keeps its title and body: a change of either is
/// refused, naming the way to record it.
fn refuse_rewrite(text: &str, slug: &str, changes: &Changes) -> Result<(), AuthorError> {
    let Split::Found(parts) = frontmatter::split(text) else {
        return Ok(());
    };
    let body_changes = changes
        .body
        .as_deref()
        .is_some_and(|b| b.trim() != text[parts.body.clone()].trim());
    let title_changes = changes.title.as_deref().is_some_and(|t| {
        let root = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start)
            .ok()
            .and_then(|d| d.root);
        let now = root
            .as_ref()
            .and_then(|r| r.get("title"))
            .and_then(|e| e.value.as_scalar())
            .map(|s| s.text.clone());
        now.as_deref() != Some(t.trim())
    });
    if body_changes || title_changes {
        return Err(AuthorError::Rewrite {
            slug: slug.to_string(),
        });
    }
    Ok(())
}

/// `text` with `changes` applied: scalar values replaced (or added), lists
/// written as flow lists (the formatter lays them out), the body replaced.
/// `Err(None)` when the record's front matter cannot be read, `Err(Some)`
/// when a new value cannot be written (a line break, a control character).
fn edit(text: &str, changes: &Changes) -> Result<String, Option<AuthorError>> {
    let Split::Found(parts) = frontmatter::split(text) else {
        return Err(None);
    };
    let doc = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start)
        .map_err(|_| None)?;
    let root = doc.root.ok_or(None)?;
    let mut edits = Vec::new();
    let mut added = String::new();
    let mut set = |key: &str, value: String| match root.get(key) {
        // From the end of the key, so that a block value's lines go too.
        Some(entry) => edits.push(Edit {
            span: entry.key.span.end..entry.value.span.end.max(entry.key.span.end),
            text: format!(": {value}"),
        }),
        None => added += &format!("{key}: {value}\n"),
    };
    for (key, value) in [
        ("title", &changes.title),
        ("description", &changes.description),
    ] {
        if let Some(v) = value {
            one_line(key, v)?;
            set(key, scalar(v.trim()));
        }
    }
    for (key, list) in [("sources", &changes.sources), ("tags", &changes.tags)] {
        if let Some(items) = list {
            for v in items {
                one_line(key, v)?;
            }
            let items: Vec<String> = items.iter().map(|s| flow_scalar(s.trim())).collect();
            set(key, format!("[{}]", items.join(", ")));
        }
    }
    if !added.is_empty() {
        edits.push(Edit {
            span: parts.closer.start..parts.closer.start,
            text: added,
        });
    }
    if let Some(body) = &changes.body {
        edits.push(Edit {
            span: parts.body.clone(),
            text: super::draft::body_section(body),
        });
    }
    apply(text, edits).map_err(|_| None)
}

/// `Ok` when `v`, a new value of `key`, is one line without control
/// characters; else the refusal naming the character and where it is.
fn one_line(key: &str, v: &str) -> Result<(), Option<AuthorError>> {
    let Some((at, c)) = v.char_indices().find(|(_, c)| c.is_control()) else {
        return Ok(());
    };
    let what = match c {
        '\n' | '\r' => "a line break".to_string(),
        '\t' => "a tab".to_string(),
        c => format!("the control character U+{:04X}", c as u32),
    };
    let column = v[..at].chars().count() + 1;
    Err(Some(AuthorError::Usage(format!(
        "the new `{key}` holds {what} at character {column}; a front-matter value is one line of plain text: remove it (a body may hold line breaks)"
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_applied_in_place() {
        let text = "---\ntitle: A\nstatus: open\ndate: 2026-01-01\nsources:\n  - file:a.md # why\n  - file:b.md\n---\n\nOld body.\n";
        let out = edit(
            text,
            &Changes {
                title: Some("B: new".into()),
                body: Some("New body.".into()),
                sources: Some(vec!["file:c.md".into()]),
                tags: Some(vec!["x".into(), "a, b".into()]),
                ..Changes::default()
            },
        )
        .unwrap();
        assert_eq!(
            out,
            "---\ntitle: 'B: new'\nstatus: open\ndate: 2026-01-01\nsources: [file:c.md]\ntags: [x, 'a, b']\n---\n\nNew body.\n"
        );
    }
}
