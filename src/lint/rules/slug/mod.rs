//! `slug/*` rules on one record.

use crate::lint::record::Record;
use crate::lint::rules::workspace::{View, WsSink};
use crate::lint::sink::Sink;
use crate::model::rule::Rule;

// The engine and the index ask the similarity algorithm by these paths.
pub use crate::syntax::similar::{similar_clusters, suffix_key};

/// `slug/mismatch`: a `slug` key differs from the file stem.
pub fn mismatch(r: &Record, out: &mut Sink) {
    let Some((slug, span)) = r.str_field("slug") else {
        return;
    };
    let stem = r.stem();
    if slug != stem {
        out.emit(
            Rule::SlugMismatch,
            span,
            format!("`slug` is `{slug}` but the file is named `{stem}.md`; make them equal (or delete `slug`)"),
        );
    }
}

/// Why a file stem is not a slug, for `slug/format`.
pub fn stem_problem(stem: &str) -> Option<String> {
    if crate::model::kind::is_slug(stem) {
        return None;
    }
    let n = stem.chars().count();
    let why = if n > 64 {
        format!("it is {n} characters long (at most 64)")
    } else if stem.chars().any(|c| c.is_uppercase()) {
        "it has uppercase letters".to_string()
    } else if stem.contains('_') {
        "it has `_` (use `-`)".to_string()
    } else if stem.contains(' ') {
        "it has spaces".to_string()
    } else {
        "a slug is lowercase letters and digits joined by single `-`".to_string()
    };
    let suggestion = suggest(stem);
    // A name holding a credential gets no suggestion: lowercased, the
    // credential would no longer be recognised, and masked.
    let secret = !crate::syntax::secrets::find(stem).is_empty();
    let hint = if crate::model::kind::is_slug(&suggestion) && suggestion != stem && !secret {
        format!("; rename it to `{suggestion}.md`")
    } else {
        String::new()
    };
    Some(format!("file name `{stem}` is not a slug: {why}{hint}"))
}

/// A slug close to `stem`.
fn suggest(stem: &str) -> String {
    let mut out = String::new();
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let trimmed: String = out.trim_end_matches('-').chars().take(64).collect();
    trimmed.trim_end_matches('-').to_string()
}

/// Most other members a `slug/similar` message names; the rest are
/// counted. Naming them all made a cluster of n slugs n² bytes of output
/// (20,000 `note-N` records: gigabytes).
pub const SIMILAR_NAMED: usize = 5;

/// `slug/similar`: near-duplicate slugs of one kind, reported once per
/// cluster on each member after the first in sorted order, naming the first
/// [`SIMILAR_NAMED`] others and counting the rest.
pub fn similar(view: &View, out: &mut WsSink) {
    // The clusters are the costliest cross-record work: skipped when off.
    if !crate::lint::rules::workspace::enabled(view.config, Rule::SlugSimilar) {
        return;
    }
    for kind in crate::model::kind::Kind::ALL
        .into_iter()
        .filter(|k| k.has_slug())
    {
        let clusters = view.similar_clusters(kind);
        if clusters.is_empty() {
            continue;
        }
        // The first record of each slug, found once (not a scan per member).
        let mut paths: crate::model::hashing::Map<&str, &str> = Default::default();
        for e in view.records.iter().filter(|e| e.info.kind == Some(kind)) {
            paths.entry(e.slug).or_insert(e.path);
        }
        for cluster in &clusters {
            for (n, member) in cluster.iter().enumerate().skip(1) {
                let Some(path) = paths.get(member.as_str()) else {
                    continue;
                };
                let others = cluster
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != n)
                    .map(|(_, s)| s.as_str());
                out.emit(
                    Rule::SlugSimilar,
                    path,
                    None,
                    format!(
                        "{kind} `{member}` looks like a near-duplicate of {}; merge them or replace one with the other",
                        named_list(others, cluster.len() - 1, SIMILAR_NAMED)
                    ),
                );
            }
        }
    }
}

/// `a`, `b` and `c`, or `a`, `b`, `c` and 17 more when `count` (the length
/// of `names`) exceeds `most`.
pub fn named_list<'s>(names: impl Iterator<Item = &'s str>, count: usize, most: usize) -> String {
    let shown: Vec<String> = names.take(most).map(|s| format!("`{s}`")).collect();
    let rest = count - shown.len();
    match shown.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, init)) if rest == 0 => format!("{} and {last}", init.join(", ")),
        Some(_) => format!("{} and {rest} more", shown.join(", ")),
    }
}
