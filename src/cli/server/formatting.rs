//! `textDocument/formatting`: the buffer formatted by the engine's editor
//! mode (`engine::fmt::text_in`, what `memlint fmt --stdin-filepath` runs
//! once it has found the workspace), so the result is byte for byte what
//! `memlint fmt` writes. It uses the workspace the server holds, so it
//! works on the defaults while `.memlint.yml` is broken.

use super::documents;
use super::state::State;
use crate::engine::fmt::Formatted;
use lsp_types::TextEdit;

/// The edits that format the buffer of workspace file `rel`: one edit
/// replacing the whole text, none when it is already formatted or not a
/// record. `Err` says why the formatter refused (the buffer is kept).
pub(crate) fn format(state: &State, rel: &str, text: &str) -> Result<Vec<TextEdit>, String> {
    match crate::engine::fmt::text_in(&state.ws, rel, text.as_bytes()) {
        Formatted::Text { text: new, .. } if new != text => Ok(vec![TextEdit {
            range: documents::whole(text),
            new_text: new,
        }]),
        Formatted::Text { .. } | Formatted::NotARecord => Ok(Vec::new()),
        Formatted::Refused { why, .. } => Err(format!("memlint fmt: {why}")),
    }
}
