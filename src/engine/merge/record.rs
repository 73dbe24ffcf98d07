//! A record merged by its structure: the front matter key by key against
//! the base (list keys as ordered unions that honour removals, other keys
//! taken from the side that changed them, a key changed differently on
//! both sides a conflict of its own), the body line by line.

use super::lines::{self, Markers};
use super::list::{self, List};
use super::Merge;
use crate::syntax::frontmatter::{split, Split};
use crate::syntax::yaml;

/// Keys merged as sets of items rather than as one value.
const LIST_KEYS: [&str; 2] = ["sources", "tags"];

/// One side's front matter: its keys in order, each with its source text
/// (the key's lines) and, for a list, its items' source texts.
struct Side<'t> {
    keys: Vec<Key<'t>>,
    body: &'t str,
}

struct Key<'t> {
    name: String,
    /// The entry's lines, as written (line breaks included).
    text: &'t str,
    /// The list with its comments, when the value is a list of one-line
    /// scalars under a list key.
    list: Option<List<'t>>,
}

impl<'t> Side<'t> {
    fn get(&self, name: &str) -> Option<&Key<'t>> {
        self.keys.iter().find(|k| k.name == name)
    }
}

/// Reads one side; `None` when it has no front matter that parses into a
/// mapping without duplicate keys. An empty text (a file added on both
/// sides has an empty base) is a side with no keys and no body.
fn side(text: &str) -> Option<Side<'_>> {
    if text.is_empty() {
        return Some(Side {
            keys: Vec::new(),
            body: "",
        });
    }
    let Split::Found(parts) = split(text) else {
        return None;
    };
    if parts.opener.start != 0 {
        return None;
    }
    let doc = yaml::parse(&text[parts.yaml.clone()], parts.yaml.start).ok()?;
    if !doc.duplicates.is_empty() {
        return None;
    }
    let entries = match &doc.root {
        None => &[][..],
        Some(root) if root.is_null() => &[][..],
        Some(root) => root.entries()?,
    };
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    let mut keys = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let name = e.key.as_scalar()?.text.clone();
        // The first key keeps what comes before it (a comment).
        let start = match i {
            0 => parts.yaml.start,
            _ => line_start(e.key.span.start),
        };
        let end = entries
            .get(i + 1)
            .map_or(parts.yaml.end, |next| line_start(next.key.span.start));
        let list = match LIST_KEYS.contains(&name.as_str()) {
            true => list::cut(text, e, start, end),
            false => None,
        };
        keys.push(Key {
            name,
            text: text.get(start..end)?,
            list,
        });
    }
    Some(Side {
        keys,
        body: &text[parts.body],
    })
}

/// Merges three record texts (LF line endings); `None` when one side's
/// front matter cannot be read, and the caller merges line by line.
pub(crate) fn merge(base: &str, ours: &str, theirs: &str, markers: &Markers) -> Option<Merge> {
    let (b, o, t) = (side(base)?, side(ours)?, side(theirs)?);
    if o.keys.is_empty() && t.keys.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = o.keys.iter().map(|k| k.name.as_str()).collect();
    for k in &t.keys {
        if !names.contains(&k.name.as_str()) {
            names.push(&k.name);
        }
    }
    let mut conflicts = Vec::new();
    let mut yaml = String::new();
    for name in names {
        let (bk, ok, tk) = (b.get(name), o.get(name), t.get(name));
        match key(bk, ok, tk) {
            Resolved::Text(text) => push_line(&mut yaml, &text),
            Resolved::Gone => {}
            Resolved::Conflict => {
                conflicts.push(format!("the key `{name}`"));
                let text = |k: Option<&Key>| k.map_or(String::new(), |k| k.text.to_string());
                yaml.push_str(&lines::conflict(&text(ok), &text(tk), markers));
            }
        }
    }
    let (body, body_conflict) = if o.body == t.body || t.body == b.body {
        (o.body.to_string(), false)
    } else if o.body == b.body {
        (t.body.to_string(), false)
    } else {
        let (bytes, conflict) = lines::merge(
            b.body.as_bytes(),
            o.body.as_bytes(),
            t.body.as_bytes(),
            markers,
        );
        (String::from_utf8(bytes).ok()?, conflict)
    };
    if body_conflict {
        conflicts.push("the body".to_string());
    }
    Some(Merge {
        bytes: format!("---\n{yaml}---\n{body}").into_bytes(),
        conflicts,
    })
}

/// What one key becomes.
enum Resolved {
    Text(String),
    Gone,
    Conflict,
}

fn key(base: Option<&Key>, ours: Option<&Key>, theirs: Option<&Key>) -> Resolved {
    fn text<'t>(k: Option<&Key<'t>>) -> Option<&'t str> {
        k.map(|k| k.text.trim_end())
    }
    let (b, o, t) = (text(base), text(ours), text(theirs));
    let take = |k: Option<&Key>| k.map_or(Resolved::Gone, |k| Resolved::Text(k.text.to_string()));
    if o == t || t == b {
        return take(ours);
    }
    if o == b {
        return take(theirs);
    }
    // Both sides changed it: a list key is merged item by item, its
    // comments with it.
    match (
        ours.and_then(|k| k.list.as_ref()),
        theirs.and_then(|k| k.list.as_ref()),
    ) {
        (Some(o), Some(t)) => {
            let b = base.and_then(|k| k.list.as_ref());
            list::merge(b, o, t).map_or(Resolved::Conflict, Resolved::Text)
        }
        _ => Resolved::Conflict,
    }
}

fn push_line(out: &mut String, text: &str) {
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(base: &str, ours: &str, theirs: &str) -> (String, Vec<String>) {
        let m = merge(base, ours, theirs, &Markers::default()).expect("readable");
        (String::from_utf8(m.bytes).expect("utf-8"), m.conflicts)
    }

    const BASE: &str = "---\ntitle: Use gix\nstatus: active\ndate: 2026-11-01\nsources:\n  - decision:a\n  - decision:b\n---\n\nBody.\n";

    #[test]
    fn sources_added_on_both_sides_are_an_ordered_union_and_removals_hold() {
        let ours = BASE.replace("  - decision:b\n", "  - decision:b\n  - decision:c\n");
        let theirs = BASE
            .replace("  - decision:a\n", "")
            .replace("  - decision:b\n", "  - decision:b\n  - decision:d\n");
        let (text, conflicts) = run(BASE, &ours, &theirs);
        assert!(conflicts.is_empty(), "{conflicts:?}");
        assert_eq!(
            text,
            "---\ntitle: Use gix\nstatus: active\ndate: 2026-11-01\nsources:\n  - decision:b\n  - decision:c\n  - decision:d\n---\n\nBody.\n"
        );
    }

    #[test]
    fn a_scalar_changed_on_one_side_wins_and_on_both_is_a_conflict_of_that_key() {
        let ours = BASE.replace("status: active", "status: replaced\nreplaced_by: use-gix-2");
        let (text, conflicts) = run(BASE, &ours, BASE);
        assert_eq!(text, ours);
        assert!(conflicts.is_empty());
        let theirs = BASE.replace("title: Use gix", "title: Use gix for git");
        let ours2 = BASE.replace("title: Use gix", "title: Use gix everywhere");
        let (text, conflicts) = run(BASE, &ours2, &theirs);
        assert_eq!(conflicts, ["the key `title`"]);
        assert!(text.starts_with("---\n<<<<<<< ours\ntitle: Use gix everywhere\n=======\ntitle: Use gix for git\n>>>>>>> theirs\nstatus: active\n"), "{text}");
    }

    #[test]
    fn bodies_merge_line_by_line() {
        let base = format!("{BASE}\nSecond.\n");
        let ours = base.replace("Body.", "Body, ours.");
        let theirs = base.replace("Second.", "Second, theirs.");
        let (text, conflicts) = run(&base, &ours, &theirs);
        assert!(conflicts.is_empty());
        assert!(
            text.ends_with("\nBody, ours.\n\nSecond, theirs.\n"),
            "{text}"
        );
    }

    #[test]
    fn a_side_without_readable_front_matter_is_left_to_the_line_merge() {
        assert!(merge(BASE, "no front matter\n", BASE, &Markers::default()).is_none());
        assert!(merge(BASE, "---\ntitle: [\n---\n", BASE, &Markers::default()).is_none());
        assert!(merge(BASE, "---\na: 1\na: 2\n---\n", BASE, &Markers::default()).is_none());
    }
}
