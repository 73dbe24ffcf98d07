//! `content/*`: what records say, compared across the workspace.
//!
//! One file per rule: its documentation (`DOC`), its check.

pub mod duplicate;

// The paths the engine calls.
pub use duplicate::{comparable, duplicate_pairs, pairs_of, Pair};
