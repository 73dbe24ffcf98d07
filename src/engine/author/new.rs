//! `memlint new decision|request|knowledge "Title"`: a record written by
//! command, checked by every rule before it exists.

use super::commit::{commit, Write};
use super::draft::Draft;
use super::replace;
use super::verify::{self, Current};
use super::AuthorError;
use crate::model::diagnostic::Diagnostic;
use crate::model::kind::{stem, Kind};
use crate::model::workspace::Workspace;
use serde::Serialize;

/// How `new` may go beyond the draft.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewOptions {
    /// Write it even when its slug is a near-duplicate of an active
    /// record's, or its title and body say nearly the same as one's, and
    /// point the record it replaces at it even when that one is already
    /// replaced by another.
    pub force: bool,
    /// The slug of a record of the same kind the new one replaces.
    pub replaces: Option<String>,
}

/// What `new` wrote.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Created {
    /// Root-relative path of the new record.
    pub path: String,
    pub kind: Kind,
    pub slug: String,
    /// The record's text as written.
    #[serde(skip)]
    pub text: String,
    /// Path of the record it replaces, if any, and of the records
    /// retargeted from that one.
    pub replaced: Option<String>,
    pub retargeted: Vec<String>,
    /// Warnings on what was written (an error refuses the write).
    pub warnings: Vec<Diagnostic>,
}

/// Writes the record `draft` describes, dated `today` unless it says
/// otherwise: refused when a record of that kind and slug exists, when its
/// slug is a near-duplicate of an active record (unless `force`), and when
/// any rule finds an error in it or in the records it changes.
///
/// # Examples
///
/// ```ignore
/// use memlint::engine::author::{self, Draft, NewOptions};
/// use memlint::model::workspace::Workspace;
/// use memlint::model::kind::Kind;
///
/// let cwd = std::env::current_dir().expect("the current directory");
/// let at = memlint::engine::workspace::Surroundings { cwd: &cwd, env: &|name| std::env::var(name).ok() };
/// let ws = memlint::engine::workspace::load(&at, None, None)?;
/// let draft = Draft {
///     kind: Some(Kind::Decision),
///     title: "Use gix for git reads".into(),
///     sources: vec!["file:docs/git.md".into()],
///     body: "Reads go through gix; pushing spawns git.".into(),
///     ..Draft::default()
/// };
/// match author::new(&ws, &draft, &NewOptions::default(), &author::today()) {
///     Ok(created) => println!("wrote {}", created.path),
///     Err(refused) => eprintln!("{refused}"),
/// }
/// # Ok::<(), memlint::engine::workspace::WorkspaceError>(())
/// ```
pub(crate) fn new(
    ws: &Workspace,
    draft: &Draft,
    opts: &NewOptions,
    today: &str,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Result<Created, AuthorError> {
    let mut laid = draft.lay_out(today)?;
    // Every `new` takes its turn before anything is read, so that two at
    // once cannot each miss the other: a slug, a similar slug or the same
    // content written meanwhile is seen by the next (a replacement also
    // changes the records it replaces).
    let _turn = replace::turn(ws);
    // Pinned at write, so that drift can be judged before the record is
    // committed, and without history; a source that cannot be pinned is
    // `sources/dangling`'s to report.
    if let Ok(pins) = super::pin::pins_for(ws, &draft.sources) {
        if let Some(text) = (!pins.is_empty())
            .then(|| super::front_pins::set_verified(&laid.text, today, &pins))
            .flatten()
        {
            laid.text = text;
        }
    }
    let own = verify::lint_text(ws, &laid.path, &laid.text).info;
    // Without a replacement, the kind's rows answer most of it.
    let quick = match &opts.replaces {
        Some(_) => None,
        None => super::quick::read(ws, &laid, &own, opts.force),
    };
    let (current, found) = match (quick, &opts.replaces) {
        (Some(q), _) => (q.current, Some((q.exists, q.similar, q.duplicates))),
        // A replacement changes records beyond the new one: the whole
        // workspace is read.
        (None, Some(_)) => (Current::read(ws), None),
        (None, None) => (Current::read_kinds(ws, &kinds_needed(&laid, &own)), None),
    };
    problems.extend(current.problems.iter().cloned());
    let exists = match &found {
        Some((exists, ..)) => *exists,
        None => current.record(laid.kind, &laid.slug).is_some(),
    };
    if exists || crate::io::files::symlink_metadata(ws.root.join(&laid.path)).is_ok() {
        return Err(AuthorError::Exists { path: laid.path });
    }
    let replaces = match &opts.replaces {
        Some(old) => {
            let old = super::draft::checked_slug(old)?;
            replace::plan(ws, &current, laid.kind, &old, &laid.slug, opts.force)?
        }
        None => None,
    };
    if !opts.force {
        let old = opts.replaces.as_deref();
        let (similar, duplicates) = match found {
            Some((_, similar, duplicates)) => (similar, Some(duplicates)),
            None => (
                similar_active(ws, &current, laid.kind, &laid.slug, old),
                None,
            ),
        };
        if !similar.is_empty() {
            return Err(AuthorError::Similar {
                slug: laid.slug,
                similar,
            });
        }
        let duplicates =
            duplicates.unwrap_or_else(|| duplicate_active(ws, &current, &laid, &own, old));
        if !duplicates.is_empty() {
            return Err(AuthorError::Duplicate {
                slug: laid.slug,
                duplicates,
            });
        }
    }
    let mut changes = vec![(laid.path.clone(), laid.text.clone())];
    changes.extend(replaces.iter().flat_map(|p| p.changes()));
    let diagnostics = verify::diagnostics(ws, &current, &changes);
    if verify::has_errors(&diagnostics) {
        return Err(AuthorError::Refused {
            path: laid.path,
            diagnostics,
            texts: changes,
        });
    }
    let (replaced, retargeted) = match &replaces {
        Some(p) => (
            Some(p.old_path.clone()),
            p.rewrites[1..].iter().map(|(p, ..)| p.clone()).collect(),
        ),
        None => (None, Vec::new()),
    };
    let mut writes = vec![Write::Create {
        path: laid.path.clone(),
        text: laid.text.clone(),
    }];
    writes.extend(replaces.into_iter().flat_map(|p| p.writes()));
    commit(&ws.root, writes)?;
    Ok(Created {
        path: laid.path,
        kind: laid.kind,
        slug: laid.slug,
        text: laid.text,
        replaced,
        retargeted,
        warnings: diagnostics,
    })
}

/// The kinds of record the rules on the new record `laid` need read: its
/// own (slug clash, similar slugs, near-duplicate content) and those its
/// sources name (`decision:`, `request:`, `knowledge:`: whether the record
/// named is replaced, and by what, is a chain within that kind).
fn kinds_needed(laid: &super::draft::Laid, info: &crate::lint::info::RecordInfo) -> Vec<Kind> {
    let mut kinds = vec![laid.kind];
    for s in &info.sources {
        let named = s
            .value
            .split_once(':')
            .and_then(|(prefix, _)| Kind::from_name(prefix))
            .filter(|k| matches!(k, Kind::Decision | Kind::Request | Kind::Knowledge));
        if let Some(k) = named.filter(|k| !kinds.contains(k)) {
            kinds.push(k);
        }
    }
    kinds
}

/// The active records of the new record's kind whose title and body say
/// nearly the same as its own (as `content/duplicate` judges them), but for
/// `except` (the record being replaced): (slug, path, percent alike),
/// most alike first. One comparison of 128 bytes per record of the kind.
fn duplicate_active(
    ws: &Workspace,
    current: &Current,
    laid: &super::draft::Laid,
    own: &crate::lint::info::RecordInfo,
    except: Option<&str>,
) -> Vec<(String, String, u8)> {
    if !ws
        .config
        .enabled(crate::model::rule::Rule::ContentDuplicate)
    {
        return Vec::new();
    }
    let Some(sketch) = own.sketch.as_ref() else {
        return Vec::new();
    };
    let mine = crate::syntax::similar::sketch::Likeness {
        sketch,
        shingles: own.shingles.as_deref(),
    };
    let candidates = current
        .of_kind(laid.kind)
        .filter(|r| r.info.parsed && r.info.status.as_deref() != Some("replaced"))
        .filter(|r| Some(stem(&r.path)) != except)
        .filter_map(|r| {
            let shingles = mine.shingles.and(r.info.shingles.clone());
            Some((r.path.as_str(), *r.info.sketch.as_ref()?, shingles))
        });
    super::quick::alike(ws, mine, candidates)
}

/// The active records of `kind` whose slugs are near-duplicates of `slug`
/// (as `slug/similar` judges them), but for `except` (the record being
/// replaced): (slug, path), sorted.
fn similar_active(
    ws: &Workspace,
    current: &Current,
    kind: Kind,
    slug: &str,
    except: Option<&str>,
) -> Vec<(String, String)> {
    if !ws.config.enabled(crate::model::rule::Rule::SlugSimilar) {
        return Vec::new();
    }
    let ratio = ws.config.similar_slug_ratio;
    let mut similar: Vec<(String, String)> = current
        .of_kind(kind)
        .filter(|r| r.info.status.as_deref() != Some("replaced"))
        .map(|r| (stem(&r.path), r))
        .filter(|(s, _)| Some(*s) != except && crate::model::kind::is_slug(s))
        .filter(|(s, _)| verify::near(slug, s, ratio))
        .map(|(s, r)| (s.to_string(), r.path.clone()))
        .collect();
    similar.sort();
    similar
}
