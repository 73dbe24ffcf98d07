//! Robustness on what the world writes: every file of the real-world corpora
//! in `../shared/corpora` linted as a knowledge record, the benchmark
//! generator's workspaces (clean and with injected defects), and hostile
//! YAML (alias bombs, deep nesting). Nothing may panic; exit codes are 0 or 1
//! and the output is valid JSON.

use crate::common;

use common::Memlint;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn shared(rel: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
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

/// `memlint check --format json` on `root`: (exit code, JSON, stderr).
fn check_json(root: &Path) -> (i32, Value, String) {
    let out = Memlint::new(root)
        .args(["check", "--format", "json", "--root"])
        .arg(root)
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "output on {} is not JSON ({e}); stderr:\n{stderr}",
            root.display()
        )
    });
    (out.status.code().unwrap_or(-1), json, stderr)
}

/// A file name that is a valid slug and unlike every other one, so that
/// `slug/similar` stays quiet (splitmix64 of the index).
fn safe_name(index: u64) -> String {
    let mut x = index.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    format!("{:016x}", x ^ (x >> 31))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn every_corpus_file_lints_without_panic() {
    let Some(corpora) = shared("corpora") else {
        return;
    };
    let mut sources = Vec::new();
    walk(&corpora, &mut sources);
    assert!(sources.len() > 5000, "only {} corpus files", sources.len());
    let tmp = tempfile::tempdir().expect("tempdir");
    let knowledge = tmp.path().join("knowledge");
    std::fs::create_dir_all(&knowledge).expect("mkdir");
    let mut names = std::collections::BTreeMap::new();
    for (i, src) in sources.iter().enumerate() {
        let name = format!("knowledge/{}.md", safe_name(i as u64));
        std::fs::copy(src, tmp.path().join(&name)).expect("copy");
        names.insert(name, src.clone());
    }
    let (code, json, _) = check_json(tmp.path());
    assert!(code == 0 || code == 1, "exit code {code}");
    assert_eq!(json["summary"]["files"], sources.len() as u64);
    let diags = json["diagnostics"].as_array().expect("diagnostics");
    for d in diags {
        let path = d["path"].as_str().expect("path");
        let origin = names
            .get(path)
            .unwrap_or_else(|| panic!("diagnostic for an unknown path: {d}"));
        for k in ["line", "column", "end_line", "end_column"] {
            assert!(
                d[k].as_u64().is_some_and(|n| n >= 1),
                "{}: bad {k} in {d}",
                origin.display()
            );
        }
        assert!(
            d["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{}: {d}",
            origin.display()
        );
    }
    // The known slips are named, not just reported: an unquoted `: ` in a
    // title (119 yoi records) gets the quoting hint.
    assert!(
        diags.iter().any(|d| d["rule"] == "frontmatter/parse"
            && d["message"]
                .as_str()
                .is_some_and(|m| m.contains("quote the value"))),
        "no frontmatter/parse quoting hint in the corpora"
    );
    let rules: BTreeSet<&str> = diags.iter().filter_map(|d| d["rule"].as_str()).collect();
    for rule in [
        "frontmatter/missing",
        "frontmatter/unclosed",
        "frontmatter/duplicate-key",
        "format/bom",
        "format/crlf",
        "format/encoding",
    ] {
        assert!(rules.contains(rule), "no {rule} in the corpora: {rules:?}");
    }
    // The poisoning guards find exactly these, each checked by hand: stray
    // zero-width spaces (pairs left by a translation tool inside Japanese,
    // Korean and Chinese sentences; one before a code fence), and the phrase
    // "ignore previous instructions" itself, quoted in two documents about
    // prompt injection. Nothing else in 5,000 documents of prose.
    let mut guarded: Vec<String> = diags
        .iter()
        .filter(|d| d["rule"] == "text/invisible" || d["rule"] == "text/injection")
        .map(|d| {
            let origin = names[d["path"].as_str().expect("path")]
                .strip_prefix(&corpora)
                .expect("under corpora")
                .to_string_lossy()
                .into_owned();
            format!(
                "{} {origin}:{}",
                d["rule"].as_str().unwrap_or(""),
                d["line"]
            )
        })
        .collect();
    guarded.sort();
    let astro = "text/invisible astro-docs/src/content/docs";
    let mut expected: Vec<String> = vec![
            format!("{astro}/ja/basics/astro-pages.mdx:141"),
            format!("{astro}/ko/guides/backend/firebase.mdx:336"),
            format!("{astro}/ko/guides/cms/wordpress.mdx:64"),
            format!("{astro}/ko/guides/styling.mdx:58"),
            format!("{astro}/ko/reference/directives-reference.mdx:11"),
            format!("{astro}/ko/reference/directives-reference.mdx:261"),
            format!("{astro}/zh-cn/guides/content-collections.mdx:655"),
            format!("{astro}/zh-cn/guides/upgrade-to/v5.mdx:1159"),
            format!("{astro}/zh-cn/guides/upgrade-to/v5.mdx:240"),
            format!("{astro}/zh-cn/guides/upgrade-to/v5.mdx:858"),
            format!("{astro}/zh-cn/reference/content-loader-reference.mdx:80"),
            format!("{astro}/zh-cn/reference/routing-reference.mdx:212"),
            format!("{astro}/zh-cn/tutorial/6-islands/4.mdx:76"),
            "text/invisible awesome-copilot/agents/azure-verified-modules-owner-triage.agent.md:506".into(),
            "text/invisible awesome-copilot/agents/azure-verified-modules-owner-triage.agent.md:511".into(),
            "text/injection awesome-copilot/hooks/governance-audit/README.md:26".into(),
            "text/injection awesome-copilot/instructions/ai-prompt-engineering-safety-best-practices.instructions.md:206".into(),
            "text/injection awesome-copilot/instructions/ai-prompt-engineering-safety-best-practices.instructions.md:212".into(),
    ];
    expected.sort();
    assert_eq!(guarded, expected);
}

/// Runs the benchmark generator into `out`.
fn generate(out: &Path, extra: &[&str]) -> bool {
    let Some(script) = shared("bench/gen_workspace.py") else {
        return false;
    };
    let run = Command::new("python3")
        .arg(&script)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output();
    match run {
        Ok(o) if o.status.success() => true,
        Ok(o) => panic!(
            "gen_workspace.py failed: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => {
            eprintln!("skipping: cannot run python3: {e}");
            false
        }
    }
}

/// The rules the per-file pipeline implements (no workspace or history rule).
fn per_file_rules() -> BTreeSet<&'static str> {
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
fn generated_violations_are_all_reported() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("ws");
    if !generate(&out, &["--records", "2000", "--violations", "0.3"]) {
        return;
    }
    let (code, json, _) = check_json(&out);
    assert_eq!(code, 1, "a workspace with injected errors fails");
    let reported: BTreeSet<(String, String)> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap_or_default().to_string(),
                d["rule"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let tsv = std::fs::read_to_string(out.join(".expected-violations.tsv")).expect("tsv");
    let mut expected = BTreeSet::new();
    let mut missing = Vec::new();
    for line in tsv.lines().filter(|l| !l.is_empty()) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [path, defect, rule] = fields[..] else {
            panic!("bad TSV line {line:?}");
        };
        expected.insert((path.to_string(), rule.to_string()));
        // Cross-record rules are tested with their own fixtures.
        if matches!(rule, "status/cycle" | "status/dangling-target") {
            continue;
        }
        if !reported.contains(&(path.to_string(), rule.to_string())) {
            missing.push(format!("{path}: {rule} ({defect})"));
        }
    }
    assert!(expected.len() >= 500, "only {} expected", expected.len());
    assert!(
        missing.is_empty(),
        "{} injected defects not reported:\n{}",
        missing.len(),
        missing.join("\n")
    );
    // Each defect gives its one diagnostic and nothing else of the per-file
    // rules.
    let per_file = per_file_rules();
    let extra: Vec<_> = reported
        .iter()
        .filter(|(p, r)| {
            per_file.contains(r.as_str()) && !expected.contains(&(p.clone(), r.clone()))
        })
        .collect();
    assert!(extra.is_empty(), "unexpected diagnostics: {extra:?}");
}

/// The `sources/replaced` findings a generated workspace should give,
/// worked out from its files: (record, line) of every `decision:`,
/// `request:` or `knowledge:` source naming a record with `status:
/// replaced`, unless the citing record is replaced itself or stands on the
/// `replaced_by` chain of the record it cites.
fn citations_of_replaced(root: &Path) -> BTreeSet<(String, u64)> {
    type Fields = (Option<String>, Option<String>, Vec<(u64, String)>);
    let dirs = [
        ("decision", "memory/decisions"),
        ("request", "memory/requests"),
        ("knowledge", "knowledge"),
    ];
    // kind → slug → (path, status, replaced_by, [(line, source)]).
    let mut records: std::collections::BTreeMap<(&str, String), (String, Fields)> =
        Default::default();
    for (kind, dir) in dirs {
        let mut files = Vec::new();
        walk(&root.join(dir), &mut files);
        for file in files {
            if file.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("read record");
            let mut fields: Fields = (None, None, Vec::new());
            let mut in_sources = false;
            for (i, line) in text.lines().enumerate().skip(1) {
                if line == "---" {
                    break;
                }
                if let Some(item) = line.strip_prefix("  - ") {
                    if in_sources {
                        fields.2.push((i as u64 + 1, item.trim().to_string()));
                    }
                    continue;
                }
                in_sources = line == "sources:";
                if let Some(v) = line.strip_prefix("status: ") {
                    fields.0 = Some(v.trim().to_string());
                }
                if let Some(v) = line.strip_prefix("replaced_by: ") {
                    fields.1 = Some(v.trim().to_string());
                }
            }
            let slug = file.file_stem().unwrap().to_string_lossy().into_owned();
            let rel = file
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            records.insert((kind, slug), (rel, fields));
        }
    }
    let replaced = |kind: &str, slug: &str| {
        records
            .get(&(kind, slug.to_string()))
            .is_some_and(|(_, f)| f.0.as_deref() == Some("replaced"))
    };
    let mut expected = BTreeSet::new();
    for ((kind, slug), (path, (status, _, sources))) in &records {
        if status.as_deref() == Some("replaced") {
            continue;
        }
        for (line, source) in sources {
            let Some((target_kind, target)) = source.split_once(':') else {
                continue;
            };
            let Some(&(target_kind, _)) = dirs.iter().find(|(k, _)| *k == target_kind) else {
                continue;
            };
            if !replaced(target_kind, target) {
                continue;
            }
            // The chain from the cited record: the citing record on it is
            // where the replacement came from, not a stale citation.
            let mut on_chain = false;
            let mut seen = BTreeSet::new();
            let mut at = target.to_string();
            while seen.insert(at.clone()) {
                if target_kind == *kind && at == *slug {
                    on_chain = true;
                    break;
                }
                match records
                    .get(&(target_kind, at.clone()))
                    .and_then(|(_, f)| f.1.clone())
                {
                    Some(next) => at = next,
                    None => break,
                }
            }
            if !on_chain {
                expected.insert((path.clone(), *line));
            }
        }
    }
    expected
}

#[test]
fn generated_clean_workspace_reports_only_citations_of_replaced_records() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("ws");
    if !generate(&out, &["--records", "2000"]) {
        return;
    }
    let (code, json, _) = check_json(&out);
    // The generator cites records at random, replaced ones too: each such
    // citation is a `sources/replaced` warning (the rule came after the
    // generator), and nothing else is reported.
    let diagnostics = json["diagnostics"].as_array().expect("diagnostics");
    let other: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d["rule"] != "sources/replaced")
        .collect();
    assert!(other.is_empty(), "{other:?}");
    let reported: BTreeSet<(String, u64)> = diagnostics
        .iter()
        .map(|d| {
            let path = d["path"].as_str().expect("path").to_string();
            (path, d["line"].as_u64().expect("line"))
        })
        .collect();
    let expected = citations_of_replaced(&out);
    assert!(
        !expected.is_empty(),
        "the generator cited no replaced record"
    );
    assert_eq!(reported, expected);
    assert_eq!(json["summary"]["errors"], 0);
    assert_eq!(json["summary"]["warnings"], expected.len() as u64);
    assert!(json["summary"]["files"].as_u64().is_some_and(|n| n > 2000));
    assert_eq!(code, 0);
}

/// Lints one hostile knowledge record and returns its diagnostics and the
/// time taken.
fn lint_hostile(front_matter: &str) -> (Vec<Value>, Duration) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("knowledge");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("hostile.md"),
        format!("---\n{front_matter}---\n\nBody.\n"),
    )
    .expect("write");
    let start = Instant::now();
    let (code, json, _) = check_json(tmp.path());
    let took = start.elapsed();
    assert_eq!(code, 1);
    let diags = json["diagnostics"].as_array().expect("diagnostics").clone();
    (diags, took)
}

fn assert_refused(name: &str, front_matter: &str, line: u64, needle: &str) {
    let (diags, took) = lint_hostile(front_matter);
    assert_eq!(diags.len(), 1, "{name}: {diags:?}");
    let d = &diags[0];
    assert_eq!(d["rule"], "frontmatter/parse", "{name}: {d}");
    assert_eq!(d["line"], line, "{name}: {d}");
    let message = d["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "{name}: {message}");
    assert!(
        took < Duration::from_secs(10),
        "{name}: took {took:?} to refuse"
    );
}

#[test]
fn alias_bomb_is_refused_quickly() {
    // Nine references per level, twelve levels: 9^12 nodes when expanded.
    let mut fm = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        fm.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    assert_refused(
        "alias bomb",
        &fm,
        6,
        "front matter refused: aliases expand to more than",
    );
}

/// One message for every kind of deep nesting, whichever parser layer
/// notices it first.
const NESTED: &str = "front matter refused: front matter is nested more than 64 levels deep";

#[test]
fn deep_nesting_is_refused_quickly() {
    let depth = 10_000;
    let flow_seq = format!("title: {}{}\n", "[".repeat(depth), "]".repeat(depth));
    assert_refused("flow sequences", &flow_seq, 2, NESTED);
    let flow_map = format!("title: {}x{}\n", "{a: ".repeat(depth), "}".repeat(depth));
    assert_refused("flow mappings", &flow_map, 2, NESTED);
    let block_seq = format!("title:\n{}x\n", "- ".repeat(depth));
    assert_refused("block sequences", &block_seq, 3, NESTED);
}
