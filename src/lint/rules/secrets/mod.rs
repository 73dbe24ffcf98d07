//! The `secrets/*` rules, one file each.

pub mod detected;

// The paths the linter, the fixer and the engine call.
pub use detected::scan;
