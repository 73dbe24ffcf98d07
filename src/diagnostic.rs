//! Diagnostics: what a rule found, where, and how bad it is.

use serde::Serialize;
use std::ops::Range;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A line and column, both 1-based; the column counts Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// One finding, located in a file of the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub rule: &'static str,
    pub severity: Severity,
    /// Relative to the workspace root, with `/` separators.
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub message: String,
    pub fixable: bool,
    /// Byte span in the file, for rendering the source snippet.
    #[serde(skip)]
    pub span: Range<usize>,
}

impl Diagnostic {
    /// The order SPEC §4 asks for: path, line, column, rule.
    pub fn sort_key(&self) -> (&str, usize, usize, &str) {
        (&self.path, self.line, self.column, self.rule)
    }
}

/// Sorts diagnostics by path, line, column, rule, and drops exact repeats.
pub fn sort(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.message.cmp(&b.message))
    });
    diags.dedup();
}

/// Maps byte offsets of one text to lines and columns.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        // Most texts indexed are a front matter of a few lines, where a
        // plain scan beats setting up a searcher.
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { text, starts }
    }

    /// The position of byte `offset` (clamped to the text, and moved back to a
    /// character boundary).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let column = self.text[self.starts[line]..offset].chars().count() + 1;
        Position {
            line: line + 1,
            column,
        }
    }

    /// Byte range of line `line` (1-based), without its line break.
    pub fn line_range(&self, line: usize) -> Range<usize> {
        let start = self
            .starts
            .get(line - 1)
            .copied()
            .unwrap_or(self.text.len());
        let end = self
            .starts
            .get(line)
            .map(|s| s - 1)
            .unwrap_or(self.text.len());
        let end = if end > start && self.text.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        start..end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters() {
        let idx = LineIndex::new("ab\n日本語x\n");
        assert_eq!(idx.position(0), Position { line: 1, column: 1 });
        assert_eq!(idx.position(3), Position { line: 2, column: 1 });
        assert_eq!(idx.position(12), Position { line: 2, column: 4 });
        assert_eq!(idx.position(4), Position { line: 2, column: 1 });
        assert_eq!(idx.line_range(2), 3..13);
    }
}
