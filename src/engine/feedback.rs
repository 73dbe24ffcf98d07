//! What `hook post-write` tells the agent about a write without errors: its
//! warnings, one line each with rule, place and the way to fix it, and
//! whether the record is in canonical form (or was just put in it, with
//! `post_write.format`). The runtime hands this text to the model as
//! `additionalContext`; errors go another way (exit 2).

use crate::io::fs::{replace_if_unchanged, Replaced, Snapshot};
use crate::model::diagnostic::Diagnostic;
use crate::model::kind::{classify, Place};
use crate::model::workspace::Workspace;

/// What formatting the written file found or did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Formatted {
    /// Not a record (`CONTEXT.md`), unreadable, or already canonical.
    Nothing,
    /// Not in canonical form; `post_write.format` is off.
    Unformatted,
    /// Put in canonical form by the hook.
    Done,
    /// The formatter leaves it as it is, for this reason.
    Skipped(String),
}

/// Checks (and with `post_write.format`, applies) the canonical form of
/// the record at root-relative `rel`.
pub(crate) fn format_record(ws: &Workspace, rel: &str) -> Formatted {
    let Place::Record(kind) = classify(rel, &ws.config.banned_dirs) else {
        return Formatted::Nothing;
    };
    let path = ws.root.join(rel);
    let Ok(seen) = Snapshot::read(&path, ws.config.max_file_bytes) else {
        return Formatted::Nothing;
    };
    let Ok(text) = std::str::from_utf8(&seen.bytes) else {
        return Formatted::Nothing;
    };
    match crate::fmt::format_record(text, kind) {
        crate::fmt::Outcome::Unchanged => Formatted::Nothing,
        crate::fmt::Outcome::Skipped { reason } => Formatted::Skipped(reason),
        crate::fmt::Outcome::Formatted(_) if !ws.config.post_write.format => Formatted::Unformatted,
        crate::fmt::Outcome::Formatted(out) => {
            match replace_if_unchanged(&path, &seen, out.as_bytes()) {
                Ok(Replaced::Written) => Formatted::Done,
                // Changed meanwhile, or not writable: the agent is told to
                // format it.
                _ => Formatted::Unformatted,
            }
        }
    }
}

/// The `additionalContext` for a write of `rel` without errors: `None`
/// when there is nothing to say.
pub(crate) fn post_write(
    rel: &str,
    diagnostics: &[Diagnostic],
    formatted: &Formatted,
    words: crate::engine::advice::Words,
) -> Option<String> {
    let line = crate::syntax::sanitize::line;
    let shown = line(rel);
    let mut text = String::new();
    if !diagnostics.is_empty() {
        let count: usize = diagnostics.iter().map(Diagnostic::count).sum();
        text += &format!(
            "memlint: {shown} has {count} warning(s); fix them now unless they are intended:\n"
        );
        for d in diagnostics {
            let fix = if d.fixable {
                words(&crate::engine::advice::Advice::Fix {
                    path: shown.to_string(),
                })
            } else {
                format!("see `memlint rule {}`", d.rule)
            };
            text += &format!(
                "{}:{}:{}: {}[{}] {} ({fix})\n",
                line(&d.path),
                d.line,
                d.column,
                d.severity.as_str(),
                d.rule,
                line(&d.message)
            );
        }
    }
    match formatted {
        Formatted::Nothing => {}
        Formatted::Unformatted => {
            text += &format!(
                "memlint: {shown} is not in canonical form; run `memlint fmt {shown}` (the commit's format check would fail)\n"
            );
        }
        Formatted::Done => {
            text += &format!(
                "memlint formatted {shown} (key order, list layout, quoting); read it again before editing it\n"
            );
        }
        Formatted::Skipped(reason) => {
            text += &format!(
                "memlint: {shown} cannot be formatted without loss ({}); leave its layout as it is\n",
                line(reason)
            );
        }
    }
    (!text.is_empty()).then(|| text.trim_end().to_string())
}
