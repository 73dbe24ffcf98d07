//! `date/*`: memory outlives the day it was written, so dates are absolute.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod format;
pub(crate) mod relative;
