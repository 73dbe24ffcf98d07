//! `memlint init`: the workspace layout ([`layout`]), the git hooks
//! ([`hooks`], with their texts in [`templates`]) and the agent-runtime
//! settings ([`agent_settings`], merged as order-keeping `json`); what the
//! steps share is in [`files`].

pub mod agent_settings;
pub mod files;
pub mod hooks;
mod json;
pub mod layout;
pub mod templates;
