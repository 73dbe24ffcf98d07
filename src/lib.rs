//! memlint: lint, format and recall agent memory kept as markdown records with
//! YAML front matter in a git repository.
//!
//! The core (`lint`, `rules`, `frontmatter`, `yaml`, `record`) takes text,
//! paths and configuration and returns diagnostics; walking, git and rendering
//! live at the edges (`workspace`, `render`, `cli`).

pub mod check;
pub mod cli;
pub mod clock;
pub mod compact;
pub mod config;
pub mod context;
pub mod diagnostic;
pub mod fix;
pub mod fmt;
pub mod frontmatter;
pub mod fsutil;
pub mod git;
pub mod hashing;
pub mod history;
pub mod hook;
pub mod ignores;
pub mod index;
pub mod init;
pub mod lint;
pub mod record;
pub mod render;
pub mod report;
pub mod rules;
pub mod search;
pub mod session;
pub mod staging;
#[cfg(test)]
mod testing;
pub mod text;
pub mod watch;
pub mod workspace;
pub mod yaml;
