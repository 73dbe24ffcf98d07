//! The record model: the kinds of docs/configuration.md–2, where they live, and the fields
//! each kind's front matter defines, in canonical order.

use std::fmt;

/// The kind of a workspace file, decided by its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Summary,
    Decision,
    Request,
    Session,
    Knowledge,
    Staging,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Summary,
        Kind::Decision,
        Kind::Request,
        Kind::Session,
        Kind::Knowledge,
        Kind::Staging,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Summary => "summary",
            Kind::Decision => "decision",
            Kind::Request => "request",
            Kind::Session => "session",
            Kind::Knowledge => "knowledge",
            Kind::Staging => "staging",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// A kind as a person types it: its name (`decision`), the name of its
    /// directory (`decisions`, `memory/decisions`, with or without a
    /// trailing `/`), in any case.
    pub(crate) fn parse(text: &str) -> Option<Kind> {
        let t = text.trim().trim_end_matches('/').to_ascii_lowercase();
        Kind::from_name(&t).or_else(|| {
            Kind::ALL.into_iter().find(|k| {
                k.dir() != "memory"
                    && (k.dir() == t || k.dir().rsplit('/').next() == Some(t.as_str()))
            })
        })
    }

    /// The directory holding records of this kind (the summary is one file).
    pub fn dir(self) -> &'static str {
        match self {
            Kind::Summary => "memory",
            Kind::Decision => "memory/decisions",
            Kind::Request => "memory/requests",
            Kind::Session => "memory/sessions",
            Kind::Knowledge => "knowledge",
            Kind::Staging => "staging",
        }
    }

    /// Kinds whose file stem is a slug (`slug/format`, `slug/similar`).
    pub(crate) fn has_slug(self) -> bool {
        matches!(self, Kind::Decision | Kind::Request | Kind::Knowledge)
    }

    /// The fields of this kind's front matter, in canonical order.
    pub fn fields(self) -> &'static [Field] {
        match self {
            Kind::Decision => DECISION,
            Kind::Request => REQUEST,
            Kind::Knowledge => KNOWLEDGE,
            Kind::Summary => SUMMARY,
            Kind::Staging => STAGING,
            Kind::Session => SESSION,
        }
    }

    pub(crate) fn field(self, key: &str) -> Option<&'static Field> {
        self.fields().iter().find(|f| f.key == key)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The type a front-matter field must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// A string of `min..=max` characters.
    Text {
        min: usize,
        max: usize,
    },
    /// A single line of `min..=max` characters.
    Line {
        min: usize,
        max: usize,
    },
    /// One of the listed words.
    Enum(&'static [&'static str]),
    /// `YYYY-MM-DD`.
    Date,
    /// RFC 3339 with offset.
    Timestamp,
    Bool,
    /// A list of source strings.
    Sources,
    /// A slug.
    Slug,
    /// A list of slugs.
    Slugs,
    /// A list of strings.
    Strings,
    /// A list of pins: `<file source> xxh3:<16 hex digits>` (see
    /// `split_pin`).
    Pins,
    /// `YYYYMMDD-HHMMSS-xxxx`.
    StagingId,
    /// `CMEM-YYYYMMDD-HHMMSS`.
    SessionId,
    /// An absolute POSIX or Windows path.
    AbsolutePath,
}

/// When a field must be present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Required,
    Optional,
    /// Present exactly when `status` is `replaced`.
    WhenReplaced,
}

/// One front-matter key of a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub key: &'static str,
    pub ty: FieldType,
    pub presence: Presence,
    /// The value an optional field takes when it is absent, if any.
    pub default: Option<&'static str>,
}

const fn f(key: &'static str, ty: FieldType, presence: Presence) -> Field {
    Field {
        key,
        ty,
        presence,
        default: None,
    }
}

/// An optional field that means `default` when absent.
const fn with_default(key: &'static str, ty: FieldType, default: &'static str) -> Field {
    Field {
        key,
        ty,
        presence: Optional,
        default: Some(default),
    }
}

use FieldType::*;
use Presence::*;

const TITLE: FieldType = Text { min: 1, max: 120 };

static DECISION: &[Field] = &[
    f("title", TITLE, Required),
    f("status", Enum(&["active", "replaced"]), Required),
    f("date", Date, Required),
    f("sources", Sources, Required),
    f("replaced_by", Slug, WhenReplaced),
    f("tags", Slugs, Optional),
    f("slug", Slug, Optional),
    f("verified", Date, Optional),
    f("pins", Pins, Optional),
];

static REQUEST: &[Field] = &[
    f("title", TITLE, Required),
    f("status", Enum(&["open", "done", "replaced"]), Required),
    f("date", Date, Required),
    f("sources", Sources, Required),
    f("replaced_by", Slug, WhenReplaced),
    f("tags", Slugs, Optional),
    f("slug", Slug, Optional),
    f("verified", Date, Optional),
    f("pins", Pins, Optional),
];

static KNOWLEDGE: &[Field] = &[
    f("title", TITLE, Required),
    f("description", Line { min: 1, max: 1024 }, Required),
    f("model_invocation", Bool, Required),
    with_default("status", Enum(&["active", "replaced"]), "active"),
    f("date", Date, Required),
    f("sources", Sources, Required),
    f("replaced_by", Slug, WhenReplaced),
    f("tags", Slugs, Optional),
    f("slug", Slug, Optional),
    f("verified", Date, Optional),
    f("pins", Pins, Optional),
];

static SUMMARY: &[Field] = &[
    f(
        "title",
        Text {
            min: 1,
            max: usize::MAX,
        },
        Required,
    ),
    f("updated", Date, Required),
    f("sources", Sources, Optional),
    f("verified", Date, Optional),
    f("pins", Pins, Optional),
];

static STAGING: &[Field] = &[
    f("id", StagingId, Required),
    f(
        "source",
        Text {
            min: 1,
            max: usize::MAX,
        },
        Required,
    ),
    f("created", Timestamp, Required),
];

static SESSION: &[Field] = &[
    f("id", SessionId, Required),
    f("created", Timestamp, Required),
    f("project_root", AbsolutePath, Required),
    f(
        "description",
        Text {
            min: 0,
            max: usize::MAX,
        },
        Optional,
    ),
    f("tags", Strings, Optional),
];

/// What a path of the workspace is, by its place in the layout (docs/configuration.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A record of a kind.
    Record(Kind),
    /// `CONTEXT.md`.
    Context,
    /// A file under a banned directory; holds the directory.
    Banned(String),
    /// A file in a memory directory that is no record.
    Unknown,
    /// Not memlint's business.
    Outside,
}

/// The top-level directories memlint looks into.
pub(crate) const RECORD_ROOTS: [&str; 3] = ["memory", "knowledge", "staging"];

/// Files allowed in memory directories that are not records.
fn is_housekeeping(name: &str) -> bool {
    matches!(
        name,
        ".gitkeep" | ".keep" | ".consolidation.lock" | ".DS_Store"
    )
}

/// Classifies a root-relative path with `/` separators.
pub fn classify(rel: &str, banned_dirs: &[String]) -> Place {
    for dir in banned_dirs {
        let dir = dir.trim_end_matches('/');
        if rel
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
        {
            return Place::Banned(dir.to_string());
        }
    }
    if rel == "CONTEXT.md" {
        return Place::Context;
    }
    // Every file of a workspace comes through here several times: one
    // pass finds the first, second and last `/`.
    let (mut first, mut second, mut last) = (None, None, 0);
    for (i, b) in rel.bytes().enumerate() {
        if b == b'/' {
            if first.is_none() {
                first = Some(i);
            } else if second.is_none() {
                second = Some(i);
            }
            last = i;
        }
    }
    let Some(first) = first else {
        return Place::Outside;
    };
    let (top, rest) = (&rel[..first], &rel[first + 1..]);
    if !RECORD_ROOTS.contains(&top) {
        return Place::Outside;
    }
    let name = &rel[last + 1..];
    if is_housekeeping(name) {
        return Place::Outside;
    }
    let is_md = |n: &str| n.ends_with(".md") && n.len() > 3;
    // The directory under `top` and the name in it, when the file is
    // exactly one level deeper.
    let nested = second
        .filter(|&s| s == last)
        .map(|s| (&rel[first + 1..s], name));
    let kind = match (top, second, nested) {
        ("memory", None, _) if rest == "summary.md" => Some(Kind::Summary),
        ("memory", _, Some(("decisions", n))) if is_md(n) => Some(Kind::Decision),
        ("memory", _, Some(("requests", n))) if is_md(n) => Some(Kind::Request),
        ("memory", _, Some(("sessions", n))) if is_md(n) => Some(Kind::Session),
        ("knowledge", None, _) if is_md(rest) => Some(Kind::Knowledge),
        ("staging", None, _) if is_md(rest) => Some(Kind::Staging),
        _ => None,
    };
    kind.map_or(Place::Unknown, Place::Record)
}

/// The file stem of a root-relative path.
pub(crate) fn stem(rel: &str) -> &str {
    // A byte scan: paths are short, and the general searcher costs more.
    let name = match rel.bytes().rposition(|b| b == b'/') {
        Some(at) => &rel[at + 1..],
        None => rel,
    };
    name.strip_suffix(".md").unwrap_or(name)
}

/// `^[a-z0-9]+(-[a-z0-9]+)*$`, at most 64 characters.
pub(crate) fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--")
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Days in a month of the proleptic Gregorian calendar.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        _ => 0,
    }
}

fn valid_ymd(y: &str, m: &str, d: &str) -> bool {
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<u32>(), m.parse::<u32>(), d.parse::<u32>()) else {
        return false;
    };
    (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)
}

/// An absolute valid calendar date `YYYY-MM-DD`.
pub(crate) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && all_digits(&s[0..4])
        && all_digits(&s[5..7])
        && all_digits(&s[8..10])
        && valid_ymd(&s[0..4], &s[5..7], &s[8..10])
}

/// RFC 3339 date-time with an offset (`Z` or `±HH:MM`).
pub(crate) fn is_timestamp(s: &str) -> bool {
    if s.len() < 20 || !s.is_char_boundary(10) || !is_date(&s[..10]) {
        return false;
    }
    let b = s.as_bytes();
    if !matches!(b[10], b'T' | b't' | b' ') {
        return false;
    }
    let t = &s[11..];
    let tb = t.as_bytes();
    if tb.len() < 9 || tb[2] != b':' || tb[5] != b':' {
        return false;
    }
    let (Ok(h), Ok(m), Ok(sec)) = (
        t[0..2].parse::<u32>(),
        t[3..5].parse::<u32>(),
        t[6..8].parse::<u32>(),
    ) else {
        return false;
    };
    if !all_digits(&t[0..2]) || !all_digits(&t[3..5]) || !all_digits(&t[6..8]) {
        return false;
    }
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    let mut rest = &t[8..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    if rest == "Z" || rest == "z" {
        return true;
    }
    let rb = rest.as_bytes();
    rb.len() == 6
        && matches!(rb[0], b'+' | b'-')
        && rb[3] == b':'
        && all_digits(&rest[1..3])
        && all_digits(&rest[4..6])
        && rest[1..3].parse::<u32>().is_ok_and(|h| h <= 23)
        && rest[4..6].parse::<u32>().is_ok_and(|m| m <= 59)
}

/// `YYYYMMDD-HHMMSS`, a valid date and time.
fn is_compact_datetime(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 15 || b[8] != b'-' || !all_digits(&s[..8]) || !all_digits(&s[9..]) {
        return false;
    }
    valid_ymd(&s[0..4], &s[4..6], &s[6..8])
        && s[9..11].parse::<u32>().is_ok_and(|h| h <= 23)
        && s[11..13].parse::<u32>().is_ok_and(|m| m <= 59)
        && s[13..15].parse::<u32>().is_ok_and(|x| x <= 60)
}

/// `YYYYMMDD-HHMMSS-xxxx` with four lowercase hex digits.
pub(crate) fn is_staging_id(s: &str) -> bool {
    s.len() == 20
        && s.is_char_boundary(15)
        && is_compact_datetime(&s[..15])
        && s.as_bytes()[15] == b'-'
        && s[16..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `CMEM-YYYYMMDD-HHMMSS`.
pub(crate) fn is_session_id(s: &str) -> bool {
    s.strip_prefix("CMEM-").is_some_and(is_compact_datetime)
}

/// An absolute path: POSIX (`/x`), Windows drive (`D:\x`, `D:/x`) or UNC
/// (`\\server\share`).
pub(crate) fn is_absolute_path(s: &str) -> bool {
    let b = s.as_bytes();
    if s.starts_with('/') {
        return true;
    }
    if b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/') {
        return true;
    }
    if let Some(rest) = s.strip_prefix(r"\\") {
        let mut parts = rest.split('\\');
        return parts.next().is_some_and(|p| !p.is_empty())
            && parts.next().is_some_and(|p| !p.is_empty());
    }
    false
}

/// The lines a `file:` source cites: `#L10` or `#L10-L42` after the path
/// (GitHub's anchors), counted from 1, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Lines {
    /// The first line cited.
    pub first: usize,
    /// The last line cited (equal to `first` for `#L10`).
    pub last: usize,
}

impl std::fmt::Display for Lines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.first == self.last {
            write!(f, "#L{}", self.first)
        } else {
            write!(f, "#L{}-L{}", self.first, self.last)
        }
    }
}

/// Splits the value of a `file:` source (what follows `file:`) into its
/// path and its line range. An anchor is `#L` followed by a digit at the
/// end of the value; anything else after a `#` is part of the path. `Err`
/// says why an anchor is malformed (`#L0`, `#L9-L3`, `#L10-42`).
pub(crate) fn split_file_source(value: &str) -> Result<(&str, Option<Lines>), String> {
    let Some(at) = value.rfind("#L") else {
        return Ok((value, None));
    };
    let tail = &value[at + 2..];
    if !tail.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok((value, None));
    }
    let anchor = &value[at..];
    let form = |why: &str| {
        format!("the line range `{anchor}` is malformed{why}: write `#L<line>` or `#L<first>-L<last>`, lines counted from 1")
    };
    let number = |s: &str| -> Result<usize, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(form(""));
        }
        // No file memlint reads has a billion lines.
        if s.len() > 9 {
            return Err(form(" (a line number has at most 9 digits)"));
        }
        s.parse::<usize>().map_err(|_| form(""))
    };
    let (first, last) = match tail.split_once("-L") {
        Some((a, b)) => (number(a)?, number(b)?),
        None => {
            let n = number(tail)?;
            (n, n)
        }
    };
    if first == 0 {
        return Err(form(" (there is no line 0)"));
    }
    if last < first {
        return Err(form(" (it ends before it starts)"));
    }
    Ok((&value[..at], Some(Lines { first, last })))
}

/// A pin (`memlint verify`): the `file:` source it pins and the hash of
/// the content it pinned, `xxh3:` and 16 lowercase hex digits; `None` when
/// `s` is not a pin.
pub(crate) fn split_pin(s: &str) -> Option<(&str, &str)> {
    let (source, hash) = s.rsplit_once(' ')?;
    let hex = hash.strip_prefix("xxh3:")?;
    let ok = source.starts_with("file:")
        && source_problem(source).is_none()
        && hex.len() == 16
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    ok.then_some((source, hash))
}

/// The source-string prefixes of docs/records.md.
pub const SOURCE_PREFIXES: [&str; 8] = [
    "staging:",
    "session:",
    "cmem:",
    "commit:",
    "file:",
    "decision:",
    "request:",
    "knowledge:",
];

/// Why an entry is not a source string, or `None` when it is one.
pub(crate) fn source_problem(s: &str) -> Option<String> {
    if let Some(rest) = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"))
    {
        return (rest.is_empty() || rest.contains(char::is_whitespace))
            .then(|| "a URL must have a host and no spaces".to_string());
    }
    let Some((prefix, value)) = s.split_once(':') else {
        return Some(
            "a source is `staging:<id>`, `session:<id>`, `cmem:<id>`, `commit:<hex>`, \
             `file:<path>`, `decision:<slug>`, `request:<slug>`, `knowledge:<slug>` or an \
             http(s) URL"
                .to_string(),
        );
    };
    let ok = match prefix {
        "staging" => is_staging_id(value),
        "session" => !value.is_empty() && !value.contains(char::is_whitespace),
        "cmem" => is_session_id(value),
        "commit" => (7..=40).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_hexdigit()),
        "file" => match split_file_source(value) {
            Err(why) => return Some(why),
            Ok((path, _)) => !path.is_empty() && !value.contains('\0'),
        },
        "decision" | "request" | "knowledge" => is_slug(value),
        _ => {
            return Some(format!(
                "`{prefix}:` is not a source prefix; use one of {}, or an http(s) URL",
                SOURCE_PREFIXES.join(" ")
            ))
        }
    };
    if ok {
        return None;
    }
    Some(match prefix {
        "staging" => "a staging source is `staging:YYYYMMDD-HHMMSS-xxxx`".to_string(),
        "session" => "a session source is `session:<id>` without spaces".to_string(),
        "cmem" => "a cmem source is `cmem:CMEM-YYYYMMDD-HHMMSS`".to_string(),
        "commit" => "a commit source is `commit:` and 7 to 40 hex digits".to_string(),
        "file" => "a file source is `file:<path relative to the root>`, optionally with a line range `#L10` or `#L10-L42`".to_string(),
        _ => format!("a {prefix} source is `{prefix}:<slug>` (lowercase words joined by `-`)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_layout() {
        let banned = vec!["memory/workflow".to_string()];
        let cases = [
            ("memory/decisions/a.md", Place::Record(Kind::Decision)),
            ("memory/requests/r.md", Place::Record(Kind::Request)),
            ("memory/sessions/s.md", Place::Record(Kind::Session)),
            ("memory/summary.md", Place::Record(Kind::Summary)),
            ("knowledge/k.md", Place::Record(Kind::Knowledge)),
            ("staging/a.md", Place::Record(Kind::Staging)),
            ("CONTEXT.md", Place::Context),
            (
                "memory/workflow/x.md",
                Place::Banned("memory/workflow".into()),
            ),
            ("memory/decisions/a.txt", Place::Unknown),
            ("memory/decisions/x/a.md", Place::Unknown),
            ("memory/decisions/x/y/a.md", Place::Unknown),
            ("memory/decisions/.md", Place::Unknown),
            ("memory/decisions/", Place::Unknown),
            ("memory/notes.md", Place::Unknown),
            ("memory/sub/summary.md", Place::Unknown),
            ("knowledge/sub/k.md", Place::Unknown),
            ("knowledge/", Place::Unknown),
            ("staging/x/a.md", Place::Unknown),
            ("staging/.consolidation.lock", Place::Outside),
            ("memory/decisions/x/.gitkeep", Place::Outside),
            ("memory", Place::Outside),
            ("src/main.rs", Place::Outside),
            ("notes/memory/decisions/a.md", Place::Outside),
            ("sub/CONTEXT.md", Place::Outside),
        ];
        for (path, place) in cases {
            assert_eq!(classify(path, &banned), place, "{path}");
        }
    }

    #[test]
    fn formats() {
        assert!(is_slug("use-gix"));
        assert!(!is_slug("Use_gix"));
        assert!(!is_slug("a--b"));
        assert!(is_date("2024-02-29"));
        assert!(!is_date("2023-02-29"));
        assert!(!is_date("yesterday"));
        assert!(is_timestamp("2026-11-01T10:00:00Z"));
        assert!(is_timestamp("2026-11-01T10:00:00.123+09:00"));
        assert!(!is_timestamp("2026-11-01T10:00:00"));
        assert!(is_staging_id("20261101-101500-0a9f"));
        assert!(!is_staging_id("20261101-101500-0A9F"));
        assert!(is_session_id("CMEM-20261101-101500"));
        assert!(is_absolute_path("/home/x"));
        assert!(is_absolute_path(r"D:\work"));
        assert!(is_absolute_path(r"\\server\share"));
        assert!(!is_absolute_path("work/x"));
        assert!(source_problem("commit:abc1234").is_none());
        assert!(source_problem("commit:abc").is_some());
        assert!(source_problem("https://example.com/x").is_none());
        assert!(source_problem("jira:ABC-1").is_some());
    }
}
