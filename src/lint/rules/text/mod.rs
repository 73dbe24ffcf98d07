//! `text/*`: what a record says is read by a model in a later session, so
//! its text must not hide characters a person reviewing it cannot see, nor
//! address the model as if it were its instructions.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod injection;
pub(crate) mod invisible;

// The paths the linter and the fixer call.
pub(crate) use invisible::invisible_edits;
