//! memlint: lint, format and recall agent memory kept as markdown records with
//! YAML front matter in a git repository.
//!
//! Layers, importing one way: `model` (pure data) < `syntax` (pure text) <
//! `lint`, `fmt` (pure checks and edits) < `io` (disk, git) < `store`
//! (`.memlint/`) < `engine` (use cases: typed values in and out) < `cli`
//! (flags, environment, standard streams, rendering, exit codes). Only
//! `cli::output` writes to standard output and standard error.
//!
//! ## The library's API
//!
//! The binary (`src/main.rs`) and the tests in `tests/` use these items;
//! everything else is `pub(crate)`: the CLI and the MCP and LSP servers
//! live inside the crate. `tests/architecture.rs` fails on a `pub` item
//! not named here (a named type brings its `pub` methods and fields).
//!
//! - `cli`:
//!   [`cli::AgentName`]
//!   [`cli::AuthorFormat`]
//!   [`cli::CheckArgs`]
//!   [`cli::CheckFormat`]
//!   [`cli::Cli`]
//!   [`cli::ColorChoice`]
//!   [`cli::Command`]
//!   [`cli::CompactArgs`]
//!   [`cli::CompactCommand`]
//!   [`cli::CompactFormat`]
//!   [`cli::CompactImportArgs`]
//!   [`cli::ContextArgs`]
//!   [`cli::ContextCommand`]
//!   [`cli::ExportArgs`]
//!   [`cli::ExportTarget`]
//!   [`cli::FmtArgs`]
//!   [`cli::GlobalArgs`]
//!   [`cli::HookAgentArgs`]
//!   [`cli::HookCommand`]
//!   [`cli::ImportArgs`]
//!   [`cli::ImportFormat`]
//!   [`cli::InitArgs`]
//!   [`cli::LogArgs`]
//!   [`cli::LogFormat`]
//!   [`cli::MergeFileArgs`]
//!   [`cli::NewArgs`]
//!   [`cli::NewKind`]
//!   [`cli::ReplaceArgs`]
//!   [`cli::ReportArgs`]
//!   [`cli::ReportFormat`]
//!   [`cli::SearchArgs`]
//!   [`cli::ShowArgs`]
//!   [`cli::StagingAddArgs`]
//!   [`cli::StagingClaimArgs`]
//!   [`cli::StagingCommand`]
//!   [`cli::StagingFormat`]
//!   [`cli::StagingReleaseArgs`]
//!   [`cli::VerifyArgs`]
//!   [`cli::WatchCommand`]
//!   [`cli::hook_usage_note`]
//!   [`cli::is_hook_call`]
//!   [`cli::output::err`]
//!   [`cli::run`]
//! - `engine`:
//!   `engine::check::lint::Outcome` (in a signature above; not nameable)
//!   `engine::fix::Report` (in a signature above; not nameable)
//!   [`engine::author::AuthorError`]
//!   [`engine::author::Changes`]
//!   [`engine::author::Updated`]
//!   [`engine::author::update`]
//!   [`engine::check::Checked`]
//!   [`engine::check::Mode`]
//!   [`engine::check::Selection`]
//!   [`engine::check::run`]
//!   [`engine::hook_prompt::render`]
//!   [`engine::init::templates::AGENT_HOOKS`]
//!   [`engine::init::templates::PRE_COMMIT`]
//!   [`engine::merge::How`]
//!   [`engine::merge::Markers`]
//!   [`engine::merge::Merge`]
//!   [`engine::merge::Outcome`]
//!   [`engine::merge::What`]
//!   [`engine::merge::merge`]
//!   [`engine::referrers::Referrers`]
//!   [`engine::scan::Fingerprints`]
//!   [`engine::scan::Options`]
//!   [`engine::scan::Progress`]
//!   [`engine::scan::Refreshed`]
//!   [`engine::scan::refresh`]
//!   [`engine::scan::with_fresh`]
//!   [`engine::search::Hit`]
//!   [`engine::staging::host_name`]
//!   [`engine::workspace::Surroundings`]
//!   [`engine::workspace::WorkspaceError`]
//!   [`engine::workspace::lint`]
//!   [`engine::workspace::load`]
//! - `fmt`:
//!   [`fmt::Meaning`]
//!   [`fmt::Outcome`]
//!   [`fmt::comments`]
//!   [`fmt::crlf_to_lf`]
//!   [`fmt::format_record`]
//!   [`fmt::record_meaning`]
//! - `io`:
//!   `io::git::types::Asking` (in a signature above; not nameable)
//!   `io::git::types::GitError` (in a signature above; not nameable)
//!   [`io::cache::key`]
//!   [`io::git::InOrder`]
//!   [`io::git::Tracked`]
//!   [`io::stat::RACY_NS`]
//!   [`io::stat::Stat`]
//!   [`io::walk::Walked`]
//!   [`io::walk::walk`]
//! - `lint`:
//!   `lint::record::Field` (in a signature above; not nameable)
//!   `lint::record::Record` (in a signature above; not nameable)
//!   `lint::rules::content::duplicate::Pair` (in a signature above; not nameable)
//!   `lint::rules::workspace::Entry` (in a signature above; not nameable)
//!   `lint::rules::workspace::Resolver` (in a signature above; not nameable)
//!   `lint::rules::workspace::View` (in a signature above; not nameable)
//!   `lint::rules::workspace::WsSink` (in a signature above; not nameable)
//!   `lint::sink::Finding` (in a signature above; not nameable)
//!   `lint::sink::Sink` (in a signature above; not nameable)
//!   [`lint::FileReport`]
//!   [`lint::Located`]
//!   [`lint::RecordInfo`]
//!   [`lint::registry::Check`]
//!   [`lint::registry::REGISTRY`]
//!   [`lint::registry::RuleDef`]
//!   [`lint::registry::lookup`]
//!   [`lint::registry::names`]
//! - `model`:
//!   `model::rule::Rule` (in a signature above; not nameable)
//!   `model::severity::Severity` (in a signature above; not nameable)
//!   [`model::clock::now_secs`]
//!   [`model::clock::parse_rfc3339`]
//!   [`model::clock::rfc3339`]
//!   [`model::config::Config`]
//!   [`model::config::ConfigError`]
//!   [`model::config::ContextConfig`]
//!   [`model::config::Level`]
//!   [`model::config::PostWriteConfig`]
//!   [`model::config::RecallConfig`]
//!   [`model::config::StagingConfig`]
//!   [`model::diagnostic::Commits`]
//!   [`model::diagnostic::Diagnostic`]
//!   [`model::kind::Field`]
//!   [`model::kind::FieldType`]
//!   [`model::kind::Kind`]
//!   [`model::kind::Place`]
//!   [`model::kind::Presence`]
//!   [`model::kind::SOURCE_PREFIXES`]
//!   [`model::kind::classify`]
//!   [`model::workspace::Problem`]
//!   [`model::workspace::Workspace`]
//! - `store`:
//!   `store::drift_marks::DriftMark` (in a signature above; not nameable)
//!   [`store::table::Entry`]
//!   [`store::table::Glance`]
//!   [`store::table::Table`]
//!   [`store::table::decode`]
//!   [`store::table::load`]
//!   [`store::table::read`]
//!   [`store::table::save`]
//! - `syntax`:
//!   `syntax::session::Section` (in a signature above; not nameable)
//!   `syntax::similar::sketch::Sketch` (in a signature above; not nameable)
//!   `syntax::text::HintWords` (in a signature above; not nameable)
//!   [`syntax::config::parse`]
//!   [`syntax::frontmatter::Absence`]
//!   [`syntax::frontmatter::Parts`]
//!   [`syntax::frontmatter::Split`]
//!   [`syntax::frontmatter::split`]
//!   [`syntax::sanitize::invisible`]
//!   [`syntax::secrets::find`]
//!   [`syntax::slugify::from_title`]
//!   [`syntax::yaml::Document`]
//!   [`syntax::yaml::DuplicateKey`]
//!   [`syntax::yaml::Entry`]
//!   [`syntax::yaml::Error`]
//!   [`syntax::yaml::ErrorKind`]
//!   [`syntax::yaml::Node`]
//!   [`syntax::yaml::Scalar`]
//!   [`syntax::yaml::Style`]
//!   [`syntax::yaml::Value`]
//!   [`syntax::yaml::parse`]

pub mod cli;
pub mod engine;
pub mod fmt;
pub mod io;
pub mod lint;
pub mod model;
pub mod store;
pub mod syntax;
#[cfg(test)]
mod testing;
