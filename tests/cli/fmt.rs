//! `memlint fmt` and `memlint check --fix`, run as the real binary on small
//! workspaces in temporary directories.

use crate::common;

use common::{Memlint, BIN};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const CLEAN: &str = "---\ntitle: Use gix\nstatus: active\ndate: 2026-11-01\nsources:\n  - commit:abc1234\ntags: [git]\n---\n\nBody.\n";
const MESSY: &str = "---\ndate: 2026-11-01\nsources: [commit:abc1234]\n# why it matters\ntitle: yes   \nstatus: active\ntags:\n  - git\n---\n\nBody.\n\n\n";
const MESSY_FORMATTED: &str = "---\n# why it matters\ntitle: 'yes'\nstatus: active\ndate: 2026-11-01\nsources:\n  - commit:abc1234\ntags: [git]\n---\n\nBody.\n";
const BROKEN: &str = "---\ntitle: a: b\n---\nbody\n";

fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(dir.path().join(".memlint.yml"), "").expect("config");
    for (path, text) in files {
        let p = dir.path().join(path);
        fs::create_dir_all(p.parent().expect("parent")).expect("dirs");
        fs::write(p, text).expect("write");
    }
    dir
}

fn run(root: &Path, args: &[&str]) -> Output {
    Memlint::new(root)
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
}

fn run_stdin(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    Memlint::new(dir).args(args).stdin(input).output()
}

fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).expect("read")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn fmt_rewrites_records_and_only_records() {
    let context = "# Context\n\n## 2026-11-01 x   \n";
    let ws = workspace(&[
        ("memory/decisions/messy.md", MESSY),
        ("memory/decisions/clean.md", CLEAN),
        ("memory/decisions/broken.md", BROKEN),
        ("CONTEXT.md", context),
        ("docs/other.md", MESSY),
    ]);
    let out = run(ws.path(), &["fmt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        read(ws.path(), "memory/decisions/messy.md"),
        MESSY_FORMATTED
    );
    assert_eq!(read(ws.path(), "memory/decisions/clean.md"), CLEAN);
    assert_eq!(read(ws.path(), "memory/decisions/broken.md"), BROKEN);
    assert_eq!(read(ws.path(), "CONTEXT.md"), context);
    assert_eq!(read(ws.path(), "docs/other.md"), MESSY);
    assert_eq!(
        stdout(&out),
        "1 file reformatted, 1 unchanged, 1 left as they are.\n"
    );
    let err = stderr(&out);
    assert!(
        err.contains("memlint: note: memory/decisions/broken.md: left as it is: the front matter does not parse"),
        "{err}"
    );
    // A second run changes nothing.
    let again = run(ws.path(), &["fmt", "-q"]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(stdout(&again), "");
    assert_eq!(
        read(ws.path(), "memory/decisions/messy.md"),
        MESSY_FORMATTED
    );
}

#[test]
fn fmt_notes_a_list_it_cannot_lay_out_and_formats_the_rest() {
    let commented = "---\ntags:  # topics\n  - a\n  - b\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:x.md\n---\nBody\n";
    let ws = workspace(&[("memory/decisions/t.md", commented)]);
    let root = ws.path();
    let note = "memlint: note: memory/decisions/t.md: `tags` stays a block list instead of a flow list (`[a, b]`): it holds a comment, which would be lost\n";

    let out = run(root, &["fmt", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), note);
    assert_eq!(read(root, "memory/decisions/t.md"), commented);

    let out = run(root, &["fmt"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), note);
    assert_eq!(stdout(&out), "1 file reformatted, 0 unchanged.\n");
    assert_eq!(
        read(root, "memory/decisions/t.md"),
        "---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources:\n  - file:x.md\ntags:  # topics\n  - a\n  - b\n---\nBody\n"
    );

    // Formatted as far as it can be: --check passes, with the note.
    let out = run(root, &["fmt", "--check"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), note);
    assert_eq!(
        stdout(&out),
        "0 files would be reformatted, 1 already formatted.\n"
    );
    let out = run(root, &["fmt", "--check", "-q"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), "");
}

#[test]
fn fmt_paths_select_files() {
    let ws = workspace(&[("memory/decisions/a.md", MESSY), ("knowledge/b.md", MESSY)]);
    let out = run(
        ws.path(),
        &["fmt", &ws.path().join("knowledge").display().to_string()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(read(ws.path(), "memory/decisions/a.md"), MESSY);
    assert_ne!(read(ws.path(), "knowledge/b.md"), MESSY);
    let missing = run(ws.path(), &["fmt", "/nonexistent/x.md"]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn fmt_check_lists_and_writes_nothing() {
    let ws = workspace(&[
        ("memory/decisions/messy.md", MESSY),
        ("memory/decisions/clean.md", CLEAN),
    ]);
    let out = run(ws.path(), &["fmt", "--check"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "Would reformat: memory/decisions/messy.md\n1 file would be reformatted, 1 already formatted.\n"
    );
    assert_eq!(read(ws.path(), "memory/decisions/messy.md"), MESSY);

    fs::write(ws.path().join("memory/decisions/messy.md"), MESSY_FORMATTED).expect("write");
    let out = run(ws.path(), &["fmt", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        stdout(&out),
        "0 files would be reformatted, 2 already formatted.\n"
    );
}

#[test]
fn fmt_diff_shows_a_unified_diff() {
    let ws = workspace(&[("memory/decisions/messy.md", MESSY)]);
    let out = run(ws.path(), &["fmt", "--diff", "-q"]);
    assert_eq!(out.status.code(), Some(1));
    let diff = stdout(&out);
    assert!(
        diff.starts_with("--- a/memory/decisions/messy.md\n+++ b/memory/decisions/messy.md\n@@ "),
        "{diff}"
    );
    assert!(diff.contains("\n-title: yes   \n"), "{diff}");
    assert!(diff.contains("\n+title: 'yes'\n"), "{diff}");
    assert!(diff.contains("\n+tags: [git]\n"), "{diff}");
    assert_eq!(read(ws.path(), "memory/decisions/messy.md"), MESSY);
    // The summary goes to standard error, so standard output stays a patch.
    let out = run(ws.path(), &["fmt", "--diff"]);
    assert_eq!(stdout(&out), diff);
    assert!(
        stderr(&out).contains("1 file would be reformatted"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn stdin_filepath_formats_as_that_file() {
    let ws = workspace(&[
        (".memlintignore", "knowledge/ignored.md\n"),
        ("knowledge/.keep", ""),
    ]);
    // Formats, from another directory: the root is found from the path.
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let path = ws.path().join("memory/decisions/new.md");
    let out = run_stdin(
        elsewhere.path(),
        &["fmt", "--stdin-filepath", &path.display().to_string()],
        MESSY.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), MESSY_FORMATTED);
    // Already formatted: comes back as it is.
    let out = run_stdin(
        ws.path(),
        &["fmt", "--stdin-filepath", "knowledge/x.md"],
        CLEAN.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), CLEAN);
    // Cannot be formatted: nothing on stdout, the reason on stderr, exit 1.
    let out = run_stdin(
        ws.path(),
        &["fmt", "--stdin-filepath", "knowledge/x.md"],
        BROKEN.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("does not parse"), "{}", stderr(&out));
    let out = run_stdin(
        ws.path(),
        &["fmt", "--stdin-filepath", "knowledge/x.md"],
        b"---\ntitle: \xff\n---\n",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    // Excluded, or not a record: echoed unchanged.
    for p in ["knowledge/ignored.md", "docs/readme.md", "CONTEXT.md"] {
        let out = run_stdin(ws.path(), &["fmt", "--stdin-filepath", p], MESSY.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{p}");
        assert_eq!(stdout(&out), MESSY, "{p}");
    }
}

#[cfg(unix)]
#[test]
fn fmt_keeps_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let ws = workspace(&[("memory/decisions/messy.md", MESSY)]);
    let path = ws.path().join("memory/decisions/messy.md");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).expect("chmod");
    let out = run(ws.path(), &["fmt"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        read(ws.path(), "memory/decisions/messy.md"),
        MESSY_FORMATTED
    );
    let mode = fs::metadata(&path).expect("metadata").permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    // No temporary file is left behind.
    let names: Vec<String> = fs::read_dir(ws.path().join("memory/decisions"))
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["messy.md".to_string()]);
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

fn rules_of(v: &serde_json::Value) -> Vec<(String, String)> {
    let mut r: Vec<(String, String)> = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or("").to_string(),
                d["rule"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    r.sort();
    r
}

#[test]
fn check_fix_end_to_end() {
    let knowledge = "\u{feff}---\r\ntitle: Notes\r\ndescription: d\r\nmodel_invokation: false\r\ndate: 2026-11-01\r\nsources:\r\n  - commit:abc1234\r\n  - commit:abc1234\r\n---\r\nBody\r\n";
    let decision = "---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources: [commit:abc1234, commit:abc1234]\nsatus: x\n---\nBody\n";
    let ws = workspace(&[
        ("knowledge/notes.md", knowledge),
        ("memory/decisions/use-x.md", decision),
    ]);
    let before = run(ws.path(), &["check", "--format", "json"]);
    let rules = rules_of(&json(&before));
    for r in [
        "format/bom",
        "format/crlf",
        "frontmatter/unknown-key",
        "sources/duplicate",
    ] {
        assert!(
            rules.iter().any(|(_, x)| x == r),
            "{r} not reported: {rules:?}"
        );
    }

    let out = run(ws.path(), &["check", "--fix", "--format", "json"]);
    assert_eq!(
        read(ws.path(), "knowledge/notes.md"),
        "---\ntitle: Notes\ndescription: d\nmodel_invocation: false\ndate: 2026-11-01\nsources:\n  - commit:abc1234\n---\nBody\n"
    );
    // `satus` cannot become `status` (present already): it stays, and is
    // what remains.
    assert_eq!(
        read(ws.path(), "memory/decisions/use-x.md"),
        "---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources: [commit:abc1234]\nsatus: x\n---\nBody\n"
    );
    let remaining = rules_of(&json(&out));
    assert_eq!(
        remaining,
        vec![(
            "memory/decisions/use-x.md".to_string(),
            "frontmatter/unknown-key".to_string()
        )]
    );
    // A warning remains: exit 0, but 1 with --deny-warnings.
    assert_eq!(out.status.code(), Some(0));
    let out = run(ws.path(), &["check", "--fix", "--deny-warnings", "-q"]);
    assert_eq!(out.status.code(), Some(1));
}

/// `check --fix` takes its findings from the index: an edit made after the
/// index was written is fixed too.
#[test]
fn check_fix_sees_an_edit_made_after_the_index_was_written() {
    let clean =
        "---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources: [commit:abc1234]\n---\nBody\n";
    let ws = workspace(&[("memory/decisions/use-x.md", clean)]);
    let first = run(ws.path(), &["check", "--format", "json"]);
    assert_eq!(rules_of(&json(&first)), vec![]);
    assert!(ws.path().join(".memlint/index").is_file());
    let doubled = clean.replace("[commit:abc1234]", "[commit:abc1234, commit:abc1234]");
    std::fs::write(ws.path().join("memory/decisions/use-x.md"), &doubled).expect("edit");
    let out = run(ws.path(), &["check", "--fix", "--format", "json"]);
    assert_eq!(read(ws.path(), "memory/decisions/use-x.md"), clean);
    assert_eq!(rules_of(&json(&out)), vec![]);
}

#[test]
fn check_fix_exit_code_reflects_remaining_errors() {
    let decision =
        "\u{feff}---\ntitle: T\nstatus: nope\ndate: 2026-11-01\nsources: [commit:abc1234]\n---\n";
    let ws = workspace(&[("memory/decisions/a.md", decision)]);
    let out = run(ws.path(), &["check", "--fix", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!read(ws.path(), "memory/decisions/a.md").starts_with('\u{feff}'));
    assert_eq!(
        rules_of(&json(&out)),
        vec![(
            "memory/decisions/a.md".to_string(),
            "frontmatter/type".to_string()
        )]
    );
}

#[test]
fn check_fix_points_a_chain_at_its_final_record() {
    let rec = |status: &str, by: Option<&str>| {
        format!(
            "---\ntitle: T\nstatus: {status}\ndate: 2026-11-01\nsources: [commit:abc1234]\n{}---\n",
            by.map(|b| format!("replaced_by: {b}\n"))
                .unwrap_or_default()
        )
    };
    let ws = workspace(&[
        (
            "memory/decisions/first.md",
            &rec("replaced", Some("second")),
        ),
        (
            "memory/decisions/second.md",
            &rec("replaced", Some("third")),
        ),
        ("memory/decisions/third.md", &rec("active", None)),
    ]);
    let before = rules_of(&json(&run(ws.path(), &["check", "--format", "json"])));
    assert!(
        before.contains(&("memory/decisions/first.md".into(), "status/chain".into())),
        "{before:?}"
    );
    let out = run(ws.path(), &["check", "--fix", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(read(ws.path(), "memory/decisions/first.md").contains("replaced_by: third\n"));
    assert!(read(ws.path(), "memory/decisions/second.md").contains("replaced_by: third\n"));
    assert_eq!(rules_of(&json(&out)), vec![]);
}

#[test]
fn check_fix_leaves_rules_turned_off() {
    let ws = workspace(&[(
        "memory/decisions/a.md",
        "\u{feff}---\ntitle: T\nstatus: active\ndate: 2026-11-01\nsources: [commit:abc1234]\n---\n",
    )]);
    fs::write(ws.path().join(".memlint.yml"), "rules: {format/bom: off}\n").expect("config");
    let out = run(ws.path(), &["check", "--fix"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(read(ws.path(), "memory/decisions/a.md").starts_with('\u{feff}'));
}

/// Generated workspace for the kill test: `../shared/bench/gen_workspace.py`.
fn generator() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/gen_workspace.py");
    p.is_file().then_some(p)
}

/// Makes a formatted record unformatted without changing what it means:
/// keys reversed, a flow `sources` list, trailing spaces, CRLF.
fn unformat(text: &str) -> Option<String> {
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    let (fm, body) = (&rest[..end + 1], &rest[end + 5..]);
    let mut blocks: Vec<String> = Vec::new();
    for line in fm.lines() {
        if line.starts_with(' ') || line.starts_with('-') {
            let last = blocks.last_mut()?;
            last.push('\n');
            last.push_str(line);
        } else {
            blocks.push(line.to_string());
        }
    }
    blocks.reverse();
    let fm = blocks
        .into_iter()
        .map(|b| {
            if let Some(items) = b.strip_prefix("sources:\n") {
                let items: Vec<&str> = items
                    .lines()
                    .map(|l| l.trim_start_matches([' ', '-']))
                    .collect();
                format!("sources: [{}]", items.join(", "))
            } else {
                format!("{b}   ")
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    Some(format!("---\n{fm}\n---\n{body}").replace('\n', "\r\n"))
}

/// Killing `memlint fmt` at random moments leaves every record either as it
/// was or formatted, never half-written, and every record still parses.
#[cfg(unix)]
#[test]
fn killed_fmt_leaves_every_record_old_or_new() {
    let Some(generator) = generator() else {
        eprintln!("SKIPPED: ../shared/bench/gen_workspace.py is absent");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("ws");
    let status = Command::new("python3")
        .arg(&generator)
        .args(["--out"])
        .arg(&root)
        .args(["--records", "2000", "--violations", "0.1"])
        .stdout(Stdio::null())
        .status();
    match status {
        Ok(s) if s.success() => {}
        _ => {
            eprintln!("SKIPPED: python3 could not run the generator");
            return;
        }
    }
    // Every record: its original (unformatted) text and its formatted text.
    let mut records: Vec<(PathBuf, String, String)> = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                let Ok(text) = fs::read_to_string(&p) else {
                    continue;
                };
                let rel = p
                    .strip_prefix(&root)
                    .expect("inside")
                    .to_string_lossy()
                    .replace('\\', "/");
                let Some(memlint::model::kind::Place::Record(kind)) = Some(
                    memlint::model::kind::classify(&rel, &["memory/workflow".to_string()]),
                ) else {
                    continue;
                };
                let original = unformat(&text).unwrap_or(text);
                let formatted = match memlint::fmt::format_record(&original, kind) {
                    memlint::fmt::Outcome::Formatted(f) => f,
                    _ => original.clone(),
                };
                fs::write(&p, &original).expect("write");
                records.push((p, original, formatted));
            }
        }
    }
    let changing = records.iter().filter(|(_, o, f)| o != f).count();
    assert!(changing > 1500, "only {changing} records to format");

    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut killed_midway = 0;
    for round in 0..6 {
        let mut child = Command::new(BIN)
            .arg("--root")
            .arg(&root)
            .args(["fmt", "-q"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run memlint");
        let delay = 5 + rand() % 120;
        std::thread::sleep(std::time::Duration::from_millis(delay));
        let _ = child.kill();
        let _ = child.wait();
        let (mut old, mut new) = (0, 0);
        for (p, original, formatted) in &records {
            let now = fs::read_to_string(p).expect("record readable");
            if &now == formatted {
                new += 1;
            } else if &now == original {
                old += 1;
            } else {
                panic!(
                    "round {round}: {} is neither old nor new:\n{now}",
                    p.display()
                );
            }
        }
        if old > 0 && new > 0 {
            killed_midway += 1;
        }
        // Start again from the unformatted texts for the next round.
        for (p, original, _) in &records {
            fs::write(p, original).expect("restore");
        }
    }
    eprintln!("kill test: {killed_midway} of 6 kills landed mid-run");
    // Finally a full run formats everything.
    let out = run(&root, &["fmt", "-q"]);
    assert_eq!(out.status.code(), Some(0));
    for (p, _, formatted) in &records {
        assert_eq!(&fs::read_to_string(p).expect("read"), formatted);
    }
}

#[cfg(unix)]
#[test]
fn fmt_and_fix_write_through_a_link_inside_the_root() {
    let ws = workspace(&[("notes/real.md", MESSY)]);
    fs::create_dir_all(ws.path().join("memory/decisions")).expect("dirs");
    std::os::unix::fs::symlink(
        "../../notes/real.md",
        ws.path().join("memory/decisions/link.md"),
    )
    .expect("symlink");
    let out = run(ws.path(), &["fmt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let link = ws.path().join("memory/decisions/link.md");
    assert!(fs::symlink_metadata(&link)
        .expect("link")
        .file_type()
        .is_symlink());
    assert_eq!(read(ws.path(), "notes/real.md"), MESSY_FORMATTED);
    // `check --fix` too: a BOM removed through the link.
    fs::write(ws.path().join("notes/real.md"), format!("\u{feff}{CLEAN}")).expect("write");
    run(ws.path(), &["check", "--fix"]);
    assert!(fs::symlink_metadata(&link)
        .expect("link")
        .file_type()
        .is_symlink());
    assert_eq!(read(ws.path(), "notes/real.md"), CLEAN);
}
