//! `.memlint.yml` (docs/configuration.md): read strictly. An unknown key or a bad value is an
//! error that names the key and its line. Text in, [`Config`] or every
//! error out; the types are [`crate::model::config`].

use crate::model::config::{Config, ConfigError, Level};
use crate::model::diagnostic::LineIndex;
use crate::syntax::yaml::{self, Node, Resolved, Value};

const TOP_KEYS: &[&str] = &[
    "banned_dirs",
    "max_sources",
    "max_body_chars",
    "similar_slug_ratio",
    "similar_content_ratio",
    "summary_max_tokens",
    "max_file_bytes",
    "rules",
    "context",
    "staging",
    "post_write",
    "recall",
    "secrets",
    "watch",
];

/// A ratio: a number above 0 and at most 1.
fn ratio(v: &Node) -> Option<f64> {
    v.as_scalar()
        .filter(|s| matches!(s.resolve(), Resolved::Float | Resolved::Int))
        .and_then(|s| s.text.parse::<f64>().ok())
        .filter(|x| (0.0..=1.0).contains(x) && *x > 0.0)
}

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

    fn boolean(&self, key: &str, node: &Node) -> Result<bool, ConfigError> {
        match node.as_scalar().map(|s| s.resolve()) {
            Some(Resolved::Bool(b)) => Ok(b),
            _ => Err(self.err(
                node.span.start,
                format!("`{key}` must be true or false, not {}", node.type_name()),
            )),
        }
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
/// names that `rules:` may mention. The error is the first problem; see
/// `parse_all` for every one.
pub fn parse(text: &str, known_rules: &[&str]) -> Result<Config, ConfigError> {
    parse_all(text, known_rules).map_err(|mut errors| errors.swap_remove(0))
}

/// Keeps `result`'s value, or adds its error to `errors`.
fn noted<T>(errors: &mut Vec<ConfigError>, result: Result<T, ConfigError>) -> Option<T> {
    result.map_err(|e| errors.push(e)).ok()
}

/// [`parse`], with every problem of the file at once (sorted by position),
/// so that one run shows all there is to fix. Only YAML that does not
/// parse stops the reading at its first error.
pub(crate) fn parse_all(text: &str, known_rules: &[&str]) -> Result<Config, Vec<ConfigError>> {
    let r = Reader {
        index: LineIndex::new(text),
    };
    // The YAML layer's limits speak of front matter, its usual input.
    let doc = yaml::parse(text, 0).map_err(|e| {
        let message = e.message.replacen("front matter", "the configuration", 1);
        vec![r.err(e.at, format!("invalid YAML: {message}"))]
    })?;
    let mut errors: Vec<ConfigError> = doc
        .duplicates
        .iter()
        .map(|d| {
            r.err(
                d.repeat.start,
                format!("configuration key `{}` appears twice", d.key),
            )
        })
        .collect();
    let mut config = Config::default();
    let root = doc.root.filter(|root| !root.is_null());
    let entries: &[yaml::Entry] = match &root {
        Some(root) => noted(&mut errors, r.mapping("the configuration", root)).unwrap_or_default(),
        None => &[],
    };
    let errs = &mut errors;
    for entry in entries {
        let key = key_name(entry);
        let v = &entry.value;
        match key {
            "banned_dirs" => banned_dirs(&r, v, errs, &mut config),
            "max_sources" => {
                if let Some(n) = noted(errs, r.positive(key, v)) {
                    config.max_sources = n as usize;
                }
            }
            "max_body_chars" => {
                if let Some(n) = noted(errs, r.positive(key, v)) {
                    config.max_body_chars = n as usize;
                }
            }
            "summary_max_tokens" => {
                if let Some(n) = noted(errs, r.positive(key, v)) {
                    config.summary_max_tokens = n as usize;
                }
            }
            "max_file_bytes" => {
                if let Some(n) = noted(errs, r.positive(key, v)) {
                    config.max_file_bytes = n;
                }
            }
            "watch" => match v.as_scalar().map(|s| s.resolve()) {
                Some(Resolved::Bool(b)) => config.watch = b,
                _ => errs.push(r.err(
                    v.span.start,
                    format!("`watch` must be true or false, not {}", v.type_name()),
                )),
            },
            "similar_slug_ratio" => match ratio(v) {
                Some(ratio) => config.similar_slug_ratio = ratio,
                None => errs.push(r.err(
                    v.span.start,
                    "`similar_slug_ratio` must be a number above 0 and at most 1".into(),
                )),
            },
            "similar_content_ratio" => match ratio(v) {
                Some(ratio) => config.similar_content_ratio = ratio,
                None => errs.push(r.err(
                    v.span.start,
                    "`similar_content_ratio` must be a number above 0 and at most 1".into(),
                )),
            },
            "rules" => rules(&r, v, known_rules, errs, &mut config),
            "context" => context(&r, v, errs, &mut config),
            "staging" => staging(&r, v, errs, &mut config),
            "post_write" => post_write(&r, v, errs, &mut config),
            "recall" => recall(&r, v, errs, &mut config),
            "secrets" => secrets(&r, v, errs, &mut config),
            other => errs.push(r.unknown(&entry.key, other, TOP_KEYS, "")),
        }
    }
    if errors.is_empty() {
        return Ok(config);
    }
    errors.sort_by_key(|e| (e.line, e.column));
    Err(errors)
}

/// `banned_dirs`: directories relative to the root, each once.
fn banned_dirs(r: &Reader, v: &Node, errs: &mut Vec<ConfigError>, config: &mut Config) {
    let Value::Seq { items, .. } = &v.value else {
        errs.push(r.err(
            v.span.start,
            format!(
                "`banned_dirs` must be a list of directories, not {}",
                v.type_name()
            ),
        ));
        return;
    };
    for item in items {
        let Some(dir) = noted(errs, r.string("banned_dirs", item)) else {
            continue;
        };
        let dir = dir.trim_end_matches('/').to_string();
        if dir.is_empty()
            || dir.starts_with('/')
            || dir
                .split('/')
                .any(|c| c == ".." || c == "." || c.is_empty())
        {
            errs.push(r.err(
                item.span.start,
                format!("`banned_dirs` entry `{dir}` must be a directory relative to the root"),
            ));
            continue;
        }
        if !config.banned_dirs.contains(&dir) {
            config.banned_dirs.push(dir);
        }
    }
}

/// `rules`: a severity (`off`, `warning`, `error`) per known rule name.
fn rules(
    r: &Reader,
    v: &Node,
    known_rules: &[&str],
    errs: &mut Vec<ConfigError>,
    config: &mut Config,
) {
    for rule in noted(errs, r.mapping("rules", v)).unwrap_or_default() {
        let name = key_name(rule);
        if rule.key.as_scalar().is_none() {
            errs.push(r.unknown(&rule.key, name, known_rules, "rules."));
            continue;
        }
        if !known_rules.contains(&name) {
            let hint = closest(name, known_rules)
                .map(|k| format!(" (did you mean `{k}`?)"))
                .unwrap_or_default();
            errs.push(r.err(
                rule.key.span.start,
                format!("unknown rule `{name}` under `rules`{hint}"),
            ));
            continue;
        }
        let level = match rule.value.as_scalar().map(|s| s.text.as_str()) {
            Some("off") => Level::Off,
            Some("warning") => Level::Warning,
            Some("error") => Level::Error,
            written => {
                const LEVELS: &[&str] = &["off", "warning", "error"];
                let hint = written
                    .and_then(|w| closest(&w.to_lowercase(), LEVELS))
                    .map(|k| format!(" (did you mean `{k}`?)"))
                    .unwrap_or_default();
                errs.push(r.err(
                    rule.value.span.start,
                    format!("severity of `{name}` must be `off`, `warning` or `error`{hint}"),
                ));
                continue;
            }
        };
        config.rules.insert(name.to_string(), level);
    }
}

/// `context`: the session-start context's budget, block count and header.
fn context(r: &Reader, v: &Node, errs: &mut Vec<ConfigError>, config: &mut Config) {
    const KEYS: &[&str] = &["max_chars", "export_max_chars", "blocks", "header"];
    for e in noted(errs, r.mapping("context", v)).unwrap_or_default() {
        match key_name(e) {
            "max_chars" => {
                if let Some(n) = noted(errs, r.positive("context.max_chars", &e.value)) {
                    config.context.max_chars = n as usize;
                }
            }
            "export_max_chars" => {
                if let Some(n) = noted(errs, r.positive("context.export_max_chars", &e.value)) {
                    config.context.export_max_chars = n as usize;
                }
            }
            "blocks" => {
                if let Some(n) = noted(errs, r.uint("context.blocks", &e.value)) {
                    config.context.blocks = n as usize;
                }
            }
            "header" => {
                if let Some(h) = noted(errs, r.string("context.header", &e.value)) {
                    config.context.header = h;
                }
            }
            other => errs.push(r.unknown(&e.key, other, KEYS, "context.")),
        }
    }
}

/// `staging`: when staging is due for consolidation, when a lock is stale.
fn staging(r: &Reader, v: &Node, errs: &mut Vec<ConfigError>, config: &mut Config) {
    const KEYS: &[&str] = &[
        "max_files",
        "max_bytes",
        "stale_after_secs",
        "remote_timeout_secs",
    ];
    for e in noted(errs, r.mapping("staging", v)).unwrap_or_default() {
        match key_name(e) {
            "max_files" => {
                if let Some(n) = noted(errs, r.positive("staging.max_files", &e.value)) {
                    config.staging.max_files = n as usize;
                }
            }
            "max_bytes" => {
                if let Some(n) = noted(errs, r.positive("staging.max_bytes", &e.value)) {
                    config.staging.max_bytes = n;
                }
            }
            "stale_after_secs" => {
                if let Some(n) = noted(errs, r.positive("staging.stale_after_secs", &e.value)) {
                    config.staging.stale_after_secs = n;
                }
            }
            "remote_timeout_secs" => {
                let n = r.positive("staging.remote_timeout_secs", &e.value);
                if let Some(n) = noted(errs, n) {
                    config.staging.remote_timeout_secs = n;
                }
            }
            other => errs.push(r.unknown(&e.key, other, KEYS, "staging.")),
        }
    }
}

/// `post_write`: failed lints of one file before the hook stops the agent.
fn post_write(r: &Reader, v: &Node, errs: &mut Vec<ConfigError>, config: &mut Config) {
    const KEYS: &[&str] = &["max_failures", "format"];
    for e in noted(errs, r.mapping("post_write", v)).unwrap_or_default() {
        match key_name(e) {
            "format" => {
                if let Some(b) = noted(errs, r.boolean("post_write.format", &e.value)) {
                    config.post_write.format = b;
                }
            }
            "max_failures" => {
                if let Some(n) = noted(errs, r.positive("post_write.max_failures", &e.value)) {
                    config.post_write.max_failures = n.min(u32::MAX as u64) as u32;
                }
            }
            other => errs.push(r.unknown(&e.key, other, KEYS, "post_write.")),
        }
    }
}

/// `recall`: how much the prompt hook may add to a prompt.
fn recall(r: &Reader, v: &Node, errs: &mut Vec<ConfigError>, config: &mut Config) {
    const KEYS: &[&str] = &["prompt_chars"];
    for e in noted(errs, r.mapping("recall", v)).unwrap_or_default() {
        match key_name(e) {
            "prompt_chars" => {
                if let Some(n) = noted(errs, r.positive("recall.prompt_chars", &e.value)) {
                    config.recall.prompt_chars = usize::try_from(n).unwrap_or(usize::MAX);
                }
            }
            other => errs.push(r.unknown(&e.key, other, KEYS, "recall.")),
        }
    }
}

/// A `secrets.allow` entry as memlint compares it (the fingerprint in
/// lowercase): `path:fingerprint`, or a fingerprint of earlier versions
/// (12 hex digits, still honoured); `None` for anything else.
fn allow_entry(entry: &str) -> Option<String> {
    use crate::syntax::secrets::{is_fingerprint, is_legacy_fingerprint};
    if is_legacy_fingerprint(entry) {
        return Some(entry.to_ascii_lowercase());
    }
    let (path, print) = entry.rsplit_once(':')?;
    let path_ok = !path.is_empty() && !path.starts_with('/') && !path.contains('\\');
    (path_ok && is_fingerprint(print)).then(|| format!("{path}:{}", print.to_ascii_lowercase()))
}

/// `secrets`: `allow`, the entries (`path:fingerprint`, as
/// `secrets/detected` prints them) of documented example credentials that
/// may stay.
fn secrets(r: &Reader, v: &Node, errs: &mut Vec<ConfigError>, config: &mut Config) {
    const KEYS: &[&str] = &["allow"];
    for e in noted(errs, r.mapping("secrets", v)).unwrap_or_default() {
        match key_name(e) {
            "allow" => {
                let Value::Seq { items, .. } = &e.value.value else {
                    errs.push(r.err(
                        e.value.span.start,
                        format!(
                            "`secrets.allow` must be a list of fingerprints, not {}",
                            e.value.type_name()
                        ),
                    ));
                    continue;
                };
                for item in items {
                    let Some(f) = noted(errs, r.string("secrets.allow", item)) else {
                        continue;
                    };
                    match allow_entry(&f) {
                        Some(entry) => config.secrets_allow.push(entry),
                        None => errs.push(r.err(
                            item.span.start,
                            format!("`secrets.allow` entry `{f}` is not an allow entry: write it as `secrets/detected` prints it, the file's path, `:` and a fingerprint of 4 hex digits (`knowledge/aws-example.md:3f9a`); never put the secret itself here"),
                        )),
                    }
                }
            }
            other => errs.push(r.unknown(&e.key, other, KEYS, "secrets.")),
        }
    }
}

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
        let c = parse(crate::model::config::TEMPLATE, RULES).unwrap();
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
    fn every_problem_is_reported_in_order_of_position() {
        let text = "rules: {date/relative: warn, nope/x: off}\nmax_sources: 0\nmax_sources: 2\n\
            staging: {max_files: x, later: 1}\n";
        let errors = parse_all(text, RULES).unwrap_err();
        let found: Vec<(usize, usize, &str)> = errors
            .iter()
            .map(|e| (e.line, e.column, e.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    1,
                    24,
                    "severity of `date/relative` must be `off`, `warning` or `error` (did you mean `warning`?)"
                ),
                (1, 30, "unknown rule `nope/x` under `rules`"),
                (2, 14, "`max_sources` must be at least 1"),
                (3, 1, "configuration key `max_sources` appears twice"),
                (
                    4,
                    22,
                    "`staging.max_files` must be a non-negative whole number, not a string"
                ),
                (4, 25, "unknown configuration key `staging.later`"),
            ]
        );
        // `parse` gives the first.
        assert_eq!(parse(text, RULES).unwrap_err(), errors[0]);
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
