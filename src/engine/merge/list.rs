//! A list key of a record (`sources`, `tags`) cut into what a merge must
//! keep: its items and every comment around them (before the key, on the
//! key's line, before an item, after an item on its line, after the last
//! item), so that an ordered union of two sides' items keeps each side's
//! comments, and a comment changed differently on both sides is a
//! conflict rather than a lost line. Block and flow lists merge alike.

use crate::syntax::yaml::{Entry, Value};

/// One item of a list, with the comments that go with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item<'t> {
    /// The item's text as written (its identity in the merge).
    pub value: &'t str,
    /// What stands before the item on its line (`  - `); empty in a flow
    /// list.
    pub dash: &'t str,
    /// Comment (and blank) lines between the previous item and this one.
    pub lead: &'t str,
    /// What follows the item on its line (` # why`), line break excluded.
    pub trail: &'t str,
}

/// A list key cut into parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct List<'t> {
    /// The key as written.
    pub key: &'t str,
    /// Lines before the key's line (comments before the first key).
    pub lead: &'t str,
    /// What follows the list on the key's line (` # legal`), line break
    /// excluded: after `key:` for a block list, after `]` for a flow list.
    pub head: &'t str,
    /// True for a flow list (`[a, b]`).
    pub flow: bool,
    pub items: Vec<Item<'t>>,
    /// Comment and blank lines after the last item, up to the next key.
    pub tail: &'t str,
}

/// The offset just past the line break of the line holding `at` (or the
/// end of `text`).
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// True when `s` holds only blank lines and comment lines.
fn only_comments(s: &str) -> bool {
    s.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#')
    })
}

/// True when `s` (the rest of a line) is blank or a comment.
fn blank_or_comment(s: &str) -> bool {
    let t = s.trim();
    (t.is_empty() || t.starts_with('#')) && !s.contains('\n')
}

/// Cuts the entry `e`, whose text is `text[start..end]`, into a [`List`];
/// `None` when it is not a list of one-line scalars this module can put
/// back together exactly (the caller then treats the key as one value).
pub(crate) fn cut<'t>(text: &'t str, e: &Entry, start: usize, end: usize) -> Option<List<'t>> {
    let Value::Seq { items, flow } = &e.value.value else {
        return None;
    };
    let key_line = line_start(text, e.key.span.start);
    if key_line < start || e.key.span.end > end {
        return None;
    }
    let key_line_end = line_end(text, e.key.span.start).min(end);
    let after_key = text.get(e.key.span.end..key_line_end)?.strip_prefix(':')?;
    let mut cut = Vec::with_capacity(items.len());
    for n in items {
        let v = text.get(n.span.clone())?;
        if n.as_scalar().is_none() || v.is_empty() || v.contains('\n') {
            return None;
        }
        cut.push((n.span.clone(), v));
    }
    let strip_nl = |s: &'t str| s.strip_suffix('\n').unwrap_or(s);
    if *flow {
        // `key: [a, b]  # head`, all on the key's line.
        let open = after_key.trim_start().strip_prefix('[')?;
        let from = cut
            .last()
            .map_or(key_line_end - open.len(), |(span, _)| span.end);
        if from > key_line_end {
            return None;
        }
        let close = from + text[from..key_line_end].find(']')?;
        let head = strip_nl(&text[close + 1..key_line_end]);
        let tail = &text[key_line_end..end];
        if !blank_or_comment(head) || !only_comments(tail) {
            return None;
        }
        return Some(List {
            key: &text[e.key.span.clone()],
            lead: &text[start..key_line],
            head,
            flow: true,
            items: cut
                .into_iter()
                .map(|(_, value)| Item {
                    value,
                    dash: "",
                    lead: "",
                    trail: "",
                })
                .collect(),
            tail,
        });
    }
    let head = strip_nl(after_key);
    if !blank_or_comment(head) {
        return None;
    }
    let mut at = key_line_end;
    let mut out = Vec::with_capacity(cut.len());
    for (span, value) in cut {
        let line = line_start(text, span.start);
        if line < at || span.end > end {
            return None;
        }
        let (lead, dash) = (&text[at..line], &text[line..span.start]);
        let next = line_end(text, span.end).min(end);
        let trail = strip_nl(&text[span.end..next]);
        if !only_comments(lead) || dash.trim() != "-" || !blank_or_comment(trail) {
            return None;
        }
        out.push(Item {
            value,
            dash,
            lead,
            trail,
        });
        at = next;
    }
    let tail = &text[at..end];
    if !only_comments(tail) {
        return None;
    }
    Some(List {
        key: &text[e.key.span.clone()],
        lead: &text[start..key_line],
        head,
        flow: false,
        items: out,
        tail,
    })
}

/// A part merged three ways: the side that changed it; `Err` when both
/// changed it differently. `None` is "absent".
fn three<T: PartialEq + Copy>(
    base: Option<T>,
    ours: Option<T>,
    theirs: Option<T>,
) -> Result<Option<T>, ()> {
    match (ours, theirs) {
        (Some(o), Some(t)) if o == t || Some(t) == base => Ok(Some(o)),
        (Some(o), Some(t)) if Some(o) == base => Ok(Some(t)),
        (Some(_), Some(_)) => Err(()),
        (o, None) => Ok(o),
        (None, t) => Ok(t),
    }
}

/// The ordered union of two lists against their base: ours' items but
/// those theirs removed, then theirs' new items but those ours removed;
/// each item with its comments merged three ways, and so the comments of
/// the key. `None` when a comment changed differently on both sides (the
/// caller reports the key as a conflict).
pub(crate) fn merge<'t>(
    base: Option<&List<'t>>,
    ours: &List<'t>,
    theirs: &List<'t>,
) -> Option<String> {
    let empty: &[Item<'t>] = &[];
    let bi = base.map_or(empty, |b| b.items.as_slice());
    let find = |items: &[Item<'_>], v: &str| items.iter().position(|i| i.value == v);
    let has = |items: &[Item<'_>], v: &str| find(items, v).is_some();
    let mut values: Vec<&str> = ours
        .items
        .iter()
        .filter(|i| has(&theirs.items, i.value) || !has(bi, i.value))
        .map(|i| i.value)
        .collect();
    for i in &theirs.items {
        let removed_by_ours = has(bi, i.value) && !has(&ours.items, i.value);
        if !removed_by_ours && !values.contains(&i.value) {
            values.push(i.value);
        }
    }
    let part = |l: &List<'t>| (l.lead, l.head, l.tail);
    let (lead, head, tail) = three(base.map(part), Some(part(ours)), Some(part(theirs)))
        .ok()?
        .unwrap_or_default();
    let mut items = Vec::with_capacity(values.len());
    for v in values {
        let get = |items: &[Item<'t>]| find(items, v).map(|at| (items[at].lead, items[at].trail));
        let (o, t) = (get(&ours.items), get(&theirs.items));
        let (item_lead, trail) = three(get(bi), o, t).ok()?.unwrap_or_default();
        let dash = find(&ours.items, v)
            .map(|at| ours.items[at].dash)
            .or_else(|| find(&theirs.items, v).map(|at| theirs.items[at].dash))
            .filter(|d| !d.is_empty())
            .unwrap_or("  - ");
        items.push(Item {
            value: v,
            dash,
            lead: item_lead,
            trail,
        });
    }
    let mut out = String::from(lead);
    out.push_str(ours.key);
    out.push(':');
    let bare = items
        .iter()
        .all(|i| i.lead.is_empty() && i.trail.is_empty());
    if items.is_empty() || (ours.flow && theirs.flow && bare) {
        let values: Vec<&str> = items.iter().map(|i| i.value).collect();
        out.push_str(&format!(" [{}]", values.join(", ")));
        out.push_str(head);
        out.push('\n');
    } else {
        out.push_str(head);
        out.push('\n');
        for i in items {
            out.push_str(i.lead);
            out.push_str(i.dash);
            out.push_str(i.value);
            out.push_str(i.trail);
            out.push('\n');
        }
    }
    out.push_str(tail);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::yaml;

    /// The list key `name` of `yaml`, merged three ways.
    fn run(base: &str, ours: &str, theirs: &str) -> Option<String> {
        let docs = [base, ours, theirs].map(|t| yaml::parse(t, 0).expect("yaml"));
        let lists: Vec<List> = docs
            .iter()
            .zip([base, ours, theirs])
            .map(|(d, t)| {
                let e = &d.root.as_ref().expect("root").entries().expect("map")[0];
                cut(t, e, 0, t.len()).expect("a list")
            })
            .collect();
        merge(Some(&lists[0]), &lists[1], &lists[2])
    }

    #[test]
    fn comments_around_block_items_are_kept_by_the_union() {
        let base = "sources: # legal\n  # primary\n  - a # why\n  - b\n# end\n";
        let ours = "sources: # legal\n  # primary\n  - a # why\n  - b\n  - c # ours\n# end\n";
        let theirs =
            "sources: # legal\n  # primary\n  - a # why\n  # theirs\n  - d\n  - b\n# end\n";
        assert_eq!(
            run(base, ours, theirs).as_deref(),
            Some("sources: # legal\n  # primary\n  - a # why\n  - b\n  - c # ours\n  # theirs\n  - d\n# end\n")
        );
    }

    #[test]
    fn flow_lists_union_as_flow_lists_and_keep_the_comment_after_them() {
        assert_eq!(
            run(
                "tags: [base]\n",
                "tags: [base, a] # legal\n",
                "tags: [base, b]\n"
            )
            .as_deref(),
            Some("tags: [base, a, b] # legal\n")
        );
        assert_eq!(
            run(
                "tags: [base, x]\n",
                "tags: [base, x, a]\n",
                "tags: [base]\n"
            )
            .as_deref(),
            Some("tags: [base, a]\n")
        );
    }

    #[test]
    fn a_comment_changed_differently_on_both_sides_is_a_conflict() {
        let base = "tags:\n  - a # one\n";
        assert_eq!(
            run(
                base,
                "tags:\n  - a # two\n  - b\n",
                "tags:\n  - a # three\n  - c\n"
            ),
            None
        );
        assert_eq!(
            run(
                base,
                "tags:\n  - a # two\n  - b\n",
                "tags:\n  - a # one\n  - c\n"
            )
            .as_deref(),
            Some("tags:\n  - a # two\n  - b\n  - c\n")
        );
    }

    #[test]
    fn quoted_items_keep_their_quotes_and_a_hash_inside_them() {
        assert_eq!(
            run(
                "tags:\n  - \"a # b\"\n",
                "tags:\n  - \"a # b\"\n  - 'c' # why\n",
                "tags: [\"a # b\", \"d, e\"]\n",
            )
            .as_deref(),
            Some("tags:\n  - \"a # b\"\n  - 'c' # why\n  - \"d, e\"\n")
        );
    }

    #[test]
    fn lists_it_cannot_put_back_together_are_not_cut() {
        for text in [
            "tags: [a,\n  b]\n",
            "tags:\n  - [a]\n",
            "tags: !!seq\n  - a\n",
            "tags:\n  - |\n    a\n",
        ] {
            let doc = yaml::parse(text, 0).expect("yaml");
            let e = &doc.root.as_ref().expect("root").entries().expect("map")[0];
            assert_eq!(cut(text, e, 0, text.len()), None, "{text}");
        }
    }
}
