//! Writing records by command: `memlint new`, `memlint replace`,
//! `memlint show` and `memlint staging add`, as engine functions the CLI,
//! the MCP server and the language server call alike.
//!
//! Every write is checked first: the files a command is about to write are
//! linted as they would be on disk, with the cross-record rules run over
//! the whole workspace as it would then be, and nothing is written on any
//! error. New files are created without ever replacing one
//! (`crate::io::fs::write_new`); changed files are replaced only while
//! they still hold what was read (`crate::io::fs::replace_if_unchanged`).

pub(crate) mod commit;
pub(crate) mod draft;
pub(crate) mod front_pins;
pub(crate) mod new;
pub(crate) mod pin;
pub(crate) mod quick;
pub(crate) mod recent;
pub(crate) mod replace;
pub(crate) mod show;
pub(crate) mod staging;
pub(crate) mod update;
pub(crate) mod verify;

pub(crate) use draft::Draft;
pub(crate) use new::{new, NewOptions};
pub(crate) use recent::recent;
pub(crate) use replace::replace;
pub(crate) use show::{show, Shown};
pub(crate) use staging::add_staging;
pub use update::{update, Changes, Updated};

use crate::engine::advice::{Name, Names};
use crate::engine::workspace::WorkspaceError;
use crate::model::diagnostic::Diagnostic;

/// Why an authoring command wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum AuthorError {
    /// The request itself is wrong (exit 2): an empty title, no slug to be
    /// had, a date that is not absolute, a record that does not exist.
    #[error("{0}")]
    Usage(String),
    /// The date given is not absolute (exit 2).
    #[error("{}", not_a_date(&Name::Date.to_string(), .date))]
    NotADate { date: String },
    /// The source given for an activity log is empty (exit 2).
    #[error("{}", empty_source(&Name::Source.to_string()))]
    EmptySource,
    /// The source given for an activity log spans lines (exit 2).
    #[error("{} must be one line", Name::Source)]
    SourceLines,
    /// A slug that names records of several kinds, where one is meant.
    #[error("`{slug}` names records of several kinds")]
    SeveralKinds { slug: String },
    /// No slug can be made from the title (exit 2): `why`, and an example
    /// of a slug for the front end to offer as the way to give one.
    #[error("{why}")]
    NeedSlug { why: String, example: String },
    /// The workspace cannot be used (exit 2).
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// A record of that kind and slug exists already (exit 1): memlint
    /// never overwrites one.
    #[error("{path} already exists; memlint never overwrites a record (change it in place, or write a new one that replaces it)")]
    Exists { path: String },
    /// The rules found errors in what would be written (exit 1); nothing
    /// was written. `texts` holds the text of each file the diagnostics
    /// are about, to render them.
    #[error("{} would have {} error(s); nothing was written", .path, .diagnostics.iter().filter(|d| d.severity == crate::model::severity::Severity::Error).count())]
    Refused {
        path: String,
        diagnostics: Vec<Diagnostic>,
        texts: Vec<(String, String)>,
    },
    /// The slug is a near-duplicate of active records of the same kind
    /// (exit 1): the agent should update one of them instead of adding
    /// another. `--force` writes it anyway.
    #[error("{slug} looks like a near-duplicate of {}; update that record instead", similar_list(.similar))]
    Similar {
        slug: String,
        /// (slug, path) of each similar active record.
        similar: Vec<(String, String)>,
    },
    /// The change would rewrite the active decision `slug` in place (exit
    /// 1): a new decision that replaces it is the way.
    #[error("decision `{slug}` is active, and an active decision is not rewritten in place (history/decision-rewritten; its sources and tags may be changed in place): write a new decision that replaces it")]
    Rewrite { slug: String },
    /// The front matter of the record at `path` cannot be read (exit 2):
    /// it is repaired by hand first.
    #[error("{path}: its front matter cannot be read; repair it first")]
    Unreadable { path: String },
    /// The record to replace is already replaced by another (exit 1): its
    /// successor is named. Forcing points it at the new record instead.
    #[error("`{old}` is already replaced by `{by}`{}; replace `{by}` instead", .path.as_ref().map(|p| format!(" ({p})")).unwrap_or_default())]
    AlreadyReplaced {
        old: String,
        /// The successor's slug.
        by: String,
        /// The successor's path, when it exists.
        path: Option<String>,
        new: String,
    },
    /// The title and body say nearly the same as active records of the
    /// same kind (exit 1): the agent should update one of them, or replace
    /// it. Forcing writes it anyway.
    #[error("{slug} says nearly the same as {}; update that record instead", duplicate_list(.duplicates))]
    Duplicate {
        slug: String,
        /// (slug, path, percent alike) of each such active record, most
        /// alike first.
        duplicates: Vec<(String, String, u8)>,
    },
    /// The change would close a `replaced_by` loop (exit 1).
    #[error("{0}")]
    Cycle(String),
    /// Another program changed a file while memlint was about to change
    /// it (exit 1); nothing was written.
    #[error("{0} changed while memlint was writing; nothing was written")]
    Changed(String),
    /// A file to be changed could not be read (exit 2).
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written (exit 2).
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

fn not_a_date(name: &str, date: &str) -> String {
    format!("{name} {date}: not an absolute date; give it as YYYY-MM-DD (memory outlives the day it was written, so relative dates are never stored)")
}

fn empty_source(name: &str) -> String {
    format!("{name} is empty; say where the activity log comes from (such as session:<id>)")
}

fn similar_list(similar: &[(String, String)]) -> String {
    let names: Vec<String> = similar
        .iter()
        .map(|(slug, path)| format!("`{slug}` ({path})"))
        .collect();
    names.join(", ")
}

fn duplicate_list(duplicates: &[(String, String, u8)]) -> String {
    let names: Vec<String> = duplicates
        .iter()
        .map(|(slug, path, percent)| format!("`{slug}` ({path}, {percent}% alike)"))
        .collect();
    names.join(", ")
}

impl AuthorError {
    /// The exit code docs/commands.md gives this outcome: 2 for a usage error or an
    /// unusable workspace, 1 for a refusal.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            AuthorError::Usage(_)
            | AuthorError::NotADate { .. }
            | AuthorError::EmptySource
            | AuthorError::SourceLines
            | AuthorError::SeveralKinds { .. }
            | AuthorError::NeedSlug { .. }
            | AuthorError::Workspace(_)
            | AuthorError::Read { .. }
            | AuthorError::Write { .. }
            | AuthorError::Unreadable { .. } => 2,
            _ => 1,
        }
    }

    /// The message, with what it names in a front end's `names` (the
    /// error's [`std::fmt::Display`] uses neutral ones); its
    /// [`AuthorError::advice`] follows it.
    pub(crate) fn text(&self, names: Names) -> String {
        match self {
            AuthorError::NotADate { date } => not_a_date(&names(&Name::Date), date),
            AuthorError::EmptySource => empty_source(&names(&Name::Source)),
            AuthorError::SourceLines => format!("{} must be one line", names(&Name::Source)),
            AuthorError::Workspace(e) => e.text(names),
            other => other.to_string(),
        }
    }

    /// What the user can do next, for the front end to word.
    pub(crate) fn advice(&self) -> Option<crate::engine::advice::Advice> {
        use crate::engine::advice::Advice;
        match self {
            AuthorError::Workspace(e) => e.advice(),
            AuthorError::Similar { .. } => Some(Advice::Force),
            AuthorError::Changed(_) => Some(Advice::Retry),
            AuthorError::SeveralKinds { .. } => Some(Advice::SayKind),
            AuthorError::NeedSlug { example, .. } => Some(Advice::GiveSlug {
                example: example.clone(),
            }),
            AuthorError::Duplicate { duplicates, .. } => Some(Advice::SupersedeOrForce {
                old: duplicates.first().map(|d| d.0.clone()).unwrap_or_default(),
            }),
            AuthorError::Rewrite { slug } => Some(Advice::ReplaceDecision { slug: slug.clone() }),
            AuthorError::Unreadable { path } => Some(Advice::Check { path: path.clone() }),
            AuthorError::AlreadyReplaced { old, new, .. } => Some(Advice::RePoint {
                old: old.clone(),
                new: new.clone(),
            }),
            _ => None,
        }
    }
}

/// Today's date in UTC, as memlint writes dates.
pub(crate) fn today() -> String {
    crate::model::clock::date(crate::model::clock::now_secs())
}
