//! `memlint verify RECORD…`: the record was checked against its sources
//! now. It gets `verified: <today>` and a pin of each `file:` source (the
//! hash of its content, or of its cited lines), so that `sources/drifted`
//! can judge it later without history (a shallow CI clone). `memlint new`
//! pins at write through [`pins_for`].

use super::commit::{commit, Write};
use super::front_pins::set_verified;
use super::verify::{self, Current};
use super::AuthorError;
use crate::model::workspace::Workspace;
use serde::Serialize;

/// One record `verify` wrote.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Verified {
    /// The record, root-relative.
    pub path: String,
    /// The date written into `verified`.
    pub verified: String,
    /// The pins written, `<source> xxh3:<hash>`.
    pub pins: Vec<String>,
    /// False when the record already held all that.
    pub changed: bool,
    /// The sources rewritten first, as `check --fix` would: cited lines
    /// found at other lines, a cited file renamed.
    pub moved: Vec<Moved>,
}

/// A source `verify` rewrote before pinning it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Moved {
    pub from: String,
    pub to: String,
}

/// `text`, the record `path` as `info` reads it, with the sources whose
/// cited lines now sit at other lines, or whose file was renamed,
/// rewritten as `check --fix` rewrites them (their pins following), and
/// the record's sources after: what is verified is where the cited text is
/// now, not the lines it left.
pub(crate) fn moved_first(
    ws: &Workspace,
    path: &str,
    info: &crate::lint::RecordInfo,
    text: &str,
) -> (String, Vec<String>, Vec<Moved>) {
    let mut sources: Vec<String> = info.sources.iter().map(|s| s.value.clone()).collect();
    let drift = crate::engine::drift::drifted(
        ws,
        std::iter::once((path, info)),
        crate::engine::drift::Mode::WorkTree,
    );
    let fixes: Vec<&crate::engine::drift::SourceFix> =
        drift.fixes.iter().filter(|f| f.path == path).collect();
    let Some(rewritten) = (!fixes.is_empty())
        .then(|| crate::engine::fix::rewrite_sources(text, &fixes))
        .flatten()
    else {
        return (text.to_string(), sources, Vec::new());
    };
    let mut moved = Vec::new();
    for f in fixes {
        for s in sources.iter_mut().filter(|s| **s == f.old) {
            *s = f.new.clone();
        }
        moved.push(Moved {
            from: f.old.clone(),
            to: f.new.clone(),
        });
    }
    (rewritten, sources, moved)
}

/// The pins of `sources` (the record's entries) as the work tree holds
/// their files (a cited directory has none): `Err` names a `file:` source
/// that cannot be pinned (its file is missing, unreadable, too large, or
/// lacks the cited lines).
pub(crate) fn pins_for(ws: &Workspace, sources: &[String]) -> Result<Vec<String>, String> {
    let mut pins = Vec::new();
    for s in sources {
        let Some(value) = s.strip_prefix("file:") else {
            continue;
        };
        if crate::model::kind::source_problem(s).is_some() {
            return Err(format!("`{s}` is not a well-formed source"));
        }
        let (_, lines) = crate::model::kind::split_file_source(value)?;
        let rel = crate::lint::rules::sources::file_target(value)
            .map_err(|why| format!("`{s}` {why}"))?;
        // A directory has no content to pin (nor is its drift judged).
        if lines.is_none() && crate::io::source::is_directory(&ws.root, &rel) {
            continue;
        }
        let bytes = crate::io::source::read_source(&ws.root, &rel).ok_or_else(|| {
            format!("`{s}` cannot be pinned: `{rel}` is not a readable file of at most 16 MiB inside the workspace")
        })?;
        let hash = crate::lint::rules::sources::drifted::pin(&bytes, lines)
            .ok_or_else(|| format!("`{s}` cannot be pinned: `{rel}` lacks the cited lines"))?;
        let pin = format!("{s} {hash}");
        if !pins.contains(&pin) {
            pins.push(pin);
        }
    }
    Ok(pins)
}

/// The records `sources/drifted` reports in the work tree (`verify
/// --drifted`), root-relative and sorted: those whose cited files changed,
/// and those whose cited lines only moved or whose cited file was only
/// renamed, which `verify` rewrites first ([`moved_first`]).
pub(crate) fn drifted_records(
    ws: &Workspace,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Vec<String> {
    let current = Current::read(ws);
    problems.extend(current.problems.iter().cloned());
    let drift = crate::engine::drift::drifted(
        ws,
        current.reports.iter().map(|r| (r.path.as_str(), &r.info)),
        crate::engine::drift::Mode::WorkTree,
    );
    let mut paths: Vec<String> = drift.diagnostics.into_iter().map(|d| d.path).collect();
    paths.sort();
    paths.dedup();
    paths
}

/// Verifies each record `targets` names (see [`super::show::show`]) as of
/// `today`: writes `verified` and the pins of its `file:` sources, checked
/// by every rule first, each file replaced atomically and only while it
/// holds what was read.
pub(crate) fn verify(
    ws: &Workspace,
    targets: &[String],
    today: &str,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Result<Vec<Verified>, AuthorError> {
    let current = Current::read(ws);
    problems.extend(current.problems.iter().cloned());
    let mut out: Vec<Verified> = Vec::new();
    for target in targets {
        let report = super::show::find(&current, ws, target)?;
        let path = report.path.clone();
        // A record named twice (by slug and by path) is verified once.
        if out.iter().any(|v| v.path == path) {
            continue;
        }
        let kind = report
            .info
            .kind
            .filter(|k| k.field("pins").is_some())
            .ok_or_else(|| {
                AuthorError::Usage(format!("{path} is not a record that cites sources"))
            })?;
        let (seen, text) = super::commit::read_to_replace(ws, &path)?;
        let (moved_text, sources, moved) = moved_first(ws, &path, &report.info, &text);
        let (edited, pins) = verified_text(ws, &path, kind, &sources, &moved_text, today)?;
        let changed = edited != text;
        if changed {
            let changes = vec![(path.clone(), edited.clone())];
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
                    text: edited,
                }],
            )?;
        }
        out.push(Verified {
            path,
            verified: today.to_string(),
            pins,
            changed,
            moved,
        });
    }
    Ok(out)
}

/// The text `verify` writes for the record `path` (of `kind`, citing
/// `sources`) that holds `text`, as of `today`: `verified` and the pins of
/// its `file:` sources set, then formatted; and the pins. The language
/// server's "Mark as verified" applies the same edit to a buffer.
pub(crate) fn verified_text(
    ws: &Workspace,
    path: &str,
    kind: crate::model::kind::Kind,
    sources: &[String],
    text: &str,
    today: &str,
) -> Result<(String, Vec<String>), AuthorError> {
    let pins = pins_for(ws, sources).map_err(|why| AuthorError::Usage(format!("{path}: {why}")))?;
    // The front end words the way out (`Advice::Check`).
    let edited = set_verified(text, today, &pins).ok_or_else(|| AuthorError::Unreadable {
        path: path.to_string(),
    })?;
    // A record in canonical form stays so; one in the user's own form
    // (CRLF line endings, keys in another order) changes only in the lines
    // written.
    let canonical = matches!(
        crate::fmt::format_record(text, kind),
        crate::fmt::Outcome::Unchanged
    );
    let edited = match crate::fmt::format_record(&edited, kind) {
        crate::fmt::Outcome::Formatted(t) if canonical => t,
        _ => edited,
    };
    Ok((edited, pins))
}
