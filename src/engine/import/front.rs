//! The front matter of a file being imported, read leniently: other tools
//! write front matter memlint's own rules would refuse (`globs: *.rs`, an
//! unquoted `: `), and an import must still take the file in. The YAML is
//! read with memlint's parser first; when it does not parse, its plain
//! `key: value` lines are read as text and the report says so.

use crate::syntax::frontmatter::{split, Split};
use crate::syntax::yaml::{self, Node, Value};

/// One value of the front matter: a string, or a list of strings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Field {
    Text(String),
    List(Vec<String>),
}

impl Field {
    /// The value as one line of text (a list joined by `, `).
    pub(crate) fn text(&self) -> String {
        match self {
            Field::Text(t) => t.clone(),
            Field::List(l) => l.join(", "),
        }
    }

    /// The value as a list (a text split at commas).
    pub(crate) fn list(&self) -> Vec<String> {
        match self {
            Field::Text(t) => t
                .trim_matches(['[', ']'])
                .split(',')
                .map(|s| s.trim().trim_matches(['"', '\'']).to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            Field::List(l) => l.clone(),
        }
    }
}

/// A file split into its front matter and body.
#[derive(Debug, Clone, Default)]
pub(crate) struct Front {
    /// Top-level keys in order; a nested mapping's keys as `outer.inner`.
    pub fields: Vec<(String, Field)>,
    /// The front matter's text as written (without the `---` lines).
    pub raw: Option<String>,
    /// The body: everything after the front matter (the whole text when
    /// there is none).
    pub body: String,
    /// What the report should say about the front matter, if anything.
    pub note: Option<String>,
}

impl Front {
    /// The value of `key`, if present and not empty.
    pub(crate) fn get(&self, key: &str) -> Option<&Field> {
        self.fields
            .iter()
            .find(|(k, v)| k == key && !matches!(v, Field::Text(t) if t.trim().is_empty()))
            .map(|(_, v)| v)
    }

    /// The value of `key` as one trimmed line.
    pub(crate) fn text(&self, key: &str) -> Option<String> {
        self.get(key)
            .map(|f| f.text().trim().to_string())
            .filter(|t| !t.is_empty())
    }

    /// The keys other than `known` (for the report and the body's copy of
    /// the front matter).
    pub(crate) fn other_keys(&self, known: &[&str]) -> Vec<&str> {
        self.fields
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| {
                !known
                    .iter()
                    .any(|n| n == k || k.starts_with(&format!("{n}.")))
            })
            .collect()
    }
}

/// Splits `text` and reads its front matter, never failing.
pub(crate) fn read(text: &str) -> Front {
    match split(text) {
        Split::None(_) => Front {
            body: text.to_string(),
            ..Front::default()
        },
        Split::Unclosed { .. } => Front {
            body: text.to_string(),
            note: Some(
                "its front matter has no closing `---`; the whole file was imported as text".into(),
            ),
            ..Front::default()
        },
        Split::Found(parts) => {
            let raw = text[parts.yaml.clone()].to_string();
            let body = text[parts.body.clone()].to_string();
            let (fields, note) = match yaml::parse(&raw, 0) {
                Ok(doc) => match doc.root {
                    Some(root) if root.entries().is_some() => (mapping(&root), None),
                    None => (Vec::new(), None),
                    Some(_) => (
                        lines(&raw),
                        Some("its front matter is not a mapping; its `key: value` lines were read as text".to_string()),
                    ),
                },
                Err(e) => {
                    let line = raw[..e.at.min(raw.len())].matches('\n').count() + 2;
                    (
                        lines(&raw),
                        Some(format!(
                            "its front matter does not parse as YAML (line {line}: {}); its `key: value` lines were read as text and the front matter is kept in the body",
                            crate::syntax::sanitize::line(&e.message)
                        )),
                    )
                }
            };
            Front {
                fields,
                raw: Some(raw),
                body,
                note,
            }
        }
    }
}

fn mapping(root: &Node) -> Vec<(String, Field)> {
    let mut out = Vec::new();
    for e in root.entries().unwrap_or_default() {
        let Some(key) = e.key.as_scalar().map(|s| s.text.clone()) else {
            continue;
        };
        match &e.value.value {
            Value::Scalar(s) => out.push((key, Field::Text(s.text.clone()))),
            Value::Seq { items, .. } => out.push((
                key,
                Field::List(
                    items
                        .iter()
                        .filter_map(|i| i.as_scalar().map(|s| s.text.clone()))
                        .collect(),
                ),
            )),
            Value::Map { .. } => {
                for (k, v) in mapping(&e.value) {
                    out.push((format!("{key}.{k}"), v));
                }
            }
        }
    }
    out
}

/// The `key: value` lines of front matter that is not YAML, with the
/// `- item` lines under a key with no value as its list.
fn lines(raw: &str) -> Vec<(String, Field)> {
    let mut out: Vec<(String, Field)> = Vec::new();
    for line in raw.lines() {
        let trimmed = line.trim_start();
        if let Some(item) = trimmed.strip_prefix("- ") {
            if line.len() > trimmed.len() || line.starts_with("- ") {
                if let Some((_, Field::List(l))) = out.last_mut() {
                    l.push(unquote(item));
                }
            }
            continue;
        }
        if line.starts_with([' ', '\t', '#']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty() || key.contains(' ') {
            continue;
        }
        let value = value.trim();
        out.push((
            key.to_string(),
            if value.is_empty() {
                Field::List(Vec::new())
            } else {
                Field::Text(unquote(value))
            },
        ));
    }
    out
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return s[1..s.len() - 1].to_string();
        }
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_yaml_and_falls_back_to_lines() {
        let f = read("---\nname: a\ntags: [x, y]\nmetadata:\n  type: project\n---\nbody\n");
        assert_eq!(f.text("name").as_deref(), Some("a"));
        assert_eq!(f.get("tags").unwrap().list(), vec!["x", "y"]);
        assert_eq!(f.text("metadata.type").as_deref(), Some("project"));
        assert_eq!(f.body, "body\n");
        assert!(f.note.is_none());
        let f = read("---\nglobs: *.rs\nalwaysApply: true\n---\nx\n");
        assert_eq!(f.text("alwaysApply").as_deref(), Some("true"));
        assert_eq!(f.text("globs").as_deref(), Some("*.rs"));
        assert!(f.note.unwrap().contains("does not parse"));
    }
}
