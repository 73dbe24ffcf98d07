//! `layout/*`: files in the wrong place.

/// The message for `layout/banned-dir`.
pub fn banned_message(dir: &str) -> String {
    if dir == crate::config::ALWAYS_BANNED {
        "`memory/workflow/` is banned: workflow state is not memory; move lasting facts to \
         `knowledge/` or `memory/decisions/` and delete the rest"
            .to_string()
    } else {
        format!("`{dir}/` is a banned directory (`banned_dirs` in .memlint.yml); move or delete this file")
    }
}

/// The message for `layout/unknown-file`.
pub fn unknown_message(rel: &str) -> String {
    let hint = if !rel.ends_with(".md") {
        "records are `.md` files"
    } else {
        "records live directly in memory/decisions/, memory/requests/, memory/sessions/, knowledge/ or staging/, and the summary is memory/summary.md"
    };
    format!("`{rel}` is not a record of any kind: {hint}")
}
