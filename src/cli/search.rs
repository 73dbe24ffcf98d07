//! `memlint search`: ranked records for a query.

use super::args::*;
use super::exit::walk_outcome;
use super::output::write_out;
use super::settings::Settings;
use crate::engine::search::Query;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint search`: ranked records for a query.
pub(super) fn run(
    s: &Settings,
    args: &SearchArgs,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    let query = Query {
        text: args.query.join(" "),
        kind: args.kind,
        limit: args.limit as usize,
        all: args.all,
        since: args.since.clone(),
    };
    if query.text.trim().is_empty() {
        return Err(WorkspaceError::Usage(
            "the query is empty: give the words to look for".into(),
        ));
    }
    let bar = super::progress::Bar::new("indexing");
    let opts = crate::engine::scan::Options {
        force: false,
        progress: bar.shown(!s.quiet),
    };
    let mut answer = crate::engine::search::search_answer(&s.workspace, &query, &opts);
    problems.append(&mut answer.problems);
    let hits = answer.hits;
    // Nothing active matched: say whether replaced records did.
    let replaced = hits.is_empty() && answer.replaced_matched;
    match args.format {
        ReportFormat::Human if replaced => {
            write_out("No active record matches; replaced records do: add --all to see them.\n")
        }
        ReportFormat::Human => super::output::out_colored(&human(&hits, s.color), s.color),
        ReportFormat::Json => write_out(&json(&query.text, &hits)),
    }
    Ok(walk_outcome(problems, ExitCode::SUCCESS))
}

/// The JSON of docs/commands.md: `{"query", "results": [{"path", "kind", "slug",
/// "title", "status", "score", "snippet"}]}`, each result with its `date`
/// too, and `drifted`: `null`, or the source that changed since the record
/// was written or verified, `{"source", "commit", "date"}` (the commit and
/// its date `null` when the change is not committed yet or was found by a
/// pin).
pub(super) fn json(query: &str, hits: &[crate::engine::search::Hit]) -> String {
    let results: Vec<serde_json::Value> = hits
        .iter()
        .map(|h| {
            serde_json::json!({
                "path": h.path,
                "kind": h.kind.name(),
                "slug": h.slug,
                "title": h.title,
                "status": h.status,
                "date": h.date,
                "score": h.score,
                "snippet": h.snippet,
                "drifted": h.drifted,
            })
        })
        .collect();
    crate::syntax::sanitize::json(&serde_json::json!({
        "query": query,
        "results": results,
    }))
}

/// Human output: rank, path, title, score (as in the JSON, two decimals),
/// and the snippet with its matches highlighted when `color` is set.
fn human(hits: &[crate::engine::search::Hit], color: bool) -> String {
    use std::fmt::Write;
    if hits.is_empty() {
        return "No matching records.\n".to_string();
    }
    let width = hits.len().to_string().len();
    let mut out = String::new();
    for (i, h) in hits.iter().enumerate() {
        // Control characters of a title, a file name or a snippet are
        // shown as symbols, never sent to the terminal.
        let title = crate::syntax::sanitize::line(h.title.as_deref().unwrap_or("(no title)"));
        let path = crate::syntax::sanitize::line(&h.path);
        let replaced = if h.status.as_deref() == Some("replaced") {
            " [replaced]"
        } else {
            ""
        };
        let replaced = match &h.drifted {
            Some(m) => format!("{replaced} ({})", crate::engine::drift_marks::text(m)),
            None => replaced.to_string(),
        };
        if color {
            let _ = writeln!(
                out,
                "{:>width$}. \x1b[1;36m{}\x1b[0m  {title}{replaced}  \x1b[2m(score {:.2})\x1b[0m",
                i + 1,
                path,
                h.score
            );
        } else {
            let _ = writeln!(
                out,
                "{:>width$}. {}  {title}{replaced}  (score {:.2})",
                i + 1,
                path,
                h.score
            );
        }
        let (shown, shift) = crate::syntax::sanitize::controls_shifted(
            &h.snippet,
            crate::syntax::sanitize::Mode::Line,
        );
        let mut snippet = String::new();
        let mut at = 0;
        for m in &h.marks {
            let m = shift.at(m.start)..shift.at(m.end);
            if m.start < at || !color {
                continue;
            }
            snippet.push_str(&shown[at..m.start]);
            snippet.push_str("\x1b[1;33m");
            snippet.push_str(&shown[m.clone()]);
            snippet.push_str("\x1b[0m");
            at = m.end;
        }
        snippet.push_str(&shown[at..]);
        let _ = writeln!(out, "{:width$}  {snippet}", "");
    }
    out
}
