//! When a record was last written: the newest commit that wrote it as it
//! is now, walked back past commits that only reformatted it (`memlint
//! fmt`, an editor's formatter): those did not write it anew against the
//! code it cites.

use super::history::{self, History};
use super::Judge;
use gix::ObjectId;

/// Whether the steps `first` lead `then`, in order.
fn leads(first: &[crate::store::drift::Step], then: &[crate::store::drift::Step]) -> bool {
    then.len() >= first.len() && first.iter().zip(then).all(|(a, b)| a.id == b.id)
}

/// When a record was last written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Written {
    /// By the commit at this index of the walk.
    At(usize),
    /// Before the history this (shallow) clone holds.
    BeyondHistory,
    /// Not yet: it is new, or changed since its last commit.
    NotYet,
    /// The history could not be read.
    Unknown,
}

impl Judge<'_> {
    /// Reads the history if it is not yet; false when it cannot be.
    pub(super) fn load_history(&self) -> bool {
        if self.history.get().is_some() {
            return true;
        }
        let needed = self.needed();
        let needed: Vec<(&str, ObjectId)> =
            needed.iter().map(|(r, id)| (r.as_str(), *id)).collect();
        let begun = self.early.and_then(|e| e.take(self.head.0));
        match History::walk(self.repo, self.head.0, self.ws, &needed, (begun, false)) {
            Ok(h) => {
                let _ = self.history.set(h);
                true
            }
            Err(_) => {
                self.failed.set(true);
                false
            }
        }
    }

    /// Walks the whole history, where the first walk stopped early; false
    /// when it did not (or the walk fails). The answers drawn from the
    /// first walk stand: its steps lead the whole walk, in the same order,
    /// and it held every commit since each commit it found. But the steps
    /// touching each path are listed again.
    fn deepen(&self) -> bool {
        if self.h().complete || self.whole.get().is_some() {
            return false;
        }
        let needed = self.needed();
        let needed: Vec<(&str, ObjectId)> =
            needed.iter().map(|(r, id)| (r.as_str(), *id)).collect();
        match History::walk(self.repo, self.head.0, self.ws, &needed, (None, true)) {
            Ok(h) if leads(&self.h().steps, &h.steps) => {
                self.touching.borrow_mut().clear();
                self.since.borrow_mut().clear();
                let _ = self.whole.set(h);
                true
            }
            _ => false,
        }
    }

    /// Every record read ahead that is committed as it is may ask when it
    /// was last written ([`Judge::written`]), each with its blob id in
    /// HEAD: the walk looks for the commit that wrote that blob there.
    fn needed(&self) -> Vec<(String, ObjectId)> {
        let ids = self.ids.borrow();
        self.records
            .borrow()
            .iter()
            .filter(|r| {
                let now = ids.get(r.as_str()).copied().flatten();
                now.is_some() && self.committed_as_is(r, now)
            })
            .filter_map(|r| Some((r.clone(), self.head_id(r)?)))
            .collect()
    }

    /// The commit that last wrote `record` as it is now, passing over the
    /// commits that only reformatted it ([`Judge::unformatted`]).
    pub(super) fn last_written(&self, record: &str, id: Option<ObjectId>) -> Written {
        match self.written(record, id) {
            Written::At(i) => self.unformatted(record, i),
            other => other,
        }
    }

    /// The commit that last wrote `record`, when the record as it is now
    /// (work tree or index, blob `id`) is the one committed there; it may
    /// only have reformatted the record ([`Judge::unformatted`]).
    pub(super) fn written(&self, record: &str, id: Option<ObjectId>) -> Written {
        if !self.committed_as_is(record, id) {
            return Written::NotYet;
        }
        // Only now is the history needed.
        if !self.load_history() {
            return Written::Unknown;
        }
        let Some(in_head) = self.head_id(record) else {
            return Written::NotYet;
        };
        match self.h().last_change(record, in_head) {
            Some(i) => Written::At(i),
            // In HEAD but changed by no commit walked: the history is cut.
            None => Written::BeyondHistory,
        }
    }

    /// The commit that last wrote `record` before, or at, the one at `i`
    /// that changed what it says. A commit that only reformatted the record (`memlint fmt`) did
    /// not write it anew against its sources: the one before it did. Each
    /// such commit costs reading two blobs, so [`Judge::record`] asks only
    /// when the commit at `i` leaves the record fresh.
    pub(super) fn unformatted(&self, record: &str, mut i: usize) -> Written {
        while let Some(old) = self.reformatted(record, i) {
            let older = |h: &History| {
                let later = h.steps.get(i + 1..)?;
                let j = later
                    .iter()
                    .position(|s| history::writes(&s.changes, record, old));
                j.map(|j| i + 1 + j)
            };
            match older(self.h()) {
                Some(j) => i = j,
                None if self.deepen() => match older(self.h()) {
                    Some(j) => i = j,
                    None => return Written::BeyondHistory,
                },
                // Before the commits this (shallow) clone holds.
                None if self.h().complete => return Written::BeyondHistory,
                None => break,
            }
        }
        Written::At(i)
    }

    /// Whether `record`, now blob `id` (work tree or index), is as HEAD
    /// holds it, or differs only in form (`memlint fmt` run and not
    /// committed yet: [`crate::fmt::same_record`]).
    fn committed_as_is(&self, record: &str, id: Option<ObjectId>) -> bool {
        if self.same_as_head(record, id) {
            return true;
        }
        let (Some(head), Some(kind)) = (self.head_id(record), self.kind_of(record)) else {
            return false;
        };
        let (Some(then), Some(now)) = (self.blob(head), self.current_bytes(record)) else {
            return false;
        };
        crate::fmt::same_record(&then, &now, kind)
    }

    /// The kind of the record at `record`.
    fn kind_of(&self, record: &str) -> Option<crate::model::kind::Kind> {
        match crate::model::kind::classify(record, &self.ws.config.banned_dirs) {
            crate::model::kind::Place::Record(kind) => Some(kind),
            _ => None,
        }
    }

    /// When the commit at `i` changed `record` from one blob to another
    /// that says the same ([`crate::fmt::same_record`]): the blob it had
    /// before. Never for a merge, nor when the record was created there.
    fn reformatted(&self, record: &str, i: usize) -> Option<ObjectId> {
        let step = &self.h().steps[i];
        if step.boundary || step.parents.len() != 1 {
            return None;
        }
        let change = history::change_of(&step.changes, record)?;
        let (old, new) = (change.old?, change.new?);
        if !(old.is_file() && new.is_file()) {
            return None;
        }
        let kind = self.kind_of(record)?;
        let (before, after) = (self.blob(old.id)?, self.blob(new.id)?);
        crate::fmt::same_record(&before, &after, kind).then_some(old.id)
    }
}
