//! `slug/similar`: slugs of the same kind look like near-duplicates.

use crate::lint::rules::workspace::{View, WsSink};
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule slug/similar` prints it.
pub(crate) const DOC: &str = r#"# slug/similar

slugs of the same kind look like near-duplicates

## What it does

Fires when two or more slugs of the same kind (decision, request or knowledge) look like near-duplicates: their similarity ratio (as Python's `difflib`) is at least `similar_slug_ratio` (default 0.9), or they are equal but for a numeric or version-like suffix (`-2`, `-v2`, `-new`, `-old`, `-fix`, `-final`, `-draft`, `-copy`, …). Similar slugs are grouped into clusters; each member after the first in sorted order gets one diagnostic naming the others. A record with `status: replaced` is left out of its cluster: once one record replaces the other, as this rule advises, the pair no longer fires (`memlint new … --replaces OLD` does that in one step); a cluster needs two active members.

## Why it matters

Near-duplicate names usually mean the same topic was written twice, often by an agent that did not search first: recall then returns two records that may disagree, and the next agent cannot tell which one is in force.

## Example

`memory/decisions/cache-product-pages.md`:

```markdown
---
title: Cache product pages at the CDN
status: active
date: 2026-03-20
sources:
  - staging:20260320-090000-4c4d
---

Product pages are cached at the CDN for 5 minutes.
```

`memory/decisions/cache-product-pages-v2.md`:

```markdown
---
title: Cache product pages at the CDN with surrogate keys
status: active
date: 2026-03-24
sources:
  - staging:20260324-163000-9e10
---

Product pages are cached at the CDN and purged by surrogate key on price changes.
```

## Fixed

The two are merged into one record and the other file is deleted.

<!-- deleted: memory/decisions/cache-product-pages-v2.md -->

`memory/decisions/cache-product-pages.md`:

```markdown
---
title: Cache product pages at the CDN with surrogate keys
status: active
date: 2026-03-24
sources:
  - staging:20260320-090000-4c4d
  - staging:20260324-163000-9e10
---

Product pages are cached at the CDN for 5 minutes and purged by surrogate key on price changes.
```

## Fix

Not fixed automatically: merge the records into one and delete the others (with a `Memlint-GC: merge … into …` trailer in the commit, so `history/unexplained-removal` accepts it), or rename one whose topic really differs, or mark the older one replaced by the newer (`memlint replace OLD NEW`): a replaced record is left out of the comparison.

## Configuration

```yaml
# .memlint.yml
similar_slug_ratio: 0.9   # default
rules:
  slug/similar: error   # default: warning; or off
```
"#;

/// Most other members a `slug/similar` message names; the rest are
/// counted. Naming them all made a cluster of n slugs n² bytes of output
/// (20,000 `note-N` records: gigabytes).
pub(crate) const SIMILAR_NAMED: usize = 5;

/// `slug/similar`: near-duplicate slugs of one kind, reported once per
/// cluster on each member after the first in sorted order, naming the first
/// [`SIMILAR_NAMED`] others and counting the rest.
pub(crate) fn check(view: &View, out: &mut WsSink) {
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
        let mut replaced: crate::model::hashing::Set<&str> = Default::default();
        for e in view.records.iter().filter(|e| e.info.kind == Some(kind)) {
            paths.entry(e.slug).or_insert(e.path);
            if e.info.status.as_deref() == Some("replaced") {
                replaced.insert(e.slug);
            }
        }
        for cluster in &clusters {
            let cluster = active_members(cluster, |s| replaced.contains(s));
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
pub(crate) fn named_list<'s>(
    names: impl Iterator<Item = &'s str>,
    count: usize,
    most: usize,
) -> String {
    let shown: Vec<String> = names.take(most).map(|s| format!("`{s}`")).collect();
    let rest = count - shown.len();
    match shown.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, init)) if rest == 0 => format!("{} and {last}", init.join(", ")),
        Some(_) => format!("{} and {rest} more", shown.join(", ")),
    }
}

/// The members of a near-duplicate cluster that still count: a replaced
/// record was dealt with as the rule advises (one replaces the other), so
/// it is left out, and a cluster of fewer than two left is none.
pub(crate) fn active_members(cluster: &[String], replaced: impl Fn(&str) -> bool) -> Vec<String> {
    let active: Vec<String> = cluster.iter().filter(|s| !replaced(s)).cloned().collect();
    if active.len() < 2 {
        return Vec::new();
    }
    active
}
