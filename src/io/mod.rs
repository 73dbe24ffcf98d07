//! The outside world: the file system (regular files only, atomic and
//! no-clobber writes), walking the workspace, git through gix, and the
//! watcher. Imports `model`, `syntax`, `lint` and `fmt`; never prints.

pub(crate) mod batch;
pub(crate) mod bounded;
pub mod cache;
pub(crate) mod files;
pub(crate) mod fs;
pub mod git;
pub(crate) mod ignores;
pub(crate) mod lines;
pub(crate) mod lock;
pub(crate) mod map;
pub(crate) mod read;
pub(crate) mod regular;
pub(crate) mod source;
pub mod stat;
pub(crate) mod temporaries;
pub(crate) mod turn;
pub mod walk;
pub(crate) mod watch;
