//! The use cases: check (work tree, staged, base), fix, fmt, report, log,
//! compact, staging, init, search, context, hooks and record writing. Typed
//! values and typed errors in and out: no flags, no standard output, no exit
//! codes. Every front end (the CLI, and the servers to come) calls these.

pub(crate) mod advice;
pub(crate) mod agents;
pub mod author;
pub mod check;
pub(crate) mod compact;
pub(crate) mod context;
pub(crate) mod drift;
pub(crate) mod drift_marks;
pub(crate) mod export;
pub(crate) mod feedback;
pub(crate) mod fix;
pub(crate) mod fmt;
pub(crate) mod history;
pub(crate) mod hook;
pub mod hook_prompt;
pub(crate) mod import;
pub mod init;
pub(crate) mod log;
pub mod merge;
pub mod referrers;
pub(crate) mod renames;
pub(crate) mod report;
pub(crate) mod report_html;
pub mod scan;
pub mod search;
pub mod staging;
pub(crate) mod staging_remote;
pub(crate) mod version;
pub mod workspace;
