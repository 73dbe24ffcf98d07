//! The `history/*` rules, one file each.

pub mod decision_rewritten;
pub mod unexplained_removal;
