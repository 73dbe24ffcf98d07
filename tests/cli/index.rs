//! `.memlint/index` (SPEC §7): the index survives being deleted, truncated
//! to half or overwritten with garbage (each time it is rebuilt silently and
//! `check` reports the same), an edit between two runs is seen, a
//! configuration change invalidates cached diagnostics, and `memlint index`
//! says what it did.

use crate::common;

use memlint::engine::scan::{self, Options};
use memlint::io::stat;
use memlint::model::workspace::Workspace;
use memlint::store::table;
use serde_json::Value;
use std::path::{Path, PathBuf};

use common::{age, age_directories, memlint, memlint_with};

fn decision(title: &str, status: &str, extra: &str) -> String {
    format!(
        "---\ntitle: {title}\nstatus: {status}\ndate: 2026-11-01\nsources:\n  - https://example.com/adr\n{extra}---\n\nWhy it was decided.\n"
    )
}

/// A small workspace with one warning (`date/relative`), one error
/// (`status/dangling-target`), an invalid UTF-8 file and a clean record.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().canonicalize().expect("canonical");
    let write = |rel: &str, bytes: &[u8]| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    };
    write(
        "memory/decisions/use-gix.md",
        decision("Use gix", "active", "").as_bytes(),
    );
    write(
        "memory/decisions/use-git2.md",
        decision("Use git2", "replaced", "replaced_by: use-gitoxide\n").as_bytes(),
    );
    write(
        "knowledge/index-pitfalls.md",
        b"---\ntitle: Index pitfalls\ndescription: What went wrong yesterday\nmodel_invocation: false\ndate: 2026-11-01\nsources:\n  - https://example.com/x\n---\n\nBody.\n",
    );
    write(
        "memory/decisions/broken-bytes.md",
        b"---\ntitle: \xff\n---\n",
    );
    (dir, root)
}

/// [`workspace`], loaded, with its files.
fn loaded_workspace() -> (tempfile::TempDir, PathBuf, Workspace, Vec<String>) {
    let (dir, root) = workspace();
    let ws = memlint::engine::workspace::load(
        &memlint::engine::workspace::Surroundings {
            cwd: &root,
            env: &|_| None,
        },
        Some(&root),
        None,
    )
    .expect("workspace");
    let files = memlint::io::walk::walk(&ws).files;
    (dir, root, ws, files)
}

fn check_json(root: &Path) -> Value {
    let run = memlint(root, &["check", "--format", "json"]);
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", run.stdout, run.stderr))
}

fn index_file(root: &Path) -> PathBuf {
    root.join(".memlint").join("index")
}

/// The paths of a table's entries, in order.
fn paths_of(table: &table::Table) -> Vec<&str> {
    table
        .entries
        .iter()
        .map(|e| e.report.path.as_str())
        .collect()
}

/// The index on disk decodes and lists every file of the workspace.
fn assert_intact(root: &Path) {
    let bytes = std::fs::read(index_file(root)).expect("the index was written");
    let table = table::decode(&bytes).expect("the index decodes");
    assert_eq!(
        paths_of(&table),
        vec![
            "knowledge/index-pitfalls.md",
            "memory/decisions/broken-bytes.md",
            "memory/decisions/use-git2.md",
            "memory/decisions/use-gix.md",
        ]
    );
}

fn rules(json: &Value) -> Vec<(String, String)> {
    json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or("").to_string(),
                d["path"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

const BASELINE: &[(&str, &str)] = &[
    ("date/relative", "knowledge/index-pitfalls.md"),
    ("format/encoding", "memory/decisions/broken-bytes.md"),
    ("status/dangling-target", "memory/decisions/use-git2.md"),
];

#[test]
fn first_and_warm_runs_agree() {
    let (_dir, root) = workspace();
    assert!(!root.join(".memlint").exists());
    let cold = check_json(&root);
    assert_eq!(rules(&cold), pairs(BASELINE));
    assert_intact(&root);
    let warm = check_json(&root);
    assert_eq!(cold, warm);
    // The human output, which shows source lines, is the same from the index.
    let a = memlint(&root, &["check"]).stdout;
    let b = memlint(&root, &["check"]).stdout;
    assert_eq!(a, b);
    assert!(a.contains("What went wrong yesterday"), "{a}");
    // The directory keeps itself out of commits.
    let ignore = std::fs::read_to_string(root.join(".memlint/.gitignore")).expect(".gitignore");
    assert_eq!(ignore, "*\n");
}

#[test]
fn survives_deletion() {
    let (_dir, root) = workspace();
    let before = check_json(&root);
    std::fs::remove_dir_all(root.join(".memlint")).expect("rm -r .memlint");
    assert_eq!(check_json(&root), before);
    assert_intact(&root);
}

#[test]
fn survives_truncation_to_half() {
    let (_dir, root) = workspace();
    let before = check_json(&root);
    let bytes = std::fs::read(index_file(&root)).expect("index");
    std::fs::write(index_file(&root), &bytes[..bytes.len() / 2]).expect("truncate");
    let run = memlint(&root, &["check", "--format", "json"]);
    assert!(run.stderr.is_empty(), "rebuilt silently: {}", run.stderr);
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout).expect("JSON"),
        before
    );
    assert_intact(&root);
    assert_eq!(
        std::fs::metadata(index_file(&root)).expect("index").len(),
        bytes.len() as u64
    );
}

#[test]
fn survives_garbage() {
    let (_dir, root) = workspace();
    let before = check_json(&root);
    let garbage: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(index_file(&root), &garbage).expect("garbage");
    let run = memlint(&root, &["check", "--format", "json"]);
    assert!(run.stderr.is_empty(), "rebuilt silently: {}", run.stderr);
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout).expect("JSON"),
        before
    );
    assert_intact(&root);
    // An empty file, and a valid header with nothing after it, too.
    std::fs::write(index_file(&root), b"").expect("empty");
    assert_eq!(check_json(&root), before);
    std::fs::write(index_file(&root), b"MLINDEX\0").expect("header only");
    assert_eq!(check_json(&root), before);
    assert_intact(&root);
}

#[test]
fn an_edit_between_two_runs_is_seen() {
    let (_dir, root) = workspace();
    assert_eq!(rules(&check_json(&root)), pairs(BASELINE));
    // Same size, written right after the previous run: only the content
    // tells it apart.
    let path = root.join("knowledge/index-pitfalls.md");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replace("yesterday", "at launch")).expect("edit");
    assert_eq!(
        rules(&check_json(&root)),
        pairs(&[
            ("format/encoding", "memory/decisions/broken-bytes.md"),
            ("status/dangling-target", "memory/decisions/use-git2.md"),
        ])
    );
    // Fix the dangling target by adding the record it names.
    std::fs::write(
        root.join("memory/decisions/use-gitoxide.md"),
        decision("Use gitoxide", "active", ""),
    )
    .expect("add");
    std::fs::remove_file(root.join("memory/decisions/broken-bytes.md")).expect("rm");
    assert_eq!(rules(&check_json(&root)), vec![]);
    // Few changes: written as a delta next to the index file.
    assert!(root.join(".memlint/index.delta").is_file());
    let table = table::read(&root).expect("index and delta load");
    assert_eq!(
        paths_of(&table),
        vec![
            "knowledge/index-pitfalls.md",
            "memory/decisions/use-git2.md",
            "memory/decisions/use-gitoxide.md",
            "memory/decisions/use-gix.md",
        ]
    );
}

#[test]
fn a_restored_mtime_does_not_hide_an_edit() {
    let (_dir, root) = workspace();
    check_json(&root);
    let path = root.join("memory/decisions/use-gix.md");
    let mtime = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .expect("mtime");
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, text.replace("status: active", "status: activ3")).expect("edit");
    let file = std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open");
    file.set_modified(mtime).expect("restore mtime");
    drop(file);
    let found = rules(&check_json(&root));
    assert!(
        found.contains(&(
            "frontmatter/type".to_string(),
            "memory/decisions/use-gix.md".to_string()
        )),
        "{found:?}"
    );
}

#[test]
fn a_record_growing_past_the_size_limit_and_back_is_seen() {
    let (_dir, root) = workspace();
    std::fs::write(root.join(".memlint.yml"), "max_file_bytes: 400\n").expect("config");
    let too_large = ("format/too-large", "memory/decisions/use-gix.md");
    assert_eq!(rules(&check_json(&root)), pairs(BASELINE));
    let path = root.join("memory/decisions/use-gix.md");
    let text = std::fs::read_to_string(&path).expect("read");
    let long = format!("{text}\n{}\n", "More of the reasoning. ".repeat(30));
    std::fs::write(&path, &long).expect("grow");
    let mut expected = BASELINE.to_vec();
    expected.push(too_large);
    assert_eq!(rules(&check_json(&root)), pairs(&expected));
    // Read cold, the same.
    std::fs::remove_dir_all(root.join(".memlint")).expect("rm index");
    assert_eq!(rules(&check_json(&root)), pairs(&expected));
    std::fs::write(&path, &text).expect("shrink");
    assert_eq!(rules(&check_json(&root)), pairs(BASELINE));
}

/// A FIFO named like a record is reported as unreadable, or skipped by
/// `fmt`; nothing waits for a writer (each run is killed after 30 s
/// otherwise).
#[cfg(unix)]
/// Runs memlint in `root` with `stdin`, failing the test when it has not
/// exited after 30 seconds (it waited on a FIFO). Exit code, standard
/// output, and both outputs together.
fn run_bounded(root: &Path, args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let out = common::Memlint::new(root)
        .args(args)
        .stdin(stdin)
        .timeout(std::time::Duration::from_secs(30))
        .output();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let both = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code(), stdout, both)
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().expect("utf-8 path")).expect("c string");
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

#[test]
fn fifos_in_place_of_the_caches_are_not_waited_on() {
    let (_dir, root) = workspace();
    let (code, want, out) = run_bounded(&root, &["check", "--format", "json"], "");
    assert_eq!(code, Some(1), "{out}");
    run_bounded(&root, &["search", "gix"], "");
    for name in ["index", "index.delta", "listing", "slugs", "search"] {
        let cache = root.join(".memlint").join(name);
        let _ = std::fs::remove_file(&cache);
        mkfifo(&cache);
        let (code, got, out) = run_bounded(&root, &["check", "--format", "json"], "");
        assert_eq!((code, &got), (Some(1), &want), "{name}: {out}");
        let (code, _, out) = run_bounded(&root, &["search", "gix"], "");
        assert_eq!(code, Some(0), "{name}: {out}");
        assert!(out.contains("use-gix.md"), "{name}: {out}");
        let (code, _, out) = run_bounded(&root, &["context"], "");
        assert_eq!(code, Some(0), "{name}: {out}");
        let _ = std::fs::remove_file(&cache);
    }
    // The configuration too: a clear error, not a wait.
    mkfifo(&root.join(".memlint.yml"));
    let (code, _, out) = run_bounded(&root, &["check"], "");
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains(".memlint.yml") && out.contains("not a regular file"),
        "{out}"
    );
}

#[test]
fn a_fifo_in_place_of_a_record_is_reported_not_waited_on() {
    let (_dir, root) = workspace();
    let fifo = root.join("memory/decisions/a-pipe.md");
    mkfifo(&fifo);
    let run = |args: &[&str], stdin: &str| run_bounded(&root, args, stdin);
    let (code, stdout, out) = run(&["check", "--format", "json"], "");
    assert_eq!(code, Some(1), "{out}");
    let json: Value = serde_json::from_str(&stdout).expect("JSON report");
    let mut want = pairs(BASELINE);
    want.push((
        "format/encoding".to_string(),
        "memory/decisions/a-pipe.md".to_string(),
    ));
    want.sort();
    let mut got = rules(&json);
    got.sort();
    assert_eq!(got, want);
    let (code, _, out) = run(&["check"], "");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("a-pipe.md") && out.contains("cannot be read: not a regular file"),
        "{out}"
    );
    let (_, _, out) = run(&["fmt", "--check"], "");
    assert!(
        out.contains("a-pipe.md") && out.contains("not a regular file"),
        "{out}"
    );
    let event = format!(
        r#"{{"tool_name": "Write", "tool_input": {{"file_path": "{}"}}}}"#,
        fifo.display()
    );
    let (code, _, out) = run(&["hook", "post-write"], &event);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("cannot be read"), "{out}");
    // Search reads records to index them, to verify them and for snippets.
    let (code, _, out) = run(&["search", "gix"], "");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("use-gix.md"), "{out}");
    let (code, _, out) = run(&["search", "gix"], "");
    assert_eq!(code, Some(0), "{out}");
    let (code, _, out) = run(&["context"], "");
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn a_configuration_change_invalidates_cached_diagnostics() {
    let (_dir, root) = workspace();
    assert_eq!(rules(&check_json(&root)), pairs(BASELINE));
    std::fs::write(root.join(".memlint.yml"), "rules: {date/relative: off}\n").expect("config");
    assert_eq!(
        rules(&check_json(&root)),
        pairs(&[
            ("format/encoding", "memory/decisions/broken-bytes.md"),
            ("status/dangling-target", "memory/decisions/use-git2.md"),
        ])
    );
    std::fs::write(root.join(".memlint.yml"), "rules: {date/relative: error}\n").expect("config");
    let json = check_json(&root);
    assert_eq!(rules(&json), pairs(BASELINE));
    assert_eq!(json["diagnostics"][0]["severity"], "error");
    // `--config` counts as the effective configuration too.
    std::fs::remove_file(root.join(".memlint.yml")).expect("rm");
    std::fs::write(root.join("other.yml"), "rules: {format/encoding: off}\n").expect("config");
    let run = memlint(
        &root,
        &["check", "--format", "json", "--config", "other.yml"],
    );
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(
        rules(&json),
        pairs(&[
            ("date/relative", "knowledge/index-pitfalls.md"),
            ("status/dangling-target", "memory/decisions/use-git2.md"),
        ])
    );
    assert_eq!(json["diagnostics"][0]["severity"], "warning");
}

#[test]
fn index_command_rebuilds_and_reports() {
    let (_dir, root) = workspace();
    let run = memlint(&root, &["index"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let re =
        regex::Regex::new(r"^Indexed 4 records in 4 files \(4 re-parsed, 4 tokenized for search\) in \d+\.\d\d s\.\n$")
            .expect("regex");
    assert!(re.is_match(&run.stdout), "{:?}", run.stdout);
    assert!(
        run.stderr.is_empty(),
        "no progress bar when piped: {:?}",
        run.stderr
    );
    assert_intact(&root);
    // A rebuild is forced: every file is parsed again.
    let again = memlint(&root, &["index"]);
    assert!(re.is_match(&again.stdout), "{:?}", again.stdout);
    assert!(memlint(&root, &["index", "-q"]).stdout.is_empty());
}

#[test]
fn works_without_a_writable_index() {
    let (_dir, root) = workspace();
    // `.memlint` is a file: nothing can be written under it.
    std::fs::write(root.join(".memlint"), "not a directory\n").expect("write");
    let json = check_json(&root);
    assert_eq!(rules(&json), pairs(BASELINE));
    let run = memlint(&root, &["index"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains(".memlint"), "{}", run.stderr);
}

#[test]
fn unchanged_files_are_not_read_again() {
    let (_dir, root, ws, files) = loaded_workspace();
    let first = scan::refresh(&ws, &files, &Options::default());
    assert_eq!(first.reparsed, 4);
    assert!(matches!(first.saved, Ok(true)));
    // Files modified just before a scan are verified by content on the next
    // run; pretend the scan happened well after the files were written.
    let key = memlint::io::cache::key(&ws.config);
    let mut table = table::load(&root, key).expect("stored");
    table.scanned_at += 10 * stat::RACY_NS;
    table::save(&ws, &table).expect("save");
    let second = scan::refresh(&ws, &files, &Options::default());
    assert_eq!(second.reparsed, 0);
    assert!(matches!(second.saved, Ok(false)), "nothing to write");
    assert_eq!(second.reports.len(), 4);
    assert_eq!(
        second
            .reports
            .iter()
            .map(|r| r.diagnostics.len())
            .sum::<usize>(),
        2,
        "the per-file findings come from the index"
    );
    // Without the aging, the racy files are hashed, found equal, not re-linted.
    let mut table = table::load(&root, key).expect("stored");
    table.scanned_at -= 10 * stat::RACY_NS;
    table.scanned_at = table.scanned_at.max(now_ns());
    table::save(&ws, &table).expect("save");
    let third = scan::refresh(&ws, &files, &Options::default());
    assert_eq!(third.reparsed, 0);
    let forced = scan::refresh(
        &ws,
        &files,
        &Options {
            force: true,
            progress: None,
        },
    );
    assert_eq!(forced.reparsed, 4);
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// (path, diagnostics, record fields) of each report, for comparisons.
fn essence<R: std::borrow::Borrow<memlint::lint::FileReport>>(
    reports: &[R],
) -> Vec<(
    String,
    Vec<memlint::model::diagnostic::Diagnostic>,
    memlint::lint::RecordInfo,
)> {
    reports
        .iter()
        .map(|r| {
            let r = r.borrow();
            (r.path.clone(), r.diagnostics.clone(), r.info.clone())
        })
        .collect()
}

#[test]
fn deltas_agree_with_linting_from_scratch() {
    let (_dir, root) = workspace();
    let ws = memlint::engine::workspace::load(
        &memlint::engine::workspace::Surroundings {
            cwd: &root,
            env: &|_| None,
        },
        Some(&root),
        None,
    )
    .expect("workspace");
    let opts = Options::default();
    let delta = root.join(".memlint/index.delta");
    let step = |what: &str| {
        let files = memlint::io::walk::walk(&ws).files;
        let got = scan::refresh(&ws, &files, &opts);
        assert!(got.saved.is_ok(), "{what}: {:?}", got.saved);
        assert_eq!(
            essence(&got.reports),
            essence(&memlint::engine::workspace::lint(&ws, &files)),
            "after {what}"
        );
        // What was stored reads back the same.
        let stored = table::read(&root).expect("stored");
        let stored: Vec<Box<memlint::lint::FileReport>> =
            stored.entries.into_iter().map(|e| e.report).collect();
        assert_eq!(
            essence(&stored),
            essence(&got.reports),
            "stored after {what}"
        );
    };
    step("the first run");
    assert!(!delta.exists());
    let write = |rel: &str, text: &str| std::fs::write(root.join(rel), text).expect("write");
    write(
        "memory/decisions/use-gix.md",
        &decision("Use gix now", "active", ""),
    );
    step("an edit");
    assert!(delta.is_file(), "one change is a delta");
    write(
        "memory/decisions/use-gitoxide.md",
        &decision("Use gitoxide", "active", ""),
    );
    step("an addition");
    std::fs::remove_file(root.join("memory/decisions/broken-bytes.md")).expect("rm");
    step("a removal");
    std::fs::write(&delta, b"MLDELTA\0 garbage").expect("garbage");
    step("a damaged delta");
    write(
        "memory/decisions/broken-bytes.md",
        "---\ntitle: back\n---\n",
    );
    step("the removed file coming back");
    std::fs::remove_file(&delta).expect("rm delta");
    step("a deleted delta");
    let bytes = std::fs::read(index_file(&root)).expect("index");
    std::fs::write(index_file(&root), &bytes[..bytes.len() / 2]).expect("truncate");
    step("a truncated index with a delta beside it");
    assert!(!delta.exists(), "a rebuild drops the delta");
    std::fs::remove_file(root.join("knowledge/index-pitfalls.md")).expect("rm");
    write(
        "memory/decisions/use-git2.md",
        &decision("Use git2", "replaced", "replaced_by: use-gix\n"),
    );
    step("a removal and an edit");
}

#[test]
fn cached_slug_clusters_follow_the_slugs_and_the_ratio() {
    let (_dir, root) = workspace();
    let similar = |json: &Value| -> Vec<String> {
        json["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .filter(|d| d["rule"] == "slug/similar")
            .map(|d| d["path"].as_str().unwrap_or("").to_string())
            .collect()
    };
    // An active slug near a replaced one: a replaced record is no
    // near-duplicate (one replaced the other, as the rule advises).
    std::fs::write(
        root.join("memory/decisions/use-git3.md"),
        decision("Use git3", "active", ""),
    )
    .expect("write");
    assert!(similar(&check_json(&root)).is_empty());
    assert!(root.join(".memlint/slugs").is_file());
    // A new near-duplicate slug changes the set: the clusters are computed again.
    std::fs::write(
        root.join("memory/decisions/use-gix-v2.md"),
        decision("Use gix, again", "active", ""),
    )
    .expect("write");
    assert_eq!(
        similar(&check_json(&root)),
        vec!["memory/decisions/use-gix-v2.md"]
    );
    // A damaged cache is ignored.
    std::fs::write(root.join(".memlint/slugs"), b"MLSLUGS\0 garbage").expect("garbage");
    assert_eq!(
        similar(&check_json(&root)),
        vec!["memory/decisions/use-gix-v2.md"]
    );
    // A lower ratio makes `use-git2` and `use-gix` near-duplicates too.
    std::fs::write(root.join(".memlint.yml"), "similar_slug_ratio: 0.7\n").expect("config");
    assert_eq!(
        similar(&check_json(&root)),
        vec![
            "memory/decisions/use-gix-v2.md",
            "memory/decisions/use-gix.md"
        ]
    );
    std::fs::remove_file(root.join("memory/decisions/use-gix-v2.md")).expect("rm");
    std::fs::remove_file(root.join(".memlint.yml")).expect("rm");
    assert!(similar(&check_json(&root)).is_empty());
}

#[test]
fn the_run_that_creates_memlint_stores_the_listing() {
    let (_dir, root) = workspace();
    let listing = root.join(".memlint/listing");
    age_directories(&root);
    // Creating `.memlint/` modifies the root just before the walk; the
    // file system's clock shows that nothing changed after that.
    check_json(&root);
    assert!(listing.is_file(), "the first run stores the listing");
    // A directory stamped later than the walk began is not trusted (here
    // stamped in the future, as a change during the walk would be).
    std::fs::remove_dir_all(root.join(".memlint")).expect("rm");
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    std::fs::File::open(root.join("memory/decisions"))
        .and_then(|f| f.set_modified(later))
        .expect("stamp");
    assert_eq!(check_json(&root)["summary"]["files"], 4);
    assert!(!listing.exists(), "no listing while a directory is racy");
    // Once it is older than the walk, it is trusted.
    age_directories(&root);
    check_json(&root);
    assert!(listing.is_file(), "stored once nothing is racy");
}

#[test]
fn the_stored_listing_sees_added_removed_and_ignored_files() {
    let (_dir, root) = workspace();
    let paths = |json: &Value| -> Vec<String> {
        let mut v: Vec<String> = rules(json).into_iter().map(|(_, p)| p).collect();
        v.dedup();
        v
    };
    let listing = root.join(".memlint/listing");
    check_json(&root);
    age_directories(&root);
    assert_eq!(check_json(&root)["summary"]["files"], 4);
    assert!(listing.is_file(), "aged directories are trusted");
    // The stored listing is used while nothing changed.
    assert_eq!(check_json(&root)["summary"]["files"], 4);
    // A new file changes its directory.
    std::fs::write(
        root.join("memory/decisions/Bad_Name.md"),
        decision("Bad", "active", ""),
    )
    .expect("write");
    let json = check_json(&root);
    assert_eq!(json["summary"]["files"], 5);
    assert!(paths(&json).contains(&"memory/decisions/Bad_Name.md".to_string()));
    age_directories(&root);
    check_json(&root);
    // A new directory (a banned one) changes its parent.
    std::fs::create_dir_all(root.join("memory/workflow")).expect("mkdir");
    std::fs::write(root.join("memory/workflow/plan.md"), "x\n").expect("write");
    let json = check_json(&root);
    assert_eq!(json["summary"]["files"], 6);
    assert!(paths(&json).contains(&"memory/workflow/plan.md".to_string()));
    age_directories(&root);
    check_json(&root);
    // An ignore file appearing at the root changes what is listed.
    std::fs::write(
        root.join(".memlintignore"),
        "memory/workflow/\nBad_Name.md\n",
    )
    .expect("write");
    age_directories(&root);
    assert_eq!(check_json(&root)["summary"]["files"], 4);
    // Editing it in place (the root directory unchanged) is seen too.
    std::fs::write(root.join(".memlintignore"), "memory/workflow/\n").expect("write");
    age_directories(&root);
    assert_eq!(check_json(&root)["summary"]["files"], 5);
    // A removal.
    std::fs::remove_file(root.join("memory/decisions/Bad_Name.md")).expect("rm");
    assert_eq!(check_json(&root)["summary"]["files"], 4);
    // A directory left out as ignored is not watched, yet what appears in
    // it shows once the ignore rule goes.
    std::fs::write(root.join(".memlintignore"), "memory/workflow/\n").expect("write");
    age(&root.join(".memlintignore"));
    age_directories(&root);
    std::fs::remove_file(&listing).expect("rm");
    assert_eq!(check_json(&root)["summary"]["files"], 4);
    assert!(
        listing.is_file(),
        "stored with the ignored directory left out"
    );
    std::fs::write(root.join("memory/workflow/later.md"), "x\n").expect("write");
    std::fs::create_dir_all(root.join("memory/workflow/deeper")).expect("mkdir");
    std::fs::write(root.join("memory/workflow/deeper/plan.md"), "x\n").expect("write");
    assert_eq!(check_json(&root)["summary"]["files"], 4);
    let stored = std::fs::read(&listing).expect("read");
    let holds = |name: &[u8]| stored.windows(name.len()).any(|w| w == name);
    assert!(
        holds(b"memory/decisions/use-gix.md"),
        "paths are stored whole"
    );
    for name in [&b"later.md"[..], b"deeper/plan.md"] {
        assert!(!holds(name), "an ignored file got into the stored listing");
    }
    std::fs::write(root.join(".memlintignore"), "nothing.md\n").expect("write");
    let json = check_json(&root);
    assert_eq!(json["summary"]["files"], 7);
    for p in [
        "memory/workflow/plan.md",
        "memory/workflow/later.md",
        "memory/workflow/deeper/plan.md",
    ] {
        assert!(paths(&json).contains(&p.to_string()), "{p}");
    }
    // A symbolic link under the roots keeps the listing from being stored.
    #[cfg(unix)]
    {
        std::fs::remove_dir_all(root.join("memory/workflow")).expect("rm");
        std::fs::remove_file(root.join(".memlintignore")).expect("rm");
        std::fs::remove_file(&listing).expect("rm");
        std::os::unix::fs::symlink(root.join("memory/decisions"), root.join("memory/linked"))
            .expect("symlink");
        age_directories(&root);
        check_json(&root);
        assert!(!listing.exists(), "no listing with a link under the roots");
        std::fs::remove_file(root.join("memory/linked")).expect("rm");
        age_directories(&root);
        assert_eq!(check_json(&root)["summary"]["files"], 4);
        assert!(listing.is_file());
    }
    // A damaged listing is ignored.
    age_directories(&root);
    check_json(&root);
    std::fs::write(&listing, b"MLLIST\0\0 garbage").expect("garbage");
    assert_eq!(check_json(&root)["summary"]["files"], 4);
}

/// The entry of `rel` in the stored table.
fn stored_entry(root: &Path, rel: &str) -> table::Entry {
    let table = table::read(root).expect("stored table");
    table
        .entries
        .into_iter()
        .find(|e| e.report.path == rel)
        .unwrap_or_else(|| panic!("{rel} is not in the table"))
}

/// Replaces `path` by a new file (a new inode, new times) with `bytes`, its
/// mtime an hour back so that git's index does not find it racy.
fn rewrite(path: &Path, bytes: &[u8]) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).expect("write");
    std::fs::rename(&tmp, path).expect("rename");
    age(path);
}

/// Commits every file under `root`, aged so that git's index does not
/// find them racy, then writes `memory/decisions/untracked.md` into the
/// workspace, which git does not know.
fn commit_all_but_one_record(root: &Path, ws_root: &Path) {
    for e in walkdir(root) {
        age(&e);
    }
    common::commit_all(root);
    std::fs::write(
        ws_root.join("memory/decisions/untracked.md"),
        decision("Untracked", "active", ""),
    )
    .expect("write");
}

/// [`workspace`] moved into `agent/` of its directory, which the caller
/// makes a repository: git's paths then carry a prefix the workspace's do
/// not. Returns the directory, the repository root and the workspace root.
fn workspace_in_repository() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let (dir, root) = workspace();
    let ws_root = root.join("agent");
    std::fs::create_dir(&ws_root).expect("mkdir");
    for top in ["memory", "knowledge"] {
        std::fs::rename(root.join(top), ws_root.join(top)).expect("move");
    }
    (dir, root, ws_root)
}

#[test]
fn tracked_files_are_fingerprinted_by_their_git_blob() {
    let (dir, root, ws_root) = workspace_in_repository();
    let gix_md = "memory/decisions/use-gix.md";
    // An untracked record has no blob.
    commit_all_but_one_record(&root, &ws_root);
    let ws = memlint::engine::workspace::load(
        &memlint::engine::workspace::Surroundings {
            cwd: &ws_root,
            env: &|_| None,
        },
        Some(&ws_root),
        None,
    )
    .expect("workspace");
    let files = memlint::io::walk::walk(&ws).files;
    let first = scan::refresh(&ws, &files, &Options::default());
    assert_eq!(first.reparsed, 5);
    let head_blob = |rel: &str| common::git(&root, &["rev-parse", &format!("HEAD:agent/{rel}")]);
    assert_eq!(
        stored_entry(&ws_root, gix_md).blob.map(|b| b.to_string()),
        Some(head_blob(gix_md)),
        "a tracked file whose stat data match the git index carries its blob id"
    );
    assert_eq!(
        stored_entry(&ws_root, "memory/decisions/untracked.md").blob,
        None
    );

    // The same bytes in a new file: its stat data changed, but once git has
    // staged it again the git index vouches for the same blob, so the file
    // is not read again and the entry takes the new stat data.
    let path = ws_root.join(gix_md);
    let bytes = std::fs::read(&path).expect("read");
    rewrite(&path, &bytes);
    common::git(&root, &["add", "-A", "agent/memory"]);
    let second = scan::refresh(&ws, &files, &Options::default());
    assert_eq!(second.reparsed, 0, "the git blob id says it is unchanged");
    assert!(
        matches!(second.saved, Ok(true)),
        "the new stat data are stored"
    );
    let meta = std::fs::metadata(&path).expect("stat");
    assert_eq!(
        stored_entry(&ws_root, gix_md).stat,
        Some(stat::Stat::of(&meta))
    );
    assert_eq!(
        stored_entry(&ws_root, gix_md).blob.map(|b| b.to_string()),
        Some(head_blob(gix_md))
    );

    // New content, staged: the git index vouches for a blob, but not the
    // one the entry was made from, so the file is read; its findings are
    // new and the entry takes the new blob id.
    let edited = decision("Use gix", "active", "").replace("2026-11-01", "yesterday");
    rewrite(&path, edited.as_bytes());
    common::git(&root, &["add", "-A", "agent/memory"]);
    let third = scan::refresh(&ws, &files, &Options::default());
    assert_eq!(third.reparsed, 1, "a different blob is read");
    let report = third
        .reports
        .iter()
        .find(|r| r.path == gix_md)
        .expect("report");
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.rule.as_str() == "date/format"),
        "{:?}",
        report.diagnostics
    );
    let staged = common::git(&root, &["rev-parse", &format!(":agent/{gix_md}")]);
    assert_ne!(staged, head_blob(gix_md));
    assert_eq!(
        stored_entry(&ws_root, gix_md).blob.map(|b| b.to_string()),
        Some(staged)
    );

    // The old bytes back, not staged: the git index no longer matches the
    // file, so it is read, and without a blob id.
    rewrite(&path, &bytes);
    let fourth = scan::refresh(&ws, &files, &Options::default());
    assert_eq!(fourth.reparsed, 1);
    assert_eq!(stored_entry(&ws_root, gix_md).blob, None);
    let report = fourth
        .reports
        .iter()
        .find(|r| r.path == gix_md)
        .expect("report");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    drop(dir);
}

/// Every file and directory under `root`.
fn walkdir(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            out.push(path);
        }
    }
    out
}

/// A [`table::Glance`] that owns its strings.
#[derive(Debug, PartialEq)]
struct Owned {
    path: String,
    stat: Option<stat::Stat>,
    hashed: bool,
    kind: Option<memlint::model::kind::Kind>,
    status: Option<String>,
    date: Option<String>,
    model_invocation: Option<bool>,
    description: Option<String>,
}

impl Owned {
    fn of(g: &table::Glance) -> Owned {
        Owned {
            path: g.path.to_string(),
            stat: g.stat,
            hashed: g.hashed,
            kind: g.kind,
            status: g.status.map(str::to_string),
            date: g.date.map(str::to_string),
            model_invocation: g.model_invocation,
            description: g.description.map(str::to_string),
        }
    }
}

#[test]
fn a_glance_at_a_fresh_index_sees_its_delta_and_agrees_with_it() {
    let (_dir, root, ws, files) = loaded_workspace();
    scan::refresh(&ws, &files, &Options::default());
    let rel = "knowledge/index-pitfalls.md";
    std::fs::write(
        root.join(rel),
        "---\ntitle: Index pitfalls\ndescription: Glanced at\nmodel_invocation: true\ndate: 2026-11-09\nsources:\n  - https://example.com/x\n---\n\nBody.\n",
    )
    .expect("write");
    // Two seconds on, the edit is not within the timestamp granularity of
    // the next scan, which records it in the delta.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let second = scan::refresh(&ws, &files, &Options::default());
    assert_eq!(second.reparsed, 1);
    assert!(root.join(".memlint/index.delta").is_file());

    let table = table::read(&root).expect("stored");
    let glanced = scan::with_fresh(&ws, &files, |glances| {
        glances.iter().map(Owned::of).collect::<Vec<_>>()
    })
    .expect("the index is fresh");
    let decoded: Vec<Owned> = table
        .entries
        .iter()
        .map(|e| {
            Owned::of(&table::Glance {
                stat: e.stat,
                hashed: e.hash.is_some(),
                ..table::Glance::of(&e.report)
            })
        })
        .collect();
    assert_eq!(glanced, decoded, "a glance reads what a full decode reads");
    let edited = glanced.iter().find(|g| g.path == rel).expect("glanced");
    assert_eq!(edited.date.as_deref(), Some("2026-11-09"));
    assert_eq!(edited.description.as_deref(), Some("Glanced at"));
    assert_eq!(edited.model_invocation, Some(true));

    // Any change makes it stale: an edit, an added file, a removed one.
    std::fs::write(root.join(rel), "---\ntitle: Index pitfalls\n---\n").expect("write");
    assert!(scan::with_fresh(&ws, &files, |_| ()).is_none(), "edited");
    scan::refresh(&ws, &files, &Options::default());
    std::fs::write(root.join("knowledge/new.md"), "---\ntitle: New\n---\n").expect("write");
    assert!(
        scan::with_fresh(&ws, &memlint::io::walk::walk(&ws).files, |_| ()).is_none(),
        "added"
    );
    std::fs::remove_file(root.join("knowledge/new.md")).expect("remove");
    std::fs::remove_file(root.join(rel)).expect("remove");
    assert!(
        scan::with_fresh(&ws, &memlint::io::walk::walk(&ws).files, |_| ()).is_none(),
        "removed"
    );
}

#[test]
fn a_racy_file_found_unchanged_is_trusted_once_it_settles() {
    let (_dir, root, ws, files) = loaded_workspace();
    // Written just before the scan (again now, however long the set-up
    // took on a loaded machine): racy for it, so the next run hashes them.
    for rel in &files {
        let path = root.join(rel);
        std::fs::write(&path, std::fs::read(&path).expect("read")).expect("write");
    }
    scan::refresh(&ws, &files, &Options::default());
    assert!(scan::with_fresh(&ws, &files, |_| ()).is_none(), "racy");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let second = scan::refresh(&ws, &files, &Options::default());
    assert_eq!(second.reparsed, 0, "hashed and found unchanged");
    assert!(
        matches!(second.saved, Ok(true)),
        "stored again with a scan time they are no longer racy for"
    );
    let third = scan::refresh(&ws, &files, &Options::default());
    assert!(matches!(third.saved, Ok(false)), "nothing left to verify");
    assert!(scan::with_fresh(&ws, &files, |_| ()).is_some());
}

/// Linting and indexing are no access by a person: on Linux, records are
/// read without updating their access time (which, on a file system
/// mounted `relatime`, would otherwise write every record's inode on the
/// first run of each day). The access times are set before the mtimes, so
/// `relatime` or `strictatime` would update them on the first read; on a
/// file system mounted `noatime` this test cannot fail.
#[cfg(target_os = "linux")]
#[test]
fn reading_records_leaves_their_access_times_alone() {
    let (_dir, root) = workspace();
    let month_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(30 * 86400);
    let records = ["memory/decisions/use-gix.md", "knowledge/index-pitfalls.md"];
    for rel in records {
        let file = std::fs::File::options()
            .append(true)
            .open(root.join(rel))
            .expect("open");
        file.set_times(
            std::fs::FileTimes::new()
                .set_accessed(month_ago)
                .set_modified(month_ago + std::time::Duration::from_secs(86400)),
        )
        .expect("set times");
    }
    let accessed = |rel: &str| {
        std::fs::metadata(root.join(rel))
            .expect("stat")
            .accessed()
            .expect("atime")
    };
    memlint(&root, &["check"]);
    memlint(&root, &["search", "pitfalls"]);
    memlint(&root, &["index"]);
    for rel in records {
        assert_eq!(accessed(rel), month_ago, "{rel}");
    }
}

/// Whether the start of `path` is in the page cache (Linux only); when it
/// is not, the kernel starts reading it.
#[cfg(target_os = "linux")]
fn in_page_cache(path: &Path) -> bool {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).expect("open");
    let mut byte = 0u8;
    let iov = libc::iovec {
        iov_base: (&raw mut byte).cast(),
        iov_len: 1,
    };
    // SAFETY: one valid one-byte buffer and an open descriptor.
    unsafe { libc::preadv2(file.as_raw_fd(), &iov, 1, 0, libc::RWF_NOWAIT) >= 0 }
}

/// Records not in the page cache are read by many threads, and linted the
/// same: `memlint index` says so; with the files cached again, it does not.
#[cfg(target_os = "linux")]
#[test]
fn records_not_in_the_page_cache_are_read_by_many_threads() {
    use std::os::fd::AsRawFd;
    let (_dir, root) = workspace();
    let mut paths = Vec::new();
    for i in 0..400 {
        let rel = format!("knowledge/note-{i:03}.md");
        std::fs::write(
            root.join(&rel),
            format!("---\ntitle: Note {i}\ndescription: What we learned about part {i}\nmodel_invocation: false\ndate: 2026-11-01\nsources:\n  - https://example.com/{i}\n---\n\nPart {i} needs care.\n"),
        )
        .expect("write");
        paths.push(root.join(rel));
    }
    let warm = check_json(&root);
    // Written back and dropped from the page cache (no privilege needed for
    // one's own clean pages).
    for path in &paths {
        let file = std::fs::File::open(path).expect("open");
        file.sync_all().expect("sync");
        // SAFETY: an open descriptor; advice only.
        unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    }
    // Asking starts reading a file back in: only a few are asked.
    if paths
        .iter()
        .rev()
        .take(8)
        .filter(|p| in_page_cache(p))
        .count()
        > 4
    {
        eprintln!("skipped: this file system keeps files in the page cache (tmpfs?)");
        return;
    }
    let run = memlint_with(&root, &["index"], &[("RAYON_NUM_THREADS", "")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("not in the page cache: read by 16 threads"),
        "{}",
        run.stdout
    );
    assert_eq!(check_json(&root)["diagnostics"], warm["diagnostics"]);
    let again = memlint(&root, &["index"]);
    assert!(!again.stdout.contains("page cache"), "{}", again.stdout);
}

#[test]
fn blob_ids_looked_up_in_order_are_those_looked_up_one_by_one() {
    // A repository around the workspace, with tracked files between and
    // after the workspace's in git's order, an untracked record, and a
    // record changed since it was staged.
    let (dir, root, ws_root) = workspace_in_repository();
    for (rel, n) in [("agent/lib", 40), ("zz", 3), ("aa", 2)] {
        std::fs::create_dir_all(root.join(rel)).expect("mkdir");
        for i in 0..n {
            std::fs::write(root.join(format!("{rel}/f{i}.txt")), format!("{i}\n")).expect("write");
        }
    }
    for i in 0..30 {
        std::fs::write(
            ws_root.join(format!("memory/decisions/many-{i:02}.md")),
            decision(&format!("Many {i}"), "active", ""),
        )
        .expect("write");
    }
    commit_all_but_one_record(&root, &ws_root);
    rewrite(
        &ws_root.join("memory/decisions/many-07.md"),
        decision("Changed", "active", "").as_bytes(),
    );
    let ws = memlint::engine::workspace::load(
        &memlint::engine::workspace::Surroundings {
            cwd: &ws_root,
            env: &|_| None,
        },
        Some(&ws_root),
        None,
    )
    .expect("workspace");
    let mut files: Vec<String> = memlint::io::walk::walk(&ws).files;
    files.push("memory/decisions/no-such-file.md".to_string());
    let tracked = memlint::io::git::Tracked::open(&ws_root).expect("a repository");
    let stat = |rel: &str| {
        std::fs::metadata(ws_root.join(rel))
            .map(|m| memlint::io::stat::Stat::of(&m))
            .unwrap_or(memlint::io::stat::Stat::of(
                &std::fs::metadata(ws_root.join("memory/decisions/use-gix.md")).expect("stat"),
            ))
    };
    let one_by_one: Vec<_> = files.iter().map(|f| tracked.blob(f, &stat(f))).collect();
    assert!(
        one_by_one.iter().filter(|b| b.is_some()).count() >= 30,
        "most records are vouched for"
    );
    assert_eq!(one_by_one.iter().filter(|b| b.is_none()).count(), 3);
    // Ascending (as a scan asks), descending, and interleaved.
    let mut orders: Vec<Vec<usize>> = vec![(0..files.len()).collect()];
    orders.push((0..files.len()).rev().collect());
    orders.push((0..files.len()).map(|i| (i * 7) % files.len()).collect());
    for order in orders {
        let mut in_order = tracked.in_order();
        for i in order {
            assert_eq!(
                in_order.blob(&files[i], &stat(&files[i])),
                one_by_one[i],
                "{}",
                files[i]
            );
        }
    }
    drop(dir);
}

/// How many files `memlint check` lints in `root`.
fn files_checked(root: &Path) -> u64 {
    let run = memlint(root, &["check", "--format", "json"]);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    json["summary"]["files"].as_u64().expect("files")
}

#[test]
fn ignore_files_above_the_root_do_not_apply() {
    // git would not ignore the records (the workspace is its own
    // repository), and nothing outside the root is read: a `.gitignore`,
    // `.ignore` or `.memlintignore` in the parent directory changes nothing.
    let outer = tempfile::tempdir().expect("temp dir");
    let root = outer.path().join("ws");
    common::copy_dir(&common::fixture("example"), &root);
    let all = files_checked(&root);
    assert!(all > 5, "{all}");
    for name in [".gitignore", ".ignore", ".memlintignore"] {
        std::fs::write(outer.path().join(name), "*.md\n").expect("write");
        assert_eq!(files_checked(&root), all, "{name} above the root");
        let run = memlint(&root, &["search", "CSV", "--format", "json"]);
        assert!(
            run.stdout.contains("export-monthly-csv"),
            "{name}: {}",
            run.stdout
        );
        std::fs::remove_file(outer.path().join(name)).expect("remove");
    }
    // One inside the root applies, anchored at the root.
    std::fs::write(root.join(".memlintignore"), "/knowledge\n").expect("write");
    let fewer = files_checked(&root);
    assert!(fewer < all, "{fewer} < {all}");
    let run = memlint(&root, &["search", "bank", "--format", "json"]);
    assert!(!run.stdout.contains("knowledge/"), "{}", run.stdout);
    // Also when memlint runs from a subdirectory.
    let run = memlint(&root.join("memory"), &["check", "--format", "json"]);
    let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(json["summary"]["files"].as_u64(), Some(fewer));
}

#[cfg(unix)]
#[test]
fn a_record_directory_linking_out_of_the_root_is_not_followed() {
    let outer = tempfile::tempdir().expect("temp dir");
    let root = outer.path().join("ws");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::write(root.join(".memlint.yml"), "").expect("write");
    common::copy_dir(
        &common::fixture("example").join("knowledge"),
        &outer.path().join("outside"),
    );
    std::os::unix::fs::symlink(outer.path().join("outside"), root.join("knowledge"))
        .expect("symlink");
    assert_eq!(files_checked(&root), 0);
    let run = memlint(&root, &["search", "bank", "--format", "json"]);
    assert!(!run.stdout.contains("knowledge/"), "{}", run.stdout);
    let run = memlint(&root, &["context"]);
    assert!(!run.stdout.contains("\nknowledge/ ("), "{}", run.stdout);
}

#[cfg(unix)]
#[test]
fn a_copy_of_the_workspace_with_its_caches_lists_its_own_files() {
    let (_dir, root) = workspace();
    age_directories(&root);
    let before = rules(&check_json(&root));
    assert!(
        root.join(".memlint/listing").is_file(),
        "the listing was stored"
    );
    // Copied with `.memlint/` (as `cp -r` does), then changed.
    let copies = tempfile::tempdir().expect("temp dir");
    let copy = copies.path().join("copy");
    let cp = std::process::Command::new("cp")
        .arg("-r")
        .arg(&root)
        .arg(&copy)
        .status()
        .expect("cp");
    assert!(cp.success());
    assert!(copy.join(".memlint/listing").is_file());
    std::fs::remove_file(copy.join("knowledge/index-pitfalls.md")).expect("remove");
    std::fs::write(copy.join("knowledge/new.md"), "junk\n").expect("write");
    let after = rules(&check_json(&copy));
    assert!(
        after.contains(&("frontmatter/missing".into(), "knowledge/new.md".into())),
        "{after:?}"
    );
    assert!(
        !after
            .iter()
            .any(|(_, p)| p == "knowledge/index-pitfalls.md"),
        "{after:?}"
    );
    // The original is untouched.
    assert_eq!(rules(&check_json(&root)), before);
}
