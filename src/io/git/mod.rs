//! Git reads, all through gix. The one exception is `remote`: talking
//! to a remote (pushing the consolidation lock) runs the `git` program,
//! which gix cannot do and where transports and credentials are set up.

pub(crate) mod cached;
pub(crate) mod hooks;
pub(crate) mod open;
pub(crate) mod remote;
pub(crate) mod repo;
pub(crate) mod resolve;
pub(crate) mod trees;
pub(crate) mod types;
pub(crate) mod worktree;

pub(crate) use cached::CachedDir;
pub(crate) use hooks::*;
pub(crate) use repo::*;
pub(crate) use resolve::*;
pub(crate) use types::*;
pub use worktree::*;
