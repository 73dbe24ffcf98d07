//! Rendering `check` results, one file per output format: human (miette
//! reports), JSON, GitHub workflow commands and SARIF 2.1.0.

mod github;
mod graphical;
mod human;
mod json;
mod sarif;
mod summary;

pub(crate) use github::{github, Level};
pub(crate) use human::{human, rendered, width, Rendered};
pub(crate) use json::prepare as prepare_json;
pub(crate) use sarif::sarif;
pub(crate) use summary::Summary;
