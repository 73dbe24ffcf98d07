//! `memlint check --fix`: the file-level work. The findings say which
//! fixable rules fired on which file; the rules' edits ([`crate::lint::fix`])
//! give the fixed text, written with `replace_if_unchanged` so that an
//! editor's save meanwhile stays; `check` then lints again and reports what
//! remains.

use crate::lint::fix::{encoding_edits, fix_record, Fired};
use crate::lint::FileReport;
use crate::model::diagnostic::Diagnostic;
use crate::model::kind::Place;
use crate::model::rule::Rule;
use crate::model::workspace::Workspace;
use crate::syntax::edit::apply;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};

/// The final record of each `replaced_by` chain that starts at a record with
/// a `status/chain` diagnostic (a rule turned off fixes nothing): path →
/// final slug, as the cross-record pass computes it.
pub(crate) fn chain_targets(
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
    // A git repository left unread is reported by the lint that follows.
    let (resolver, _) = crate::io::git::DiskResolver::of(ws);
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

/// The rewrites of the sources that name a replaced record, for each file
/// with a fixable `sources/replaced` diagnostic: path → (source as
/// written, source naming the chain's final record).
pub(crate) fn replaced_sources(
    ws: &Workspace,
    reports: &[Box<FileReport>],
    diags: &[Diagnostic],
) -> HashMap<String, Vec<(String, String)>> {
    let cited: HashSet<&str> = diags
        .iter()
        .filter(|d| d.rule == Rule::SourcesReplaced && d.fixable)
        .map(|d| d.path.as_str())
        .collect();
    if cited.is_empty() {
        return HashMap::new();
    }
    // A git repository left unread is reported by the lint that follows.
    let (resolver, _) = crate::io::git::DiskResolver::of(ws);
    let view = crate::lint::rules::workspace::View::new(
        reports.iter().map(|r| (r.path.as_str(), &r.info)),
        &ws.config,
        &resolver,
    );
    let mut out: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for (path, old, new) in crate::lint::rules::sources::replaced_source_fixes(&view) {
        if cited.contains(path.as_str()) {
            out.entry(path).or_default().push((old, new));
        }
    }
    out
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
pub(crate) fn run(
    ws: &Workspace,
    all: &[String],
    selected: &dyn Fn(&str) -> bool,
    opts: &crate::engine::scan::Options,
) -> Report {
    // What reading met is reported by the lint that follows the fixes.
    let (reports, cross, _) = crate::engine::check::lint::findings(ws, all, opts);
    let chains = chain_targets(ws, &reports, &cross);
    let cited = replaced_sources(ws, &reports, &cross);
    let drift = crate::engine::drift::drifted(
        ws,
        reports.iter().map(|r| (r.path.as_str(), &r.info)),
        crate::engine::drift::Mode::WorkTree,
    );
    let mut rewrites: HashMap<&str, Vec<&crate::engine::drift::SourceFix>> = HashMap::new();
    for f in &drift.fixes {
        if selected(&f.path) {
            rewrites.entry(f.path.as_str()).or_default().push(f);
        }
    }
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
            fired.replaced_sources = cited.get(path).cloned().unwrap_or_default();
            (path, fired)
        })
        .filter(|(path, f)| f.any() || rewrites.contains_key(path))
        .collect();
    for path in rewrites.keys() {
        if !jobs.iter().any(|(p, _)| p == path) {
            jobs.push((path, Fired::default()));
        }
    }
    jobs.sort_by(|a, b| a.0.cmp(b.0));
    let held = held_drift(ws, &reports, &drift.diagnostics, &jobs);
    let results: Vec<(String, Result<Fixed, String>)> = jobs
        .par_iter()
        .map(|(rel, fired)| {
            let moved = rewrites.get(rel).map(Vec::as_slice).unwrap_or_default();
            let held = held.get(*rel).map(Vec::as_slice).unwrap_or_default();
            (rel.to_string(), fix_file(ws, rel, fired, moved, held))
        })
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
    let (fixed, failed) = crate::engine::export::fix_stale(ws, selected);
    report.fixed.extend(fixed);
    report.failed.extend(failed);
    report
}

/// The pins a fix writes into each record it may rewrite (`jobs`) whose
/// `file:` sources have drifted (not by a rename or a move, which the fix
/// takes care of): each source's content as the record's commit held it.
/// A rewritten record is last written by the commit of the fix, and its
/// drift would otherwise be judged from there: gone, though nobody read
/// the record against the change.
fn held_drift(
    ws: &Workspace,
    reports: &[Box<FileReport>],
    drifted: &[Diagnostic],
    jobs: &[(&str, Fired)],
) -> crate::model::hashing::Map<String, Vec<String>> {
    let fixed: HashSet<&str> = jobs.iter().map(|(p, _)| *p).collect();
    let mut spans: HashMap<&str, Vec<&std::ops::Range<usize>>> = HashMap::new();
    for d in drifted {
        if d.rule == Rule::SourcesDrifted && !d.fixable && fixed.contains(d.path.as_str()) {
            spans.entry(d.path.as_str()).or_default().push(&d.span);
        }
    }
    let wanted: Vec<(&str, Vec<&str>)> = reports
        .iter()
        .filter_map(|r| {
            let spans = spans.get(r.path.as_str())?;
            let sources = r
                .info
                .sources
                .iter()
                .filter(|s| spans.contains(&&s.span))
                .map(|s| s.value.as_str())
                .collect();
            Some((r.path.as_str(), sources))
        })
        .collect();
    crate::engine::drift::pins_as_written(ws, &wanted)
}

/// The text `read` of the file `rel` with the repairs `check --fix` makes
/// of it: the `sources/drifted` rewrites (`moved`), then the fixes of the
/// rules that fired, then the pins a rewrite holds (`held`, see
/// [`held_drift`]) under each source as the fix left it; `None` when they
/// change nothing. The language server's code actions make the same.
pub(crate) fn fixed_text(
    ws: &Workspace,
    rel: &str,
    read: &str,
    fired: &Fired,
    moved: &[&crate::engine::drift::SourceFix],
    held: &[String],
) -> Option<String> {
    let place = crate::model::kind::classify(rel, &ws.config.banned_dirs);
    let rewritten = match moved {
        [] => None,
        _ => rewrite_sources(read, moved).filter(|t| t != read),
    };
    let text = rewritten.as_deref().unwrap_or(read);
    let fixed = match place {
        Place::Record(kind) => fix_record(text, rel, kind, &ws.config, fired).or(rewritten.clone()),
        // `CONTEXT.md`: its BOM and line endings.
        _ => apply(text, encoding_edits(text, fired))
            .ok()
            .filter(|t| t != text),
    };
    let fixed = fixed?;
    // Pinned under the source as the fix left it.
    let held: Vec<String> = held
        .iter()
        .filter_map(|pin| {
            let (source, hash) = crate::model::kind::split_pin(pin)?;
            let source = moved
                .iter()
                .find(|f| f.old == source)
                .map_or(source, |f| &f.new);
            Some(format!("{source} {hash}"))
        })
        .collect();
    match held.is_empty() {
        true => Some(fixed),
        false => Some(crate::engine::author::front_pins::add_pins(&fixed, &held).unwrap_or(fixed)),
    }
}

/// `text` with the `sources/drifted` rewrites (renamed paths, moved
/// ranges) made in the entries' spans, and each pin of a rewritten source
/// following it; `None` when an entry no longer matches.
pub(crate) fn rewrite_sources(
    text: &str,
    fixes: &[&crate::engine::drift::SourceFix],
) -> Option<String> {
    let mut fixes: Vec<_> = fixes.to_vec();
    fixes.sort_by_key(|f| std::cmp::Reverse(f.span.start));
    let mut out = text.to_string();
    for f in &fixes {
        let inside = out.get(f.span.clone())?;
        // Quoted or not, the entry is written as the new value needs it in
        // a flow list as in a block one (a `,` or a ` #` in a path).
        let value = crate::engine::author::draft::flow_scalar(&f.new);
        let range = match inside.starts_with(['"', '\'']) {
            true => (scalar_text(inside)? == f.old).then_some(f.span.clone())?,
            false => {
                let at = f.span.start + inside.find(f.old.as_str())?;
                at..at + f.old.len()
            }
        };
        out.replace_range(range, &value);
    }
    Some(rewrite_pins(&out, &fixes))
}

/// The string a quoted YAML scalar written as `quoted` reads as.
fn scalar_text(quoted: &str) -> Option<String> {
    let doc = crate::syntax::yaml::parse(&format!("k: {quoted}\n"), 0).ok()?;
    let root = doc.root?;
    Some(root.get("k")?.value.as_scalar()?.text.clone())
}

/// `text` with the pin of each rewritten source (`<old> xxh3:…`) keyed by
/// the source as rewritten: the cited content, and so its hash, is the
/// same at the lines it moved to or under the file's new name, and a pin
/// left under the old source would pin nothing.
fn rewrite_pins(text: &str, fixes: &[&crate::engine::drift::SourceFix]) -> String {
    use crate::syntax::frontmatter::{split, Split};
    use crate::syntax::yaml::Value;
    let Split::Found(parts) = split(text) else {
        return text.to_string();
    };
    let Ok(doc) = crate::syntax::yaml::parse(&text[parts.yaml.clone()], parts.yaml.start) else {
        return text.to_string();
    };
    let Some(Value::Seq { items, .. }) = doc
        .root
        .as_ref()
        .and_then(|r| r.get("pins"))
        .map(|e| &e.value.value)
    else {
        return text.to_string();
    };
    let edits: Vec<crate::syntax::edit::Edit> = items
        .iter()
        .filter_map(|item| {
            let pin = item.as_scalar()?.as_str()?;
            let (source, hash) = crate::model::kind::split_pin(pin)?;
            let fix = fixes.iter().find(|f| f.old == source)?;
            Some(crate::syntax::edit::Edit {
                span: item.span.clone(),
                text: crate::engine::author::draft::flow_scalar(&format!("{} {hash}", fix.new)),
            })
        })
        .collect();
    crate::syntax::edit::apply(text, edits).unwrap_or_else(|_| text.to_string())
}

fn fix_file(
    ws: &Workspace,
    rel: &str,
    fired: &Fired,
    moved: &[&crate::engine::drift::SourceFix],
    held: &[String],
) -> Result<Fixed, String> {
    let place = crate::model::kind::classify(rel, &ws.config.banned_dirs);
    if !matches!(place, Place::Record(_) | Place::Context) {
        return Ok(Fixed::Nothing);
    }
    let path = ws.root.join(rel);
    let max = ws.config.max_file_bytes;
    let seen = crate::io::fs::Snapshot::read(&path, max).map_err(|e| {
        let e = crate::io::fs::name_bound(e, max, "max_file_bytes");
        format!("cannot read it: {e}")
    })?;
    let Ok(read) = std::str::from_utf8(&seen.bytes) else {
        return Ok(Fixed::Nothing);
    };
    let Some(fixed) = fixed_text(ws, rel, read, fired, moved, held) else {
        return Ok(Fixed::Nothing);
    };
    // Only over what was read: an editor's save meanwhile stays.
    match crate::io::fs::replace_if_unchanged(&path, &seen, fixed.as_bytes()) {
        Ok(crate::io::fs::Replaced::Written) => Ok(Fixed::Written),
        Ok(crate::io::fs::Replaced::Changed) => Ok(Fixed::Raced),
        Err(e) => Err(format!("cannot write the fix: {e}")),
    }
}
