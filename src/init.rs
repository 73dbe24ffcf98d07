//! `memlint init`: creates the layout, `.memlint.yml` and the `.gitignore`
//! lines, never clobbering what exists.

use crate::workspace::WorkspaceError;
use std::path::Path;
use std::process::ExitCode;

/// Lines `init` makes sure `.gitignore` holds.
pub const GITIGNORE_LINES: [&str; 2] = [".memlint/", "staging/.consolidation.lock"];

const DIRS: [&str; 5] = [
    "memory/decisions",
    "memory/requests",
    "memory/sessions",
    "knowledge",
    "staging",
];

fn io(path: &Path) -> impl Fn(std::io::Error) -> WorkspaceError + '_ {
    move |source| WorkspaceError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Creates what is missing under `root` and prints what it did.
pub fn run(root: &Path) -> Result<ExitCode, WorkspaceError> {
    let mut done: Vec<String> = Vec::new();
    for dir in DIRS {
        let path = root.join(dir);
        if !path.is_dir() {
            std::fs::create_dir_all(&path).map_err(io(&path))?;
            crate::fsutil::write_atomic(&path.join(".gitkeep"), b"").map_err(io(&path))?;
            done.push(format!("created {dir}/"));
        }
    }
    let today = crate::clock::date(crate::clock::now_secs());
    let files: [(&str, String); 3] = [
        (crate::config::FILE_NAME, crate::config::TEMPLATE.to_string()),
        (
            "memory/summary.md",
            format!("---\ntitle: Summary\nupdated: {today}\n---\n\nNothing is summarised yet.\n"),
        ),
        (
            "CONTEXT.md",
            "# Context\n\nWorking context for the next session, newest block first. Start each block with `## YYYY-MM-DD <topic>`.\n".to_string(),
        ),
    ];
    for (name, content) in files {
        let path = root.join(name);
        if !path.exists() {
            crate::fsutil::write_atomic(&path, content.as_bytes()).map_err(io(&path))?;
            done.push(format!("created {name}"));
        }
    }
    let gi = root.join(".gitignore");
    let existing = match std::fs::read_to_string(&gi) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(&gi)(e)),
    };
    let missing: Vec<&str> = GITIGNORE_LINES
        .iter()
        .copied()
        .filter(|l| {
            !existing
                .lines()
                .any(|x| x.trim() == *l || x.trim() == l.trim_end_matches('/'))
        })
        .collect();
    if !missing.is_empty() {
        let mut text = existing.clone();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("# memlint: index and consolidation lock (never committed)\n");
        for l in &missing {
            text.push_str(l);
            text.push('\n');
        }
        crate::fsutil::write_atomic(&gi, text.as_bytes()).map_err(io(&gi))?;
        done.push(format!("added {} to .gitignore", missing.join(" and ")));
    }
    if done.is_empty() {
        println!(
            "memlint: {} is already initialised; nothing changed",
            root.display()
        );
    } else {
        for d in done {
            println!("{d}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
