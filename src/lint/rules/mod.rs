//! The rules, one family per module. What a rule sees ([`Record`]), where it
//! reports ([`Sink`]) and how it runs ([`Check`], [`REGISTRY`]) live in leaf
//! modules beside this one (`lint::record`, `lint::sink`, `lint::registry`),
//! so no family imports this module back.

pub mod body;
pub mod content;
pub mod context;
pub mod date;
pub mod format;
pub mod frontmatter;
pub mod history;
pub mod layout;
pub mod secrets;
pub mod session;
pub mod slug;
pub mod sources;
pub mod staging;
pub mod status;
pub mod summary;
pub mod text;
pub mod workspace;

// The paths the engine and the front ends used before the registry moved
// out of this module; they keep working.
pub use crate::lint::record::{field_problem, FieldState, ProblemRule, Record};
pub use crate::lint::registry::{lookup, names, Check, RuleDef, REGISTRY};
pub use crate::lint::sink::{Finding, Sink};
