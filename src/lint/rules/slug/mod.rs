//! `slug/*`: a record's name is its identity.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub mod format;
pub mod mismatch;
pub mod similar;

// The paths the linter, the fixer and the engine call.
pub use crate::syntax::similar::{similar_clusters, suffix_key};
