//! Human `check` output of the work tree with each file's reports kept
//! rendered in `.memlint/rendered`: a warm check on a workspace with
//! thousands of findings (the records citing a changed file) copies the
//! reports of the files whose text and findings are as they were, instead
//! of reading those files again and rendering every report.
//!
//! A file's reports are keyed by its path, the hash of its text and every
//! field of its findings; the file as a whole by the scope: memlint (its
//! version and executable), the effective configuration, the width and
//! whether colours are on. The bytes are the renderer's own for the
//! file's findings alone, after the last output pass (credentials masked,
//! controls shown), so the output is the same as rendering them all.

use super::render::{self, Summary};
use crate::engine::check::lint::Outcome;
use crate::model::diagnostic::Diagnostic;
use crate::model::workspace::Workspace;
use std::collections::HashMap;
use std::ops::Range;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// How a check's human output is drawn, and of what.
pub(super) struct Shape {
    pub color: bool,
    pub width: usize,
    /// The whole work tree (no paths named): only such a check keeps its
    /// reports, so that checking a few files (a pre-commit hook, an
    /// editor) does not leave the kept reports holding those alone.
    pub whole: bool,
}

/// Human output of `outcome` (see [`render::rendered`]), handed to `sink`
/// piece by piece after the last output pass, with the reports
/// of unchanged files taken from `.memlint/rendered`; the file is written
/// again, by a check of the whole work tree, when it was unusable or too
/// many reports were not in it. Each file's reports are made what the last
/// output pass makes of them when drawn (credentials masked, controls
/// shown; the ranges their renderer marked as shown as they are), and kept
/// so; kept reports are a file memlint read, not bytes it drew: their
/// control and invisible characters are shown again (none, unless the file
/// was written by someone else), their credentials were masked when drawn.
pub(super) fn human(
    ws: &Workspace,
    outcome: &Outcome,
    summary: Summary,
    shape: Shape,
    sink: &mut dyn FnMut(&str),
) {
    let Shape {
        color,
        width,
        whole,
    } = shape;
    let diags = &outcome.diagnostics;
    let scope = scope(ws, color, width);
    let kept = crate::store::rendered::load(&ws.root, scope);
    // Each file's findings (they come sorted by path), with the key of
    // their reports when the file's text is known.
    let mut groups: Vec<(&[Diagnostic], Option<u128>)> = Vec::new();
    let mut start = 0;
    while start < diags.len() {
        let path = &diags[start].path;
        let end = start + diags[start..].partition_point(|d| d.path == *path);
        let group = &diags[start..end];
        let content = outcome_content(outcome, path);
        groups.push((group, content.map(|c| key(path, c, group))));
        start = end;
    }
    // Each file's kept reports, where they are kept.
    let hits: Vec<Option<&str>> = groups
        .iter()
        .map(|(_, key)| kept.as_ref()?.get((*key)?))
        .collect();
    // The texts of the files whose reports are rendered now.
    let wanted: Vec<&str> = groups
        .iter()
        .zip(&hits)
        .filter(|((g, _), hit)| hit.is_none() && !outcome.sources.contains_key(&g[0].path))
        .map(|((g, _), _)| g[0].path.as_str())
        .collect();
    let read: HashMap<String, String> = crate::engine::check::lint::read_texts(ws, &wanted)
        .into_iter()
        .collect();
    // Each file's reports are drawn on their own (a renderer each), so
    // files are drawn on every core: a cold check of 100k records drew
    // 19k reports on one.
    use rayon::prelude::*;
    let parts: Vec<Part> = groups
        .into_par_iter()
        .zip(hits)
        .map(|((group, key), hit)| {
            if let Some(text) = hit {
                return Part {
                    key,
                    text: crate::syntax::sanitize::terminal_controls(text, color),
                    drawn: false,
                };
            }
            let path = &group[0].path;
            let sources = match read.contains_key(path) {
                true => &read,
                false => &outcome.sources,
            };
            let (text, shown) = render_group(group, sources, color, width);
            // Stored only when the text rendered is the one the key names
            // (a file changed since it was linted is not).
            let drawn_from = sources.get(path).map(|t| xxh3_64(t.as_bytes()));
            let key = key
                .filter(|_| drawn_from.is_some() && drawn_from == outcome_content(outcome, path));
            Part {
                key,
                text: render::Rendered { text, shown }
                    .passed(color)
                    .collect::<String>()
                    .into(),
                drawn: true,
            }
        })
        .collect();
    // Handed on part by part: the reports of 100k records are megabytes,
    // not worth a copy in one string.
    for part in &parts {
        sink(&part.text);
    }
    // The reports have taken the last pass; the count line takes it still.
    let line = render::Rendered {
        text: format!("{}\n", summary.line()),
        shown: Vec::new(),
    };
    for piece in line.passed(color) {
        sink(&piece);
    }
    // Kept as it is while most reports came from it: a record being edited
    // does not rewrite megabytes of reports at every check.
    let fresh: usize = parts.iter().filter(|p| p.drawn).map(|p| p.text.len()).sum();
    let total: usize = parts.iter().map(|p| p.text.len()).sum();
    if whole && (kept.is_none() || fresh.saturating_mul(8) > total) {
        let entries = parts
            .iter()
            .filter_map(|p| Some((p.key?, p.text.as_ref())))
            .collect();
        crate::store::rendered::save(ws, scope, entries);
    }
}

/// One file's reports in the output, as [`human`] puts them together.
struct Part<'k> {
    /// The key they are kept under, when they may be kept.
    key: Option<u128>,
    /// The reports, drawn now or kept, as the last output pass makes them.
    text: std::borrow::Cow<'k, str>,
    /// Drawn now, not taken from the kept reports.
    drawn: bool,
}

/// The hash of the text of `path` a key names: of the text at hand, else
/// the one the record table holds.
fn outcome_content(outcome: &Outcome, path: &str) -> Option<u64> {
    match outcome.sources.get(path) {
        Some(text) => Some(xxh3_64(text.as_bytes())),
        None => outcome.contents.get(path).copied(),
    }
}

/// The reports of one file's findings, as [`render::rendered`] renders
/// them among all the others (its closing count line left out), with the
/// ranges its renderer marked as shown.
fn render_group(
    group: &[Diagnostic],
    sources: &HashMap<String, String>,
    color: bool,
    width: usize,
) -> (String, Vec<Range<usize>>) {
    let summary = Summary::of(0, group);
    let render::Rendered { mut text, shown } =
        render::rendered(group, sources, summary, color, width);
    let line = summary.line();
    let reports = text
        .strip_suffix('\n')
        .and_then(|t| t.strip_suffix(line.as_str()));
    debug_assert!(reports.is_some(), "the count line ends the output");
    if let Some(reports) = reports {
        text.truncate(reports.len());
    }
    let cut = text.len();
    let shown = shown
        .into_iter()
        .filter(|r| r.start < cut)
        .map(|r| r.start..r.end.min(cut))
        .collect();
    (text, shown)
}

/// What every report of the file depends on besides its findings and its
/// file: memlint, the configuration, the width and the colours.
fn scope(ws: &Workspace, color: bool, width: usize) -> u64 {
    let mut h = Xxh3::new();
    h.update(b"human");
    h.update(&crate::io::cache::key(&ws.config).to_le_bytes());
    h.update(&(width as u64).to_le_bytes());
    h.update(&[u8::from(color)]);
    h.digest()
}

/// The key of the reports of `group`, the findings of `path` whose text
/// hashes to `content`: every field of every finding.
fn key(path: &str, content: u64, group: &[Diagnostic]) -> u128 {
    let mut h = Xxh3::new();
    let text = |h: &mut Xxh3, s: &str| {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    text(&mut h, path);
    for d in group {
        // Every field, named: a field added later must be keyed too.
        let Diagnostic {
            rule,
            severity,
            path: _,
            line,
            column,
            end_line,
            end_column,
            message,
            fixable,
            span,
            omitted,
            commits,
        } = d;
        text(&mut h, rule.as_str());
        text(&mut h, severity.as_str());
        text(&mut h, message);
        for c in commits.iter() {
            text(&mut h, c);
        }
        let numbers = [
            *line,
            *column,
            *end_line,
            *end_column,
            span.start,
            span.end,
            *omitted,
            commits.len(),
            usize::from(*fixable),
        ];
        for n in numbers {
            h.update(&(n as u64).to_le_bytes());
        }
    }
    h.update(&content.to_le_bytes());
    h.digest128()
}
