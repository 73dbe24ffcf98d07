//! The one projection of a record's front matter: title, description,
//! tags, status and day, read the same way by lint (for `report`, `recent`,
//! the cross-record rules) and by search (its index, filters and results).
//! Both parse with the same splitter ([`crate::syntax::frontmatter`]) and
//! YAML parser ([`crate::syntax::yaml`]); [`project`] decides what a parsed
//! front matter says, so the two never disagree.
//!
//! A field is read only when it is defined for the record's kind and its
//! value is valid (the caller's type check, the one `frontmatter/type`,
//! `date/format` and `sources/missing` report from); a missing field takes
//! the model's default (`status: active` for knowledge). A field whose
//! value is wrong is not read: `memlint check` says why.

use crate::model::kind::Kind;
use crate::syntax::yaml::{Node, Value};
use std::borrow::Cow;

/// Whether `value`, the value of field `key`, passes the field's type check.
pub(crate) type Valid<'v> = dyn Fn(&str, &Node) -> bool + 'v;

/// What a parsed front matter says: the one projection lint and search share.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Projection<'n> {
    /// `title`, when valid and not empty.
    pub title: Option<&'n str>,
    /// `description`, when valid and not empty.
    pub description: Option<&'n str>,
    /// `tags`: the entries of a valid list.
    pub tags: Vec<&'n str>,
    /// `status`, or the kind's default when it is absent.
    pub status: Option<&'n str>,
    /// The record's date as written: its `date`, else (a summary) its
    /// `updated`, else (a session, a staging record) its `created`
    /// timestamp. [`Projection::day`] is its day.
    pub date: Option<&'n str>,
}

impl Projection<'_> {
    /// The record's day, `YYYY-MM-DD`: the first ten characters of
    /// [`Projection::date`] when they are a date.
    pub(crate) fn day(&self) -> Option<&str> {
        self.date
            .and_then(|d| d.get(..10))
            .filter(|d| crate::model::kind::is_date(d))
    }
}

/// Projects `root`, the front-matter mapping of a record of `kind`.
pub(crate) fn project<'n>(root: &'n Node, kind: Kind, valid: &Valid) -> Projection<'n> {
    // The value of a field defined for the kind, present and valid; the
    // first of repeated keys counts.
    let value = |key: &str| -> Option<&'n Node> {
        kind.field(key)?;
        let node = &root.get(key)?.value;
        valid(key, node).then_some(node)
    };
    let string = |key: &str| {
        value(key)
            .and_then(|n| n.as_scalar())
            .and_then(|s| s.as_str())
    };
    let text = |key: &str| string(key).filter(|s| !s.is_empty());
    let status = match root.get("status") {
        None => kind.field("status").and_then(|f| f.default),
        Some(_) => value("status")
            .and_then(|n| n.as_scalar())
            .map(|s| s.text.as_str()),
    };
    let tags = match value("tags").map(|n| &n.value) {
        Some(Value::Seq { items, .. }) => items
            .iter()
            .filter_map(|n| n.as_scalar().and_then(|s| s.as_str()))
            .collect(),
        _ => Vec::new(),
    };
    Projection {
        title: text("title"),
        description: text("description"),
        tags,
        status,
        date: string("date")
            .or_else(|| string("updated"))
            .or_else(|| string("created")),
    }
}

/// The searchable fields of a record's text. A record whose front matter
/// cannot be read is searched as plain text: a broken record must still be
/// found.
pub(crate) struct Fields<'t> {
    /// `title` ([`Projection::title`]).
    pub title: Option<Cow<'t, str>>,
    /// `description` ([`Projection::description`]).
    pub description: Option<Cow<'t, str>>,
    /// `tags` ([`Projection::tags`]).
    pub tags: Vec<Cow<'t, str>>,
    /// `status` ([`Projection::status`]).
    pub status: Option<String>,
    /// The record's day, `YYYY-MM-DD` ([`Projection::day`]).
    pub date: Option<String>,
    /// The text after the front matter (all of it without one).
    pub body: &'t str,
}

/// Reads the fields of `text`, a record of `kind`, through [`project`];
/// `valid` is the fields' type check.
pub(crate) fn fields<'t>(text: &'t str, kind: Kind, valid: &Valid) -> Fields<'t> {
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
    let body = &text[parts.body];
    let Some(root) = doc.root.filter(|r| r.entries().is_some()) else {
        return Fields { body, ..plain };
    };
    let p = project(&root, kind, valid);
    let owned = |s: &str| Cow::Owned(s.to_string());
    Fields {
        title: p.title.map(owned),
        description: p.description.map(owned),
        tags: p.tags.iter().map(|t| owned(t)).collect(),
        status: p.status.map(str::to_string),
        date: p.day().map(str::to_string),
        body,
    }
}
