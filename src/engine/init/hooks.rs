//! `memlint init --hooks`: the git hooks written to `.githooks/` and
//! `core.hooksPath` pointed there, after a plan that refuses (unless
//! forced) to take over someone else's hooks.

use super::files::{create, inside, update_err, write_err, Report};
use super::templates::{AGENT_HOOKS, COMMIT_MSG, COMMIT_MSG_CHECK, PRE_COMMIT};
use crate::engine::advice::{Advice, Words};
use crate::engine::workspace::WorkspaceError;
use std::path::Path;

/// Why `init --hooks` will not install its hooks.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlanError {
    /// Someone else's hook or `core.hooksPath` is in the way: installing
    /// anyway is what `advice` says (overriding the refusal).
    #[error("{message}")]
    Refused { message: String, advice: Advice },
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
}

impl PlanError {
    /// What the user can do next, for the front end to word.
    pub(crate) fn advice(&self) -> Option<Advice> {
        match self {
            PlanError::Refused { advice, .. } => Some(advice.clone()),
            PlanError::Workspace(_) => None,
        }
    }
}

/// A refusal that installing anyway (forced) would then `then`.
fn refused(message: String, then: &str) -> PlanError {
    PlanError::Refused {
        message,
        advice: Advice::Overrule {
            then: then.to_string(),
        },
    }
}

/// Where `init --hooks` puts the hook, relative to the top of the work tree.
pub(crate) const HOOKS_DIR: &str = ".githooks";

/// `memlint init --hooks`, checked: everything that would stop the
/// installation (no repository, someone else's hook or `core.hooksPath`) is
/// found by [`Hooks::plan`] before `init` creates anything, and
/// [`Hooks::install`] then writes.
pub(crate) struct Hooks {
    repo: crate::io::git::Repo,
    top: std::path::PathBuf,
    script: String,
    force: bool,
    /// Whether the hook file already holds `script`.
    up_to_date: bool,
    /// The hook file as the plan read it: it is replaced only while it
    /// still is that, and created only where none is.
    existing: Existing,
}

/// What the plan of `init --hooks` found where the hook goes.
enum Existing {
    Nothing,
    File(crate::io::fs::Snapshot),
    /// Not a regular file (a FIFO, a directory): replaced only with --force.
    Other,
}

impl Hooks {
    /// Checks that `init --hooks` can install its hook for `root`. An
    /// existing, different hook or `core.hooksPath` is refused unless
    /// `force`.
    pub(crate) fn plan(root: &Path, force: bool) -> Result<Self, PlanError> {
        let usage = WorkspaceError::Usage;
        let repo = crate::io::git::Repo::open(root, crate::io::git::Asking::InitHooks)
            .map_err(WorkspaceError::Git)?;
        let top = repo
            .repo
            .workdir()
            .map(Path::to_path_buf)
            .ok_or_else(|| usage("the repository has no work tree".into()))?;
        let rel_root = repo.prefix.trim_end_matches('/');
        let script = if rel_root.is_empty() {
            PRE_COMMIT.to_string()
        } else {
            PRE_COMMIT.replacen(
                "\nroot=.\n",
                &format!("\nroot='{}'\n", rel_root.replace('\'', r"'\''")),
                1,
            )
        };
        let hook = top.join(HOOKS_DIR).join("pre-commit");
        let shown = format!("{HOOKS_DIR}/pre-commit");
        // Everything that would stop the installation is checked before
        // anything is written.
        inside(&top, &hook)?;
        let current = crate::io::git::hooks_path(&repo).map_err(|e| usage(e.to_string()))?;
        let git_hook = repo.repo.git_dir().join("hooks/pre-commit");
        match current.as_deref() {
            Some(HOOKS_DIR) => {}
            Some(other) if !force => {
                return Err(refused(
                    format!("core.hooksPath is already `{other}`, and git runs the hooks there"),
                    &format!(
                        "point it at {HOOKS_DIR} (the hooks in `{other}` then stop running)"
                    ),
                ))
            }
            None if git_hook.is_file() && !force => {
                return Err(PlanError::Refused {
                    message: format!(
                        ".git/hooks/pre-commit exists, and git would stop running it once core.hooksPath points at {HOOKS_DIR}; move what it does into {shown} after installing"
                    ),
                    advice: Advice::OrOverrule,
                })
            }
            _ => {}
        }
        let existing = match crate::io::fs::Snapshot::read(&hook, crate::io::fs::SMALL_FILE_MAX) {
            Ok(seen) => Existing::File(seen),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Existing::Nothing,
            // Anything but a regular file there (a FIFO too) is someone's,
            // never read or replaced without --force.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput && !force => {
                return Err(refused(
                    format!("{shown} exists and is not memlint's hook"),
                    "replace it",
                ))
            }
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Existing::Other,
            // A hook that cannot be read is not taken for a missing one.
            Err(e) => return Err(update_err(&hook)("read", e).into()),
        };
        let up_to_date = match &existing {
            Existing::File(e) if e.bytes == script.as_bytes() => true,
            Existing::File(_) if !force => {
                return Err(refused(
                    format!("{shown} exists and is not memlint's hook"),
                    "replace it",
                ))
            }
            _ => false,
        };
        Ok(Hooks {
            repo,
            top,
            script,
            force,
            up_to_date,
            existing,
        })
    }

    /// Writes `.githooks/pre-commit` at the top of the work tree, sets
    /// `core.hooksPath` through gix, and prints the agent-runtime hook
    /// settings.
    pub(crate) fn install(self, report: &mut Report, words: Words) -> Result<(), WorkspaceError> {
        let usage = WorkspaceError::Usage;
        let Hooks {
            repo,
            top,
            script,
            force,
            up_to_date,
            existing,
        } = self;
        let hook = top.join(HOOKS_DIR).join("pre-commit");
        let shown = format!("{HOOKS_DIR}/pre-commit");
        match up_to_date {
            true => report.say(format!("{shown} is up to date")),
            false => {
                let dir = top.join(HOOKS_DIR);
                crate::io::files::create_dir_all(&dir)
                    .map_err(write_err("create the directory", &dir))?;
                let changed = || {
                    usage(format!(
                        "{shown} changed while memlint was installing its hook; it was left as it is: look at it and rerun"
                    ))
                };
                match &existing {
                    Existing::File(seen) => {
                        let done =
                            crate::io::fs::replace_if_unchanged(&hook, seen, script.as_bytes())
                                .map_err(write_err("write", &hook))?;
                        if done == crate::io::fs::Replaced::Changed {
                            return Err(changed());
                        }
                    }
                    Existing::Nothing => {
                        if !create(&hook, script.as_bytes())? {
                            return Err(changed());
                        }
                    }
                    // Not a regular file, replaced on purpose (--force).
                    Existing::Other => crate::io::fs::write_atomic(&hook, script.as_bytes())
                        .map_err(write_err("write", &hook))?,
                }
                crate::io::files::set_executable(&hook)
                    .map_err(write_err("make executable", &hook))?;
                report.say(format!("wrote {shown}"));
            }
        }
        match crate::io::git::set_hooks_path(&repo, HOOKS_DIR, force)
            .map_err(|e| usage(e.to_string()))?
        {
            crate::io::git::HooksPath::Unchanged => {
                report.say(format!("core.hooksPath is already {HOOKS_DIR}"))
            }
            crate::io::git::HooksPath::Set => {
                report.say(format!("set core.hooksPath to {HOOKS_DIR}"))
            }
        }
        commit_msg_hook(&top, &script, report)?;
        if repo.repo.git_dir().join("hooks/pre-commit").is_file() {
            report.say(format!(
            "note: git now runs the hooks in {HOOKS_DIR}/, not .git/hooks/pre-commit; move what that hook does into {shown} if you still need it"
        ));
        }
        report.say(format!(
            "\nAgent-runtime hooks: add to your runtime settings, e.g. .claude/settings.json{}:\n{AGENT_HOOKS}",
            words(&Advice::MergeAgentSettings)
        ));
        Ok(())
    }
}

/// Writes `.githooks/commit-msg` (with the workspace root of `pre_commit`,
/// the script just written), unless a hook that is not memlint's is there:
/// that one is left as it is, with a note.
fn commit_msg_hook(
    top: &Path,
    pre_commit: &str,
    report: &mut Report,
) -> Result<(), WorkspaceError> {
    let root_line = pre_commit
        .lines()
        .find(|l| l.starts_with("root="))
        .unwrap_or("root=.");
    let script = COMMIT_MSG.replacen("\nroot=.\n", &format!("\n{root_line}\n"), 1);
    let path = top.join(HOOKS_DIR).join("commit-msg");
    let shown = format!("{HOOKS_DIR}/commit-msg");
    let mine = "written by `memlint init --hooks`";
    let written = crate::io::fs::update(
        &path,
        |bytes| match bytes {
            Some(b) if b == script.as_bytes() => Ok(None),
            Some(b) if !String::from_utf8_lossy(b).contains(mine) => Err(None),
            _ => Ok(Some(script.clone().into_bytes())),
        },
        |action, e| Some(format!("cannot {action} {}: {e}", path.display())),
    );
    match written {
        Ok(true) => {
            crate::io::files::set_executable(&path).map_err(write_err("make executable", &path))?;
            report.say(format!("wrote {shown}"));
        }
        Ok(false) => report.say(format!("{shown} is up to date")),
        Err(None) => report.say(format!(
            "left {shown} as it is (it is not memlint's); add `{COMMIT_MSG_CHECK}` to it"
        )),
        Err(Some(e)) => return Err(WorkspaceError::Usage(e)),
    }
    Ok(())
}
