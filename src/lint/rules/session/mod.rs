//! `session/*`: compacted session memories must let a new session resume
//! without re-exploring.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix. What
//! the rules share is in `shared`, a leaf.

pub(crate) mod absolute_path;
pub(crate) mod decision_reason;
pub(crate) mod id;
pub(crate) mod plan_source;
pub(crate) mod sections;
pub(crate) mod shared;
pub(crate) mod working_files;
