//! What the `frontmatter/*` rules share. A leaf of the family: the rules
//! import it, it imports no rule.

use crate::lint::record::Record;
use crate::syntax::yaml::Entry;
use std::ops::Range;

/// Where a finding about an entry's value points: the value, or the key when
/// the value is empty (`date:`), rather than a zero-width spot at the colon.
pub(crate) fn value_span(entry: &Entry, span: Range<usize>) -> Range<usize> {
    if span.is_empty() && span == entry.value.span {
        entry.key.span.clone()
    } else {
        span
    }
}

/// The key an unknown key can safely be renamed to: one close match, or one
/// clearly closer than the next, and that key absent from the record.
pub(crate) fn rename_target(r: &Record, name: &str) -> Option<&'static str> {
    let known: Vec<&'static str> = r.kind.fields().iter().map(|f| f.key).collect();
    let matches = similar::get_close_matches(name, &known, 2, 0.6);
    let ratio = |k: &str| similar::TextDiff::from_chars(name, k).ratio();
    let best = match matches.as_slice() {
        [only] => *only,
        [first, second] if ratio(first) - ratio(second) >= CLEAR_LEAD => *first,
        _ => return None,
    };
    let best: &'static str = known.iter().copied().find(|k| *k == best)?;
    r.root.get(best).is_none().then_some(best)
}

/// How much closer the best match must be than the next for a guess to be
/// safe (`staus` is `status` at 0.91, `tags` at 0.67; `state` is `status`
/// at 0.73 and `date` at 0.67: no guess).
pub(crate) const CLEAR_LEAD: f32 = 0.1;

pub(crate) fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    similar::get_close_matches(name, known, 2, 0.6)
        .into_iter()
        .next()
}
