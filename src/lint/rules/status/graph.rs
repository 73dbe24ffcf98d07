//! The `replaced_by` graph of a workspace, shared by the `status/*`
//! cross-record rules (`status/dangling-target`, `status/cycle`,
//! `status/chain`), `sources/replaced` and `memlint report`: built once per
//! run, each rule judges it in its own file.

use crate::lint::info::Located;
use crate::lint::rules::workspace::{Entry, View};

/// Where following `replaced_by` from a record ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Walk {
    /// At a record that is not replaced (or whose target is unknown): its index.
    Final(usize),
    /// The walk entered a cycle.
    Cycle,
}

/// The `replaced_by` graph: for every record, the record it points at,
/// and whether it lies on a cycle.
pub(crate) struct Graph {
    /// For every record, the index of the readable record of its kind its
    /// `replaced_by` names (only for a replaced record).
    pub next: Vec<Option<usize>>,
    /// Whether each record lies on a `replaced_by` cycle.
    pub on_cycle: Vec<bool>,
}

impl Graph {
    /// The graph of `view`'s records.
    pub(crate) fn of(view: &View) -> Graph {
        let next = targets(view);
        let on_cycle = cycle_members(&next);
        Graph { next, on_cycle }
    }

    /// Follows `replaced_by` from `start` to the final record.
    pub(crate) fn walk(&self, start: usize) -> Walk {
        walk(&self.next, &self.on_cycle, start)
    }
}

/// A replaced record and its `replaced_by` value, as the `status/*` rules
/// see it.
pub(crate) struct Replaced<'v, 'a> {
    /// Its index in the view.
    pub index: usize,
    pub entry: &'v Entry<'a>,
    /// Its `replaced_by` value.
    pub target: &'v Located,
}

/// Every replaced record that names a `replaced_by`.
pub(crate) fn replaced<'v, 'a>(view: &'v View<'a>) -> impl Iterator<Item = Replaced<'v, 'a>> {
    view.records
        .iter()
        .enumerate()
        .filter_map(|(index, entry)| {
            entry.info.kind?;
            let target = entry.info.replaced_by.as_ref()?;
            (entry.info.status.as_deref() == Some("replaced")).then_some(Replaced {
                index,
                entry,
                target,
            })
        })
}

/// For every record, the index of the record its `replaced_by` names, if any.
pub(crate) fn targets(view: &View) -> Vec<Option<usize>> {
    view.records
        .iter()
        .map(|e| {
            let kind = e.info.kind?;
            let target = e.info.replaced_by.as_ref()?;
            if e.info.status.as_deref() != Some("replaced") {
                return None;
            }
            view.by_index(kind, &target.value)
        })
        .collect()
}

/// Indices of records that lie on a `replaced_by` cycle.
pub(crate) fn cycle_members(next: &[Option<usize>]) -> Vec<bool> {
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; next.len()];
    let mut on_cycle = vec![false; next.len()];
    for start in 0..next.len() {
        if state[start] != 0 {
            continue;
        }
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                0 => {
                    state[i] = 1;
                    path.push(i);
                    at = next[i];
                }
                1 => {
                    // `i` is on the current path: everything from it on is a cycle.
                    let from = path.iter().position(|&p| p == i).unwrap_or(0);
                    for &p in &path[from..] {
                        on_cycle[p] = true;
                    }
                    break;
                }
                _ => break,
            }
        }
        for p in path {
            state[p] = 2;
        }
    }
    on_cycle
}

/// Follows `replaced_by` from `start` to the final record.
pub(crate) fn walk(next: &[Option<usize>], on_cycle: &[bool], start: usize) -> Walk {
    let mut at = start;
    let mut steps = 0;
    while let Some(n) = next[at] {
        if on_cycle[n] || steps > next.len() {
            return Walk::Cycle;
        }
        at = n;
        steps += 1;
    }
    Walk::Final(at)
}

/// Every maximal chain of replaced records, as slugs from the first record
/// (one nothing replaces into) to the final one: `[a, b, c]` when `a` is
/// replaced by `b` and `b` by `c`. Chains that run into a cycle are left out
/// (`status/cycle` reports them). Sorted.
pub(crate) fn replaced_chains(view: &View) -> Vec<Vec<String>> {
    let next = targets(view);
    let on_cycle = cycle_members(&next);
    let mut pointed_at = vec![false; next.len()];
    for t in next.iter().flatten() {
        pointed_at[*t] = true;
    }
    let mut out = Vec::new();
    'starts: for start in 0..next.len() {
        if next[start].is_none() || pointed_at[start] || on_cycle[start] {
            continue;
        }
        let mut chain = vec![view.records[start].slug.to_string()];
        let mut at = start;
        while let Some(n) = next[at] {
            if on_cycle[n] || chain.len() > next.len() {
                continue 'starts;
            }
            chain.push(view.records[n].slug.to_string());
            at = n;
        }
        out.push(chain);
    }
    out.sort();
    out
}
