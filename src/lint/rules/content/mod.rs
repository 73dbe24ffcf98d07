//! `content/*`: what records say, compared across the workspace.
//!
//! One file per rule: its documentation (`DOC`), its check.

pub(crate) mod duplicate;

// The paths the engine calls.
pub(crate) use duplicate::{comparable, duplicate_pairs, pairs_of, Pair};
