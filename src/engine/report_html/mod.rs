//! `memlint report --html FILE`: one self-contained review page of the
//! workspace for the people who own an agent's memory — an overview (read
//! without JavaScript), the decisions over time with their replacement
//! chains, a page per record and a search with filters.
//!
//! Everything is in the one file: styles and the script inline, the data
//! embedded as zlib-compressed JSON in base64 (so no record text can end
//! its `<script>` element), nothing fetched (a Content-Security-Policy forbids
//! every request and every script but the page's own, by hash). Record
//! text is untrusted: it is masked and escaped here, bodies are rendered
//! from markdown with raw HTML shown as text (see the `markdown` module), and the
//! script builds its DOM with `textContent`.

mod data;
mod escape;
mod gathered;
mod markdown;
mod overview;
mod page;

use crate::engine::log::LogRequest;
use crate::lint::info::RecordInfo;
use crate::model::workspace::Workspace;
use gathered::{Gathered, Rec};
use rayon::prelude::*;

/// The page's characters of rendered bodies, shared out among the
/// records: a small workspace's bodies are shown whole, a large one's cut
/// so that the page stays quick to open.
const BODY_BUDGET: usize = 30_000_000;
/// Fewest and most characters of one body on the page.
const BODY_MIN: usize = 400;
const BODY_MAX: usize = 20_000;
/// Newest commits whose history the page shows (see [`Gathered`]).
const MAX_COMMITS: usize = 2_000;

/// The review page, and what it holds.
#[derive(Debug, Clone)]
pub(crate) struct HtmlReport {
    /// The whole HTML document.
    pub html: String,
    /// Records on the page.
    pub records: usize,
    /// Bodies cut to fit the page (the page says where the full text is).
    pub cut_bodies: usize,
    /// What reading the workspace met (see
    /// [`crate::engine::report::Report::problems`]).
    pub problems: Vec<crate::model::workspace::Problem>,
}

/// Builds the review page of `ws`, refreshing the index as `report` does.
pub(crate) fn build(
    ws: &Workspace,
    opts: &crate::engine::scan::Options,
) -> Result<HtmlReport, crate::engine::staging::StagingError> {
    let (mut report, infos) = crate::engine::report::build_with_records(ws, opts)?;
    let problems = std::mem::take(&mut report.problems);
    let recs = records(ws, infos);
    let (commits, older_commits, history_note) =
        match crate::engine::log::log(ws, &LogRequest::default()) {
            Ok(mut log) => {
                let older = log.commits.len().saturating_sub(MAX_COMMITS);
                log.commits.truncate(MAX_COMMITS);
                (log.commits, older, None)
            }
            Err(e) => (Vec::new(), 0, Some(e.to_string())),
        };
    let context_block = crate::engine::context::read_context_md(&ws.root, ws.config.max_file_bytes)
        .and_then(|text| {
            crate::engine::context::first_blocks(&text, 1)
                .into_iter()
                .next()
        })
        .map(|block| markdown::render(&block, BODY_MAX).0);
    let root_name = ws
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| ws.root.display().to_string());
    let g = Gathered {
        root_name,
        generated: crate::engine::log::rfc3339_offset(crate::model::clock::now_secs(), 0),
        report,
        recs,
        commits,
        history_note,
        older_commits,
        context_block,
    };
    let cut_bodies = g.recs.iter().filter(|r| r.cut).count();
    Ok(HtmlReport {
        html: page::document(&g),
        records: g.recs.len(),
        cut_bodies,
        problems,
    })
}

/// The records of the workspace, sorted by path, with their bodies read
/// (at most `max_file_bytes` each) and rendered.
fn records(ws: &Workspace, infos: Vec<(String, RecordInfo)>) -> Vec<Rec> {
    let per_body = (BODY_BUDGET / infos.len().max(1)).clamp(BODY_MIN, BODY_MAX);
    let mut recs: Vec<Rec> = infos
        .into_par_iter()
        .filter_map(|(path, info)| {
            let kind = info.kind?;
            let (body, cut) = body_of(ws, &path, per_body);
            Some(Rec {
                slug: crate::model::kind::stem(&path).to_string(),
                path,
                kind,
                info,
                body,
                cut,
            })
        })
        .collect();
    recs.sort_by(|a, b| a.path.cmp(&b.path));
    recs
}

/// The body of the record at `rel` as HTML, cut after `max` characters.
fn body_of(ws: &Workspace, rel: &str, max: usize) -> (String, bool) {
    use std::io::Read;
    let path = ws.root.join(rel);
    if !crate::io::fs::stays_inside(&ws.root, &path) {
        return (String::new(), false);
    }
    let mut bytes = Vec::new();
    let read = crate::io::fs::open_regular(&path)
        .and_then(|f| f.take(ws.config.max_file_bytes).read_to_end(&mut bytes));
    if read.is_err() {
        return (String::new(), false);
    }
    let text = String::from_utf8_lossy(&bytes);
    let body = match crate::syntax::frontmatter::split(&text) {
        crate::syntax::frontmatter::Split::Found(parts) => &text[parts.body],
        _ => &text[..],
    };
    markdown::render(body, max)
}
