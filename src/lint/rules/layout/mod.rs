//! `layout/*`: files in the wrong place.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod banned_dir;
pub(crate) mod unknown_file;
