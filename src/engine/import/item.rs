//! What an import reads out of its input: one item per file (per issue
//! for beads), each to become a record, a `CONTEXT.md` block, or nothing
//! with a reason.

use crate::model::kind::Kind;

/// One input item and what the format makes of it.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// How the report names it: the root-relative path, and for an issue
    /// of a beads file its id (`.beads/issues.jsonl#bd-12`).
    pub input: String,
    /// The root-relative path of the file it came from.
    pub file: String,
    pub what: What,
    /// What the report should say about it besides its outcome.
    pub notes: Vec<String>,
}

/// What an item becomes.
#[derive(Debug, Clone)]
pub(crate) enum What {
    /// A record.
    Record(Rec),
    /// A block of `CONTEXT.md` (the working context), headed by the
    /// record's date and title.
    Block(Rec),
    /// Nothing, by design, for the reason given (an index, a deleted
    /// issue, a file not of the format).
    Skip(String),
    /// Nothing, because of a problem with it (a secret, unreadable, too
    /// large, a link out of the root).
    Refuse(String),
}

/// A record to be: what the format read, before slugs, dates and sources
/// are settled.
#[derive(Debug, Clone)]
pub(crate) struct Rec {
    pub kind: Kind,
    pub title: String,
    /// Texts to make the slug from, the first that gives one winning.
    pub slug_from: Vec<String>,
    /// Knowledge: the line injected at session start when resident.
    pub description: Option<String>,
    /// Knowledge: `model_invocation: true`.
    pub resident: bool,
    /// Request: `status: done` rather than `open`.
    pub done: bool,
    pub body: String,
    pub tags: Vec<String>,
    /// The date the source itself gives, and where it says so
    /// (`front matter date`).
    pub date: Option<(String, String)>,
    /// What other items may call this one by (a title, a file stem, a
    /// beads id as `beads:<id>`).
    pub names: Vec<String>,
    /// Names of other items this one links to (`[[Title]]`, a beads
    /// dependency).
    pub links: Vec<String>,
    /// A line a record must hold, besides the source, to be this item's
    /// earlier import (a beads issue's id line).
    pub marker: Option<String>,
}

impl Rec {
    /// A record of `kind` titled `title` with `body`.
    pub(crate) fn new(kind: Kind, title: String, body: String) -> Rec {
        Rec {
            kind,
            slug_from: vec![title.clone()],
            title,
            description: None,
            resident: false,
            done: false,
            body,
            tags: Vec::new(),
            date: None,
            names: Vec::new(),
            links: Vec::new(),
            marker: None,
        }
    }
}

/// An item's date and where it came from (`source`, `git`, `today`),
/// with the commit that gave it.
pub(crate) struct Dated {
    pub date: String,
    pub from: &'static str,
    pub note: String,
    pub commit: Option<String>,
}

/// The first `YYYY-MM-DD` a date or timestamp value starts with.
pub(crate) fn date_of(value: &str) -> Option<String> {
    let v = value.trim().trim_matches(['"', '\'']);
    let d = v.get(..10)?;
    crate::model::kind::is_date(d).then(|| d.to_string())
}

/// The first level-1 heading of a markdown body, outside code.
pub(crate) fn first_heading(body: &str) -> Option<String> {
    let mut fence = false;
    for line in body.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
        }
        if !fence {
            if let Some(h) = line.strip_prefix("# ") {
                let h = h.trim().trim_end_matches('#').trim();
                if !h.is_empty() {
                    return Some(h.to_string());
                }
            }
        }
    }
    None
}

/// The first line of prose of a body (no heading, no fence, no table, no
/// front matter), its list and emphasis markers taken off: a knowledge
/// record's description when its source gives none.
pub(crate) fn first_line(body: &str) -> Option<String> {
    let mut fence = false;
    for line in body.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            continue;
        }
        if fence || t.is_empty() || t.starts_with('#') || t.starts_with('|') || t == "---" {
            continue;
        }
        if t.starts_with("<!--") || t.starts_with('<') {
            continue;
        }
        let t = t.trim_start_matches(['-', '*', '>', ' ']).trim();
        let t = t.replace("**", "");
        if !t.is_empty() {
            return Some(t);
        }
    }
    None
}

/// A file name's stem as words: `productContext.md` → `product Context`,
/// `feedback_testing.md` → `feedback testing`. What looks like a
/// credential in the name is left out (a title and a slug are printed,
/// committed and pushed): `AKIA…-notes.md` → `notes`.
pub(crate) fn stem_words(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let mut name = name.to_string();
    for (range, _) in crate::syntax::secrets::find(&name).iter().rev() {
        name.replace_range(range.clone(), " ");
    }
    let stem = name.split('.').next().unwrap_or(&name);
    let mut out = String::new();
    let mut prev_lower = false;
    for c in stem.chars() {
        if c.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.push(if matches!(c, '_' | '-') { ' ' } else { c });
    }
    out.trim().to_string()
}

/// `text` as one line of at most `max` characters: control characters as
/// spaces, runs of spaces as one, cut with `…`.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let c = if c.is_control() { ' ' } else { c };
        if c == ' ' && (out.is_empty() || out.ends_with(' ')) {
            continue;
        }
        out.push(c);
    }
    let out = out.trim_end();
    if out.chars().count() <= max {
        return out.to_string();
    }
    let cut: String = out.chars().take(max - 1).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(stem_words("a/productContext.md"), "product Context");
        assert_eq!(stem_words("feedback_testing.md"), "feedback testing");
        assert_eq!(stem_words("c/AKIAIOSFODNN7EXAMPLE-notes.md"), "notes");
        assert_eq!(
            date_of("2026-01-15T09:59:05Z").as_deref(),
            Some("2026-01-15")
        );
        assert_eq!(date_of("soon"), None);
        assert_eq!(one_line("a\n\nb  c", 120), "a b c");
        assert_eq!(one_line("abcdef", 4), "abc…");
        assert_eq!(
            first_line("# T\n\n- **Big** thing\n").as_deref(),
            Some("Big thing")
        );
    }
}
