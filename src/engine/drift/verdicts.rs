//! What a run of `sources/drifted` concludes, put together: each record's
//! verdict from its findings, and the findings, fixes, marks and note of
//! all the verdicts.

use super::{Cited, Drift, SourceFix};
use crate::lint::rules::sources::drifted::{self as rule, Finding};
use crate::model::diagnostic::Commits;
use crate::model::rule::Rule;
use crate::model::workspace::Workspace;
use crate::store::judged::{Unjudged as Why, Verdict};
use std::rc::Rc;

/// Why a record was not judged.
#[derive(Default)]
pub(super) struct Unjudged {
    pub(super) uncommitted: usize,
    pub(super) shallow: usize,
    pub(super) unreadable: usize,
    pub(super) not_committed: usize,
}

/// The findings, fixes, marks and note of the verdicts that say something.
pub(super) fn findings(mut verdicts: Vec<Verdict>) -> Drift {
    let mut out = Drift::default();
    verdicts.sort_by(|a, b| a.path.cmp(&b.path));
    out.diagnostics
        .reserve_exact(verdicts.iter().map(|v| v.diagnostics.len()).sum());
    out.fixes
        .reserve_exact(verdicts.iter().map(|v| v.fixes.len()).sum());
    out.marks
        .reserve_exact(verdicts.iter().filter(|v| !v.marks.is_empty()).count());
    let mut unjudged = Unjudged::default();
    for v in verdicts {
        match v.unjudged {
            Why::No => {}
            Why::Uncommitted => unjudged.uncommitted += 1,
            Why::Shallow => unjudged.shallow += 1,
            Why::Unreadable => unjudged.unreadable += 1,
            Why::NotCommitted => unjudged.not_committed += 1,
        }
        out.diagnostics.extend(v.diagnostics);
        out.fixes.extend(v.fixes.into_iter().map(|f| SourceFix {
            path: v.path.clone(),
            span: f.span,
            old: f.old,
            new: f.new,
        }));
        if let Some(m) = v.marks.into_iter().next() {
            out.marks.push((v.path, m));
        }
    }
    out.notes.extend(note(&unjudged));
    out
}

/// Turns a record's findings into what is reported and stored; `message`
/// gives each finding's message (the same for every record citing one
/// source from one commit).
pub(super) fn verdict(
    ws: &Workspace,
    record: &str,
    found: Vec<(&Cited, Rc<Finding>, Option<usize>)>,
    message: &dyn Fn(&Cited, &Finding, Option<usize>) -> String,
    ids: &dyn Fn(&Finding) -> Commits,
) -> Verdict {
    let mut v = Verdict {
        path: record.to_string(),
        deps: Vec::new(),
        diagnostics: Vec::new(),
        fixes: Vec::new(),
        marks: Vec::new(),
        unjudged: Why::No,
    };
    let Some(severity) = ws.config.severity(Rule::SourcesDrifted) else {
        return v;
    };
    for (c, finding, written) in found {
        // Only the first mark of a record is shown (`engine::drift_marks`).
        if v.marks.is_empty() {
            v.marks.extend(mark_of(&c.at.value, &finding));
        }
        let fix = rule::rewrite(&c.at.value, &finding);
        if let Some(new) = &fix {
            v.fixes.push(crate::store::judged::Fix {
                span: c.at.span.clone(),
                old: c.at.value.clone(),
                new: new.clone(),
            });
        }
        v.diagnostics.push(rule::diagnostic(
            c.record,
            c.at,
            severity,
            message(c, &finding, written),
            fix.is_some(),
            ids(&finding),
        ));
    }
    v
}

/// The mark of a finding that says the source's content changed (a rename
/// or lines that only moved change nothing the record says).
fn mark_of(source: &str, finding: &Finding) -> Option<crate::store::drift_marks::DriftMark> {
    let newest = match finding {
        Finding::Changed { commits, .. } => commits.first(),
        Finding::Unpinned { .. } => None,
        Finding::Renamed { .. } | Finding::Moved { .. } => return None,
    };
    Some(crate::store::drift_marks::DriftMark {
        source: source.to_string(),
        commit: newest.map(|c| c.id.clone()),
        date: newest.map(|c| c.date.clone()),
    })
}

/// The one line saying how many records were not judged, and why.
pub(super) fn note(u: &Unjudged) -> Option<String> {
    let mut why = Vec::new();
    if u.uncommitted > 0 {
        why.push(format!("{} with changes not committed yet", u.uncommitted));
    }
    if u.shallow > 0 {
        why.push(format!(
            "{} last written before the history of this shallow clone begins (fetch more history)",
            u.shallow
        ));
    }
    if u.unreadable > 0 {
        why.push(format!(
            "{} citing what cannot be read as a file (a directory, or lines of a file over 16 MiB)",
            u.unreadable
        ));
    }
    if u.not_committed > 0 {
        why.push(format!(
            "{} citing files git has never committed (commit them, or verify the record to pin them)",
            u.not_committed
        ));
    }
    let total = u.uncommitted + u.shallow + u.unreadable + u.not_committed;
    (total > 0).then(|| {
        let records = if total == 1 { "record" } else { "records" };
        format!(
            "sources/drifted: {total} {records} citing files could not be judged for drift: {}",
            why.join(", ")
        )
    })
}
