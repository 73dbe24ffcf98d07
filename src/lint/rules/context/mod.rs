//! `context/block-date`: each `CONTEXT.md` block heading starts with an
//! absolute date, so stale context is recognisable.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod block_date;
pub(crate) mod export_stale;
