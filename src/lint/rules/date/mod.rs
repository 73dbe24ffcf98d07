//! The `date/*` rules, one file each.

pub mod format;
pub mod relative;
