//! The `history/*` rules, one file each.

pub(crate) mod decision_rewritten;
pub(crate) mod unexplained_removal;
