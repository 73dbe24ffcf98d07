//! `staging/id`.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::kind::{is_staging_id, Kind};
use crate::model::rule::Rule;

/// `staging/id`: the id must be `YYYYMMDD-HHMMSS-xxxx` and equal the file stem.
pub fn id(r: &Record, out: &mut Sink) {
    if r.kind != Kind::Staging {
        return;
    }
    let Some((id, span)) = r.str_field("id") else {
        return;
    };
    if !is_staging_id(id) {
        out.emit(Rule::StagingId, span, format!("staging id `{id}` is not of the form YYYYMMDD-HHMMSS-xxxx (4 lowercase hex digits)"));
    } else if id != r.stem() {
        out.emit(
            Rule::StagingId,
            span,
            format!(
                "staging id `{id}` differs from the file name `{}.md`",
                r.stem()
            ),
        );
    }
}
