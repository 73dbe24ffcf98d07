//! What linting one file gives besides diagnostics: the parts of a record
//! that cross-record rules and the index need. A leaf: the rules import it,
//! it imports no rule.

use crate::model::diagnostic::Diagnostic;
use crate::model::kind::Kind;
use std::ops::Range;

/// The parts of a record that cross-record rules and the index need.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecordInfo {
    pub kind: Option<Kind>,
    pub title: Option<String>,
    pub status: Option<String>,
    pub date: Option<String>,
    pub replaced_by: Option<Located>,
    pub sources: Vec<Located>,
    /// `description` (knowledge, session), when valid.
    pub description: Option<String>,
    /// `model_invocation` (knowledge), when valid.
    pub model_invocation: Option<bool>,
    /// The valid string items of `tags`.
    pub tags: Vec<String>,
    /// The whole front matter could be read.
    pub parsed: bool,
    /// What the title and body say, for `content/duplicate` (decision,
    /// request and knowledge records with enough text).
    pub sketch: Option<crate::syntax::similar::sketch::Sketch>,
    /// With the sketch of a short text: its shingles, for an exact
    /// comparison with another short text.
    pub shingles: Option<crate::syntax::similar::sketch::Shingles>,
    /// The text mentions `pins` or holds a backslash (an escape that could
    /// spell it): only such a record can hold the pins `memlint verify`
    /// writes, so `sources/drifted` reads no other record again.
    pub may_pin: bool,
}

/// A value with its place in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    pub value: String,
    pub span: Range<usize>,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

/// The result of linting one file.
#[derive(Debug, Clone, Default)]
pub struct FileReport {
    pub path: String,
    pub diagnostics: Vec<Diagnostic>,
    /// The file's text, kept when there are diagnostics to render.
    pub source: Option<String>,
    pub info: RecordInfo,
}
