//! `sources/dangling`: a source points at nothing.

use crate::model::kind::{source_problem, Kind};
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule sources/dangling` prints it.
pub(crate) const DOC: &str = r#"# sources/dangling

a source points at nothing

## What it does

Fires on a well-formed source that names something absent: a `file:` path that does not exist in the workspace (or leaves the root, or is absolute), a line range (`file:src/cache.rs#L10-L42`) that runs past the end of the file, a `commit:` not in the git object database, or a `decision:`, `request:`, `knowledge:` or `cmem:` target with no record of that kind and name. It suggests the closest existing slug. `staging:` and `session:` sources are not checked (staging files are consumed by design), nor are URLs; `commit:` is checked only when the workspace is in a git repository. Malformed entries are `sources/format` instead.

## Why it matters

A source that leads nowhere gives a false sense of backing: the reader who follows it to check the record finds nothing. Dangling sources typically come from a typo, a record renamed or merged without updating the references to it, or a commit that only existed on an unmerged branch.

## Example

`memory/decisions/use-redis-for-sessions.md`:

```markdown
---
title: Keep user sessions in Redis
status: active
date: 2026-03-18
sources:
  - staging:20260318-141000-0c9b
---

Sessions move from the API process memory to Redis so that any replica can serve a user.
```

`memory/requests/log-out-everywhere.md`:

```markdown
---
title: Add a "log out of all devices" button
status: open
date: 2026-03-27
sources:
  - decision:use-redis-for-session
  - staging:20260327-093000-1e5c
---

Deleting every session key of the user is enough now that sessions live in Redis.
```

## Fixed

`memory/requests/log-out-everywhere.md`:

```markdown
---
title: Add a "log out of all devices" button
status: open
date: 2026-03-27
sources:
  - decision:use-redis-for-sessions
  - staging:20260327-093000-1e5c
---

Deleting every session key of the user is enough now that sessions live in Redis.
```

## Fix

Not fixed automatically: correct the reference (the message suggests the closest existing slug), restore the missing file or record, or delete the entry if nothing replaces it.

## Configuration

```yaml
# .memlint.yml
rules:
  sources/dangling: error   # default: warning; or off
```
"#;

/// Why a `file:` source cannot be checked inside the root, or its normalised
/// root-relative path (borrowed when the value is already normal, as it
/// nearly always is).
/// A line range (`#L10-L42`) after the path is not part of it.
pub(crate) fn file_target(value: &str) -> Result<std::borrow::Cow<'_, str>, String> {
    let value = crate::model::kind::split_file_source(value).map_or(value, |(path, _)| path);
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

/// The file a well-formed `file:` source (`source`, the whole entry)
/// cites, root-relative, and its line range; `None` for any other source,
/// or one the rules report as malformed or outside the root.
pub(crate) fn cited_file(
    source: &str,
) -> Option<(std::borrow::Cow<'_, str>, Option<crate::model::kind::Lines>)> {
    let value = source.strip_prefix("file:")?;
    if crate::model::kind::source_problem(source).is_some() {
        return None;
    }
    let (_, lines) = crate::model::kind::split_file_source(value).ok()?;
    Some((file_target(value).ok()?, lines))
}

/// For a `file:` source with a line range: the message when the range
/// runs past the end of the file (which exists).
fn past_the_end(
    view: &crate::lint::rules::workspace::View,
    source: &str,
    rel: &str,
    value: &str,
) -> Option<String> {
    let (_, Some(lines)) = crate::model::kind::split_file_source(value).ok()? else {
        return None;
    };
    let count = view.resolver.file_lines(rel)?;
    (lines.last > count).then(|| {
        let cited = if lines.first == lines.last {
            format!("line {}", lines.first)
        } else {
            format!("lines {}-{}", lines.first, lines.last)
        };
        let has = match count {
            1 => "1 line".to_string(),
            n => format!("{n} lines"),
        };
        format!("`{source}` cites {cited}, but `{rel}` has {has}")
    })
}

/// `sources/dangling`: a source that points at nothing.
pub(crate) fn check(
    view: &crate::lint::rules::workspace::View,
    out: &mut crate::lint::rules::workspace::WsSink,
) {
    for e in &view.records {
        if view.reported.is_some_and(|reported| !reported(e.path)) {
            continue;
        }
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
                    Ok(rel) => past_the_end(view, &s.value, &rel, value),
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
