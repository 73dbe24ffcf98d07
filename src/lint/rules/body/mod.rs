//! `body/too-long`.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::kind::Kind;
use crate::model::rule::Rule;

/// `body/too-long`: a decision, request or knowledge body longer than
/// `max_body_chars`; long records crowd the context and mix topics.
pub fn too_long(r: &Record, out: &mut Sink) {
    if !matches!(r.kind, Kind::Decision | Kind::Request | Kind::Knowledge) {
        return;
    }
    let max = r.config.max_body_chars;
    // A body of at most `max` bytes has at most `max` characters.
    if r.parts.body.len() <= max {
        return;
    }
    let chars = r.body_chars();
    if chars > max {
        out.emit(
            Rule::BodyTooLong,
            r.body_span(),
            format!("the body has {chars} characters, more than the {max} allowed; split it or move details to knowledge"),
        );
    }
}
