//! `secrets/detected`: memory is committed and pushed, so a credential must
//! never get in. The message names the kind of secret and never echoes it;
//! the detector itself is [`crate::syntax::secrets`].

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::secrets::{find, find_with};

/// `secrets/detected` on a record.
pub fn detected(r: &Record, out: &mut Sink) {
    emit(find_with(r.text, r.hint_words()), out);
}

/// `secrets/detected` on any text (records and `CONTEXT.md`).
pub fn scan(text: &str, out: &mut Sink) {
    emit(find(text), out);
}

fn emit(found: Vec<(std::ops::Range<usize>, &'static str)>, out: &mut Sink) {
    for (span, what) in found {
        out.emit(
            Rule::SecretsDetected,
            span,
            format!("this looks like {what}; remove it and rotate the credential, since memory is committed and pushed"),
        );
    }
}
