//! The rules, one family per module. What a rule sees ([`Record`]), where it
//! reports ([`Sink`]) and how it runs ([`Check`], [`REGISTRY`]) live in leaf
//! modules beside this one (`lint::record`, `lint::sink`, `lint::registry`),
//! so no family imports this module back.

pub(crate) mod body;
pub(crate) mod content;
pub(crate) mod context;
pub(crate) mod date;
pub(crate) mod format;
pub(crate) mod frontmatter;
pub(crate) mod history;
pub(crate) mod layout;
pub(crate) mod secrets;
pub(crate) mod session;
pub(crate) mod slug;
pub(crate) mod sources;
pub(crate) mod staging;
pub(crate) mod status;
pub(crate) mod summary;
pub(crate) mod text;
pub(crate) mod workspace;
