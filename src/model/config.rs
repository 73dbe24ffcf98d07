//! The configuration (`.memlint.yml`, docs/configuration.md) as data: its values and
//! defaults, and the located errors of a file that does not read. The
//! strict reader of the file is [`crate::syntax::config`].

use crate::model::severity::Severity;
use std::collections::BTreeMap;
use std::fmt;

/// The name of the configuration file.
pub(crate) const FILE_NAME: &str = ".memlint.yml";

/// The directory that is always banned.
pub(crate) const ALWAYS_BANNED: &str = "memory/workflow";

/// The default session-start header (docs/agent-hooks.md).
pub(crate) const DEFAULT_HEADER: &str =
    "Search memory (`memlint search QUERY`) before starting work and \
whenever past context is needed. Save decisions, user preferences and lasting facts as soon as \
they appear, not later. Always write absolute dates (YYYY-MM-DD), never relative ones.
Save with `memlint new decision|request|knowledge \"Title\" --source SRC` (memory/decisions/, \
memory/requests/, knowledge/; knowledge also takes --description and --resident); a record that \
changes an earlier decision takes `--replaces OLD-SLUG`. `memlint show SLUG` reads one.";

/// The default `similar_content_ratio`.
pub(crate) const DEFAULT_CONTENT_RATIO: f64 = 0.85;

/// A per-rule severity override.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Off,
    Warning,
    Error,
}

impl Level {
    pub(crate) fn severity(self) -> Option<Severity> {
        match self {
            Level::Off => None,
            Level::Warning => Some(Severity::Warning),
            Level::Error => Some(Severity::Error),
        }
    }
}

/// `context:` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextConfig {
    pub max_chars: usize,
    /// The budget of the block `memlint export agents-md` writes.
    pub export_max_chars: usize,
    pub blocks: usize,
    pub header: String,
}

/// `staging:` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct StagingConfig {
    pub max_files: usize,
    pub max_bytes: u64,
    pub stale_after_secs: u64,
    /// How long one operation on a remote (`staging claim|release
    /// --remote`) may take before it is given up.
    pub remote_timeout_secs: u64,
}

/// `post_write:` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct PostWriteConfig {
    pub max_failures: u32,
    /// `hook post-write` formats a valid record itself (and says so)
    /// instead of telling the agent to run `memlint fmt`. Off by default:
    /// a file changed behind the agent's back no longer matches what it
    /// read, and its next edit of it fails.
    pub format: bool,
}

/// `recall:` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallConfig {
    /// Most characters the prompt hook (`memlint hook prompt`) adds to a
    /// prompt.
    pub prompt_chars: usize,
}

/// The resolved configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Banned directories, `memory/workflow` always among them.
    pub banned_dirs: Vec<String>,
    pub max_sources: usize,
    pub max_body_chars: usize,
    pub similar_slug_ratio: f64,
    /// Records of one kind whose title and body are at least this alike
    /// (estimated Jaccard similarity of their word pairs) are reported by
    /// `content/duplicate`.
    pub similar_content_ratio: f64,
    pub summary_max_tokens: usize,
    pub max_file_bytes: u64,
    pub rules: BTreeMap<String, Level>,
    pub context: ContextConfig,
    pub staging: StagingConfig,
    pub post_write: PostWriteConfig,
    pub recall: RecallConfig,
    /// `secrets.allow`: the credentials `secrets/detected` leaves alone
    /// (documented example keys), as `path:fingerprint`, or as a 12-digit
    /// fingerprint of earlier versions.
    pub secrets_allow: Vec<String>,
    /// Start `memlint watch` in the background from the commands that
    /// search the index (`search`, `context`, the session-start hook)
    /// when none runs (Linux).
    pub watch: bool,
}

impl Config {
    /// The severity `rule` reports with: the configured level, else the
    /// rule's default; `None` when it is off. The one place severity is
    /// resolved.
    pub(crate) fn severity(
        &self,
        rule: crate::model::rule::Rule,
    ) -> Option<crate::model::severity::Severity> {
        match self.rules.get(rule.as_str()) {
            Some(level) => level.severity(),
            None => Some(rule.default_severity()),
        }
    }

    /// Whether `rule` runs at all (it is not `off`).
    pub(crate) fn enabled(&self, rule: crate::model::rule::Rule) -> bool {
        self.severity(rule).is_some()
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            banned_dirs: vec![ALWAYS_BANNED.to_string()],
            max_sources: 10,
            max_body_chars: 8000,
            similar_slug_ratio: 0.9,
            similar_content_ratio: DEFAULT_CONTENT_RATIO,
            summary_max_tokens: 5000,
            max_file_bytes: 1_048_576,
            rules: BTreeMap::new(),
            context: ContextConfig {
                max_chars: 4000,
                export_max_chars: 4000,
                blocks: 1,
                header: DEFAULT_HEADER.to_string(),
            },
            staging: StagingConfig {
                max_files: 50,
                max_bytes: 1_048_576,
                stale_after_secs: 7200,
                remote_timeout_secs: 60,
            },
            post_write: PostWriteConfig {
                max_failures: 3,
                format: false,
            },
            recall: RecallConfig { prompt_chars: 1500 },
            secrets_allow: Vec::new(),
            watch: false,
        }
    }
}

/// A configuration problem, located in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// The commented configuration `memlint init` writes.
pub(crate) const TEMPLATE: &str = "\
# memlint configuration. Every key is optional; the values shown are the defaults.
# Directories whose files are always an error (memory/workflow is banned even if omitted).
banned_dirs: [memory/workflow]
# Most entries a record's `sources` may list before `sources/too-many` warns.
max_sources: 10
# Longest decision, request or knowledge body, in characters (`body/too-long`).
max_body_chars: 8000
# Slugs of one kind at least this similar are reported by `slug/similar`.
similar_slug_ratio: 0.9
# Records of one kind whose title and body are at least this alike are reported by
# `content/duplicate` (and refused by `memlint new` without --force).
similar_content_ratio: 0.85
# Largest summary, in estimated tokens (`summary/too-long`).
summary_max_tokens: 5000
# Files larger than this are not parsed (`format/too-large`).
max_file_bytes: 1048576
# Per-rule severity: off, warning or error.
rules: {}
# Session-start context (`memlint context`).
context: {max_chars: 4000, blocks: 1}
# When staging is due for consolidation, and when a lock counts as stale.
# remote_timeout_secs bounds each git operation of `staging --remote`.
staging: {max_files: 50, max_bytes: 1048576, stale_after_secs: 7200, remote_timeout_secs: 60}
# Consecutive failed lints of one file before the post-write hook stops the agent;
# format: true lets the hook format a valid record itself (the agent must then
# re-read it before editing it again).
post_write: {max_failures: 3, format: false}
# Most characters of records the prompt hook adds to a prompt.
recall: {prompt_chars: 1500}
# true: the first search or context that finds no `memlint watch` running starts
# one (Linux), so that they need not stat every record.
watch: false
";
