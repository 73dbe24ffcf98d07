//! `format/*`: the file is text a record can be read from. The linter's
//! reader calls these rules' checks as it reads a file; each check, and the
//! fixes of `format/bom` and `format/crlf`, are in the rule's file.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub mod bom;
pub mod conflict_markers;
pub mod crlf;
pub mod encoding;
pub mod too_large;

// The paths the linter, the fixer and the engine call.
pub use bom::bom_edit;
pub use crlf::crlf_edits;
