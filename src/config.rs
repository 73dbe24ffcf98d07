//! `.memlint.yml` (SPEC §8): read strictly. An unknown key or a bad value is an
//! error that names the key and its line.

use crate::diagnostic::{LineIndex, Severity};
use crate::yaml::{self, Node, Resolved, Value};
use std::collections::BTreeMap;
use std::fmt;

/// The name of the configuration file.
pub const FILE_NAME: &str = ".memlint.yml";

/// The directory that is always banned.
pub const ALWAYS_BANNED: &str = "memory/workflow";

/// The default session-start header (SPEC §6).
pub const DEFAULT_HEADER: &str = "Search memory (`memlint search QUERY`) before starting work and \
whenever past context is needed. Save decisions, user preferences and lasting facts as soon as \
they appear, not later. Always write absolute dates (YYYY-MM-DD), never relative ones.";

/// A per-rule severity override.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Off,
    Warning,
    Error,
}

impl Level {
    pub fn severity(self) -> Option<Severity> {
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
    pub blocks: usize,
    pub header: String,
}

/// `staging:` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct StagingConfig {
    pub max_files: usize,
    pub max_bytes: u64,
    pub stale_after_secs: u64,
}

/// `post_write:` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct PostWriteConfig {
    pub max_failures: u32,
}

/// The resolved configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Banned directories, `memory/workflow` always among them.
    pub banned_dirs: Vec<String>,
    pub max_sources: usize,
    pub max_body_chars: usize,
    pub similar_slug_ratio: f64,
    pub summary_max_tokens: usize,
    pub max_file_bytes: u64,
    pub rules: BTreeMap<String, Level>,
    pub context: ContextConfig,
    pub staging: StagingConfig,
    pub post_write: PostWriteConfig,
    /// Start `memlint watch` in the background from the commands that
    /// search the index (`search`, `context`, the session-start hook)
    /// when none runs (Linux).
    pub watch: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            banned_dirs: vec![ALWAYS_BANNED.to_string()],
            max_sources: 10,
            max_body_chars: 8000,
            similar_slug_ratio: 0.9,
            summary_max_tokens: 5000,
            max_file_bytes: 1_048_576,
            rules: BTreeMap::new(),
            context: ContextConfig {
                max_chars: 4000,
                blocks: 1,
                header: DEFAULT_HEADER.to_string(),
            },
            staging: StagingConfig {
                max_files: 50,
                max_bytes: 1_048_576,
                stale_after_secs: 7200,
            },
            post_write: PostWriteConfig { max_failures: 3 },
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

const TOP_KEYS: &[&str] = &[
    "banned_dirs",
    "max_sources",
    "max_body_chars",
    "similar_slug_ratio",
    "summary_max_tokens",
    "max_file_bytes",
    "rules",
    "context",
    "staging",
    "post_write",
    "watch",
];

struct Reader<'a> {
    index: LineIndex<'a>,
}

impl Reader<'_> {
    fn err(&self, at: usize, message: String) -> ConfigError {
        let p = self.index.position(at);
        ConfigError {
            line: p.line,
            column: p.column,
            message,
        }
    }

    fn unknown(&self, key: &Node, name: &str, known: &[&str], within: &str) -> ConfigError {
        if key.as_scalar().is_none() {
            return self.err(
                key.span.start,
                format!(
                    "a configuration key is a name, not {} (`{}`)",
                    key.type_name(),
                    key.flow_text()
                ),
            );
        }
        let hint = closest(name, known)
            .map(|k| format!(" (did you mean `{k}`?)"))
            .unwrap_or_default();
        self.err(
            key.span.start,
            format!("unknown configuration key `{within}{name}`{hint}"),
        )
    }

    fn uint(&self, key: &str, node: &Node) -> Result<u64, ConfigError> {
        node.as_scalar()
            .filter(|s| s.resolve() == Resolved::Int)
            .and_then(|s| {
                // YAML 1.2 core integers: decimal, `0o17`, `0x1F`.
                let t = s.text.strip_prefix('+').unwrap_or(&s.text);
                match t.get(..2) {
                    Some("0x") => u64::from_str_radix(&t[2..], 16).ok(),
                    Some("0o") => u64::from_str_radix(&t[2..], 8).ok(),
                    _ => t.parse::<u64>().ok(),
                }
            })
            .ok_or_else(|| {
                // An integer that is negative (or too large) is named by its
                // value, anything else by its type.
                let what = match node.as_scalar() {
                    Some(s) if s.resolve() == Resolved::Int => format!("`{}`", s.text),
                    _ => node.type_name().to_string(),
                };
                self.err(
                    node.span.start,
                    format!("`{key}` must be a non-negative whole number, not {what}"),
                )
            })
    }

    fn positive(&self, key: &str, node: &Node) -> Result<u64, ConfigError> {
        let n = self.uint(key, node)?;
        if n == 0 {
            return Err(self.err(node.span.start, format!("`{key}` must be at least 1")));
        }
        Ok(n)
    }

    fn string(&self, key: &str, node: &Node) -> Result<String, ConfigError> {
        node.as_scalar()
            .filter(|s| s.resolve() == Resolved::Str)
            .map(|s| s.text.clone())
            .ok_or_else(|| {
                self.err(
                    node.span.start,
                    format!("`{key}` must be a string, not {}", node.type_name()),
                )
            })
    }

    fn mapping<'n>(&self, key: &str, node: &'n Node) -> Result<&'n [yaml::Entry], ConfigError> {
        node.entries().ok_or_else(|| {
            self.err(
                node.span.start,
                format!("`{key}` must be a mapping, not {}", node.type_name()),
            )
        })
    }
}

fn closest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    similar::get_close_matches(name, known, 1, 0.6)
        .into_iter()
        .next()
}

fn key_name(entry: &yaml::Entry) -> &str {
    entry.key.as_scalar().map(|s| s.text.as_str()).unwrap_or("")
}

/// Parses the text of a configuration file. `known_rules` lists the rule
/// names that `rules:` may mention.
pub fn parse(text: &str, known_rules: &[&str]) -> Result<Config, ConfigError> {
    let r = Reader {
        index: LineIndex::new(text),
    };
    // The YAML layer's limits speak of front matter, its usual input.
    let doc = yaml::parse(text, 0).map_err(|e| {
        let message = e.message.replacen("front matter", "the configuration", 1);
        r.err(e.at, format!("invalid YAML: {message}"))
    })?;
    if let Some(d) = doc.duplicates.first() {
        return Err(r.err(
            d.repeat.start,
            format!("configuration key `{}` appears twice", d.key),
        ));
    }
    let mut config = Config::default();
    let Some(root) = doc.root else {
        return Ok(config);
    };
    if root.is_null() {
        return Ok(config);
    }
    let entries = r.mapping("the configuration", &root)?;
    for entry in entries {
        let key = key_name(entry);
        let v = &entry.value;
        match key {
            "banned_dirs" => {
                let Value::Seq { items, .. } = &v.value else {
                    return Err(r.err(
                        v.span.start,
                        format!(
                            "`banned_dirs` must be a list of directories, not {}",
                            v.type_name()
                        ),
                    ));
                };
                for item in items {
                    let dir = r.string("banned_dirs", item)?;
                    let dir = dir.trim_end_matches('/').to_string();
                    if dir.is_empty()
                        || dir.starts_with('/')
                        || dir
                            .split('/')
                            .any(|c| c == ".." || c == "." || c.is_empty())
                    {
                        return Err(r.err(
                            item.span.start,
                            format!("`banned_dirs` entry `{dir}` must be a directory relative to the root"),
                        ));
                    }
                    if !config.banned_dirs.contains(&dir) {
                        config.banned_dirs.push(dir);
                    }
                }
            }
            "max_sources" => config.max_sources = r.positive(key, v)? as usize,
            "max_body_chars" => config.max_body_chars = r.positive(key, v)? as usize,
            "summary_max_tokens" => config.summary_max_tokens = r.positive(key, v)? as usize,
            "max_file_bytes" => config.max_file_bytes = r.positive(key, v)?,
            "watch" => {
                config.watch = match v.as_scalar().map(|s| s.resolve()) {
                    Some(Resolved::Bool(b)) => b,
                    _ => {
                        return Err(r.err(
                            v.span.start,
                            format!("`watch` must be true or false, not {}", v.type_name()),
                        ))
                    }
                }
            }
            "similar_slug_ratio" => {
                let ratio = v
                    .as_scalar()
                    .filter(|s| matches!(s.resolve(), Resolved::Float | Resolved::Int))
                    .and_then(|s| s.text.parse::<f64>().ok())
                    .filter(|x| (0.0..=1.0).contains(x) && *x > 0.0);
                config.similar_slug_ratio = ratio.ok_or_else(|| {
                    r.err(
                        v.span.start,
                        "`similar_slug_ratio` must be a number above 0 and at most 1".into(),
                    )
                })?;
            }
            "rules" => {
                for rule in r.mapping(key, v)? {
                    let name = key_name(rule);
                    if rule.key.as_scalar().is_none() {
                        return Err(r.unknown(&rule.key, name, known_rules, "rules."));
                    }
                    if !known_rules.contains(&name) {
                        let hint = closest(name, known_rules)
                            .map(|k| format!(" (did you mean `{k}`?)"))
                            .unwrap_or_default();
                        return Err(r.err(
                            rule.key.span.start,
                            format!("unknown rule `{name}` under `rules`{hint}"),
                        ));
                    }
                    let level = match rule.value.as_scalar().map(|s| s.text.as_str()) {
                        Some("off") => Level::Off,
                        Some("warning") => Level::Warning,
                        Some("error") => Level::Error,
                        _ => {
                            return Err(r.err(
                                rule.value.span.start,
                                format!("severity of `{name}` must be `off`, `warning` or `error`"),
                            ))
                        }
                    };
                    config.rules.insert(name.to_string(), level);
                }
            }
            "context" => {
                const KEYS: &[&str] = &["max_chars", "blocks", "header"];
                for e in r.mapping(key, v)? {
                    match key_name(e) {
                        "max_chars" => {
                            config.context.max_chars =
                                r.positive("context.max_chars", &e.value)? as usize
                        }
                        "blocks" => {
                            config.context.blocks = r.uint("context.blocks", &e.value)? as usize
                        }
                        "header" => config.context.header = r.string("context.header", &e.value)?,
                        other => return Err(r.unknown(&e.key, other, KEYS, "context.")),
                    }
                }
            }
            "staging" => {
                const KEYS: &[&str] = &["max_files", "max_bytes", "stale_after_secs"];
                for e in r.mapping(key, v)? {
                    match key_name(e) {
                        "max_files" => {
                            config.staging.max_files =
                                r.positive("staging.max_files", &e.value)? as usize
                        }
                        "max_bytes" => {
                            config.staging.max_bytes = r.positive("staging.max_bytes", &e.value)?
                        }
                        "stale_after_secs" => {
                            config.staging.stale_after_secs =
                                r.positive("staging.stale_after_secs", &e.value)?
                        }
                        other => return Err(r.unknown(&e.key, other, KEYS, "staging.")),
                    }
                }
            }
            "post_write" => {
                const KEYS: &[&str] = &["max_failures"];
                for e in r.mapping(key, v)? {
                    match key_name(e) {
                        "max_failures" => {
                            config.post_write.max_failures =
                                r.positive("post_write.max_failures", &e.value)?
                                    .min(u32::MAX as u64) as u32
                        }
                        other => return Err(r.unknown(&e.key, other, KEYS, "post_write.")),
                    }
                }
            }
            other => return Err(r.unknown(&entry.key, other, TOP_KEYS, "")),
        }
    }
    Ok(config)
}

/// The commented configuration `memlint init` writes.
pub const TEMPLATE: &str = "\
# memlint configuration. Every key is optional; the values shown are the defaults.
# Directories whose files are always an error (memory/workflow is banned even if omitted).
banned_dirs: [memory/workflow]
# Most entries a record's `sources` may list before `sources/too-many` warns.
max_sources: 10
# Longest decision, request or knowledge body, in characters (`body/too-long`).
max_body_chars: 8000
# Slugs of one kind at least this similar are reported by `slug/similar`.
similar_slug_ratio: 0.9
# Largest summary, in estimated tokens (`summary/too-long`).
summary_max_tokens: 5000
# Files larger than this are not parsed (`format/too-large`).
max_file_bytes: 1048576
# Per-rule severity: off, warning or error.
rules: {}
# Session-start context (`memlint context`).
context: {max_chars: 4000, blocks: 1}
# When staging is due for consolidation, and when a lock counts as stale.
staging: {max_files: 50, max_bytes: 1048576, stale_after_secs: 7200}
# Consecutive failed lints of one file before the post-write hook stops the agent.
post_write: {max_failures: 3}
# true: the first search or context that finds no `memlint watch` running starts
# one (Linux), so that they need not stat every record.
watch: false
";

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: &[&str] = &["sources/dangling", "date/relative"];

    #[test]
    fn reads_spec_example() {
        let text = "banned_dirs: [memory/workflow, memory/old]\nmax_sources: 12\n\
            rules: {sources/dangling: warning, date/relative: off}\n\
            context: {max_chars: 3000, blocks: 2, header: \"hi\"}\n\
            staging: {max_files: 5, max_bytes: 100, stale_after_secs: 60}\n\
            post_write: {max_failures: 4}\n";
        let c = parse(text, RULES).unwrap();
        assert_eq!(c.banned_dirs, vec!["memory/workflow", "memory/old"]);
        assert_eq!(c.max_sources, 12);
        assert_eq!(c.rules["date/relative"], Level::Off);
        assert_eq!(c.context.blocks, 2);
        assert_eq!(c.staging.max_files, 5);
        assert_eq!(c.post_write.max_failures, 4);
    }

    #[test]
    fn template_parses_to_defaults() {
        let c = parse(TEMPLATE, RULES).unwrap();
        assert_eq!(c, Config::default());
    }

    #[test]
    fn unknown_key_names_line_and_suggestion() {
        let e = parse("max_sources: 3\nmax_source: 4\n", RULES).unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(
            e.message.contains("did you mean `max_sources`"),
            "{}",
            e.message
        );
    }

    #[test]
    fn bad_values() {
        assert_eq!(parse("max_sources: many\n", RULES).unwrap_err().line, 1);
        let e = parse("rules:\n  date/relative: loud\n", RULES).unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse("rules:\n  nope/x: off\n", RULES).unwrap_err();
        assert!(e.message.contains("unknown rule"));
        assert!(parse("similar_slug_ratio: 1.5\n", RULES).is_err());
    }
}
