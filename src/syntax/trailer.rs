//! The `Memlint-GC:` commit trailer (docs/rules.md): its grammar, and finding
//! the trailers of a commit message. Pure text.

use crate::model::kind::Kind;
use serde::Serialize;

/// The trailer key of the consolidation worker's commits.
pub(crate) const TRAILER: &str = "Memlint-GC";
/// The operations a `Memlint-GC:` trailer names.
pub(crate) const OPS: [&str; 5] = ["drop", "merge", "split", "trim", "rewrite"];
/// The reason categories of a `Memlint-GC:` trailer.
pub(crate) const CATEGORIES: [&str; 4] = ["outdated", "superseded", "unused", "noisy"];

/// One operation named by a `Memlint-GC:` trailer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct GcOp {
    /// One of [`OPS`].
    pub op: String,
    /// `<kind-dir>/<slug>`, root-relative, without `.md`.
    pub record: String,
    /// The record it went into (`merge`, `split`), as `record` is written.
    pub into: Option<String>,
    /// Some of [`CATEGORIES`].
    pub categories: Vec<String>,
}

impl GcOp {
    /// Whether the operation names the record at root-relative `path`
    /// (`memory/decisions/x.md`), as its subject or as its `into` target.
    pub(crate) fn names(&self, path: &str) -> bool {
        let bare = path.strip_suffix(".md").unwrap_or(path);
        self.record == bare || self.into.as_deref() == Some(bare)
    }

    /// Whether the operation is on the record at `path` as its subject: the
    /// record that goes away or changes (`merge a into b` explains the
    /// removal of `a`, not of `b`, which survives).
    pub(crate) fn is_on(&self, path: &str) -> bool {
        self.record == path.strip_suffix(".md").unwrap_or(path)
    }

    /// Whether the operation explains the removal of its subject: `drop`,
    /// `merge` and `split` take a record away; `trim` and `rewrite` keep it.
    pub(crate) fn removes(&self) -> bool {
        matches!(self.op.as_str(), "drop" | "merge" | "split")
    }

    /// The trailer's text after `Memlint-GC: `.
    pub(crate) fn value(&self) -> String {
        let into = self
            .into
            .as_ref()
            .map(|t| format!(" into {t}"))
            .unwrap_or_default();
        format!(
            "{} {}{into} {}",
            self.op,
            self.record,
            self.categories.join(",")
        )
    }
}

/// A `Memlint-GC:` trailer that does not follow the grammar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Malformed {
    /// The whole trailer line.
    pub line: String,
    /// What is wrong with it, and the expected form.
    pub reason: String,
}

/// Finds the `Memlint-GC:` trailers of a commit message, as git reads
/// trailers (`trailer_block`): only those in the trailer block count. A
/// `Memlint-GC` line anywhere else (the subject line, a paragraph in the
/// middle) is reported as malformed, since git and every tool reading
/// trailers ignore it; so is a slip in the grammar.
pub(crate) fn trailers(message: &str) -> (Vec<GcOp>, Vec<Malformed>) {
    let mut ops = Vec::new();
    let mut bad = Vec::new();
    let lines = message_lines(message);
    let block = trailer_block(&lines);
    for (at, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        let Some(head) = trimmed.get(..TRAILER.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(TRAILER) {
            continue;
        }
        let rest = &trimmed[TRAILER.len()..];
        // `Memlint-GCfoo` is another word, not this trailer.
        if rest.starts_with(|c: char| c.is_alphanumeric() || c == '-' || c == '_') {
            continue;
        }
        let malformed = |reason: String| Malformed {
            line: trimmed.to_string(),
            reason,
        };
        let Some(value) = rest.trim_start().strip_prefix(':') else {
            bad.push(malformed(format!("`{TRAILER}` must be followed by `:`")));
            continue;
        };
        if !block.contains(&at) {
            bad.push(malformed(outside_block(at == 0)));
            continue;
        }
        match parse_trailer(value) {
            Ok(op) => ops.push(op),
            Err(reason) => bad.push(malformed(reason)),
        }
    }
    (ops, bad)
}

/// Why a `Memlint-GC:` line outside the trailer block is no trailer.
fn outside_block(subject: bool) -> String {
    let how = "write a subject line, a blank line, then the trailers together as the last paragraph of the message";
    match subject {
        true => format!("it is the subject line, and git reads trailers only from the last paragraph after it; {how}"),
        false => format!("it is not in the message's last paragraph, where git reads trailers; {how}"),
    }
}

/// The lines of a commit message as git's trailer reader sees them: the
/// part after a scissors line (`# ---- >8 ----`, `git commit -v`) is cut,
/// and comment lines are left out (the commit-msg hook sees the message
/// before git strips them).
fn message_lines(message: &str) -> Vec<&str> {
    message
        .lines()
        .take_while(|l| !(l.starts_with("# ") && l.contains(">8")))
        .filter(|l| !l.starts_with('#'))
        .collect()
}

/// The indices of the lines of the trailer block, as `git
/// interpret-trailers` finds it: the last paragraph, unless it is the
/// first (the subject is never trailers), when all its lines are trailers
/// (`Token: value`, or a continuation line indented under one), or at
/// least a quarter are and one of them is git's own (`Signed-off-by:`,
/// `(cherry picked from commit …`).
fn trailer_block(lines: &[&str]) -> std::ops::Range<usize> {
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |i| i + 1);
    let start = lines[..end]
        .iter()
        .rposition(|l| l.trim().is_empty())
        .map_or(0, |i| i + 1);
    // The first paragraph is the subject (and what runs on after it).
    let first_blank = lines.iter().position(|l| l.trim().is_empty());
    if end == 0 || first_blank.is_none_or(|blank| start <= blank) {
        return 0..0;
    }
    let (mut trailers, mut others, mut git_own) = (0, 0, false);
    for line in &lines[start..end] {
        if line.starts_with([' ', '\t']) {
            continue;
        }
        if is_trailer_line(line) {
            trailers += 1;
            git_own |= line.starts_with("Signed-off-by: ");
        } else {
            others += 1;
            git_own |= line.starts_with("(cherry picked from commit ");
        }
    }
    let block = trailers > 0 && (others == 0 || (git_own && trailers * 3 >= others));
    match block {
        true => start..end,
        false => 0..0,
    }
}

/// `Token: value` (git's separator `:` after a token of letters, digits
/// and `-`, spaces allowed before it).
fn is_trailer_line(line: &str) -> bool {
    let token_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(line.len());
    token_end > 0 && line[token_end..].trim_start().starts_with(':')
}

/// Parses the value of one trailer:
/// `<op> <kind-dir>/<slug> [into <kind-dir>/<slug>] <category>[,<category>…]`.
pub(crate) fn parse_trailer(value: &str) -> Result<GcOp, String> {
    let expected =
        "expected `<op> <kind-dir>/<slug> [into <kind-dir>/<slug>] <category>[,<category>…]`";
    let tokens: Vec<&str> = value.split_whitespace().collect();
    let Some(op) = tokens.first() else {
        return Err(format!("the trailer is empty; {expected}"));
    };
    if !OPS.contains(op) {
        return Err(format!(
            "unknown operation `{op}` (expected {})",
            or_list(&OPS)
        ));
    }
    let Some(record) = tokens.get(1) else {
        return Err(format!("no record after `{op}`; {expected}"));
    };
    record_problem(record)?;
    let (into, rest) = if tokens.get(2) == Some(&"into") {
        let Some(target) = tokens.get(3) else {
            return Err(format!("no record after `into`; {expected}"));
        };
        record_problem(target)?;
        (Some(target.to_string()), &tokens[4..])
    } else {
        (None, &tokens[2.min(tokens.len())..])
    };
    if into.as_deref() == Some(*record) {
        return Err(format!(
            "`{op} {record} into {record}` names the same record twice: a record cannot go into itself"
        ));
    }
    if *op == "merge" && into.is_none() {
        return Err(format!(
            "`merge` needs the record it was merged into: `merge {record} into <kind-dir>/<slug> <category>`"
        ));
    }
    if rest.is_empty() {
        return Err(format!(
            "no reason category (expected {}, comma-separated)",
            or_list(&CATEGORIES)
        ));
    }
    // `outdated, noisy` is read as `outdated,noisy`; `outdated noisy` is not.
    let joined = rest.join(" ").replace(", ", ",").replace(" ,", ",");
    let mut categories = Vec::new();
    for c in joined.split(',') {
        let c = c.trim();
        if !CATEGORIES.contains(&c) {
            return Err(if c.is_empty() {
                "an empty reason category (a stray comma?)".to_string()
            } else if c.contains(' ') {
                format!("`{c}`: separate reason categories with commas")
            } else {
                format!(
                    "unknown reason category `{c}` (expected {})",
                    or_list(&CATEGORIES)
                )
            });
        }
        categories.push(c.to_string());
    }
    Ok(GcOp {
        op: op.to_string(),
        record: record.to_string(),
        into,
        categories,
    })
}

fn or_list(words: &[&str]) -> String {
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => words.join(""),
    }
}

/// Why `record` is no `<kind-dir>/<slug>`.
fn record_problem(record: &str) -> Result<(), String> {
    let bare = record.trim_start_matches("./");
    if bare.ends_with(".md") || bare != record {
        // The form to write instead, when it is one that is accepted.
        let fixed = bare.trim_end_matches(".md");
        let instead = match record_problem(fixed) {
            Ok(()) => format!(" (`{fixed}`)"),
            Err(_) => String::new(),
        };
        let what = match bare.ends_with(".md") {
            true => "without `.md`",
            false => "relative to the workspace root, without `./`",
        };
        return Err(format!("`{record}`: name the record {what}{instead}"));
    }
    let Some((dir, name)) = record.rsplit_once('/') else {
        return Err(format!(
            "`{record}` is not `<kind-dir>/<slug>` (e.g. `memory/decisions/use-gix`)"
        ));
    };
    // The rolling summary is `memory/summary`.
    if record == "memory/summary" {
        return Ok(());
    }
    if !Kind::ALL
        .into_iter()
        .any(|k| k != Kind::Summary && k.dir() == dir)
    {
        return Err(format!(
            "`{dir}` is not a record directory (expected memory/decisions, memory/requests, memory/sessions, knowledge or staging, or the record `memory/summary`)"
        ));
    }
    // Any file name: a record whose name breaks `slug/format` may be
    // dropped too (the trailer must match the removed file to explain it).
    if name.is_empty() {
        return Err(format!(
            "`{record}` names no record (the file name is missing)"
        ));
    }
    Ok(())
}
