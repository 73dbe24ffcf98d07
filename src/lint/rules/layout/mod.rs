//! `layout/*`: files in the wrong place.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub mod banned_dir;
pub mod unknown_file;
