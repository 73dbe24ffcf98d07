//! What the review page is made of, gathered by the parent module and
//! read by the modules that render it (a leaf: it imports none of them).

use crate::engine::log::LogCommit;
use crate::engine::report::Report;
use crate::lint::info::RecordInfo;
use crate::model::kind::Kind;
use std::collections::HashMap;

/// Records per body chunk: the script parses one chunk when one of its
/// records is opened, never all the bodies at once.
pub(crate) const CHUNK: usize = 1000;

/// One record as the page shows it.
pub(crate) struct Rec {
    pub path: String,
    pub kind: Kind,
    pub slug: String,
    pub info: RecordInfo,
    /// The body as HTML (inert), and whether it was cut.
    pub body: String,
    pub cut: bool,
}

/// Everything the page is made of.
pub(crate) struct Gathered {
    pub root_name: String,
    pub generated: String,
    pub report: Report,
    pub recs: Vec<Rec>,
    /// Newest first, at most the newest 2,000.
    pub commits: Vec<LogCommit>,
    /// Why there is no history (not a git repository, …), if so.
    pub history_note: Option<String>,
    /// Commits in the repository beyond the ones shown.
    pub older_commits: usize,
    /// The newest `CONTEXT.md` block, as HTML.
    pub context_block: Option<String>,
}

/// Record index by path.
pub(crate) fn by_path(recs: &[Rec]) -> HashMap<&str, usize> {
    recs.iter()
        .enumerate()
        .map(|(i, r)| (r.path.as_str(), i))
        .collect()
}
