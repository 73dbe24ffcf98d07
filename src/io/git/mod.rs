//! Git reads, all through gix (memlint never runs the `git` program).

pub mod repo;

pub use repo::*;
