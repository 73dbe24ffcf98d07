//! `sources/*`: every decision, request and knowledge record says where it
//! came from.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix. What
//! the rules share is in `shared`, a leaf.

pub(crate) mod dangling;
pub(crate) mod drifted;
pub(crate) mod duplicate;
pub(crate) mod format;
pub(crate) mod missing;
pub(crate) mod replaced;
pub(crate) mod shared;
pub(crate) mod thin;
pub(crate) mod too_many;

// The paths the linter, the fixer and the engine call.
pub(crate) use dangling::{cited_file, file_target};
pub(crate) use duplicate::duplicate_source_edits;
pub(crate) use replaced::{replaced_source_edits, replaced_source_fixes};
pub(crate) use shared::entries;
