//! `memlint compact`: compacted session memories (docs/records.md "Session records").
//!
//! `import` validates a 14-section session text with the same rules
//! `memlint check` runs and stores it as
//! `memory/sessions/CMEM-YYYYMMDD-HHMMSS.md`, never replacing a record;
//! `export` returns the stored text byte for byte; `list` reads the stored
//! records newest first; `template` is the empty text an agent fills in.
//! Everything here works on a root path and returns values or typed errors;
//! the command line renders them.

use crate::lint::lint_file;
use crate::model::config::Config;
use crate::model::content::Content;
use crate::model::kind::{classify, is_session_id, Kind};
use crate::model::rule::Rule;
use crate::model::severity::Severity;
use crate::syntax::frontmatter::{self, Split};
use crate::syntax::session::{content_lines, section, sections};
use crate::syntax::yaml::{self, Value};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// How many seconds past "now" an import looks for a free id.
const MAX_ID_ATTEMPTS: i64 = 3600;

/// Whether `--force` cannot override `rule`'s findings: the stored record
/// would be unreadable, unsafe to commit, or out of place.
fn unforceable(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::FormatEncoding | Rule::FormatTooLarge | Rule::SecretsDetected | Rule::LayoutBannedDir
    )
}

/// Errors of the `compact` commands.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CompactError {
    /// The text to import is empty or blank.
    #[error("the session text is empty; nothing to import")]
    Empty,
    /// Validation found problems that block the import.
    #[error("{}", refused_message(.problems, *.forceable))]
    Refused {
        /// Every problem found, blocking or not.
        problems: Vec<Problem>,
        /// True when `--force` would store the text anyway.
        forceable: bool,
    },
    /// An id that is not of the form `CMEM-YYYYMMDD-HHMMSS`.
    #[error("`{0}` is not a session id; ids look like CMEM-20261101-101500")]
    BadId(String),
    /// No record with that id.
    #[error("no session memory `{id}`: {path} does not exist")]
    NotFound {
        /// The id asked for.
        id: String,
        /// Where it was looked for, relative to the root.
        path: String,
    },
    /// A stored record that cannot be read back.
    #[error("{path}: {message}")]
    Unreadable {
        /// Relative to the root.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// Every id for the next `MAX_ID_ATTEMPTS` seconds is taken.
    #[error("no free session id from {first} to {last}")]
    NoFreeId {
        /// The first id tried.
        first: String,
        /// The last id tried.
        last: String,
    },
    /// Reading or writing the disk failed.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done (`read`, `write`, `create`).
        action: &'static str,
        /// The file or directory.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl CompactError {
    /// What the user can do next, for the front end to word.
    pub(crate) fn advice(&self) -> Option<crate::engine::advice::Advice> {
        use crate::engine::advice::Advice;
        match self {
            CompactError::Empty => Some(Advice::SessionTemplate),
            CompactError::BadId(_) | CompactError::NotFound { .. } => Some(Advice::ListSessions),
            CompactError::Refused {
                forceable: true, ..
            } => Some(Advice::Force),
            _ => None,
        }
    }
}

fn refused_message(problems: &[Problem], forceable: bool) -> String {
    let errors = problems.iter().filter(|p| p.blocks()).count();
    let tail = if forceable {
        "fix the text"
    } else {
        "fix the text (these problems cannot be overridden)"
    };
    format!(
        "import refused: {errors} problem{} in the session text; nothing was written; {tail}",
        if errors == 1 { "" } else { "s" }
    )
}

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> CompactError {
    let path = path.display().to_string();
    move |source| CompactError::Io {
        action,
        path,
        source,
    }
}

/// Where a problem of an import is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Location {
    /// Line and column (1-based, columns in characters) of the imported text.
    Text {
        /// 1-based line.
        line: usize,
        /// 1-based column, in Unicode scalar values.
        column: usize,
    },
    /// The `--description` value.
    Description,
    /// The `--tags` value.
    Tags,
    /// The record as a whole (its path or size).
    Record,
}

/// One finding of the import validation, located in what the user gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    /// The lint rule, e.g. `session/sections`.
    pub rule: Rule,
    /// Its configured severity.
    pub severity: Severity,
    /// Where it is.
    pub at: Location,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl Problem {
    /// True when the problem refuses the import (without `--force`): every
    /// error, and every `session/*` finding, because the issue asks import
    /// to enforce 3–8 working files and reasons on decisions.
    pub(crate) fn blocks(&self) -> bool {
        self.severity == Severity::Error || self.rule.family() == "session"
    }

    /// True when `--force` may store the text despite this problem.
    pub(crate) fn forceable(&self) -> bool {
        !(self.blocks() && unforceable(self.rule))
    }
}

/// What to import.
#[derive(Debug, Clone, Default)]
pub(crate) struct ImportRequest<'a> {
    /// The session text, as read.
    pub text: &'a [u8],
    /// `--description`; empty when not given.
    pub description: &'a str,
    /// `--tags`, split on commas.
    pub tags: &'a [String],
    /// Store even when validation finds problems.
    pub force: bool,
}

/// A stored session memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Imported {
    /// `CMEM-YYYYMMDD-HHMMSS`.
    pub id: String,
    /// Relative to the root, with `/` separators.
    pub path: String,
    /// The problems found: non-blocking warnings, or with `--force` all of
    /// them.
    pub problems: Vec<Problem>,
}

/// The empty 14-section session text (docs/records.md), for an agent to fill in.
pub(crate) fn template() -> String {
    let mut out = String::new();
    for (i, name) in crate::syntax::session::SECTIONS.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "## {name}");
        if *name == "Execution Plan" {
            out.push_str(
                "### Source: <workflow|todo|user-stated|inferred>\n\n\
                 <details>\n<summary>Plan (verbatim)</summary>\n\n(none)\n\n</details>\n",
            );
        } else {
            out.push_str("(none)\n");
        }
    }
    out
}

/// The `Project Root` path of a session text, when it names one.
pub(crate) fn project_root(text: &str) -> Option<String> {
    let found = sections(text);
    let s = section(&found, "Project Root")?;
    let lines = content_lines(text, s.content.clone());
    let (_, line) = lines.first()?;
    let path = line.trim().trim_matches('`').trim();
    (!path.is_empty() && path != "(none)").then(|| path.to_string())
}

/// The record a session text becomes: front matter, then the text byte for
/// byte. Returns the bytes and the 1-based record line of each key written.
fn build_record(
    id: &str,
    created: &str,
    project_root: Option<&str>,
    description: &str,
    tags: &[String],
    body: &[u8],
) -> (Vec<u8>, Vec<(&'static str, usize)>) {
    let mut lines: Vec<(&'static str, String)> =
        vec![("id", id.to_string()), ("created", created.to_string())];
    if let Some(root) = project_root {
        lines.push(("project_root", quote(root)));
    }
    lines.push(("description", quote(description)));
    let tags: Vec<String> = tags.iter().map(|t| quote_item(t)).collect();
    lines.push(("tags", format!("[{}]", tags.join(", "))));
    let mut out = String::from("---\n");
    let mut keys = Vec::new();
    for (i, (key, value)) in lines.iter().enumerate() {
        let _ = writeln!(out, "{key}: {value}");
        keys.push((*key, i + 2));
    }
    out.push_str("---\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    (bytes, keys)
}

/// A YAML scalar that reads back as exactly `s`: single-quoted when every
/// character may stand in a single-quoted scalar, else double-quoted with
/// escapes (line breaks, tabs, control and non-printable characters).
pub(crate) fn quote(s: &str) -> String {
    if s.chars().all(single_quotable) {
        return format!("'{}'", s.replace('\'', "''"));
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if single_quotable(c) => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08X}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// YAML's printable characters, minus the ones some readers take for line
/// breaks or a byte order mark.
fn single_quotable(c: char) -> bool {
    matches!(c,
        '\u{20}'..='\u{7e}'
        | '\u{a0}'..='\u{2027}'
        | '\u{202a}'..='\u{d7ff}'
        | '\u{e000}'..='\u{fefe}'
        | '\u{ff00}'..='\u{fffd}'
        | '\u{10000}'..)
}

/// A flow-list item: plain when it is a simple word no YAML reader, 1.1 or
/// 1.2, reads as anything but that string; quoted otherwise.
fn quote_item(s: &str) -> String {
    const WORDS: [&str; 10] = [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "inf",
    ];
    let plain = crate::model::kind::is_slug(s)
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && !WORDS.contains(&s);
    if plain {
        s.to_string()
    } else {
        quote(s)
    }
}

/// The `--tags` values: trimmed, without empty entries or repeats.
pub(crate) fn clean_tags(raw: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in raw {
        let t = t.trim();
        if !t.is_empty() && !out.iter().any(|o| o == t) {
            out.push(t.to_string());
        }
    }
    out
}

/// Validates a session text as the record it would become
/// (`memory/sessions/<id>.md`, front matter included) and
/// returns every finding, located in what the user gave. No disk access.
pub(crate) fn validate(
    request: &ImportRequest,
    config: &Config,
    id: &str,
    created: &str,
) -> Vec<Problem> {
    let rel = format!("{}/{id}.md", Kind::Session.dir());
    let text = std::str::from_utf8(request.text).ok();
    let root = text.and_then(project_root);
    let tags = clean_tags(request.tags);
    let (bytes, keys) = build_record(
        id,
        created,
        root.as_deref(),
        request.description,
        &tags,
        request.text,
    );
    let body_start = bytes.len() - request.text.len();
    let header_lines = keys.len() + 2;
    let content = if bytes.len() as u64 > config.max_file_bytes {
        Content::TooLarge(bytes.len() as u64)
    } else {
        Content::Bytes(&bytes[..])
    };
    let place = classify(&rel, &config.banned_dirs);
    let report = lint_file(&rel, &place, content, config);
    let mut problems = Vec::new();
    for d in report.diagnostics {
        let at = if d.span.start >= body_start {
            Location::Text {
                line: d.line - header_lines,
                column: d.column,
            }
        } else {
            match keys
                .iter()
                .find(|(_, line)| *line == d.line)
                .map(|(k, _)| *k)
            {
                Some("description") => Location::Description,
                Some("tags") => Location::Tags,
                // `project_root` comes from the `Project Root` section, where
                // the body rules already point.
                Some("project_root") => continue,
                _ if d.rule == Rule::FrontmatterRequired && d.message.contains("project_root") => {
                    continue
                }
                _ => Location::Record,
            }
        };
        // An encoding message counts bytes of the whole record: count them
        // in what the user gave instead.
        let message = match d.span.start.checked_sub(body_start) {
            Some(at) if d.rule == Rule::FormatEncoding => d
                .message
                .replace(&format!("(byte {} ", d.span.start), &format!("(byte {at} ")),
            _ => d.message,
        };
        problems.push(Problem {
            rule: d.rule,
            severity: d.severity,
            at,
            message,
        });
    }
    // An empty `Project Root` passes the body rule (`(none)` is how empty
    // sections read) but leaves the record without its required
    // `project_root`: say so where the user can fix it.
    if let (Some(text), None) = (text, &root) {
        if let Some(f) = crate::lint::rules::session::absolute_path::empty_project_root(text) {
            let pos = crate::model::diagnostic::LineIndex::new(text).position(f.span.start);
            problems.push(Problem {
                rule: f.rule,
                severity: Severity::Error,
                at: Location::Text {
                    line: pos.line,
                    column: pos.column,
                },
                message: f.message,
            });
        }
    }
    problems.sort_by(|a, b| problem_key(a).cmp(&problem_key(b)));
    problems
}

fn problem_key(p: &Problem) -> (u8, usize, usize, &'static str) {
    match p.at {
        Location::Record => (0, 0, 0, p.rule.as_str()),
        Location::Description => (1, 0, 0, p.rule.as_str()),
        Location::Tags => (2, 0, 0, p.rule.as_str()),
        Location::Text { line, column } => (3, line, column, p.rule.as_str()),
    }
}

/// The text without a leading UTF-8 byte order mark: an encoding marker, not
/// content, and it would hide the first heading.
fn strip_bom(text: &[u8]) -> &[u8] {
    text.strip_prefix(b"\xef\xbb\xbf".as_slice())
        .unwrap_or(text)
}

/// `memory/sessions` under `root`, created when `create` is set. Refuses a
/// directory that leads outside the root through a symbolic link.
fn sessions_dir(root: &Path, create: bool) -> Result<Option<PathBuf>, CompactError> {
    use crate::io::fs::{resolve_inside, Resolved};
    let dir = root.join(Kind::Session.dir());
    // Resolved one component at a time and never beyond a link out of the
    // root: the answer is the same whatever lies out there.
    match resolve_inside(root, Path::new(Kind::Session.dir())) {
        Resolved::Escapes(link) => {
            return Err(CompactError::Unreadable {
                path: Kind::Session.dir().to_string(),
                message: format!(
                    "leads out of the workspace root through the symbolic link {link}; memlint does not follow links out of the root"
                ),
            })
        }
        Resolved::Inside(real) if real.is_dir() => {}
        Resolved::Unreadable(e) => return Err(io_err("read", &dir)(e)),
        _ if create => crate::io::files::create_dir_all(&dir).map_err(io_err("create", &dir))?,
        _ => return Ok(None),
    }
    Ok(Some(dir))
}

/// Validates `request` and stores it as a new session record under `root`,
/// named after `now` (seconds since the epoch, UTC) or the next free second.
pub(crate) fn import(
    root: &Path,
    config: &Config,
    request: &ImportRequest,
    now: i64,
) -> Result<Imported, CompactError> {
    let request = &ImportRequest {
        text: strip_bom(request.text),
        ..request.clone()
    };
    if request.text.iter().all(u8::is_ascii_whitespace) {
        return Err(CompactError::Empty);
    }
    let first = format!("CMEM-{}", crate::model::clock::compact(now));
    let problems = validate(request, config, &first, &crate::model::clock::rfc3339(now));
    let blocking = problems.iter().any(Problem::blocks);
    let forceable = problems.iter().all(Problem::forceable);
    if blocking && !(request.force && forceable) {
        return Err(CompactError::Refused {
            problems,
            forceable,
        });
    }
    let Some(dir) = sessions_dir(root, true)? else {
        return Err(CompactError::Unreadable {
            path: Kind::Session.dir().to_string(),
            message: "is not a directory".to_string(),
        });
    };
    // The text is valid UTF-8 here: `format/encoding` cannot be forced.
    let text = std::str::from_utf8(request.text).unwrap_or("");
    let project_root = project_root(text);
    let tags = clean_tags(request.tags);
    let mut last = first.clone();
    for secs in now..now + MAX_ID_ATTEMPTS {
        let id = format!("CMEM-{}", crate::model::clock::compact(secs));
        let path = dir.join(format!("{id}.md"));
        last.clone_from(&id);
        if path.symlink_metadata().is_ok() {
            continue;
        }
        let (bytes, _) = build_record(
            &id,
            &crate::model::clock::rfc3339(secs),
            project_root.as_deref(),
            request.description,
            &tags,
            request.text,
        );
        match crate::io::fs::write_new(&path, &bytes) {
            Ok(()) => {
                return Ok(Imported {
                    path: format!("{}/{id}.md", Kind::Session.dir()),
                    id,
                    problems,
                })
            }
            // Another import took this second first.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => {
                return Err(CompactError::Io {
                    action: "write",
                    path: path.display().to_string(),
                    source,
                })
            }
        }
    }
    Err(CompactError::NoFreeId { first, last })
}

/// The session text stored under `id`, exactly as it was imported (`compact
/// export` prints it through the sanitizer).
pub(crate) fn export(root: &Path, id: &str, max_bytes: u64) -> Result<Vec<u8>, CompactError> {
    if !is_session_id(id) {
        return Err(CompactError::BadId(id.to_string()));
    }
    let rel = format!("{}/{id}.md", Kind::Session.dir());
    let not_found = || CompactError::NotFound {
        id: id.to_string(),
        path: rel.clone(),
    };
    let Some(dir) = sessions_dir(root, false)? else {
        return Err(not_found());
    };
    let path = dir.join(format!("{id}.md"));
    match path.symlink_metadata() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_found()),
        Err(source) => {
            return Err(CompactError::Io {
                action: "read",
                path: rel,
                source,
            })
        }
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(CompactError::Unreadable {
                path: rel,
                message: "is a symbolic link; memlint does not follow links".to_string(),
            })
        }
        Ok(_) => {}
    }
    let bytes = crate::io::fs::read_regular(&path, max_bytes).map_err(io_err("read", &path))?;
    let unreadable = |message: &str| CompactError::Unreadable {
        path: rel.clone(),
        message: message.to_string(),
    };
    let text = std::str::from_utf8(&bytes).map_err(|_| unreadable("is not valid UTF-8"))?;
    match frontmatter::split(text) {
        Split::Found(parts) => Ok(bytes[parts.body].to_vec()),
        _ => Err(unreadable(
            "has no front matter between `---` lines, so it holds no stored session text",
        )),
    }
}

/// A stored session memory, as `list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Listed {
    /// The `id` key, or the file stem when it has none.
    pub id: String,
    /// The `created` timestamp as written; empty when missing.
    pub created: String,
    /// Empty when missing.
    pub description: String,
    /// Relative to the root, with `/` separators.
    pub path: String,
    /// Shown by the human output only: the JSON shape of docs/commands.md has no tags.
    #[serde(skip)]
    pub tags: Vec<String>,
}

/// The result of `list`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Listing {
    /// Newest first.
    pub sessions: Vec<Listed>,
    /// Files that could not be read: (path, why).
    pub skipped: Vec<(String, String)>,
}

/// Reads the front matter of every `memory/sessions/*.md`, newest first
/// (by `created`, then id). Files that cannot be read are skipped and named.
pub(crate) fn list(root: &Path, max_bytes: u64) -> Result<Listing, CompactError> {
    let mut listing = Listing::default();
    let Some(dir) = sessions_dir(root, false)? else {
        return Ok(listing);
    };
    let entries = crate::io::files::read_dir(&dir).map_err(io_err("read", &dir))?;
    let mut keyed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_err("read", &dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // A FIFO or a socket is named among the skipped, not read.
        let is_file = entry
            .file_type()
            .is_ok_and(|t| !t.is_dir() && !t.is_symlink());
        if !is_file || !name.ends_with(".md") || name.starts_with('.') {
            continue;
        }
        let rel = format!("{}/{name}", Kind::Session.dir());
        match read_listed(&entry.path(), &rel, max_bytes) {
            Ok(listed) => {
                let secs = crate::model::clock::parse_rfc3339(&listed.created).unwrap_or(i64::MIN);
                keyed.push((secs, listed));
            }
            Err(why) => listing.skipped.push((rel, why)),
        }
    }
    keyed.sort_by(|(a, x), (b, y)| {
        b.cmp(a)
            .then_with(|| y.id.cmp(&x.id))
            .then_with(|| y.path.cmp(&x.path))
    });
    listing.sessions = keyed.into_iter().map(|(_, l)| l).collect();
    listing.skipped.sort();
    Ok(listing)
}

fn read_listed(path: &Path, rel: &str, max_bytes: u64) -> Result<Listed, String> {
    let bytes = crate::io::fs::read_regular(path, max_bytes).map_err(|e| e.to_string())?;
    let text = std::str::from_utf8(&bytes).map_err(|_| "not valid UTF-8".to_string())?;
    let Split::Found(parts) = frontmatter::split(text) else {
        return Err("no front matter".to_string());
    };
    let doc = yaml::parse(&text[parts.yaml.clone()], parts.yaml.start)
        .map_err(|e| format!("the front matter does not parse: {}", e.message))?;
    let Some(map) = doc.root.filter(|r| r.entries().is_some()) else {
        return Err("the front matter is not a mapping".to_string());
    };
    let string = |key: &str| {
        map.get(key)
            .and_then(|e| e.value.as_scalar())
            .and_then(|s| s.as_str())
            .map(str::to_string)
    };
    let tags = match map.get("tags").map(|e| &e.value.value) {
        Some(Value::Seq { items, .. }) => items
            .iter()
            .filter_map(|n| n.as_scalar().map(|s| s.text.clone()))
            .collect(),
        _ => Vec::new(),
    };
    Ok(Listed {
        id: string("id").unwrap_or_else(|| crate::model::kind::stem(rel).to_string()),
        created: string("created").unwrap_or_default(),
        description: string("description").unwrap_or_default(),
        path: rel.to_string(),
        tags,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_back(value: &str) -> String {
        let src = format!("k: {value}\n");
        let doc = yaml::parse(&src, 0).expect("valid YAML");
        let root = doc.root.expect("a mapping");
        let entry = root.get("k").expect("the key");
        entry.value.as_scalar().expect("a scalar").text.clone()
    }

    #[test]
    fn quoted_values_read_back_exactly() {
        for s in [
            "",
            "plain words",
            r"D:\work\memlint",
            r"\\server\share\proj",
            "it's: a #tag",
            "  padded  ",
            "line one\nline two",
            "tab\there",
            "日本語の説明",
            "中文描述",
            "quote \" and backslash \\",
            "bom\u{feff}inside",
            "sep\u{2028}arator",
            "bell\u{7}",
            "'single'",
            "yes",
            "1e3",
            "- dash",
            "*star",
        ] {
            assert_eq!(read_back(&quote(s)), s, "{s:?} as {}", quote(s));
        }
    }

    #[test]
    fn tags_are_plain_only_when_safe() {
        assert_eq!(quote_item("rust"), "rust");
        assert_eq!(quote_item("yes"), "'yes'");
        assert_eq!(quote_item("1e3"), "'1e3'");
        assert_eq!(quote_item("Needs Review"), "'Needs Review'");
        let src = format!(
            "tags: [{}]\n",
            ["a-b", "no", "x, y", "日本"].map(quote_item).join(", ")
        );
        let doc = yaml::parse(&src, 0).expect("valid YAML");
        let root = doc.root.expect("a mapping");
        let Some(Value::Seq { items, .. }) = root.get("tags").map(|e| &e.value.value) else {
            panic!("a list");
        };
        let read: Vec<&str> = items
            .iter()
            .filter_map(|n| n.as_scalar().and_then(|s| s.as_str()))
            .collect();
        assert_eq!(read, ["a-b", "no", "x, y", "日本"]);
    }

    #[test]
    fn template_has_every_section_in_order() {
        let t = template();
        let found = sections(&t);
        let names: Vec<usize> = found.iter().map(|s| s.index).collect();
        assert_eq!(names, (0..14).collect::<Vec<_>>());
    }

    #[test]
    fn same_second_imports_take_the_next_free_second() {
        let dir = tempfile::tempdir().expect("temp dir");
        let text = valid_text();
        let request = ImportRequest {
            text: text.as_bytes(),
            ..ImportRequest::default()
        };
        let config = Config::default();
        let ids: Vec<String> = (0..4)
            .map(|_| {
                import(dir.path(), &config, &request, 1_780_000_000)
                    .expect("import")
                    .id
            })
            .collect();
        assert_eq!(
            ids,
            [
                "CMEM-20260528-202640",
                "CMEM-20260528-202641",
                "CMEM-20260528-202642",
                "CMEM-20260528-202643"
            ]
        );
    }

    fn valid_text() -> String {
        "## Session ID\ns1\n\n## Project Root\n/p\n\n## Objective\no\n\n## Execution Plan\n### Source: todo\n\n## Working Files (Modified)\n- /p/a (role: x)\n- /p/b (role: x)\n- /p/c (role: x)\n\n## Reference Files (Read-Only)\n(none)\n\n## Last Action\nl\n\n## Decisions\n- d: r\n\n## Constraints\n(none)\n\n## Dependencies\n(none)\n\n## Known Issues\n(none)\n\n## Changes Made\n(none)\n\n## Pending\n(none)\n\n## Notes\n(none)\n".to_string()
    }
}
