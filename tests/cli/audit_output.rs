//! The output audit: a credential `secrets/detected` flags is never printed
//! by any rule, command or format; no control character from a record, a
//! file name, a commit message or a lock reaches a terminal; revision
//! errors of `log` and `check --base` speak plainly.

use crate::common;

use common::{git, git_with, memlint, memlint_stdin, write, Run};
use serde_json::Value;
use std::path::Path;

const GH: &str = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const AWS: &str = "AKIAIOSFODNN7EXAMPLE";
const SLACK: &str = "xoxb-1234567890-abcdefghij";
const SK: &str = "sk-proj-abcdefghij0123456789XYZ";
const PASSWORD: &str = "Xk9fQ2mLp8Rt4vWz7";
/// A line of a private key's material (only its `BEGIN` line is flagged).
const KEY_BODY: &str = "MIIEpAIBAAKCAQEAzRt4vWz7Xk9fQ2mLp8";

/// One credential of each family `secrets/detected` knows beyond the
/// above, as a line of a record (issue 37): what follows the `=` is the
/// secret's part that must never be printed.
const FAMILIES: [(&str, &str); 9] = [
    ("gitlab glpat-", "xT7c9Qk2LmPz4RvW8yBn"),
    ("stripe sk_live_", "4eC39HqLyjWDarjtT1zdp7dc"),
    (
        "jwt eyJhbGciOiJIUzI1NiJ9.",
        "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    ),
    ("huggingface hf_", "JkqLmRtYuIoPaSdFgHjKlZxCvBnMqWeRtY"),
    ("npm npm_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"),
    ("pypi pypi-AgEIcHlwaS5vcmc", "CJDk3ZjA5ODc2LWE0ZDItNDhhMS04"),
    (
        "azure AccountKey=",
        "Qk9fQ2mLp8Rt4vWz7Xk9fQ2mLp8Rt4vWz7Xk9fQ2mLp8Rt4vWz7Xk9fQ2mLp8Rt4vWz==",
    ),
    ("url postgres://app:", "s3cr3t-Pa55Word"),
    ("env DB_PASSWORD=", "Tr0ub4dor&3xyzQWERTY12345"),
];

/// What of each secret must never be printed, in any case (a slug
/// suggestion lowercases what it quotes).
const SECRET_PARTS: [&str; 15] = [
    "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "IOSFODNN7EXAMPLE",
    "1234567890-abcdefghij",
    "proj-abcdefghij0123456789XYZ",
    PASSWORD,
    KEY_BODY,
    FAMILIES[0].1,
    FAMILIES[1].1,
    FAMILIES[2].1,
    FAMILIES[3].1,
    FAMILIES[4].1,
    FAMILIES[5].1,
    FAMILIES[6].1,
    FAMILIES[7].1,
    FAMILIES[8].1,
];

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';

fn decision(title: &str, extra: &str, body: &str) -> String {
    format!(
        "---\ntitle: {title}\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:docs/x.md\n{extra}---\n{body}\n"
    )
}

/// A workspace seeded with secrets and control characters everywhere
/// output can show them: values, keys, file names, bodies, `CONTEXT.md`,
/// a resident description, a session, commit messages and the lock.
fn hostile() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write(root, "docs/x.md", "x\n");
    // Secrets in values and a key, each echoed by another rule.
    write(
        root,
        "memory/decisions/status-secret.md",
        &format!(
            "---\ntitle: Status secret\nstatus: {GH}\ndate: {AWS}\nsources:\n  - {SLACK}\n  - file:docs/{SK}\nreplaced_by: {SK}\n{GH}: 1\n---\nbody\n"
        ),
    );
    // Control characters in a title (YAML escapes), raw in the body, and
    // a private key block; keys out of order, so that `fmt` rewrites it.
    write(
        root,
        "memory/decisions/good.md",
        &format!(
            "---\nstatus: active\ntitle: \"Good \\e[31mred\\a title\\r {GH}\"\ndate: 2026-11-01\nsources:\n  - file:docs/x.md\n---\nA body with {AWS} and raw {ESC}[2J and bell {BEL} password: {PASSWORD}.\n-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----\n"
        ),
    );
    // A file named like a token, and names with escapes and line breaks.
    let raw = decision(
        "Raw",
        "",
        &format!("raw {ESC}]0;pwned{BEL} title set and {ESC}[31m red {GH}"),
    );
    write(root, &format!("memory/decisions/{GH}.md"), &raw);
    write(root, "memory/decisions/raw.md", &raw);
    let named = decision("Named", "", "red body");
    write(
        root,
        &format!("memory/decisions/esc-{ESC}[31m{BEL}x.md"),
        &named,
    );
    write(root, "memory/decisions/nl\nname.md", &named);
    write(root, "memory/decisions/cr\rname.md", &named);
    write(
        root,
        "knowledge/resident.md",
        &format!(
            "---\ntitle: Resident {SLACK}\ndescription: \"Use token {GH} and \\e[31mred\\a\"\nmodel_invocation: true\ndate: 2026-11-01\nsources:\n  - file:docs/x.md\n---\nk body\n"
        ),
    );
    // Every other family, in a description and in the body.
    let lines: String = FAMILIES
        .iter()
        .map(|(kind, secret)| {
            let tail = if kind.starts_with("url") {
                "@db.internal/ledger"
            } else {
                ""
            };
            format!("families {kind}{secret}{tail}\n")
        })
        .collect();
    write(
        root,
        "knowledge/families.md",
        &format!(
            "---\ntitle: Secret families\ndescription: \"families {}{}\"\nmodel_invocation: true\ndate: 2026-11-01\nsources:\n  - file:docs/x.md\n---\n{lines}",
            FAMILIES[0].0, FAMILIES[0].1
        ),
    );
    write(
        root,
        "CONTEXT.md",
        &format!(
            "## 2026-11-01 block {ESC}[31m {SK}\n\ncontext {BEL} text {AWS}\n-----BEGIN PRIVATE KEY-----\n{KEY_BODY}\n-----END PRIVATE KEY-----\n"
        ),
    );
    write(
        root,
        "memory/sessions/CMEM-20261101-101500.md",
        &format!(
            "---\nid: CMEM-20261101-101500\ncreated: 2026-11-01T10:15:00+09:00\nproject_root: /x\ndescription: \"red {GH} \\e[2J\"\n---\n# Session\n\nexported {ESC}[31m {AWS}\n"
        ),
    );
    git(root, &["add", "-A"]);
    let message = format!(
        "add red {ESC}[31m{BEL} {GH}\n\nMemlint-GC: drop memory/decisions/{SLACK} outdated\nMemlint-GC: drop {ESC}[2J {AWS}\n"
    );
    git_with(root, &["commit", "-q", "-m", &message], &[]);
    // A stale lock written by someone else.
    write(
        root,
        "staging/.consolidation.lock",
        &serde_json::json!({
            "pod": format!("pod{ESC}[31m {GH}"),
            "pid": 1,
            "host": format!("other{BEL}\nhost {AWS}"),
            "started": "2020-01-01T00:00:00Z",
            "consumed": [],
        })
        .to_string(),
    );
    dir
}

/// The secrets of [`SECRET_PARTS`] that `text` holds, in any case.
fn leaked(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    SECRET_PARTS
        .into_iter()
        .filter(|s| lower.contains(&s.to_lowercase()))
        .collect()
}

/// The control characters of `text` (a line feed, a tab and the carriage
/// return of a CRLF are text; anything else reaches the terminal raw).
fn raw_controls(text: &str) -> Vec<char> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| {
            let control = c.is_control() && c != '\n' && c != '\t';
            control && !(c == '\r' && chars.get(i + 1) == Some(&'\n'))
        })
        .map(|(_, &c)| c)
        .collect()
}

fn assert_clean(what: &str, run: &Run, json: bool) {
    for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        assert_eq!(
            leaked(text),
            Vec::<&str>::new(),
            "{what}: a secret on {stream}:\n{text}"
        );
        assert_eq!(
            raw_controls(text),
            Vec::<char>::new(),
            "{what}: a raw control character on {stream}:\n{text:?}"
        );
    }
    if json {
        serde_json::from_str::<Value>(&run.stdout)
            .unwrap_or_else(|e| panic!("{what}: not JSON ({e}):\n{}", run.stdout));
    }
}

/// The class of items 7 and 8: every command that prints, in every
/// format, on a workspace seeded with secrets and control characters.
#[test]
fn no_secret_and_no_control_character_reaches_any_output() {
    let dir = hostile();
    let root = dir.path();
    let post_write = |file: &str| {
        serde_json::json!({
            "tool_name": "Write",
            "tool_input": {"file_path": root.join(file).to_str().expect("UTF-8")},
            "cwd": root.to_str().expect("UTF-8"),
        })
        .to_string()
    };
    let start = r#"{"hook_event_name":"SessionStart","source":"startup"}"#;
    let mut seen = 0;
    let mut run = |args: &[&str], stdin: Option<String>, json: bool| {
        let out = match stdin {
            Some(input) => memlint_stdin(root, args, &input),
            None => memlint(root, args),
        };
        assert!(
            !out.stdout.is_empty() || !out.stderr.is_empty(),
            "{args:?} printed nothing: the test would prove nothing"
        );
        assert_clean(&format!("{args:?}"), &out, json);
        seen += 1;
        out
    };
    for format in ["human", "github"] {
        assert_eq!(run(&["check", "--format", format], None, false).code, 1);
    }
    for format in ["json", "sarif"] {
        run(&["check", "--format", format], None, true);
    }
    for query in ["red", "token", "body", "families", "postgres", "stripe"] {
        run(&["search", query], None, false);
        let json = run(&["search", "--format", "json", query], None, true);
        if query == "red" {
            // JSON keeps control characters exact, escaped.
            assert!(json.stdout.contains("\\u001b"), "{}", json.stdout);
        }
    }
    run(&["context"], None, false);
    run(&["context", "--brief"], None, false);
    run(&["context", "--max-chars", "300"], None, false);
    run(&["hook", "session-start"], Some(start.to_string()), false);
    run(&["report"], None, false);
    run(&["report", "--format", "json"], None, true);
    run(&["show", "families"], None, false);
    run(&["show", "families", "--format", "json"], None, true);
    run(&["log"], None, false);
    run(&["log", "--gc"], None, false);
    let log = run(&["log", "--format", "json"], None, true);
    let log: Value = serde_json::from_str(&log.stdout).expect("JSON");
    assert_eq!(
        log["commits"][0]["summary"],
        format!("add red {ESC}[31m{BEL} ghp_…[masked]")
    );
    run(&["staging", "status"], None, false);
    run(&["staging", "status", "--format", "json"], None, true);
    run(&["compact", "list"], None, false);
    run(&["compact", "list", "--format", "json"], None, true);
    run(
        &["compact", "export", "--id", "CMEM-20261101-101500"],
        None,
        false,
    );
    assert_eq!(run(&["fmt", "--check"], None, false).code, 1);
    let diff = run(&["fmt", "--diff"], None, false);
    assert!(diff.stdout.contains("+title: "), "{}", diff.stdout);
    for file in [
        "memory/decisions/status-secret.md".to_string(),
        "memory/decisions/good.md".to_string(),
        format!("memory/decisions/{GH}.md"),
        format!("memory/decisions/esc-{ESC}[31m{BEL}x.md"),
        "memory/decisions/nl\nname.md".to_string(),
    ] {
        run(&["hook", "post-write"], Some(post_write(&file)), false);
    }
    // A pod id with an escape is refused, and the refusal is clean too.
    let refused = run(
        &["staging", "claim", "--pod", &format!("p{ESC}[2J")],
        None,
        false,
    );
    assert_eq!(refused.code, 2);
    // The stale lock is taken over, naming its holder.
    let claimed = run(&["staging", "claim", "--pod", "next"], None, false);
    assert!(claimed.stdout.contains("took over"), "{}", claimed.stdout);
    assert!(
        claimed
            .stdout
            .contains("pod `pod␛[31m ghp_…[masked]` (pid 1 on other␇␊host AKIA…[masked],"),
        "{}",
        claimed.stdout
    );
    run(&["staging", "status"], None, false);
    // A usage error quotes the argument.
    let usage = run(
        &["search", "--limit", &format!("{BEL}{GH}"), "x"],
        None,
        false,
    );
    assert_eq!(usage.code, 2);
    let import = format!("# Session {ESC}[2J {GH}\n");
    write(root, "import.txt", &import);
    run(&["compact", "import", "--file", "import.txt"], None, false);
    assert_eq!(seen, 44);
}

/// Item 7: `status: ghp_…` was echoed by `frontmatter/type`, a date by
/// `date/format`, a source by `sources/format` and `sources/dangling`,
/// `replaced_by` and a key by theirs, a file name by `slug/format`.
#[test]
fn secrets_are_echoed_by_other_rules() {
    let dir = hostile();
    let run = memlint(dir.path(), &["check", "--format", "json"]);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    let found: Vec<(String, String, u64, u64, String)> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] != "secrets/detected")
        .filter(|d| {
            let path = d["path"].as_str().expect("path");
            path.ends_with("status-secret.md") || path.contains("ghp_")
        })
        .map(|d| {
            (
                d["rule"].as_str().expect("rule").to_string(),
                d["path"].as_str().expect("path").to_string(),
                d["line"].as_u64().expect("line"),
                d["column"].as_u64().expect("column"),
                d["message"].as_str().expect("message").to_string(),
            )
        })
        .collect();
    let s = "memory/decisions/status-secret.md";
    let named = "memory/decisions/ghp_…[masked].md";
    let expected = [
        ("slug/format", named, 1, 1, "file name `ghp_…[masked]` is not a slug: it has uppercase letters"),
        ("frontmatter/type", s, 3, 9, "`status` is `ghp_…[masked]`, which is not one of `active`, `replaced`"),
        ("date/format", s, 4, 7, "`date` is `AKIA…[masked]`, which is not a valid date of the form YYYY-MM-DD"),
        ("sources/format", s, 6, 5, "`xoxb-…[masked]` is not a source string: a source is `staging:<id>`, `session:<id>`, `cmem:<id>`, `commit:<hex>`, `file:<path>`, `decision:<slug>`, `request:<slug>`, `knowledge:<slug>` or an http(s) URL"),
        ("sources/dangling", s, 7, 5, "`file:docs/sk-…[masked]` names no file in the workspace"),
        ("frontmatter/type", s, 8, 14, "`replaced_by` is `sk-…[masked]`, which is not a slug (lowercase letters and digits joined by `-`)"),
        ("frontmatter/unknown-key", s, 9, 1, "`ghp_…[masked]` is not a decision key; known keys: title, status, date, sources, replaced_by, tags, slug, verified, pins"),
    ];
    let expected: Vec<(String, String, u64, u64, String)> = expected
        .iter()
        .map(|(r, p, l, c, m)| (r.to_string(), p.to_string(), *l, *c, m.to_string()))
        .collect();
    assert_eq!(found, expected, "{}", run.stdout);
    // The same messages in the other formats.
    let human = memlint(dir.path(), &["check"]);
    assert!(
        human
            .stdout
            .contains("`status` is `ghp_…[masked]`, which is not one of `active`,"),
        "{}",
        human.stdout
    );
    let github = memlint(dir.path(), &["check", "--format", "github"]);
    assert!(github.stdout.contains(
        "::error file=memory/decisions/status-secret.md,line=4,col=7,endLine=4,endColumn=27,title=date/format::`date` is `AKIA…[masked]`, which is not a valid date of the form YYYY-MM-DD\n"
    ), "{}", github.stdout);
    let sarif = memlint(dir.path(), &["check", "--format", "sarif"]);
    assert!(
        sarif.stdout.contains("ghp_%E2%80%A6%5Bmasked%5D.md"),
        "{}",
        sarif.stdout
    );
}

/// Item 7: `search` printed secrets in titles and snippets, `context` and
/// `hook session-start` from `CONTEXT.md` and resident descriptions.
#[test]
fn secrets_are_echoed_by_search_and_context() {
    let dir = hostile();
    let root = dir.path();
    let search = memlint(root, &["search", "--format", "json", "resident"]);
    let json: Value = serde_json::from_str(&search.stdout).expect("JSON");
    assert_eq!(json["results"][0]["title"], "Resident xoxb-…[masked]");
    assert_eq!(
        json["results"][0]["snippet"],
        format!("Use token ghp_…[masked] and {ESC}[31mred{BEL}")
    );
    // A snippet cut from a long line never shows part of a secret.
    write(
        root,
        "knowledge/long.md",
        &format!(
            "---\ntitle: Long\ndescription: d\nmodel_invocation: false\ndate: 2026-11-01\nsources:\n  - file:docs/x.md\n---\n{} needle {GH} {}\n",
            "word ".repeat(20),
            "tail ".repeat(40)
        ),
    );
    let search = memlint(root, &["search", "needle"]);
    assert!(
        search.stdout.contains("needle ghp_…[masked] tail"),
        "{}",
        search.stdout
    );
    assert_eq!(leaked(&search.stdout), Vec::<&str>::new());
    let context = memlint(root, &["context"]);
    assert!(
        context
            .stdout
            .contains("> ## 2026-11-01 block ␛[31m sk-…[masked]\n>\n> context ␇ text AKIA…[masked]\n> -----BEGIN PRIVATE KEY…[masked]\n"),
        "{}",
        context.stdout
    );
    assert!(
        context
            .stdout
            .contains("- resident — Use token ghp_…[masked] and ␛[31mred␇\n"),
        "{}",
        context.stdout
    );
    let hook = memlint_stdin(
        root,
        &["hook", "session-start"],
        r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
    );
    assert_eq!(hook.stdout, context.stdout);
}

/// Item 7: `log` printed secrets from commit messages and file names,
/// `fmt --diff` from the lines it showed, `report` from messages.
#[test]
fn secrets_are_echoed_by_log_fmt_and_report() {
    let dir = hostile();
    let root = dir.path();
    let log = memlint(root, &["log"]);
    assert!(
        log.stdout.contains(" add red ␛[31m␇ ghp_…[masked]\n"),
        "{}",
        log.stdout
    );
    assert!(
        log.stdout
            .contains("    A memory/decisions/ghp_…[masked].md\n"),
        "{}",
        log.stdout
    );
    assert!(
        log.stdout
            .contains("    Memlint-GC: drop memory/decisions/xoxb-…[masked] outdated\n"),
        "{}",
        log.stdout
    );
    let diff = memlint(root, &["fmt", "--diff"]);
    assert!(
        diff.stdout
            .contains("+title: \"Good \\e[31mred\\a title\\r ghp_…[masked]\"\n"),
        "{}",
        diff.stdout
    );
    assert!(
        diff.stdout
            .contains("-title: \"Good \\e[31mred\\a title\\r ghp_…[masked]\"\n"),
        "{}",
        diff.stdout
    );
    let report = memlint(root, &["report"]);
    assert!(
        report.stdout.contains(
            "  3:9 error frontmatter/type: `status` is `ghp_…[masked]`, which is not one of `active`, `replaced`\n"
        ),
        "{}",
        report.stdout
    );
}

/// Item 8: `--format github` printed file names with raw escapes, and a
/// line feed in a name or message ended the workflow command.
#[test]
fn github_format_prints_raw_escapes_in_file_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let named = decision("Named", "", "body").replace("file:docs/x.md", "file:nope:x,y.md");
    write(root, "memory/decisions/nl\nname.md", &named);
    write(root, &format!("memory/decisions/e{ESC}[2J{BEL}.md"), &named);
    let run = memlint(root, &["check", "--format", "github"]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "::error file=memory/decisions/e␛[2J␇.md,line=1,col=1,endLine=1,endColumn=1,title=slug/format::file name `e␛[2J␇` is not a slug: it has uppercase letters; rename it to `e-2j.md`",
            "::warning file=memory/decisions/e␛[2J␇.md,line=6,col=5,endLine=6,endColumn=21,title=sources/dangling::`file:nope:x,y.md` names no file in the workspace",
            "::error file=memory/decisions/nl%0Aname.md,line=1,col=1,endLine=1,endColumn=1,title=slug/format::file name `nl%0Aname` is not a slug: a slug is lowercase letters and digits joined by single `-`; rename it to `nl-name.md`",
            "::warning file=memory/decisions/nl%0Aname.md,line=6,col=5,endLine=6,endColumn=21,title=sources/dangling::`file:nope:x,y.md` names no file in the workspace",
            "memlint: Found 2 errors and 2 warnings in 2 files.",
        ],
        "{}",
        run.stdout
    );
}

/// Item 8: a line feed in a file name split the lines of human output
/// (`report`, `check`, `log`, `context`, `hook post-write`).
#[test]
fn newline_in_file_name_splits_human_report_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "memory/decisions/nl\nname.md",
        &decision("Named", "", "body").replace("file:docs/x.md", "file:nope.md"),
    );
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "one\rtwo"]);
    let report = memlint(root, &["report"]);
    assert!(
        report.stdout.starts_with(
            "memory/decisions/nl␊name.md\n  1:1 error slug/format: file name `nl␊name` is not a slug:"
        ),
        "{}",
        report.stdout
    );
    let check = memlint(root, &["check"]);
    assert!(
        check
            .stdout
            .contains("╭─[memory/decisions/nl␊name.md:1:1]\n"),
        "{}",
        check.stdout
    );
    let log = memlint(root, &["log"]);
    let lines: Vec<&str> = log.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", log.stdout);
    assert!(lines[0].ends_with(" one␍two"), "{}", log.stdout);
    assert_eq!(lines[1], "    A memory/decisions/nl␊name.md");
    let context = memlint(root, &["context"]);
    assert!(
        context.stdout.contains("\n> - nl␊name — Named\n"),
        "{}",
        context.stdout
    );
    let input = serde_json::json!({
        "tool_name": "Write",
        "tool_input": {"file_path": root.join("memory/decisions/nl\nname.md")},
        "cwd": root,
    });
    let hook = memlint_stdin(root, &["hook", "post-write"], input.to_string());
    assert_eq!(hook.code, 2);
    assert!(
        hook.stderr.starts_with(
            "memory/decisions/nl␊name.md:1:1: error[slug/format] file name `nl␊name` is not a slug:"
        ),
        "{}",
        hook.stderr
    );
}

/// Item 8: `context` is injected into an agent's prompt: a control
/// character becomes one visible symbol, and the budget counts it so: the
/// context of a workspace holding control characters and a secret is,
/// at every budget, the context of a workspace holding what is shown of
/// them instead.
#[test]
fn context_control_characters_keep_the_budget_exact() {
    let seed = |root: &Path, esc: &str, bel: &str, secret: &str| {
        let mut block = String::from("## 2026-11-01 escapes\n\n");
        for i in 0..60 {
            block.push_str(&format!("line {i} {esc}[31m red {bel} and {secret}\n"));
        }
        write(root, "CONTEXT.md", &block);
        for i in 0..30 {
            write(
                root,
                &format!("memory/decisions/d{i}-{esc}x.md"),
                &decision("D", "", "b"),
            );
        }
    };
    let raw = tempfile::tempdir().expect("tempdir");
    seed(raw.path(), &ESC.to_string(), &BEL.to_string(), GH);
    let shown = tempfile::tempdir().expect("tempdir");
    seed(shown.path(), "␛", "␇", "ghp_…[masked]");
    for max in [120usize, 200, 640, 1000, 2500, 4000, 20000] {
        let args = ["context", "--max-chars", &max.to_string()];
        let run = memlint(raw.path(), &args);
        let n = run.stdout.chars().count();
        assert!(n <= max, "{n} > {max}:\n{}", run.stdout);
        assert_eq!(raw_controls(&run.stdout), Vec::<char>::new());
        assert_eq!(leaked(&run.stdout), Vec::<&str>::new());
        assert_eq!(run.stdout, memlint(shown.path(), &args).stdout, "at {max}");
        if max >= 1000 {
            assert!(run
                .stdout
                .contains("line 0 ␛[31m red ␇ and ghp_…[masked]\n"));
        }
    }
}

/// Item 8: `staging status` printed a lock's pod and host raw.
#[test]
fn staging_status_prints_raw_escapes_from_the_lock() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "staging/.consolidation.lock",
        &serde_json::json!({
            "pod": format!("p{ESC}]0;x{BEL}"),
            "pid": 1,
            "host": format!("h{ESC}[2J\nevil"),
            "started": "2020-01-01T00:00:00Z",
            "consumed": [],
        })
        .to_string(),
    );
    let run = memlint(root, &["staging", "status"]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        "staging: 0 files, 0 bytes, not due\nlock: stale, left by pod `p␛]0;x␇` (pid 1 on h␛[2J␊evil, since 2020-01-01T00:00:00Z) (the next claim takes it over)\n"
    );
    let json = memlint(root, &["staging", "status", "--format", "json"]);
    let v: Value = serde_json::from_str(&json.stdout).expect("JSON");
    // JSON keeps the values exact.
    assert_eq!(v["lock"]["host"], format!("h{ESC}[2J\nevil"));
}

/// Item 8: `search` printed titles and snippets raw.
#[test]
fn search_prints_raw_escapes_from_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "memory/decisions/esc.md",
        &decision(
            "\"Title \\e]0;pwned\\a here\"",
            "",
            &format!("needle {ESC}[2J cleared\r over"),
        ),
    );
    let run = memlint(root, &["search", "needle"]);
    assert_eq!(
        run.stdout,
        "1. memory/decisions/esc.md  Title ␛]0;pwned␇ here  (score 0.29)\n   needle ␛[2J cleared␍ over\n"
    );
    // With colour, only memlint's own colour sequences are raw.
    let run = memlint(root, &["search", "needle", "--color", "always"]);
    let escapes = run.stdout.matches(ESC).count();
    assert_eq!(escapes, 6, "{:?}", run.stdout);
    assert!(run.stdout.contains("␛[2J"), "{:?}", run.stdout);
}

/// A repository with three commits on `main`, a side branch merged into
/// it, and 600 blobs, enough for two ids sharing their first 4 digits.
fn history() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    for i in 1..=3 {
        write(
            root,
            &format!("memory/decisions/d{i}.md"),
            &decision("D", "", "b"),
        );
        git(root, &["add", "-A"]);
        git(root, &["commit", "-q", "-m", &format!("c{i}")]);
    }
    git(root, &["checkout", "-q", "-b", "side", "HEAD~1"]);
    write(root, "memory/decisions/s.md", &decision("S", "", "b"));
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "side"]);
    git(root, &["checkout", "-q", "main"]);
    git(root, &["merge", "-q", "--no-edit", "side"]);
    let mut ids = std::collections::HashMap::new();
    let mut ambiguous = None;
    for i in 0..2000 {
        let path = root.join("blob.txt");
        std::fs::write(&path, format!("blob {i}\n")).expect("write");
        let id = git(root, &["hash-object", "-w", "blob.txt"]);
        if let Some(_other) = ids.insert(id[..4].to_string(), id.clone()) {
            ambiguous = Some(id[..4].to_string());
            break;
        }
    }
    std::fs::remove_file(root.join("blob.txt")).expect("remove");
    (dir, ambiguous.expect("two ids share 4 digits"))
}

/// Item 16: `memlint log HEAD~5..` past the first commit printed gix's
/// internals (`delegate.traverse(NthAncestor(5)) failed, input="~5"`).
#[test]
fn log_beyond_the_start_of_history_prints_gix_internals() {
    let (dir, _) = history();
    let run = memlint(dir.path(), &["log", "HEAD~5.."]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "memlint: error: unknown revision `HEAD~5`: `HEAD` has only 3 ancestors\n"
    );
}

/// Item 16, the class: every revision error of `log` and `check --base`
/// is a plain message, exit 2.
#[test]
fn revision_errors_are_plain() {
    let (dir, prefix) = history();
    let root = dir.path();
    let cases: Vec<(Vec<String>, String)> = vec![
        (vec!["log".into(), "HEAD~9..".into()], "unknown revision `HEAD~9`: `HEAD` has only 3 ancestors".into()),
        (vec!["log".into(), "HEAD^2~5..".into()], "unknown revision `HEAD^2~5`: `HEAD^2` has only 2 ancestors".into()),
        (vec!["log".into(), "HEAD^3..".into()], "unknown revision `HEAD^3`: `HEAD` has only 2 parents".into()),
        (vec!["log".into(), "HEAD~3^2..".into()], "unknown revision `HEAD~3^2`: `HEAD~3` has no parent (it is the first commit of its history)".into()),
        (vec!["log".into(), "HEAD~5".into()], "`HEAD~5` is neither a record (a path inside the workspace or a slug) nor a revision: `HEAD` has only 3 ancestors".into()),
        (vec!["log".into(), "nosuch..".into()], "unknown revision `nosuch`: no branch, tag or commit is named `nosuch`".into()),
        (vec!["log".into(), "mian..HEAD".into()], "unknown revision `mian`: no branch, tag or commit is named `mian` (did you mean `main`?)".into()),
        (vec!["log".into(), format!("{prefix}..")], format!("unknown revision `{prefix}`: `{prefix}` is ambiguous: 2 objects have ids starting with it; give more digits")),
        (vec!["log".into(), "a..b..c".into()], "`a..b..c` is not a range: write `A..B` (the commits of B not in A) or `A...B` (of either, not both)".into()),
        (vec!["log".into(), "HEAD...nosuch".into()], "unknown revision `nosuch`: no branch, tag or commit is named `nosuch`".into()),
        (vec!["log".into(), "HEAD~x..".into()], "unknown revision `HEAD~x`: it does not name a commit of this repository (memlint reads branch and tag names, commit ids of 4 to 40 hex digits, HEAD, and `~N` or `^N` after them)".into()),
        (vec!["log".into(), "@{upstream}..".into()], "unknown revision `@{upstream}`: `HEAD` has no upstream branch that memlint can find".into()),
        (vec!["check".into(), "--base".into(), "HEAD~4".into()], "unknown revision `HEAD~4`: `HEAD` has only 3 ancestors".into()),
        (vec!["check".into(), "--base".into(), "nosuch".into()], "unknown revision `nosuch`: no branch, tag or commit is named `nosuch`".into()),
        (vec!["check".into(), "--base".into(), prefix.clone()], format!("unknown revision `{prefix}`: `{prefix}` is ambiguous: 2 objects have ids starting with it; give more digits")),
        (vec!["check".into(), "--base".into(), "main..HEAD".into()], "unknown revision `main..HEAD`: a range is not a revision here: give one commit".into()),
        (vec!["check".into(), "--base".into(), "HEAD^{tree}".into()], "unknown revision `HEAD^{tree}` (it does not name a commit)".into()),
    ];
    for (args, message) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = memlint(root, &args);
        assert_eq!(
            (run.code, run.stdout.as_str(), run.stderr.as_str()),
            (2, "", format!("memlint: error: {message}\n").as_str()),
            "{args:?}"
        );
    }
    // An empty repository.
    let empty = tempfile::tempdir().expect("tempdir");
    git(empty.path(), &["init", "-q", "-b", "main"]);
    write(
        empty.path(),
        "memory/decisions/d.md",
        &decision("D", "", "b"),
    );
    for (args, message) in [
        (
            &["log", "HEAD~1.."][..],
            "unknown revision `HEAD~1..` (the repository has no commits yet)",
        ),
        (
            &["check", "--base", "main"][..],
            "the repository has no commits yet; `check --base` needs at least one commit",
        ),
    ] {
        let run = memlint(empty.path(), args);
        assert_eq!(
            (run.code, run.stderr.as_str()),
            (2, format!("memlint: error: {message}\n").as_str()),
            "{args:?}"
        );
    }
}
