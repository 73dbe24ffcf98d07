//! `frontmatter/*`: the shape of the front matter itself.
//!
//! One file per rule: its documentation (`DOC`), its check, its fix. What
//! the rules share is in `shared`, a leaf.

pub mod duplicate_key;
pub mod hash_in_value;
pub mod missing;
pub mod parse;
pub mod required;
pub mod shared;
pub mod r#type;
pub mod unclosed;
pub mod unknown_key;

// The paths the linter, the fixer and the engine call.
pub use shared::rename_target;
pub use shared::value_span;
pub use unknown_key::{rename_edits, safe_renames};
