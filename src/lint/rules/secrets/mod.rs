//! `secrets/*`: memory is committed and pushed, so a credential must never
//! get in. The detector itself is [`crate::syntax::secrets`].
//!
//! One file per rule: its documentation (`DOC`), its check, its fix.

pub(crate) mod detected;

// The paths the linter, the fixer and the engine call.
pub(crate) use detected::scan;
