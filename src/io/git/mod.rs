//! Git reads, all through gix (memlint never runs the `git` program).

pub mod hooks;
pub mod open;
pub mod repo;
pub mod resolve;
pub mod types;
pub mod worktree;

pub use hooks::*;
pub use open::*;
pub use repo::*;
pub use resolve::*;
pub use types::*;
pub use worktree::*;
