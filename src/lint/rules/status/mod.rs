//! The `status/*` rules, one file each.

pub mod chain;
pub mod cycle;
pub mod dangling_target;
pub mod missing_target;
pub mod target_without_replaced;

// The paths the linter, the fixer and the engine call.
pub use chain::chain_edit;
pub use dangling_target::{chain_fixes, replaced_chains};
