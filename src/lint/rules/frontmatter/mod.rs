//! `frontmatter/*`: the shape of the front matter itself.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix. What
//! the rules share is in `shared`, a leaf.

pub(crate) mod duplicate_key;
pub(crate) mod hash_in_value;
pub(crate) mod missing;
pub(crate) mod parse;
pub(crate) mod required;
pub(crate) mod shared;
pub(crate) mod r#type;
pub(crate) mod unclosed;
pub(crate) mod unknown_key;

// The paths the linter, the fixer and the engine call.
pub(crate) use unknown_key::rename_edits;
