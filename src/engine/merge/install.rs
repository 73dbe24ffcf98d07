//! `memlint init --merge`: registers the merge driver — the
//! `.gitattributes` lines that send memory files to it, and
//! `merge.memlint.driver` in the repository's own configuration (git reads
//! drivers only from configuration, never from the repository's files).

use crate::engine::init::files::Report;
use crate::engine::workspace::WorkspaceError;
use std::path::Path;

/// The `.gitattributes` lines, relative to the workspace root (where the
/// file is written, so that they apply to the workspace's files wherever
/// it is in the repository).
pub(crate) const ATTRIBUTES: &str = "# memlint's merge driver (memlint init --merge): CONTEXT.md by block, records by key.\n/CONTEXT.md merge=memlint\n/memory/**/*.md merge=memlint\n/knowledge/**/*.md merge=memlint\n";

/// The driver's command line (git expands `%O`, `%A`, `%B`, `%P`, `%L`,
/// and since git 2.44 the labels `%S`, `%X`, `%Y`).
pub(crate) const DRIVER: &str =
    "memlint merge-file %O %A %B %P -L %L --base-label %S --ours-label %X --theirs-label %Y";

/// Why a forge's merge button does not use the driver.
pub(crate) const FORGES: &str = "note: forges (GitHub, GitLab, …) do not run custom merge drivers: a pull request merged in the browser gets git's line conflicts; merge or rebase locally to use memlint's, and `format/conflict-markers` stops markers left behind";

/// Writes the `.gitattributes` lines at `root` (keeping what is there)
/// and sets the driver in the configuration of the repository holding it.
pub(crate) fn install(root: &Path, report: &mut Report) -> Result<(), WorkspaceError> {
    let usage = WorkspaceError::Usage;
    let repo = crate::io::git::Repo::open(root, crate::io::git::Asking::InitMerge)
        .map_err(WorkspaceError::Git)?;
    let path = root.join(".gitattributes");
    // A `.gitattributes` that is a link out of the root is never written.
    crate::engine::init::files::inside(root, &path)?;
    let wanted: Vec<&str> = ATTRIBUTES.lines().skip(1).collect();
    let written = crate::io::fs::update(
        &path,
        |bytes| {
            let text = match bytes {
                None => String::new(),
                Some(b) => String::from_utf8(b.to_vec()).map_err(|_| {
                    usage(".gitattributes is not valid UTF-8; add memlint's lines by hand".into())
                })?,
            };
            let have = |l: &str| text.lines().any(|x| x.trim() == l);
            if wanted.iter().all(|l| have(l)) {
                return Ok(None);
            }
            let mut out = text.clone();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(ATTRIBUTES.lines().next().unwrap_or_default());
            out.push('\n');
            for l in wanted.iter().filter(|l| !have(l)) {
                out.push_str(l);
                out.push('\n');
            }
            Ok(Some(out.into_bytes()))
        },
        |action, e| usage(format!("cannot {action} {}: {e}", path.display())),
    )?;
    report.say(match written {
        true => "wrote memlint's merge lines to .gitattributes".to_string(),
        false => ".gitattributes already sends memory files to memlint's merge driver".to_string(),
    });
    let set = crate::io::git::set_config(
        &repo,
        &[
            (
                "merge.memlint.name",
                "memlint: CONTEXT.md by block, records by key",
            ),
            ("merge.memlint.driver", DRIVER),
        ],
    )
    .map_err(|e| usage(e.to_string()))?;
    report.say(match set {
        true => "set merge.memlint.driver in the repository's configuration".to_string(),
        false => "merge.memlint.driver is already set".to_string(),
    });
    report.say(FORGES.to_string());
    Ok(())
}
