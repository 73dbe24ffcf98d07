//! The `sources/*` rules, one file each.

pub mod dangling;
pub mod duplicate;
pub mod format;
pub mod missing;
pub mod shared;
pub mod thin;
pub mod too_many;

// The paths the linter, the fixer and the engine call.
pub use dangling::file_target;
pub use duplicate::duplicate_source_edits;
pub use shared::entries;
