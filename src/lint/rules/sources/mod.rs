//! `sources/*`: every decision, request and knowledge record says where it
//! came from.

use crate::lint::record::{FieldState, ProblemRule, Record};
use crate::lint::sink::Sink;
use crate::model::hashing::Map;
use crate::model::kind::{source_problem, Kind};
use crate::model::rule::Rule;
use crate::syntax::edit::Edit;
use crate::syntax::yaml::Value;

/// Kinds that must list sources.
fn requires_sources(kind: Kind) -> bool {
    matches!(kind, Kind::Decision | Kind::Request | Kind::Knowledge)
}

/// The string entries of `sources`, with their spans: every entry of a
/// valid list, and the string entries of a list whose other entries have
/// the wrong type (reported by `frontmatter/type`), so that one bad entry
/// does not hide the others' problems.
pub fn entries<'a>(r: &Record<'a>) -> Vec<(&'a str, std::ops::Range<usize>)> {
    let node = match r.field("sources") {
        FieldState::Valid(node) => node,
        FieldState::Invalid => match r.root.get("sources") {
            Some(entry) => &entry.value,
            None => return Vec::new(),
        },
        FieldState::Missing => return Vec::new(),
    };
    let Value::Seq { items, .. } = &node.value else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|i| {
            i.as_scalar()
                .and_then(|s| s.as_str())
                .map(|t| (t, i.span.clone()))
        })
        .collect()
}

/// `sources/missing`: a kind that requires sources has none, or an empty list.
pub fn missing(r: &Record, out: &mut Sink) {
    match r.root.get("sources") {
        None if requires_sources(r.kind) => out.emit(
            Rule::SourcesMissing,
            r.opener(),
            format!(
                "a {} must list its `sources` (e.g. `staging:<id>`, `commit:<hex>`, `file:<path>`)",
                r.kind
            ),
        ),
        Some(_) => {
            if let Some((entry, span, msg)) = r.problem("sources", ProblemRule::SourcesMissing) {
                if requires_sources(r.kind) {
                    out.emit(
                        Rule::SourcesMissing,
                        super::frontmatter::value_span(entry, span),
                        format!("{msg}: a {} needs at least one source", r.kind),
                    );
                }
            }
        }
        None => {}
    }
}

/// `sources/format`: an entry is not a source string.
pub fn format(r: &Record, out: &mut Sink) {
    for (s, span) in entries(r) {
        if let Some(why) = source_problem(s) {
            out.emit(
                Rule::SourcesFormat,
                span,
                format!("`{s}` is not a source string: {why}"),
            );
        }
    }
}

/// `sources/duplicate`: the same entry twice.
pub fn duplicate(r: &Record, out: &mut Sink) {
    let mut seen: Map<&str, usize> = Map::default();
    // What `--fix` deletes, computed at the first duplicate: an entry
    // sharing its line with a comment, say, is left for a person.
    let mut removals: Option<Vec<Edit>> = None;
    for (i, (s, span)) in entries(r).into_iter().enumerate() {
        if let Some(first) = seen.get(s) {
            let removed = removals
                .get_or_insert_with(|| duplicate_source_edits(r))
                .iter()
                .any(|e| e.span.start <= span.start && span.end <= e.span.end);
            out.emit_fixable(
                Rule::SourcesDuplicate,
                span,
                format!(
                    "`{s}` is listed twice (first as entry {}); delete this one",
                    first + 1
                ),
                removed,
            );
        } else {
            seen.insert(s, i);
        }
    }
}

/// `sources/too-many`: more than `max_sources` entries; the record probably
/// mixes several topics.
pub fn too_many(r: &Record, out: &mut Sink) {
    let FieldState::Valid(node) = r.field("sources") else {
        return;
    };
    let n = entries(r).len();
    let max = r.config.max_sources;
    if n > max {
        let key = r
            .root
            .get("sources")
            .map(|e| e.key.span.clone())
            .unwrap_or(node.span.clone());
        out.emit(
            Rule::SourcesTooMany,
            key,
            format!("{n} sources, more than the {max} allowed; split the record or keep the sources that matter"),
        );
    }
}

/// `sources/thin`: a long body backed by a single source.
pub fn thin(r: &Record, out: &mut Sink) {
    // A list with a wrongly typed entry holds more than its strings.
    if !requires_sources(r.kind) || !matches!(r.field("sources"), FieldState::Valid(_)) {
        return;
    }
    let list = entries(r);
    if list.len() != 1 {
        return;
    }
    let chars = r.body_chars();
    if chars > 1500 {
        out.emit(
            Rule::SourcesThin,
            list[0].1.clone(),
            format!("the body has {chars} characters but a single source backs it; add the other sources it draws on"),
        );
    }
}

/// Why a `file:` source cannot be checked inside the root, or its normalised
/// root-relative path (borrowed when the value is already normal, as it
/// nearly always is).
pub fn file_target(value: &str) -> Result<std::borrow::Cow<'_, str>, String> {
    if value.starts_with('/') || value.starts_with('\\') || value.get(1..2) == Some(":") {
        return Err(
            "is an absolute path; `file:` sources are relative to the workspace root".into(),
        );
    }
    let normal = !value.contains('\\')
        && value
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..");
    if normal {
        return Ok(std::borrow::Cow::Borrowed(value));
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in value.split(['/', '\\']) {
        match c {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err("points outside the workspace root (it was not read)".into());
                }
            }
            other => parts.push(other),
        }
    }
    Ok(std::borrow::Cow::Owned(parts.join("/")))
}

/// `sources/dangling`: a source that points at nothing.
pub fn dangling(view: &super::workspace::View, out: &mut super::workspace::WsSink) {
    for e in &view.records {
        for s in &e.info.sources {
            let Some((prefix, value)) = s.value.split_once(':') else {
                continue;
            };
            let problem = match prefix {
                // A malformed source is `sources/format`'s, not also a
                // dangling one (`file:` with no path).
                "file" if source_problem(&s.value).is_some() => None,
                "file" => match file_target(value) {
                    Err(why) => Some(format!("`{}` {why}", s.value)),
                    Ok(rel) if rel.is_empty() || !view.resolver.file_exists(&rel) => {
                        Some(match view.resolver.leads_out(&rel) {
                            Some(link) => format!(
                                "`{}` leads out of the workspace root through the symbolic link `{link}`; memlint never looks there",
                                s.value
                            ),
                            None => format!("`{}` names no file in the workspace", s.value),
                        })
                    }
                    Ok(_) => None,
                },
                "decision" | "request" | "knowledge" => {
                    let kind = Kind::from_name(prefix).unwrap_or(Kind::Decision);
                    if crate::model::kind::is_slug(value) && !view.exists(kind, value) {
                        let slugs = view.slugs(kind);
                        let hint = crate::syntax::text::closest(value, &slugs, 0.6)
                            .map(|m| format!(" (did you mean `{prefix}:{m}`?)"))
                            .unwrap_or_default();
                        Some(format!("`{}` names no {kind}{hint}", s.value))
                    } else {
                        None
                    }
                }
                "cmem" => (crate::model::kind::is_session_id(value)
                    && !view.exists(Kind::Session, value))
                .then(|| format!("`{}` names no session memory in memory/sessions/", s.value)),
                // A malformed id is `sources/format`'s, not also a dangling one.
                "commit" if source_problem(&s.value).is_some() => None,
                "commit" => match view.resolver.commit_exists(value) {
                    Some(false) => Some(format!("`{}` is not in the git object database", s.value)),
                    _ => None,
                },
                _ => None,
            };
            if let Some(message) = problem {
                out.emit(Rule::SourcesDangling, e.path, Some(s), message);
            }
        }
    }
}

/// Deletes every repeated `sources` entry: the whole line of a block-list
/// item (when the line holds nothing else), or the item and its comma in a
/// flow list.
pub fn duplicate_source_edits(r: &Record) -> Vec<Edit> {
    let Some(entry) = r.root.get("sources") else {
        return Vec::new();
    };
    let Value::Seq { items, flow } = &entry.value.value else {
        return Vec::new();
    };
    let text = r.text;
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut edits = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(s) = item.as_scalar().and_then(|s| s.as_str()) else {
            continue;
        };
        if seen.insert(s) {
            continue;
        }
        if *flow {
            let Some(prev) = i.checked_sub(1).and_then(|p| items.get(p)) else {
                continue;
            };
            let between = text.get(prev.span.end..item.span.start).unwrap_or("#");
            if between.trim() == "," {
                edits.push(Edit {
                    span: prev.span.end..item.span.end,
                    text: String::new(),
                });
            }
        } else {
            let start = text[..item.span.start].rfind('\n').map_or(0, |p| p + 1);
            let end = text[item.span.end..]
                .find('\n')
                .map_or(text.len(), |p| item.span.end + p + 1);
            let before = &text[start..item.span.start];
            let after = &text[item.span.end..end];
            let lone = before.trim_start_matches(' ') == "- " && after.trim().is_empty();
            if lone {
                edits.push(Edit {
                    span: start..end,
                    text: String::new(),
                });
            }
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `file_target` as it reads without the shortcut for normal paths.
    fn normalised(value: &str) -> Result<String, String> {
        if value.starts_with('/') || value.starts_with('\\') || value.get(1..2) == Some(":") {
            return Err("absolute".into());
        }
        let mut parts: Vec<&str> = Vec::new();
        for c in value.split(['/', '\\']) {
            match c {
                "" | "." => {}
                ".." => {
                    parts.pop().ok_or_else(|| "outside".to_string())?;
                }
                other => parts.push(other),
            }
        }
        Ok(parts.join("/"))
    }

    #[test]
    fn file_targets_borrowed_or_normalised_agree() {
        let pieces = ["a", "bc", ".", "..", "/", "\\", ":", ".md"];
        let mut borrowed = 0;
        for value in crate::syntax::text::every_text_of(&pieces, 4) {
            let got = file_target(&value);
            match (&got, normalised(&value)) {
                (Ok(rel), Ok(want)) => assert_eq!(rel.as_ref(), want, "{value:?}"),
                (Err(_), Err(_)) => {}
                (got, want) => panic!("{value:?}: {got:?} but {want:?}"),
            }
            if let Ok(std::borrow::Cow::Borrowed(_)) = got {
                borrowed += 1;
            }
        }
        // Both paths were taken.
        assert!(borrowed > 100, "{borrowed}");
    }
}
