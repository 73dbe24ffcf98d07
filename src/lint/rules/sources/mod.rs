//! `sources/*`: every decision, request and knowledge record says where it
//! came from.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix. What
//! the rules share is in `shared`, a leaf.

pub mod dangling;
pub mod drifted;
pub mod duplicate;
pub mod format;
pub mod missing;
pub mod replaced;
pub mod shared;
pub mod thin;
pub mod too_many;

// The paths the linter, the fixer and the engine call.
pub use dangling::file_target;
pub use duplicate::duplicate_source_edits;
pub use replaced::{replaced_source_edits, replaced_source_fixes};
pub use shared::entries;
