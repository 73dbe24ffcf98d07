//! `memlint compact import | export | list | template` (SPEC §2 "Session
//! records", §4), run as the real binary against temporary workspaces.

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

const BIN: &str = env!("CARGO_BIN_EXE_memlint");
const VALID: &str = include_str!("../../fixtures/compact/valid.md");
const CJK: &str = include_str!("../../fixtures/compact/cjk.md");
const SECTIONS: [&str; 14] = [
    "Session ID",
    "Project Root",
    "Objective",
    "Execution Plan",
    "Working Files (Modified)",
    "Reference Files (Read-Only)",
    "Last Action",
    "Decisions",
    "Constraints",
    "Dependencies",
    "Known Issues",
    "Changes Made",
    "Pending",
    "Notes",
];

fn workspace() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn memlint(root: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.arg("--root").arg(root).env("NO_COLOR", "1");
    c
}

/// Imports `text` from standard input with extra arguments; returns the
/// output whatever the exit code.
fn import(root: &Path, text: &str, extra: &[&str]) -> std::process::Output {
    memlint(root)
        .args(["compact", "import"])
        .args(extra)
        .write_stdin(text)
        .output()
        .expect("memlint runs")
}

/// Imports `text` (JSON output), asserts success and returns the JSON.
fn import_ok(root: &Path, text: &str, extra: &[&str]) -> Value {
    let out = import(root, text, &[&["--format", "json"], extra].concat());
    assert!(
        out.status.success(),
        "import failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// The stored session files, sorted by name.
fn stored(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(root.join("memory/sessions")) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    files
}

fn export(root: &Path, id: &str) -> Vec<u8> {
    let out = memlint(root)
        .args(["compact", "export", "--id", id])
        .output()
        .expect("memlint runs");
    assert!(
        out.status.success(),
        "export failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `memlint check` on the workspace passes with no diagnostic at all.
fn assert_lints_clean(root: &Path) {
    let out = memlint(root)
        .args(["check", "--format", "json"])
        .output()
        .expect("memlint runs");
    let report: Value = serde_json::from_slice(&out.stdout).expect("check JSON");
    assert_eq!(report["diagnostics"], serde_json::json!([]), "{report:#}");
    assert!(out.status.success());
}

fn list_json(root: &Path) -> Value {
    let out = memlint(root)
        .args(["compact", "list", "--format", "json"])
        .output()
        .expect("memlint runs");
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).expect("list JSON")
}

fn id_of(json: &Value) -> String {
    json["id"].as_str().expect("an id").to_string()
}

fn is_cmem(id: &str) -> bool {
    let b = id.as_bytes();
    id.len() == 20
        && id.starts_with("CMEM-")
        && b[13] == b'-'
        && id[5..13].bytes().all(|c| c.is_ascii_digit())
        && id[14..].bytes().all(|c| c.is_ascii_digit())
}

#[test]
fn template_has_the_fourteen_headings_in_order() {
    let dir = workspace();
    let out = memlint(dir.path())
        .args(["compact", "template"])
        .output()
        .expect("memlint runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let headings: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("## ")).collect();
    assert_eq!(headings, SECTIONS);
    assert!(text.contains("\n### Source: "), "{text}");
    assert!(text.contains("<details>") && text.contains("</details>"));
    // Every section other than the plan holds the `(none)` placeholder.
    for name in SECTIONS.iter().filter(|n| **n != "Execution Plan") {
        assert!(
            text.contains(&format!("## {name}\n(none)\n")),
            "{name}: {text}"
        );
    }
    // The plan starts with its source line.
    assert!(text.contains("## Execution Plan\n### Source: "));
}

#[test]
fn template_works_outside_any_workspace_configuration() {
    let dir = workspace();
    fs::write(dir.path().join(".memlint.yml"), "not_a_key: 1\n").expect("config");
    memlint(dir.path())
        .args(["compact", "template"])
        .assert()
        .success();
}

#[test]
fn import_from_file_stores_the_record_and_prints_spec_json() {
    let dir = workspace();
    let file = dir.path().join("session.md");
    fs::write(&file, VALID).expect("input");
    let out = memlint(dir.path())
        .args(["compact", "import", "--format", "json", "--file"])
        .arg(&file)
        .args(["--description", "Index freshness", "--tags", "index,git"])
        .output()
        .expect("memlint runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let json: Value = serde_json::from_str(&stdout).expect("JSON");
    let id = id_of(&json);
    assert!(is_cmem(&id), "{id}");
    // Exactly the fields of SPEC §4, in that order.
    let keys: Vec<&str> = json
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(sorted, ["id", "message", "operation", "path"]);
    let order: Vec<usize> = ["\"operation\"", "\"id\"", "\"message\"", "\"path\""]
        .iter()
        .map(|k| stdout.find(k).expect("key present"))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{stdout}");
    assert_eq!(json["operation"], "import");
    assert_eq!(json["message"], format!("Created memory: {id}"));
    assert_eq!(json["path"], format!("memory/sessions/{id}.md"));

    let record = fs::read_to_string(dir.path().join(format!("memory/sessions/{id}.md")))
        .expect("stored record");
    let (front, body) = record
        .strip_prefix("---\n")
        .and_then(|r| r.split_once("\n---\n"))
        .expect("front matter");
    assert_eq!(body, VALID, "the body is the input byte for byte");
    let lines: Vec<&str> = front.lines().collect();
    assert_eq!(lines[0], format!("id: {id}"));
    let created = lines[1].strip_prefix("created: ").expect("created");
    assert!(created.ends_with('Z') && created.len() == 20, "{created}");
    assert_eq!(
        &created.replace(['-', ':'], "")[..15],
        &id[5..].replace('-', "T")
    );
    assert_eq!(lines[2], "project_root: '/home/dev/memlint'");
    assert_eq!(lines[3], "description: 'Index freshness'");
    assert_eq!(lines[4], "tags: [index, git]");
    assert_lints_clean(dir.path());
}

#[test]
fn import_from_stdin_prints_the_recovery_box() {
    let dir = workspace();
    let out = import(dir.path(), VALID, &[]);
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let files = stored(dir.path());
    assert_eq!(files.len(), 1);
    let id = files[0]
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("stem")
        .to_string();
    assert!(stdout.contains(&format!("Recovery ID: {id}")), "{stdout}");
    assert!(
        stdout.contains(&format!("memlint compact export --id {id}")),
        "{stdout}"
    );
    assert!(stdout.starts_with('╭') && stdout.trim_end().ends_with('╯'));
    // Every line of the box has the same width.
    let widths: Vec<usize> = stdout.lines().map(|l| l.chars().count()).collect();
    assert!(widths.windows(2).all(|w| w[0] == w[1]), "{stdout}");
    assert_eq!(export(dir.path(), &id), VALID.as_bytes());
    assert_lints_clean(dir.path());
    // Quiet: the id alone, for a script to keep.
    let quiet = import(dir.path(), VALID, &["-q"]);
    assert!(quiet.status.success());
    let second = String::from_utf8(quiet.stdout).expect("UTF-8");
    assert!(
        second.starts_with("CMEM-") && second.ends_with('\n') && second.lines().count() == 1,
        "{second:?}"
    );
    assert!(dir
        .path()
        .join(format!("memory/sessions/{}.md", second.trim()))
        .is_file());
}

#[test]
fn japanese_and_chinese_text_round_trips() {
    let dir = workspace();
    let json = import_ok(
        dir.path(),
        CJK,
        &[
            "--description",
            "検索の改善：中文 \"引用\" と 'quote' #1",
            "--tags",
            "検索,中文,rust",
        ],
    );
    let id = id_of(&json);
    assert_eq!(export(dir.path(), &id), CJK.as_bytes());
    let list = list_json(dir.path());
    assert_eq!(
        list["sessions"][0]["description"],
        "検索の改善：中文 \"引用\" と 'quote' #1"
    );
    let human = memlint(dir.path())
        .args(["compact", "list"])
        .output()
        .expect("memlint runs");
    let human = String::from_utf8(human.stdout).expect("UTF-8");
    assert!(human.contains("[検索, 中文, rust]"), "{human}");
    assert_lints_clean(dir.path());
}

#[test]
fn windows_drive_and_unc_paths_are_absolute() {
    let dir = workspace();
    // The fixture mixes drive paths, a UNC share and a POSIX path.
    let json = import_ok(dir.path(), CJK, &[]);
    let id = id_of(&json);
    let record = fs::read_to_string(dir.path().join(format!("memory/sessions/{id}.md")))
        .expect("stored record");
    assert!(
        record.contains("\nproject_root: 'D:\\work\\記憶'\n"),
        "{record}"
    );
    // A UNC project root survives the front matter too.
    let unc = CJK.replace("D:\\work\\記憶\n", "\\\\fileserver\\共有\\memlint\n");
    let json = import_ok(dir.path(), &unc, &[]);
    let id = id_of(&json);
    let record = fs::read_to_string(dir.path().join(format!("memory/sessions/{id}.md")))
        .expect("stored record");
    assert!(
        record.contains("\nproject_root: '\\\\fileserver\\共有\\memlint'\n"),
        "{record}"
    );
    assert_lints_clean(dir.path());
}

/// Asserts that importing `text` fails with exit 1, names `rule` at `line`
/// of the input, and writes nothing.
fn assert_refused(text: &str, rule: &str, line: usize) {
    let dir = workspace();
    let out = import(dir.path(), text, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("<stdin>:{line}:")) && stderr.contains(&format!("[{rule}]")),
        "expected {rule} at line {line}: {stderr}"
    );
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(stored(dir.path()).is_empty(), "a file was written");
}

fn line_of(text: &str, needle: &str) -> usize {
    let at = text.find(needle).expect("needle in text");
    text[..at].matches('\n').count() + 1
}

#[test]
fn missing_section_is_refused() {
    let text = VALID.replace("## Known Issues\n(none)\n\n", "");
    assert_refused(&text, "session/sections", line_of(&text, "## Changes Made"));
}

#[test]
fn out_of_order_sections_are_refused() {
    let text = VALID.replace(
        "## Constraints\n- memlint never runs the `git` program\n\n## Dependencies\n(none)\n",
        "## Dependencies\n(none)\n\n## Constraints\n- memlint never runs the `git` program\n",
    );
    assert_ne!(text, VALID);
    assert_refused(&text, "session/sections", line_of(&text, "## Constraints"));
}

#[test]
fn relative_path_is_refused() {
    let text = VALID.replace("- /home/dev/memlint/src/git.rs", "- src/git.rs");
    assert_refused(
        &text,
        "session/absolute-path",
        line_of(&text, "- src/git.rs"),
    );
}

#[test]
fn relative_project_root_is_refused() {
    let text = VALID.replace("\n/home/dev/memlint\n", "\nhome/dev/memlint\n");
    assert_refused(
        &text,
        "session/absolute-path",
        line_of(&text, "home/dev/memlint\n"),
    );
}

#[test]
fn bad_plan_source_is_refused() {
    let text = VALID.replace("### Source: workflow (IMPL_PLAN.md)", "### Source: memory");
    assert_refused(&text, "session/plan-source", line_of(&text, "### Source:"));
}

#[test]
fn missing_plan_source_is_refused() {
    let text = VALID.replace("### Source: workflow (IMPL_PLAN.md)\n", "");
    assert_refused(
        &text,
        "session/plan-source",
        line_of(&text, "## Execution Plan"),
    );
}

#[test]
fn too_few_working_files_are_refused() {
    let text = VALID.replace(
        "- /home/dev/memlint/tests/index.rs (role: freshness tests)\n",
        "",
    );
    assert_refused(
        &text,
        "session/working-files",
        line_of(&text, "## Working Files"),
    );
}

#[test]
fn decision_without_reason_is_refused() {
    let text = VALID.replace(
        "- Key the index by content: mtime alone misses edits within one second",
        "- Key the index by content",
    );
    assert_refused(
        &text,
        "session/decision-reason",
        line_of(&text, "- Key the index by content"),
    );
}

#[test]
fn empty_project_root_is_refused() {
    let text = VALID.replace("\n/home/dev/memlint\n", "\n(none)\n");
    assert_refused(
        &text,
        "session/absolute-path",
        line_of(&text, "## Project Root"),
    );
}

#[test]
fn empty_input_is_refused() {
    let dir = workspace();
    let out = import(dir.path(), "\n  \n", &["--force"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty"));
    assert!(stored(dir.path()).is_empty());
}

#[test]
fn secrets_are_refused_even_with_force() {
    let dir = workspace();
    let text = VALID.replace(
        "## Notes\n(none)\n",
        "## Notes\nkey AKIAIOSFODNN7EXAMPLE for the bucket\n",
    );
    let out = import(dir.path(), &text, &["--force"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("[secrets/detected]"), "{stderr}");
    assert!(!stderr.contains("AKIAIOSFODNN7EXAMPLE"), "{stderr}");
    assert!(stored(dir.path()).is_empty());
}

#[test]
fn force_stores_a_text_with_problems() {
    let dir = workspace();
    let text = VALID.replace("## Known Issues\n(none)\n\n", "");
    let out = import(dir.path(), &text, &["--force", "--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("[session/sections]"), "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let id = id_of(&json);
    assert_eq!(export(dir.path(), &id), text.as_bytes());
    // `check` still reports the problem in the stored record.
    memlint(dir.path()).arg("check").assert().code(1);
}

#[test]
fn four_imports_give_four_files() {
    let dir = workspace();
    let ids: Vec<String> = (0..4)
        .map(|_| id_of(&import_ok(dir.path(), VALID, &[])))
        .collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 4, "{ids:?}");
    assert_eq!(stored(dir.path()).len(), 4);
    assert_lints_clean(dir.path());
}

#[test]
fn imports_within_one_second_take_the_next_free_seconds() {
    let dir = workspace();
    let sessions = dir.path().join("memory/sessions");
    fs::create_dir_all(&sessions).expect("sessions dir");
    // Occupy every id from one minute ago to one minute ahead, so the four
    // imports below all start from a taken second, whatever the clock says.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs() as i64;
    let mut taken = Vec::new();
    for secs in now - 60..=now + 60 {
        let id = cmem(secs);
        fs::write(sessions.join(format!("{id}.md")), "placeholder\n").expect("placeholder");
        taken.push(id);
    }
    let children: Vec<std::process::Child> = (0..4)
        .map(|_| {
            let mut c = std::process::Command::new(BIN);
            c.arg("--root")
                .arg(dir.path())
                .args(["compact", "import", "--format", "json"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = c.spawn().expect("spawn");
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(VALID.as_bytes())
                .expect("write stdin");
            child
        })
        .collect();
    let mut ids: Vec<String> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().expect("wait");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
            id_of(&json)
        })
        .collect();
    ids.sort();
    let expected: Vec<String> = (now + 61..now + 65).map(cmem).collect();
    assert_eq!(ids, expected);
    // The placeholders are untouched.
    for id in &taken {
        let text = fs::read_to_string(sessions.join(format!("{id}.md"))).expect("placeholder");
        assert_eq!(text, "placeholder\n");
    }
    assert_eq!(stored(dir.path()).len(), taken.len() + 4);
}

/// `CMEM-YYYYMMDD-HHMMSS` of a Unix time (UTC).
fn cmem(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "CMEM-{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[test]
fn export_round_trips_byte_for_byte() {
    let dir = workspace();
    for text in [
        VALID.to_string(),
        // No final newline, trailing spaces, a blank line at the start.
        format!("\n{}", VALID.trim_end()),
        VALID.replace("(role: file walk)", "(role: file walk)   "),
        CJK.to_string(),
    ] {
        let id = id_of(&import_ok(dir.path(), &text, &[]));
        assert_eq!(export(dir.path(), &id), text.as_bytes());
    }
    assert_lints_clean(dir.path());
}

#[test]
fn crlf_text_is_kept_and_only_warned_about() {
    let dir = workspace();
    let text = VALID.replace('\n', "\r\n");
    let out = import(dir.path(), &text, &["--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("warning[format/crlf]"), "{stderr}");
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(export(dir.path(), &id_of(&json)), text.as_bytes());
}

#[test]
fn a_leading_byte_order_mark_is_dropped() {
    let dir = workspace();
    let json = import_ok(dir.path(), &format!("\u{feff}{VALID}"), &[]);
    assert_eq!(export(dir.path(), &id_of(&json)), VALID.as_bytes());
    assert_lints_clean(dir.path());
}

#[test]
fn description_and_tags_survive_yaml() {
    let dir = workspace();
    let description = "Fix: the 'quoted' \"parts\" #2\nsecond line\twith tab \\ and D:\\x";
    import_ok(
        dir.path(),
        VALID,
        &[
            "--description",
            description,
            "--tags",
            "yes, null ,1e3,needs review,a-b,,a-b",
        ],
    );
    let list = list_json(dir.path());
    assert_eq!(list["sessions"][0]["description"], description);
    let human = memlint(dir.path())
        .args(["compact", "list"])
        .output()
        .expect("memlint runs");
    let human = String::from_utf8(human.stdout).expect("UTF-8");
    assert!(
        human.contains("[yes, null, 1e3, needs review, a-b]"),
        "{human}"
    );
    assert_lints_clean(dir.path());
}

#[test]
fn list_is_newest_first_with_description_and_tags() {
    let dir = workspace();
    let sessions = dir.path().join("memory/sessions");
    fs::create_dir_all(&sessions).expect("sessions dir");
    let record = |id: &str, created: &str, description: &str| {
        format!(
            "---\nid: {id}\ncreated: {created}\nproject_root: '/p'\ndescription: '{description}'\ntags: [t-{description}]\n---\n{VALID}"
        )
    };
    // Written out of order; the offset makes the last one the oldest (08:30Z).
    for (id, created, description) in [
        ("CMEM-20261101-100000", "2026-11-01T10:00:00Z", "middle"),
        ("CMEM-20261101-090000", "2026-11-01T09:00:00Z", "oldest"),
        ("CMEM-20261101-120000", "2026-11-01T12:00:00Z", "newer"),
        (
            "CMEM-20261101-110000",
            "2026-11-01T17:30:00+09:00",
            "earlier",
        ),
    ] {
        fs::write(
            sessions.join(format!("{id}.md")),
            record(id, created, description),
        )
        .expect("record");
    }
    let list = list_json(dir.path());
    let sessions_json = list["sessions"].as_array().expect("sessions");
    let ids: Vec<&str> = sessions_json
        .iter()
        .map(|s| s["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        ids,
        [
            "CMEM-20261101-120000",
            "CMEM-20261101-100000",
            "CMEM-20261101-090000",
            "CMEM-20261101-110000",
        ]
    );
    // Exactly the fields SPEC §4 lists.
    for s in sessions_json {
        let mut keys: Vec<&str> = s
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort();
        assert_eq!(keys, ["created", "description", "id", "path"]);
    }
    assert_eq!(
        sessions_json[0]["path"],
        "memory/sessions/CMEM-20261101-120000.md"
    );
    assert_eq!(sessions_json[0]["created"], "2026-11-01T12:00:00Z");
    let human = memlint(dir.path())
        .args(["compact", "list"])
        .output()
        .expect("memlint runs");
    let human = String::from_utf8(human.stdout).expect("UTF-8");
    let lines: Vec<&str> = human.lines().collect();
    assert_eq!(lines.len(), 4, "{human}");
    assert!(lines[0].starts_with("CMEM-20261101-120000  2026-11-01T12:00:00Z  newer"));
    assert!(lines[0].ends_with("[t-newer]"), "{human}");
    assert!(lines[3].contains("earlier"));
}

#[test]
fn list_of_imports_is_newest_first() {
    let dir = workspace();
    let first = id_of(&import_ok(dir.path(), VALID, &["--description", "one"]));
    let second = id_of(&import_ok(dir.path(), VALID, &["--description", "two"]));
    let list = list_json(dir.path());
    assert_eq!(list["sessions"][0]["id"], second.as_str());
    assert_eq!(list["sessions"][1]["id"], first.as_str());
    assert_eq!(list["sessions"][0]["description"], "two");
}

#[test]
fn list_skips_unreadable_records_with_a_warning() {
    let dir = workspace();
    import_ok(dir.path(), VALID, &[]);
    fs::write(
        dir.path().join("memory/sessions/CMEM-20200101-000000.md"),
        "no front matter\n",
    )
    .expect("broken record");
    let out = memlint(dir.path())
        .args(["compact", "list", "--format", "json"])
        .output()
        .expect("memlint runs");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("CMEM-20200101-000000.md") && stderr.contains("warning"),
        "{stderr}"
    );
    let list: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(list["sessions"].as_array().map(Vec::len), Some(1));
}

#[test]
fn list_of_an_empty_workspace() {
    let dir = workspace();
    let list = list_json(dir.path());
    assert_eq!(list, serde_json::json!({"sessions": []}));
    memlint(dir.path())
        .args(["compact", "list"])
        .assert()
        .success()
        .stdout("no session memories in memory/sessions\n");
}

#[test]
fn export_of_a_missing_id_exits_1() {
    let dir = workspace();
    import_ok(dir.path(), VALID, &[]);
    let out = memlint(dir.path())
        .args(["compact", "export", "--id", "CMEM-20000101-000000"])
        .output()
        .expect("memlint runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no session memory `CMEM-20000101-000000`"),
        "{stderr}"
    );
}

#[test]
fn export_of_a_malformed_id_exits_2() {
    let dir = workspace();
    for id in ["CMEM-2026", "../../etc/passwd", "cmem-20261101-101500"] {
        let out = memlint(dir.path())
            .args(["compact", "export", "--id", id])
            .output()
            .expect("memlint runs");
        assert_eq!(out.status.code(), Some(2), "{id}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a session id"));
    }
}

#[test]
fn non_blocking_warnings_are_shown_and_the_import_proceeds() {
    let dir = workspace();
    let text = VALID.replace(
        "Ran `cargo test --test index`: 12 passed.",
        "Ran the tests yesterday.",
    );
    let out = import(dir.path(), &text, &["--description", "done today"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let line = line_of(&text, "Ran the tests yesterday.");
    assert!(
        stderr.contains(&format!("<stdin>:{line}:15: warning[date/relative]")),
        "{stderr}"
    );
    assert!(
        stderr.contains("--description: warning[date/relative]"),
        "{stderr}"
    );
    assert_eq!(stored(dir.path()).len(), 1);
}

#[test]
fn import_json_on_refusal_keeps_stdout_empty() {
    let dir = workspace();
    let text = VALID.replace("### Source: workflow (IMPL_PLAN.md)", "### Source: memory");
    let out = import(dir.path(), &text, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

#[test]
fn invalid_utf8_is_located_in_the_text_given() {
    let ws = workspace();
    let out = memlint(ws.path())
        .args(["compact", "import"])
        .write_stdin(&b"bad\xff\n"[..])
        .output()
        .expect("memlint runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("<stdin>:1:4: error[format/encoding]") && err.contains("(byte 3 is 0xff)"),
        "{err}"
    );
    assert!(stored(ws.path()).is_empty());
}
