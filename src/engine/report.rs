//! `memlint report` (docs/commands.md): the tidy-up material the consolidation worker
//! reads — every diagnostic per record, the `replaced_by` chains, records
//! over `max_sources`, near-duplicate slug clusters, records that say
//! nearly the same thing and the staging backlog.
//! Built from the index, so a warm report re-reads only changed files.

use crate::engine::staging::Backlog;
use crate::lint::info::RecordInfo;
use crate::lint::rules::workspace::{NoDisk, View};
use crate::model::diagnostic;
use crate::model::diagnostic::Diagnostic;
use crate::model::severity::Severity;
use crate::model::workspace::Workspace;
use std::fmt::Write as _;

/// What `report` found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Report {
    /// Number of records (files of a record kind) in the workspace.
    pub records: usize,
    /// Every diagnostic of the workspace, sorted as `check` sorts them.
    pub diagnostics: Vec<Diagnostic>,
    /// Maximal `replaced_by` chains, first record to final one, as slugs.
    pub replaced_chains: Vec<Vec<String>>,
    /// Paths of records listing more than `max_sources` sources.
    pub too_many_sources: Vec<String>,
    /// Clusters of near-duplicate slugs of one kind.
    pub similar_slugs: Vec<Vec<String>>,
    /// Pairs of active records of one kind whose title and body say nearly
    /// the same thing (`content/duplicate`), sorted by path.
    pub duplicates: Vec<crate::lint::rules::content::Pair>,
    /// The staging backlog.
    pub staging: Backlog,
    /// Records with a `sources/drifted` finding: a cited file changed
    /// since they were written or verified.
    pub drifted: Vec<String>,
    /// What reading the workspace met (an unreadable directory, an ignore
    /// file not read, a git repository not read, a `.memlint` that cannot
    /// hold the caches), for the front end to report.
    pub problems: Vec<crate::model::workspace::Problem>,
}

/// Builds the report for the whole workspace, refreshing the index.
pub(crate) fn build(
    ws: &Workspace,
    opts: &crate::engine::scan::Options,
) -> Result<Report, crate::engine::staging::StagingError> {
    build_with_records(ws, opts).map(|(report, _)| report)
}

/// [`build`], and the fields of every record (path and what was read of
/// its front matter), for the HTML report.
pub(crate) fn build_with_records(
    ws: &Workspace,
    opts: &crate::engine::scan::Options,
) -> Result<(Report, Vec<(String, RecordInfo)>), crate::engine::staging::StagingError> {
    let staging = crate::engine::staging::backlog(&ws.root, &ws.config.staging)?;
    let listing = crate::store::listing::listing(ws);
    let files = listing.files;
    let (reports, mut diagnostics, mut problems) =
        crate::engine::check::lint::findings(ws, &files, opts);
    problems.extend(listing.problems);
    let view = View::new(
        reports.iter().map(|r| (r.path.as_str(), &r.info)),
        &ws.config,
        // Its diagnostics come from `check::findings`, which has the real
        // resolver: the view is only read for chains and clusters.
        &NoDisk,
    );
    let replaced_chains = crate::lint::rules::status::replaced_chains(&view);
    let mut similar_slugs: Vec<Vec<String>> = crate::store::slugs::slug_clusters(ws, &files)
        .into_iter()
        .flat_map(|(kind, clusters)| {
            let view = &view;
            clusters.into_iter().map(move |c| {
                crate::lint::rules::slug::similar::active_members(&c, |s| {
                    view.get(kind, s)
                        .is_some_and(|e| e.info.status.as_deref() == Some("replaced"))
                })
            })
        })
        .filter(|c| !c.is_empty())
        .collect();
    similar_slugs.sort();
    // Computed by `check::findings` just now: read from the cache.
    let duplicates = crate::store::duplicates::pairs(ws, &view);
    let too_many_sources = reports
        .iter()
        .filter(|r| r.info.kind.is_some() && r.info.sources.len() > ws.config.max_sources)
        .map(|r| r.path.clone())
        .collect();
    let records = reports.iter().filter(|r| r.info.kind.is_some()).count();
    drop(view);
    let drift = crate::engine::drift::drifted(
        ws,
        reports.iter().map(|r| (r.path.as_str(), &r.info)),
        crate::engine::drift::Mode::WorkTree,
    );
    let mut drifted: Vec<String> = drift.diagnostics.iter().map(|d| d.path.clone()).collect();
    drifted.sort();
    drifted.dedup();
    diagnostics.extend(drift.diagnostics);
    let mut infos = Vec::with_capacity(records);
    for r in reports {
        let r = *r;
        diagnostics.extend(r.diagnostics);
        if r.info.kind.is_some() {
            infos.push((r.path, r.info));
        }
    }
    diagnostic::sort(&mut diagnostics);
    let report = Report {
        records,
        diagnostics,
        replaced_chains,
        too_many_sources,
        similar_slugs,
        duplicates,
        staging,
        drifted,
        problems,
    };
    Ok((report, infos))
}

impl Report {
    /// The JSON shape of docs/commands.md, keys in the order the specification
    /// lists them.
    pub(crate) fn json(&self) -> String {
        #[derive(serde::Serialize)]
        struct Shape<'a> {
            records: usize,
            diagnostics: &'a [Diagnostic],
            replaced_chains: &'a [Vec<String>],
            too_many_sources: &'a [String],
            similar_slugs: &'a [Vec<String>],
            staging: &'a Backlog,
            duplicates: Vec<Duplicate<'a>>,
            drifted: &'a [String],
        }
        #[derive(serde::Serialize)]
        struct Duplicate<'a> {
            records: [&'a str; 2],
            percent: u8,
        }
        let shape = Shape {
            records: self.records,
            diagnostics: &self.diagnostics,
            replaced_chains: &self.replaced_chains,
            too_many_sources: &self.too_many_sources,
            similar_slugs: &self.similar_slugs,
            staging: &self.staging,
            duplicates: self
                .duplicates
                .iter()
                .map(|p| Duplicate {
                    records: [&p.first, &p.second],
                    percent: p.percent,
                })
                .collect(),
            drifted: &self.drifted,
        };
        crate::syntax::sanitize::json(&shape)
    }

    /// Plain text for a terminal: diagnostics grouped per record, then one
    /// section per kind of tidy-up material.
    pub(crate) fn human(&self) -> String {
        let mut out = String::new();
        let mut last: Option<&str> = None;
        for d in &self.diagnostics {
            if last != Some(d.path.as_str()) {
                if last.is_some() {
                    out.push('\n');
                }
                let _ = writeln!(out, "{}", shown(&d.path));
                last = Some(&d.path);
            }
            let _ = writeln!(
                out,
                "  {}:{} {} {}: {}",
                d.line,
                d.column,
                d.severity.as_str(),
                d.rule,
                shown(&d.message)
            );
        }
        if last.is_some() {
            out.push('\n');
        }
        section(&mut out, "Replaced chains", &self.replaced_chains, |c| {
            shown(&c.join(" → "))
        });
        section(
            &mut out,
            "Records over max_sources",
            &self.too_many_sources,
            |p| shown(p),
        );
        section(&mut out, "Drifted records", &self.drifted, |p| shown(p));
        // The JSON lists every member; a terminal line names the first few.
        section(&mut out, "Similar slugs", &self.similar_slugs, |c| {
            let names = c.iter().take(SIMILAR_SHOWN).map(String::as_str);
            let mut line = shown(&names.collect::<Vec<_>>().join(", "));
            if c.len() > SIMILAR_SHOWN {
                let _ = write!(line, " and {} more", c.len() - SIMILAR_SHOWN);
            }
            line
        });
        section(&mut out, "Duplicate records", &self.duplicates, |p| {
            shown(&format!(
                "{} ≈ {} ({}% alike)",
                p.first, p.second, p.percent
            ))
        });
        let _ = writeln!(
            out,
            "Staging: {} {}, {} bytes, {}",
            self.staging.files,
            if self.staging.files == 1 {
                "file"
            } else {
                "files"
            },
            self.staging.bytes,
            if self.staging.due {
                "due for consolidation"
            } else {
                "not due"
            }
        );
        let errors: usize = self
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(Diagnostic::count)
            .sum();
        let warnings = self
            .diagnostics
            .iter()
            .map(Diagnostic::count)
            .sum::<usize>()
            - errors;
        let _ = writeln!(
            out,
            "{} records, {} errors, {} warnings.",
            self.records, errors, warnings
        );
        out
    }
}

/// Most members of a similar-slug cluster the human report names.
const SIMILAR_SHOWN: usize = 10;

/// A name or message as a terminal shows it: secrets masked, control
/// characters (line feeds included) as visible symbols, so a file name
/// never reaches the terminal as an escape sequence or breaks a line.
fn shown(text: &str) -> String {
    crate::syntax::sanitize::line(text).into_owned()
}

fn section<T>(out: &mut String, title: &str, items: &[T], line: impl Fn(&T) -> String) {
    if items.is_empty() {
        let _ = writeln!(out, "{title}: none");
        return;
    }
    let _ = writeln!(out, "{title} ({}):", items.len());
    for item in items {
        let _ = writeln!(out, "  {}", line(item));
    }
}
