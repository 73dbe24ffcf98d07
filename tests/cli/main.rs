//! The CLI tests, one test binary: each module is what was a test binary
//! of its own (`tests/cli/NAME.rs`), run through the real `memlint`
//! binary. One binary links the library once instead of once per file,
//! which is most of a clean `cargo test` build.
//!
//! Run one module or one test by name: `cargo test --test cli hook_prompt::`
//! or `cargo test --test cli NAME`. A new test file goes in here as
//! `tests/cli/NAME.rs` with a line below; its helpers come from
//! `crate::common` (`use crate::common;`), never `mod common;`.

#[path = "../common/mod.rs"]
mod common;
#[path = "../lsp/mod.rs"]
mod lsp;

mod action;
mod agents;
mod audit_files;
mod audit_hostile;
mod audit_output;
mod audit_rendered_masks;
mod audit_write_races;
mod audit_writes;
mod author;
mod bounded_files;
mod bounds;
mod commit_msg;
mod compact;
mod completions;
mod context;
mod corpora;
mod crossref;
mod distribution;
mod docs;
mod docs_console;
mod drift;
mod drift_change;
mod drift_cold;
mod drift_long;
mod drift_merges;
mod drift_reformat;
mod drift_visible;
mod drift_warm;
mod export;
mod flag_names;
mod fmt;
mod fmt_corpus;
mod fmt_props;
mod git;
mod hardening_secrets;
mod hook;
mod hook_prompt;
mod hook_prompt_watch;
mod hook_write;
mod import;
mod index;
mod init;
mod listing_dirs;
mod mcp;
mod memory_guard;
mod merge;
mod merge_comments;
mod merge_simulation;
mod new_fast;
mod new_rows;
mod plugin;
mod pre_commit;
mod problems;
mod release;
mod rendered;
mod replace_races;
mod report;
mod report_html;
mod rules;
mod schema;
mod search;
mod secrets;
mod server;
mod server_nvim;
mod server_pygls;
mod staging;
mod staging_remote;
mod version;
mod watch;
mod yaml_quoted_tab;

/// A file in `tests/cli/` without its `mod` line above would never run.
#[test]
fn every_file_of_tests_cli_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let main = std::fs::read_to_string(dir.join("main.rs")).expect("main.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/cli") {
        let name = entry.expect("entry").file_name();
        let name = name.to_string_lossy();
        if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "main" && !main.contains(&format!("\nmod {stem};\n")) {
                missing.push(name.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "add `mod NAME;` to tests/cli/main.rs for {missing:?}"
    );
}
