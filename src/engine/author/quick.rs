//! What `memlint new` reads of the records of its kind when the new record
//! names no record of another kind: the kind's rows
//! (`.memlint/kind.<kind>`, see `store::kinds`), each proved fresh by its
//! stat data or read again, and in full only the few records the rules on
//! the new record look at (those it names, the `replaced_by` chains from
//! them, and those it nearly duplicates). The similar slugs and the
//! near-duplicates are found over the rows, without decoding a table entry.

use super::draft::Laid;
use super::verify::{self, Current};
use crate::io::stat::{now_ns, Dirs, Stat};
use crate::lint::info::{FileReport, RecordInfo};
use crate::model::kind::{classify, is_slug, stem, Kind, Place};
use crate::model::workspace::{Problem, Workspace};
use crate::store::kinds::{self, Row};
use crate::store::table::Entry;
use crate::syntax::similar::sketch::{may_reach, Likeness, Shingles, Sketch, BINS};
use rayon::prelude::*;

/// How many of the kind's records may be read again (changed, added or
/// racy) before the rows are written again with them.
const STALE_ROWS: usize = 32;

/// What the quick read found.
pub(crate) struct Quick {
    /// The records the rules on the new record look at, in full, and
    /// every record of the kind by name.
    pub current: Current,
    /// A record of the kind with the new record's slug exists.
    pub exists: bool,
    /// Active records whose slugs are near-duplicates of the new one's
    /// (not looked for when forced): (slug, path), sorted.
    pub similar: Vec<(String, String)>,
    /// Active records whose content the new record nearly duplicates:
    /// (slug, path, percent alike), most alike first.
    pub duplicates: Vec<(String, String, u8)>,
}

/// One record of the kind: its row, still true, or its entry read again.
enum Got<'a> {
    Row(Row<'a>),
    Read(Entry),
}

impl Got<'_> {
    /// (parsed, replaced, sketch bins).
    fn fields(&self) -> (bool, bool, Option<&[u8; BINS]>) {
        match self {
            Got::Row(r) => (r.parsed, r.replaced, r.sketch),
            Got::Read(e) => {
                let info = &e.report.info;
                (
                    info.parsed,
                    info.status.as_deref() == Some("replaced"),
                    info.sketch.as_ref().map(|s| &s.0),
                )
            }
        }
    }
}

/// The quick read for the new record `laid` (whose own fields are
/// `info`), or `None` when it does not apply: the record names a record
/// of another kind or a session (whose checks need those kinds), names a
/// record that does not exist (whose message suggests the closest slug
/// of all), no record table is stored yet, or a record of the kind cannot
/// be read (`check`'s reading reports it).
pub(crate) fn read(ws: &Workspace, laid: &Laid, info: &RecordInfo, force: bool) -> Option<Quick> {
    let kind = laid.kind;
    let named = named(kind, info)?;
    let key = crate::io::cache::key(&ws.config);
    let start = now_ns();
    let stored = kinds::load(&ws.root, kind);
    let rows = stored.as_ref().and_then(|s| s.rows(&ws.root, key));
    let listing_now = crate::store::listing::listing_id(ws);
    let (names, listing, problems): (Vec<String>, Option<u64>, Vec<Problem>) = match &rows {
        Some(r) if listing_now == Some(r.listing) => (
            r.rows.iter().map(|r| r.path.to_string()).collect(),
            listing_now,
            crate::io::cache::refused(&ws.root).into_iter().collect(),
        ),
        _ => {
            let l = crate::store::listing::listing(ws);
            let names = l
                .files
                .into_iter()
                .filter(|f| classify(f, &ws.config.banned_dirs) == Place::Record(kind))
                .collect();
            (names, l.id, l.problems)
        }
    };
    // How many of the stored rows are still records of the kind.
    let mut matched = 0;
    let got: Vec<Got> = match &rows {
        Some(r) => refreshed(ws, &names, &r.rows, &mut matched)?,
        None => {
            // No rows yet: the kind's table entries, as `new` read them
            // before there were rows.
            let pick = |_: &str| true;
            let stored = crate::store::table::load_picked(&ws.root, key, &[Some(kind)], &pick)?;
            crate::engine::scan::refresh_picked(ws, &names, stored.entries, stored.scanned_at)
                .into_iter()
                .map(Got::Read)
                .collect()
        }
    };
    let read_again = got.iter().filter(|g| matches!(g, Got::Read(_))).count();
    let gone = rows.as_ref().map_or(0, |r| r.rows.len() - matched);
    if let Some(id) = listing {
        // A listing stored again alone (a record added) does not make the
        // rows stale: the kind's records then come from the listing, and
        // writing the rows again would cost the run more than that.
        let stale = rows.as_ref().is_none_or(|_| read_again + gone > STALE_ROWS);
        if stale {
            let new_rows: Vec<Row> = names
                .iter()
                .zip(&got)
                .map(|(path, g)| row(path, g, start))
                .collect();
            // A cache: when it cannot be written, the next run reads again.
            let _ = kinds::save(&ws.root, kind, key, id, &new_rows);
        }
    }
    drop(rows);
    let similar = match force || !ws.config.enabled(crate::model::rule::Rule::SlugSimilar) {
        true => Vec::new(),
        false => similar(ws, &laid.slug, &names, &got),
    };
    let duplicates = duplicates(ws, info, &names, &got);
    let exists = names.iter().any(|n| stem(n) == laid.slug);
    let reports = looked_at(ws, kind, &named, &duplicates, &names, got)?;
    Some(Quick {
        current: Current {
            reports,
            unread: names,
            problems,
        },
        exists,
        similar,
        duplicates,
    })
}

/// The slugs of the records `info`'s sources name, when all are of
/// `kind`; `None` when one names a record of another kind or a session.
fn named(kind: Kind, info: &RecordInfo) -> Option<Vec<String>> {
    let mut named = Vec::new();
    for s in &info.sources {
        let Some((prefix, value)) = s.value.split_once(':') else {
            continue;
        };
        if prefix == "cmem" {
            return None;
        }
        match Kind::from_name(prefix) {
            Some(k @ (Kind::Decision | Kind::Request | Kind::Knowledge)) if k != kind => {
                return None
            }
            Some(Kind::Decision | Kind::Request | Kind::Knowledge) => named.push(value.to_string()),
            _ => {}
        }
    }
    Some(named)
}

/// Each of `names` (sorted) with its row when the row still holds (the
/// same stat data, not racy), else read again; `None` when a record
/// cannot be read.
fn refreshed<'a>(
    ws: &Workspace,
    names: &[String],
    rows: &[Row<'a>],
    matched: &mut usize,
) -> Option<Vec<Got<'a>>> {
    let mut rows = rows.iter().peekable();
    let aligned: Vec<Option<Row>> = names
        .iter()
        .map(|n| {
            while rows.next_if(|r| r.path < n.as_str()).is_some() {}
            rows.next_if(|r| r.path == n.as_str()).cloned()
        })
        .collect();
    *matched = aligned.iter().filter(|r| r.is_some()).count();
    let max = ws.config.max_file_bytes;
    names
        .par_iter()
        .zip(aligned.into_par_iter())
        .with_min_len(512)
        .map_init(
            || Dirs::new(&ws.root),
            |dirs, (name, row)| match row {
                Some(r) if !r.racy && dirs.stat(name) == Some(r.stat) => Some(Got::Row(r)),
                _ => {
                    let e = crate::engine::scan::read_entry(ws, name, dirs.read(name, max));
                    e.stat.is_some().then_some(Got::Read(e))
                }
            },
        )
        .collect()
}

/// The row of `path` as `g` gives it; a record read again is racy when it
/// was modified too close to `start`, before it was read.
fn row<'a>(path: &'a str, g: &'a Got, start: i64) -> Row<'a> {
    match g {
        Got::Row(r) => r.clone(),
        Got::Read(e) => {
            let (parsed, replaced, sketch) = g.fields();
            let shingles = e
                .report
                .info
                .shingles
                .as_deref()
                .map(|set| std::borrow::Cow::Owned(set.to_vec()));
            Row {
                path,
                stat: e.stat.unwrap_or_default(),
                parsed,
                replaced,
                racy: e.stat.is_none_or(|s: Stat| s.racy(start)),
                sketch,
                shingles,
            }
        }
    }
}

/// As `new::similar_active` finds them, over the rows.
fn similar(ws: &Workspace, slug: &str, names: &[String], got: &[Got]) -> Vec<(String, String)> {
    let ratio = ws.config.similar_slug_ratio;
    let mut out: Vec<(String, String)> = names
        .iter()
        .zip(got)
        .filter(|(_, g)| !g.fields().1)
        .map(|(n, _)| (stem(n), n))
        .filter(|(s, _)| is_slug(s) && verify::near(slug, s, ratio))
        .map(|(s, n)| (s.to_string(), n.clone()))
        .collect();
    out.sort();
    out
}

/// The active records of the rows nearly alike the new one (see
/// [`alike`]).
fn duplicates(
    ws: &Workspace,
    info: &RecordInfo,
    names: &[String],
    got: &[Got],
) -> Vec<(String, String, u8)> {
    if !ws
        .config
        .enabled(crate::model::rule::Rule::ContentDuplicate)
    {
        return Vec::new();
    }
    let Some(sketch) = info.sketch.as_ref() else {
        return Vec::new();
    };
    let mine = Likeness {
        sketch,
        shingles: info.shingles.as_deref(),
    };
    let ratio = ws.config.similar_content_ratio;
    let candidates = names.iter().zip(got).filter_map(|(n, g)| {
        let (parsed, replaced, bins) = g.fields();
        if !parsed || replaced {
            return None;
        }
        let sketch = Sketch(*bins?);
        // A row's shingles are decoded only when the new record has some
        // to compare them with and the two may be alike enough.
        let shingles = match (mine.shingles, g) {
            (None, _) => None,
            (Some(own), Got::Row(r)) => {
                let n = r
                    .shingles
                    .as_ref()
                    .map_or(0, |b| b.len() / 4)
                    .min(own.len() / 4);
                may_reach(sketch.similarity(mine.sketch), ratio, n)
                    .then(|| r.shingles())
                    .flatten()
            }
            (Some(_), Got::Read(e)) => e.report.info.shingles.clone(),
        };
        Some((n.as_str(), sketch, shingles))
    });
    alike(ws, mine, candidates)
}

/// The records the rules on the new record look at, in full: those it
/// names (`named`, slugs of `kind`), the `replaced_by` chains from them,
/// and its near-duplicates. `None` when a named record does not exist or
/// one cannot be read.
fn looked_at(
    ws: &Workspace,
    kind: Kind,
    named: &[String],
    duplicates: &[(String, String, u8)],
    names: &[String],
    got: Vec<Got>,
) -> Option<Vec<Box<FileReport>>> {
    let mut got: Vec<Option<Got>> = got.into_iter().map(Some).collect();
    let by_stem = |slug: &str| names.iter().position(|n| stem(n) == slug);
    let mut todo: Vec<usize> = Vec::new();
    for slug in named {
        // A slug that is no record: `sources/dangling` suggests the
        // closest of every slug, which only the full read has.
        if !is_slug(slug) {
            continue;
        }
        todo.push(by_stem(slug)?);
    }
    for (_, path, _) in duplicates {
        todo.extend(names.iter().position(|n| n == path));
    }
    let mut reports: Vec<Box<FileReport>> = Vec::new();
    let mut dirs = Dirs::new(&ws.root);
    while let Some(i) = todo.pop() {
        let Some(g) = got[i].take() else { continue };
        let report = match g {
            Got::Read(e) => e.report,
            Got::Row(r) => {
                let e = crate::engine::scan::read_entry(
                    ws,
                    r.path,
                    dirs.read(r.path, ws.config.max_file_bytes),
                );
                e.stat?;
                e.report
            }
        };
        // The chain goes on within the kind.
        if let Some(next) = report.info.replaced_by.as_ref() {
            todo.extend(by_stem(&next.value));
        }
        debug_assert_eq!(report.info.kind, Some(kind));
        reports.push(report);
    }
    Some(reports)
}

/// The `candidates` (path, sketch, a short text's shingles) at least
/// `similar_content_ratio` alike `mine`: (slug, path, percent alike), most
/// alike first, then by path.
pub(super) fn alike<'a>(
    ws: &Workspace,
    mine: Likeness,
    candidates: impl Iterator<Item = (&'a str, Sketch, Option<Shingles>)>,
) -> Vec<(String, String, u8)> {
    let ratio = ws.config.similar_content_ratio;
    let mut found: Vec<(String, String, u8)> = candidates
        .filter_map(|(path, sketch, shingles)| {
            let theirs = Likeness {
                sketch: &sketch,
                shingles: shingles.as_deref(),
            };
            theirs.at_least(&mine, ratio).map(|alike| {
                let percent = (alike * 100.0).round() as u8;
                (stem(path).to_string(), path.to_string(), percent)
            })
        })
        .collect();
    found.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
    found
}
