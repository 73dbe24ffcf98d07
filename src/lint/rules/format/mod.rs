//! `format/*`: the file is text a record can be read from. The linter's
//! reader calls these rules' checks as it reads a file; each check, and the
//! fixes of `format/bom` and `format/crlf`, are in the rule's file.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod bom;
pub(crate) mod conflict_markers;
pub(crate) mod crlf;
pub(crate) mod encoding;
pub(crate) mod too_large;

// The paths the linter, the fixer and the engine call.
pub(crate) use bom::bom_edit;
pub(crate) use crlf::crlf_edits;
