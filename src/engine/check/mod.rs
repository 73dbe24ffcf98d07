//! `memlint check` as one use case: the paths given resolved into a
//! [`Selection`], then the version the [`Mode`] names linted (the work
//! tree, fixed first when asked; the staged version; the commit message
//! being written; the changes since a base), returned as [`Checked`] for the
//! front end to render. Linting the work tree itself is `lint`'s.

pub(crate) mod lint;

use crate::engine::check::lint::Outcome;
use crate::engine::workspace::WorkspaceError;
use crate::model::workspace::Workspace;
use std::path::PathBuf;

/// Which version `check` lints.
#[derive(Debug, Clone, Copy)]
pub enum Mode<'a> {
    /// The work tree; `fix`: the fixable findings are repaired first.
    WorkTree { fix: bool },
    /// The version staged in the git index, against the staged view of the
    /// whole workspace.
    Staged,
    /// The `history/*` rules on the commit being made, with the trailers
    /// of its `message`.
    CommitMessage { message: &'a str },
    /// The records changed since `rev`, linted at HEAD, and the
    /// `history/*` rules.
    Base { rev: &'a str },
}

/// One path given.
#[derive(Debug, Clone)]
struct Given {
    /// As given, for messages.
    shown: String,
    /// Root-relative, `/`-separated (empty for the root).
    rel: String,
    /// Whether it exists inside the root.
    exists: bool,
    /// Whether it was warned about as skipped (a link out of the root).
    skipped: bool,
}

/// The files a check reports on: those under the paths given, or all.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    given: Vec<Given>,
}

impl Selection {
    /// Every file of the workspace.
    pub fn all() -> Selection {
        Selection::default()
    }

    /// The files under `paths` (relative to the current directory, or
    /// absolute) for a mode that `reads_git` (any but [`Mode::WorkTree`]),
    /// or not: what to warn about (in the work tree, a path nothing under
    /// which is looked at), and the selection. A path outside the root is a
    /// usage error, and so is one missing from the work tree when the mode
    /// reads it (a path gone from the work tree may still be in git's
    /// versions); the warnings about the paths before it still hold.
    pub fn of(
        ws: &Workspace,
        paths: &[PathBuf],
        reads_git: bool,
    ) -> (Vec<String>, Result<Selection, WorkspaceError>) {
        let mut warnings = Vec::new();
        let mut given = Vec::new();
        for p in paths {
            let g = match crate::engine::workspace::given(ws, p) {
                Ok(g) => g,
                Err(e) => return (warnings, Err(e)),
            };
            if !reads_git {
                if let Some(why) = &g.skipped {
                    warnings.push(why.clone());
                } else if !g.exists {
                    let e = WorkspaceError::Usage(format!(
                        "{}: no such file or directory",
                        p.display()
                    ));
                    return (warnings, Err(e));
                }
            }
            given.push(Given {
                shown: p.display().to_string(),
                rel: g.rel,
                exists: g.exists,
                skipped: g.skipped.is_some(),
            });
        }
        (warnings, Ok(Selection { given }))
    }

    /// Whether the root-relative file `f` is selected.
    pub(crate) fn selects(&self, f: &str) -> bool {
        self.given.is_empty()
            || self.given.iter().any(|g| {
                g.rel.is_empty()
                    || f == g.rel
                    || f.strip_prefix(&g.rel).is_some_and(|r| r.starts_with('/'))
            })
    }
}

/// What a `check` found, and what the front end says besides the findings.
#[derive(Debug, Default)]
pub struct Checked {
    /// The findings.
    pub outcome: Outcome,
    /// What `--fix` did ([`Mode::WorkTree`] with `fix`).
    pub fixed: Option<crate::engine::fix::Report>,
    /// The modes that read git: the paths given that name nothing in the
    /// work tree nor in the version checked, as the usage error to give
    /// once the outcome's notes are said.
    pub unmatched: Option<String>,
    /// The work tree: why a path given selects no file (or why nothing
    /// was checked when no path was given), to warn about after the
    /// findings.
    pub selects_nothing: Vec<String>,
    /// The work tree: the workspace's files, kept (as
    /// `Outcome::reports`) so that the caller decides when to free them.
    pub files: Vec<String>,
}

/// Runs `check` in `mode` on the files of `selection`, reading the index
/// with `opts`; the texts of the files with findings are kept in
/// `Outcome::sources` only when `texts` is true (for output that shows
/// source lines).
///
/// # Examples
///
/// ```no_run
/// use memlint::engine::check::{self, Mode, Selection};
/// use memlint::engine::workspace::Surroundings;
/// use std::path::Path;
///
/// let cwd = std::env::current_dir().expect("the current directory");
/// let at = Surroundings { cwd: &cwd, env: &|name| std::env::var(name).ok() };
/// let ws = memlint::engine::workspace::load(&at, Some(Path::new("fixtures/example")), None)?;
/// let opts = memlint::engine::scan::Options { force: false, progress: None };
/// let mode = Mode::WorkTree { fix: false };
/// let checked = check::run(&ws, &mode, &Selection::all(), false, &opts)?;
/// for d in &checked.outcome.diagnostics {
///     println!("{}:{}:{}: {} {}", d.path, d.line, d.column, d.rule, d.message);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(
    ws: &Workspace,
    mode: &Mode,
    selection: &Selection,
    texts: bool,
    opts: &crate::engine::scan::Options,
) -> Result<Checked, WorkspaceError> {
    run_with_texts(ws, mode, selection, lint::Texts::from(texts), opts)
}

/// [`run`], keeping the texts of the files with findings as `texts` says:
/// [`lint::Texts::Deferred`] defers those of the work tree's files the
/// record table knows (the git modes read them all).
pub(crate) fn run_with_texts(
    ws: &Workspace,
    mode: &Mode,
    selection: &Selection,
    texts: lint::Texts,
    opts: &crate::engine::scan::Options,
) -> Result<Checked, WorkspaceError> {
    let git_error = WorkspaceError::Git;
    let selected = |f: &str| selection.selects(f);
    let all = texts != lint::Texts::None;
    let outcome = match mode {
        Mode::WorkTree { fix } => return Ok(work_tree(ws, *fix, selection, texts, opts)),
        Mode::CommitMessage { message } => {
            crate::engine::history::staged_history(ws, message, &selected).map_err(git_error)?
        }
        Mode::Staged => crate::engine::version::staged(ws, &selected, all).map_err(git_error)?,
        Mode::Base { rev } => {
            crate::engine::version::base(ws, rev, &selected, all).map_err(git_error)?
        }
    };
    let missing: Vec<&str> = selection
        .given
        .iter()
        .filter(|g| !g.exists)
        .map(|g| g.shown.as_str())
        .collect();
    // The commit message is checked after the pre-commit hook has checked
    // the paths.
    let commit_message = matches!(mode, Mode::CommitMessage { .. });
    let unmatched = (outcome.files == 0 && !missing.is_empty() && !commit_message).then(|| {
        format!(
            "{}: no such file or directory, in the work tree or in the version checked",
            missing.join(", ")
        )
    });
    Ok(Checked {
        outcome,
        unmatched,
        ..Checked::default()
    })
}

/// [`run`] on the work tree: fixed first when `fix`, then linted.
fn work_tree(
    ws: &Workspace,
    fix: bool,
    selection: &Selection,
    texts: lint::Texts,
    opts: &crate::engine::scan::Options,
) -> Checked {
    let selected = |f: &str| selection.selects(f);
    let listing = crate::store::listing::listing(ws);
    let files = listing.files;
    let fixed = fix.then(|| crate::engine::fix::run(ws, &files, &selected, opts));
    let mut outcome = lint::run_texts(ws, &files, &selected, opts, texts);
    outcome.problems.extend(listing.problems);
    // "No problems in 0 files." alone would not say why.
    let asked: Vec<(&str, &str)> = match selection.given.is_empty() && outcome.files == 0 {
        true => vec![("", ".")],
        false => selection
            .given
            .iter()
            .filter(|g| !g.skipped)
            .map(|g| (g.rel.as_str(), g.shown.as_str()))
            .collect(),
    };
    let selects_nothing = asked
        .into_iter()
        .filter_map(|(rel, shown)| {
            crate::engine::workspace::selects_nothing(ws, rel, shown, &files)
        })
        .collect();
    Checked {
        outcome,
        fixed,
        unmatched: None,
        selects_nothing,
        files,
    }
}
