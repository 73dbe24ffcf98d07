//! docs/records.md, the fields of every kind, is generated from the record
//! model (`memlint::model::kind`: the table the lint checks records
//! against). `MEMLINT_UPDATE_DOCS=1 cargo test --test records_doc`
//! rewrites it; without it the test fails when the page and the model
//! differ. Each kind's example record, built from the page's example
//! values, passes every front-matter rule.

mod common;

use memlint::model::kind::{Field, FieldType, Kind, Presence, SOURCE_PREFIXES};
use std::path::Path;

/// Where a kind's records live and how they are named.
fn place(kind: Kind) -> String {
    match kind {
        Kind::Summary => "`memory/summary.md` (one file)".into(),
        Kind::Session => format!("`{}/<id>.md`", kind.dir()),
        Kind::Staging => format!("`{}/<id>.md`", kind.dir()),
        _ => format!("`{}/<slug>.md`", kind.dir()),
    }
}

fn chars(min: usize, max: usize) -> String {
    match (min, max) {
        (0, usize::MAX) => String::new(),
        (m, usize::MAX) => format!(", at least {m} character{}", if m == 1 { "" } else { "s" }),
        (m, n) => format!(", {m} to {n} characters"),
    }
}

/// The type column.
fn type_text(ty: FieldType) -> String {
    match ty {
        FieldType::Text { min, max } => format!("text{}", chars(min, max)),
        FieldType::Line { min, max } => format!("one line of text{}", chars(min, max)),
        FieldType::Enum(_) => "one of the allowed values".into(),
        FieldType::Date => "date, `YYYY-MM-DD`".into(),
        FieldType::Timestamp => "timestamp, RFC 3339 with an offset".into(),
        FieldType::Bool => "`true` or `false`".into(),
        FieldType::Sources => "list of [sources](#sources)".into(),
        FieldType::Slug => "[slug](#slugs)".into(),
        FieldType::Slugs => "list of [slugs](#slugs)".into(),
        FieldType::Strings => "list of text".into(),
        FieldType::Pins => "list of pins, `<file: source> xxh3:<16 hex digits>`".into(),
        FieldType::StagingId => "staging id, `YYYYMMDD-HHMMSS-xxxx` (4 hex digits)".into(),
        FieldType::SessionId => "session id, `CMEM-YYYYMMDD-HHMMSS`".into(),
        FieldType::AbsolutePath => "absolute path (POSIX or Windows)".into(),
    }
}

fn required_text(f: &Field) -> &'static str {
    match f.presence {
        Presence::Required => "yes",
        Presence::Optional => "no",
        Presence::WhenReplaced => "when `status: replaced`",
    }
}

fn allowed_text(ty: FieldType) -> String {
    match ty {
        FieldType::Enum(words) => words
            .iter()
            .map(|w| format!("`{w}`"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    }
}

/// An example value of field `f` of `kind`, as YAML.
fn example(kind: Kind, f: &Field) -> String {
    match (f.key, f.ty) {
        ("title", _) if kind == Kind::Summary => "Rolling summary".into(),
        ("title", _) => "Use SQLite for the local cache".into(),
        ("description", FieldType::Line { .. }) => "The cache is one SQLite file per user.".into(),
        ("description", _) => "Moving the cache to SQLite".into(),
        ("source", _) => "session:4c1e9b2a".into(),
        ("replaced_by", _) => "use-redis-cache".into(),
        ("slug", _) => "use-sqlite".into(),
        ("updated" | "verified", _) => "2026-12-04".into(),
        (_, FieldType::Enum(words)) => {
            if f.key == "status" {
                words
                    .iter()
                    .find(|w| **w == "replaced")
                    .copied()
                    .unwrap_or(words[0])
                    .to_string()
            } else {
                words[0].to_string()
            }
        }
        (_, FieldType::Text { .. } | FieldType::Line { .. }) => "Some text".into(),
        (_, FieldType::Date) => "2026-12-03".into(),
        (_, FieldType::Timestamp) => "2026-12-04T15:42:50+09:00".into(),
        (_, FieldType::Bool) => "false".into(),
        (_, FieldType::Sources) => "[file:docs/cache.md, decision:use-json-cache]".into(),
        (_, FieldType::Slug) => "use-sqlite".into(),
        (_, FieldType::Slugs) => "[cache, storage]".into(),
        (_, FieldType::Strings) => "[cache, SQLite]".into(),
        (_, FieldType::Pins) => "[\"file:docs/cache.md xxh3:02c80185a8708302\"]".into(),
        (_, FieldType::StagingId) => "20261204-154250-20d3".into(),
        (_, FieldType::SessionId) => "CMEM-20261204-154250".into(),
        (_, FieldType::AbsolutePath) => "/home/me/src/ledger".into(),
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

fn page() -> String {
    let mut page = String::from(
        "# Records\n\n\
         <!-- Generated from the record model (src/model/kind.rs): `MEMLINT_UPDATE_DOCS=1 cargo test --test records_doc` rewrites this page. -->\n\n\
         Every record is a markdown file with YAML front matter between two `---` lines; \
         its kind comes from where it lives. These are the fields of each kind's front \
         matter, in the order `memlint fmt` puts them (other keys follow, in their order, \
         and `frontmatter/unknown-key` warns about them). `frontmatter/required`, \
         `frontmatter/type`, `date/format`, `sources/missing` and `status/missing-target` \
         check them ([rules](rules.md)); `memlint new` writes them ([writing \
         records](writing-records.md)).\n\n\
         | kind | lives in |\n|---|---|\n",
    );
    for kind in Kind::ALL {
        page.push_str(&format!("| [`{kind}`](#{kind}) | {} |\n", place(kind)));
    }
    for kind in Kind::ALL {
        page.push_str(&format!(
            "\n## {kind}\n\n{}\n\n| field | type | required | allowed values | default | example |\n|---|---|---|---|---|---|\n",
            place(kind)
        ));
        for f in kind.fields() {
            page.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | `{}` |\n",
                f.key,
                cell(&type_text(f.ty)),
                required_text(f),
                allowed_text(f.ty),
                f.default.map(|d| format!("`{d}`")).unwrap_or_default(),
                cell(&example(kind, f)),
            ));
        }
        page.push_str(&format!("\n```yaml\n{}```\n", example_record(kind)));
    }
    page.push_str(
        "\n## Sources\n\n\
         A source says where a record's claim comes from: one of\n\n",
    );
    for prefix in SOURCE_PREFIXES {
        let what = match prefix {
            "staging:" => "`staging:YYYYMMDD-HHMMSS-xxxx`, a staging entry",
            "session:" => "`session:<id>`, an agent session (no spaces)",
            "cmem:" => "`cmem:CMEM-YYYYMMDD-HHMMSS`, a compacted session memory",
            "commit:" => "`commit:<7 to 40 hex digits>`, a git commit",
            "file:" => {
                "`file:<path>` or `file:<path>#L10-L42`, a file of the workspace (or lines of it)"
            }
            "decision:" => "`decision:<slug>`, a decision",
            "request:" => "`request:<slug>`, a request",
            "knowledge:" => "`knowledge:<slug>`, a knowledge record",
            other => panic!("no words for the source prefix {other}"),
        };
        page.push_str(&format!("- {what}\n"));
    }
    page.push_str(
        "- an `http://` or `https://` URL\n\n\
         ## Slugs\n\n\
         A slug is 1 to 64 characters of lowercase ASCII letters, digits and single \
         hyphens, neither starting nor ending with a hyphen: `use-sqlite`. A decision's, \
         request's or knowledge record's file name is its slug.\n",
    );
    page
}

/// A record of `kind` holding every field with its example value (a
/// `replaced` status, so that `replaced_by` belongs).
fn example_record(kind: Kind) -> String {
    let mut text = String::from("---\n");
    for f in kind.fields() {
        text.push_str(&format!("{}: {}\n", f.key, example(kind, f)));
    }
    text.push_str("---\n");
    text
}

#[test]
fn docs_records_md_is_the_model() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/records.md");
    let want = page();
    if std::env::var_os("MEMLINT_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).expect("write docs/records.md");
        return;
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "docs/records.md differs from the record model; regenerate it with \
         `MEMLINT_UPDATE_DOCS=1 cargo test --test records_doc`, or write this:\n\n{want}"
    );
}

/// The examples are true: a record of each kind made of them passes every
/// rule that checks front-matter fields.
#[test]
fn example_records_pass_the_field_rules() {
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path();
    let run = common::memlint(root, &["init"]);
    assert_eq!(run.code, 0, "{run:?}");
    common::write(root, "docs/cache.md", "# Cache\n");
    for (slug, title) in [
        ("use-redis-cache", "Use Redis"),
        ("use-json-cache", "Use JSON"),
    ] {
        common::write(
            root,
            &format!("memory/decisions/{slug}.md"),
            &format!("---\ntitle: {title}\nstatus: active\ndate: 2026-12-01\nsources: [file:docs/cache.md]\n---\n\nBody.\n"),
        );
    }
    // What a replaced record of each kind is replaced by.
    common::write(
        root,
        "memory/requests/use-redis-cache.md",
        "---\ntitle: Use Redis\nstatus: open\ndate: 2026-12-01\nsources: [file:docs/cache.md]\n---\n\nBody.\n",
    );
    common::write(
        root,
        "knowledge/use-redis-cache.md",
        "---\ntitle: Use Redis\ndescription: Redis.\nmodel_invocation: false\ndate: 2026-12-01\nsources: [file:docs/cache.md]\n---\n\nBody.\n",
    );
    let mut paths = Vec::new();
    for kind in Kind::ALL {
        let rel = match kind {
            Kind::Summary => "memory/summary.md".to_string(),
            Kind::Session => format!("{}/CMEM-20261204-154250.md", kind.dir()),
            Kind::Staging => format!("{}/20261204-154250-20d3.md", kind.dir()),
            _ => format!("{}/use-sqlite.md", kind.dir()),
        };
        common::write(
            root,
            &rel,
            &format!("{}\nThe body.\n", example_record(kind)),
        );
        paths.push(rel);
    }
    let mut args = vec!["check", "--format", "json"];
    args.extend(paths.iter().map(String::as_str));
    let run = common::memlint(root, &args);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let field_rules = [
        "frontmatter/required",
        "frontmatter/type",
        "frontmatter/unknown-key",
        "date/format",
        "sources/format",
        "sources/missing",
        "status/missing-target",
        "status/dangling-target",
        "slug/format",
    ];
    let found: Vec<String> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| field_rules.contains(&d["rule"].as_str().unwrap_or("")))
        .map(|d| format!("{}: {} {}", d["path"], d["rule"], d["message"]))
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}
