//! Rendering `check` results, one file per output format: human (miette
//! reports), JSON, GitHub workflow commands and SARIF 2.1.0.

mod github;
mod human;
mod json;
mod sarif;
mod summary;

pub use github::github;
pub use human::{human, width};
pub use json::json;
pub use sarif::sarif;
pub use summary::Summary;
