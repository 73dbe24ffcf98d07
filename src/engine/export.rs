//! `memlint export agents-md`: the memory handed to agents that read only
//! `AGENTS.md` (or `CLAUDE.md`, `GEMINI.md`,
//! `.github/copilot-instructions.md`), as a block between
//! `<!-- memlint:begin -->` and `<!-- memlint:end -->`: where memory lives
//! and how to save it, the resident knowledge, the active decisions,
//! within a character budget, masked and framed as `context` frames
//! records. Everything outside the markers stays byte for byte; a file
//! with merge conflict markers is never written. `context/export-stale`
//! reports a block that no longer matches the records.

use crate::io::fs::{
    replace_if_unchanged, resolve_inside, write_new, Replaced, Resolved, Snapshot,
};
use crate::model::workspace::Workspace;
use crate::store::material::Material;
use crate::syntax::framing::{quote_line, PREFACE};
use std::path::Path;

/// The opening marker of the managed block.
pub(crate) const BEGIN: &str = "<!-- memlint:begin -->";
/// The closing marker.
pub(crate) const END: &str = "<!-- memlint:end -->";
/// The files the block may live in, the default first.
pub(crate) const TARGETS: [&str; 4] = [
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    ".github/copilot-instructions.md",
];

/// Why an export wrote nothing.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ExportError {
    /// The file named is not one the block is written to (exit 2).
    #[error("{}", unknown_file(&crate::engine::advice::Name::File.to_string(), .file))]
    UnknownFile { file: String },
    /// The file cannot take the block as it is (exit 1): conflict
    /// markers, markers out of order, not UTF-8, too large.
    #[error("{path}: {why}")]
    Refused { path: String, why: String },
    /// Another program changed the file meanwhile (exit 1).
    #[error(
        "{0} changed while memlint was writing it; nothing was written (run the command again)"
    )]
    Changed(String),
    /// Writing failed (exit 2).
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl ExportError {
    /// The message, with what it names in a front end's `names` (the
    /// error's [`std::fmt::Display`] uses neutral ones).
    pub(crate) fn text(&self, names: crate::engine::advice::Names) -> String {
        match self {
            ExportError::UnknownFile { file } => {
                unknown_file(&names(&crate::engine::advice::Name::File), file)
            }
            other => other.to_string(),
        }
    }
}

fn unknown_file(name: &str, file: &str) -> String {
    format!(
        "{name} {file}: the block is written to one of {}",
        TARGETS.join(", ")
    )
}

/// What an export did.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Exported {
    /// Root-relative path of the file.
    pub path: String,
    /// False when the block was up to date already.
    pub changed: bool,
    /// True when the file did not exist before.
    pub created: bool,
}

/// The block for `material`, markers included, at most `max_chars`
/// characters, lines ending with `\n`.
pub(crate) fn block(m: &Material, max_chars: usize) -> String {
    let head = [
        BEGIN.to_string(),
        "<!-- Written by `memlint export agents-md` from the memory records; edits between these markers are replaced. -->".into(),
        "## Memory".into(),
        String::new(),
        "This repository keeps its memory as markdown records: decisions in `memory/decisions/`, user requests in `memory/requests/`, knowledge in `knowledge/`, the working context in `CONTEXT.md`.".into(),
        "Search it before starting work (`memlint search QUERY`); save decisions, user preferences and lasting facts when they appear (`memlint new decision|request|knowledge \"Title\"`), with absolute dates.".into(),
    ];
    let resident: Vec<String> = m
        .resident
        .iter()
        .map(|(slug, d)| format!("{slug} — {}", one_line(d)))
        .collect();
    let decisions = m.dirs.iter().find(|d| d.dir == "memory/decisions/");
    let decision_lines: Vec<String> = decisions
        .map(|d| {
            d.names
                .iter()
                .map(|n| match n.split_once(" — ") {
                    Some((slug, title)) => {
                        format!("memory/decisions/{slug}.md — {}", one_line(title))
                    }
                    None => format!("memory/decisions/{}.md", one_line(n)),
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out = Budget::new(max_chars.saturating_sub(END.chars().count() + 1));
    for l in &head {
        out.push(l);
    }
    out.section("### Resident knowledge", &resident, m.resident_total);
    let total = decisions.map_or(0, |d| d.total);
    out.section("### Active decisions", &decision_lines, total);
    out.text += END;
    out.text.push('\n');
    out.text
}

/// A record's text as one line of the block, credentials masked.
fn one_line(s: &str) -> String {
    let s = crate::syntax::sanitize::line(s);
    crate::syntax::sanitize::secrets(&s).into_owned()
}

struct Budget {
    text: String,
    left: usize,
}

impl Budget {
    fn new(limit: usize) -> Budget {
        Budget {
            text: String::new(),
            left: limit,
        }
    }

    fn push(&mut self, line: &str) -> bool {
        let n = line.chars().count() + 1;
        if n > self.left {
            return false;
        }
        self.text.push_str(line);
        self.text.push('\n');
        self.left -= n;
        true
    }

    /// A heading, the framing preface and the quoted items, ending with
    /// `(+N more)` when they do not all fit.
    fn section(&mut self, heading: &str, items: &[String], total: usize) {
        if items.is_empty() {
            return;
        }
        let more = |n: usize| format!("> (+{n} more: `memlint search`)");
        let reserve = more(total).chars().count() + 1;
        let fixed = [
            String::new(),
            heading.to_string(),
            String::new(),
            PREFACE.to_string(),
        ];
        let need: usize = fixed.iter().map(|l| l.chars().count() + 1).sum::<usize>() + reserve;
        if need > self.left {
            return;
        }
        for l in &fixed {
            self.push(l);
        }
        let mut shown = 0;
        for item in items {
            let line = quote_line(item);
            if line.chars().count() + 1 + reserve > self.left {
                break;
            }
            self.push(&line);
            shown += 1;
        }
        if shown < total {
            self.push(&more(total - shown));
        }
    }
}

/// The block the records of `ws` give now, and what gathering them met
/// (see `store::material::Material::problems`).
fn expected_met(ws: &Workspace) -> (String, Vec<crate::model::workspace::Problem>) {
    let max = ws.config.context.export_max_chars;
    let m = crate::engine::context::gather(ws, max);
    (block(&m, max), m.problems)
}

/// The block the records of `ws` give now (for `check`, which reports what
/// listing the workspace met with its own listing).
pub(crate) fn expected(ws: &Workspace) -> String {
    expected_met(ws).0
}

/// Where the block stands in `text`: the byte range from the start of the
/// opening marker's line to the end of the closing marker's line (without
/// its line break); `Ok(None)` when there is none; `Err` when the markers
/// are not one opening line followed by one closing line. Marker lines
/// inside fenced code (```` ``` ```` or `~~~`) are examples, not the block.
pub(crate) fn find_block(text: &str) -> Result<Option<std::ops::Range<usize>>, String> {
    use crate::lint::rules::format::conflict_markers::fence_step;
    let mut begin = None;
    let mut end = None;
    let mut at = 0;
    let mut fence = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim_end_matches(['\n', '\r']);
        let code = match fence_step(t, fence) {
            Some(next) => {
                fence = next;
                true
            }
            None => fence.is_some(),
        };
        if !code && t.trim() == BEGIN {
            if begin.is_some() {
                return Err(format!("it holds `{BEGIN}` twice; keep one block"));
            }
            begin = Some(at);
        } else if !code && t.trim() == END {
            if begin.is_none() || end.is_some() {
                return Err(format!("its `{END}` has no `{BEGIN}` line before it"));
            }
            end = Some(at + t.len());
        }
        at += line.len();
    }
    match (begin, end) {
        (None, None) => Ok(None),
        (Some(b), Some(e)) => Ok(Some(b..e)),
        _ => Err(format!("its `{BEGIN}` has no `{END}` line after it")),
    }
}

/// Whether `text` ends inside fenced code (a fence never closed).
fn ends_in_fence(text: &str) -> bool {
    use crate::lint::rules::format::conflict_markers::fence_step;
    let mut fence = None;
    for line in text.lines() {
        if let Some(next) = fence_step(line, fence) {
            fence = next;
        }
    }
    fence.is_some()
}

/// Whether `text` holds git merge conflict markers.
fn has_conflict(text: &str) -> bool {
    text.lines().any(|l| {
        ["<<<<<<< ", "=======", ">>>>>>> ", "|||||||"]
            .iter()
            .any(|m| l.starts_with(m) && (l.len() == 7 || m.len() == 8))
    })
}

/// `old` with its block replaced by `block` (or `block` appended after a
/// blank line), in the file's line endings.
pub(crate) fn splice(old: &str, block: &str) -> Result<String, String> {
    if has_conflict(old) {
        return Err("it holds merge conflict markers; resolve the conflict first".into());
    }
    let crlf = old.contains("\r\n");
    let block = block.trim_end_matches('\n');
    let block = match crlf {
        true => block.replace('\n', "\r\n"),
        false => block.to_string(),
    };
    let eol = if crlf { "\r\n" } else { "\n" };
    Ok(match find_block(old)? {
        Some(r) => format!("{}{block}{}", &old[..r.start], &old[r.end..]),
        None if old.is_empty() => format!("{block}{eol}"),
        // Appended there, the block would be code, never found again.
        None if ends_in_fence(old) => {
            return Err(
                "it ends inside a fenced code block that is never closed; close the fence first"
                    .into(),
            )
        }
        None => {
            let sep = match (old.ends_with(&format!("{eol}{eol}")), old.ends_with('\n')) {
                (true, _) => String::new(),
                (false, true) => eol.to_string(),
                (false, false) => format!("{eol}{eol}"),
            };
            format!("{old}{sep}{block}{eol}")
        }
    })
}

/// The block in `text`, in LF line endings, when there is one.
pub(crate) fn current(text: &str) -> Option<String> {
    let r = find_block(text).ok()??;
    Some(format!("{}\n", text[r].replace("\r\n", "\n")))
}

/// Writes the block into `file` (root-relative, one of [`TARGETS`]),
/// creating the file when it does not exist. What reading the records met
/// is added to `problems`, for the front end to report.
pub(crate) fn export(
    ws: &Workspace,
    file: &str,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Result<Exported, ExportError> {
    if !TARGETS.contains(&file) {
        return Err(ExportError::UnknownFile {
            file: file.to_string(),
        });
    }
    let (block, met) = expected_met(ws);
    problems.extend(met);
    write(ws, file, &block)
}

/// Writes `block` into `file`, changing nothing outside the markers.
pub(crate) fn write(ws: &Workspace, file: &str, block: &str) -> Result<Exported, ExportError> {
    let refused = |why: String| ExportError::Refused {
        path: file.to_string(),
        why,
    };
    let full = ws.root.join(file);
    let io = |source| ExportError::Write {
        path: file.to_string(),
        source,
    };
    match resolve_inside(&ws.root, Path::new(file)) {
        Resolved::Escapes(link) => {
            return Err(refused(format!(
                "{link} leads out of the workspace root through a symbolic link; memlint never writes there"
            )))
        }
        Resolved::Missing => {
            if let Some(dir) = full.parent() {
                crate::io::files::create_dir_all(dir).map_err(io)?;
            }
            let text = splice("", block).map_err(refused)?;
            write_new(&full, text.as_bytes()).map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => ExportError::Changed(file.to_string()),
                _ => io(e),
            })?;
            return Ok(Exported {
                path: file.to_string(),
                changed: true,
                created: true,
            });
        }
        _ => {}
    }
    let seen = match Snapshot::read_capped(&full, ws.config.max_file_bytes).map_err(io)? {
        crate::model::content::Content::Bytes(seen) => seen,
        crate::model::content::Content::TooLarge(_) => {
            return Err(refused("larger than max_file_bytes; not read".into()))
        }
    };
    let old = std::str::from_utf8(&seen.bytes)
        .map_err(|_| refused("not valid UTF-8; not changed".into()))?;
    let text = splice(old, block).map_err(refused)?;
    if text == old {
        return Ok(Exported {
            path: file.to_string(),
            changed: false,
            created: false,
        });
    }
    match replace_if_unchanged(&full, &seen, text.as_bytes()).map_err(io)? {
        Replaced::Written => Ok(Exported {
            path: file.to_string(),
            changed: true,
            created: false,
        }),
        Replaced::Changed => Err(ExportError::Changed(file.to_string())),
    }
}

/// For each file of [`TARGETS`] holding a block that differs from
/// `expected`: its path and the 1-based line of its opening marker.
pub(crate) fn stale(ws: &Workspace, expected: &dyn Fn() -> String) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut want: Option<String> = None;
    for file in TARGETS {
        let full = ws.root.join(file);
        if !matches!(
            resolve_inside(&ws.root, Path::new(file)),
            Resolved::Inside(_)
        ) {
            continue;
        }
        let Ok(crate::model::content::Content::Bytes(bytes)) =
            crate::io::read::read_capped(&full, ws.config.max_file_bytes)
        else {
            continue;
        };
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let Ok(Some(range)) = find_block(&text) else {
            continue;
        };
        let have = current(&text).unwrap_or_default();
        let want = want.get_or_insert_with(expected);
        if &have != want {
            let line = text[..range.start].matches('\n').count() + 1;
            out.push((file.to_string(), line));
        }
    }
    out
}

/// The `context/export-stale` findings of `ws` (none when the rule is
/// off; the records are gathered only when a file holds a block).
pub(crate) fn stale_findings(ws: &Workspace) -> Vec<crate::model::diagnostic::Diagnostic> {
    if !ws
        .config
        .enabled(crate::model::rule::Rule::ContextExportStale)
    {
        return Vec::new();
    }
    stale(ws, &|| expected(ws))
        .into_iter()
        .filter_map(|(path, line)| {
            crate::lint::rules::context::export_stale::finding(&path, line, &ws.config)
        })
        .collect()
}

/// `check --fix`: rewrites each stale block among the files `selected`
/// takes; (path, error) for each that could not be written.
pub(crate) fn fix_stale(
    ws: &Workspace,
    selected: &dyn Fn(&str) -> bool,
) -> (Vec<String>, Vec<(String, String)>) {
    let (mut fixed, mut failed) = (Vec::new(), Vec::new());
    if !ws
        .config
        .enabled(crate::model::rule::Rule::ContextExportStale)
    {
        return (fixed, failed);
    }
    let want = expected(ws);
    for (path, _) in stale(ws, &|| want.clone()) {
        if !selected(&path) {
            continue;
        }
        match write(ws, &path, &want) {
            Ok(_) => fixed.push(path),
            Err(e) => failed.push((path, e.to_string())),
        }
    }
    (fixed, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_keeps_everything_outside_the_markers() {
        let block = format!("{BEGIN}\nnew\n{END}\n");
        let old = format!("# A\r\n\r\n{BEGIN}\r\nold\r\n{END}\r\ntail\r\n");
        assert_eq!(
            splice(&old, &block).unwrap(),
            format!("# A\r\n\r\n{BEGIN}\r\nnew\r\n{END}\r\ntail\r\n")
        );
        assert_eq!(
            splice("# A\n", &block).unwrap(),
            format!("# A\n\n{BEGIN}\nnew\n{END}\n")
        );
        assert!(splice("<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n", &block).is_err());
        assert!(splice(&format!("{END}\n{BEGIN}\n"), &block).is_err());
    }
}
