//! `status/*` rules that need only the record itself.

use super::workspace::{View, WsSink};
use crate::lint::record::{FieldState, Record};
use crate::lint::sink::Sink;
use crate::model::kind::Kind;
use crate::model::rule::Rule;

/// `status/missing-target`: `status: replaced` without `replaced_by`.
pub fn missing_target(r: &Record, out: &mut Sink) {
    if r.status() != Some("replaced") || r.root.get("replaced_by").is_some() {
        return;
    }
    let span = r
        .root
        .get("status")
        .map(|e| e.value.span.clone())
        .unwrap_or(r.opener());
    out.emit(
        Rule::StatusMissingTarget,
        span,
        format!(
            "a replaced {} must say what replaced it in `replaced_by: <slug>`",
            r.kind
        ),
    );
}

/// `status/target-without-replaced`: `replaced_by` while status is not `replaced`.
pub fn target_without_replaced(r: &Record, out: &mut Sink) {
    let Some(status) = r.status() else { return };
    if status == "replaced" {
        return;
    }
    if let Some(entry) = r.root.get("replaced_by") {
        if matches!(r.field("replaced_by"), FieldState::Invalid) {
            return;
        }
        out.emit(
            Rule::StatusTargetWithoutReplaced,
            entry.key.span.clone(),
            format!("`replaced_by` is set but status is `{status}`; set `status: replaced` or delete `replaced_by`"),
        );
    }
}

/// Where following `replaced_by` from a record ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Walk {
    /// At a record that is not replaced (or whose target is unknown): its index.
    Final(usize),
    /// The walk entered a cycle.
    Cycle,
}

/// For every record, the index of the record its `replaced_by` names, if any.
fn targets(view: &View) -> Vec<Option<usize>> {
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
fn cycle_members(next: &[Option<usize>]) -> Vec<bool> {
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
pub fn walk(next: &[Option<usize>], on_cycle: &[bool], start: usize) -> Walk {
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

/// `status/dangling-target`, `status/cycle` and `status/chain`.
pub fn graph(view: &View, out: &mut WsSink) {
    let next = targets(view);
    let on_cycle = cycle_members(&next);
    for (i, e) in view.records.iter().enumerate() {
        let Some(kind) = e.info.kind else { continue };
        let Some(target) = &e.info.replaced_by else {
            continue;
        };
        if e.info.status.as_deref() != Some("replaced") {
            continue;
        }
        if on_cycle[i] {
            out.emit(
                Rule::StatusCycle,
                e.path,
                Some(target),
                format!(
                    "following `replaced_by` from `{}` comes back to it: {}",
                    e.slug,
                    cycle_text(view, &next, i)
                ),
            );
            continue;
        }
        let Some(t) = next[i] else {
            if view.exists(kind, &target.value) {
                continue;
            }
            // Never the record itself: that would be a cycle.
            let mut slugs = view.slugs(kind);
            slugs.retain(|s| *s != e.slug);
            let hint = crate::syntax::text::closest(target.value.as_str(), &slugs, 0.6)
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            let other = Kind::ALL
                .into_iter()
                .find(|k| *k != kind && view.exists(*k, &target.value))
                .map(|k| {
                    format!(
                        "; `{}` is a {k}, and a {kind} can only be replaced by a {kind}",
                        target.value
                    )
                })
                .unwrap_or_default();
            out.emit(
                Rule::StatusDanglingTarget,
                e.path,
                Some(target),
                format!(
                    "replaced_by points to `{}`, which is not a {kind}{other}{hint}",
                    target.value
                ),
            );
            continue;
        };
        if next[t].is_some() || view.records[t].info.status.as_deref() == Some("replaced") {
            match walk(&next, &on_cycle, i) {
                Walk::Final(f) if fixable_chain(view, &next, &on_cycle, i) => out.emit(
                    Rule::StatusChain,
                    e.path,
                    Some(target),
                    format!(
                        "replaced_by points to `{}`, which is itself replaced; point it at the final record `{}`",
                        target.value, view.records[f].slug
                    ),
                ),
                // The chain ends at a replaced record whose own target is
                // missing or names nothing: no final record to point at.
                Walk::Final(f) => out.emit_fixable(
                    Rule::StatusChain,
                    e.path,
                    Some(target),
                    format!(
                        "replaced_by points to `{}`, which is itself replaced; the chain ends at `{}`, which is replaced by no record: mend that one first",
                        target.value, view.records[f].slug
                    ),
                    false,
                ),
                // Not on the cycle itself, but following it never ends: the
                // walk returns to a record already visited.
                Walk::Cycle => out.emit(
                    Rule::StatusCycle,
                    e.path,
                    Some(target),
                    format!(
                        "following `replaced_by` from `{}` runs into a cycle: {}; no record ends it",
                        e.slug,
                        lead_in_text(view, &next, i)
                    ),
                ),
            }
        }
    }
}

fn cycle_text(view: &View, next: &[Option<usize>], start: usize) -> String {
    let mut names = vec![view.records[start].slug.to_string()];
    let mut at = next[start];
    while let Some(i) = at {
        names.push(view.records[i].slug.to_string());
        if i == start || names.len() > 64 {
            break;
        }
        at = next[i];
    }
    names.join(" → ")
}

/// The walk from `start` until it first returns to a record already visited.
fn lead_in_text(view: &View, next: &[Option<usize>], start: usize) -> String {
    let mut seen = vec![start];
    let mut names = vec![view.records[start].slug.to_string()];
    let mut at = next[start];
    while let Some(i) = at {
        names.push(view.records[i].slug.to_string());
        if seen.contains(&i) || names.len() > 64 {
            break;
        }
        seen.push(i);
        at = next[i];
    }
    names.join(" → ")
}

/// The final target of every record whose `replaced_by` forms a chain, as
/// (record path, final slug): what `check --fix` writes for `status/chain`.
pub fn chain_fixes(view: &View) -> Vec<(String, String)> {
    let next = targets(view);
    let on_cycle = cycle_members(&next);
    let mut out = Vec::new();
    for (i, e) in view.records.iter().enumerate() {
        if on_cycle[i] || !fixable_chain(view, &next, &on_cycle, i) {
            continue;
        }
        if let Walk::Final(f) = walk(&next, &on_cycle, i) {
            out.push((e.path.to_string(), view.records[f].slug.to_string()));
        }
    }
    out
}

/// Whether record `i` starts a chain `--fix` can shorten: it points at a
/// record that points on, and the chain ends at a record that is not
/// replaced (a final record to point at).
fn fixable_chain(view: &View, next: &[Option<usize>], on_cycle: &[bool], i: usize) -> bool {
    let Some(t) = next[i] else { return false };
    if next[t].is_none() {
        return false;
    }
    match walk(next, on_cycle, i) {
        Walk::Final(f) => view.records[f].info.status.as_deref() != Some("replaced"),
        Walk::Cycle => false,
    }
}

/// Every maximal chain of replaced records, as slugs from the first record
/// (one nothing replaces into) to the final one: `[a, b, c]` when `a` is
/// replaced by `b` and `b` by `c`. Chains that run into a cycle are left out
/// (`status/cycle` reports them). Sorted.
pub fn replaced_chains(view: &View) -> Vec<Vec<String>> {
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

/// The `status/chain` fix: point `replaced_by` (its value's span) at the
/// final record of the chain.
pub fn chain_edit(
    replaced_by_value: std::ops::Range<usize>,
    final_slug: &str,
) -> crate::syntax::edit::Edit {
    crate::syntax::edit::Edit {
        span: replaced_by_value,
        text: crate::syntax::quoting::plain_or_quoted(final_slug),
    }
}
