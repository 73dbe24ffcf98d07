//! The `format/*` rules, one file each.

pub mod bom;
pub mod crlf;
pub mod encoding;
pub mod too_large;

// The paths the linter, the fixer and the engine call.
pub use bom::bom_edit;
pub use crlf::crlf_edits;
