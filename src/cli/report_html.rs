//! `memlint report --html FILE`: writes the review page.

use super::exit::walk_outcome;
use super::output::write_out;
use super::settings::Settings;
use crate::engine::workspace::WorkspaceError;
use std::io::Read as _;
use std::path::Path;
use std::process::ExitCode;

/// How every page memlint writes begins: a file that begins otherwise is
/// never replaced.
const MARK: &[u8] = b"<!DOCTYPE html>\n<!-- memlint report -->\n";

/// Builds the page and writes it to `file` atomically: a new file, or
/// the replacement of a page memlint wrote before, never anything else.
pub(super) fn run(
    s: &Settings,
    file: &Path,
    problems: &mut super::Problems,
) -> Result<ExitCode, WorkspaceError> {
    let shown = file.display().to_string();
    let refuse = |why: String| Err(WorkspaceError::Usage(why));
    let existing = match std::fs::symlink_metadata(file) {
        Ok(m) if !m.is_file() => {
            return refuse(format!(
                "{shown} exists and is not a regular file; not writing the report there"
            ))
        }
        Ok(_) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return refuse(format!("cannot write the report to {shown}: {e}")),
    };
    if existing && !written_by_memlint(file) {
        return refuse(format!(
            "{shown} exists and is not a report memlint wrote; not replacing it (remove it or choose another file)"
        ));
    }
    let bar = super::progress::Bar::new("indexing");
    let opts = crate::engine::scan::Options {
        force: false,
        progress: bar.shown(!s.quiet),
    };
    let mut page = crate::engine::report_html::build(&s.workspace, &opts)
        .map_err(|e| WorkspaceError::Usage(e.to_string()))?;
    problems.append(&mut page.problems);
    let bytes = page.html.as_bytes();
    let written = if existing {
        crate::io::fs::write_atomic(file, bytes)
    } else {
        crate::io::fs::write_new(file, bytes)
    };
    if let Err(e) = written {
        return refuse(format!("cannot write the report to {shown}: {e}"));
    }
    if !s.quiet {
        let mut line = format!(
            "Wrote {shown}: {} records, {} bytes.\n",
            page.records,
            bytes.len()
        );
        if page.cut_bodies > 0 {
            line.push_str(&format!(
                "{} long bodies are cut on the page (each says where its full text is).\n",
                page.cut_bodies
            ));
        }
        write_out(&line);
    }
    Ok(walk_outcome(problems, ExitCode::SUCCESS))
}

/// Whether the file at `path` begins as the pages memlint writes do.
fn written_by_memlint(path: &Path) -> bool {
    let mut head = Vec::new();
    crate::io::fs::open_regular(path)
        .and_then(|f| f.take(MARK.len() as u64).read_to_end(&mut head))
        .is_ok()
        && head == MARK
}
