//! `memlint merge-file`: git's merge driver for memory files
//! (`merge.memlint.driver`, registered by `memlint init --merge`).
//!
//! `CONTEXT.md` is merged as a set of blocks (`context`), a record key by
//! key with its body line by line (`record`), and the result of a clean
//! merge is formatted canonically and must parse. Anything else, or
//! anything memlint cannot merge by its structure, is merged line by line
//! as git would (`lines`); binary content is left as ours, a conflict.
//! A structured merge that would lose a line (one either side added, or
//! one both sides kept: a comment, an item, a key) falls back to the line
//! merge, and a clean line merge that would lose one is a conflict of the
//! whole file, so that a bug here costs a conflict, never a line.

pub(crate) mod context;
pub(crate) mod install;
pub(crate) mod lines;
mod list;
pub(crate) mod record;

pub use lines::Markers;

use crate::model::kind::{classify, Kind, Place};
use crate::model::workspace::Workspace;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The most the merge driver reads of each side: git's own
/// `core.bigFileThreshold`, above which git treats a file as binary.
const MERGE_MAX_BYTES: u64 = 512 << 20;

/// A merge's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merge {
    /// The merged text (with conflict markers where there are conflicts).
    pub bytes: Vec<u8>,
    /// What conflicts, in words (`the key \`title\``); empty when clean.
    pub conflicts: Vec<String>,
}

/// How a file was merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// `CONTEXT.md`, block by block.
    Blocks,
    /// A record, key by key and its body line by line.
    Keys,
    /// Line by line, as git merges text.
    Lines,
    /// Not text: ours is kept, as a conflict.
    Binary,
}

/// What [`merge`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The result.
    pub merge: Merge,
    /// How it was merged.
    pub how: How,
    /// Why a structured merge fell back to the line merge, if it did.
    pub fallback: Option<String>,
}

/// What kind of memory file a path is, for the merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    /// `CONTEXT.md`.
    Context,
    /// A record of this kind.
    Record(Kind),
    /// Anything else: merged line by line.
    Other,
}

/// Merges three versions of a file of kind `what`. Never fails: what
/// cannot be merged by its structure is merged line by line.
pub fn merge(
    what: What,
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    markers: &Markers,
    max_bytes: u64,
) -> Outcome {
    let texts =
        [base, ours, theirs].map(|b| std::str::from_utf8(b).ok().filter(|t| !t.contains('\0')));
    let [Some(b), Some(o), Some(t)] = texts else {
        return Outcome {
            merge: Merge {
                bytes: ours.to_vec(),
                conflicts: vec!["binary content (ours is kept)".into()],
            },
            how: How::Binary,
            fallback: None,
        };
    };
    let too_large = [base, ours, theirs]
        .iter()
        .any(|s| s.len() as u64 > max_bytes);
    let structured = match what {
        _ if too_large => Err(format!(
            "a side has more than {max_bytes} bytes (max_file_bytes)"
        )),
        What::Other => Err(String::new()),
        What::Context | What::Record(_) => {
            // Line endings are the formatter's business; compared as LF.
            let lf = |s: &str| s.replace("\r\n", "\n");
            let (b, o, t) = (lf(b), lf(o), lf(t));
            structured(what, &b, &o, &t, markers)
        }
    };
    match structured {
        Ok((merge, how)) => Outcome {
            merge,
            how,
            fallback: None,
        },
        Err(why) => {
            let (mut bytes, conflict) = lines::merge(base, ours, theirs, markers);
            let mut conflicts = match conflict {
                true => vec!["lines changed on both sides".to_string()],
                false => Vec::new(),
            };
            if what != What::Other && !conflict {
                if let Err(lost) = keeps_lines(b, o, t, &bytes) {
                    // git's line merge can drop a line both sides kept (a
                    // repeated line matched differently): both sides whole.
                    bytes = lines::conflict(o, t, markers).into_bytes();
                    conflicts = vec![format!("the line merge {lost}")];
                }
            }
            Outcome {
                merge: Merge { bytes, conflicts },
                how: How::Lines,
                fallback: (!why.is_empty()).then_some(why),
            }
        }
    }
}

/// The merge by structure, or why there is none.
fn structured(
    what: What,
    base: &str,
    ours: &str,
    theirs: &str,
    markers: &Markers,
) -> Result<(Merge, How), String> {
    let (merged, how) = match what {
        What::Context => (
            context::merge(base, ours, theirs, markers).ok_or(
                "a side cannot be cut into blocks (text between blocks, or a repeated heading)",
            )?,
            How::Blocks,
        ),
        What::Record(kind) => {
            let mut merged = record::merge(base, ours, theirs, markers)
                .ok_or("a side's front matter cannot be read")?;
            if merged.conflicts.is_empty() {
                merged.bytes = canonical(&merged.bytes, kind)?;
            }
            (merged, How::Keys)
        }
        What::Other => return Err(String::new()),
    };
    keeps_lines(base, ours, theirs, &merged.bytes)
        .map_err(|lost| format!("the structured merge {lost}"))?;
    Ok((merged, how))
}

/// A clean record merge, formatted canonically; an error when the result
/// does not parse.
fn canonical(bytes: &[u8], kind: Kind) -> Result<Vec<u8>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "the result is not UTF-8")?;
    let text = match crate::fmt::format_record(text, kind) {
        crate::fmt::Outcome::Formatted(t) => t,
        _ => text.to_string(),
    };
    let crate::syntax::frontmatter::Split::Found(parts) = crate::syntax::frontmatter::split(&text)
    else {
        return Err("the merged front matter is not delimited".into());
    };
    let doc = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start)
        .map_err(|e| format!("the merged front matter does not parse: {}", e.message))?;
    if !doc.duplicates.is_empty() {
        return Err("the merged front matter repeats a key".into());
    }
    Ok(text.into_bytes())
}

/// What a merge must keep, with how many times it occurs: each line's
/// text without surrounding white space and without a list item's `- `,
/// a flow list (`tags: [a, b]`) as its key and each item (split at the
/// commas outside quotes), and a comment (from ` #`, or a whole comment
/// line) paired with the code it goes with: the code on its line, or for a
/// comment line the next line's code, a flow list's code being its key,
/// since the merge and the formatter may rewrite a list between the two
/// forms and move a comment from after its `]` to after its key. Pairing
/// and counting keep a comment that ours added or changed at one place
/// from being taken for the same text theirs has at another.
fn units<'t>(text: &'t str) -> HashMap<(&'t str, &'t str), usize> {
    let mut out = HashMap::new();
    let mut add = |at: &'t str, unit: &'t str| {
        let unit = unit.trim();
        if !unit.is_empty() {
            *out.entry((at, unit)).or_insert(0) += 1;
        }
    };
    let mut pending: Vec<&str> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let line = line.strip_prefix("- ").unwrap_or(line).trim_start();
        if line.starts_with('#') {
            pending.push(line);
            continue;
        }
        let (code, comment) = line
            .find(" #")
            .map_or((line, ""), |at| (&line[..at], &line[at + 1..]));
        let code = code.trim_end();
        if code.is_empty() {
            continue;
        }
        let flow = code
            .strip_suffix(']')
            .and_then(|c| c.split_once(": ["))
            .filter(|(key, _)| !key.is_empty() && !key.contains(' '));
        let anchor = match flow {
            Some((key, items)) => {
                let key = &code[..key.len() + 1];
                add("", key);
                for item in flow_items(items) {
                    add("", item);
                }
                key
            }
            None => {
                add("", code);
                code
            }
        };
        add(anchor, comment);
        for c in pending.drain(..) {
            add(anchor, c);
        }
    }
    for c in pending {
        add("", c);
    }
    out
}

/// The items of a flow list's inside (`a, 'b,c', "d"`), split at the
/// commas outside single and double quotes.
fn flow_items(inside: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut from, mut quote, mut escaped) = (0, None, false);
    for (i, c) in inside.char_indices() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == ',' => {
                out.push(inside[from..i].trim());
                from = i + 1;
            }
            None => {}
        }
    }
    out.push(inside[from..].trim());
    out
}

/// An error (saying which line) unless `merged` holds every line of ours
/// and theirs but those one side removed from the base: every line either
/// side added, and every line both sides kept (comments included), as
/// many times as the sides hold it. Compared as [`units`].
fn keeps_lines(base: &str, ours: &str, theirs: &str, merged: &[u8]) -> Result<(), String> {
    let merged = String::from_utf8_lossy(merged);
    let have = units(&merged);
    let (b, o, t) = (units(base), units(ours), units(theirs));
    let count = |m: &HashMap<(&str, &str), usize>, u: &(&str, &str)| m.get(u).copied().unwrap_or(0);
    let mut lost: Vec<&(&str, &str)> = o
        .keys()
        .chain(t.keys())
        .filter(|u| {
            let (cb, co, ct) = (count(&b, u), count(&o, u), count(&t, u));
            let need = cb.min(co).min(ct) + co.saturating_sub(cb).max(ct.saturating_sub(cb));
            count(&have, u) < need
        })
        .collect();
    lost.sort();
    match lost.first() {
        Some(("", line)) => Err(format!("would lose the line `{line}`")),
        Some((at, line)) => Err(format!("would lose the line `{line}` (with `{at}`)")),
        None => Ok(()),
    }
}

/// The files git gives a merge driver.
#[derive(Debug, Clone)]
pub(crate) struct Files {
    /// `%O`: the common ancestor's version.
    pub base: PathBuf,
    /// `%A`: ours, where the result is written.
    pub ours: PathBuf,
    /// `%B`: theirs.
    pub theirs: PathBuf,
    /// `%P`: the path of the file in the repository, relative to `cwd`.
    pub path: Option<PathBuf>,
    /// The directory git runs the driver in (the work tree's top).
    pub cwd: PathBuf,
}

/// Why [`merge_file`] could not run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MergeError {
    /// A side could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The result could not be written to `%A`.
    #[error("cannot write the result to {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Runs the merge driver: reads `%O`, `%A` and `%B`, merges them as the
/// kind of file `%P` is, and writes the result to `%A` atomically (a
/// failed run leaves `%A` as it was).
pub(crate) fn merge_file(files: &Files, markers: &Markers) -> Result<(Outcome, What), MergeError> {
    let read = |p: &Path| {
        crate::io::fs::read_regular(p, MERGE_MAX_BYTES).map_err(|source| MergeError::Read {
            path: p.display().to_string(),
            source,
        })
    };
    let (base, ours, theirs) = (read(&files.base)?, read(&files.ours)?, read(&files.theirs)?);
    // Only the size limit is wanted: no environment is read.
    let at = crate::engine::workspace::Surroundings {
        cwd: &files.cwd,
        env: &|_| None,
    };
    let ws = crate::engine::workspace::load(&at, Some(&files.cwd), None).ok();
    let max_bytes = ws.as_ref().map_or(
        crate::model::config::Config::default().max_file_bytes,
        |w| w.config.max_file_bytes,
    );
    let what = files
        .path
        .as_deref()
        .map_or(What::Other, |p| what(ws.as_ref(), &files.cwd, p));
    let outcome = merge(what, &base, &ours, &theirs, markers, max_bytes);
    if outcome.merge.bytes != ours {
        crate::io::fs::write_atomic(&files.ours, &outcome.merge.bytes).map_err(|source| {
            MergeError::Write {
                path: files.ours.display().to_string(),
                source,
            }
        })?;
    }
    Ok((outcome, what))
}

/// What kind of memory file `path` (relative to `cwd`) is.
fn what(ws: Option<&Workspace>, cwd: &Path, path: &Path) -> What {
    let abs = crate::io::walk::normalize(&cwd.join(path));
    let (rel, banned) = match ws {
        Some(ws) => match crate::io::walk::relative(ws, &abs) {
            Some(rel) => (rel, ws.config.banned_dirs.clone()),
            None => return What::Other,
        },
        None => (
            path.to_string_lossy().replace('\\', "/"),
            crate::model::config::Config::default().banned_dirs,
        ),
    };
    match classify(&rel, &banned) {
        Place::Context => What::Context,
        Place::Record(kind) => What::Record(kind),
        _ => What::Other,
    }
}
