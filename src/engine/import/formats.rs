//! The markdown formats: Claude Code memory, Cline / Roo / Kilo memory
//! banks, basic-memory notes, Cursor rules and Kiro steering files. Each
//! file becomes one item; what it becomes is documented, kind by kind, in
//! docs/importing.md.

use super::front::{self, Front};
use super::item::{date_of, first_heading, first_line, one_line, stem_words, Item, Rec, What};
use crate::model::kind::Kind;
// Each file is read on its own: in parallel, in order.
use rayon::prelude::*;

/// The longest title a record may have.
pub(crate) const TITLE_MAX: usize = 120;
/// The longest description memlint writes (the rules allow 1024).
const DESCRIPTION_MAX: usize = 1000;

/// Claude Code memory: `MEMORY.md` (an index, or memory itself) and topic
/// files with `name`, `description` and `type`.
pub(crate) fn claude(files: &[(String, String)]) -> Vec<Item> {
    let names: Vec<&str> = files.iter().map(|(r, _)| r.as_str()).collect();
    // What each index says of the topic files it lists.
    let mut indexed: std::collections::HashMap<String, String> = Default::default();
    for (rel, text) in files {
        if file_name(rel) == "MEMORY.md" {
            for (target, desc) in index_lines(rel, text) {
                indexed.insert(target, desc);
            }
        }
    }
    files
        .par_iter()
        .map(|(rel, text)| {
            let f = front::read(text);
            if file_name(rel) == "MEMORY.md" {
                if let Some(n) = index_only(rel, &f.body, &names) {
                    return item(
                        rel,
                        What::Skip(format!(
                            "the index of {n} topic file(s), each imported on its own"
                        )),
                        &f,
                    );
                }
            }
            let kind_word = f.text("type").or_else(|| f.text("metadata.type"));
            let mut rec = Rec::new(
                Kind::Knowledge,
                title(
                    &[f.text("name"), f.text("title"), first_heading(&f.body)],
                    rel,
                ),
                f.body.clone(),
            );
            rec.slug_from = slug_words(&rec.title, rel);
            rec.resident = file_name(rel) == "MEMORY.md"
                || file_name(rel) == "CLAUDE.md"
                || matches!(kind_word.as_deref(), Some("user" | "feedback"));
            rec.description = f
                .text("description")
                .or_else(|| indexed.get(rel).cloned())
                .or_else(|| first_line(&f.body));
            rec.tags = kind_word.iter().cloned().collect();
            keep_front(
                &mut rec,
                &f,
                &["name", "description", "type", "metadata.type"],
            );
            item(rel, What::Record(rec), &f)
        })
        .collect()
}

/// The (target, description) of each `- [label](file.md) — description`
/// line of an index at `rel`, the target root-relative.
fn index_lines(rel: &str, text: &str) -> Vec<(String, String)> {
    let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
    text.lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("- [")?;
            let (_, rest) = l.split_once("](")?;
            let (target, desc) = rest.split_once(')')?;
            let desc = desc.trim().trim_start_matches(['—', '-', ':', '–']).trim();
            let target = match dir {
                "" => target.to_string(),
                d => format!("{d}/{target}"),
            };
            Some((target, desc.to_string()))
        })
        .collect()
}

/// When `body` (the index at `rel`) holds nothing but headings and links
/// to files imported along with it: how many it lists.
fn index_only(rel: &str, body: &str, names: &[&str]) -> Option<usize> {
    let links = index_lines(rel, body);
    let listed = |l: &str| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#') || {
            links
                .iter()
                .any(|(t, _)| l.starts_with("- [") && l.contains(file_name(t)))
        }
    };
    let all = body.lines().all(listed);
    let found = links.iter().all(|(t, _)| names.contains(&t.as_str()));
    (all && found && !links.is_empty()).then_some(links.len())
}

/// A Cline, Roo or Kilo memory bank.
pub(crate) fn memory_bank(files: &[(String, String)]) -> Vec<Item> {
    files
        .par_iter()
        .map(|(rel, text)| {
            let f = front::read(text);
            let stem = stem_words(rel).to_lowercase().replace(' ', "");
            let in_tasks = rel.contains("/tasks/") || rel.starts_with("tasks/");
            let kind = match stem.as_str() {
                "decisionlog" => Kind::Decision,
                _ if in_tasks && !stem.starts_with('_') && stem != "readme" => Kind::Request,
                _ => Kind::Knowledge,
            };
            let mut rec = Rec::new(
                kind,
                title(&[f.text("title"), first_heading(&f.body)], rel),
                f.body.clone(),
            );
            rec.slug_from = slug_words(&rec.title, rel);
            rec.resident = matches!(stem.as_str(), "projectbrief" | "brief");
            rec.description = f.text("description").or_else(|| first_line(&f.body));
            rec.done = rel.to_lowercase().contains("/completed/")
                || status_line(&f.body).is_some_and(|s| {
                    let s = s.to_lowercase();
                    s.starts_with("complete") || s.starts_with("done")
                });
            rec.date = field_line(&f.body, "Added").map(|d| (d, "its `Added:` line".into()));
            keep_front(&mut rec, &f, &["title", "description"]);
            let what = match stem.as_str() {
                "activecontext" | "context" => What::Block(rec),
                _ => What::Record(rec),
            };
            item(rel, what, &f)
        })
        .collect()
}

/// basic-memory notes: `title`, `type`, `permalink`, `tags`,
/// observations and `[[relations]]`.
pub(crate) fn basic_memory(files: &[(String, String)]) -> Vec<Item> {
    files
        .par_iter()
        .map(|(rel, text)| {
            let f = front::read(text);
            let kind = match f.text("type").as_deref() {
                Some("decision") => Kind::Decision,
                _ => Kind::Knowledge,
            };
            let mut rec = Rec::new(
                kind,
                title(&[f.text("title"), first_heading(&f.body)], rel),
                f.body.clone(),
            );
            rec.slug_from = slug_words(&rec.title, rel);
            rec.description = f.text("description").or_else(|| first_line(&f.body));
            rec.tags = f.get("tags").map(|t| t.list()).unwrap_or_default();
            rec.date = ["date", "created"]
                .iter()
                .find_map(|k| {
                    f.text(k)
                        .and_then(|v| date_of(&v))
                        .map(|d| (d, format!("front matter `{k}`")))
                })
                .or_else(|| field_line(&f.body, "Date").map(|d| (d, "its `Date:` line".into())));
            rec.links = wiki_links(&f.body);
            rec.names = [f.text("title"), f.text("permalink"), Some(stem_words(rel))]
                .into_iter()
                .flatten()
                .chain(f.get("aliases").map(|a| a.list()).unwrap_or_default())
                .collect();
            rec.names
                .push(file_name(rel).trim_end_matches(".md").to_string());
            keep_front(
                &mut rec,
                &f,
                &["title", "type", "tags", "date", "created", "description"],
            );
            item(rel, What::Record(rec), &f)
        })
        .collect()
}

/// Cursor rules (`.mdc`): `alwaysApply: true` rules become resident
/// knowledge.
pub(crate) fn cursor(files: &[(String, String)]) -> Vec<Item> {
    rules(
        files,
        |f| f.text("alwaysApply").as_deref() == Some("true"),
        &["description", "alwaysApply"],
    )
}

/// Kiro steering files: `inclusion: always` (the default) become resident
/// knowledge.
pub(crate) fn kiro(files: &[(String, String)]) -> Vec<Item> {
    rules(
        files,
        |f| matches!(f.text("inclusion").as_deref(), None | Some("always")),
        &["description", "inclusion"],
    )
}

fn rules(files: &[(String, String)], always: fn(&Front) -> bool, known: &[&str]) -> Vec<Item> {
    files
        .par_iter()
        .map(|(rel, text)| {
            let f = front::read(text);
            let mut rec = Rec::new(
                Kind::Knowledge,
                title(&[f.text("title"), first_heading(&f.body)], rel),
                f.body.clone(),
            );
            rec.slug_from = slug_words(&rec.title, rel);
            rec.resident = always(&f);
            rec.description = f.text("description").or_else(|| first_line(&f.body));
            keep_front(&mut rec, &f, known);
            item(rel, What::Record(rec), &f)
        })
        .collect()
}

fn item(rel: &str, what: What, f: &Front) -> Item {
    Item {
        input: rel.to_string(),
        file: rel.to_string(),
        what,
        notes: f.note.iter().cloned().collect(),
    }
}

fn file_name(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// The first of `candidates` that is not empty, else the file's stem in
/// words, as a title of at most [`TITLE_MAX`] characters.
pub(crate) fn title(candidates: &[Option<String>], rel: &str) -> String {
    let t = candidates
        .iter()
        .flatten()
        .map(|t| one_line(t, usize::MAX))
        .find(|t| !t.is_empty())
        .unwrap_or_else(|| stem_words(rel));
    let t = match t.is_empty() {
        true => file_name(rel).to_string(),
        false => t,
    };
    one_line(&t, TITLE_MAX)
}

/// What to make a slug from: the title, else the file's stem.
fn slug_words(title: &str, rel: &str) -> Vec<String> {
    vec![title.to_string(), stem_words(rel)]
}

/// Settles the description as one line, and keeps the front matter the
/// record has no key for at the end of its body, so nothing is lost.
fn keep_front(rec: &mut Rec, f: &Front, known: &[&str]) {
    rec.description = rec
        .description
        .as_deref()
        .map(|d| one_line(d, DESCRIPTION_MAX))
        .filter(|d| !d.is_empty())
        .or_else(|| Some(rec.title.clone()));
    let other = f.other_keys(known);
    let Some(raw) = &f.raw else { return };
    if other.is_empty() && f.note.is_none() {
        return;
    }
    rec.body = format!(
        "{}\n\n<details>\n<summary>Front matter of the imported file</summary>\n\n{}\n</details>\n",
        rec.body.trim_end(),
        fenced(raw.trim_end(), "yaml")
    );
}

/// `text` in a code fence longer than any backtick run it holds.
pub(crate) fn fenced(text: &str, lang: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{lang}\n{text}\n{fence}\n")
}

/// The targets of the `[[wiki links]]` of `body`, in order, once each.
pub(crate) fn wiki_links(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find("[[") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find("]]") else { break };
        let target = rest[..end].split('|').next().unwrap_or_default().trim();
        if !target.is_empty() && !target.contains('\n') && !out.iter().any(|t| t == target) {
            out.push(target.to_string());
        }
        rest = &rest[end + 2..];
    }
    out
}

/// The value of a `**Status:**` / `Status:` line.
fn status_line(body: &str) -> Option<String> {
    line_value(body, "Status")
}

/// The date of a `- Date: YYYY-MM-DD` / `**Added:** YYYY-MM-DD` line.
fn field_line(body: &str, name: &str) -> Option<String> {
    line_value(body, name).and_then(|v| date_of(&v))
}

fn line_value(body: &str, name: &str) -> Option<String> {
    body.lines().take(40).find_map(|l| {
        let l = l.trim().trim_start_matches(['-', '*', ' ']);
        let rest = l.strip_prefix(name)?;
        let rest = rest.trim_start_matches(['*', ' ']).strip_prefix(':')?;
        Some(rest.trim_start_matches(['*', ' ']).trim().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_lines() {
        assert_eq!(
            wiki_links("- relates_to [[A Note]] and [[B|b]] [[A Note]]"),
            vec!["A Note", "B"]
        );
        assert_eq!(
            field_line("**Added:** 2025-09-10  \n", "Added").as_deref(),
            Some("2025-09-10")
        );
        assert_eq!(
            status_line("**Status:** Completed  \n").as_deref(),
            Some("Completed")
        );
        assert_eq!(fenced("a ``` b", "yaml"), "````yaml\na ``` b\n````\n");
    }
}
