//! The `session/*` rules, one file each.

pub mod absolute_path;
pub mod decision_reason;
pub mod id;
pub mod plan_source;
pub mod sections;
pub mod shared;
pub mod working_files;
