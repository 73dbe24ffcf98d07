//! Cross-record rules end to end: `replaced_by` chains and cycles, targets of
//! another kind, near-duplicate slug clusters, dangling sources (`file:`,
//! `decision:`, `commit:` in a real git repository), a source escaping the
//! root, an unreadable record named by others, and `check PATH` resolving
//! against the whole workspace. Every case asserts the exact rule, path and
//! span with `--format json`.

use crate::common;

use common::git;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_memlint");

/// A workspace in a temporary directory.
struct Ws {
    dir: tempfile::TempDir,
}

/// One diagnostic as (rule, path, line, column, end_line, end_column).
type Found = (String, String, u64, u64, u64, u64);

impl Ws {
    fn new() -> Ws {
        Ws {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) -> &Ws {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
        self
    }

    /// `memlint check --format json ARGS` at the root: exit code and JSON.
    fn check(&self, args: &[&str]) -> (i32, Value) {
        let out = Command::new(BIN)
            .arg("check")
            .arg("--format")
            .arg("json")
            .args(args)
            .current_dir(self.root())
            .env("NO_COLOR", "1")
            .output()
            .expect("run memlint");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "memlint crashed: {stderr}");
        let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}\n{stderr}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        (out.status.code().unwrap_or(-1), json)
    }

    /// The diagnostics of a check, located.
    fn found(&self, args: &[&str]) -> Vec<Found> {
        located(&self.check(args).1)
    }
}

fn located(json: &Value) -> Vec<Found> {
    json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().expect("rule").to_string(),
                d["path"].as_str().expect("path").to_string(),
                d["line"].as_u64().expect("line"),
                d["column"].as_u64().expect("column"),
                d["end_line"].as_u64().expect("end_line"),
                d["end_column"].as_u64().expect("end_column"),
            )
        })
        .collect()
}

fn messages(json: &Value, rule: &str) -> Vec<String> {
    json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == rule)
        .map(|d| d["message"].as_str().unwrap_or("").to_string())
        .collect()
}

fn f(rule: &str, path: &str, line: u64, column: u64, end_line: u64, end_column: u64) -> Found {
    (
        rule.to_string(),
        path.to_string(),
        line,
        column,
        end_line,
        end_column,
    )
}

/// A decision or request: `replaced_by` lands on line 7, its value at
/// column 14; sources start on line 6, values at column 5.
fn record(status: &str, replaced_by: Option<&str>, sources: &[&str]) -> String {
    let mut s = format!("---\ntitle: A record\nstatus: {status}\ndate: 2026-11-01\nsources:\n");
    if sources.is_empty() {
        s.push_str("  - https://example.com/adr\n");
    }
    for src in sources {
        s.push_str(&format!("  - {src}\n"));
    }
    if let Some(t) = replaced_by {
        s.push_str(&format!("replaced_by: {t}\n"));
    }
    s.push_str("---\n\nWhy it was decided.\n");
    s
}

fn active() -> String {
    record("active", None, &[])
}

fn replaced(by: &str) -> String {
    record("replaced", Some(by), &[])
}

const D: &str = "memory/decisions";

fn dec(slug: &str) -> String {
    format!("{D}/{slug}.md")
}

/// Columns of the `replaced_by` value `slug` on line 7.
fn target(rule: &str, path: &str, slug: &str) -> Found {
    f(rule, path, 7, 14, 7, 14 + slug.chars().count() as u64)
}

#[test]
fn chain_of_three_warns_on_the_first_only() {
    let ws = Ws::new();
    ws.write(&dec("keep-floats"), &replaced("keep-decimals"))
        .write(&dec("keep-decimals"), &replaced("use-minor-units"))
        .write(&dec("use-minor-units"), &active());
    let (code, json) = ws.check(&[]);
    assert_eq!(code, 0, "a chain is a warning");
    assert_eq!(
        located(&json),
        vec![target("status/chain", &dec("keep-floats"), "keep-decimals")]
    );
    let msg = &messages(&json, "status/chain")[0];
    assert!(msg.contains("`use-minor-units`"), "{msg}");
}

#[test]
fn chain_of_four_names_the_final_record_on_each_link() {
    let ws = Ws::new();
    ws.write(&dec("alpha-one"), &replaced("beta-two"))
        .write(&dec("beta-two"), &replaced("gamma-three"))
        .write(&dec("gamma-three"), &replaced("delta-four"))
        .write(&dec("delta-four"), &active());
    let (_, json) = ws.check(&[]);
    assert_eq!(
        located(&json),
        vec![
            target("status/chain", &dec("alpha-one"), "beta-two"),
            target("status/chain", &dec("beta-two"), "gamma-three"),
        ]
    );
    for m in messages(&json, "status/chain") {
        assert!(m.contains("final record `delta-four`"), "{m}");
    }
}

#[test]
fn a_chain_ending_at_a_dangling_target_is_not_fixable() {
    // `b` is replaced by a record that does not exist: there is no final
    // record to point `a` at, so `status/chain` says so and is not fixable.
    let ws = Ws::new();
    ws.write(&dec("alpha-one"), &replaced("beta-two"))
        .write(&dec("beta-two"), &replaced("no-such-record"));
    let (_, json) = ws.check(&[]);
    let chain: Vec<&Value> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "status/chain")
        .collect();
    assert_eq!(chain.len(), 1, "{json}");
    assert_eq!(chain[0]["fixable"], false, "{json}");
    let msg = chain[0]["message"].as_str().expect("message");
    assert!(msg.contains("the chain ends at `beta-two`"), "{msg}");
    assert!(!msg.contains("final record"), "{msg}");
    let before = std::fs::read(ws.root().join(dec("alpha-one"))).expect("read");
    ws.check(&["--fix"]);
    assert_eq!(
        std::fs::read(ws.root().join(dec("alpha-one"))).expect("read"),
        before
    );
}

#[test]
fn cycle_of_two_reports_both_and_no_chain() {
    let ws = Ws::new();
    ws.write(&dec("use-gix"), &replaced("use-git2"))
        .write(&dec("use-git2"), &replaced("use-gix"));
    let (code, json) = ws.check(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        located(&json),
        vec![
            target("status/cycle", &dec("use-git2"), "use-gix"),
            target("status/cycle", &dec("use-gix"), "use-git2"),
        ]
    );
}

#[test]
fn cycle_of_three_reports_each_member_once() {
    let ws = Ws::new();
    ws.write(&dec("first-way"), &replaced("second-way"))
        .write(&dec("second-way"), &replaced("third-way"))
        .write(&dec("third-way"), &replaced("first-way"));
    let (code, json) = ws.check(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        located(&json),
        vec![
            target("status/cycle", &dec("first-way"), "second-way"),
            target("status/cycle", &dec("second-way"), "third-way"),
            target("status/cycle", &dec("third-way"), "first-way"),
        ]
    );
    let msg = &messages(&json, "status/cycle")[0];
    assert!(
        msg.contains("first-way → second-way → third-way → first-way"),
        "{msg}"
    );
}

#[test]
fn self_replacement_is_a_cycle() {
    let ws = Ws::new();
    ws.write(&dec("use-gix"), &replaced("use-gix"));
    let (code, json) = ws.check(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        located(&json),
        vec![target("status/cycle", &dec("use-gix"), "use-gix")]
    );
}

/// Regression: a record whose `replaced_by` leads into a cycle it is not
/// part of got no diagnostic at all (no final record for `status/chain`,
/// not on the cycle for `status/cycle`).
#[test]
fn lead_in_to_a_cycle_is_reported() {
    let ws = Ws::new();
    ws.write(&dec("old-plan"), &replaced("plan-a"))
        .write(&dec("plan-a"), &replaced("plan-b"))
        .write(&dec("plan-b"), &replaced("plan-a"));
    let (code, json) = ws.check(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        located(&json),
        vec![
            target("status/cycle", &dec("old-plan"), "plan-a"),
            target("status/cycle", &dec("plan-a"), "plan-b"),
            target("status/cycle", &dec("plan-b"), "plan-a"),
        ]
    );
    let lead_in: Vec<String> = messages(&json, "status/cycle")
        .into_iter()
        .filter(|m| m.contains("`old-plan`"))
        .collect();
    assert_eq!(lead_in.len(), 1, "{lead_in:?}");
    assert!(
        lead_in[0].contains("old-plan → plan-a → plan-b → plan-a"),
        "{}",
        lead_in[0]
    );
}

#[test]
fn request_replaced_by_a_decision_slug_dangles() {
    let ws = Ws::new();
    ws.write(&dec("use-gix"), &active()).write(
        "memory/requests/support-git.md",
        &record("replaced", Some("use-gix"), &[]),
    );
    let (code, json) = ws.check(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        located(&json),
        vec![target(
            "status/dangling-target",
            "memory/requests/support-git.md",
            "use-gix"
        )]
    );
    let msg = &messages(&json, "status/dangling-target")[0];
    assert!(msg.contains("is not a request"), "{msg}");
    assert!(msg.contains("`use-gix` is a decision"), "{msg}");
}

#[test]
fn similar_slug_cluster_of_three_warns_on_all_but_the_first() {
    let ws = Ws::new();
    ws.write(&dec("cache-parsed-records"), &active())
        .write(&dec("cache-parsed-records-v2"), &active())
        .write(&dec("cache-parsed-records-new"), &active())
        .write(&dec("write-the-changelog"), &active());
    let (code, json) = ws.check(&[]);
    assert_eq!(code, 0);
    assert_eq!(
        located(&json),
        vec![
            f("slug/similar", &dec("cache-parsed-records-new"), 1, 1, 1, 1),
            f("slug/similar", &dec("cache-parsed-records-v2"), 1, 1, 1, 1),
        ]
    );
    let msgs = messages(&json, "slug/similar");
    assert!(
        msgs[0].contains("`cache-parsed-records`") && msgs[0].contains("`cache-parsed-records-v2`"),
        "{}",
        msgs[0]
    );
    assert!(
        msgs[1].contains("`cache-parsed-records`")
            && msgs[1].contains("`cache-parsed-records-new`"),
        "{}",
        msgs[1]
    );
}

/// Regression: with `slug/similar` off the clusters were still computed
/// (seconds on a large workspace) and cached in `.memlint/slugs`.
#[test]
fn similar_slugs_off_computes_no_clusters() {
    let ws = Ws::new();
    ws.write(".memlint.yml", "rules: {slug/similar: \"off\"}\n")
        .write(&dec("cache-parsed-records"), &active())
        .write(&dec("cache-parsed-records-v2"), &active());
    assert_eq!(ws.found(&[]), vec![]);
    assert!(!ws.root().join(".memlint/slugs").exists());
}

#[test]
fn similar_slugs_are_compared_within_a_kind_only() {
    let ws = Ws::new();
    ws.write(&dec("cache-parsed-records"), &active()).write(
        "memory/requests/cache-parsed-records-v2.md",
        &record("open", None, &[]),
    );
    assert_eq!(ws.found(&[]), vec![]);
}

#[test]
fn dangling_file_and_record_sources() {
    let ws = Ws::new();
    ws.write("docs/present.md", "here\n")
        .write(&dec("use-gix"), &active())
        .write(
            &dec("cite-things"),
            &record(
                "active",
                None,
                &[
                    "file:docs/present.md",
                    "file:docs/missing.md",
                    "decision:use-gix",
                    "decision:use-gitt",
                    "request:use-gix",
                ],
            ),
        );
    let (code, json) = ws.check(&[]);
    assert_eq!(code, 0, "sources/dangling is a warning");
    let p = dec("cite-things");
    assert_eq!(
        located(&json),
        vec![
            f("sources/dangling", &p, 7, 5, 7, 25),
            f("sources/dangling", &p, 9, 5, 9, 22),
            f("sources/dangling", &p, 10, 5, 10, 20),
        ]
    );
    let msgs = messages(&json, "sources/dangling");
    assert!(
        msgs[0].contains("`file:docs/missing.md` names no file"),
        "{}",
        msgs[0]
    );
    assert!(
        msgs[1].contains("did you mean `decision:use-gix`"),
        "{}",
        msgs[1]
    );
    assert!(msgs[2].contains("names no request"), "{}", msgs[2]);
}

#[test]
fn an_unreadable_record_still_exists_for_sources_and_replaced_by() {
    // `broken-yaml` cannot be read, yet it is on disk: naming it is not
    // dangling, and replacing by it is no dangling target. Paths of file
    // sources are compared once normalised, written plainly or not.
    let ws = Ws::new();
    ws.write("docs/present.md", "here\n")
        .write(
            &dec("broken-yaml"),
            "---\ntitle: a: b\nstatus: [active\n---\n\nBody.\n",
        )
        .write(&dec("old-way"), &replaced("broken-yaml"))
        .write(
            &dec("cite-things"),
            &record(
                "active",
                None,
                &[
                    "decision:broken-yaml",
                    "file:docs/./present.md",
                    "file:docs//present.md",
                    "file:docs/../docs/missing.md",
                ],
            ),
        );
    let (code, json) = ws.check(&[]);
    assert_eq!(code, 1, "the unreadable record is an error");
    let cross: Vec<Found> = located(&json)
        .into_iter()
        .filter(|d| d.0.starts_with("sources/") || d.0.starts_with("status/"))
        .collect();
    assert_eq!(
        cross,
        vec![f("sources/dangling", &dec("cite-things"), 9, 5, 9, 33)]
    );
    assert!(
        located(&json)
            .iter()
            .any(|d| d.0 == "frontmatter/parse" && d.1 == dec("broken-yaml")),
        "{json}"
    );
}

#[test]
fn file_source_escaping_the_root_is_diagnosed_and_never_read() {
    let ws = Ws::new();
    ws.write(
        &dec("read-passwords"),
        &record(
            "active",
            None,
            &["file:../../etc/passwd", "file:docs/../../outside.md"],
        ),
    );
    let (_, json) = ws.check(&[]);
    let p = dec("read-passwords");
    assert_eq!(
        located(&json),
        vec![
            f("sources/dangling", &p, 6, 5, 6, 26),
            f("sources/dangling", &p, 7, 5, 7, 31),
        ]
    );
    for m in messages(&json, "sources/dangling") {
        assert!(m.contains("outside the workspace root"), "{m}");
    }
}

#[test]
fn commit_sources_are_looked_up_in_the_object_database() {
    let ws = Ws::new();
    let root = ws.root();
    git(root, &["init", "-q"]);
    ws.write("src/main.rs", "fn main() {}\n");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "start"]);
    let head = git(root, &["rev-parse", "HEAD"]);
    let short = &head[..10];
    let full = format!("commit:{head}");
    let abbreviated = format!("commit:{short}");
    ws.write(
        &dec("cite-commits"),
        &record(
            "active",
            None,
            &[
                &full,
                &abbreviated,
                "commit:0123456789abcdef",
                "commit:zz12",
            ],
        ),
    );
    let (_, json) = ws.check(&[]);
    let p = dec("cite-commits");
    // `commit:zz12` is malformed: `sources/format`'s, not also dangling.
    assert_eq!(
        located(&json),
        vec![
            f("sources/dangling", &p, 8, 5, 8, 28),
            f("sources/format", &p, 9, 5, 9, 16),
        ]
    );
    let msg = &messages(&json, "sources/dangling")[0];
    assert!(msg.contains("not in the git object database"), "{msg}");
}

#[test]
fn commit_sources_are_not_checked_without_a_repository() {
    let ws = Ws::new();
    ws.write(
        &dec("cite-commits"),
        &record("active", None, &["commit:0123456789abcdef"]),
    );
    assert_eq!(ws.found(&[]), vec![]);
}

#[test]
fn check_path_still_resolves_against_the_whole_workspace() {
    let ws = Ws::new();
    ws.write(&dec("keep-floats"), &replaced("keep-decimals"))
        .write(&dec("keep-decimals"), &replaced("use-minor-units"))
        .write(&dec("use-minor-units"), &active())
        .write(&dec("broken"), &replaced("nowhere"))
        .write(
            &dec("cite-things"),
            &record("active", None, &["decision:use-minor-units"]),
        );
    // The targets live in other files: no dangling-target, no dangling source.
    let (code, json) = ws.check(&[&dec("keep-decimals"), &dec("cite-things")]);
    assert_eq!(code, 0);
    assert_eq!(located(&json), vec![]);
    assert_eq!(json["summary"]["files"], 2);
    // The chain is seen through files outside the selection.
    assert_eq!(
        ws.found(&[&dec("keep-floats")]),
        vec![target("status/chain", &dec("keep-floats"), "keep-decimals")]
    );
    // A directory selects what is under it; findings elsewhere stay out.
    let all = ws.found(&[D]);
    assert!(all.contains(&target("status/dangling-target", &dec("broken"), "nowhere")));
}

/// Issue 48 item 10: "who names record X" is the engine's
/// (`engine::referrers`), not the language server's: the record it
/// replaces and a record citing it are found, with the bytes of the name
/// in each file.
#[test]
fn the_engine_finds_who_replaces_or_cites_a_record() {
    use memlint::engine::referrers::Referrers;
    use memlint::engine::workspace::Surroundings;
    use memlint::model::kind::Kind;
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let old = "---\ntitle: Use git2\nstatus: replaced\ndate: 2026-01-01\nreplaced_by: use-gix\n---\nOld.\n";
    let new = "---\ntitle: Use gix\nstatus: active\ndate: 2026-01-02\n---\nNew.\n";
    let note = "---\ntitle: Git notes\ndescription: how git is read\nsources:\n  - \"decision:use-gix\"\n---\nNotes.\n";
    common::write(root, "memory/decisions/use-git2.md", old);
    common::write(root, "memory/decisions/use-gix.md", new);
    common::write(root, "knowledge/git-notes.md", note);
    let at = Surroundings {
        cwd: root,
        env: &|_| None,
    };
    let ws = memlint::engine::workspace::load(&at, Some(root), None).expect("workspace");
    let opts = memlint::engine::scan::Options {
        force: false,
        progress: None,
    };
    let mode = memlint::engine::check::Mode::WorkTree { fix: false };
    let selection = memlint::engine::check::Selection::all();
    let checked =
        memlint::engine::check::run(&ws, &mode, &selection, false, &opts).expect("checked");
    let mut found = Referrers::of(Kind::Decision, "use-gix");
    for r in &checked.outcome.reports {
        found.look_at(r);
    }
    let places = found.places(|p| std::fs::read_to_string(ws.root.join(p)).ok());
    let named: Vec<(String, &str)> = places
        .iter()
        .map(|(path, range)| {
            let text = if path.starts_with("knowledge") {
                note
            } else {
                old
            };
            (path.clone(), &text[range.clone()])
        })
        .collect();
    assert_eq!(
        named,
        vec![
            ("knowledge/git-notes.md".to_string(), "use-gix"),
            ("memory/decisions/use-git2.md".to_string(), "use-gix"),
        ]
    );
    let at_note = note.find("decision:use-gix").expect("cited") + "decision:".len();
    assert_eq!(places[0].1, at_note..at_note + "use-gix".len());
}
