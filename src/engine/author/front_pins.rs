//! The `verified` date and the `pins` of a record's front matter, as text
//! edits that leave every other line as written: what `memlint verify`
//! sets, and what `memlint check --fix` adds to a record it rewrites.

use super::draft::scalar;
use crate::syntax::edit::{apply, Edit};
use crate::syntax::frontmatter::{self, Split};

/// `text` with `verified: <today>` and `pins` set (replaced where present,
/// added before the closing `---` where not; no pins: the key is removed,
/// unless it holds none already). The lines written end as the front
/// matter's do (CRLF or LF), and a comment on the `pins:` line stays.
pub(crate) fn set_verified(text: &str, today: &str, pins: &[String]) -> Option<String> {
    set_front(text, Some(today), pins)
}

/// [`set_verified`], or with no `today` only the pins.
fn set_front(text: &str, today: Option<&str>, pins: &[String]) -> Option<String> {
    let Split::Found(parts) = frontmatter::split(text) else {
        return None;
    };
    let doc = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start).ok()?;
    let root = doc.root?;
    let nl = match text[parts.opener.end..].starts_with("\r\n") {
        true => "\r\n",
        false => "\n",
    };
    let mut edits = Vec::new();
    let mut added = String::new();
    let pins_value = |comment: Option<&str>| {
        let items: Vec<String> = pins
            .iter()
            .map(|p| format!("  - {}{nl}", scalar(p)))
            .collect();
        format!(":{}{nl}{}", comment.unwrap_or(""), items.concat())
    };
    match (root.get("verified"), today) {
        (_, None) => {}
        (Some(entry), Some(today)) => edits.push(Edit {
            span: entry.value.span.clone(),
            text: today.to_string(),
        }),
        (None, Some(today)) => added += &format!("verified: {today}{nl}"),
    }
    match (root.get("pins"), pins.is_empty()) {
        (Some(entry), false) => {
            // From the end of the key to the end of its line(s).
            let end = line_end(text, entry.value.span.end.max(entry.key.span.end));
            edits.push(Edit {
                span: entry.key.span.end..end,
                text: pins_value(key_line_comment(text, entry)),
            });
        }
        // `pins: []` (or `pins:`) says it already, comment and all.
        (Some(entry), true) if holds_nothing(&entry.value.value) => {}
        (Some(entry), true) => {
            let start = line_start(text, entry.key.span.start);
            let end = line_end(text, entry.value.span.end.max(entry.key.span.end));
            edits.push(Edit {
                span: start..end,
                text: String::new(),
            });
        }
        (None, false) => added += &format!("pins{}", pins_value(None)),
        (None, true) => {}
    }
    if !added.is_empty() {
        edits.push(Edit {
            span: parts.closer.start..parts.closer.start,
            text: added,
        });
    }
    apply(text, edits).ok()
}

/// `text` with `more` pins (`<source> xxh3:…`) added to its `pins`, each
/// whose source has none there yet: after the last item of a block list
/// (the lines before it stay as written), else the list written again with
/// them; `verified` is left as it is. `None` when the front matter cannot
/// be read.
pub(crate) fn add_pins(text: &str, more: &[String]) -> Option<String> {
    use crate::syntax::yaml::Value;
    let Split::Found(parts) = frontmatter::split(text) else {
        return None;
    };
    let doc = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start).ok()?;
    let root = doc.root?;
    let entry = root.get("pins");
    let (items, flow): (&[crate::syntax::yaml::Node], bool) = match entry.map(|e| &e.value.value) {
        Some(Value::Seq { items, flow }) => (items, *flow),
        _ => (&[], true),
    };
    let pinned: Vec<&str> = items
        .iter()
        .filter_map(|i| crate::model::kind::split_pin(i.as_scalar()?.as_str()?))
        .map(|(source, _)| source)
        .collect();
    let more: Vec<&String> = more
        .iter()
        .filter(|p| {
            crate::model::kind::split_pin(p).is_some_and(|(source, _)| !pinned.contains(&source))
        })
        .collect();
    if more.is_empty() {
        return Some(text.to_string());
    }
    let nl = match text[parts.opener.end..].starts_with("\r\n") {
        true => "\r\n",
        false => "\n",
    };
    // A block list: the new items after the last one, indented as it is.
    if let Some(last) = items.last().filter(|_| !flow) {
        let start = line_start(text, last.span.start);
        let prefix = &text[start..last.span.start];
        if prefix.trim_start().starts_with('-') {
            let at = line_end(text, last.span.end);
            let (glue, at) = match text[..at].ends_with('\n') {
                true => ("", at),
                false => (nl, at),
            };
            let lines: String = more
                .iter()
                .map(|p| format!("{prefix}{}{nl}", scalar(p)))
                .collect();
            let mut out = text.to_string();
            out.insert_str(at, &format!("{glue}{lines}"));
            return Some(out);
        }
    }
    let all: Vec<String> = items
        .iter()
        .filter_map(|i| Some(i.as_scalar()?.as_str()?.to_string()))
        .chain(more.into_iter().cloned())
        .collect();
    set_front(text, None, &all)
}

/// The comment on the line of `entry`'s key after its value (`pins: []  #
/// none yet`) or after the key of a value on the lines below, with the
/// blanks before it: `  # none yet`.
fn key_line_comment<'t>(text: &'t str, entry: &crate::syntax::yaml::Entry) -> Option<&'t str> {
    let (key, value) = (&entry.key.span, &entry.value.span);
    let end = line_end(text, key.end);
    let from = match () {
        // The value is on lines of its own.
        _ if value.start >= end => key.end,
        // The value ends on the key's line.
        _ if value.end <= end => value.end.max(key.end),
        _ => return None,
    };
    let rest = text.get(from..end)?;
    let hash = rest.find('#')?;
    // A comment starts after a blank.
    let blanks = rest[..hash].len() - rest[..hash].trim_end_matches([' ', '\t']).len();
    (blanks > 0).then(|| rest[hash - blanks..].trim_end_matches(['\r', '\n']))
}

/// Whether a value is an empty list or nothing (`[]`, `~`, no value).
fn holds_nothing(value: &crate::syntax::yaml::Value) -> bool {
    use crate::syntax::yaml::Value;
    match value {
        Value::Seq { items, .. } => items.is_empty(),
        Value::Scalar(s) => s.resolve() == crate::syntax::yaml::Resolved::Null,
        Value::Map { .. } => false,
    }
}

/// The byte after the line break that ends the line holding `at`.
fn line_end(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    // A span that ends with its line break already ends the line.
    if at > 0 && text.as_bytes()[at - 1] == b'\n' {
        return at;
    }
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

/// The byte that starts the line holding `at`.
fn line_start(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_are_added_after_a_block_lists_last_item_or_the_list_is_written_again() {
        let a = "file:a.rs xxh3:0123456789abcdef".to_string();
        let b = "file:b.rs xxh3:fedcba9876543210".to_string();
        // A block list keeps its lines, comments and all; a source pinned
        // already keeps its pin.
        let block = "---\r\ntitle: A\r\npins:\r\n    - file:a.rs xxh3:1111111111111111  # old\r\n---\r\nbody\r\n";
        assert_eq!(
            add_pins(block, &[a.clone(), b.clone()]).unwrap(),
            "---\r\ntitle: A\r\npins:\r\n    - file:a.rs xxh3:1111111111111111  # old\r\n    - file:b.rs xxh3:fedcba9876543210\r\n---\r\nbody\r\n"
        );
        let flow = "---\ntitle: A\nverified: 2026-12-01\npins: [file:a.rs xxh3:0123456789abcdef]  # one\n---\n";
        assert_eq!(
            add_pins(flow, std::slice::from_ref(&b)).unwrap(),
            "---\ntitle: A\nverified: 2026-12-01\npins:  # one\n  - file:a.rs xxh3:0123456789abcdef\n  - file:b.rs xxh3:fedcba9876543210\n---\n"
        );
        let none = "---\ntitle: A\n---\n";
        assert_eq!(
            add_pins(none, &[a.clone()]).unwrap(),
            "---\ntitle: A\npins:\n  - file:a.rs xxh3:0123456789abcdef\n---\n"
        );
        assert_eq!(add_pins(block, &[a]).unwrap(), block);
        assert_eq!(add_pins("no front matter", &[b]), None);
    }

    #[test]
    fn verified_and_pins_are_set_or_replaced() {
        let text = "---\ntitle: A\nsources:\n  - file:a.rs\n---\nbody\n";
        let pins = vec!["file:a.rs xxh3:0123456789abcdef".to_string()];
        let once = set_verified(text, "2026-12-05", &pins).unwrap();
        assert_eq!(
            once,
            "---\ntitle: A\nsources:\n  - file:a.rs\nverified: 2026-12-05\npins:\n  - file:a.rs xxh3:0123456789abcdef\n---\nbody\n"
        );
        let pins2 = vec!["file:a.rs xxh3:fedcba9876543210".to_string()];
        let twice = set_verified(&once, "2026-12-06", &pins2).unwrap();
        assert_eq!(
            twice,
            "---\ntitle: A\nsources:\n  - file:a.rs\nverified: 2026-12-06\npins:\n  - file:a.rs xxh3:fedcba9876543210\n---\nbody\n"
        );
        let none = set_verified(&twice, "2026-12-07", &[]).unwrap();
        assert_eq!(
            none,
            "---\ntitle: A\nsources:\n  - file:a.rs\nverified: 2026-12-07\n---\nbody\n"
        );
    }

    #[test]
    fn the_comment_of_the_pins_line_and_crlf_stay() {
        let pins = vec!["file:a.rs xxh3:0123456789abcdef".to_string()];
        let flow = "---\ntitle: A\npins: []  # none yet\n---\n";
        assert_eq!(
            set_verified(flow, "2026-12-05", &pins).unwrap(),
            "---\ntitle: A\npins:  # none yet\n  - file:a.rs xxh3:0123456789abcdef\nverified: 2026-12-05\n---\n"
        );
        let block = "---\ntitle: A\npins:\t# old\n  - file:a.rs xxh3:fedcba9876543210\n---\n";
        assert_eq!(
            set_verified(block, "2026-12-05", &pins).unwrap(),
            "---\ntitle: A\npins:\t# old\n  - file:a.rs xxh3:0123456789abcdef\nverified: 2026-12-05\n---\n"
        );
        // No pins to write: an empty list stays as written.
        assert_eq!(
            set_verified(flow, "2026-12-05", &[]).unwrap(),
            format!("{}verified: 2026-12-05\n---\n", &flow[..flow.len() - 4])
        );
        let crlf = "---\r\ntitle: A\r\n---\r\nbody\r\n";
        assert_eq!(
            set_verified(crlf, "2026-12-05", &pins).unwrap(),
            "---\r\ntitle: A\r\nverified: 2026-12-05\r\npins:\r\n  - file:a.rs xxh3:0123456789abcdef\r\n---\r\nbody\r\n"
        );
    }
}
