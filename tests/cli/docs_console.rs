//! Every ```console block of README.md and docs/*.md prints what it shows.
//!
//! Each page is one session in a fresh, empty git repository (the
//! "/tmp/tour" of the pages), with the memlint under test first on `PATH`,
//! colours off and a fixed git identity. The page is read top to bottom:
//!
//! - a fenced block whose info string has `file=PATH` (```` ```markdown
//!   file=memory/decisions/use-sqlite.md ````) is written to PATH;
//! - an HTML comment `<!-- doctest: COMMANDS -->` is run with `sh` (the
//!   steps the prose describes but shows no command for, such as "edit the
//!   date"); its output is not compared;
//! - in a ```console block, a line starting with `$ ` is a command run
//!   with `sh -c` (standard error merged into standard output, as a
//!   terminal shows them; `$?` is the previous command's status), and the
//!   lines up to the next command are what it must print. A line `...`
//!   stands for any number of lines.
//!
//! Before comparing, both sides have dates, commit hashes and staging ids
//! replaced by placeholders, the repository's path written as `/tmp/tour`
//! and trailing blanks removed.

use crate::common;

use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One thing a page asks for, in page order.
#[derive(Debug)]
enum Step {
    File {
        path: String,
        text: String,
    },
    Setup {
        line: usize,
        script: String,
    },
    Run {
        line: usize,
        command: String,
        expected: Vec<String>,
    },
}

/// The info string's `file=PATH`, if any.
fn file_attr(info: &str) -> Option<String> {
    info.split_whitespace()
        .find_map(|w| w.strip_prefix("file="))
        .map(str::to_string)
}

fn parse(text: &str) -> Vec<Step> {
    let lines: Vec<&str> = text.lines().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("<!-- doctest:") {
            let start = i + 1;
            let mut script = String::new();
            let mut rest = rest.to_string();
            loop {
                if let Some((body, _)) = rest.split_once("-->") {
                    script.push_str(body);
                    break;
                }
                script.push_str(&rest);
                script.push('\n');
                i += 1;
                rest = lines.get(i).expect("unclosed doctest comment").to_string();
            }
            steps.push(Step::Setup {
                line: start,
                script,
            });
            i += 1;
            continue;
        }
        let fence = trimmed.chars().take_while(|c| *c == '`').count();
        if fence < 3 {
            i += 1;
            continue;
        }
        let info = trimmed[fence..].trim();
        let marker = "`".repeat(fence);
        let start = i + 1;
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() && lines[i].trim() != marker {
            body.push(lines[i]);
            i += 1;
        }
        i += 1;
        if let Some(path) = file_attr(info) {
            let mut text = body.join("\n");
            text.push('\n');
            steps.push(Step::File { path, text });
        } else if info.split_whitespace().next() == Some("console") {
            for (k, l) in body.iter().enumerate() {
                if let Some(command) = l.strip_prefix("$ ") {
                    steps.push(Step::Run {
                        line: start + k + 1,
                        command: command.to_string(),
                        expected: Vec::new(),
                    });
                } else if let Some(Step::Run { expected, .. }) = steps.last_mut() {
                    expected.push(l.to_string());
                } else {
                    panic!(
                        "line {}: console output before any `$ ` command",
                        start + k + 1
                    );
                }
            }
        }
    }
    steps
}

/// The text with what changes from run to run replaced.
fn normalise(text: &str, root: &Path) -> Vec<String> {
    let root = root.to_string_lossy();
    let id = Regex::new(r"\b\d{8}-\d{6}-[0-9a-f]{4}\b").expect("regex");
    let date = Regex::new(r"\b\d{4}-\d{2}-\d{2}\b").expect("regex");
    let hash = Regex::new(r"\b[0-9a-f]{7,40}\b").expect("regex");
    let mut out: Vec<String> = text
        .replace(root.as_ref(), "/tmp/tour")
        .lines()
        .map(|l| {
            let l = id.replace_all(l, "<ID>");
            let l = date.replace_all(&l, "<DATE>");
            let l = hash.replace_all(&l, |c: &regex::Captures| {
                // A commit id may be letters only (`daafdcf`): one of the
                // lengths git and memlint print counts, a word of a-f
                // letters of another length does not.
                if c[0].bytes().any(|b| b.is_ascii_digit()) || [7, 12, 40].contains(&c[0].len()) {
                    "<HASH>".to_string()
                } else {
                    c[0].to_string()
                }
            });
            l.trim_end().to_string()
        })
        .collect();
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// Whether one output line matches its expected line, where ` …` inside an
/// expected line stands for the rest of a long line up to the text after it.
fn line_matches(expected: &str, actual: &str) -> bool {
    if expected == actual {
        return true;
    }
    match expected.split_once(" …") {
        Some((head, tail)) => {
            actual.len() >= head.len() + tail.len()
                && actual.starts_with(head)
                && actual.ends_with(tail)
        }
        None => false,
    }
}

/// Whether `actual` matches `expected`, where an expected `...` line
/// stands for any number of lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(first, a) && matches(rest, more)),
    }
}

fn shell(root: &Path, script: &str) -> (i32, String) {
    let bin_dir = Path::new(common::BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("exec 2>&1\n{script}"))
        .current_dir(root)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("HOME", root.join(".home"));
    for var in [
        "COLUMNS",
        "MEMORY_INJECT",
        "MEMORY_INJECT_MAX_CHARS",
        "MEMORY_INJECT_BLOCKS",
        "MEMORY_KEEP_N",
        "MEMLINT",
    ] {
        cmd.env_remove(var);
    }
    common::test_identity(&mut cmd);
    let out = cmd.output().expect("run sh");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// Runs the page; returns every difference found.
fn run_page(page: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repo().join(page)).expect("read page");
    let steps = parse(&text);
    let scratch = tempfile::tempdir().expect("tempdir");
    let root = scratch.path().join("tour");
    std::fs::create_dir_all(root.join(".home")).expect("mkdir");
    let (code, said) = shell(&root, "git init -q .");
    assert_eq!(code, 0, "git init: {said}");
    let mut failures = Vec::new();
    let mut status = 0;
    for step in steps {
        match step {
            Step::File { path, text } => {
                let to = root.join(&path);
                std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
                std::fs::write(&to, text).expect("write");
            }
            Step::Setup { line, script } => {
                let (code, said) = shell(&root, &script);
                if code != 0 {
                    failures.push(format!("{page}:{line}: setup failed ({code}):\n{said}"));
                }
            }
            Step::Run {
                line,
                command,
                expected,
            } => {
                let command = command.replace("/tmp/tour", &root.to_string_lossy());
                let (code, said) = shell(&root, &format!("(exit {status})\n{command}"));
                status = code;
                let want = normalise(&expected.join("\n"), &root);
                let got = normalise(&said, &root);
                if !matches(&want, &got) {
                    failures.push(format!(
                        "{page}:{line}: `{command}` printed\n{}\n--- but the page shows\n{}\n",
                        got.join("\n"),
                        want.join("\n")
                    ));
                }
            }
        }
    }
    failures
}

/// The pages with console blocks: README.md and docs/*.md.
fn pages() -> Vec<String> {
    let mut out = vec!["README.md".to_string()];
    for entry in std::fs::read_dir(repo().join("docs")).expect("docs/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            out.push(format!(
                "docs/{}",
                path.file_name().expect("name").to_string_lossy()
            ));
        }
    }
    out.sort();
    out.retain(|p| {
        std::fs::read_to_string(repo().join(p))
            .expect("read")
            .contains("```console")
    });
    out
}

#[test]
fn every_console_block_prints_what_it_shows() {
    let pages = pages();
    assert!(pages.contains(&"README.md".to_string()), "{pages:?}");
    let only = std::env::var("MEMLINT_DOCS_PAGE").ok();
    let mut failures = Vec::new();
    for page in &pages {
        if only.as_ref().is_some_and(|o| o != page) {
            continue;
        }
        failures.extend(run_page(page));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_harness_compares_and_fails() {
    let root = Path::new("/x/tour");
    let norm = |s: &str| normalise(s, root);
    assert_eq!(
        norm("/x/tour/a 2026-12-05 901e64e 20261204-154250-20d3  \n\n"),
        vec!["/tmp/tour/a <DATE> <HASH> <ID>"]
    );
    let want = norm("a\n...\nd");
    assert!(matches(&want, &norm("a\nb\nc\nd")));
    assert!(matches(&want, &norm("a\nd")));
    assert!(!matches(&want, &norm("a\nb")));
    assert!(!matches(&norm("a\nb"), &norm("a\nc")));
    // ` …` inside a line stands for the rest of a long line up to its end.
    let long = norm("{\"ctx\":\"Search memory before starting work …\"}");
    assert!(matches(
        &long,
        &norm("{\"ctx\":\"Search memory before starting work and more\"}")
    ));
    assert!(!matches(
        &long,
        &norm("{\"ctx\":\"Search memory before starting\"}")
    ));
    assert!(!matches(
        &long,
        &norm("{\"ctx\":\"Search memory before starting work and more\"")
    ));
    let steps = parse(
        "<!-- doctest: git init -->\n```markdown file=a.md\nx\n```\n```console\n$ echo hi\nhi\n$ echo $?\n0\n```\n",
    );
    assert_eq!(steps.len(), 4, "{steps:?}");
}

/// Every install line a user reads works as written today: memlint is not
/// on crates.io, so no page says `cargo install memlint`, and the PyPI
/// package is offered only with a "once released" note until the first
/// release. The pre-commit hook `init --hooks` writes, run where memlint is
/// not on PATH, gives an install line that works.
#[test]
fn install_lines_work_as_written() {
    let mut texts: Vec<String> = vec!["README.md".into()];
    for entry in std::fs::read_dir(repo().join("docs")).expect("docs/") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".md") || name.ends_with(".yml") {
            texts.push(format!("docs/{name}"));
        }
    }
    texts.extend(["action.yml".into(), "plugin/bin/memlint".into()]);
    let crates_io = Regex::new(r"cargo install (--locked )?memlint\b").expect("regex");
    let pypi = Regex::new(r"(pipx|uv tool|pip) install memlint-cli").expect("regex");
    let mut wrong = Vec::new();
    for rel in &texts {
        let text = std::fs::read_to_string(repo().join(rel)).expect("read");
        for (n, line) in text.lines().enumerate() {
            if crates_io.is_match(line) {
                wrong.push(format!(
                    "{rel}:{}: memlint is not on crates.io: {line}",
                    n + 1
                ));
            }
        }
        for m in pypi.find_iter(&text) {
            let start = text[..m.start()]
                .char_indices()
                .rev()
                .nth(600)
                .map_or(0, |(i, _)| i);
            let before = text[start..m.end()].to_lowercase();
            if !(before.contains("once") && before.contains("release")) {
                let line = text[..m.start()].lines().count();
                wrong.push(format!(
                    "{rel}:{line}: `{}` without a \"once released\" note",
                    m.as_str()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    let scratch = tempfile::tempdir().expect("tempdir");
    let root = scratch.path();
    let (code, said) = shell(
        root,
        "git init -q . && memlint init >/dev/null && memlint init --hooks >/dev/null",
    );
    assert_eq!(code, 0, "{said}");
    let out = Command::new("sh")
        .arg(root.join(".githooks/pre-commit"))
        .current_dir(root)
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("run the hook");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("cargo install --locked --path ."), "{said}");
    assert!(!crates_io.is_match(&said), "{said}");
}

/// No page, help text, rule document or message cites "SPEC", a document
/// no user has: the pages, the man page and every command's `--help` are
/// read, and the binary holds no such text at all (its messages included).
#[test]
fn nothing_a_user_reads_cites_the_spec() {
    let spec = Regex::new(r"\bSPEC\b|§").expect("regex");
    let mut found = Vec::new();
    let mut texts: Vec<String> = vec![
        "README.md".into(),
        "action.yml".into(),
        "python/memlint-cli/README.md".into(),
        "plugin/.claude-plugin/plugin.json".into(),
        ".claude-plugin/marketplace.json".into(),
    ];
    for entry in std::fs::read_dir(repo().join("docs")).expect("docs/") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        texts.push(format!("docs/{name}"));
    }
    for rel in &texts {
        let text = std::fs::read_to_string(repo().join(rel)).expect("read");
        for (n, line) in text.lines().enumerate() {
            if spec.is_match(line) {
                found.push(format!("{rel}:{}: {line}", n + 1));
            }
        }
    }
    let man = common::memlint(&repo(), &["man"]).stdout;
    let commands: Vec<String> = man
        .lines()
        .filter_map(|l| l.strip_prefix("\\fBmemlint "))
        .filter_map(|l| l.strip_suffix("\\fR"))
        .map(|c| c.replace("\\-", "-"))
        .collect();
    assert!(commands.len() > 10, "{man}");
    let mut outputs = vec![("memlint man".to_string(), man.clone())];
    for c in &commands {
        let run = common::memlint(&repo(), &[c, "--help"]);
        outputs.push((format!("memlint {c} --help"), run.stdout));
    }
    for (what, text) in outputs {
        if spec.is_match(&text) {
            found.push(format!("{what} cites SPEC"));
        }
    }
    let binary = std::fs::read(common::BIN).expect("read the binary");
    for needle in ["(SPEC", "SPEC \u{a7}", "SPEC's", "the SPEC"] {
        if memchr::memmem::find(&binary, needle.as_bytes()).is_some() {
            found.push(format!("the binary holds `{needle}`"));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
