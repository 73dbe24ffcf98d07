//! `memlint rule [NAME]`: describe a rule, or list every rule.

use super::output::write_out;
use crate::engine::workspace::WorkspaceError;
use std::process::ExitCode;

/// `memlint rule [NAME]`: the table of every rule, or one rule's document.
pub(super) fn run(name: Option<&str>) -> Result<ExitCode, WorkspaceError> {
    let mut out = String::new();
    match name {
        None => {
            for r in crate::lint::registry::REGISTRY {
                out.push_str(&format!(
                    "{:<32} {:<8} {:<4} {}\n",
                    r.rule.as_str(),
                    r.rule.default_severity().as_str(),
                    if r.rule.fixable() { "fix" } else { "" },
                    r.rule.summary()
                ));
            }
        }
        Some(n) => {
            let Some(r) = crate::lint::registry::lookup(n) else {
                let names = crate::lint::registry::names();
                let hint = crate::syntax::text::closest(n, &names, 0.5)
                    .map(|m| format!(" (did you mean `{m}`?)"))
                    .unwrap_or_default();
                return Err(WorkspaceError::Usage(format!(
                    "no rule named `{n}`{hint}; `memlint rule` lists them all"
                )));
            };
            // The rule's document: what, why, example, fix, configuration.
            out.push_str(r.doc);
        }
    }
    write_out(&out);
    Ok(ExitCode::SUCCESS)
}
