//! The formatter against the world: every markdown file of the shared
//! corpora (`../shared/corpora`, real front matter from public repositories),
//! formatted as a knowledge record. Checks: no panic; formatting twice equals
//! formatting once; the YAML means the same (strings that gained quotes
//! compared by text); every comment survives; the body is unchanged (but for
//! CRLF and the final newline). The same files also go through the binary's
//! editor mode (`fmt --stdin-filepath knowledge/<name>.md`). Skipped with a
//! message when the corpora are absent.

use crate::common;

use memlint::fmt::{comments, format_record, record_meaning, Outcome};
use memlint::model::kind::Kind;
use memlint::syntax::frontmatter::{self, Split};
use memlint::syntax::yaml::{self, Node};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpora() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    dir.is_dir().then_some(dir)
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "md" || e == "mdx") {
            out.push(p);
        }
    }
}

fn parse(text: &str) -> (Option<Node>, std::ops::Range<usize>, std::ops::Range<usize>) {
    let Split::Found(parts) = frontmatter::split(text) else {
        panic!("no front matter in formatted output");
    };
    let doc = yaml::parse(&text[parts.yaml.clone()], parts.yaml.start).expect("output parses");
    (doc.root, parts.yaml, parts.body)
}

fn body_of(text: &str, body: std::ops::Range<usize>) -> String {
    memlint::fmt::crlf_to_lf(&text[body])
        .trim_end_matches(['\n', '\r'])
        .to_string()
}

#[derive(Default)]
struct Tally {
    files: usize,
    unchanged: usize,
    formatted: usize,
    skipped: BTreeMap<String, usize>,
    failures: Vec<String>,
}

fn reason_class(reason: &str) -> String {
    let r = reason
        .split(['(', ':', ';'])
        .next()
        .unwrap_or(reason)
        .trim();
    r.chars().take(70).collect()
}

fn check_file(path: &Path, bytes: &[u8], tally: &mut Tally) {
    tally.files += 1;
    let Ok(text) = std::str::from_utf8(bytes) else {
        *tally.skipped.entry("not valid UTF-8".into()).or_default() += 1;
        return;
    };
    let outcome = std::panic::catch_unwind(|| format_record(text, Kind::Knowledge));
    let fail = |tally: &mut Tally, what: String| {
        tally.failures.push(format!("{}: {what}", path.display()));
    };
    let out = match outcome {
        Err(_) => return fail(tally, "panicked".into()),
        Ok(Outcome::Skipped { reason }) => {
            *tally.skipped.entry(reason_class(&reason)).or_default() += 1;
            return;
        }
        Ok(Outcome::Unchanged) => {
            tally.unchanged += 1;
            return;
        }
        Ok(Outcome::Formatted(out)) => out,
    };
    tally.formatted += 1;
    match format_record(&out, Kind::Knowledge) {
        Outcome::Unchanged => {}
        other => return fail(tally, format!("not idempotent: {other:?}")),
    }
    let (in_root, in_yaml, in_body) = parse(text);
    let (out_root, out_yaml, out_body) = parse(&out);
    if record_meaning(in_root.as_ref(), Kind::Knowledge)
        != record_meaning(out_root.as_ref(), Kind::Knowledge)
    {
        return fail(tally, "the YAML meaning changed".into());
    }
    let cin = comments(text, in_yaml, in_root.as_ref());
    let cout = comments(&out, out_yaml, out_root.as_ref());
    for c in &cin {
        if !cout.contains(c) {
            return fail(tally, format!("comment lost: {c}"));
        }
    }
    if body_of(text, in_body) != body_of(&out, out_body) {
        return fail(tally, "the body changed".into());
    }
    if out.contains("\r\n")
        || out.starts_with('\u{feff}')
        || !out.ends_with('\n')
        || out.ends_with("\n\n")
    {
        fail(
            tally,
            "line endings, BOM or final newline not canonical".into(),
        );
    }
}

#[test]
fn corpora_round_trip() {
    let Some(dir) = corpora() else {
        eprintln!("SKIPPED: ../shared/corpora is absent; the corpus test needs it");
        return;
    };
    let mut files = Vec::new();
    markdown_files(&dir, &mut files);
    assert!(
        !files.is_empty(),
        "no markdown files under {}",
        dir.display()
    );
    let mut tally = Tally::default();
    for f in &files {
        let bytes = std::fs::read(f).expect("readable corpus file");
        check_file(f, &bytes, &mut tally);
    }
    eprintln!(
        "corpus: {} files: {} unchanged, {} formatted, {} skipped, {} failures",
        tally.files,
        tally.unchanged,
        tally.formatted,
        tally.skipped.values().sum::<usize>(),
        tally.failures.len()
    );
    for (why, n) in &tally.skipped {
        eprintln!("  skipped {n:5}  {why}");
    }
    for f in tally.failures.iter().take(50) {
        eprintln!("  FAILED {f}");
    }
    assert!(
        tally.failures.is_empty(),
        "{} corpus failures",
        tally.failures.len()
    );
}

/// The editor path: `memlint fmt --stdin-filepath knowledge/<name>.md` gives
/// the library's result, or nothing on stdout and exit 1 when it cannot
/// format.
#[test]
fn corpora_through_stdin_filepath() {
    let Some(dir) = corpora() else {
        eprintln!("SKIPPED: ../shared/corpora is absent; the corpus test needs it");
        return;
    };
    let mut files = Vec::new();
    markdown_files(&dir, &mut files);
    let root = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(root.path().join("knowledge")).expect("knowledge dir");
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = files.len().div_ceil(threads);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                let root = root.path();
                s.spawn(move || {
                    let mut failures = Vec::new();
                    for f in part {
                        let bytes = std::fs::read(f).expect("readable corpus file");
                        let stem = f.file_stem().map_or("x".into(), |s| s.to_string_lossy());
                        let output = run_stdin(root, &format!("knowledge/{stem}.md"), &bytes);
                        let expected = match std::str::from_utf8(&bytes) {
                            Err(_) => None,
                            Ok(text) => match format_record(text, Kind::Knowledge) {
                                Outcome::Unchanged => Some(text.to_string()),
                                Outcome::Formatted(s) => Some(s),
                                Outcome::Skipped { .. } => None,
                            },
                        };
                        let ok = match (&expected, output.status.code()) {
                            (Some(e), Some(0)) => output.stdout == e.as_bytes(),
                            (None, Some(1)) => {
                                output.stdout.is_empty() && !output.stderr.is_empty()
                            }
                            _ => false,
                        };
                        if !ok {
                            failures.push(format!(
                                "{}: exit {:?}, stderr {}",
                                f.display(),
                                output.status.code(),
                                String::from_utf8_lossy(&output.stderr)
                            ));
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker thread"))
            .collect()
    });
    eprintln!(
        "corpus through --stdin-filepath: {} files, {} failures",
        files.len(),
        failures.len()
    );
    for f in failures.iter().take(20) {
        eprintln!("  FAILED {f}");
    }
    assert!(failures.is_empty());
}

fn run_stdin(root: &Path, as_path: &str, input: &[u8]) -> std::process::Output {
    common::Memlint::new(root)
        .args(["fmt", "--stdin-filepath", as_path])
        .stdin(input)
        .output_unchecked()
}
