//! `textDocument/rename` of a record's slug: one workspace edit that
//! rewrites every `replaced_by` and source naming the record, the record's
//! own `slug:` value, and renames its file. The editor applies it (and can
//! undo it); the server writes nothing itself.

use super::documents;
use super::navigation::{self, Target};
use super::state::State;
use crate::model::kind::{is_slug, Kind};
use lsp_types::{
    DocumentChangeOperation, DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier,
    RenameFile, RenameFileOptions, ResourceOp, TextDocumentEdit, TextEdit, WorkspaceEdit,
};
use std::collections::BTreeMap;
use std::ops::Range;

/// The workspace edit renaming the record the cursor is about (a reference
/// to it, or the buffer's own record) to `new_name`; `Err` says why not.
pub(crate) fn rename(
    state: &mut State,
    rel: &str,
    text: &str,
    offset: usize,
    new_name: &str,
) -> Result<WorkspaceEdit, String> {
    let (kind, old) = match navigation::at_cursor(state, rel, text, offset).map(|a| a.target) {
        Some(Target::Record(kind, name)) => (kind, name),
        Some(Target::File(..)) => return Err("a `file:` source names a file, not a record".into()),
        None => own_slug(state, rel, text, offset)?,
    };
    if !matches!(kind, Kind::Decision | Kind::Request | Kind::Knowledge) {
        return Err(format!("a {kind} has no slug to rename"));
    }
    // A file name is committed, pushed and printed: the same refusal as
    // `memlint new --slug`, never repeating the value.
    if let Some((_, what)) = crate::syntax::secrets::find(new_name).first() {
        return Err(format!(
            "the new name looks like {what}; a file name is committed, pushed and printed, so choose one that is not a secret"
        ));
    }
    if !is_slug(new_name) {
        return Err(format!(
            "`{}` is not a slug (lowercase words joined by `-`)",
            crate::syntax::sanitize::line(new_name)
        ));
    }
    let record = state
        .record(kind, &old)
        .ok_or_else(|| format!("no {kind} is named `{old}`"))?;
    let old_path = record.path.clone();
    let dir = old_path.rsplit_once('/').map_or("", |(d, _)| d);
    let new_path = format!("{dir}/{new_name}.md");
    // No clobbering: the new name must be free on disk and among records.
    if state.ws.root.join(&new_path).exists() || state.record(kind, new_name).is_some() {
        return Err(format!("`{new_path}` exists already"));
    }
    let mut by_file: BTreeMap<String, Vec<Range<usize>>> = BTreeMap::new();
    for (path, span) in navigation::referrers(state, kind, &old) {
        by_file.entry(path).or_default().push(span);
    }
    if let Some(own) = state.text_of(&old_path).and_then(|t| slug_value(&t)) {
        by_file.entry(old_path.clone()).or_default().push(own);
    }
    let mut ops = Vec::new();
    for (path, spans) in by_file {
        let (Some(uri), Some(text)) = (state.uri_of(&path), state.text_of(&path)) else {
            continue;
        };
        let version = state.docs.by_rel(&path).map(|d| d.version);
        let edits = spans
            .iter()
            .map(|s| {
                OneOf::Left(TextEdit {
                    range: documents::range(&text, s),
                    new_text: new_name.to_string(),
                })
            })
            .collect();
        ops.push(DocumentChangeOperation::Edit(TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
            edits,
        }));
    }
    let (Some(old_uri), Some(new_uri)) = (state.uri_of(&old_path), state.uri_of(&new_path)) else {
        return Err(format!("`{old_path}` has no file URI"));
    };
    // After the edits, which name the file by its old URI.
    ops.push(DocumentChangeOperation::Op(ResourceOp::Rename(
        RenameFile {
            old_uri,
            new_uri,
            options: Some(RenameFileOptions {
                overwrite: Some(false),
                ignore_if_exists: Some(false),
            }),
            annotation_id: None,
        },
    )));
    Ok(WorkspaceEdit {
        document_changes: Some(DocumentChanges::Operations(ops)),
        ..Default::default()
    })
}

/// The buffer's own record, when the cursor is on its `slug:` line.
fn own_slug(state: &State, rel: &str, text: &str, offset: usize) -> Result<(Kind, String), String> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let on_slug_line = text[line_start..].starts_with("slug:");
    let kind = super::state::kind_of(&state.ws, rel);
    match kind {
        Some(kind) if on_slug_line => Ok((kind, crate::model::kind::stem(rel).to_string())),
        _ => Err(
            "put the cursor on the `slug:` line or on a reference to the record to rename".into(),
        ),
    }
}

/// The bytes of the value of the front matter's `slug:` key (inside its
/// quotes, if any).
fn slug_value(text: &str) -> Option<Range<usize>> {
    use crate::syntax::frontmatter::{split, Split};
    let Split::Found(parts) = split(text) else {
        return None;
    };
    let mut at = parts.yaml.start;
    for line in text[parts.yaml.clone()].split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("slug:") {
            let value = rest.trim_end_matches(['\n', '\r']);
            let value = value.split(" #").next().unwrap_or(value);
            let lead = value.len() - value.trim_start().len();
            let v = value.trim();
            let quoted = v.len() >= 2
                && (v.starts_with('"') && v.ends_with('"')
                    || v.starts_with('\'') && v.ends_with('\''));
            let (skip, len) = if quoted {
                (1, v.len() - 2)
            } else {
                (0, v.len())
            };
            let start = at + "slug:".len() + lead + skip;
            return Some(start..start + len);
        }
        at += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_values_are_found_inside_quotes() {
        let text = "---\ntitle: x\nslug: \"use-gix\"\n---\n";
        let r = slug_value(text).unwrap();
        assert_eq!(&text[r], "use-gix");
        let text = "---\nslug: use-gix # old\n---\n";
        let r = slug_value(text).unwrap();
        assert_eq!(&text[r], "use-gix");
    }
}
