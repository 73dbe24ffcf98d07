//! `summary/too-long`.

use crate::lint::record::Record;
use crate::lint::sink::Sink;
use crate::model::kind::Kind;
use crate::model::rule::Rule;

/// Estimated tokens: a CJK character counts one; other characters one per 4,
/// rounded up.
pub fn estimate_tokens(text: &str) -> usize {
    let mut cjk = 0usize;
    let mut other = 0usize;
    for c in text.chars() {
        if crate::syntax::text::is_cjk(c) {
            cjk += 1;
        } else {
            other += 1;
        }
    }
    cjk + other.div_ceil(4)
}

/// `summary/too-long`: the summary body exceeds `summary_max_tokens`.
pub fn too_long(r: &Record, out: &mut Sink) {
    if r.kind != Kind::Summary {
        return;
    }
    let tokens = estimate_tokens(&r.body_text().replace("\r\n", "\n"));
    let max = r.config.summary_max_tokens;
    if tokens > max {
        out.emit(
            Rule::SummaryTooLong,
            r.body_span(),
            format!(
                "the summary is about {tokens} tokens, more than the {max} allowed; condense it"
            ),
        );
    }
}
