//! `CONTEXT.md` merged as a set of blocks: a block added on either side is
//! kept, in date order (newest first); a block changed or removed on one
//! side takes that change; a block changed differently on both sides is
//! merged line by line, and only it can hold a conflict.

use super::lines::{self, Markers};
use super::Merge;
use crate::engine::context::blocks;

/// A `CONTEXT.md` cut into its parts. `None` when it cannot be cut safely
/// (text after a level-1 heading between blocks, or two blocks with one
/// heading): the caller then merges it line by line.
struct Parts<'t> {
    /// Everything before the first block (the title), trailing blank
    /// lines left out.
    preamble: &'t str,
    /// The blocks in order: (heading line, text without trailing blank
    /// lines).
    blocks: Vec<(&'t str, &'t str)>,
}

fn parts(text: &str) -> Option<Parts<'_>> {
    let ranges = blocks(text);
    let first = ranges.first().map_or(text.len(), |r| r.start);
    // The blocks must follow each other to the end: anything between them
    // (a level-1 heading and its text) has no place in a set of blocks.
    let mut at = first;
    for r in &ranges {
        if r.start != at {
            return None;
        }
        at = r.end;
    }
    if at != text.len() {
        return None;
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(ranges.len());
    for r in ranges {
        let block = text[r].trim_end();
        let heading = block.lines().next().unwrap_or_default().trim_end();
        if !seen.insert(heading) {
            return None;
        }
        out.push((heading, block));
    }
    Some(Parts {
        preamble: text[..first].trim_end(),
        blocks: out,
    })
}

/// The date a block's heading starts with (`## 2026-11-02 …`), if any.
fn date(heading: &str) -> Option<&str> {
    let d = heading.strip_prefix("## ")?.trim_start().get(..10)?;
    crate::model::kind::is_date(d).then_some(d)
}

/// The blocks' order: ours', with each block new in theirs placed before
/// the block that follows it in theirs (so theirs' order holds, and a new
/// block at theirs' top goes above the blocks both sides had); then every
/// run of blocks new on either side sorted newest first by date (stable,
/// so blocks of one date keep ours' order before theirs').
fn order<'t>(base: &Parts<'t>, ours: &Parts<'t>, theirs: &Parts<'t>) -> Vec<&'t str> {
    let mut order: Vec<&str> = ours.blocks.iter().map(|(h, _)| *h).collect();
    for (i, (h, _)) in theirs.blocks.iter().enumerate().rev() {
        if order.contains(h) {
            continue;
        }
        let at = theirs.blocks[i + 1..]
            .iter()
            .find_map(|(next, _)| order.iter().position(|x| x == next))
            .unwrap_or(order.len());
        order.insert(at, h);
    }
    let is_new = |h: &str| !base.blocks.iter().any(|(k, _)| *k == h);
    let mut start = 0;
    while start < order.len() {
        let end = start + order[start..].iter().take_while(|h| is_new(h)).count();
        // Undated blocks sort as the newest: they stay where they are
        // relative to each other, above the dated ones of their run.
        order[start..end].sort_by(|x, y| date(y).unwrap_or("9").cmp(date(x).unwrap_or("9")));
        start = end + 1;
    }
    order
}

/// Merges three `CONTEXT.md` texts (LF line endings); `None` when one of
/// them cannot be cut into blocks.
pub(crate) fn merge(base: &str, ours: &str, theirs: &str, markers: &Markers) -> Option<Merge> {
    let (b, o, t) = (parts(base)?, parts(ours)?, parts(theirs)?);
    let mut conflicts = Vec::new();
    let preamble = pick(b.preamble, o.preamble, t.preamble, markers, || {
        conflicts.push("the text before the first block".to_string())
    });
    fn find<'t>(p: &Parts<'t>, h: &str) -> Option<&'t str> {
        p.blocks.iter().find(|(k, _)| *k == h).map(|(_, v)| *v)
    }
    let order = order(&b, &o, &t);
    // Blocks both sides removed are gone; so is one removed on one side
    // and unchanged on the other.
    let mut out = Vec::new();
    for h in order {
        let (bb, ob, tb) = (find(&b, h), find(&o, h), find(&t, h));
        match (ob, tb) {
            (Some(x), Some(y)) if x == y => out.push(x.to_string()),
            (None, Some(y)) if bb == Some(y) => {}
            (Some(x), None) if bb == Some(x) => {}
            _ => {
                let block = pick(
                    bb.unwrap_or(""),
                    ob.unwrap_or(""),
                    tb.unwrap_or(""),
                    markers,
                    || conflicts.push(format!("the block `{h}`")),
                );
                if !block.is_empty() {
                    out.push(block);
                }
            }
        }
    }
    let mut text = String::new();
    if !preamble.is_empty() {
        text.push_str(preamble.trim_end());
        text.push_str("\n\n");
    }
    text.push_str(&out.join("\n\n"));
    if !out.is_empty() {
        text.push('\n');
    }
    Some(Merge {
        bytes: text.into_bytes(),
        conflicts,
    })
}

/// One part merged three ways: the side that changed it, else both sides
/// merged line by line (`conflicted` is called when that leaves markers).
fn pick(
    base: &str,
    ours: &str,
    theirs: &str,
    markers: &Markers,
    conflicted: impl FnOnce(),
) -> String {
    if ours == theirs || theirs == base {
        return ours.to_string();
    }
    if ours == base {
        return theirs.to_string();
    }
    let with_nl = |s: &str| {
        if s.is_empty() {
            String::new()
        } else {
            format!("{s}\n")
        }
    };
    let (merged, conflict) = lines::merge(
        with_nl(base).as_bytes(),
        with_nl(ours).as_bytes(),
        with_nl(theirs).as_bytes(),
        markers,
    );
    if conflict {
        conflicted();
    }
    String::from_utf8_lossy(&merged).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(base: &str, ours: &str, theirs: &str) -> (String, usize) {
        let m = merge(base, ours, theirs, &Markers::default()).expect("blocks");
        (
            String::from_utf8(m.bytes).expect("utf-8"),
            m.conflicts.len(),
        )
    }

    const BASE: &str = "# Context\n\n## 2026-11-01 Start\n\nFirst.\n";

    #[test]
    fn blocks_added_on_both_sides_are_kept_newest_first() {
        let ours = "# Context\n\n## 2026-11-03 Ours\n\nO.\n\n## 2026-11-01 Start\n\nFirst.\n";
        let theirs = "# Context\n\n## 2026-11-02 Theirs\n\nT.\n\n## 2026-11-01 Start\n\nFirst.\n";
        let (text, conflicts) = run(BASE, ours, theirs);
        assert_eq!(
            text,
            "# Context\n\n## 2026-11-03 Ours\n\nO.\n\n## 2026-11-02 Theirs\n\nT.\n\n## 2026-11-01 Start\n\nFirst.\n"
        );
        assert_eq!(conflicts, 0);
    }

    #[test]
    fn a_block_changed_on_one_side_takes_the_change_and_both_sides_conflict_only_there() {
        let ours =
            "# Context\n\n## 2026-11-02 New\n\nN.\n\n## 2026-11-01 Start\n\nFirst, edited.\n";
        let (text, conflicts) = run(BASE, ours, BASE);
        assert_eq!(text, ours);
        assert_eq!(conflicts, 0);
        let theirs = "# Context\n\n## 2026-11-01 Start\n\nFirst, edited differently.\n";
        let (text, conflicts) = run(BASE, ours, theirs);
        assert_eq!(conflicts, 1);
        assert!(text.starts_with("# Context\n\n## 2026-11-02 New\n\nN.\n\n## 2026-11-01 Start\n\n<<<<<<< ours\nFirst, edited.\n=======\nFirst, edited differently.\n>>>>>>> theirs\n"), "{text}");
    }

    #[test]
    fn a_block_removed_on_one_side_and_unchanged_on_the_other_is_removed() {
        let two = "# Context\n\n## 2026-11-02 B\n\nB.\n\n## 2026-11-01 Start\n\nFirst.\n";
        let rotated = "# Context\n\n## 2026-11-02 B\n\nB.\n";
        let added = "# Context\n\n## 2026-11-03 C\n\nC.\n\n## 2026-11-02 B\n\nB.\n\n## 2026-11-01 Start\n\nFirst.\n";
        let (text, conflicts) = run(two, rotated, added);
        assert_eq!(
            text,
            "# Context\n\n## 2026-11-03 C\n\nC.\n\n## 2026-11-02 B\n\nB.\n"
        );
        assert_eq!(conflicts, 0);
    }

    #[test]
    fn text_between_blocks_or_a_repeated_heading_is_not_cut() {
        assert!(parts("## 2026-11-01 A\n\n# Title\n\ntext\n").is_none());
        assert!(parts("## 2026-11-01 A\n\nx\n\n## 2026-11-01 A\n\ny\n").is_none());
    }
}
