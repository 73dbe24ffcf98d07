//! The `staging/*` rules, one file each.

pub mod id;
