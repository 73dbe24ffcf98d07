//! `slug/*`: a record's name is its identity.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod format;
pub(crate) mod mismatch;
pub(crate) mod similar;
