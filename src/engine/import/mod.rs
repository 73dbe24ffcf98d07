//! `memlint import FORMAT PATH…`: memory kept in another tool's format
//! taken in as records, every input item accounted for in the report.
//!
//! Each file (each issue of a beads file) is read inside the workspace
//! root only, up to a limit; one that holds a secret is skipped whole.
//! What it becomes is laid out as `memlint new` lays out a record, dated
//! from the source, else from the commit that added the file, else today,
//! with a `file:` (and `commit:`) source pointing back; every record is
//! linted as it would be on disk and one with an error is not written.
//! A record that holds this item's source already is this item's earlier
//! import: a second run writes nothing.

pub(crate) mod beads;
pub(crate) mod dates;
pub(crate) mod formats;
pub(crate) mod front;
pub(crate) mod item;
pub(crate) mod plan;
pub(crate) mod plan_context;
pub(crate) mod read;
pub(crate) mod report;

use crate::model::workspace::Workspace;
use item::{Item, What};
use read::Found;
pub(crate) use report::{Entry, ImportError, Options, Outcome, Report, Summary};
use std::path::PathBuf;

/// The formats `memlint import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Claude Code memory: `MEMORY.md` and topic files.
    Claude,
    /// A Cline, Roo or Kilo memory bank.
    MemoryBank,
    /// basic-memory notes.
    BasicMemory,
    /// beads: `.beads/issues.jsonl`.
    Beads,
    /// Cursor rules: `.cursor/rules/*.mdc`.
    Cursor,
    /// Kiro steering files: `.kiro/steering/*.md`.
    Kiro,
}

impl Format {
    /// The name typed on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Claude => "claude",
            Format::MemoryBank => "memory-bank",
            Format::BasicMemory => "basic-memory",
            Format::Beads => "beads",
            Format::Cursor => "cursor",
            Format::Kiro => "kiro",
        }
    }

    /// Whether a file of this name is an input of the format, and how the
    /// report names the files that are.
    fn wanted(self, rel: &str) -> bool {
        match self {
            Format::Beads => rel.ends_with(".jsonl"),
            Format::Cursor => rel.ends_with(".mdc") || rel.ends_with(".md"),
            _ => rel.ends_with(".md"),
        }
    }

    fn files(self) -> &'static str {
        match self {
            Format::Beads => "a beads issues file (.jsonl)",
            Format::Cursor => "a Cursor rule (.mdc or .md)",
            _ => "a markdown file (.md)",
        }
    }
}

/// Imports the `paths` (files or directories inside the workspace root)
/// as `format`, dated `today` where nothing older says when.
pub(crate) fn import(
    ws: &Workspace,
    format: Format,
    paths: &[PathBuf],
    opts: &Options,
    today: &str,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Result<Report, ImportError> {
    let found = read::collect(ws, paths, &|rel| format.wanted(rel), format.files())?;
    let items = items(ws, format, found);
    let mut report = plan::settle(ws, items, opts, today, problems)?;
    report.format = format.name();
    report.summary = summarize(&report.items);
    Ok(report)
}

/// The items of the files found: read, checked for secrets, and parsed.
fn items(ws: &Workspace, format: Format, found: Vec<Found>) -> Vec<Item> {
    use rayon::prelude::*;
    let limit = ws.config.max_file_bytes;
    let mut items: Vec<Item> = Vec::new();
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut notes: std::collections::HashMap<String, String> = Default::default();
    let refused = |rel: &str, why: String| Item {
        input: rel.to_string(),
        file: rel.to_string(),
        what: What::Refuse(why),
        notes: Vec::new(),
    };
    // Read and searched for secrets in parallel.
    type Read = (Found, Option<Result<String, String>>, Option<&'static str>);
    let read: Vec<Read> = found
        .into_par_iter()
        .map(|f| {
            let text = match (&f, format) {
                (Found::File { open, .. }, f) if f != Format::Beads => {
                    Some(read::text(open, limit))
                }
                _ => None,
            };
            let secret = match &text {
                Some(Ok(t)) => crate::syntax::secrets::find(t)
                    .first()
                    .map(|(_, what)| *what),
                _ => None,
            };
            (f, text, secret)
        })
        .collect();
    for (f, text, secret) in read {
        if let Found::File { rel, .. } = &f {
            if let Some((_, what)) = crate::syntax::secrets::find(rel).first() {
                items.push(refused(
                    rel,
                    format!("its path holds what looks like {what}, which its record's `file:` source would repeat; skipped whole (rename the file to import it)"),
                ));
                continue;
            }
        }
        match f {
            Found::Skipped { rel, reason } => {
                let problem = !reason.starts_with("not ") && !reason.starts_with("inside memlint");
                items.push(match problem {
                    true => refused(&rel, reason),
                    false => skipped(&rel, reason),
                });
            }
            Found::File { rel, open } if format == Format::Beads => {
                match beads::read(&rel, &open, limit as usize) {
                    Ok(found) => items.extend(found),
                    Err(why) => items.push(refused(&rel, why)),
                }
            }
            Found::File { rel, .. } => match text {
                Some(Ok(text)) => {
                    if let Some(what) = secret {
                        items.push(refused(
                            &rel,
                            format!("holds what looks like {what}; skipped whole (never written, never shown)"),
                        ));
                        continue;
                    }
                    let (text, had_block) = read::without_own_block(&text);
                    if had_block {
                        notes.insert(
                            rel.clone(),
                            "memlint's own block (`memlint export agents-md`) was left out".into(),
                        );
                    }
                    texts.push((rel, text));
                }
                Some(Err(why)) => items.push(refused(&rel, why)),
                None => items.push(refused(&rel, "cannot be read".into())),
            },
        }
    }
    let mut parsed = match format {
        Format::Claude => formats::claude(&texts),
        Format::MemoryBank => formats::memory_bank(&texts),
        Format::BasicMemory => formats::basic_memory(&texts),
        Format::Cursor => formats::cursor(&texts),
        Format::Kiro => formats::kiro(&texts),
        Format::Beads => Vec::new(),
    };
    for item in &mut parsed {
        if let Some(n) = notes.remove(&item.file) {
            item.notes.push(n);
        }
    }
    items.extend(parsed);
    items.sort_by(|a, b| {
        a.file
            .cmp(&b.file)
            .then_with(|| natural(&a.input, &b.input))
    });
    items
}

/// Orders `a.jsonl#x-2` before `a.jsonl#x-10`; otherwise by text.
fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    let num = |s: &str| {
        let digits: String = s.chars().rev().take_while(|c| c.is_ascii_digit()).collect();
        let n: u64 = digits
            .chars()
            .rev()
            .collect::<String>()
            .parse()
            .unwrap_or(0);
        (s[..s.len() - digits.len()].to_string(), n)
    };
    num(a).cmp(&num(b)).then_with(|| a.cmp(b))
}

fn skipped(rel: &str, why: String) -> Item {
    Item {
        input: rel.to_string(),
        file: rel.to_string(),
        what: What::Skip(why),
        notes: Vec::new(),
    }
}

fn summarize(items: &[Entry]) -> Summary {
    let mut s = Summary {
        items: items.len(),
        ..Summary::default()
    };
    for e in items {
        match e.outcome {
            Outcome::Written | Outcome::WouldWrite => s.written += 1,
            Outcome::Unchanged => s.unchanged += 1,
            Outcome::Changed => s.changed += 1,
            Outcome::Skipped => s.skipped += 1,
            Outcome::Refused => s.refused += 1,
        }
    }
    s
}
