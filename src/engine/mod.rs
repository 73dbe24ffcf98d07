//! The use cases: check (work tree, staged, base), fix, fmt, report, log,
//! compact, staging, init, search, context, hooks and record writing. Typed
//! values and typed errors in and out: no flags, no standard output, no exit
//! codes. Every front end (the CLI, and the servers to come) calls these.

pub mod advice;
pub mod agents;
pub mod author;
pub mod check;
pub mod compact;
pub mod context;
pub mod drift;
pub mod drift_marks;
pub mod export;
pub mod feedback;
pub mod fix;
pub mod fmt;
pub mod history;
pub mod hook;
pub mod hook_prompt;
pub mod import;
pub mod init;
pub mod log;
pub mod merge;
pub mod referrers;
pub mod report;
pub mod report_html;
pub mod scan;
pub mod search;
pub mod staging;
pub mod staging_remote;
pub mod version;
pub mod workspace;
