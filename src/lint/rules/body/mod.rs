//! The `body/*` rules, one file each.

pub mod too_long;
