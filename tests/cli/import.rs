//! `memlint import`: every real sample of `../shared/import-samples`
//! imported (skipped with a message when absent), the report naming every
//! input item, idempotence, `--dry-run`, dates, sources, secrets and the
//! hostile inputs (a huge JSONL line, invalid UTF-8, front matter that
//! does not parse, wiki links to nowhere, two notes with one title, a
//! symbolic link out of the root).

use crate::common;

use common::{copy_dir, git_with as git, memlint, Run, TempWorkspace};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

fn samples(rel: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/import-samples")
        .join(rel);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipping: {} is absent (../shared is not beside the crate)",
            path.display()
        );
        None
    }
}

/// A workspace in a fresh git repository.
fn workspace() -> tempfile::TempDir {
    TempWorkspace::new().git().init().build()
}

fn json(run: &Run) -> Value {
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", run.stdout, run.stderr))
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn item<'a>(report: &'a Value, input: &str) -> &'a Value {
    report["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["input"] == input)
        .unwrap_or_else(|| panic!("{input} is not in the report: {report:#}"))
}

const FORMATS: [(&str, &str); 8] = [
    ("claude-code-memory", "claude"),
    ("cline-memory-bank", "memory-bank"),
    ("kilo-memory-bank", "memory-bank"),
    ("roo-memory-bank", "memory-bank"),
    ("basic-memory", "basic-memory"),
    ("beads", "beads"),
    ("cursor-rules", "cursor"),
    ("kiro-steering", "kiro"),
];

/// Every sample file of every format imports: the report names each file
/// (each beads issue), nothing is refused, the workspace checks clean,
/// every record points back at its file, and a second run writes nothing.
#[test]
fn every_import_sample_imports_and_a_second_run_writes_nothing() {
    for (dir, format) in FORMATS {
        let Some(src) = samples(dir) else { return };
        let tmp = workspace();
        copy_dir(&src, &tmp.path().join("in"));
        let run = memlint(tmp.path(), &["import", format, "in", "--format", "json"]);
        assert_eq!(run.code, 0, "{dir}: {}{}", run.stdout, run.stderr);
        let report = json(&run);
        let s = &report["summary"];
        eprintln!(
            "{dir} ({format}): {} items, {} written, {} skipped",
            s["items"], s["written"], s["skipped"]
        );
        assert_eq!(s["refused"], 0, "{dir}: {report:#}");
        let mut files = Vec::new();
        files_under(&tmp.path().join("in"), &mut files);
        for f in &files {
            let rel = f.strip_prefix(tmp.path()).unwrap().to_str().unwrap();
            let listed = report["items"].as_array().unwrap().iter().any(|i| {
                i["input"]
                    .as_str()
                    .is_some_and(|p| p == rel || p.starts_with(&format!("{rel}#")))
            });
            assert!(listed, "{dir}: {rel} is not in the report");
        }
        for i in report["items"].as_array().unwrap() {
            match i["outcome"].as_str().unwrap() {
                "written" => {
                    let record = i["record"].as_str().unwrap();
                    let text = fs::read_to_string(tmp.path().join(record)).unwrap();
                    let file = i["input"].as_str().unwrap().split('#').next().unwrap();
                    if record != "CONTEXT.md" {
                        assert!(
                            text.contains(&format!("  - file:{file}\n")),
                            "{record}:\n{text}"
                        );
                    }
                    assert!(i["date"].as_str().is_some_and(|d| d.len() == 10), "{i}");
                    assert!(["source", "git", "today"].contains(&i["date_from"].as_str().unwrap()));
                }
                "skipped" => assert!(i["reason"].as_str().is_some_and(|r| !r.is_empty()), "{i}"),
                other => panic!("{dir}: {other}: {i}"),
            }
        }
        let check = memlint(tmp.path(), &["check", "--format", "json"]);
        assert_eq!(check.code, 0, "{dir}: {}", check.stdout);
        let again = json(&memlint(
            tmp.path(),
            &["import", format, "in", "--format", "json"],
        ));
        assert_eq!(again["summary"]["written"], 0, "{dir}: {again:#}");
        assert_eq!(again["summary"]["unchanged"], s["written"], "{dir}");
        let human = memlint(tmp.path(), &["import", format, "in"]);
        assert!(
            human.stdout.ends_with("; nothing new written\n"),
            "{}",
            human.stdout
        );
    }
}

/// The Claude Code sample: its index is skipped as an index, the topic
/// files become knowledge, `feedback` and `user` ones resident.
#[test]
fn claude_memory_maps_types_and_skips_the_index() {
    let Some(src) = samples("claude-code-memory/jonathanperis__rinha2-back-end-dotnet") else {
        return;
    };
    let tmp = workspace();
    copy_dir(&src, &tmp.path().join("mem"));
    let report = json(&memlint(
        tmp.path(),
        &["import", "claude", "mem", "--format", "json"],
    ));
    let index = item(&report, "mem/.claude/memory/MEMORY.md");
    assert_eq!(index["outcome"], "skipped");
    assert_eq!(
        index["reason"],
        "the index of 5 topic file(s), each imported on its own"
    );
    let user = item(&report, "mem/.claude/memory/user_profile.md");
    assert_eq!(
        user["record"],
        "knowledge/jonathan-peris-developer-profile.md"
    );
    let text = fs::read_to_string(
        tmp.path()
            .join("knowledge/jonathan-peris-developer-profile.md"),
    )
    .unwrap();
    assert!(text.starts_with("---\ntitle: Jonathan Peris - Developer Profile\ndescription: Senior developer maintaining multiple backend challenge implementations across .NET, Rust, Go, Python\nmodel_invocation: true\n"), "{text}");
    assert!(text.contains("tags: [user]\n"), "{text}");
}

/// `--dry-run` shows the plan and writes nothing.
#[test]
fn dry_run_writes_nothing() {
    let tmp = workspace();
    fs::create_dir_all(tmp.path().join("notes")).unwrap();
    fs::write(
        tmp.path().join("notes/a.md"),
        "---\ntitle: Use SQLite\ntype: decision\ndate: 2025-03-01\n---\n\nWe use SQLite.\n",
    )
    .unwrap();
    let run = memlint(
        tmp.path(),
        &["import", "basic-memory", "notes", "--dry-run"],
    );
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        "notes/a.md: would write memory/decisions/use-sqlite.md\n  dated 2025-03-01 from front matter `date`\nimport basic-memory: 1 item(s): 1 to write, 0 unchanged, 0 skipped, 0 refused (dry run: nothing written)\n"
    );
    assert!(!tmp.path().join("memory/decisions/use-sqlite.md").exists());
    let run = memlint(tmp.path(), &["import", "basic-memory", "notes"]);
    assert_eq!(run.code, 0);
    let text = fs::read_to_string(tmp.path().join("memory/decisions/use-sqlite.md")).unwrap();
    assert_eq!(
        text,
        "---\ntitle: Use SQLite\nstatus: active\ndate: 2025-03-01\nsources:\n  - file:notes/a.md\n---\n\nWe use SQLite.\n"
    );
}

/// With no date in the source, the commit that added the file gives it,
/// and the record cites that commit.
#[test]
fn dates_come_from_git_history_when_the_source_has_none() {
    let tmp = workspace();
    fs::create_dir_all(tmp.path().join("rules")).unwrap();
    fs::write(
        tmp.path().join("rules/style.mdc"),
        "---\ndescription: House style\nalwaysApply: true\n---\n\n# Style\n\nTabs, never spaces.\n",
    )
    .unwrap();
    fs::write(
        tmp.path().join("rules/new.mdc"),
        "# New\n\nNot committed.\n",
    )
    .unwrap();
    git(tmp.path(), &["add", "rules/style.mdc"], &[]);
    let when = [
        ("GIT_AUTHOR_DATE", "2024-02-29T12:00:00+00:00"),
        ("GIT_COMMITTER_DATE", "2024-02-29T12:00:00+00:00"),
    ];
    git(tmp.path(), &["commit", "-q", "-m", "rules"], &when);
    let report = json(&memlint(
        tmp.path(),
        &["import", "cursor", "rules", "--format", "json"],
    ));
    let style = item(&report, "rules/style.mdc");
    assert_eq!(style["date"], "2024-02-29");
    assert_eq!(style["date_from"], "git");
    let text = fs::read_to_string(tmp.path().join("knowledge/style.md")).unwrap();
    assert!(text.contains("model_invocation: true\ndate: 2024-02-29\nsources:\n  - file:rules/style.mdc\n  - commit:"), "{text}");
    let new = item(&report, "rules/new.mdc");
    assert_eq!(new["date_from"], "today");
}

/// A memory bank: the brief is resident knowledge, the active context a
/// dated `CONTEXT.md` block, the decision log a decision, a completed
/// task a done request.
#[test]
fn memory_bank_maps_files_to_kinds_and_context() {
    let tmp = workspace();
    let mb = tmp.path().join("memory-bank");
    fs::create_dir_all(mb.join("tasks/COMPLETED")).unwrap();
    fs::write(mb.join("projectbrief.md"), "# Brief\n\nA tiny game.\n").unwrap();
    fs::write(
        mb.join("activeContext.md"),
        "# Active\n\n## Focus\n\nThe map.\n",
    )
    .unwrap();
    fs::write(
        mb.join("decisionLog.md"),
        "# Decision Log\n\n## Use Vite\n\nFast.\n",
    )
    .unwrap();
    fs::write(
        mb.join("tasks/COMPLETED/TASK001-setup.md"),
        "# TASK001 - Setup\n\n**Status:** Completed\n**Added:** 2025-09-10\n",
    )
    .unwrap();
    let report = json(&memlint(
        tmp.path(),
        &["import", "memory-bank", "memory-bank", "--format", "json"],
    ));
    assert_eq!(report["summary"]["written"], 4, "{report:#}");
    let brief = fs::read_to_string(tmp.path().join("knowledge/brief.md")).unwrap();
    assert!(brief.contains("model_invocation: true\n"), "{brief}");
    assert!(tmp.path().join("memory/decisions/decision-log.md").exists());
    let task = fs::read_to_string(tmp.path().join("memory/requests/task001-setup.md")).unwrap();
    assert!(task.contains("status: done\ndate: 2025-09-10\n"), "{task}");
    let context = fs::read_to_string(tmp.path().join("CONTEXT.md")).unwrap();
    let today = item(&report, "memory-bank/activeContext.md")["date"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        context.contains(&format!("## {today} — Active (imported from file:memory-bank/activeContext.md)\n\n### Active\n\n#### Focus\n\nThe map.\n")),
        "{context}"
    );
    let again = json(&memlint(
        tmp.path(),
        &["import", "memory-bank", "memory-bank", "--format", "json"],
    ));
    assert_eq!(again["summary"]["unchanged"], 4, "{again:#}");
    assert_eq!(
        fs::read_to_string(tmp.path().join("CONTEXT.md")).unwrap(),
        context
    );
    // The active context changed since: reported, CONTEXT.md left alone.
    fs::write(
        mb.join("activeContext.md"),
        "# Active\n\n## Focus\n\nThe fog of war.\n",
    )
    .unwrap();
    let run = memlint(
        tmp.path(),
        &["import", "memory-bank", "memory-bank", "--format", "json"],
    );
    assert_eq!(run.code, 1, "{run:?}");
    let changed = json(&run);
    assert_eq!(
        item(&changed, "memory-bank/activeContext.md")["outcome"],
        "changed",
        "{changed:#}"
    );
    assert_eq!(changed["summary"]["unchanged"], 3, "{changed:#}");
    assert_eq!(
        fs::read_to_string(tmp.path().join("CONTEXT.md")).unwrap(),
        context
    );
}

/// Hostile inputs each get a clear line, and the rest is imported.
#[test]
fn hostile_inputs_each_get_a_line_and_the_rest_imports() {
    let tmp = workspace();
    let notes = tmp.path().join("notes");
    fs::create_dir_all(&notes).unwrap();
    fs::write(
        notes.join("bad-utf8.md"),
        b"---\ntitle: x\n---\n\xff\xfe broken\n",
    )
    .unwrap();
    fs::write(
        notes.join("broken-yaml.md"),
        "---\ntitle: [unclosed\n---\n\nStill text.\n",
    )
    .unwrap();
    fs::write(
        notes.join("lonely.md"),
        "---\ntitle: Lonely\n---\n\n- relates_to [[Nowhere At All]]\n",
    )
    .unwrap();
    fs::write(
        notes.join("same-1.md"),
        "---\ntitle: Same Title\n---\n\nOne.\n",
    )
    .unwrap();
    fs::write(
        notes.join("same-2.md"),
        "---\ntitle: Same Title\n---\n\nTwo, different.\n",
    )
    .unwrap();
    let key = format!("AKIA{}", "Q3ZJ7KX2M5VW8YRT");
    fs::write(
        notes.join("secret.md"),
        format!("---\ntitle: Keys\n---\n\naws key {key}\n"),
    )
    .unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(
        outside.path().join("out.md"),
        "---\ntitle: Outside\n---\n\nnot to be read\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path().join("out.md"), notes.join("link.md")).unwrap();
    let run = memlint(
        tmp.path(),
        &["import", "basic-memory", "notes", "--format", "json"],
    );
    assert_eq!(
        run.code, 1,
        "a refused item makes the exit 1: {}",
        run.stdout
    );
    assert!(!run.stdout.contains(&key) && !run.stdout.contains("Q3ZJ7KX2"));
    let report = json(&run);
    let bad = item(&report, "notes/bad-utf8.md");
    assert_eq!(bad["outcome"], "refused");
    assert!(
        bad["reason"]
            .as_str()
            .unwrap()
            .starts_with("not valid UTF-8 (line 4, byte 17)"),
        "{bad}"
    );
    let broken = item(&report, "notes/broken-yaml.md");
    assert_eq!(broken["outcome"], "written");
    assert!(
        broken["notes"][0]
            .as_str()
            .unwrap()
            .contains("does not parse as YAML"),
        "{broken}"
    );
    let lonely = item(&report, "notes/lonely.md");
    assert_eq!(lonely["outcome"], "written");
    assert!(
        lonely["notes"].as_array().unwrap().iter().any(|n| n
            == "links to [[Nowhere At All]], which is no note imported; the link is kept as text"),
        "{lonely}"
    );
    assert_eq!(
        item(&report, "notes/same-1.md")["record"],
        "knowledge/same-title.md"
    );
    assert_eq!(
        item(&report, "notes/same-2.md")["record"],
        "knowledge/same-title-2.md"
    );
    let secret = item(&report, "notes/secret.md");
    assert_eq!(secret["outcome"], "refused");
    assert_eq!(
        secret["reason"],
        "holds what looks like an AWS access key id; skipped whole (never written, never shown)"
    );
    #[cfg(unix)]
    {
        let link = item(&report, "notes/link.md");
        assert_eq!(link["outcome"], "refused");
        assert!(
            link["reason"].as_str().unwrap().starts_with(
                "leads out of the workspace root through the symbolic link notes/link.md"
            ),
            "{link}"
        );
    }
    let mut written = Vec::new();
    files_under(&tmp.path().join("knowledge"), &mut written);
    for f in &written {
        let t = fs::read_to_string(f).unwrap();
        assert!(
            !t.contains("Q3ZJ7KX2") && !t.contains("not to be read"),
            "{}",
            f.display()
        );
    }
    // A path outside the root is refused before anything is read.
    let run = memlint(
        tmp.path(),
        &["import", "basic-memory", outside.path().to_str().unwrap()],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("is outside the workspace root"),
        "{}",
        run.stderr
    );
}

/// A 100 MB JSONL line is skipped without being held, and the issues
/// around it are imported.
#[test]
fn a_huge_beads_line_is_skipped_and_the_rest_imported() {
    let tmp = workspace();
    let beads = tmp.path().join(".beads");
    fs::create_dir_all(&beads).unwrap();
    let mut f = fs::File::create(beads.join("issues.jsonl")).unwrap();
    use std::io::Write;
    writeln!(
        f,
        r#"{{"id":"x-1","title":"First","status":"open","created_at":"2025-01-02T03:04:05Z"}}"#
    )
    .unwrap();
    write!(f, r#"{{"id":"x-2","title":""#).unwrap();
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..100 {
        f.write_all(&chunk).unwrap();
    }
    writeln!(f, r#""}}"#).unwrap();
    writeln!(f, "not json").unwrap();
    writeln!(f, r#"{{"id":"x-3","title":"Third","status":"closed","created_at":"2025-01-03T00:00:00Z","dependencies":[{{"depends_on_id":"x-1","type":"blocks"}}]}}"#).unwrap();
    drop(f);
    let run = memlint(
        tmp.path(),
        &["import", "beads", ".beads/issues.jsonl", "--format", "json"],
    );
    assert_eq!(run.code, 1);
    let report = json(&run);
    let huge = item(&report, ".beads/issues.jsonl:2");
    assert_eq!(huge["outcome"], "refused");
    assert_eq!(huge["reason"], "line 2 is 104857623 bytes long, over the 1048576-byte limit (max_file_bytes); skipped without being read whole");
    assert_eq!(item(&report, ".beads/issues.jsonl:3")["outcome"], "refused");
    assert_eq!(
        item(&report, ".beads/issues.jsonl#x-1")["record"],
        "memory/requests/x-1.md"
    );
    let third = fs::read_to_string(tmp.path().join("memory/requests/x-3.md")).unwrap();
    assert!(third.starts_with("---\ntitle: Third\nstatus: done\ndate: 2025-01-03\nsources:\n  - file:.beads/issues.jsonl\n  - request:x-1\n---\n"), "{third}");
}

/// What `memlint export agents-md` wrote is memlint's own: never imported
/// back.
#[test]
fn import_never_reimports_memlints_own_block() {
    let tmp = workspace();
    fs::create_dir_all(tmp.path().join("c")).unwrap();
    fs::write(
        tmp.path().join("c/CLAUDE.md"),
        "# Project\n\nBuild with make.\n\n<!-- memlint:begin -->\nResident: memory-stuff\n<!-- memlint:end -->\n",
    )
    .unwrap();
    let report = json(&memlint(
        tmp.path(),
        &["import", "claude", "c", "--format", "json"],
    ));
    let it = item(&report, "c/CLAUDE.md");
    assert!(
        it["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "memlint's own block (`memlint export agents-md`) was left out"),
        "{it}"
    );
    let text = fs::read_to_string(tmp.path().join("knowledge/project.md")).unwrap();
    assert!(
        !text.contains("memlint:begin") && !text.contains("memory-stuff"),
        "{text}"
    );
}

/// A record already there under the slug, which is not this item's
/// import, is never touched: the next free slug is taken, and a second
/// run still finds the item's own record.
#[test]
fn a_slug_taken_by_another_record_is_never_overwritten() {
    let tmp = workspace();
    let mine = "---\ntitle: Same Title\ndescription: mine\nmodel_invocation: false\ndate: 2025-01-01\nsources:\n  - https://example.com/mine\n---\n\nMine.\n";
    fs::write(tmp.path().join("knowledge/same-title.md"), mine).unwrap();
    fs::create_dir_all(tmp.path().join("notes")).unwrap();
    fs::write(
        tmp.path().join("notes/n.md"),
        "---\ntitle: Same Title\n---\n\nTheirs.\n",
    )
    .unwrap();
    for _ in 0..2 {
        let report = json(&memlint(
            tmp.path(),
            &["import", "basic-memory", "notes", "--format", "json"],
        ));
        assert_eq!(
            item(&report, "notes/n.md")["record"],
            "knowledge/same-title-2.md",
            "{report:#}"
        );
    }
    assert_eq!(
        fs::read_to_string(tmp.path().join("knowledge/same-title.md")).unwrap(),
        mine
    );
}

/// A credential in an imported file's name never reaches a slug, a title
/// or anything printed: the file is refused (its `file:` source would
/// repeat the name) and the report masks it in the input's name.
#[test]
fn a_credential_in_a_file_name_is_never_printed_or_written() {
    let tmp = workspace();
    fs::create_dir_all(tmp.path().join("c")).unwrap();
    let ghp = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    let akia = "AKIAIOSFODNN7EXAMPLE";
    fs::write(tmp.path().join(format!("c/{ghp}.md")), "Build with make.\n").unwrap();
    fs::write(
        tmp.path().join(format!("c/{akia}-notes.md")),
        "Deploy on Fridays never.\n",
    )
    .unwrap();
    let leaks = |s: &str| {
        let l = s.to_lowercase();
        l.contains("abcdefghijklmnopqrstuvwxyz0123456789")
            || l.contains("iosfodnn7")
            || l.contains("akia-")
    };
    let text = memlint(tmp.path(), &["import", "claude", "c"]);
    assert!(!leaks(&text.stdout) && !leaks(&text.stderr), "{text:?}");
    let json_run = memlint(tmp.path(), &["import", "claude", "c", "--format", "json"]);
    assert!(
        !leaks(&json_run.stdout) && !leaks(&json_run.stderr),
        "{json_run:?}"
    );
    let report = json(&json_run);
    for it in report["items"].as_array().unwrap() {
        assert_eq!(it["outcome"], "refused", "{report:#}");
        assert!(
            it["reason"]
                .as_str()
                .unwrap()
                .starts_with("its path holds what looks like"),
            "{report:#}"
        );
    }
    assert_eq!(report["summary"]["refused"], 2, "{report:#}");
    let mut files = Vec::new();
    files_under(&tmp.path().join("knowledge"), &mut files);
    for f in files {
        let name = f.to_string_lossy().into_owned();
        assert!(!leaks(&name), "{name}");
        let body = fs::read_to_string(&f).unwrap();
        let front = body.split("sources:").next().unwrap();
        assert!(!leaks(front), "{name}: {body}");
    }
}

/// beads ids that differ only in case are different issues: a dependency
/// cites the record of the exact id it names. An id (or a dependency's
/// id) that is a number is an id.
#[test]
fn beads_dependencies_resolve_to_the_exact_id_and_numeric_ids_import() {
    let tmp = workspace();
    fs::create_dir_all(tmp.path().join(".beads")).unwrap();
    fs::write(
        tmp.path().join(".beads/issues.jsonl"),
        concat!(
            r#"{"id":"X-1","title":"Upper","status":"open","created_at":"2025-01-02T00:00:00Z"}"#,
            "\n",
            r#"{"id":"x-1","title":"Lower","status":"open","created_at":"2025-01-02T00:00:00Z"}"#,
            "\n",
            r#"{"id":"y-1","title":"Needs lower","status":"open","created_at":"2025-01-02T00:00:00Z","dependencies":[{"depends_on_id":"x-1","type":"blocks"}]}"#,
            "\n",
            r#"{"id":"y-2","title":"Needs upper","status":"open","created_at":"2025-01-02T00:00:00Z","dependencies":[{"depends_on_id":"X-1","type":"blocks"}]}"#,
            "\n",
            r#"{"id":42,"title":"Numbered","status":"closed","created_at":"2025-01-03T00:00:00Z","dependencies":[{"depends_on_id":"y-1","type":"blocks"}]}"#,
            "\n",
            r#"{"id":"y-3","title":"Needs numbered","status":"open","created_at":"2025-01-02T00:00:00Z","dependencies":[{"depends_on_id":42,"type":"blocks"}]}"#,
            "\n",
        ),
    )
    .unwrap();
    let run = memlint(
        tmp.path(),
        &["import", "beads", ".beads/issues.jsonl", "--format", "json"],
    );
    let report = json(&run);
    let upper = item(&report, ".beads/issues.jsonl#X-1")["record"]
        .as_str()
        .unwrap()
        .to_string();
    let lower = item(&report, ".beads/issues.jsonl#x-1")["record"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(upper, lower);
    let sources = |rel: &str| {
        let text = fs::read_to_string(tmp.path().join("memory/requests").join(rel)).unwrap();
        text.split("---\n").nth(1).unwrap().to_string()
    };
    let stem = |p: &str| {
        p.trim_start_matches("memory/requests/")
            .trim_end_matches(".md")
            .to_string()
    };
    assert!(
        sources("y-1.md").contains(&format!("  - request:{}\n", stem(&lower))),
        "{}",
        sources("y-1.md")
    );
    assert!(!sources("y-1.md").contains(&format!("  - request:{}\n", stem(&upper))));
    assert!(
        sources("y-2.md").contains(&format!("  - request:{}\n", stem(&upper))),
        "{}",
        sources("y-2.md")
    );
    assert!(!sources("y-2.md").contains(&format!("  - request:{}\n", stem(&lower))));
    assert_eq!(run.code, 0, "{run:?}");
    let numbered = item(&report, ".beads/issues.jsonl#42");
    assert_eq!(numbered["outcome"], "written", "{report:#}");
    assert_eq!(numbered["record"], "memory/requests/42.md");
    assert!(
        sources("y-3.md").contains("  - request:42\n"),
        "{}",
        sources("y-3.md")
    );
    assert!(sources("42.md").contains("status: done\n"));
    assert!(fs::read_to_string(tmp.path().join("memory/requests/42.md"))
        .unwrap()
        .contains("- id: `42`\n"));
}

/// A source changed after its import is never reported `unchanged`: the
/// item is `changed`, its record is left as it was, the exit code is 1.
/// A source that only got committed since (its date now from git) is
/// still `unchanged`.
#[test]
fn a_source_changed_since_its_import_is_reported_changed() {
    let tmp = workspace();
    fs::create_dir_all(tmp.path().join("c")).unwrap();
    fs::write(
        tmp.path().join("c/notes.md"),
        "# Notes\n\nBuild with make.\n",
    )
    .unwrap();
    fs::create_dir_all(tmp.path().join(".beads")).unwrap();
    let issue = |status: &str| {
        format!(
            r#"{{"id":"x-1","title":"First","status":"{status}","created_at":"2025-01-02T00:00:00Z"}}"#
        ) + "\n"
    };
    fs::write(tmp.path().join(".beads/issues.jsonl"), issue("open")).unwrap();
    assert_eq!(memlint(tmp.path(), &["import", "claude", "c"]).code, 0);
    assert_eq!(
        memlint(tmp.path(), &["import", "beads", ".beads/issues.jsonl"]).code,
        0
    );
    // Committed since: dated from git now, but the same import.
    git(tmp.path(), &["add", "c"], &[]);
    git(tmp.path(), &["commit", "-qm", "notes"], &[]);
    let again = memlint(tmp.path(), &["import", "claude", "c", "--format", "json"]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(item(&json(&again), "c/notes.md")["outcome"], "unchanged");
    let record = fs::read_to_string(tmp.path().join("knowledge/notes.md")).unwrap();
    fs::write(
        tmp.path().join("c/notes.md"),
        "# Notes\n\nBuild with make.\n\nDeploy with ansible.\n",
    )
    .unwrap();
    let run = memlint(tmp.path(), &["import", "claude", "c", "--format", "json"]);
    assert_eq!(run.code, 1, "{run:?}");
    let report = json(&run);
    let it = item(&report, "c/notes.md");
    assert_eq!(it["outcome"], "changed", "{report:#}");
    assert_eq!(it["record"], "knowledge/notes.md");
    assert_eq!(it["reason"], "the source changed since it was imported into knowledge/notes.md (or the record was edited since); not re-imported: bring the change into the record by hand");
    assert_eq!(report["summary"]["changed"], 1);
    assert_eq!(
        fs::read_to_string(tmp.path().join("knowledge/notes.md")).unwrap(),
        record
    );
    let human = memlint(tmp.path(), &["import", "claude", "c"]);
    assert!(
        human
            .stdout
            .contains("c/notes.md: changed knowledge/notes.md: the source changed"),
        "{human:?}"
    );
    assert!(
        human.stdout.contains(", 1 changed since imported"),
        "{human:?}"
    );
    // A beads issue closed since its import.
    fs::write(tmp.path().join(".beads/issues.jsonl"), issue("closed")).unwrap();
    let run = memlint(
        tmp.path(),
        &["import", "beads", ".beads/issues.jsonl", "--format", "json"],
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(
        item(&json(&run), ".beads/issues.jsonl#x-1")["outcome"],
        "changed"
    );
}

/// Symbolic links are judged by where they lead: into memlint's own
/// files (CONTEXT.md, .memlint.yml, records) or git's, nothing is read; a
/// file reached both as itself and through a link is one record; `.git`
/// itself is never walked.
#[cfg(unix)]
#[test]
fn links_into_memlints_own_files_or_git_are_skipped_and_files_read_once() {
    use std::os::unix::fs::symlink;
    let tmp = workspace();
    let root = tmp.path();
    fs::write(
        root.join("CONTEXT.md"),
        "# Context\n\n## 2025-01-01 — Start\n\nBegun.\n",
    )
    .unwrap();
    fs::write(
        root.join("knowledge/kept.md"),
        "---\ntitle: Kept\ndescription: kept\nmodel_invocation: false\ndate: 2025-01-01\nsources:\n  - https://example.com/k\n---\n\nKept.\n",
    )
    .unwrap();
    fs::create_dir_all(root.join("mem")).unwrap();
    fs::create_dir_all(root.join("mem2")).unwrap();
    fs::write(root.join("mem/real.md"), "# Real\n\nOnce.\n").unwrap();
    symlink("../CONTEXT.md", root.join("mem/ctx.md")).unwrap();
    symlink("../.memlint.yml", root.join("mem/cfg.md")).unwrap();
    symlink("../knowledge/kept.md", root.join("mem/kept.md")).unwrap();
    symlink("real.md", root.join("mem/a-link.md")).unwrap();
    symlink("../.git/HEAD", root.join("mem2/head.md")).unwrap();
    let run = memlint(
        root,
        &["import", "claude", "mem", "mem2", "--format", "json"],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let report = json(&run);
    for (input, to) in [
        ("mem/ctx.md", "CONTEXT.md"),
        ("mem/cfg.md", ".memlint.yml"),
        ("mem/kept.md", "knowledge/kept.md"),
        ("mem2/head.md", ".git/HEAD"),
    ] {
        let it = item(&report, input);
        assert_eq!(it["outcome"], "skipped", "{report:#}");
        assert_eq!(
            it["reason"],
            format!("inside memlint's own files (memory/, knowledge/, staging/, CONTEXT.md, .memlint.yml, .memlint/) or git's (.git/), through a symbolic link to {to}; not imported")
        );
    }
    assert_eq!(item(&report, "mem/real.md")["outcome"], "written");
    let link = item(&report, "mem/a-link.md");
    assert_eq!(link["outcome"], "skipped", "{report:#}");
    assert_eq!(
        link["reason"],
        "not imported again: the same file as mem/real.md, reached through a symbolic link"
    );
    assert_eq!(report["summary"]["written"], 1, "{report:#}");
    let mut files = Vec::new();
    files_under(&root.join("knowledge"), &mut files);
    files.retain(|f| f.extension().is_some_and(|e| e == "md"));
    assert_eq!(files.len(), 2, "{files:?}");
    // `.git` named on the command line is not walked.
    let run = memlint(root, &["import", "claude", ".git", "--format", "json"]);
    let report = json(&run);
    assert_eq!(report["summary"]["items"], 1, "{report:#}");
    assert_eq!(item(&report, ".git")["outcome"], "skipped");
}

/// A record directory that is a symbolic link out of the root: nothing of
/// the import is written, out there or anywhere (exit 2, one line naming
/// the link), however many records would go through it.
#[cfg(unix)]
#[test]
fn a_record_directory_linked_out_of_the_root_gets_nothing_written() {
    let tmp = workspace();
    let notes = tmp.path().join("notes");
    fs::create_dir_all(&notes).unwrap();
    for i in 0..3 {
        fs::write(
            notes.join(format!("n{i}.md")),
            format!("---\ntitle: Note {i}\n---\n\nText {i}.\n"),
        )
        .unwrap();
    }
    let outside = tempfile::tempdir().unwrap();
    let _ = fs::remove_dir_all(tmp.path().join("knowledge"));
    std::os::unix::fs::symlink(outside.path(), tmp.path().join("knowledge")).unwrap();
    let run = memlint(tmp.path(), &["import", "basic-memory", "notes"]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stderr,
        "memlint: error: knowledge leads out of the workspace root through a symbolic link; memlint never writes there; nothing of this import was written\n"
    );
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
}
