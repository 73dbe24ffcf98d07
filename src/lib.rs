//! memlint: lint, format and recall agent memory kept as markdown records with
//! YAML front matter in a git repository.
//!
//! Layers, importing one way: `model` (pure data) < `syntax` (pure text) <
//! `lint`, `fmt` (pure checks and edits) < `io` (disk, git) < `store`
//! (`.memlint/`) < `engine` (use cases: typed values in and out) < `cli`
//! (flags, environment, standard streams, rendering, exit codes). Only
//! `cli::output` writes to standard output and standard error.

pub mod cli;
pub mod engine;
pub mod fmt;
pub mod io;
pub mod lint;
pub mod model;
pub mod store;
pub mod syntax;
#[cfg(test)]
mod testing;
