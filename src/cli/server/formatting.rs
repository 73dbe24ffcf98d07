//! `textDocument/formatting`: the buffer formatted by the engine's editor
//! mode (`engine::fmt::text`, what `memlint fmt --stdin-filepath` runs), so
//! the result is byte for byte what `memlint fmt` writes.

use super::documents;
use super::state::State;
use crate::engine::fmt::{EditorPlace, Formatted};
use lsp_types::TextEdit;

/// The edits that format the buffer of workspace file `rel`: one edit
/// replacing the whole text, none when it is already formatted or not a
/// record. `Err` says why the formatter refused (the buffer is kept).
pub fn format(state: &State, rel: &str, text: &str) -> Result<Vec<TextEdit>, String> {
    let path = state.ws.root.join(rel);
    let config = state.config_file.as_deref();
    let place = EditorPlace {
        root: Some(&state.ws.root),
        config,
        cwd: &state.ws.root,
        path: &path,
    };
    match crate::engine::fmt::text(&place, text.as_bytes()) {
        Ok(Formatted::Text { text: new, .. }) if new != text => Ok(vec![TextEdit {
            range: documents::whole(text),
            new_text: new,
        }]),
        Ok(Formatted::Text { .. }) | Ok(Formatted::NotARecord) => Ok(Vec::new()),
        Ok(Formatted::Refused { why, .. }) => Err(format!("memlint fmt: {why}")),
        Err(e) => Err(format!("memlint fmt: {e}")),
    }
}
