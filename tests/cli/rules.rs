//! `memlint check` end to end: the real binary on the fixture workspaces under
//! `fixtures/`, asserting the exact rule, path, span, severity, message and
//! exit code of every diagnostic.

use crate::common;

use common::Run;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(rel: &str) -> PathBuf {
    manifest_dir().join("fixtures").join(rel)
}

trait Json {
    fn json(&self) -> Value;
}

impl Json for Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// Runs `memlint ARGS` in the crate directory.
fn memlint(args: &[&str]) -> Run {
    common::memlint(manifest_dir(), args)
}

/// `memlint check --root DIR --format json EXTRA…`.
fn check_json(root: &Path, extra: &[&str]) -> Run {
    let root = root.to_str().expect("UTF-8 path");
    let mut args = vec!["check", "--root", root, "--format", "json"];
    args.extend_from_slice(extra);
    memlint(&args)
}

/// An expected diagnostic: rule, severity, path, start and end (line,
/// column), and a piece of the message.
#[derive(Debug, Clone, PartialEq)]
struct Exp {
    rule: &'static str,
    severity: &'static str,
    path: &'static str,
    span: (u64, u64, u64, u64),
    message: &'static str,
}

fn err(
    rule: &'static str,
    path: &'static str,
    span: (u64, u64, u64, u64),
    message: &'static str,
) -> Exp {
    Exp {
        rule,
        severity: "error",
        path,
        span,
        message,
    }
}

fn warn(
    rule: &'static str,
    path: &'static str,
    span: (u64, u64, u64, u64),
    message: &'static str,
) -> Exp {
    Exp {
        severity: "warning",
        ..err(rule, path, span, message)
    }
}

/// Start line, start column, end line, end column.
type Span = (u64, u64, u64, u64);

/// The diagnostics of a JSON report as (rule, severity, path, span), plus
/// their messages.
fn actual(json: &Value) -> Vec<(String, String, String, Span, String)> {
    json["diagnostics"]
        .as_array()
        .expect("diagnostics array")
        .iter()
        .map(|d| {
            let n = |k: &str| d[k].as_u64().unwrap_or_else(|| panic!("{k} in {d}"));
            let s = |k: &str| {
                d[k].as_str()
                    .unwrap_or_else(|| panic!("{k} in {d}"))
                    .to_string()
            };
            (
                s("rule"),
                s("severity"),
                s("path"),
                (n("line"), n("column"), n("end_line"), n("end_column")),
                s("message"),
            )
        })
        .collect()
}

/// Asserts that linting `fixtures/<dir>` gives exactly `expected`, in this
/// order, and exits with `code`.
fn assert_case(dir: &str, code: i32, expected: &[Exp]) {
    let run = check_json(&fixture(dir), &[]);
    let json = run.json();
    let got = actual(&json);
    let got_keys: Vec<_> = got
        .iter()
        .map(|(r, s, p, span, _)| (r.as_str(), s.as_str(), p.as_str(), *span))
        .collect();
    let want_keys: Vec<_> = expected
        .iter()
        .map(|e| (e.rule, e.severity, e.path, e.span))
        .collect();
    assert_eq!(
        got_keys, want_keys,
        "diagnostics of fixtures/{dir}:\n{}",
        run.stdout
    );
    for ((.., message), e) in got.iter().zip(expected) {
        assert!(
            message.contains(e.message),
            "fixtures/{dir}: message of {} in {} is {message:?}, expected it to contain {:?}",
            e.rule,
            e.path,
            e.message
        );
    }
    let errors = expected.iter().filter(|e| e.severity == "error").count() as u64;
    let warnings = expected.len() as u64 - errors;
    assert_eq!(json["summary"]["errors"], errors, "fixtures/{dir}");
    assert_eq!(json["summary"]["warnings"], warnings, "fixtures/{dir}");
    assert_eq!(
        run.code, code,
        "exit code of fixtures/{dir}\n{}",
        run.stderr
    );
}

/// One test per fixture, and `CASES` listing every fixture that has one.
macro_rules! cases {
    ($($name:ident: $dir:literal => exit $code:literal, [$($e:expr),* $(,)?];)*) => {
        $(
            #[test]
            fn $name() {
                assert_case($dir, $code, &[$($e),*]);
            }
        )*
        const CASES: &[&str] = &[$($dir),*];
    };
}

cases! {
    frontmatter_missing: "rules/frontmatter-missing" => exit 1, [
        err("frontmatter/missing", "knowledge/blank-first-line.md", (1, 1, 1, 1),
            "blank lines stand before the `---` on line 2; delete them"),
        err("frontmatter/missing", "knowledge/indented-delimiters.md", (1, 1, 1, 6),
            "the front matter delimiter is indented; `---` must start at column 1"),
        err("frontmatter/missing", "knowledge/plain-notes.md", (1, 1, 1, 14),
            "the file has no front matter"),
        err("frontmatter/missing", "knowledge/toml-header.md", (1, 1, 1, 4),
            "opens with TOML front matter (`+++`)"),
    ];
    frontmatter_unclosed: "rules/frontmatter-unclosed" => exit 1, [
        err("frontmatter/unclosed", "knowledge/no-closer.md", (1, 1, 1, 4),
            "no closing `---` line"),
        err("frontmatter/unclosed", "knowledge/runs-into-body.md", (1, 1, 1, 4),
            "it runs into the markdown at line 9"),
    ];
    frontmatter_parse: "rules/frontmatter-parse" => exit 1, [
        err("frontmatter/parse", "knowledge/colon-in-value.md", (2, 1, 2, 30),
            "contains `: `, which YAML reads as a nested key; quote the value: title: 'Pod/TUI: manual rewind'"),
        err("frontmatter/parse", "knowledge/not-a-mapping.md", (2, 1, 3, 14),
            "must be a mapping of keys to values, not a list"),
        err("frontmatter/parse", "knowledge/star-glob.md", (8, 1, 8, 14),
            "`**/*.rs` starts with `*`, which YAML reads as an alias; quote the value: tags: '**/*.rs'"),
        err("frontmatter/parse", "knowledge/tab-indent.md", (7, 1, 7, 43),
            "YAML does not allow a tab for indentation"),
    ];
    frontmatter_duplicate_key: "rules/frontmatter-duplicate-key" => exit 1, [
        err("frontmatter/duplicate-key", "knowledge/twice-titled.md", (3, 1, 3, 6),
            "key `title` appears twice (first on line 2)"),
    ];
    frontmatter_hash_in_value: "rules/frontmatter-hash-in-value" => exit 0, [
        warn("frontmatter/hash-in-value", "memory/decisions/fix-cjk-width.md", (2, 12, 2, 28),
            "this value reads as `Fix`: YAML takes ` #2` as a comment; quote the whole value"),
    ];
    frontmatter_required: "rules/frontmatter-required" => exit 1, [
        err("frontmatter/required", "knowledge/no-description.md", (1, 1, 1, 4),
            "a knowledge needs `description`, which is missing"),
    ];
    frontmatter_type: "rules/frontmatter-type" => exit 1, [
        err("frontmatter/type", "knowledge/yes-invocation.md", (4, 19, 4, 22),
            "`model_invocation` must be `true` or `false`, not a string `yes`"),
        err("frontmatter/type", "memory/decisions/mapping-title.md", (3, 3, 4, 17),
            "`title` must be a string, not a mapping"),
        // One entry of the wrong type hides nothing about the others.
        err("frontmatter/type", "memory/decisions/mixed-sources.md", (5, 11, 5, 13),
            "each entry of `sources` must be a string, not an integer"),
        err("sources/format", "memory/decisions/mixed-sources.md", (5, 15, 5, 24),
            "`ftp://bad` is not a source string: `ftp:` is not a source prefix"),
        warn("sources/dangling", "memory/decisions/mixed-sources.md", (5, 26, 5, 39),
            "`decision:nope` names no decision"),
        err("frontmatter/type", "memory/decisions/pending-status.md", (3, 9, 3, 16),
            "`status` is `pending`, which is not one of `active`, `replaced`"),
    ];
    frontmatter_unknown_key: "rules/frontmatter-unknown-key" => exit 1, [
        // The misspelling hides the required key, so both are reported.
        err("frontmatter/required", "knowledge/misspelt-invocation.md", (1, 1, 1, 4),
            "a knowledge needs `model_invocation`"),
        warn("frontmatter/unknown-key", "knowledge/misspelt-invocation.md", (4, 1, 4, 17),
            "`model_invokation` is not a knowledge key; did you mean `model_invocation`?"),
        warn("frontmatter/unknown-key", "memory/decisions/tagged-decision.md", (7, 1, 7, 4),
            "`tag` is not a decision key; did you mean `tags`?"),
    ];
    format_bom: "rules/format-bom" => exit 0, [
        warn("format/bom", "knowledge/bom-record.md", (1, 1, 1, 2), "byte order mark"),
    ];
    format_crlf: "rules/format-crlf" => exit 0, [
        warn("format/crlf", "knowledge/crlf-record.md", (1, 1, 1, 4), "CRLF line endings"),
    ];
    format_encoding: "rules/format-encoding" => exit 1, [
        err("format/encoding", "knowledge/latin1-body.md", (10, 4, 10, 4),
            "not valid UTF-8 (byte 185 is 0xe9)"),
        err("format/encoding", "knowledge/nul-byte.md", (10, 7, 10, 7), "contains a NUL byte"),
    ];
    format_conflict_markers: "rules/format-conflict-markers" => exit 1, [
        err("format/conflict-markers", "knowledge/merge-left-in-body.md", (11, 1, 11, 13),
            "a merge conflict starts here (`<<<<<<<`)"),
        err("format/conflict-markers", "knowledge/merge-left-in-body.md", (13, 1, 13, 8),
            "the two sides of a merge conflict meet here (`=======`)"),
        err("format/conflict-markers", "knowledge/merge-left-in-body.md", (15, 1, 15, 21),
            "a merge conflict ends here (`>>>>>>>`)"),
        err("format/conflict-markers", "knowledge/merge-left-in-front-matter.md", (2, 1, 2, 13),
            "a merge conflict starts here"),
        err("frontmatter/parse", "knowledge/merge-left-in-front-matter.md", (3, 6, 3, 6),
            "not valid YAML"),
        err("format/conflict-markers", "knowledge/merge-left-in-front-matter.md", (4, 1, 4, 8),
            "meet here"),
        err("format/conflict-markers", "knowledge/merge-left-in-front-matter.md", (6, 1, 6, 21),
            "ends here"),
    ];
    format_too_large: "rules/format-too-large" => exit 1, [
        err("format/too-large", "knowledge/huge-record.md", (1, 1, 1, 1),
            "more than `max_file_bytes` (512); it was not read"),
    ];
    slug_format: "rules/slug-format" => exit 1, [
        err("slug/format", "memory/decisions/Use_SQLite.md", (1, 1, 1, 1),
            "file name `Use_SQLite` is not a slug: it has uppercase letters; rename it to `use-sqlite.md`"),
    ];
    slug_mismatch: "rules/slug-mismatch" => exit 1, [
        err("slug/mismatch", "memory/decisions/use-sqlite.md", (7, 7, 7, 19),
            "`slug` is `use-postgres` but the file is named `use-sqlite.md`"),
    ];
    sources_missing: "rules/sources-missing" => exit 1, [
        err("sources/missing", "knowledge/empty-list.md", (6, 10, 6, 12),
            "`sources` is an empty list"),
        err("sources/missing", "memory/decisions/no-sources.md", (1, 1, 1, 4),
            "a decision must list its `sources`"),
        // `sources:` with nothing after it points at the key.
        err("sources/missing", "memory/requests/null-sources.md", (5, 1, 5, 8),
            "`sources` is empty: a request needs at least one source"),
    ];
    sources_format: "rules/sources-format" => exit 1, [
        err("sources/format", "memory/decisions/odd-sources.md", (6, 5, 6, 16),
            "`jira:` is not a source prefix"),
        err("sources/format", "memory/decisions/odd-sources.md", (7, 5, 7, 15),
            "a commit source is `commit:` and 7 to 40 hex digits"),
    ];
    sources_duplicate: "rules/sources-duplicate" => exit 0, [
        warn("sources/duplicate", "memory/decisions/repeated-source.md", (8, 5, 8, 35),
            "`https://example.com/adr/sqlite` is listed twice (first as entry 1)"),
    ];
    sources_too_many: "rules/sources-too-many" => exit 0, [
        warn("sources/too-many", "memory/decisions/many-sources.md", (5, 1, 5, 8),
            "11 sources, more than the 10 allowed"),
    ];
    sources_thin: "rules/sources-thin" => exit 0, [
        warn("sources/thin", "memory/decisions/single-source.md", (6, 5, 6, 35),
            "the body has 1926 characters but a single source backs it"),
    ];
    status_missing_target: "rules/status-missing-target" => exit 1, [
        err("status/missing-target", "memory/decisions/old-cache.md", (3, 9, 3, 17),
            "a replaced decision must say what replaced it in `replaced_by: <slug>`"),
    ];
    status_target_without_replaced: "rules/status-target-without-replaced" => exit 1, [
        err("status/target-without-replaced", "memory/decisions/keep-json-cache.md", (7, 1, 7, 12),
            "`replaced_by` is set but status is `active`"),
    ];
    date_format: "rules/date-format" => exit 1, [
        err("date/format", "memory/decisions/empty-date.md", (4, 1, 4, 5),
            "`date` is empty; write an absolute date (YYYY-MM-DD)"),
        err("date/format", "memory/decisions/impossible-date.md", (4, 7, 4, 17),
            "`date` is `2026-02-30`, which is not a valid date"),
        err("date/format", "memory/decisions/japanese-date.md", (4, 7, 4, 9),
            "`date` is `昨日`, a relative date"),
        err("date/format", "memory/decisions/relative-date.md", (4, 7, 4, 16),
            "`date` is `yesterday`, a relative date"),
        err("date/format", "memory/decisions/slashed-date.md", (4, 7, 4, 17),
            "`date` is `2026/11/02`, which is not a valid date"),
    ];
    // `code-only.md` holds relative words only in code spans and fenced code.
    date_relative: "rules/date-relative" => exit 0, [
        warn("date/relative", "knowledge/japanese-words.md", (3, 14, 3, 16),
            "`昨日` in the description is a relative date"),
        warn("date/relative", "knowledge/japanese-words.md", (10, 1, 10, 3),
            "`先週` in the body is a relative date"),
        // Any ASCII case.
        warn("date/relative", "memory/decisions/capital-words.md", (2, 16, 2, 25),
            "`Next Week` in the title is a relative date"),
        warn("date/relative", "memory/decisions/capital-words.md", (9, 1, 9, 10),
            "`Yesterday` in the body"),
        warn("date/relative", "memory/decisions/capital-words.md", (10, 10, 10, 20),
            "`2 Days Ago` in the body"),
        warn("date/relative", "memory/decisions/capital-words.md", (10, 31, 10, 41),
            "`THIS MONTH` in the body"),
        warn("date/relative", "memory/decisions/english-words.md", (2, 20, 2, 28),
            "`tomorrow` in the title is a relative date"),
        warn("date/relative", "memory/decisions/english-words.md", (9, 23, 9, 32),
            "`yesterday` in the body"),
        warn("date/relative", "memory/decisions/english-words.md", (10, 16, 10, 26),
            "`3 days ago` in the body"),
        warn("date/relative", "memory/decisions/english-words.md", (10, 37, 10, 46),
            "`last week` in the body"),
        // Quoted with escapes: the value is not the text, so the whole
        // value is pointed at.
        warn("date/relative", "memory/decisions/quoted-title.md", (2, 8, 2, 41),
            "`Tomorrow` in the title is a relative date"),
        // Quoted without escapes: the word itself, in characters.
        warn("date/relative", "memory/decisions/quoted-words.md", (2, 16, 2, 18),
            "`昨日` in the title is a relative date"),
        warn("date/relative", "memory/decisions/quoted-words.md", (2, 19, 2, 28),
            "`yesterday` in the title is a relative date"),
        warn("date/relative", "memory/requests/chinese-words.md", (9, 3, 9, 5),
            "`上周` in the body"),
    ];
    layout_banned_dir: "rules/layout-banned-dir" => exit 1, [
        err("layout/banned-dir", "memory/scratch/draft.md", (1, 1, 1, 1),
            "`memory/scratch/` is a banned directory (`banned_dirs` in .memlint.yml)"),
        err("layout/banned-dir", "memory/workflow/plan.md", (1, 1, 1, 1),
            "`memory/workflow/` is banned"),
    ];
    layout_unknown_file: "rules/layout-unknown-file" => exit 0, [
        warn("layout/unknown-file", "knowledge/cache.markdown", (1, 1, 1, 1),
            "records are `.md` files"),
        warn("layout/unknown-file", "memory/decisions/archive/use-json.md", (1, 1, 1, 1),
            "records live directly in memory/decisions/"),
        warn("layout/unknown-file", "memory/decisions/notes.txt", (1, 1, 1, 1),
            "records are `.md` files"),
    ];
    body_too_long: "rules/body-too-long" => exit 0, [
        // The blank line after `---` and the final newline are not text.
        warn("body/too-long", "memory/decisions/wordy-decision.md", (9, 1, 9, 110),
            "the body has 109 characters, more than the 100 allowed"),
    ];
    summary_too_long: "rules/summary-too-long" => exit 0, [
        // 68 CJK characters count one token each; the newline between the
        // two lines, one (the blank line above and the final newline are
        // not text).
        warn("summary/too-long", "memory/summary.md", (6, 1, 6, 35),
            "about 69 tokens, more than the 50 allowed"),
    ];
    secrets_detected: "rules/secrets-detected" => exit 1, [
        err("secrets/detected", "knowledge/aws-key.md", (10, 32, 10, 52),
            "this looks like an AWS access key id"),
        err("secrets/detected", "staging/20261103-091500-3fa2.md", (9, 30, 9, 57),
            "this looks like a password or token value"),
    ];
    text_invisible: "rules/text-invisible" => exit 1, [
        // A BOM at the start is format/bom's; a joiner inside an emoji stays.
        warn("format/bom", "knowledge/emoji-and-bom.md", (1, 1, 1, 2), "byte order mark"),
        err("text/invisible", "knowledge/hidden-characters.md", (2, 15, 2, 16),
            "U+200B (a zero-width space) in the front matter cannot be seen but is read"),
        err("text/invisible", "knowledge/hidden-characters.md", (3, 14, 3, 47),
            "this value, once its escapes are decoded, holds U+202E (a bidi control)"),
        err("text/invisible", "knowledge/hidden-characters.md", (10, 30, 10, 31),
            "U+202E (a bidi control) in the body"),
        err("text/invisible", "knowledge/hidden-characters.md", (10, 44, 10, 45),
            "U+202C (a bidi control) in the body"),
        err("text/invisible", "knowledge/hidden-characters.md", (11, 13, 11, 19),
            "6 invisible characters from U+E0049 (a tag character, which can spell hidden text) in the body"),
    ];
    text_injection: "rules/text-injection" => exit 0, [
        // ordinary-note.md: "you are now ready", "你现在是一名 Astro 开发人员" do not fire.
        warn("text/injection", "knowledge/poisoned-note.md", (11, 1, 11, 33),
            "`Ignore all previous instructions` in the body speaks to the model"),
        warn("text/injection", "knowledge/poisoned-note.md", (13, 1, 13, 9),
            "`<!-- AI:` in the body"),
        warn("text/injection", "knowledge/poisoned-note.md", (15, 1, 15, 12),
            "`以前の指示をすべて無視` in the body"),
        warn("text/injection", "knowledge/poisoned-note.md", (16, 1, 16, 10),
            "`忽略之前的所有指令` in the body"),
    ];
    staging_id: "rules/staging-id" => exit 1, [
        err("staging/id", "staging/20261103-091500-3fa2.md", (2, 5, 2, 25),
            "staging id `20261103-091500-3FA2` is not of the form YYYYMMDD-HHMMSS-xxxx"),
        err("staging/id", "staging/20261103-142210-b07c.md", (2, 5, 2, 25),
            "staging id `20261103-142210-b07d` differs from the file name `20261103-142210-b07c.md`"),
    ];
    session_id: "rules/session-id" => exit 1, [
        err("session/id", "memory/sessions/CMEM-20261102-174500.md", (2, 5, 2, 23),
            "session id `CMEM-20261102-1745` is not of the form CMEM-YYYYMMDD-HHMMSS"),
        err("session/id", "memory/sessions/CMEM-20261103-080000.md", (2, 5, 2, 25),
            "differs from the file name `CMEM-20261103-080000.md`"),
    ];
    session_sections: "rules/session-sections" => exit 1, [
        err("session/sections", "memory/sessions/CMEM-20261102-174500.md", (60, 1, 60, 16),
            "section `## Known Issues` is missing"),
        err("session/sections", "memory/sessions/CMEM-20261103-080000.md", (68, 1, 68, 16),
            "section `Changes Made` must come before `Pending`"),
        err("session/sections", "memory/sessions/CMEM-20261104-080000.md", (72, 1, 72, 11),
            "section `Pending` appears more than once"),
    ];
    session_absolute_path: "rules/session-absolute-path" => exit 1, [
        err("session/absolute-path", "memory/sessions/CMEM-20261102-174500.md", (4, 15, 4, 22),
            "`project_root` `ledgerd` is not an absolute path"),
        err("session/absolute-path", "memory/sessions/CMEM-20261102-174500.md", (16, 1, 16, 8),
            "`Project Root` `ledgerd` is not an absolute path"),
        err("session/absolute-path", "memory/sessions/CMEM-20261102-174500.md", (37, 3, 37, 19),
            "`ledgerd/retry.py` in `Working Files (Modified)` is not an absolute path"),
        err("session/absolute-path", "memory/sessions/CMEM-20261102-174500.md", (43, 3, 43, 23),
            "`docs/architecture.md` in `Reference Files (Read-Only)` is not an absolute path"),
    ];
    session_plan_source: "rules/session-plan-source" => exit 1, [
        err("session/plan-source", "memory/sessions/CMEM-20261102-174500.md", (24, 1, 24, 18),
            "plan source `guess` is not one of workflow, todo, user-stated, inferred"),
        err("session/plan-source", "memory/sessions/CMEM-20261103-080000.md", (24, 1, 24, 23),
            "`Execution Plan` must start with `### Source:"),
    ];
    session_working_files: "rules/session-working-files" => exit 0, [
        warn("session/working-files", "memory/sessions/CMEM-20261102-174500.md", (34, 1, 34, 28),
            "2 working files; a useful session memory names 3 to 8"),
        warn("session/working-files", "memory/sessions/CMEM-20261103-080000.md", (34, 1, 34, 28),
            "9 working files"),
    ];
    session_decision_reason: "rules/session-decision-reason" => exit 0, [
        warn("session/decision-reason", "memory/sessions/CMEM-20261102-174500.md", (51, 1, 51, 18),
            "decision without reasoning; write `- <decision>: <reasoning>`"),
    ];
    context_block_date: "rules/context-block-date" => exit 0, [
        warn("context/block-date", "CONTEXT.md", (7, 1, 7, 16),
            "block heading `## Sync retries` must start with an absolute date"),
        warn("context/block-date", "CONTEXT.md", (15, 1, 15, 31),
            "`## 2026-13-01 Impossible month`"),
    ];
    // One defect, one diagnostic (SPEC §3): unreadable front matter gets only
    // its reader diagnostic plus path rules, a banned directory only
    // `layout/banned-dir`, a wrongly typed value only `frontmatter/type`.
    precedence: "precedence" => exit 1, [
        err("frontmatter/type", "knowledge/list-title.md", (2, 8, 2, 34),
            "`title` must be a string, not a list"),
        err("slug/format", "memory/decisions/Broken_Yaml.md", (1, 1, 1, 1),
            "file name `Broken_Yaml` is not a slug"),
        err("frontmatter/parse", "memory/decisions/Broken_Yaml.md", (2, 1, 2, 30),
            "the value of `title` contains `: `"),
        err("frontmatter/type", "memory/decisions/listed-target.md", (7, 14, 7, 26),
            "`replaced_by` must be a slug, not a list"),
        err("frontmatter/type", "memory/decisions/string-sources.md", (5, 10, 5, 24),
            "`sources` must be a list of source strings, not a string"),
        err("layout/banned-dir", "memory/workflow/Plan_Old.md", (1, 1, 1, 1),
            "`memory/workflow/` is banned"),
    ];
    // The cross-record rules: each needs several records.
    slug_similar: "rules/slug-similar" => exit 0, [
        warn("slug/similar", "memory/decisions/cache-statements-v2.md", (1, 1, 1, 1),
            "decision `cache-statements-v2` looks like a near-duplicate of `cache-statement` and `cache-statements`; merge them or replace one with the other"),
        warn("slug/similar", "memory/decisions/cache-statements.md", (1, 1, 1, 1),
            "decision `cache-statements` looks like a near-duplicate of `cache-statement` and `cache-statements-v2`"),
    ];
    sources_dangling: "rules/sources-dangling" => exit 0, [
        warn("sources/dangling", "memory/decisions/use-sqlite.md", (7, 5, 7, 29),
            "`file:docs/adr/missing.md` names no file in the workspace"),
        warn("sources/dangling", "memory/decisions/use-sqlite.md", (8, 5, 8, 26),
            "`decision:use-postgres` names no decision (did you mean `decision:use-sqlite`?)"),
        warn("sources/dangling", "memory/decisions/use-sqlite.md", (10, 5, 10, 29),
            "`knowledge:sqlite-pragmas` names no knowledge"),
        warn("sources/dangling", "memory/decisions/use-sqlite.md", (11, 5, 11, 30),
            "`cmem:CMEM-20261101-093000` names no session memory in memory/sessions/"),
    ];
    // Near-copies by content, whatever the slugs; a replaced record and a
    // record unlike the others are left alone.
    content_duplicate: "rules/content-duplicate" => exit 0, [
        warn("content/duplicate", "knowledge/product-page-ttl.md", (1, 1, 1, 1),
            "knowledge `product-page-ttl` says nearly the same as `cdn-ttl` (knowledge/cdn-ttl.md, 92% alike); keep one: merge them, or mark the older replaced with `memlint replace product-page-ttl cdn-ttl`"),
        warn("content/duplicate", "memory/decisions/edge-caching-for-catalogue.md", (1, 1, 1, 1),
            "decision `edge-caching-for-catalogue` says nearly the same as `cache-product-pages` (memory/decisions/cache-product-pages.md, 90% alike); keep one: merge them, or mark the older replaced with `memlint replace cache-product-pages edge-caching-for-catalogue`"),
    ];
    // A source naming a replaced record: the chain's final record is named;
    // a record citing what it replaced, and a replaced record's own
    // sources, are left alone; a chain with no record in force is named
    // but not fixable.
    sources_replaced: "rules/sources-replaced" => exit 1, [
        warn("sources/replaced", "knowledge/statement-cache.md", (7, 5, 7, 24),
            "`decision:use-sqlite` names a replaced decision; the decision in force is `use-redis`: cite `decision:use-redis`"),
        warn("sources/replaced", "knowledge/statement-cache.md", (9, 5, 9, 25),
            "`decision:drop-loop-a` names a replaced decision, and following `replaced_by` from `drop-loop-a` reaches no decision in force: mend that chain first"),
        err("status/cycle", "memory/decisions/drop-loop-a.md", (7, 14, 7, 25),
            "drop-loop-a → drop-loop-b → drop-loop-a"),
        err("status/cycle", "memory/decisions/drop-loop-b.md", (7, 14, 7, 25),
            "drop-loop-b → drop-loop-a → drop-loop-b"),
        warn("status/chain", "memory/decisions/use-sqlite.md", (7, 14, 7, 26),
            "point it at the final record `use-redis`"),
    ];
    status_dangling_target: "rules/status-dangling-target" => exit 1, [
        err("status/dangling-target", "memory/decisions/use-sqlite.md", (7, 14, 7, 27),
            "replaced_by points to `use-sqlite-v2`, which is not a decision (did you mean `use-sqlite-wal`?)"),
        err("status/dangling-target", "memory/requests/keep-sqlite.md", (7, 14, 7, 28),
            "`use-sqlite-wal` is a decision, and a request can only be replaced by a request"),
    ];
    status_cycle: "rules/status-cycle" => exit 1, [
        err("status/cycle", "memory/decisions/use-postgres.md", (7, 14, 7, 24),
            "following `replaced_by` from `use-postgres` comes back to it: use-postgres → use-sqlite → use-postgres"),
        err("status/cycle", "memory/decisions/use-redis.md", (7, 14, 7, 23),
            "comes back to it: use-redis → use-redis"),
        err("status/cycle", "memory/decisions/use-sqlite.md", (7, 14, 7, 26),
            "use-sqlite → use-postgres → use-sqlite"),
    ];
    status_chain: "rules/status-chain" => exit 0, [
        warn("status/chain", "memory/decisions/use-sqlite.md", (7, 14, 7, 26),
            "replaced_by points to `use-postgres`, which is itself replaced; point it at the final record `use-redis`"),
    ];
    // `rules:` in .memlint.yml: warning → error, error → warning, off.
    severity_overrides: "config/overrides" => exit 1, [
        warn("sources/missing", "memory/decisions/fix-cjk-width.md", (1, 1, 1, 4),
            "a decision must list its `sources`"),
        err("frontmatter/hash-in-value", "memory/decisions/fix-cjk-width.md", (2, 12, 2, 28),
            "this value reads as `Fix`"),
    ];
}

/// The rules a single file is enough for: everything but the workspace and
/// history rules.
fn per_file_rules() -> Vec<&'static str> {
    use memlint::lint::registry::{Check, REGISTRY};
    REGISTRY
        .iter()
        .filter(|r| {
            matches!(
                r.check,
                Check::Reader | Check::Record(_) | Check::Context(_)
            )
        })
        .map(|r| r.name())
        .collect()
}

#[test]
fn every_per_file_rule_has_a_fixture_and_a_case() {
    let rules = per_file_rules();
    assert!(rules.len() >= 36, "{rules:?}");
    for rule in rules {
        let dir = format!("rules/{}", rule.replace('/', "-"));
        assert!(
            fixture(&dir).is_dir(),
            "no fixture fixtures/{dir} for {rule}"
        );
        assert!(CASES.contains(&dir.as_str()), "no test case for {dir}");
        // The fixture shows its own rule firing.
        let json = check_json(&fixture(&dir), &[]).json();
        assert!(
            actual(&json).iter().any(|(r, ..)| r == rule),
            "fixtures/{dir} does not fire {rule}"
        );
    }
}

#[test]
fn every_rule_fixture_has_a_case() {
    for entry in std::fs::read_dir(fixture("rules")).expect("fixtures/rules") {
        let name = entry.expect("entry").file_name();
        let dir = format!("rules/{}", name.to_string_lossy());
        assert!(
            CASES.contains(&dir.as_str()),
            "fixtures/{dir} has no test case"
        );
    }
}

#[test]
fn example_workspace_is_clean() {
    let run = check_json(&fixture("example"), &[]);
    let json = run.json();
    assert_eq!(actual(&json), vec![], "{}", run.stdout);
    assert_eq!(json["summary"]["files"], 14);
    assert_eq!(run.code, 0);
    // The README's first command, human output.
    let run = memlint(&["check", "--root", "fixtures/example", "--color", "never"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "No problems in 14 files.\n");
}

#[test]
fn secrets_are_never_echoed() {
    let run = check_json(&fixture("rules/secrets-detected"), &[]);
    for secret in ["AKIAIOSFODNN7EXAMPLE", "Xk9fQ2mLp8Rt4vWz7"] {
        assert!(
            !run.stdout.contains(secret),
            "{secret} echoed:\n{}",
            run.stdout
        );
    }
    let human = memlint(&[
        "check",
        "--root",
        fixture("rules/secrets-detected").to_str().unwrap(),
        "--color",
        "never",
    ]);
    assert_eq!(human.code, 1);
    assert!(human.stdout.contains("secrets/detected"));
    // The excerpt masks it too (all but its kind's prefix), keeping the
    // marker under it.
    for secret in ["AKIAIOSFODNN7EXAMPLE", "Xk9fQ2mLp8Rt4vWz7"] {
        assert!(
            !human.stdout.contains(secret),
            "{secret} echoed:\n{}",
            human.stdout
        );
    }
    assert!(
        human
            .stdout
            .contains("the key AKIA**************** for the bucket"),
        "{}",
        human.stdout
    );
}

#[test]
fn deny_warnings_makes_warnings_fail() {
    let dir = fixture("rules/frontmatter-hash-in-value");
    let run = check_json(&dir, &[]);
    assert_eq!(run.code, 0);
    let denied = check_json(&dir, &["--deny-warnings"]);
    assert_eq!(denied.code, 1);
    // The severity stays a warning; only the exit code changes.
    assert_eq!(denied.json(), run.json());
    // And it changes nothing on a clean workspace.
    assert_eq!(
        check_json(&fixture("example"), &["--deny-warnings"]).code,
        0
    );
}

#[test]
fn rules_off_in_config_silences_them() {
    // Without the overrides, the same record gives the defaults.
    let tmp = tempfile::tempdir().expect("tempdir");
    let empty = tmp.path().join("empty.yml");
    std::fs::write(&empty, "# defaults\n").expect("write");
    let run = check_json(
        &fixture("config/overrides"),
        &["--config", empty.to_str().unwrap()],
    );
    let rules: Vec<(String, String)> = actual(&run.json())
        .into_iter()
        .map(|(r, s, ..)| (r, s))
        .collect();
    let pairs: Vec<(&str, &str)> = rules
        .iter()
        .map(|(r, s)| (r.as_str(), s.as_str()))
        .collect();
    assert_eq!(
        pairs,
        vec![
            ("sources/missing", "error"),
            ("frontmatter/hash-in-value", "warning"),
            ("date/relative", "warning"),
        ]
    );
    assert_eq!(run.code, 1);
}

/// Writes `.memlint.yml` into a fresh workspace and runs `check` there.
fn check_with_config(config: &str) -> Run {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join(".memlint.yml"), config).expect("write");
    std::fs::create_dir_all(tmp.path().join("knowledge")).expect("mkdir");
    check_json(tmp.path(), &[])
}

#[test]
fn config_errors_exit_2_naming_key_and_line() {
    let cases: &[(&str, &[&str])] = &[
        (
            "max_sources: -1\n",
            &[
                ".memlint.yml:1:14:",
                "`max_sources` must be a non-negative whole number, not `-1`",
            ],
        ),
        (
            "max_sources: 3\nmax_source: 4\n",
            &[
                ".memlint.yml:2:1:",
                "unknown configuration key `max_source`",
                "did you mean `max_sources`?",
            ],
        ),
        (
            "# severities\nrules:\n  date/relative: loud\n",
            &[
                ".memlint.yml:3:18:",
                "severity of `date/relative` must be `off`, `warning` or `error`",
            ],
        ),
        (
            "rules:\n  date/relativ: off\n",
            &[
                ".memlint.yml:2:3:",
                "unknown rule `date/relativ`",
                "did you mean `date/relative`?",
            ],
        ),
        (
            "max_body_chars: lots\n",
            &[".memlint.yml:1:17:", "`max_body_chars` must be"],
        ),
        (
            "context:\n  max_char: 10\n",
            &[
                ".memlint.yml:2:3:",
                "`context.max_char`",
                "did you mean `max_chars`?",
            ],
        ),
        (
            "max_sources: 3\nmax_sources: 4\n",
            &[".memlint.yml:2:1:", "`max_sources` appears twice"],
        ),
        (
            "max_sources: 3\nsimilar_content_ratio: 1.5\n",
            &[
                ".memlint.yml:2:24:",
                "`similar_content_ratio` must be a number above 0 and at most 1",
            ],
        ),
        (
            "similar_content_ratio: high\n",
            &[
                ".memlint.yml:1:24:",
                "`similar_content_ratio` must be a number above 0 and at most 1",
            ],
        ),
        (
            "similar_contents_ratio: 0.8\n",
            &[
                ".memlint.yml:1:1:",
                "unknown configuration key `similar_contents_ratio`",
                "did you mean `similar_content_ratio`?",
            ],
        ),
        ("banned_dirs: [a\n", &[".memlint.yml:", "invalid YAML"]),
        (
            "max_sources: 1\n---\nmax_sources: 2\n",
            &[
                ".memlint.yml:",
                "invalid YAML: the configuration holds more than one YAML document",
            ],
        ),
    ];
    for (config, needles) in cases {
        let run = check_with_config(config);
        assert_eq!(run.code, 2, "config {config:?}\n{}", run.stderr);
        assert!(run.stdout.is_empty(), "config {config:?}: {}", run.stdout);
        for needle in *needles {
            assert!(
                run.stderr.contains(needle),
                "config {config:?}: stderr {:?} lacks {needle:?}",
                run.stderr
            );
        }
    }
}

#[test]
fn check_path_lints_only_that_file() {
    let run = memlint(&[
        "check",
        "--root",
        "fixtures/rules/sources-missing",
        "--format",
        "json",
        "fixtures/rules/sources-missing/memory/decisions/no-sources.md",
    ]);
    let json = run.json();
    let got: Vec<_> = actual(&json)
        .into_iter()
        .map(|(r, _, p, span, _)| (r, p, span))
        .collect();
    assert_eq!(
        got,
        vec![(
            "sources/missing".to_string(),
            "memory/decisions/no-sources.md".to_string(),
            (1, 1, 1, 4)
        )]
    );
    assert_eq!(json["summary"]["files"], 1);
    assert_eq!(run.code, 1);

    // A directory narrows to the files under it.
    let run = memlint(&[
        "check",
        "--root",
        "fixtures/rules/sources-missing",
        "--format",
        "json",
        "fixtures/rules/sources-missing/knowledge",
    ]);
    let json = run.json();
    let paths: Vec<String> = actual(&json).into_iter().map(|d| d.2).collect();
    assert_eq!(paths, vec!["knowledge/empty-list.md"]);
    assert_eq!(json["summary"]["files"], 1);

    // A clean file of a dirty workspace passes.
    let run = memlint(&[
        "check",
        "--root",
        "fixtures/rules/status-target-without-replaced",
        "fixtures/rules/status-target-without-replaced/memory/decisions/use-sqlite.md",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[test]
fn exit_codes() {
    // 0: clean; 1: errors.
    assert_eq!(check_json(&fixture("example"), &[]).code, 0);
    assert_eq!(check_json(&fixture("rules/slug-format"), &[]).code, 1);
    // Warnings alone do not fail.
    assert_eq!(check_json(&fixture("rules/format-bom"), &[]).code, 0);
    // 2: usage errors, never a panic.
    let missing_root = memlint(&["check", "--root", "fixtures/no-such-dir"]);
    assert_eq!(missing_root.code, 2);
    assert!(
        missing_root.stderr.contains("not a directory"),
        "{}",
        missing_root.stderr
    );
    let missing_path = memlint(&[
        "check",
        "--root",
        "fixtures/example",
        "fixtures/example/memory/decisions/nope.md",
    ]);
    assert_eq!(missing_path.code, 2);
    assert!(
        missing_path.stderr.contains("no such file or directory"),
        "{}",
        missing_path.stderr
    );
    let outside = memlint(&["check", "--root", "fixtures/example", "src/lib.rs"]);
    assert_eq!(outside.code, 2);
    assert!(
        outside.stderr.contains("outside the workspace root"),
        "{}",
        outside.stderr
    );
    let bad_flag = memlint(&["check", "--format", "xml"]);
    assert_eq!(bad_flag.code, 2);
    assert!(bad_flag.stdout.is_empty());
}

#[test]
fn workspace_root_is_found_from_the_current_directory() {
    // No --root: the nearest ancestor with .memlint.yml.
    let out = common::memlint(
        &fixture("config/overrides/memory/decisions"),
        &["check", "--format", "json"],
    );
    let json = out.json();
    let paths: Vec<String> = actual(&json).into_iter().map(|d| d.2).collect();
    assert_eq!(
        paths,
        vec![
            "memory/decisions/fix-cjk-width.md",
            "memory/decisions/fix-cjk-width.md"
        ]
    );
}

/// The diagnostics of one file of a fixture, as (rule, span, message).
fn diags_of(dir: &str, path: &str) -> Vec<(String, Span, String)> {
    actual(&check_json(&fixture(dir), &[]).json())
        .into_iter()
        .filter(|d| d.2 == path)
        .map(|(rule, _, _, span, message)| (rule, span, message))
        .collect()
}

#[test]
fn regression_empty_value_points_at_the_key_and_says_empty() {
    // `date:` was reported as "`date` is `~`", at a zero-width spot on the colon.
    assert_eq!(
        diags_of("rules/date-format", "memory/decisions/empty-date.md"),
        vec![(
            "date/format".to_string(),
            (4, 1, 4, 5),
            "`date` is empty; write an absolute date (YYYY-MM-DD)".to_string()
        )]
    );
    let sources = diags_of("rules/sources-missing", "memory/requests/null-sources.md");
    assert_eq!(sources.len(), 1);
    assert_eq!(sources[0].1, (5, 1, 5, 8));
}

#[test]
fn regression_block_collection_span_ends_on_its_last_line() {
    // A block list or mapping used to end at column 1 of the next line.
    let parse = diags_of("rules/frontmatter-parse", "knowledge/not-a-mapping.md");
    assert_eq!(parse[0].1, (2, 1, 3, 14));
    let ty = diags_of(
        "rules/frontmatter-type",
        "memory/decisions/mapping-title.md",
    );
    assert_eq!(ty[0].1, (3, 3, 4, 17));
}

#[test]
fn regression_malformed_commit_is_not_also_dangling() {
    // `commit:xyz` got `sources/format` and `sources/dangling`.
    let rules: Vec<String> = diags_of("rules/sources-format", "memory/decisions/odd-sources.md")
        .into_iter()
        .map(|d| d.0)
        .collect();
    assert_eq!(rules, vec!["sources/format", "sources/format"]);
}

#[test]
fn regression_housekeeping_files_are_not_counted() {
    // `.gitkeep` and the consolidation lock counted as linted files.
    let tmp = tempfile::tempdir().expect("tempdir");
    for dir in ["memory/decisions", "knowledge", "staging"] {
        std::fs::create_dir_all(tmp.path().join(dir)).expect("mkdir");
        std::fs::write(tmp.path().join(dir).join(".gitkeep"), "").expect("write");
    }
    std::fs::write(tmp.path().join("staging/.consolidation.lock"), "{}").expect("write");
    let json = check_json(tmp.path(), &[]).json();
    assert_eq!(json["summary"]["files"], 0);
    assert_eq!(json["diagnostics"], Value::Array(vec![]));
}

/// A temporary workspace holding `memory/decisions/<name>` with `bytes`.
fn one_decision(name: &str, bytes: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(".memlint.yml"), "").expect("config");
    std::fs::create_dir_all(dir.path().join("memory/decisions")).expect("mkdir");
    std::fs::write(dir.path().join("memory/decisions").join(name), bytes).expect("write");
    dir
}

/// (rule, fixable) of every diagnostic of a fixable rule.
fn fixables(json: &Value) -> Vec<(String, bool)> {
    json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] != "frontmatter/required")
        .map(|d| {
            let rule = d["rule"].as_str().expect("rule").to_string();
            (rule, d["fixable"].as_bool().expect("fixable"))
        })
        .collect()
}

#[test]
fn fixable_is_true_only_where_fix_repairs() {
    // `statsu` would become `status`, which is present; `bogus` has no
    // close match; `dat` becomes `date`, absent here: only that key is
    // fixable. Of the two duplicates, the one whose lines both hold a
    // comment is left for a person.
    let ws = one_decision(
        "a.md",
        b"---\ntitle: T\nstatus: active\nsources:\n  - file:.memlint.yml  # first\n  - file:.memlint.yml  # again\n  - https://example.com/x\n  - https://example.com/x\nbogus: 1\nstatsu: x\ndat: 2026-11-01\n---\nB\n",
    );
    let run = check_json(ws.path(), &[]);
    let mut got = fixables(&run.json());
    got.sort();
    let want: Vec<(String, bool)> = [
        ("frontmatter/unknown-key", false),
        ("frontmatter/unknown-key", false),
        ("frontmatter/unknown-key", true),
        ("sources/duplicate", false),
        ("sources/duplicate", true),
    ]
    .iter()
    .map(|(r, f)| (r.to_string(), *f))
    .collect();
    assert_eq!(got, want, "{}", run.stdout);
    // `--fix` repairs exactly the fixable ones; the others remain, not
    // fixable, and a second `--fix` changes nothing.
    let fixed = common::memlint(ws.path(), &["check", "--fix", "--format", "json"]);
    let mut left = fixables(&fixed.json());
    left.sort();
    assert_eq!(
        left,
        vec![
            ("frontmatter/unknown-key".to_string(), false),
            ("frontmatter/unknown-key".to_string(), false),
            ("sources/duplicate".to_string(), false),
        ],
        "{}",
        fixed.stdout
    );
    let path = ws.path().join("memory/decisions/a.md");
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains("\ndate: 2026-11-01\n"), "{text}");
    assert_eq!(text.matches("https://example.com/x").count(), 1, "{text}");
    assert_eq!(text.matches("file:.memlint.yml").count(), 2, "{text}");
    common::memlint(ws.path(), &["check", "--fix"]);
    assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
}

#[test]
fn a_file_whose_front_matter_cannot_be_read_gets_one_diagnostic_and_is_never_fixed() {
    // SPEC §3 precedence: no `format/bom` or `format/crlf` beside
    // `frontmatter/parse` (or `unclosed`, `missing`), and `--fix` leaves
    // the bytes alone.
    for (name, bytes, rule) in [
        (
            "parse.md",
            &b"\xef\xbb\xbf---\r\ntitle: a: b\r\n---\r\nB\r\n"[..],
            "frontmatter/parse",
        ),
        (
            "unclosed.md",
            &b"\xef\xbb\xbf---\r\ntitle: a\r\n"[..],
            "frontmatter/unclosed",
        ),
        (
            "missing.md",
            &b"\xef\xbb\xbfno front matter\r\n"[..],
            "frontmatter/missing",
        ),
    ] {
        let ws = one_decision(name, bytes);
        let run = check_json(ws.path(), &[]);
        let got: Vec<String> = fixables(&run.json()).into_iter().map(|(r, _)| r).collect();
        assert_eq!(got, vec![rule.to_string()], "{name}: {}", run.stdout);
        let fixed = common::memlint(ws.path(), &["check", "--fix"]);
        assert_eq!(fixed.code, 1, "{name}");
        let after = std::fs::read(ws.path().join("memory/decisions").join(name)).expect("read");
        assert_eq!(after, bytes, "{name}: the bytes changed");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_file_name_that_is_not_utf8_gets_a_clear_diagnostic() {
    use std::os::unix::ffi::OsStrExt;
    let ws = one_decision("ok.md", b"---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:.memlint.yml\n---\nB\n");
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.md");
    std::fs::write(ws.path().join("memory/decisions").join(name), b"x").expect("write");
    let run = check_json(ws.path(), &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let json = run.json();
    let diags = json["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diags.len(), 1, "{}", run.stdout);
    assert_eq!(diags[0]["rule"], "format/encoding");
    assert_eq!(diags[0]["path"], "memory/decisions/bad\u{fffd}.md");
    assert!(
        diags[0]["message"]
            .as_str()
            .expect("message")
            .contains("file name is not valid UTF-8"),
        "{}",
        run.stdout
    );
    // `fmt` leaves it with a note and formats the rest.
    let fmt = common::memlint(ws.path(), &["fmt", "--check"]);
    assert_eq!(fmt.code, 0, "{}", fmt.stderr);
    assert!(
        fmt.stderr.contains("file name is not valid UTF-8"),
        "{}",
        fmt.stderr
    );
}

#[test]
fn body_limits_count_the_text_not_the_final_newline() {
    let body = "x".repeat(100);
    let ws = one_decision(
        "a.md",
        format!("---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:.memlint.yml\n---\n\n{body}\n").as_bytes(),
    );
    std::fs::write(ws.path().join(".memlint.yml"), "max_body_chars: 100\n").expect("config");
    let run = check_json(ws.path(), &[]);
    assert_eq!(
        run.json()["diagnostics"],
        serde_json::json!([]),
        "{}",
        run.stdout
    );
    std::fs::write(ws.path().join(".memlint.yml"), "max_body_chars: 99\n").expect("config");
    let run = check_json(ws.path(), &[]);
    let got = actual(&run.json());
    assert_eq!(got.len(), 1, "{}", run.stdout);
    assert_eq!(got[0].0, "body/too-long");
    assert_eq!(got[0].3, (9, 1, 9, 101));
}

/// The first diagnostic of `rule` in a JSON check of `root`.
fn first_of(root: &Path, rule: &str) -> Value {
    let run = check_json(root, &[]);
    run.json()["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["rule"] == rule)
        .unwrap_or_else(|| panic!("no {rule} in {}", run.stdout))
        .clone()
}

#[test]
fn an_ambiguous_unknown_key_names_both_guesses_and_is_not_fixable() {
    let ws = one_decision(
        "b.md",
        b"---\ntitle: A\nstate: active\ndate: 2026-11-01\nsources:\n  - https://e.com\n---\nb\n",
    );
    let d = first_of(ws.path(), "frontmatter/unknown-key");
    assert_eq!(d["fixable"], false);
    assert_eq!(
        d["message"],
        "`state` is not a decision key; did you mean `status` or `date`?"
    );
}

#[test]
fn a_clearly_closest_key_is_guessed_alone_and_fixed() {
    // `staus`: `status` (0.91) is far closer than `tags` (0.67).
    let ws = one_decision(
        "b.md",
        b"---\ntitle: A\nstaus: active\ndate: 2026-11-01\nsources:\n  - https://e.com\n---\nb\n",
    );
    let d = first_of(ws.path(), "frontmatter/unknown-key");
    assert_eq!(d["fixable"], true);
    assert_eq!(
        d["message"],
        "`staus` is not a decision key; did you mean `status`?"
    );
    let fixed = check_json(ws.path(), &["--fix"]);
    assert_eq!(
        fixed.json()["diagnostics"],
        serde_json::json!([]),
        "{}",
        fixed.stdout
    );
    let text = std::fs::read_to_string(ws.path().join("memory/decisions/b.md")).expect("read");
    assert!(text.contains("\nstatus: active\n"), "{text}");
}

#[test]
fn context_md_gets_and_loses_its_bom_and_crlf() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join(".memlint.yml"), "").expect("config");
    let path = dir.path().join("CONTEXT.md");
    std::fs::write(&path, "\u{feff}# C\r\n\r\n## 2026-11-01 a\r\nx\r\n").expect("write");
    let run = check_json(dir.path(), &[]);
    assert_eq!(
        fixables(&run.json()),
        vec![
            ("format/bom".to_string(), true),
            ("format/crlf".to_string(), true)
        ],
        "{}",
        run.stdout
    );
    let fixed = common::memlint(dir.path(), &["check", "--fix", "--format", "json"]);
    assert_eq!(fixed.code, 0, "{}", fixed.stderr);
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        "# C\n\n## 2026-11-01 a\nx\n"
    );
}

#[test]
fn parse_errors_of_list_items_and_deeper_tabs_say_how_to_mend_them() {
    let cases: [(&[u8], (u64, &str)); 5] = [
        (
            b"---\ntitle: A\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://e.com\ntags: [a, b #c]\n---\nb\n",
            (7, "` #` starts a comment in YAML, which cuts the list short at `b #c`; quote the item: 'b #c'"),
        ),
        (
            b"---\ntitle: A\nsources:\n- *.md\n---\nb\n",
            (4, "the list item `*.md` starts with `*`, which YAML reads as an alias; quote it: '*.md'"),
        ),
        (
            b"---\ntitle: A\ntags: [a, *b]\n---\nb\n",
            (3, "the list item `*b` starts with `*`, which YAML reads as an alias; quote it: '*b'"),
        ),
        (
            b"---\ntitle: A\nsources:\n- &\n---\nb\n",
            (4, "the list item `&` starts with `&`, which YAML reads as an anchor; quote it: '&'"),
        ),
        (
            b"---\ntitle: A\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://e.com\n\t- https://f.com\n---\nb\n",
            (7, "YAML does not allow a tab for indentation (line 7); indent with spaces"),
        ),
    ];
    for (bytes, (line, message)) in cases {
        let ws = one_decision("a.md", bytes);
        let run = check_json(ws.path(), &[]);
        let got = actual(&run.json());
        assert_eq!(got.len(), 1, "{}", run.stdout);
        assert_eq!(got[0].0, "frontmatter/parse");
        assert_eq!(
            (got[0].3 .0, got[0].4.as_str()),
            (line, message),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn a_bom_hides_no_context_heading_and_no_record_is_its_own_replacement() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::write(root.join(".memlint.yml"), "").expect("config");
    std::fs::write(root.join("CONTEXT.md"), "\u{feff}## x\n").expect("write");
    for d in ["memory/decisions", "memory/requests"] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
    std::fs::write(
        root.join("memory/decisions/toreq.md"),
        "---\ntitle: ok\nstatus: replaced\ndate: 2026-01-01\nsources: [https://a.b]\nreplaced_by: creq\n---\n",
    )
    .expect("write");
    std::fs::write(
        root.join("memory/requests/creq.md"),
        "---\ntitle: ok\nstatus: done\ndate: 2026-01-01\nsources: [https://a.b]\n---\n",
    )
    .expect("write");
    let run = check_json(root, &[]);
    let got = actual(&run.json());
    let keys: Vec<_> = got
        .iter()
        .map(|(r, _, p, span, _)| (r.as_str(), p.as_str(), *span))
        .collect();
    assert_eq!(
        keys,
        vec![
            ("format/bom", "CONTEXT.md", (1, 1, 1, 2)),
            ("context/block-date", "CONTEXT.md", (1, 2, 1, 6)),
            (
                "status/dangling-target",
                "memory/decisions/toreq.md",
                (6, 14, 6, 18)
            ),
        ],
        "{}",
        run.stdout
    );
    // `toreq` itself is the only decision near `creq`: no guess.
    assert!(!got[2].4.contains("did you mean"), "{}", got[2].4);
}

#[test]
fn regression_an_empty_file_source_is_only_malformed() {
    // `file:` got `sources/format` and `sources/dangling` on the same span.
    let ws = one_decision(
        "b.md",
        b"---\ntitle: A\nstatus: active\ndate: 2026-11-01\nsources: [\"file:\"]\n---\nb\n",
    );
    let run = check_json(ws.path(), &[]);
    let got = actual(&run.json());
    let keys: Vec<_> = got
        .iter()
        .map(|(r, _, _, span, _)| (r.as_str(), *span))
        .collect();
    assert_eq!(
        keys,
        vec![("sources/format", (5, 11, 5, 18))],
        "{}",
        run.stdout
    );
}

#[cfg(unix)]
#[test]
fn a_configuration_linked_from_outside_the_workspace_is_not_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("ws");
    std::fs::create_dir_all(root.join("memory")).expect("mkdir");
    let outside = tmp.path().join("elsewhere.yml");
    std::fs::write(&outside, "max_sources: 1\n").expect("write");
    std::os::unix::fs::symlink(&outside, root.join(".memlint.yml")).expect("symlink");
    let run = check_json(&root, &[]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains(".memlint.yml leads out of")
            && run.stderr.contains("memlint never reads there"),
        "{run:?}"
    );
    // Named on purpose, it is read.
    let run = check_json(&root, &["--config", outside.to_str().expect("UTF-8")]);
    assert_eq!(run.code, 0, "{run:?}");
    // A link inside the workspace is fine.
    std::fs::remove_file(root.join(".memlint.yml")).expect("rm");
    std::fs::write(root.join("shared.yml"), "max_sources: 1\n").expect("write");
    std::os::unix::fs::symlink("shared.yml", root.join(".memlint.yml")).expect("symlink");
    assert_eq!(check_json(&root, &[]).code, 0);
}

#[cfg(unix)]
#[test]
fn a_path_given_that_is_a_link_is_named_not_skipped_silently() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("ws");
    std::fs::create_dir_all(root.join("memory/decisions")).expect("mkdir");
    let outside = tmp.path().join("e.md");
    std::fs::write(&outside, "---\ntitle: x\n---\n").expect("write");
    std::os::unix::fs::symlink(&outside, root.join("memory/decisions/l.md")).expect("symlink");
    let path = root.join("memory/decisions/l.md");
    let run = check_json(&root, &[path.to_str().expect("UTF-8")]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stderr
            .contains("l.md is a symbolic link, which memlint never follows"),
        "{run:?}"
    );
}

#[test]
fn config_integers_may_be_written_in_hex_or_octal_as_in_yaml() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        tmp.path().join(".memlint.yml"),
        "max_sources: 0x1\nmax_body_chars: 0o7000\n",
    )
    .expect("write");
    std::fs::create_dir_all(tmp.path().join("memory/decisions")).expect("mkdir");
    std::fs::write(
        tmp.path().join("memory/decisions/two-sources.md"),
        "---\ntitle: Two sources\nstatus: active\ndate: 2026-11-01\nsources:\n  - https://example.com/a\n  - https://example.com/b\n---\n\nBody.\n",
    )
    .expect("write");
    let run = check_json(tmp.path(), &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let rules: Vec<String> = run.json()["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["rule"].as_str().expect("rule").to_string())
        .collect();
    assert_eq!(rules, ["sources/too-many"], "{run:?}");
}

#[test]
fn fix_points_a_source_naming_a_replaced_record_at_the_record_in_force() {
    // `decision:use-sqlite` → `decision:use-redis` (two hops on), which the
    // record already lists: it is then listed once. The source whose chain
    // ends in a cycle is left as it is.
    let dir = tempfile::tempdir().expect("temp dir");
    common::copy_dir(&fixture("rules/sources-replaced"), dir.path());
    let fixed = common::memlint(dir.path(), &["check", "--fix", "--format", "json"]);
    let text =
        std::fs::read_to_string(dir.path().join("knowledge/statement-cache.md")).expect("read");
    assert!(
        text.contains("sources:\n  - decision:use-redis\n  - decision:drop-loop-a\n---\n"),
        "{text}"
    );
    let left: Vec<(String, bool)> = fixables(&fixed.json())
        .into_iter()
        .filter(|(r, _)| r == "sources/replaced")
        .collect();
    assert_eq!(
        left,
        vec![("sources/replaced".to_string(), false)],
        "{}",
        fixed.stdout
    );
}

#[test]
fn similar_content_ratio_sets_how_alike_duplicates_must_be() {
    // The fixture's short pairs are compared exactly: the knowledge pair
    // shares 12 of its 13 character-pair shingles (0.923), the decisions
    // 26 of their 29 word pairs (0.897); `use-thin-lto` is far less like
    // any. At 0.95 nothing is reported, at 0.9 the knowledge pair only (an
    // estimate put both at 0.91), at 0.85 both.
    let count = |ratio: &str| {
        let dir = tempfile::tempdir().expect("temp dir");
        common::copy_dir(&fixture("rules/content-duplicate"), dir.path());
        std::fs::write(
            dir.path().join(".memlint.yml"),
            format!("similar_content_ratio: {ratio}\n"),
        )
        .expect("config");
        let run = check_json(dir.path(), &[]);
        let json = run.json();
        actual(&json)
            .into_iter()
            .filter(|(r, ..)| r == "content/duplicate")
            .map(|(_, _, p, ..)| p)
            .collect::<Vec<_>>()
    };
    assert!(count("0.95").is_empty());
    assert_eq!(
        count("0.9"),
        vec!["knowledge/product-page-ttl.md".to_string()]
    );
    assert_eq!(
        count("0.897"),
        vec!["knowledge/product-page-ttl.md".to_string()]
    );
    assert_eq!(
        count("0.896"),
        vec![
            "knowledge/product-page-ttl.md".to_string(),
            "memory/decisions/edge-caching-for-catalogue.md".to_string()
        ]
    );
}

#[test]
fn short_records_are_compared_on_their_word_pairs_exactly() {
    // Two short decisions that differ in how long and in what the origin
    // serves: 24 of their 31 word pairs are the same (0.77). Their
    // sketches put them at 0.92, over the default 0.85; the exact count
    // does not report them, and reports them, as 77% alike, once the
    // threshold is below that.
    let dir = tempfile::tempdir().expect("temp dir");
    let decisions = dir.path().join("memory/decisions");
    std::fs::create_dir_all(&decisions).expect("mkdir");
    let record = |name: &str, date: &str, body: &str| {
        std::fs::write(
            decisions.join(name),
            format!(
                "---\ntitle: Cache product pages at the CDN\nstatus: active\ndate: {date}\n\
                 sources:\n  - staging:20260320-090000-4c4d\n---\n\n{body}\n"
            ),
        )
        .expect("record");
    };
    record(
        "cache-for-five-minutes.md",
        "2026-03-20",
        "Product pages are cached at the CDN for five minutes and purged by surrogate key \
         whenever a price changes so the origin serves only misses.",
    );
    record(
        "cache-for-ten-minutes.md",
        "2026-03-24",
        "Product pages are cached at the CDN for ten minutes and purged by surrogate key \
         whenever a price changes so the origin serves only cold requests.",
    );
    let duplicates = |config: &str| {
        std::fs::write(dir.path().join(".memlint.yml"), config).expect("config");
        let json = check_json(dir.path(), &[]).json();
        actual(&json)
            .into_iter()
            .filter(|(r, ..)| r == "content/duplicate")
            .map(|(_, _, p, _, m)| (p, m))
            .collect::<Vec<_>>()
    };
    assert_eq!(duplicates(""), vec![]);
    let found = duplicates("similar_content_ratio: 0.75\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "memory/decisions/cache-for-ten-minutes.md");
    assert!(
        found[0]
            .1
            .contains("(memory/decisions/cache-for-five-minutes.md, 77% alike)"),
        "{}",
        found[0].1
    );
    assert_eq!(duplicates("similar_content_ratio: 0.78\n"), vec![]);
}

#[test]
fn duplicates_follow_edits_between_runs_through_the_cache() {
    // The pairs are kept in .memlint/ between runs: an edit that makes a
    // copy, and one that retires it, are both seen by the next run.
    let dir = tempfile::tempdir().expect("temp dir");
    common::copy_dir(&fixture("rules/content-duplicate"), dir.path());
    let dups = |root: &Path| {
        let json = check_json(root, &[]).json();
        actual(&json)
            .into_iter()
            .filter(|(r, ..)| r == "content/duplicate")
            .map(|(_, _, p, ..)| p)
            .collect::<Vec<_>>()
    };
    assert_eq!(dups(dir.path()).len(), 2);
    assert!(dir.path().join(".memlint/duplicates").is_file());
    let thin = dir.path().join("memory/decisions/use-thin-lto.md");
    let text = std::fs::read_to_string(&thin).expect("read");
    let copied = text.replace(
        "Release builds use thin LTO: fat LTO took forty minutes on the two-core runners and gained nothing measurable.",
        "Product pages are cached at the CDN for five minutes and purged by surrogate key whenever a price changes, so the origin serves only misses.",
    );
    std::fs::write(
        &thin,
        copied.replace(
            "Build releases with thin LTO",
            "Cache product pages at the CDN",
        ),
    )
    .expect("write");
    assert_eq!(
        dups(dir.path()),
        vec![
            "knowledge/product-page-ttl.md".to_string(),
            "memory/decisions/edge-caching-for-catalogue.md".to_string(),
            "memory/decisions/use-thin-lto.md".to_string(),
        ]
    );
    let retired = std::fs::read_to_string(&thin)
        .expect("read")
        .replace("status: active", "status: replaced")
        .replace("---\n\n", "replaced_by: cache-product-pages\n---\n\n");
    std::fs::write(&thin, retired).expect("write");
    assert_eq!(dups(dir.path()).len(), 2);
}

#[test]
fn a_replaced_record_made_active_again_is_compared_again() {
    // A replaced record is never compared (no sketch is made of it): once
    // it is active again, the next run finds its copy, cache or not.
    let dir = tempfile::tempdir().expect("temp dir");
    common::copy_dir(&fixture("rules/content-duplicate"), dir.path());
    let dups = |root: &Path| {
        let json = check_json(root, &[]).json();
        actual(&json)
            .into_iter()
            .filter(|(r, ..)| r == "content/duplicate")
            .map(|(_, _, p, ..)| p)
            .collect::<Vec<_>>()
    };
    let cdn = dir.path().join("memory/decisions/cache-product-pages.md");
    let active = std::fs::read_to_string(&cdn).expect("read");
    let replaced = active
        .replace("status: active", "status: replaced")
        .replace(
            "---\n\n",
            "replaced_by: edge-caching-for-catalogue\n---\n\n",
        );
    std::fs::write(&cdn, &replaced).expect("write");
    assert_eq!(
        dups(dir.path()),
        vec!["knowledge/product-page-ttl.md".to_string()]
    );
    std::fs::write(&cdn, &active).expect("write");
    let want = vec![
        "knowledge/product-page-ttl.md".to_string(),
        "memory/decisions/edge-caching-for-catalogue.md".to_string(),
    ];
    assert_eq!(dups(dir.path()), want);
    std::fs::remove_dir_all(dir.path().join(".memlint")).expect("rm cache");
    assert_eq!(dups(dir.path()), want);
}

/// Issue 48 item 10: `check` is one engine call, `engine::check::run(mode,
/// selection)`: the paths resolve into a selection (a path missing from
/// the work tree is an error there, not for git's versions), and the work
/// tree is fixed, then checked, with what each path selected.
#[test]
fn the_engine_checks_in_one_call_fixing_first() {
    use memlint::engine::check::{run, Mode, Selection};
    use memlint::engine::workspace::Surroundings;
    let dir = common::workspace("rules/format-crlf");
    let root = dir.path();
    std::fs::create_dir_all(root.join("notes")).expect("mkdir");
    let at = Surroundings {
        cwd: root,
        env: &|_| None,
    };
    let ws = memlint::engine::workspace::load(&at, Some(root), None).expect("workspace");
    let gone = [root.join("knowledge/gone.md")];
    let (warnings, missing) = Selection::of(&ws, &gone, false);
    assert!(warnings.is_empty());
    assert_eq!(
        missing.expect_err("missing").to_string(),
        format!("{}: no such file or directory", gone[0].display())
    );
    assert!(Selection::of(&ws, &gone, true).1.is_ok());
    let paths = [root.join("knowledge"), root.join("notes")];
    let (_, selection) = Selection::of(&ws, &paths, false);
    let opts = memlint::engine::scan::Options {
        force: false,
        progress: None,
    };
    let mode = Mode::WorkTree { fix: true };
    let checked = run(&ws, &mode, &selection.expect("selection"), true, &opts).expect("checked");
    let fixed = checked.fixed.expect("fixed");
    assert_eq!(fixed.fixed, vec!["knowledge/crlf-record.md".to_string()]);
    assert!(fixed.failed.is_empty() && fixed.raced.is_empty());
    let rules: Vec<&str> = checked
        .outcome
        .diagnostics
        .iter()
        .map(|d| d.rule.as_str())
        .collect();
    assert!(!rules.contains(&"format/crlf"), "{rules:?}");
    assert_eq!(checked.outcome.files, 1);
    let text = std::fs::read_to_string(root.join("knowledge/crlf-record.md")).expect("read");
    assert!(!text.contains('\r'), "{text:?}");
    assert_eq!(
        checked.selects_nothing,
        vec![format!(
            "{} holds no record: memlint checks the .md files under memory/, knowledge/ and staging/, and CONTEXT.md",
            paths[1].display()
        )]
    );
}

/// A configuration error names the file as from the current directory
/// (from the root, from inside the workspace, from above it), never by the
/// whole path of the machine it ran on (a CI log); a file given with
/// `--config` is named as given.
#[test]
fn config_errors_name_the_file_from_the_current_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("ws");
    std::fs::create_dir_all(root.join("memory/decisions")).expect("mkdir");
    std::fs::write(root.join(".memlint.yml"), "rules: {}\nrules: {}\n").expect("write");
    let error = "configuration key `rules` appears twice\n";
    let cases: [(&Path, &[&str], String); 4] = [
        (
            &root,
            &["check"],
            format!("memlint: error: .memlint.yml:2:1: {error}"),
        ),
        (
            &root.join("memory/decisions"),
            &["check"],
            format!("memlint: error: ../../.memlint.yml:2:1: {error}"),
        ),
        (
            tmp.path(),
            &["--root", "ws", "check"],
            format!("memlint: error: ws/.memlint.yml:2:1: {error}"),
        ),
        (
            tmp.path(),
            &["--root", "ws", "--config", "./ws/.memlint.yml", "check"],
            format!("memlint: error: ./ws/.memlint.yml:2:1: {error}"),
        ),
    ];
    for (dir, args, expected) in cases {
        let run = common::memlint(dir, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr, expected, "{args:?}");
    }
}
