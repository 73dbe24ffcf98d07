//! The newest records by date, from the index (the MCP server's
//! `memory_recent`): what an agent joining a workspace reads first.

use super::verify::Current;
use crate::model::kind::{stem, Kind};
use crate::model::workspace::Workspace;
use serde::Serialize;

/// One record of [`recent`].
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Recent {
    pub path: String,
    pub kind: Kind,
    pub slug: String,
    pub title: Option<String>,
    /// The record's date (`date`, or a session's or summary's day).
    pub date: Option<String>,
    pub status: Option<String>,
}

/// The `limit` newest records (of `kind`, when given), newest first by
/// date, then by path; replaced records only with `include_replaced`.
pub(crate) fn recent(
    ws: &Workspace,
    kind: Option<Kind>,
    limit: usize,
    include_replaced: bool,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Vec<Recent> {
    let current = Current::read(ws);
    problems.extend(current.problems.iter().cloned());
    let mut found: Vec<Recent> = current
        .reports
        .iter()
        .filter(|r| r.info.parsed)
        .filter_map(|r| {
            let k = r.info.kind?;
            let wanted = kind.is_none_or(|want| want == k)
                && !matches!(k, Kind::Staging)
                && (include_replaced || r.info.status.as_deref() != Some("replaced"));
            wanted.then(|| Recent {
                path: r.path.clone(),
                kind: k,
                slug: stem(&r.path).to_string(),
                title: r.info.title.clone().or_else(|| r.info.description.clone()),
                date: r.info.date.clone(),
                status: r.info.status.clone(),
            })
        })
        .collect();
    found.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.path.cmp(&b.path)));
    found.truncate(limit);
    found
}
