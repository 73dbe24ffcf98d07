//! `session/*`: compacted session memories must let a new session resume
//! without re-exploring.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix. What
//! the rules share is in `shared`, a leaf.

pub mod absolute_path;
pub mod decision_reason;
pub mod id;
pub mod plan_source;
pub mod sections;
pub mod shared;
pub mod working_files;
