//! `memlint init`: the workspace layout (`layout`), the git hooks
//! (`hooks`, with their texts in [`templates`]) and the agent-runtime
//! settings (`agent_settings`, merged as order-keeping `json`); what the
//! steps share is in `files`.

pub(crate) mod agent_settings;
pub(crate) mod files;
pub(crate) mod hooks;
mod json;
pub(crate) mod layout;
pub mod templates;
