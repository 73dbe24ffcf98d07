//! The model: what memlint's files are, as plain data. Kinds of record,
//! their fields and places, the configuration, diagnostics, rule names and
//! the calendar. Imports nothing of memlint's other layers; no file system,
//! environment, git or terminal.

pub mod clock;
pub mod config;
pub(crate) mod content;
pub mod diagnostic;
pub(crate) mod hashing;
pub mod kind;
pub(crate) mod rule;
pub(crate) mod severity;
pub mod workspace;
