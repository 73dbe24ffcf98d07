//! The `Memlint-GC:` commit trailer (SPEC §3): its grammar, and finding
//! the trailers of a commit message. Pure text.

use crate::model::kind::Kind;
use serde::Serialize;

/// The trailer key of the consolidation worker's commits.
pub const TRAILER: &str = "Memlint-GC";
/// The operations a `Memlint-GC:` trailer names.
pub const OPS: [&str; 5] = ["drop", "merge", "split", "trim", "rewrite"];
/// The reason categories of a `Memlint-GC:` trailer.
pub const CATEGORIES: [&str; 4] = ["outdated", "superseded", "unused", "noisy"];

/// One operation named by a `Memlint-GC:` trailer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GcOp {
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
    pub fn names(&self, path: &str) -> bool {
        let bare = path.strip_suffix(".md").unwrap_or(path);
        self.record == bare || self.into.as_deref() == Some(bare)
    }

    /// Whether the operation is on the record at `path` as its subject: the
    /// record that goes away or changes (`merge a into b` explains the
    /// removal of `a`, not of `b`, which survives).
    pub fn is_on(&self, path: &str) -> bool {
        self.record == path.strip_suffix(".md").unwrap_or(path)
    }

    /// The trailer's text after `Memlint-GC: `.
    pub fn value(&self) -> String {
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
pub struct Malformed {
    /// The whole trailer line.
    pub line: String,
    /// What is wrong with it, and the expected form.
    pub reason: String,
}

/// Finds the `Memlint-GC:` trailers of a commit message. Every line whose
/// key is `Memlint-GC` (any case) counts, so a slip anywhere is reported.
pub fn trailers(message: &str) -> (Vec<GcOp>, Vec<Malformed>) {
    let mut ops = Vec::new();
    let mut bad = Vec::new();
    for line in message.lines() {
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
        let Some(value) = rest.trim_start().strip_prefix(':') else {
            bad.push(Malformed {
                line: trimmed.to_string(),
                reason: format!("`{TRAILER}` must be followed by `:`"),
            });
            continue;
        };
        match parse_trailer(value) {
            Ok(op) => ops.push(op),
            Err(reason) => bad.push(Malformed {
                line: trimmed.to_string(),
                reason,
            }),
        }
    }
    (ops, bad)
}

/// Parses the value of one trailer:
/// `<op> <kind-dir>/<slug> [into <kind-dir>/<slug>] <category>[,<category>…]`.
pub fn parse_trailer(value: &str) -> Result<GcOp, String> {
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
    if record.ends_with(".md") {
        return Err(format!(
            "`{record}`: name the record without `.md` (`{}`)",
            record.trim_end_matches(".md")
        ));
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
