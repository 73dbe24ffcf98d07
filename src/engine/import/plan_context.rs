//! The `CONTEXT.md` blocks of an import (a memory bank's active context):
//! each a dated level-2 block naming the file it came from, put before the
//! blocks already there (newest first), its headings moved two levels
//! down so that they stay inside it.

use super::item::{Dated, Item, What};
use super::report::ImportError;
use crate::engine::author::commit::Write;
use crate::io::fs::{resolve_inside, Resolved, Snapshot};
use crate::model::content::Content;
use crate::model::workspace::Workspace;
use std::collections::HashSet;
use std::path::Path;

/// The new text of `CONTEXT.md` and how to write it.
pub(crate) struct Change {
    pub text: String,
    pub write: Write,
}

/// What the import does to `CONTEXT.md`.
#[derive(Default)]
pub(crate) struct Context {
    pub change: Option<Change>,
    already: HashSet<usize>,
    /// Imported already, but the block no longer holds what the file does.
    changed: HashSet<usize>,
    planned: HashSet<usize>,
    /// Why no block can be written, when none can.
    pub refused: Option<String>,
}

impl Context {
    /// For item `i`: `Some(true)` when imported already, `Some(false)`
    /// when its block is in the change, `None` when it cannot be written.
    pub(crate) fn outcome(&self, i: usize) -> Option<bool> {
        match (self.already.contains(&i), self.planned.contains(&i)) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }

    /// Whether item `i` was imported already and its file changed since
    /// (or its block was edited).
    pub(crate) fn changed(&self, i: usize) -> bool {
        self.changed.contains(&i)
    }
}

/// Whether the block of `old` imported from `file` holds `title` and
/// `body` (its date may differ: a file committed since is dated by git).
fn same_block(old: &str, file: &str, title: &str, body: &str) -> bool {
    let marker = marker(file);
    let Some(r) = crate::engine::context::blocks(old).into_iter().find(|r| {
        old[r.clone()]
            .lines()
            .next()
            .is_some_and(|h| h.contains(&marker))
    }) else {
        return true;
    };
    let block = old[r].replace("\r\n", "\n");
    let (head, rest) = block.split_once('\n').unwrap_or((&block, ""));
    head.trim_end().ends_with(&format!(" — {title} {marker}")) && rest.trim() == body.trim()
}

/// The marker naming the file a block was imported from.
fn marker(file: &str) -> String {
    format!("(imported from file:{file})")
}

/// Plans the blocks of `items`.
pub(crate) fn blocks(
    ws: &Workspace,
    items: &[Item],
    dated: &[Option<Dated>],
) -> Result<Context, ImportError> {
    let mut ctx = Context::default();
    if !items.iter().any(|i| matches!(i.what, What::Block(_))) {
        return Ok(ctx);
    }
    let full = ws.root.join("CONTEXT.md");
    let seen = match resolve_inside(&ws.root, Path::new("CONTEXT.md")) {
        Resolved::Escapes(_) => {
            ctx.refused = Some("CONTEXT.md is a symbolic link out of the workspace root; memlint never writes there".into());
            return Ok(ctx);
        }
        Resolved::Missing => None,
        _ => match Snapshot::read_capped(&full, ws.config.max_file_bytes) {
            Ok(Content::Bytes(s)) => Some(s),
            Ok(Content::TooLarge(_)) => {
                ctx.refused = Some(
                    "CONTEXT.md is larger than max_file_bytes; not read, nothing written to it"
                        .into(),
                );
                return Ok(ctx);
            }
            Err(e) => {
                ctx.refused = Some(format!("CONTEXT.md cannot be read: {e}"));
                return Ok(ctx);
            }
        },
    };
    let old = match &seen {
        Some(s) => match std::str::from_utf8(&s.bytes) {
            Ok(t) => t.to_string(),
            Err(_) => {
                ctx.refused = Some("CONTEXT.md is not valid UTF-8; nothing written to it".into());
                return Ok(ctx);
            }
        },
        None => String::new(),
    };
    let mut new_blocks = String::new();
    for (i, item) in items.iter().enumerate() {
        let (What::Block(rec), Some(d)) = (&item.what, &dated[i]) else {
            continue;
        };
        if old.contains(&marker(&item.file)) {
            ctx.already.insert(i);
            if !same_block(&old, &item.file, &rec.title, &demoted(rec.body.trim())) {
                ctx.changed.insert(i);
            }
            continue;
        }
        ctx.planned.insert(i);
        new_blocks += &format!(
            "## {} — {} {}\n\n{}\n\n",
            d.date,
            rec.title,
            marker(&item.file),
            demoted(rec.body.trim())
        );
    }
    if new_blocks.is_empty() {
        return Ok(ctx);
    }
    let at = crate::engine::context::blocks(&old)
        .first()
        .map_or(old.len(), |b| b.start);
    let head = &old[..at];
    let sep = match head.is_empty() || head.ends_with("\n\n") {
        true => "",
        false if head.ends_with('\n') => "\n",
        false => "\n\n",
    };
    let mut text = format!("{head}{sep}{new_blocks}{}", &old[at..]);
    while text.ends_with("\n\n") {
        text.pop();
    }
    let write = match seen {
        Some(seen) => Write::Replace {
            path: "CONTEXT.md".into(),
            seen,
            text: text.clone(),
        },
        None => Write::Create {
            path: "CONTEXT.md".into(),
            text: text.clone(),
        },
    };
    ctx.change = Some(Change { text, write });
    Ok(ctx)
}

/// `body` with each heading outside code two levels down (at most 6).
fn demoted(body: &str) -> String {
    let mut fence = false;
    let mut out = String::new();
    for line in body.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !fence && (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            out += &"#".repeat((hashes + 2).min(6));
            out += &line[hashes..];
        } else {
            out += line;
        }
        out.push('\n');
    }
    out.trim_end().to_string()
}
