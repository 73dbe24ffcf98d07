//! The fields of a record that recall reads: title, description, tags,
//! status and body, from the front matter when it can be read. It reads
//! through the same splitter ([`crate::syntax::frontmatter`]) and YAML
//! parser ([`crate::syntax::yaml`]) as lint, so that search and lint never
//! disagree on what a record's front matter says; lint keeps its own
//! projection of the parsed document (with spans, for diagnostics).

use crate::model::kind::Kind;
use std::borrow::Cow;

/// The searchable fields of a record's text. A record whose front matter
/// cannot be read is searched as plain text: a broken record must still be
/// found.
pub struct Fields<'t> {
    /// `title`, when it is a non-empty scalar.
    pub title: Option<Cow<'t, str>>,
    /// `description`, when it is a non-empty scalar.
    pub description: Option<Cow<'t, str>>,
    /// `tags`: the scalars of a list, or one scalar.
    pub tags: Vec<Cow<'t, str>>,
    /// `status`; a knowledge record without one is `active`.
    pub status: Option<String>,
    /// The record's day, `YYYY-MM-DD`: its `date`, or the day of a
    /// session's `created` timestamp.
    pub date: Option<String>,
    /// The text after the front matter (all of it without one).
    pub body: &'t str,
}

/// Reads the fields of `text`, a record of `kind`.
pub fn fields(text: &str, kind: Kind) -> Fields<'_> {
    let plain = Fields {
        title: None,
        description: None,
        tags: Vec::new(),
        status: None,
        date: None,
        body: text,
    };
    let crate::syntax::frontmatter::Split::Found(parts) = crate::syntax::frontmatter::split(text)
    else {
        return plain;
    };
    let Ok(doc) = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start) else {
        return plain;
    };
    let Some(root) = doc.root else {
        return Fields {
            body: &text[parts.body],
            ..plain
        };
    };
    let scalar = |key: &str| -> Option<String> {
        root.get(key)
            .and_then(|e| e.value.as_scalar())
            .map(|s| s.text.clone())
            .filter(|s| !s.is_empty())
    };
    let tags = match root.get("tags").map(|e| &e.value.value) {
        Some(crate::syntax::yaml::Value::Seq { items, .. }) => items
            .iter()
            .filter_map(|n| n.as_scalar().map(|s| Cow::Owned(s.text.clone())))
            .collect(),
        Some(crate::syntax::yaml::Value::Scalar(s)) => vec![Cow::Owned(s.text.clone())],
        _ => Vec::new(),
    };
    let status = scalar("status").or_else(|| (kind == Kind::Knowledge).then(|| "active".into()));
    let date = scalar("date")
        .or_else(|| scalar("created"))
        .and_then(|d| d.get(..10).map(str::to_string))
        .filter(|d| crate::model::kind::is_date(d));
    Fields {
        title: scalar("title").map(Cow::Owned),
        description: scalar("description").map(Cow::Owned),
        tags,
        status,
        date,
        body: &text[parts.body],
    }
}
