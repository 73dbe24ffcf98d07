//! `memlint init`: creates the layout, `.memlint.yml` and the `.gitignore`
//! lines, never clobbering what exists.

use super::files::{create, inside, read_existing, update_err, write_err, Report};
use crate::engine::workspace::WorkspaceError;
use std::path::Path;

/// Lines `init` makes sure `.gitignore` holds.
pub(crate) const GITIGNORE_LINES: [&str; 2] = [".memlint/", "staging/.consolidation.lock"];

const DIRS: [&str; 5] = [
    "memory/decisions",
    "memory/requests",
    "memory/sessions",
    "knowledge",
    "staging",
];

/// Creates what is missing under `root` and tells in `report` what it did.
pub(crate) fn run(root: &Path, report: &mut Report) -> Result<(), WorkspaceError> {
    let mut done: Vec<String> = Vec::new();
    let today = crate::model::clock::date(crate::model::clock::now_secs());
    let files: [(&str, String); 3] = [
        (crate::model::config::FILE_NAME, crate::model::config::TEMPLATE.to_string()),
        (
            "memory/summary.md",
            format!("---\ntitle: Summary\nupdated: {today}\n---\n\nNothing is summarised yet.\n"),
        ),
        (
            "CONTEXT.md",
            "# Context\n\nWorking context for the next session, newest block first. Start each block with `## YYYY-MM-DD <topic>`.\n".to_string(),
        ),
    ];
    let gi = root.join(".gitignore");
    // Every path init may write is checked before anything is created.
    let writes = DIRS.iter().map(|d| root.join(d).join(".gitkeep"));
    let writes = writes.chain(files.iter().map(|(name, _)| root.join(name)));
    for path in writes.chain([gi.clone()]) {
        inside(root, &path)?;
    }
    // Read before anything is created: one that cannot be merged into stops
    // `init` with nothing changed.
    let existing = read_existing(&gi)?.unwrap_or_default();
    String::from_utf8(existing).map_err(|_| {
        WorkspaceError::Usage(format!(
            "{} is not valid UTF-8; memlint init cannot add its lines to it",
            gi.display()
        ))
    })?;
    for dir in DIRS {
        let path = root.join(dir);
        if !path.is_dir() {
            crate::io::files::create_dir_all(&path)
                .map_err(write_err("create the directory", &path))?;
            create(&path.join(".gitkeep"), b"")?;
            done.push(format!("created {dir}/"));
        }
    }
    for (name, content) in files {
        let path = root.join(name);
        // A dangling link is something there too: never written through;
        // nor a file created meanwhile.
        if crate::io::files::symlink_metadata(&path).is_err() && create(&path, content.as_bytes())?
        {
            done.push(format!("created {name}"));
        }
    }
    // The lines are added to what the file holds when it is written: an
    // edit saved meanwhile is read again, never overwritten.
    let mut missing: Vec<&str> = Vec::new();
    crate::io::fs::update(
        &gi,
        |existing| {
            // Bytes that are not text would not survive a round trip.
            let existing = std::str::from_utf8(existing.unwrap_or_default()).map_err(|_| {
                WorkspaceError::Usage(
                    ".gitignore is not valid UTF-8; add `.memlint/` and `staging/.consolidation.lock` to it by hand".into(),
                )
            })?;
            missing = GITIGNORE_LINES
                .iter()
                .copied()
                .filter(|l| {
                    !existing
                        .lines()
                        .any(|x| x.trim() == *l || x.trim() == l.trim_end_matches('/'))
                })
                .collect();
            if missing.is_empty() {
                return Ok(None);
            }
            let mut text = existing.to_string();
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("# memlint: index and consolidation lock (never committed)\n");
            for l in &missing {
                text.push_str(l);
                text.push('\n');
            }
            Ok(Some(text.into_bytes()))
        },
        update_err(&gi),
    )?;
    if !missing.is_empty() {
        done.push(format!("added {} to .gitignore", missing.join(" and ")));
    }
    if done.is_empty() {
        report.say(format!(
            "memlint: {} is already initialised",
            root.display()
        ));
    } else {
        report.say(format!("memlint: initialised {}", root.display()));
        report.lines.extend(done);
    }
    Ok(())
}
