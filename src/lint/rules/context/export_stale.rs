//! `context/export-stale`: the memory block `memlint export agents-md`
//! wrote into `AGENTS.md` (or `CLAUDE.md`, `GEMINI.md`,
//! `.github/copilot-instructions.md`) no longer matches the records. The
//! engine compares the block with the one the records give now (it needs
//! the index); this file holds the finding and the documentation.

use crate::model::config::Config;
use crate::model::diagnostic::Diagnostic;
use crate::model::rule::Rule;

/// The rule's documentation, as `memlint rule context/export-stale` prints it.
pub const DOC: &str = r#"DOC_PLACEHOLDER"#;

/// The finding on `path` (root-relative), whose block opens on `line`;
/// `None` when the rule is off.
pub fn finding(path: &str, line: usize, config: &Config) -> Option<Diagnostic> {
    let severity = config.severity(Rule::ContextExportStale)?;
    Some(Diagnostic {
        rule: Rule::ContextExportStale,
        severity,
        path: path.to_string(),
        line,
        column: 1,
        end_line: line,
        end_column: 1 + "<!-- memlint:begin -->".chars().count(),
        message: "the memory block is out of date with the records; `memlint check --fix` (or `memlint export agents-md`) rewrites it".into(),
        fixable: true,
        span: 0..0,
        omitted: 0,
        commits: Vec::new(),
    })
}
