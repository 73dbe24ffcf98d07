//! Finding and reading the files an import is given: only inside the
//! workspace root, never through a symbolic link out of it, each file read
//! up to a limit, each refusal a line of the report.

use crate::engine::workspace::WorkspaceError;
use crate::io::fs::{resolve_below, Resolved};
use crate::io::read::read_capped;
use crate::model::content::Content;
use crate::model::workspace::Workspace;
use std::path::{Path, PathBuf};

/// The most files one import looks at.
pub(crate) const MAX_FILES: usize = 200_000;
/// How deep below a given directory an import looks.
const MAX_DEPTH: usize = 32;

/// A file found under the paths given: root-relative, `/`-separated.
#[derive(Debug, Clone)]
pub(crate) enum Found {
    /// A file to read: its root-relative path, and the path to open (the
    /// target of a link that stays inside the root).
    File { rel: String, open: PathBuf },
    /// A file or directory that is not read, and why.
    Skipped { rel: String, reason: String },
}

/// The files under `paths` (files or directories, as typed), sorted, with
/// those `wanted` does not take and those that cannot be reached reported.
pub(crate) fn collect(
    ws: &Workspace,
    paths: &[PathBuf],
    wanted: &dyn Fn(&str) -> bool,
    what: &str,
) -> Result<Vec<Found>, WorkspaceError> {
    let mut out = Vec::new();
    for path in paths {
        let given = crate::engine::workspace::given(ws, path)?;
        if let Some(why) = given.skipped {
            out.push(Found::Skipped {
                rel: given.rel,
                reason: why,
            });
            continue;
        }
        if !given.exists {
            return Err(WorkspaceError::Usage(format!(
                "{} does not exist",
                path.display()
            )));
        }
        visit(ws, &given.rel, 0, wanted, what, &mut out);
    }
    out.sort_by(|a, b| rel_of(a).cmp(rel_of(b)));
    out.dedup_by(|a, b| rel_of(a) == rel_of(b));
    dedupe(&ws.root, &mut out);
    Ok(out)
}

fn rel_of(f: &Found) -> &str {
    match f {
        Found::File { rel, .. } | Found::Skipped { rel, .. } => rel,
    }
}

fn visit(
    ws: &Workspace,
    rel: &str,
    depth: usize,
    wanted: &dyn Fn(&str) -> bool,
    what: &str,
    out: &mut Vec<Found>,
) {
    if out.len() >= MAX_FILES {
        return;
    }
    let skip = |reason: String| Found::Skipped {
        rel: rel.to_string(),
        reason,
    };
    if !rel.is_empty() && own_place(rel) {
        out.push(skip(format!("inside {OWN}; not imported")));
        return;
    }
    let full = ws.root.join(rel);
    let Ok(meta) = crate::io::files::symlink_metadata(&full) else {
        out.push(skip("cannot be read".into()));
        return;
    };
    let target = match resolve_below(&ws.root, Path::new(rel)) {
        Resolved::Inside(t) => t,
        Resolved::Escapes(through) => {
            out.push(skip(format!(
                "leads out of the workspace root through the symbolic link {through}; memlint never follows it, so nothing there was read"
            )));
            return;
        }
        Resolved::Missing | Resolved::Unreadable(_) => {
            out.push(skip("cannot be read".into()));
            return;
        }
    };
    // A link is judged by where it leads: into memlint's own files or
    // git's, it is not read.
    let real = real_rel(&ws.root, &target);
    if real.as_deref().is_some_and(|r| r != rel && own_place(r)) {
        out.push(skip(format!(
            "inside {OWN}, through a symbolic link to {}; not imported",
            real.unwrap_or_default()
        )));
        return;
    }
    if meta.file_type().is_symlink() && target.is_dir() {
        out.push(skip(
            "a symbolic link to a directory, which memlint never follows".into(),
        ));
        return;
    }
    if target.is_dir() {
        if depth >= MAX_DEPTH {
            out.push(skip(format!(
                "deeper than {MAX_DEPTH} directories; not looked into"
            )));
            return;
        }
        let Ok(entries) = crate::io::files::read_dir(&full) else {
            out.push(skip("a directory that cannot be read".into()));
            return;
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| n != ".git" && n != ".memlint")
            .collect();
        names.sort();
        for name in names {
            let child = match rel {
                "" => name,
                _ => format!("{rel}/{name}"),
            };
            visit(ws, &child, depth + 1, wanted, what, out);
        }
        return;
    }
    if !target.is_file() {
        out.push(skip("not a regular file".into()));
    } else if wanted(rel) {
        out.push(Found::File {
            rel: rel.to_string(),
            open: target,
        });
    } else {
        out.push(skip(format!("not {what}")));
    }
}

/// How the report names what [`own_place`] keeps out.
const OWN: &str = "memlint's own files (memory/, knowledge/, staging/, CONTEXT.md, .memlint.yml, .memlint/) or git's (.git/)";

/// Whether `rel` is memlint's own (what it writes is never read back
/// in) or git's.
fn own_place(rel: &str) -> bool {
    let under = |dir: &str| rel == dir || rel.strip_prefix(dir).is_some_and(|x| x.starts_with('/'));
    rel == "CONTEXT.md"
        || rel == crate::model::config::FILE_NAME
        || under(".git")
        || under(".memlint")
        || crate::model::kind::RECORD_ROOTS.iter().any(|r| under(r))
}

/// The root-relative, `/`-separated path of `target` (a path below the
/// canonical root, links resolved).
fn real_rel(root: &Path, target: &Path) -> Option<String> {
    let r = target.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = r.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// Each file reached more than once (through symbolic links) is read
/// once: as itself when it is among the paths found, else under the first
/// name it was found by; the other names are reported.
fn dedupe(root: &Path, found: &mut [Found]) {
    let mut first: std::collections::HashMap<PathBuf, String> = Default::default();
    for f in found.iter() {
        if let Found::File { rel, open } = f {
            let own = real_rel(root, open).as_deref() == Some(rel.as_str());
            match first.get(open) {
                Some(_) if !own => {}
                _ => {
                    first.insert(open.clone(), rel.clone());
                }
            }
        }
    }
    for f in found.iter_mut() {
        if let Found::File { rel, open } = f {
            let kept = &first[&*open];
            if kept != rel {
                *f = Found::Skipped {
                    rel: rel.clone(),
                    reason: format!(
                        "not imported again: the same file as {kept}, reached through a symbolic link"
                    ),
                };
            }
        }
    }
}

/// The text of the file at `open`, at most `limit` bytes, or why not.
pub(crate) fn text(open: &Path, limit: u64) -> Result<String, String> {
    match read_capped(open, limit) {
        Ok(Content::Bytes(bytes)) => String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|b| **b == b'\n').count() + 1;
            format!(
                "not valid UTF-8 (line {line}, byte {at}); memlint records are UTF-8, so nothing of it was imported"
            )
        }),
        Ok(Content::TooLarge(_)) => Err(format!(
            "larger than {limit} bytes (max_file_bytes); not read"
        )),
        Err(e) => Err(format!("cannot be read: {e}")),
    }
}

/// `text` without memlint's own managed block (what `export agents-md`
/// wrote is memlint's records, never to be imported again), and whether
/// one was taken out. Markers inside fenced code are an example, as
/// `export agents-md` sees them, and stay.
pub(crate) fn without_own_block(text: &str) -> (String, bool) {
    let Ok(Some(r)) = crate::engine::export::find_block(text) else {
        return (text.to_string(), false);
    };
    let (begin, end) = (r.start, r.end);
    let end = match text[end..].starts_with("\r\n") {
        true => end + 2,
        false => end + text[end..].starts_with('\n') as usize,
    };
    (format!("{}{}", &text[..begin], &text[end..]), true)
}
