//! The `summary/*` rules, one file each.

pub mod too_long;
