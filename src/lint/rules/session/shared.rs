//! What the `session/*` rules share. A leaf of the family: the rules
//! import it, it imports no rule.

use crate::lint::record::Record;
use crate::model::kind::Kind;
use crate::syntax::session::sections;

/// Where the body starts, and its sections (of a session memory).
pub(crate) fn body_sections<'r>(
    r: &'r Record,
) -> Option<(usize, &'r [crate::syntax::session::Section])> {
    (r.kind == Kind::Session).then(|| {
        let found = r.sections.get_or_init(|| sections(r.body()));
        (r.parts.body.start, found.as_slice())
    })
}
