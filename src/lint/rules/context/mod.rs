//! The `context/*` rules, one file each.

pub mod block_date;
