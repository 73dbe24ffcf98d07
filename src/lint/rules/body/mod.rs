//! `body/*`: the body of a record.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod too_long;
