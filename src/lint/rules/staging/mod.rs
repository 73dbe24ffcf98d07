//! `staging/*`: staging entries.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod id;
