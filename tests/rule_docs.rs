//! Every rule's document (`memlint rule NAME`, the rule file's `DOC`) is
//! checked against the binary, so that the documents and the registry cannot
//! drift: the Example fires the rule, the Fixed form does not (nor anything
//! else), `check --fix` turns the Example into the Fixed files when the rule
//! is fixable, and the Configuration block is a valid `.memlint.yml`. A port
//! of the script that verified the documents when they were written.
//!
//! Document conventions: `# family/name`, a blank line, the registry's
//! summary, a blank line, then `## What it does`, `## Why it matters`,
//! `## Example`, `## Fixed`, `## Fix`, `## Configuration`. A file of a
//! workspace is a line holding only its root-relative path in backticks and a
//! colon, a blank line, and a fenced block (```markdown for records and
//! CONTEXT.md, ```yaml for .memlint.yml, ```text otherwise). In Fixed,
//! `<!-- deleted: PATH -->` removes a file of the Example. Right under
//! `## Example`, `<!-- example: described -->` says the bytes are the fenced
//! text transformed (BOM, CRLF, Shift_JIS, padding past 1 MiB), and
//! `<!-- example: history -->` says the section is steps run in order in an
//! empty directory (files written, files deleted, ```sh blocks run with
//! `memlint` on PATH; the last `memlint check` is judged), the Fixed steps
//! running after the Example's steps up to its first sh block.
//!
//! Also: docs/rules.md is the registry's table followed by every document
//! (`MEMLINT_UPDATE_DOCS=1 cargo test --test rule_docs` rewrites it).

mod common;

use common::BIN;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::process::Command;

const SECTIONS: [&str; 6] = [
    "What it does",
    "Why it matters",
    "Example",
    "Fixed",
    "Fix",
    "Configuration",
];

/// A rule as `memlint rule` lists it.
#[derive(Debug, Clone)]
struct Listed {
    name: String,
    default: String,
    fix: bool,
    summary: String,
}

/// `memlint rule`, parsed.
fn registry() -> Vec<Listed> {
    let out = run(&["rule"]);
    let re = regex::Regex::new(r"^(\S+/\S+)\s+(error|warning)\s+(fix\s+)?(.*)$").unwrap();
    out.lines()
        .filter_map(|line| {
            let c = re.captures(line)?;
            Some(Listed {
                name: c[1].to_string(),
                default: c[2].to_string(),
                fix: c.get(3).is_some(),
                summary: c[4].trim().to_string(),
            })
        })
        .collect()
}

fn run(args: &[&str]) -> String {
    let out = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run memlint");
    assert!(out.status.success(), "memlint {args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The document of rule `name`: the registry's DOC, which `memlint rule
/// NAME` prints as it is, but for the credentials of `secrets/detected`'s
/// example, which the output masks like every credential memlint prints.
fn document(name: &str) -> Result<String, String> {
    let doc = memlint::lint::registry::lookup(name)
        .ok_or(format!("`{name}` is not in the registry"))?
        .doc;
    let printed = run(&["rule", name]);
    let secret = !memlint::syntax::secrets::find(doc).is_empty();
    match (printed == doc, secret) {
        (true, false) => Ok(doc.to_string()),
        (false, true) if printed.contains("[masked]") => Ok(doc.to_string()),
        _ => Err(format!(
            "`memlint rule {name}` does not print the rule's DOC"
        )),
    }
}

/// A piece of a document: a line, or a fenced block (language, lines).
#[derive(Debug, Clone)]
enum Block {
    Line(String),
    Fence(String, Vec<String>),
}

fn split_blocks(lines: &[&str]) -> Result<Vec<Block>, String> {
    let fence = regex::Regex::new(r"^(`{3,}|~{3,})([A-Za-z0-9_-]*)\s*$").unwrap();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(c) = fence.captures(lines[i]) else {
            out.push(Block::Line(lines[i].to_string()));
            i += 1;
            continue;
        };
        let marker = c[1].to_string();
        let mark = marker.chars().next().unwrap_or('`');
        let mut body = Vec::new();
        let mut j = i + 1;
        loop {
            let Some(close) = lines.get(j) else {
                return Err(format!("line {}: unclosed fence", i + 1));
            };
            let t = close.trim();
            if close.starts_with(&marker[..])
                && !t.is_empty()
                && t.chars().all(|ch| ch == mark)
                && t.len() >= marker.len()
            {
                break;
            }
            body.push(close.to_string());
            j += 1;
        }
        out.push(Block::Fence(c[2].to_string(), body));
        i = j + 1;
    }
    Ok(out)
}

/// A step of a workspace section.
#[derive(Debug, Clone)]
enum Step {
    Write(String, String),
    Remove(String),
    Sh(String),
}

/// The files, deletions and steps of an Example or Fixed section.
#[derive(Debug, Default, Clone)]
struct Workspace {
    files: BTreeMap<String, String>,
    deleted: Vec<String>,
    steps: Vec<Step>,
}

#[derive(Debug, PartialEq, Clone, Copy)]
enum Mode {
    Plain,
    Described,
    History,
}

/// A parsed document.
struct Doc {
    rule: String,
    summary: String,
    sections: BTreeMap<String, Vec<Block>>,
    mode: Mode,
    example: Workspace,
    fixed: Workspace,
    fix_auto: bool,
    config: String,
}

impl Doc {
    fn text(&self, section: &str) -> String {
        self.sections[section]
            .iter()
            .filter_map(|b| match b {
                Block::Line(l) => Some(l.as_str()),
                Block::Fence(..) => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The rule names written in backticks in the sections' prose.
    fn named(&self, sections: &[&str]) -> BTreeSet<String> {
        let re = regex::Regex::new(r"`([a-z]+/[a-z-]+)`").unwrap();
        let text: Vec<String> = sections.iter().map(|s| self.text(s)).collect();
        let text = text.join("\n");
        re.captures_iter(&text).map(|c| c[1].to_string()).collect()
    }
}

fn expected_lang(rel: &str) -> &'static str {
    if rel.ends_with(".md") {
        "markdown"
    } else if rel.ends_with(".memlint.yml") {
        "yaml"
    } else {
        "text"
    }
}

fn files_of(blocks: &[Block], mode: Mode, where_: &str) -> Result<Workspace, String> {
    let file_line = regex::Regex::new(r"^`([^`]+)`:$").unwrap();
    let deleted = regex::Regex::new(r"^<!-- deleted: (\S+) -->$").unwrap();
    let mut ws = Workspace::default();
    let mut k = 0;
    while k < blocks.len() {
        match &blocks[k] {
            Block::Line(l) => {
                if let Some(d) = deleted.captures(l) {
                    ws.deleted.push(d[1].to_string());
                    ws.steps.push(Step::Remove(d[1].to_string()));
                }
                if let Some(m) = file_line.captures(l) {
                    let rel = m[1].to_string();
                    let (Some(Block::Line(blank)), Some(Block::Fence(lang, body))) =
                        (blocks.get(k + 1), blocks.get(k + 2))
                    else {
                        return Err(format!(
                            "{where_}: `{rel}`: no blank line and fence after it"
                        ));
                    };
                    if !blank.is_empty() {
                        return Err(format!("{where_}: `{rel}`: no blank line after it"));
                    }
                    if lang != expected_lang(&rel) {
                        return Err(format!("{where_}: `{rel}` is fenced as `{lang}`"));
                    }
                    if ws.files.contains_key(&rel) && mode != Mode::History {
                        return Err(format!("{where_}: `{rel}` appears twice"));
                    }
                    let text = body.join("\n") + "\n";
                    ws.files.insert(rel.clone(), text.clone());
                    ws.steps.push(Step::Write(rel, text));
                    k += 3;
                    continue;
                }
            }
            Block::Fence(lang, body) if lang == "sh" => {
                if mode != Mode::History {
                    return Err(format!("{where_}: a sh block outside a history example"));
                }
                ws.steps.push(Step::Sh(body.join("\n") + "\n"));
            }
            Block::Fence(..) => {
                return Err(format!("{where_}: a fenced block without a path line"));
            }
        }
        k += 1;
    }
    let has_sh = ws.steps.iter().any(|s| matches!(s, Step::Sh(_)));
    if mode == Mode::History && !has_sh {
        return Err(format!("{where_}: a history example needs a sh block"));
    }
    Ok(ws)
}

fn parse(text: &str) -> Result<Doc, String> {
    if !text.ends_with('\n') || text.ends_with("\n\n") {
        return Err("the document must end with exactly one newline".into());
    }
    let lines: Vec<&str> = text[..text.len() - 1].split('\n').collect();
    let rule = lines[0]
        .strip_prefix("# ")
        .filter(|r| r.contains('/') && !r.contains(' '))
        .ok_or("line 1 must be `# family/name`")?
        .to_string();
    if lines.len() < 5 || !lines[1].is_empty() || lines[2].trim().is_empty() || !lines[3].is_empty()
    {
        return Err("line 2 blank, line 3 the summary, line 4 blank".into());
    }
    let mut sections: BTreeMap<String, Vec<Block>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for block in split_blocks(&lines[4..])? {
        if let Block::Line(l) = &block {
            if let Some(h) = l.strip_prefix("## ") {
                order.push(h.to_string());
                sections.insert(h.to_string(), Vec::new());
                continue;
            }
            if l.starts_with("# ") {
                return Err(format!("a second level-1 heading: {l}"));
            }
        }
        match order.last() {
            Some(current) => sections.get_mut(current).unwrap().push(block),
            None if matches!(&block, Block::Line(l) if l.is_empty()) => {}
            None => return Err("text between the summary and `## What it does`".into()),
        }
    }
    if order != SECTIONS {
        return Err(format!("sections must be {SECTIONS:?}, found {order:?}"));
    }
    let example = &sections["Example"];
    let first = example
        .iter()
        .find(|b| !matches!(b, Block::Line(l) if l.is_empty()));
    let mode = match first {
        Some(Block::Line(l)) if l.starts_with("<!--") => match l.as_str() {
            "<!-- example: described -->" => Mode::Described,
            "<!-- example: history -->" => Mode::History,
            _ => return Err(format!("unknown marker under ## Example: {l}")),
        },
        _ => Mode::Plain,
    };
    let example = files_of(example, mode, "Example")?;
    let fixed = files_of(&sections["Fixed"], mode, "Fixed")?;
    if example.files.is_empty() {
        return Err("the Example has no file".into());
    }
    let mut doc = Doc {
        rule,
        summary: lines[2].to_string(),
        sections,
        mode,
        example,
        fixed,
        fix_auto: false,
        config: String::new(),
    };
    for name in ["What it does", "Why it matters", "Fix"] {
        if doc.text(name).trim().is_empty() {
            return Err(format!("`## {name}` is empty"));
        }
    }
    let fix = doc.text("Fix");
    doc.fix_auto = fix.trim_start().starts_with("`memlint check --fix`");
    if !doc.fix_auto && !fix.trim_start().starts_with("Not fixed automatically:") {
        return Err(
            "`## Fix` must start with `memlint check --fix` or \"Not fixed automatically:\"".into(),
        );
    }
    let conf: Vec<&Block> = doc.sections["Configuration"]
        .iter()
        .filter(|b| matches!(b, Block::Fence(..)))
        .collect();
    let [Block::Fence(lang, body)] = conf.as_slice() else {
        return Err("`## Configuration` must hold one yaml block".into());
    };
    if lang != "yaml" {
        return Err("`## Configuration` must hold one yaml block".into());
    }
    doc.config = body.join("\n") + "\n";
    let sets = format!("\nrules:\n  {}: ", doc.rule);
    if !doc.config.starts_with("# .memlint.yml\n") || !doc.config.contains(&sets) {
        return Err(
            "the configuration block must start with `# .memlint.yml` and set the rule".into(),
        );
    }
    Ok(doc)
}

/// The real bytes of a described example's record.
fn transformed(rule: &str, text: &str) -> Vec<u8> {
    match rule {
        "format/bom" => [b"\xef\xbb\xbf".as_slice(), text.as_bytes()].concat(),
        "format/crlf" => text.replace('\n', "\r\n").into_bytes(),
        "format/encoding" => encoding_rs::SHIFT_JIS.encode(text).0.into_owned(),
        "format/too-large" => {
            // The last body lines repeated until the file exceeds 1 MiB.
            let all: Vec<&str> = text.split('\n').collect();
            let tail: Vec<&str> = all[all.len().saturating_sub(4)..]
                .iter()
                .copied()
                .filter(|l| !l.trim().is_empty())
                .collect();
            let chunk = (tail.join("\n") + "\n").into_bytes();
            let mut data = text.as_bytes().to_vec();
            let reps = (1_048_576 - data.len()) / chunk.len() + 2;
            for _ in 0..reps {
                data.extend_from_slice(&chunk);
            }
            data
        }
        // `{U+XXXX}` stands for that invisible character.
        "text/invisible" => {
            let re = regex::Regex::new(r"\{U\+([0-9A-F]{4,5})\}").unwrap();
            re.replace_all(text, |c: &regex::Captures| {
                let code = u32::from_str_radix(&c[1], 16).unwrap();
                char::from_u32(code).unwrap().to_string()
            })
            .into_owned()
            .into_bytes()
        }
        _ => panic!("{rule}: a described example without a transform"),
    }
}

fn write_files(root: &Path, files: &BTreeMap<String, String>, rule: Option<&str>) {
    for (rel, text) in files {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        match rule {
            Some(rule) if rel.ends_with(".md") => fs::write(&p, transformed(rule, text)).unwrap(),
            _ => fs::write(&p, text).unwrap(),
        }
    }
}

/// A diagnostic, as much as the checks need.
#[derive(Debug)]
struct Diag {
    rule: String,
    severity: String,
    message: String,
    at: String,
}

fn diags_of(json: &str) -> Result<Vec<Diag>, String> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("check printed no JSON ({e}): {json}"))?;
    let list = v["diagnostics"]
        .as_array()
        .ok_or("no diagnostics in the JSON")?;
    Ok(list
        .iter()
        .map(|d| Diag {
            rule: d["rule"].as_str().unwrap_or_default().to_string(),
            severity: d["severity"].as_str().unwrap_or_default().to_string(),
            message: d["message"].as_str().unwrap_or_default().to_string(),
            at: format!("{}:{}", d["path"].as_str().unwrap_or_default(), d["line"]),
        })
        .collect())
}

fn brief(diags: &[&Diag]) -> String {
    let all: Vec<String> = diags
        .iter()
        .map(|d| format!("{}@{}", d.rule, d.at))
        .collect();
    if all.is_empty() {
        "none".into()
    } else {
        all.join(", ")
    }
}

fn check(root: &Path, extra: &[&str]) -> Result<Vec<Diag>, String> {
    let root_s = root.to_str().unwrap();
    let mut args = vec![
        "check", "--root", root_s, "--format", "json", "--color", "never",
    ];
    args.extend_from_slice(extra);
    let out = Command::new(BIN)
        .args(&args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run memlint");
    if out.status.code() == Some(2) {
        return Err(format!(
            "check exited 2: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    diags_of(&String::from_utf8_lossy(&out.stdout))
}

/// Runs a history example's steps in `root`; the diagnostics of the last
/// `memlint check`.
fn run_steps(root: &Path, steps: &[Step], tmp: &Path) -> Result<Vec<Diag>, String> {
    let bin = tmp.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let wrapper = bin.join("memlint");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nif [ \"$1\" = check ]; then\n  shift\n  \"{BIN}\" check --format json --color never \"$@\" > \"$VERIFY_JSON\"\n  rc=$?\n  cat \"$VERIFY_JSON\"\n  exit $rc\nfi\nexec \"{BIN}\" \"$@\"\n"
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = tmp.join("check.json");
    let _ = fs::remove_file(&out);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for step in steps {
        match step {
            Step::Write(rel, text) => {
                write_files(root, &BTreeMap::from([(rel.clone(), text.clone())]), None)
            }
            Step::Remove(rel) => fs::remove_file(root.join(rel)).map_err(|e| e.to_string())?,
            Step::Sh(script) => {
                let o = Command::new("bash")
                    .args(["-e", "-c", script])
                    .current_dir(root)
                    .env("PATH", &path)
                    .env("VERIFY_JSON", &out)
                    .env("GIT_CONFIG_GLOBAL", "/dev/null")
                    .env("GIT_CONFIG_NOSYSTEM", "1")
                    .env("GIT_AUTHOR_NAME", "Aiko Tanaka")
                    .env("GIT_AUTHOR_EMAIL", "aiko@example.com")
                    .env("GIT_COMMITTER_NAME", "Aiko Tanaka")
                    .env("GIT_COMMITTER_EMAIL", "aiko@example.com")
                    .env("HOME", tmp)
                    .env("NO_COLOR", "1")
                    .output()
                    .expect("run bash");
                let code = o.status.code().unwrap_or(-1);
                // `memlint check` exits 1 when it finds errors.
                if !(code == 0 || code == 1 && script.contains("memlint check")) {
                    return Err(format!(
                        "a sh block failed (exit {code}): {}",
                        String::from_utf8_lossy(&o.stderr)
                    ));
                }
            }
        }
    }
    let json = fs::read_to_string(&out).map_err(|_| "the example runs no `memlint check`")?;
    diags_of(&json)
}

/// The steps of a history Example up to its first sh block (the base).
fn base_steps(steps: &[Step]) -> Vec<Step> {
    match steps.iter().position(|s| matches!(s, Step::Sh(_))) {
        Some(i) => steps[..=i].to_vec(),
        None => steps.to_vec(),
    }
}

/// Every file under `root` but `.memlint/` and `.git/`.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if rel == ".memlint" || rel == ".git" {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Checks one document against the binary.
fn verify(doc: &Doc, listed: &Listed) -> Result<(), String> {
    let rule = doc.rule.as_str();
    if doc.summary != listed.summary {
        return Err(format!(
            "the summary differs from the registry: {:?}",
            listed.summary
        ));
    }
    if doc.fix_auto != listed.fix {
        return Err(
            "`## Fix` must promise `memlint check --fix` exactly when the rule is fixable".into(),
        );
    }
    if !doc
        .config
        .contains(&format!("# default: {}", listed.default))
    {
        return Err(format!(
            "the configuration must say `# default: {}`",
            listed.default
        ));
    }
    let history = doc.mode == Mode::History;
    let transform = (doc.mode == Mode::Described).then_some(rule);
    let tmp = tempfile::tempdir().unwrap();
    // 1. The Example fires the rule, and only rules its prose names.
    let root = tmp.path().join("example");
    fs::create_dir_all(&root).unwrap();
    let diags = if history {
        run_steps(&root, &doc.example.steps, tmp.path())?
    } else {
        write_files(&root, &doc.example.files, transform);
        check(&root, &[])?
    };
    if !diags.iter().any(|d| d.rule == rule) {
        let all: Vec<&Diag> = diags.iter().collect();
        return Err(format!(
            "the Example does not fire {rule} (got: {})",
            brief(&all)
        ));
    }
    let allowed = doc.named(&["Example"]);
    let extra: Vec<&Diag> = diags
        .iter()
        .filter(|d| d.rule != rule && !allowed.contains(&d.rule))
        .collect();
    if !extra.is_empty() {
        return Err(format!("the Example also fires {}", brief(&extra)));
    }
    // 2. The Fixed workspace fires neither the rule nor an error, and only
    // warnings its prose names.
    let root2 = tmp.path().join("fixed");
    fs::create_dir_all(&root2).unwrap();
    let diags2 = if history {
        let mut steps = base_steps(&doc.example.steps);
        steps.extend(doc.fixed.steps.iter().cloned());
        run_steps(&root2, &steps, tmp.path())?
    } else {
        let mut files = doc.example.files.clone();
        for rel in &doc.fixed.deleted {
            files
                .remove(rel)
                .ok_or(format!("Fixed deletes `{rel}`, which the Example lacks"))?;
        }
        files.extend(doc.fixed.files.clone());
        write_files(&root2, &files, None);
        check(&root2, &[])?
    };
    if let Some(d) = diags2.iter().find(|d| d.rule == rule) {
        return Err(format!(
            "the Fixed workspace still fires {rule}: {}",
            d.message
        ));
    }
    let named = doc.named(&["Fixed"]);
    let left: Vec<&Diag> = diags2
        .iter()
        .filter(|d| d.severity == "error" || !named.contains(&d.rule))
        .collect();
    if !left.is_empty() {
        return Err(format!("the Fixed workspace reports {}", brief(&left)));
    }
    // 3. `check --fix` writes exactly the Fixed files.
    // A history rule's fix needs its history: its own tests check it.
    if doc.fix_auto && !history {
        let root3 = tmp.path().join("autofix");
        fs::create_dir_all(&root3).unwrap();
        write_files(&root3, &doc.example.files, transform);
        let mut want = snapshot(&root3);
        check(&root3, &["--fix"])?;
        let got = snapshot(&root3);
        for rel in &doc.fixed.deleted {
            want.remove(rel);
        }
        for (rel, text) in &doc.fixed.files {
            want.insert(rel.clone(), text.clone().into_bytes());
        }
        if got != want {
            let differ: Vec<&String> = got
                .keys()
                .chain(want.keys())
                .filter(|k| got.get(*k) != want.get(*k))
                .collect();
            return Err(format!(
                "`check --fix` does not write the Fixed files: {differ:?}"
            ));
        }
    }
    // 4. The configuration block is a valid `.memlint.yml`.
    let root4 = tmp.path().join("config");
    fs::create_dir_all(&root4).unwrap();
    fs::write(root4.join(".memlint.yml"), &doc.config).unwrap();
    check(&root4, &[])?;
    Ok(())
}

#[test]
fn every_rule_document_holds_against_the_binary() {
    let listed = registry();
    assert_eq!(listed.len(), 50, "memlint rule lists every rule");
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(l) = listed.get(i) else { break };
                let result = document(&l.name)
                    .and_then(|text| parse(&text))
                    .and_then(|doc| {
                        if doc.rule != l.name {
                            return Err(format!("headed `{}`", doc.rule));
                        }
                        verify(&doc, l)
                    });
                if let Err(e) = result {
                    failures.lock().unwrap().push(format!("{}: {e}", l.name));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// docs/rules.md as the registry gives it: the table of every rule, each
/// name linking to its document, then the documents.
fn rules_page() -> String {
    let mut page = String::from(
        "# Rules\n\n\
         <!-- Generated from the rule registry: `MEMLINT_UPDATE_DOCS=1 cargo test --test rule_docs` rewrites this page. -->\n\n\
         Every rule `memlint check` applies, with its default severity and whether `memlint check --fix` repairs it. \
         `memlint rule` prints this table; `memlint rule NAME` prints the rule's document below. \
         Severities are set per rule under `rules:` in `.memlint.yml`.\n\n\
         | Rule | Default | Fix | Summary |\n\
         |---|---|---|---|\n",
    );
    let listed = registry();
    for l in &listed {
        let anchor: String = l.name.chars().filter(|c| *c != '/').collect();
        page.push_str(&format!(
            "| [`{}`](#{anchor}) | {} | {} | {} |\n",
            l.name,
            l.default,
            if l.fix { "yes" } else { "" },
            l.summary.replace('|', "\\|")
        ));
    }
    for l in &listed {
        page.push_str("\n---\n\n");
        let doc = memlint::lint::registry::lookup(&l.name)
            .expect("a rule")
            .doc;
        page.push_str(doc);
    }
    page
}

#[test]
fn docs_rules_md_is_the_registry() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md");
    let want = rules_page();
    if std::env::var_os("MEMLINT_UPDATE_DOCS").is_some() {
        fs::write(&path, &want).unwrap();
        return;
    }
    let got = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "docs/rules.md differs from the registry; regenerate it with \
         `MEMLINT_UPDATE_DOCS=1 cargo test --test rule_docs`, or write this:\n\n{want}"
    );
}

/// Issue 44 item 22: a rule name that is not one says where the list is.
#[test]
fn an_unknown_rule_name_points_at_the_list() {
    let out = Command::new(BIN)
        .args(["rule", "nosuch"])
        .output()
        .expect("run memlint");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "memlint: error: no rule named `nosuch`; `memlint rule` lists them all\n"
    );
    let out = Command::new(BIN)
        .args(["rule", "status/danglng-target"])
        .output()
        .expect("run memlint");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "memlint: error: no rule named `status/danglng-target` (did you mean `status/dangling-target`?); `memlint rule` lists them all\n"
    );
}
