//! `frontmatter/*`: the shape of the front matter itself.

use crate::lint::record::{is_required, ProblemRule, Record};
use crate::lint::sink::Sink;
use crate::model::rule::Rule;
use crate::syntax::yaml::{Entry, Style, Value};
use std::ops::Range;

/// `frontmatter/duplicate-key`: a key appears twice. YAML readers disagree on
/// which value wins, so the record means different things to different tools.
pub fn duplicate_key(r: &Record, out: &mut Sink) {
    if r.duplicates.is_empty() {
        return;
    }
    let index = crate::model::diagnostic::LineIndex::new(r.text);
    for d in r.duplicates {
        let first = index.position(d.first.start);
        out.emit(
            Rule::FrontmatterDuplicateKey,
            d.repeat.clone(),
            format!(
                "key `{}` appears twice (first on line {}); delete one of them",
                d.key, first.line
            ),
        );
    }
}

/// `frontmatter/required`: a required key is missing. (`sources` is reported
/// by `sources/missing`, `replaced_by` by `status/missing-target`.)
pub fn required(r: &Record, out: &mut Sink) {
    for field in r.kind.fields() {
        if !is_required(field.presence) || field.key == "sources" {
            continue;
        }
        if r.root.get(field.key).is_none() {
            // Name the misspelling that hides the key, when there is one.
            let misspelt = r
                .root
                .entries()
                .unwrap_or(&[])
                .iter()
                .filter_map(|e| e.key.as_scalar().map(|s| s.text.as_str()))
                .find(|k| r.kind.field(k).is_none() && rename_target(r, k) == Some(field.key));
            let hint = misspelt
                .map(|k| format!(" (`{k}` looks like a misspelling of it)"))
                .unwrap_or_default();
            out.emit(
                Rule::FrontmatterRequired,
                r.opener(),
                format!("a {} needs `{}`, which is missing{hint}", r.kind, field.key),
            );
        }
    }
}

/// `frontmatter/type`: a value has the wrong type or is outside its enum.
pub fn type_(r: &Record, out: &mut Sink) {
    for field in r.kind.fields() {
        if let Some((entry, span, message)) = r.problem(field.key, ProblemRule::Type) {
            out.emit(
                Rule::FrontmatterType,
                value_span(entry, span),
                message.to_string(),
            );
        }
    }
}

/// Where a finding about an entry's value points: the value, or the key when
/// the value is empty (`date:`), rather than a zero-width spot at the colon.
pub fn value_span(entry: &Entry, span: Range<usize>) -> Range<usize> {
    if span.is_empty() && span == entry.value.span {
        entry.key.span.clone()
    } else {
        span
    }
}

/// `frontmatter/unknown-key`: a key the kind does not define, with the closest
/// known key suggested; fixable when `--fix` renames it ([`safe_renames`]).
pub fn unknown_key(r: &Record, out: &mut Sink) {
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

/// `text` cut to 60 characters, with `…` when cut.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The `frontmatter/unknown-key` fix: rename every unknown key that is a
/// safe, unambiguous misspelling of a defined one (see [`safe_renames`]).
pub fn rename_edits(r: &Record) -> Vec<crate::syntax::edit::Edit> {
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
pub fn safe_renames<'r>(r: &Record<'r>) -> Vec<(&'r crate::syntax::yaml::Entry, &'static str)> {
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

fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    similar::get_close_matches(name, known, 2, 0.6)
        .into_iter()
        .next()
}

/// How much closer the best match must be than the next for a guess to be
/// safe (`staus` is `status` at 0.91, `tags` at 0.67; `state` is `status`
/// at 0.73 and `date` at 0.67: no guess).
const CLEAR_LEAD: f32 = 0.1;

/// The key an unknown key can safely be renamed to: one close match, or one
/// clearly closer than the next, and that key absent from the record.
pub fn rename_target(r: &Record, name: &str) -> Option<&'static str> {
    let known: Vec<&'static str> = r.kind.fields().iter().map(|f| f.key).collect();
    let matches = similar::get_close_matches(name, &known, 2, 0.6);
    let ratio = |k: &str| similar::TextDiff::from_chars(name, k).ratio();
    let best = match matches.as_slice() {
        [only] => *only,
        [first, second] if ratio(first) - ratio(second) >= CLEAR_LEAD => *first,
        _ => return None,
    };
    let best: &'static str = known.iter().copied().find(|k| *k == best)?;
    r.root.get(best).is_none().then_some(best)
}

/// `frontmatter/hash-in-value`: `title: Fix #2 for CJK` reads as `Fix`; the
/// rest became a comment. Fires when ` #` is directly followed by a non-space
/// character after an unquoted value.
pub fn hash_in_value(r: &Record, out: &mut Sink) {
    // A value's line ends inside the front matter: without a `#` there,
    // there is nothing to find.
    if !r.text[r.parts.yaml.clone()].contains('#') {
        return;
    }
    let mut stack = vec![r.root];
    while let Some(node) = stack.pop() {
        match &node.value {
            Value::Map { entries, .. } => stack.extend(entries.iter().map(|e| &e.value)),
            Value::Seq { items, .. } => stack.extend(items.iter()),
            Value::Scalar(s) if s.style == Style::Plain && !s.text.is_empty() => {
                let rest = &r.text[node.span.end..];
                let line_rest = rest.split(['\n', '\r']).next().unwrap_or("");
                let trimmed = line_rest.trim_start_matches([' ', '\t']);
                if trimmed.len() < line_rest.len()
                    && trimmed.starts_with('#')
                    && trimmed[1..]
                        .chars()
                        .next()
                        .is_some_and(|c| !c.is_whitespace())
                {
                    let start = node.span.end + (line_rest.len() - trimmed.len());
                    let end = node.span.end + line_rest.len();
                    out.emit(
                        Rule::FrontmatterHashInValue,
                        start..end,
                        format!(
                            "this value reads as `{}`: YAML takes ` {}` as a comment; quote the whole value",
                            s.text,
                            trimmed.split_whitespace().next().unwrap_or("#")
                        ),
                    );
                }
            }
            Value::Scalar(_) => {}
        }
    }
}
