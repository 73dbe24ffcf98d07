//! `frontmatter/unknown-key`: a key the kind does not define.

use crate::lint::record::Record;
use crate::lint::rules::frontmatter::shared::*;
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule frontmatter/unknown-key` prints it.
pub(crate) const DOC: &str = r#"# frontmatter/unknown-key

a key the kind does not define

## What it does

Fires on each front-matter key that the record's kind does not define, at the key. The message suggests the closest known key (`tag` → `tags`, `model_invokation` → `model_invocation`), says when that key is already present, or lists the known keys when nothing is close. Keys are case-sensitive: `Title` is unknown.

Every kind's fields, with their types, which are required, the allowed values and defaults, are listed in `docs/records.md`.

## Why it matters

A misspelt key is silently ignored by every tool: `tag: [cache, retries]` leaves the decision without tags, so tag filters and search weighting miss it, and a misspelt required key also leaves the record without that key (`frontmatter/required`). Keys invented ad hoc by one agent drift between records and nobody reads them.

## Example

`memory/decisions/retry-idempotent-requests-only.md`:

```markdown
---
title: Retry only idempotent HTTP requests
status: active
date: 2026-03-13
sources:
  - staging:20260313-094500-2b7d
tag: [retries, api]
---

GET, PUT and DELETE are retried; POST only with an `Idempotency-Key` header.
```

## Fixed

`memory/decisions/retry-idempotent-requests-only.md`:

```markdown
---
title: Retry only idempotent HTTP requests
status: active
date: 2026-03-13
sources:
  - staging:20260313-094500-2b7d
tags: [retries, api]
---

GET, PUT and DELETE are retried; POST only with an `Idempotency-Key` header.
```

## Fix

`memlint check --fix` renames the key to the suggested one, changing only the key's text (its value, comments and position stay). It applies only when the match is unambiguous (one close known key, or one clearly closer than the next) and that key is not already present; when two unknown keys would become the same key, neither is renamed. Other unknown keys are left for you to rename or delete.

## Configuration

```yaml
# .memlint.yml
rules:
  frontmatter/unknown-key: error   # default: warning; or off
```
"#;

/// `frontmatter/unknown-key`: a key the kind does not define, with the closest
/// known key suggested; fixable when `--fix` renames it ([`safe_renames`]).
pub(crate) fn check(r: &Record, out: &mut Sink) {
    let known: Vec<&str> = r.kind.fields().iter().map(|f| f.key).collect();
    let mut renames: Option<Vec<(&crate::syntax::yaml::Entry, &'static str)>> = None;
    for entry in r.root.entries().unwrap_or(&[]) {
        let Some(name) = entry.key.as_scalar().map(|s| s.text.as_str()) else {
            // A complex key (`? [a, b]`, `{a: 1}: x`): no name to match.
            out.emit_fixable(
                Rule::FrontmatterUnknownKey,
                entry.key.span.clone(),
                format!(
                    "this key is {} (`{}`), not a name; a {} has named keys: {}",
                    entry.key.type_name(),
                    shortened(&entry.key.flow_text()),
                    r.kind,
                    known.join(", ")
                ),
                false,
            );
            continue;
        };
        if known.contains(&name) {
            continue;
        }
        // A key of thousands of characters is named by its start.
        let shown = shortened(name);
        let name = shown.as_str();
        if name.is_empty() {
            out.emit_fixable(
                Rule::FrontmatterUnknownKey,
                entry.key.span.clone(),
                format!(
                    "an empty key is not a {} key; known keys: {}",
                    r.kind,
                    known.join(", ")
                ),
                false,
            );
            continue;
        }
        let message = match rename_target(r, name) {
            Some(target) => format!("`{name}` is not a {} key; did you mean `{target}`?", r.kind),
            None => match closest(name, &known) {
                Some(k) if r.root.get(k).is_some() => format!(
                    "`{name}` is not a {} key (did you mean `{k}`? it is already present)",
                    r.kind
                ),
                // Two keys are as close: no guess is safe.
                Some(_) => format!(
                    "`{name}` is not a {} key; did you mean {}?",
                    r.kind,
                    similar::get_close_matches(name, &known, 2, 0.6)
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
                None => format!(
                    "`{name}` is not a {} key; known keys: {}",
                    r.kind,
                    known.join(", ")
                ),
            },
        };
        let renamed = renames
            .get_or_insert_with(|| safe_renames(r))
            .iter()
            .any(|(e, _)| std::ptr::eq(*e, entry));
        out.emit_fixable(
            Rule::FrontmatterUnknownKey,
            entry.key.span.clone(),
            message,
            renamed,
        );
    }
}

/// `text` cut to 60 characters, with `…` when cut; its credentials masked
/// first, since a credential cut short would no longer be recognised.
fn shortened(text: &str) -> String {
    match crate::syntax::sanitize::clip(text, 60) {
        (cut, true) => format!("{cut}…"),
        (whole, false) => whole.into_owned(),
    }
}

/// The `frontmatter/unknown-key` fix: rename every unknown key that is a
/// safe, unambiguous misspelling of a defined one (see [`safe_renames`]).
pub(crate) fn rename_edits(r: &Record) -> Vec<crate::syntax::edit::Edit> {
    safe_renames(r)
        .into_iter()
        .map(|(entry, target)| crate::syntax::edit::Edit {
            span: entry.key.span.clone(),
            text: target.to_string(),
        })
        .collect()
}

/// The unknown keys `--fix` renames, with their new names: those with a
/// [`rename_target`] that no other unknown key would also be renamed to.
pub(crate) fn safe_renames<'r>(
    r: &Record<'r>,
) -> Vec<(&'r crate::syntax::yaml::Entry, &'static str)> {
    let known: Vec<&str> = r.kind.fields().iter().map(|f| f.key).collect();
    let mut renames: Vec<(&crate::syntax::yaml::Entry, &'static str)> = Vec::new();
    for entry in r.root.entries().unwrap_or(&[]) {
        let Some(name) = entry.key.as_scalar().map(|s| s.text.as_str()) else {
            continue;
        };
        if known.contains(&name) {
            continue;
        }
        if let Some(target) = rename_target(r, name) {
            renames.push((entry, target));
        }
    }
    // Two keys that would become the same key are both left alone.
    let targets: Vec<&str> = renames.iter().map(|(_, t)| *t).collect();
    renames.retain(|(_, t)| targets.iter().filter(|o| *o == t).count() == 1);
    renames
}
