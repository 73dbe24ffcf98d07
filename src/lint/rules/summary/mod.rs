//! `summary/*`: the memory summary.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod too_long;
