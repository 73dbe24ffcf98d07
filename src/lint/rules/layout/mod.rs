//! `layout/*`: files in the wrong place.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub mod banned_dir;
pub mod unknown_file;

// The paths the linter, the fixer and the engine call.
pub use banned_dir::banned_message;
pub use unknown_file::unknown_message;
