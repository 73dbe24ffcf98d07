//! The data the page's script reads, as compact JSON: one array per field
//! (columns, not an object per record), indices instead of repeated
//! names, and sparse lists for what few records have. Every string is
//! masked and stripped of control and bidi characters here; the caller
//! escapes the JSON for its `<script>` element.

use super::gathered::{by_path, Gathered};
use crate::model::kind::Kind;
use crate::model::severity::Severity;
use serde_json::{json, Value};
use std::collections::HashMap;

/// Flag bits of a record (`f` column).
pub(crate) const DRIFTED: u8 = 1;
pub(crate) const ERRORS: u8 = 2;
pub(crate) const WARNINGS: u8 = 4;
pub(crate) const DUPLICATE: u8 = 8;
pub(crate) const CUT: u8 = 16;

/// Most findings of one record the page lists.
const FINDINGS_PER_RECORD: usize = 20;

fn line(s: &str) -> String {
    crate::syntax::sanitize::line(s).into_owned()
}

/// The main data object (see the script for how each key is read), and
/// for each record what only its own page shows (see [`details`]).
pub(crate) fn main(g: &Gathered) -> (Value, Vec<Value>) {
    let index = by_path(&g.recs);
    let mut flags: Vec<u8> = g.recs.iter().map(|r| if r.cut { CUT } else { 0 }).collect();
    for p in &g.report.drifted {
        if let Some(&i) = index.get(p.as_str()) {
            flags[i] |= DRIFTED;
        }
    }
    let dup: Vec<Value> = g
        .report
        .duplicates
        .iter()
        .filter_map(|p| {
            let (a, b) = (
                *index.get(p.first.as_str())?,
                *index.get(p.second.as_str())?,
            );
            flags[a] |= DUPLICATE;
            flags[b] |= DUPLICATE;
            Some(json!([a, b, p.percent]))
        })
        .collect();
    let (findings, drifted_lines) = findings(g, &index, &mut flags);
    let (tag_names, tags) = tags(g);
    let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    let slug_index: HashMap<(Kind, &str), usize> = g
        .recs
        .iter()
        .enumerate()
        .map(|(i, r)| ((r.kind, r.slug.as_str()), i))
        .collect();
    let rb: Vec<i64> = g
        .recs
        .iter()
        .map(|r| {
            r.info
                .replaced_by
                .as_ref()
                .and_then(|t| slug_index.get(&(r.kind, t.value.as_str())))
                .map_or(-1, |&i| i as i64)
        })
        .collect();
    let mut status_names: Vec<String> = Vec::new();
    let statuses: Vec<usize> = g
        .recs
        .iter()
        .map(|r| {
            let s = r.info.status.as_deref().map(line).unwrap_or_default();
            match status_names.iter().position(|n| *n == s) {
                Some(at) => at,
                None => {
                    status_names.push(s);
                    status_names.len() - 1
                }
            }
        })
        .collect();
    let col = |f: &dyn Fn(&super::gathered::Rec) -> String| -> Vec<String> {
        g.recs.iter().map(f).collect()
    };
    let main = json!({
        "kinds": kinds,
        "p": col(&|r| line(&r.path)),
        "k": g.recs.iter().map(|r| Kind::ALL.iter().position(|k| *k == r.kind).unwrap_or(0)).collect::<Vec<_>>(),
        "t": col(&|r| r.info.title.as_deref().map(line).unwrap_or_default()),
        "sn": status_names,
        "st": statuses,
        "d": col(&|r| r.info.date.as_deref().map(line).unwrap_or_default()),
        "ds": col(&|r| r.info.description.as_deref().map(line).unwrap_or_default()),
        "tn": tag_names,
        "tg": tags,
        "rb": rb,
        "f": flags,
        "dup": dup,
        "cm": commits(g),
        "rh": record_history(g, &index),
        "chunk": super::gathered::CHUNK,
    });
    let details = details(g, &slug_index, findings, &drifted_lines);
    (main, details)
}

/// What a record's page alone shows, one array per record: `[body HTML,
/// sources, findings, replaced_by as written, cited by]`. A source is its
/// text, or `[text, 1]` when `sources/drifted` flags it; a finding is
/// `[rule, severity (0 error, 1 warning), line, message]`; cited by lists
/// the records whose sources name this one.
fn details(
    g: &Gathered,
    slug_index: &HashMap<(Kind, &str), usize>,
    findings: Vec<(usize, Value)>,
    drifted_lines: &HashMap<usize, Vec<usize>>,
) -> Vec<Value> {
    let mut cited_by: Vec<Vec<usize>> = vec![Vec::new(); g.recs.len()];
    for (i, r) in g.recs.iter().enumerate() {
        for s in &r.info.sources {
            let target = s
                .value
                .split_once(':')
                .and_then(|(k, slug)| Some((Kind::from_name(k)?, slug)))
                .and_then(|(k, slug)| slug_index.get(&(k, slug)));
            if let Some(&t) = target {
                if t != i && cited_by[t].last() != Some(&i) {
                    cited_by[t].push(i);
                }
            }
        }
    }
    let mut per: Vec<Vec<Value>> = vec![Vec::new(); g.recs.len()];
    for (i, f) in findings {
        per[i].push(f);
    }
    g.recs
        .iter()
        .zip(per)
        .zip(cited_by)
        .enumerate()
        .map(|(i, ((r, findings), cited))| {
            let drifted = drifted_lines.get(&i);
            let sources: Vec<Value> = r
                .info
                .sources
                .iter()
                .map(|s| {
                    if drifted.is_some_and(|ls| ls.contains(&s.line)) {
                        json!([line(&s.value), 1])
                    } else {
                        Value::String(line(&s.value))
                    }
                })
                .collect();
            let rbx = r
                .info
                .replaced_by
                .as_ref()
                .map(|t| line(&t.value))
                .unwrap_or_default();
            json!([r.body, sources, findings, rbx, cited])
        })
        .collect()
}

/// Findings per record: `(record, [rule, severity (0 error, 1 warning),
/// line, message])`, at most [`FINDINGS_PER_RECORD`] each; sets the flag
/// bits and returns the source lines `sources/drifted` points at.
fn findings(
    g: &Gathered,
    index: &HashMap<&str, usize>,
    flags: &mut [u8],
) -> (Vec<(usize, Value)>, HashMap<usize, Vec<usize>>) {
    let mut out = Vec::new();
    let mut per: HashMap<usize, usize> = HashMap::new();
    let mut drifted: HashMap<usize, Vec<usize>> = HashMap::new();
    for d in &g.report.diagnostics {
        let Some(&i) = index.get(d.path.as_str()) else {
            continue;
        };
        let error = d.severity == Severity::Error;
        flags[i] |= if error { ERRORS } else { WARNINGS };
        if d.rule == crate::model::rule::Rule::SourcesDrifted {
            drifted.entry(i).or_default().push(d.line);
        }
        let n = per.entry(i).or_default();
        *n += 1;
        if *n <= FINDINGS_PER_RECORD {
            out.push((
                i,
                json!([d.rule.as_str(), u8::from(!error), d.line, line(&d.message)]),
            ));
        }
    }
    (out, drifted)
}

/// The tag names, most used first, and each record's tags as indices.
fn tags(g: &Gathered) -> (Vec<String>, Vec<Vec<usize>>) {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for r in &g.recs {
        for t in &r.info.tags {
            *count.entry(t.as_str()).or_default() += 1;
        }
    }
    let mut names: Vec<(&str, usize)> = count.into_iter().collect();
    names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let at: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (*n, i))
        .collect();
    let tags = g
        .recs
        .iter()
        .map(|r| {
            r.info
                .tags
                .iter()
                .filter_map(|t| at.get(t.as_str()).copied())
                .collect()
        })
        .collect();
    (names.into_iter().map(|(n, _)| line(n)).collect(), tags)
}

/// The commits: `[id, time, summary, [[op, record, into, categories]]]`.
fn commits(g: &Gathered) -> Vec<Value> {
    g.commits
        .iter()
        .map(|c| {
            let gc: Vec<Value> =
                c.gc.iter()
                    .map(|op| {
                        json!([
                            line(&op.op),
                            line(&op.record),
                            op.into.as_deref().map(line).unwrap_or_default(),
                            line(&op.categories.join(",")),
                        ])
                    })
                    .collect();
            json!([line(&c.id), line(&c.time), line(&c.summary), gc])
        })
        .collect()
}

/// For each record, the commits (indices into `cm`) that touched its
/// path or whose `Memlint-GC:` trailers name it, newest first.
fn record_history(g: &Gathered, index: &HashMap<&str, usize>) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); g.recs.len()];
    for (ci, c) in g.commits.iter().enumerate() {
        let named =
            c.gc.iter()
                .flat_map(|op| std::iter::once(&op.record).chain(op.into.as_ref()))
                .map(|r| format!("{r}.md"));
        for p in c.paths.iter().cloned().chain(named) {
            if let Some(&i) = index.get(p.as_str()) {
                if out[i].last() != Some(&ci) {
                    out[i].push(ci);
                }
            }
        }
    }
    out
}
