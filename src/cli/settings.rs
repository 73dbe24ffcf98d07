//! What the global flags mean (ripgrep's hiargs): colour decided, workspace
//! found and its configuration loaded.

use super::args::{ColorChoice, GlobalArgs};
use crate::engine::workspace::{Surroundings, WorkspaceError};
use crate::model::workspace::Workspace;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// The process's current directory, which the engine is given (it never
/// reads it itself).
pub(super) fn cwd() -> Result<PathBuf, WorkspaceError> {
    std::env::current_dir().map_err(|source| WorkspaceError::Io {
        path: ".".into(),
        source,
    })
}

/// Reads the process's environment, for the engine.
pub(super) fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Loads the workspace from the process's current directory and
/// environment: `root` overrides discovery, `config` the configuration file.
pub(super) fn load(
    root: Option<&Path>,
    config: Option<&Path>,
) -> Result<Workspace, WorkspaceError> {
    let cwd = cwd()?;
    crate::engine::workspace::load(
        &Surroundings {
            cwd: &cwd,
            env: &env,
        },
        root,
        config,
    )
}

/// Resolved global settings.
pub(crate) struct Settings {
    /// Whether to colour human output (`--color`, `NO_COLOR`, a terminal).
    pub color: bool,
    /// `--quiet`.
    pub quiet: bool,
    /// The workspace found and its configuration loaded.
    pub workspace: Workspace,
}

impl Settings {
    /// Resolves the global flags, loading the workspace they name.
    pub(crate) fn resolve(global: &GlobalArgs) -> Result<Settings, WorkspaceError> {
        let color = match global.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        };
        let workspace = load(global.root.as_deref(), global.config.as_deref())?;
        Ok(Settings {
            color,
            quiet: global.quiet,
            workspace,
        })
    }
}

impl Settings {
    /// Resolves the global flags for a command that reads or writes the
    /// memory (`search`, `context`, `index`, `new`, `replace`, `show`): a
    /// root that is no workspace is an error saying how to make one, and
    /// nothing (`.memlint/`, `memory/`) is created there.
    pub(crate) fn resolve_workspace(global: &GlobalArgs) -> Result<Settings, WorkspaceError> {
        let s = Settings::resolve(global)?;
        match crate::engine::workspace::is_workspace(&s.workspace.root) {
            true => Ok(s),
            false => Err(WorkspaceError::NoWorkspace {
                root: s.workspace.root.clone(),
            }),
        }
    }

    /// `init` works on the given root, else on the root every other command
    /// would find from here (so that they find what it creates): the
    /// nearest directory above with `.memlint.yml`, else the top of the
    /// git work tree, else the current directory. It needs no valid
    /// configuration. Another directory than the current one is named on
    /// standard error, with how to choose the current one instead.
    pub(crate) fn resolve_for_init(global: &GlobalArgs) -> Result<PathBuf, WorkspaceError> {
        let cwd = cwd()?;
        if let Some(r) = &global.root {
            return Ok(crate::io::walk::normalize(&cwd.join(r)));
        }
        let root = crate::engine::workspace::find_root(&cwd);
        if root != cwd {
            let why = if root.join(crate::model::config::FILE_NAME).is_file() {
                format!(
                    "the nearest directory above with {}",
                    crate::model::config::FILE_NAME
                )
            } else {
                "the top of the git work tree".to_string()
            };
            errln!(
                "memlint: note: the workspace root is {} ({why}), where every memlint command run here looks; `memlint --root . init` makes {} a workspace of its own instead",
                root.display(),
                cwd.display()
            );
        }
        Ok(root)
    }
}
