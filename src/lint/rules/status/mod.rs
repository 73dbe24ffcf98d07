//! `status/*`: replaced records point at the record in force.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub mod chain;
pub mod cycle;
pub mod dangling_target;
pub mod graph;
pub mod missing_target;
pub mod target_without_replaced;

// The paths the linter, the fixer and the engine call.
pub use chain::chain_edit;
pub use chain::chain_fixes;
pub use graph::replaced_chains;
