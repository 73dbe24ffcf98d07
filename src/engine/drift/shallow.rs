//! Records last written before the history a shallow clone holds: every
//! commit of that history came after them, so what it shows of a cited
//! file is judged; what it cannot show is left to the note.

use super::follow::Followed;
use super::history::Since;
use super::{Cited, Judge};
use crate::lint::rules::sources::drifted::Finding;

impl Judge<'_> {
    /// A pinned source whose file is gone, of a record last written before
    /// the history this (shallow) clone holds begins: every commit of that
    /// history came after the record, so the file is followed through their
    /// renames and judged by its pin under its new name.
    pub(super) fn gone_by_pin(
        &self,
        c: &Cited,
        hash: &str,
        verified: &Option<String>,
    ) -> Option<Finding> {
        let Followed {
            name,
            touched,
            renamed,
            ..
        } = self.follow(&c.path, &self.held())?;
        let renamed = renamed?;
        let moved = Cited {
            path: std::borrow::Cow::Owned(name.clone()),
            ..*c
        };
        match self.by_pin(&moved, hash, verified) {
            None => Some(Finding::Renamed {
                to: name,
                commit: self.commit(renamed),
            }),
            Some(Finding::Moved { lines, .. }) => Some(Finding::Moved {
                to: Some(name),
                lines,
            }),
            Some(_) => Some(Finding::Changed {
                commits: touched.iter().rev().map(|&i| self.commit(i)).collect(),
                uncommitted: self.uncommitted(&name).then_some(self.pending()),
                renamed_to: Some(name),
                cut: true,
            }),
        }
    }

    /// The commits of the history this (shallow) clone holds whose changes
    /// are known (not those its history is cut at).
    pub(super) fn held(&self) -> Since {
        let steps = &self.h().steps;
        let mut bits = vec![0u64; steps.len().div_ceil(64)];
        for (i, _) in steps.iter().enumerate().filter(|(_, s)| !s.boundary) {
            bits[i / 64] |= 1 << (i % 64);
        }
        Since::Among(bits.into())
    }

    /// An unpinned source of a record last written before the history this
    /// (shallow) clone holds: drifted when a commit of that history changed
    /// the file, or the work tree has (each came after the record); `None`
    /// when neither did or it cannot be told: a range (its lines as of the
    /// record's commit are not there), or a history with merges (where a
    /// commit the clone holds may be older than the record).
    pub(super) fn changed_within_history(&self, c: &Cited) -> Option<Finding> {
        if c.lines.is_some() || self.h().merges {
            return None;
        }
        let f = self.follow(&c.path, &self.held())?;
        // A file added again (deleted or renamed away before) may be back
        // as it was when the record was written.
        if f.added {
            return None;
        }
        let uncommitted = self.uncommitted(&f.name);
        if f.changed.is_empty() && !uncommitted {
            return None;
        }
        Some(Finding::Changed {
            commits: f.touched.iter().rev().map(|&i| self.commit(i)).collect(),
            uncommitted: uncommitted.then_some(self.pending()),
            renamed_to: f.renamed.map(|_| f.name.clone()),
            cut: true,
        })
    }
}
