//! `status/*`: replaced records point at the record in force.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod chain;
pub(crate) mod cycle;
pub(crate) mod dangling_target;
pub(crate) mod graph;
pub(crate) mod missing_target;
pub(crate) mod target_without_replaced;

// The paths the linter, the fixer and the engine call.
pub(crate) use chain::chain_edit;
pub(crate) use chain::chain_fixes;
pub(crate) use graph::replaced_chains;
