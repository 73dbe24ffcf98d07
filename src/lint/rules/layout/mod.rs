//! `layout/*`: files in the wrong place.

/// The message for `layout/banned-dir`.
pub fn banned_message(dir: &str) -> String {
    if dir == crate::model::config::ALWAYS_BANNED {
        "`memory/workflow/` is banned: workflow state is not memory; move lasting facts to \
         `knowledge/` or `memory/decisions/` and delete the rest"
            .to_string()
    } else {
        format!("`{dir}/` is a banned directory (`banned_dirs` in .memlint.yml); move or delete this file")
    }
}

/// The message for `layout/unknown-file`.
pub fn unknown_message(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if let Some(of) = leftover_of(name) {
        return format!(
            "`{rel}` is a temporary file left by an interrupted memlint write; `{of}` was not changed by it, so delete this file"
        );
    }
    let hint = if !rel.ends_with(".md") {
        "records are `.md` files"
    } else {
        "records live directly in memory/decisions/, memory/requests/, memory/sessions/, knowledge/ or staging/, and the summary is memory/summary.md"
    };
    format!("`{rel}` is not a record of any kind: {hint}")
}

/// The file a temporary file of `fsutil` (`.<name>.memlint-<…>.tmp`) was
/// written for.
fn leftover_of(name: &str) -> Option<&str> {
    let inner = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (of, _) = inner.rsplit_once(".memlint-")?;
    (!of.is_empty()).then_some(of)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftover_temporary_files_name_their_record() {
        let m = unknown_message("memory/decisions/.use-gix.md.memlint-41-3f2a-0.tmp");
        assert!(m.contains("interrupted memlint write"), "{m}");
        assert!(m.contains("`use-gix.md` was not changed"), "{m}");
        assert!(!unknown_message("memory/decisions/notes.txt").contains("interrupted"));
        assert!(!unknown_message("memory/decisions/.memlint-x.tmp").contains("interrupted"));
    }
}
