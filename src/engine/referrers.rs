//! Who names a record: the records of its kind whose `replaced_by` is its
//! slug, and the records whose sources cite it (`decision:x`, `cmem:ID`),
//! with the bytes of the name in each file. The language server's
//! references and rename ask this; any other front end can.

use crate::lint::info::Located;
use crate::lint::FileReport;
use crate::model::kind::Kind;
use std::ops::Range;

/// The bytes of `value`'s `skip..` part inside `span` of `text` (the span
/// may hold quotes around the value).
pub(crate) fn part(
    text: &str,
    span: &Range<usize>,
    value: &str,
    skip: usize,
) -> Option<Range<usize>> {
    let inside = text.get(span.clone())?;
    let at = span.start + inside.find(value)?;
    Some(at + skip..at + value.len())
}

/// The source string that names record `name` of `kind`, if a kind can be
/// named by a source.
pub(crate) fn citation(kind: Kind, name: &str) -> Option<String> {
    match kind {
        Kind::Decision | Kind::Request | Kind::Knowledge => Some(format!("{kind}:{name}")),
        Kind::Session => Some(format!("cmem:{name}")),
        _ => None,
    }
}

/// The places naming one record, gathered from the reports shown to
/// [`Referrers::look_at`] (a front end may show its unsaved buffers' reports
/// in place of the files').
///
/// # Examples
///
/// ```
/// use memlint::engine::referrers::Referrers;
/// use memlint::model::kind::Kind;
///
/// let mut found = Referrers::of(Kind::Decision, "use-gix");
/// // for r in reports { found.look_at(r) }
/// assert!(found.places(|_| None).is_empty());
/// ```
pub struct Referrers {
    kind: Kind,
    name: String,
    source: Option<String>,
    /// (path, the value naming the record, the bytes before the name in it).
    hits: Vec<(String, Located, usize)>,
}

impl Referrers {
    /// Looks for the places naming record `name` of `kind`.
    pub fn of(kind: Kind, name: &str) -> Referrers {
        Referrers {
            kind,
            name: name.to_string(),
            source: citation(kind, name),
            hits: Vec::new(),
        }
    }

    /// Notes where the record of `r` names the record looked for: its
    /// `replaced_by` (in a record of the same kind) and its sources.
    pub fn look_at(&mut self, r: &FileReport) {
        if let Some(l) = &r.info.replaced_by {
            if r.info.kind == Some(self.kind) && l.value == self.name {
                self.hits.push((r.path.clone(), l.clone(), 0));
            }
        }
        for l in &r.info.sources {
            if Some(&l.value) == self.source.as_ref() {
                let skip = l.value.len() - self.name.len();
                self.hits.push((r.path.clone(), l.clone(), skip));
            }
        }
    }

    /// Every place found, as (path, the name's bytes in that file), sorted;
    /// `text_of` gives a file's text (a file it gives none of is left out).
    pub fn places(self, text_of: impl Fn(&str) -> Option<String>) -> Vec<(String, Range<usize>)> {
        let mut out = Vec::new();
        for (path, l, skip) in self.hits {
            let Some(text) = text_of(&path) else {
                continue;
            };
            if let Some(range) = part(&text, &l.span, &l.value, skip) {
                out.push((path, range));
            }
        }
        out.sort_by(|a, b| (&a.0, a.1.start).cmp(&(&b.0, b.1.start)));
        out
    }
}
