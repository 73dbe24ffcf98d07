//! `memlint show SLUG|PATH`: a record's fields and body, and what points at
//! it — the read side for agents and front ends.

use super::draft::AUTHORED;
use super::verify::Current;
use super::AuthorError;
use crate::model::kind::{classify, stem, Kind, Place};
use crate::model::workspace::Workspace;
use crate::syntax::frontmatter::{self, Split};
use crate::syntax::yaml::{Node, Resolved, Value};
use serde::Serialize;

/// A record as `show` gives it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Shown {
    pub path: String,
    pub kind: Kind,
    /// The file stem (decision, request, knowledge) or id.
    pub slug: String,
    /// The front matter, as JSON values (`null` when it cannot be read).
    pub fields: serde_json::Value,
    /// The front matter's keys in the file's order (JSON objects are
    /// sorted).
    #[serde(skip)]
    pub keys: Vec<String>,
    /// The markdown body (the whole text when there is no front matter).
    pub body: String,
    /// Records of the same kind whose `replaced_by` names this one.
    pub replaced_by_this: Vec<String>,
    /// Records whose `sources` cite this one (`decision:<slug>`, …,
    /// `cmem:<id>` for a session).
    pub cited_by: Vec<String>,
    /// Its `sources/drifted` findings: which cited file changed since it
    /// was written or verified, in which commits (empty: none).
    pub drifted: Vec<String>,
}

/// The record `target` names: a root-relative path, `kind:slug`, or a slug
/// of one decision, request or knowledge record.
///
/// # Examples
///
/// ```ignore
/// use memlint::engine::author;
/// use memlint::model::workspace::Workspace;
///
/// let cwd = std::env::current_dir().expect("the current directory");
/// let at = memlint::engine::workspace::Surroundings { cwd: &cwd, env: &|name| std::env::var(name).ok() };
/// let ws = memlint::engine::workspace::load(&at, None, None)?;
/// let shown = author::show(&ws, "decision:use-gix")?;
/// println!("{} ({}), cited by {:?}", shown.path, shown.fields["title"], shown.cited_by);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub(crate) fn show(
    ws: &Workspace,
    target: &str,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Result<Shown, AuthorError> {
    let current = Current::read(ws);
    problems.extend(current.problems.iter().cloned());
    let report = find(&current, ws, target)?;
    let kind = report
        .info
        .kind
        .ok_or_else(|| AuthorError::Usage(format!("{} is not a record", report.path)))?;
    let path = report.path.clone();
    // Read no further than `max_file_bytes`: a larger record is not
    // parsed by the linter either, and is not shown.
    let max = ws.config.max_file_bytes;
    let read = crate::io::read::read_capped(&ws.root.join(&path), max).map_err(|source| {
        AuthorError::Workspace(crate::engine::workspace::WorkspaceError::Io {
            path: path.clone(),
            source,
        })
    })?;
    let crate::model::content::Content::Bytes(bytes) = read else {
        return Err(AuthorError::Usage(format!(
            "{path} has more than {max} bytes (`max_file_bytes`); it is not shown"
        )));
    };
    let text = String::from_utf8_lossy(&bytes);
    let (fields, keys, body) = split_fields(&text);
    let slug = stem(&path).to_string();
    let citation = match kind {
        Kind::Session => format!("cmem:{slug}"),
        k => format!("{k}:{slug}"),
    };
    let mut replaced_by_this = Vec::new();
    let mut cited_by = Vec::new();
    for r in &current.reports {
        if r.info.kind == Some(kind) && r.info.replaced_by.as_ref().is_some_and(|l| l.value == slug)
        {
            replaced_by_this.push(r.path.clone());
        }
        if r.info.sources.iter().any(|s| s.value == citation) {
            cited_by.push(r.path.clone());
        }
    }
    replaced_by_this.sort();
    cited_by.sort();
    let drift = crate::engine::drift::drifted(
        ws,
        current
            .reports
            .iter()
            .filter(|r| r.path == path)
            .map(|r| (r.path.as_str(), &r.info)),
        crate::engine::drift::Mode::WorkTree,
    );
    let drifted = drift.diagnostics.into_iter().map(|d| d.message).collect();
    Ok(Shown {
        path,
        kind,
        slug,
        fields,
        keys,
        body,
        replaced_by_this,
        cited_by,
        drifted,
    })
}

/// The report `target` names.
pub(super) fn find<'c>(
    current: &'c Current,
    ws: &Workspace,
    target: &str,
) -> Result<&'c crate::lint::FileReport, AuthorError> {
    let missing = || AuthorError::Usage(format!("no record named `{target}`"));
    if target.contains('/') || target.ends_with(".md") {
        let rel = target.trim_start_matches("./");
        if !matches!(classify(rel, &ws.config.banned_dirs), Place::Record(_)) {
            return Err(AuthorError::Usage(format!(
                "{target} is not where a record lives (records live under memory/, knowledge/ and staging/)"
            )));
        }
        return current
            .reports
            .iter()
            .map(|r| r.as_ref())
            .find(|r| r.path == rel)
            .ok_or_else(missing);
    }
    if let Some((kind, slug)) = target.split_once(':') {
        let kind = match kind {
            "cmem" | "session" => Kind::Session,
            k => Kind::from_name(k).ok_or_else(missing)?,
        };
        return current.record(kind, slug).ok_or_else(missing);
    }
    let found: Vec<_> = AUTHORED
        .into_iter()
        .filter_map(|k| current.record(k, target))
        .collect();
    match found[..] {
        [one] => Ok(one),
        [] => Err(missing()),
        _ => Err(AuthorError::Usage(format!(
            "`{target}` names records of several kinds; say which, as in decision:{target}"
        ))),
    }
}

/// The front matter as JSON, its keys in order, and the body.
fn split_fields(text: &str) -> (serde_json::Value, Vec<String>, String) {
    let Split::Found(parts) = frontmatter::split(text) else {
        return (serde_json::Value::Null, Vec::new(), text.to_string());
    };
    let body = text[parts.body.clone()].to_string();
    let root = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start)
        .ok()
        .and_then(|d| d.root);
    let keys = root
        .as_ref()
        .and_then(Node::entries)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|e| Some(e.key.as_scalar()?.text.clone()))
                .collect()
        })
        .unwrap_or_default();
    let fields = root.as_ref().map_or(serde_json::Value::Null, to_json);
    (fields, keys, body)
}

/// A YAML node as JSON, scalars resolved as the YAML 1.2 core schema reads
/// them (a date stays a string).
fn to_json(node: &Node) -> serde_json::Value {
    use serde_json::Value as J;
    match &node.value {
        Value::Scalar(s) => match s.resolve() {
            Resolved::Null => J::Null,
            Resolved::Bool(b) => J::Bool(b),
            Resolved::Int => s
                .text
                .parse::<i64>()
                .map_or_else(|_| J::String(s.text.clone()), J::from),
            Resolved::Float => s
                .text
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or_else(|| J::String(s.text.clone()), J::Number),
            Resolved::Str => J::String(s.text.clone()),
        },
        Value::Seq { items, .. } => J::Array(items.iter().map(to_json).collect()),
        Value::Map { entries, .. } => J::Object(
            entries
                .iter()
                .map(|e| {
                    let key = e
                        .key
                        .as_scalar()
                        .map_or_else(String::new, |s| s.text.clone());
                    (key, to_json(&e.value))
                })
                .collect(),
        ),
    }
}
