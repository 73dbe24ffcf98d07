//! The model: what memlint's files are, as plain data. Kinds of record,
//! their fields and places, the configuration, diagnostics, rule names and
//! the calendar. Imports nothing of memlint's other layers; no file system,
//! environment, git or terminal.

pub mod clock;
pub mod config;
pub mod content;
pub mod diagnostic;
pub mod hashing;
pub mod kind;
pub mod rule;
pub mod severity;
pub mod workspace;
