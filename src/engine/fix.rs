//! `memlint check --fix`: the fixable rules' repairs as text edits (a byte
//! span and its replacement), applied to the file's text and written
//! atomically; `check` then lints again and reports what remains.
//!
//! The edits are computed from the parsed record, not from diagnostic
//! messages; diagnostics only say which rules fired (so a rule turned `off`
//! is never fixed). Cross-record fixes (`status/chain`) come in as an edit of
//! the `replaced_by` value: see [`chain_edit`].

use crate::engine::workspace::Workspace;
use crate::lint::rules::{self, Record};
use crate::lint::FileReport;
use crate::model::config::Config;
use crate::model::diagnostic::Diagnostic;
use crate::model::kind::{Kind, Place};
use crate::model::rule::Rule;
use crate::syntax::frontmatter::{self, Split};
use crate::syntax::yaml::{self, Value};
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// A text edit: replace the bytes of `span` with `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Byte range in the text the edit applies to.
    pub span: Range<usize>,
    /// The replacement.
    pub text: String,
}

/// Appends `text[range]` to `out` with the edits that fall inside `range`
/// applied. `edits` must be sorted by start and must not overlap; an edit
/// that crosses the range's boundary is an error.
pub fn splice(
    text: &str,
    range: Range<usize>,
    edits: &[Edit],
    out: &mut String,
) -> Result<(), String> {
    let first = edits.partition_point(|e| e.span.start < range.start);
    if first > 0 && edits[first - 1].span.end > range.start {
        return Err("an edit crosses a block boundary".into());
    }
    let mut pos = range.start;
    for e in &edits[first..] {
        let inside = e.span.start < range.end
            || (e.span.is_empty() && e.span.start == range.end && range.end == text.len());
        if !inside {
            break;
        }
        if e.span.start < pos || e.span.end > range.end {
            return Err("an edit crosses a block boundary".into());
        }
        out.push_str(
            text.get(pos..e.span.start)
                .ok_or("an edit does not fall on a character boundary")?,
        );
        out.push_str(&e.text);
        pos = e.span.end;
    }
    out.push_str(
        text.get(pos..range.end)
            .ok_or("an edit does not fall on a character boundary")?,
    );
    Ok(())
}

/// Applies `edits` to `text`. Overlapping edits are an error.
pub fn apply(text: &str, mut edits: Vec<Edit>) -> Result<String, String> {
    edits.sort_by_key(|e| (e.span.start, e.span.end));
    for w in edits.windows(2) {
        if w[0].span.end > w[1].span.start {
            return Err("two fixes touch the same text".into());
        }
    }
    let mut out = String::with_capacity(text.len());
    splice(text, 0..text.len(), &edits, &mut out)?;
    Ok(out)
}

/// The `status/chain` fix: point `replaced_by` (its value's span) at the
/// final record of the chain.
pub fn chain_edit(replaced_by_value: Range<usize>, final_slug: &str) -> Edit {
    Edit {
        span: replaced_by_value,
        text: plain_or_quoted(final_slug),
    }
}

fn plain_or_quoted(s: &str) -> String {
    if crate::fmt::needs_quotes(s) {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        s.to_string()
    }
}

/// Which fixable rules fired on one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fired {
    /// `format/bom`.
    pub bom: bool,
    /// `format/crlf`.
    pub crlf: bool,
    /// `frontmatter/unknown-key`.
    pub unknown_key: bool,
    /// `sources/duplicate`.
    pub duplicate_source: bool,
    /// `status/chain`, with the slug of the chain's final record.
    pub chain_target: Option<String>,
}

impl Fired {
    /// Reads the fixable rules off a file's diagnostics.
    pub fn from_diagnostics<'d>(diags: impl IntoIterator<Item = &'d Diagnostic>) -> Fired {
        let mut f = Fired::default();
        for d in diags {
            match d.rule {
                Rule::FormatBom => f.bom = true,
                Rule::FormatCrlf => f.crlf = true,
                Rule::FrontmatterUnknownKey => f.unknown_key = true,
                Rule::SourcesDuplicate => f.duplicate_source = true,
                _ => {}
            }
        }
        f
    }

    fn any(&self) -> bool {
        self.bom
            || self.crlf
            || self.unknown_key
            || self.duplicate_source
            || self.chain_target.is_some()
    }
}

/// The edits that remove a BOM and turn CRLF into LF.
pub fn encoding_edits(text: &str, fired: &Fired) -> Vec<Edit> {
    let mut edits = Vec::new();
    if fired.bom && frontmatter::bom_len(text) > 0 {
        edits.push(Edit {
            span: 0..3,
            text: String::new(),
        });
    }
    if fired.crlf {
        // The whole run of CRs before a LF goes, as the formatter does, so
        // that `\r\r\n` leaves no CRLF behind.
        let bytes = text.as_bytes();
        edits.extend(text.match_indices("\r\n").map(|(i, _)| {
            let run = bytes[..i].iter().rev().take_while(|&&b| b == b'\r').count();
            Edit {
                span: i - run..i + 1,
                text: String::new(),
            }
        }));
    }
    edits
}

/// The edits of the rules that need the parsed record: unknown-key renames,
/// duplicate-source removals and the `status/chain` target.
pub fn record_edits(r: &Record, fired: &Fired) -> Vec<Edit> {
    let mut edits = Vec::new();
    if fired.unknown_key {
        edits.extend(
            rules::frontmatter::safe_renames(r)
                .into_iter()
                .map(|(entry, target)| Edit {
                    span: entry.key.span.clone(),
                    text: target.to_string(),
                }),
        );
    }
    if fired.duplicate_source {
        edits.extend(duplicate_source_edits(r));
    }
    if let Some(target) = &fired.chain_target {
        if let Some(entry) = r.root.get("replaced_by") {
            if entry.value.as_scalar().is_some() && !entry.value.span.is_empty() {
                edits.push(chain_edit(entry.value.span.clone(), target));
            }
        }
    }
    edits
}

/// Deletes every repeated `sources` entry: the whole line of a block-list
/// item (when the line holds nothing else), or the item and its comma in a
/// flow list.
pub fn duplicate_source_edits(r: &Record) -> Vec<Edit> {
    let Some(entry) = r.root.get("sources") else {
        return Vec::new();
    };
    let Value::Seq { items, flow } = &entry.value.value else {
        return Vec::new();
    };
    let text = r.text;
    let mut seen: HashSet<&str> = HashSet::new();
    let mut edits = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(s) = item.as_scalar().and_then(|s| s.as_str()) else {
            continue;
        };
        if seen.insert(s) {
            continue;
        }
        if *flow {
            let Some(prev) = i.checked_sub(1).and_then(|p| items.get(p)) else {
                continue;
            };
            let between = text.get(prev.span.end..item.span.start).unwrap_or("#");
            if between.trim() == "," {
                edits.push(Edit {
                    span: prev.span.end..item.span.end,
                    text: String::new(),
                });
            }
        } else {
            let start = text[..item.span.start].rfind('\n').map_or(0, |p| p + 1);
            let end = text[item.span.end..]
                .find('\n')
                .map_or(text.len(), |p| item.span.end + p + 1);
            let before = &text[start..item.span.start];
            let after = &text[item.span.end..end];
            let lone = before.trim_start_matches(' ') == "- " && after.trim().is_empty();
            if lone {
                edits.push(Edit {
                    span: start..end,
                    text: String::new(),
                });
            }
        }
    }
    edits
}

/// Fixes one record's text. `None` when nothing could be fixed.
pub fn fix_record(
    text: &str,
    rel: &str,
    kind: Kind,
    config: &Config,
    fired: &Fired,
) -> Option<String> {
    let stage1 = apply(text, encoding_edits(text, fired)).ok()?;
    let structural = fired.unknown_key || fired.duplicate_source || fired.chain_target.is_some();
    let stage2 = if structural {
        let Split::Found(parts) = frontmatter::split(&stage1) else {
            return (stage1 != text).then_some(stage1);
        };
        let doc = yaml::parse(&stage1[parts.yaml.clone()], parts.yaml.start).ok();
        let edits = match &doc {
            Some(doc) => match &doc.root {
                Some(root) if root.entries().is_some() => {
                    let record = Record {
                        path: rel,
                        kind,
                        text: &stage1,
                        parts: &parts,
                        root,
                        duplicates: &doc.duplicates,
                        config,
                        sections: Default::default(),
                        fields: Default::default(),
                        hint_words: Default::default(),
                    };
                    record_edits(&record, fired)
                }
                _ => Vec::new(),
            },
            None => Vec::new(),
        };
        let fixed = apply(&stage1, edits).ok()?;
        if still_parses(&fixed) {
            fixed
        } else {
            stage1
        }
    } else {
        stage1
    };
    (stage2 != text).then_some(stage2)
}

fn still_parses(text: &str) -> bool {
    match frontmatter::split(text) {
        Split::Found(p) => {
            yaml::parse(&text[p.yaml.clone()], p.yaml.start).is_ok_and(|d| d.duplicates.is_empty())
        }
        _ => false,
    }
}

/// The final record of each `replaced_by` chain that starts at a record with
/// a `status/chain` diagnostic (a rule turned off fixes nothing): path →
/// final slug, as the cross-record pass computes it.
pub fn chain_targets(
    ws: &Workspace,
    reports: &[Box<FileReport>],
    diags: &[Diagnostic],
) -> HashMap<String, String> {
    let chained: HashSet<&str> = diags
        .iter()
        .filter(|d| d.rule == Rule::StatusChain)
        .map(|d| d.path.as_str())
        .collect();
    if chained.is_empty() {
        return HashMap::new();
    }
    let resolver = crate::io::git::DiskResolver::of(ws);
    let view = crate::lint::rules::workspace::View::new(
        reports.iter().map(|r| (r.path.as_str(), &r.info)),
        &ws.config,
        &resolver,
    );
    crate::lint::rules::status::chain_fixes(&view)
        .into_iter()
        .filter(|(path, _)| chained.contains(path.as_str()))
        .collect()
}

/// What `check --fix` did.
#[derive(Debug, Default)]
pub struct Report {
    /// Files rewritten, root-relative, sorted.
    pub fixed: Vec<String>,
    /// Files another program changed while they were being fixed: left as
    /// that program made them.
    pub raced: Vec<String>,
    /// Files that could not be written, with the error.
    pub failed: Vec<(String, String)>,
}

/// What became of one file.
enum Fixed {
    Written,
    Nothing,
    Raced,
}

/// Applies the fixes of the fixable findings to the selected files and
/// writes them atomically. The findings come from `.memlint/index`
/// (refreshed with `opts`), so only files changed since it was written are
/// read. The caller checks again to report what remains.
pub fn run(
    ws: &Workspace,
    all: &[String],
    selected: &dyn Fn(&str) -> bool,
    opts: &crate::engine::scan::Options,
) -> Report {
    let (reports, cross) = crate::engine::check::findings(ws, all, opts);
    let chains = chain_targets(ws, &reports, &cross);
    let mut by_path: HashMap<&str, Vec<&Diagnostic>> = HashMap::new();
    for d in reports.iter().flat_map(|r| &r.diagnostics).chain(&cross) {
        if d.fixable && selected(&d.path) {
            by_path.entry(d.path.as_str()).or_default().push(d);
        }
    }
    let mut jobs: Vec<(&str, Fired)> = by_path
        .into_iter()
        .map(|(path, diags)| {
            let mut fired = Fired::from_diagnostics(diags);
            fired.chain_target = chains.get(path).cloned();
            (path, fired)
        })
        .filter(|(_, f)| f.any())
        .collect();
    jobs.sort_by(|a, b| a.0.cmp(b.0));
    let results: Vec<(String, Result<Fixed, String>)> = jobs
        .par_iter()
        .map(|(rel, fired)| (rel.to_string(), fix_file(ws, rel, fired)))
        .collect();
    let mut report = Report::default();
    for (rel, r) in results {
        match r {
            Ok(Fixed::Written) => report.fixed.push(rel),
            Ok(Fixed::Nothing) => {}
            Ok(Fixed::Raced) => report.raced.push(rel),
            Err(e) => report.failed.push((rel, e)),
        }
    }
    report
}

fn fix_file(ws: &Workspace, rel: &str, fired: &Fired) -> Result<Fixed, String> {
    let place = crate::model::kind::classify(rel, &ws.config.banned_dirs);
    if !matches!(place, Place::Record(_) | Place::Context) {
        return Ok(Fixed::Nothing);
    }
    let path = ws.root.join(rel);
    let seen = crate::io::fs::Snapshot::read(&path).map_err(|e| format!("cannot read it: {e}"))?;
    let Ok(text) = std::str::from_utf8(&seen.bytes) else {
        return Ok(Fixed::Nothing);
    };
    let fixed = match place {
        Place::Record(kind) => fix_record(text, rel, kind, &ws.config, fired),
        // `CONTEXT.md`: its BOM and line endings.
        _ => apply(text, encoding_edits(text, fired))
            .ok()
            .filter(|t| t != text),
    };
    let Some(fixed) = fixed else {
        return Ok(Fixed::Nothing);
    };
    // Only over what was read: an editor's save meanwhile stays.
    match crate::io::fs::replace_if_unchanged(&path, &seen, fixed.as_bytes()) {
        Ok(crate::io::fs::Replaced::Written) => Ok(Fixed::Written),
        Ok(crate::io::fs::Replaced::Changed) => Ok(Fixed::Raced),
        Err(e) => Err(format!("cannot write the fix: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fired() -> Fired {
        Fired::default()
    }

    fn fix(text: &str, kind: Kind, f: &Fired) -> Option<String> {
        fix_record(text, "memory/decisions/x.md", kind, &Config::default(), f)
    }

    #[test]
    fn apply_rejects_overlaps_and_keeps_order() {
        let e = |a, b, t: &str| Edit {
            span: a..b,
            text: t.into(),
        };
        assert_eq!(
            apply("abcdef", vec![e(4, 5, "E"), e(0, 1, "A")]).unwrap(),
            "AbcdEf"
        );
        assert!(apply("abcdef", vec![e(0, 3, ""), e(2, 4, "")]).is_err());
        assert_eq!(apply("ab", vec![e(2, 2, "!")]).unwrap(), "ab!");
    }

    #[test]
    fn bom_and_crlf() {
        let f = Fired {
            bom: true,
            crlf: true,
            ..fired()
        };
        assert_eq!(
            fix("---\r\r\n---\r\nb\r\r\r\n", Kind::Decision, &f).unwrap(),
            "---\n---\nb\n"
        );
        let out = fix(
            "\u{feff}---\r\ntitle: x\r\n---\r\nbody\r\n",
            Kind::Decision,
            &f,
        )
        .unwrap();
        assert_eq!(out, "---\ntitle: x\n---\nbody\n");
    }

    #[test]
    fn renames_unknown_key_when_unambiguous() {
        let f = Fired {
            unknown_key: true,
            ..fired()
        };
        let text = "---\ntitle: t\nmodel_invokation: true\n---\n";
        let out = fix(text, Kind::Knowledge, &f).unwrap();
        assert_eq!(out, "---\ntitle: t\nmodel_invocation: true\n---\n");
        // Target already present: nothing to do.
        let text = "---\nmodel_invocation: true\nmodel_invokation: true\n---\n";
        assert_eq!(fix(text, Kind::Knowledge, &f), None);
    }

    #[test]
    fn two_keys_renamed_to_one_are_left_alone() {
        let f = Fired {
            unknown_key: true,
            ..fired()
        };
        let text = "---\ntitel: a\ntitl: b\n---\n";
        assert_eq!(fix(text, Kind::Decision, &f), None);
    }

    #[test]
    fn removes_duplicate_sources() {
        let f = Fired {
            duplicate_source: true,
            ..fired()
        };
        let text = "---\nsources:\n  - a:b\n  - c:d\n  - a:b\n  - 'c:d'\ntags: [x]\n---\n";
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert_eq!(out, "---\nsources:\n  - a:b\n  - c:d\ntags: [x]\n---\n");
        let text = "---\nsources: [a, b, a, b]\n---\n";
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert_eq!(out, "---\nsources: [a, b]\n---\n");
        // A comment on the line keeps the line.
        let text = "---\nsources:\n  - a\n  - a # why\n---\n";
        assert_eq!(fix(text, Kind::Decision, &f), None);
    }

    #[test]
    fn chain_points_at_final_target() {
        let f = Fired {
            chain_target: Some("use-gix-v3".into()),
            ..fired()
        };
        let text = "---\nstatus: replaced\nreplaced_by: \"use-gix-v2\"\n---\n";
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert_eq!(out, "---\nstatus: replaced\nreplaced_by: use-gix-v3\n---\n");
        let f = Fired {
            chain_target: Some("2024".into()),
            ..fired()
        };
        let out = fix(text, Kind::Decision, &f).unwrap();
        assert!(out.contains("replaced_by: '2024'\n"), "{out}");
    }
}
