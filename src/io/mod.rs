//! The outside world: the file system (regular files only, atomic and
//! no-clobber writes), walking the workspace, git through gix, and the
//! watcher. Imports `model`, `syntax`, `lint` and `fmt`; never prints.

pub mod batch;
pub mod bounded;
pub mod cache;
pub mod files;
pub mod fs;
pub mod git;
pub mod ignores;
pub mod lines;
pub mod lock;
pub mod read;
pub mod regular;
pub mod source;
pub mod stat;
pub mod turn;
pub mod walk;
pub mod watch;
