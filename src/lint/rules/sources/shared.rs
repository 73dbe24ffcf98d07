//! What the `sources/*` rules share. A leaf of the family: the rules
//! import it, it imports no rule.

use crate::lint::record::{FieldState, Record};
use crate::model::kind::Kind;
use crate::syntax::yaml::Value;

/// Kinds that must list sources.
pub(crate) fn requires_sources(kind: Kind) -> bool {
    matches!(kind, Kind::Decision | Kind::Request | Kind::Knowledge)
}

/// The string entries of `sources`, with their spans: every entry of a
/// valid list, and the string entries of a list whose other entries have
/// the wrong type (reported by `frontmatter/type`), so that one bad entry
/// does not hide the others' problems.
pub(crate) fn entries<'a>(r: &Record<'a>) -> Vec<(&'a str, std::ops::Range<usize>)> {
    let node = match r.field("sources") {
        FieldState::Valid(node) => node,
        FieldState::Invalid => match r.root.get("sources") {
            Some(entry) => &entry.value,
            None => return Vec::new(),
        },
        FieldState::Missing => return Vec::new(),
    };
    let Value::Seq { items, .. } = &node.value else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|i| {
            i.as_scalar()
                .and_then(|s| s.as_str())
                .map(|t| (t, i.span.clone()))
        })
        .collect()
}
