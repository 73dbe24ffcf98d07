//! Git reads, all through gix. The one exception is [`remote`]: talking
//! to a remote (pushing the consolidation lock) runs the `git` program,
//! which gix cannot do and where transports and credentials are set up.

pub mod hooks;
pub mod open;
pub mod remote;
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
