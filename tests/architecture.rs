//! The shape of the source, enforced: layers import one way only, no module
//! imports itself back through others (no import circles), the pure layers
//! touch neither the disk, the environment, git nor the terminal, the
//! engine neither parses flags nor prints nor picks exit codes nor reads the
//! environment or the current directory, a value has one import path (no
//! `pub use` of an item from outside the module's own subtree; a facade
//! `pub use child::X` is fine), items are `pub(crate)` unless `src/lib.rs`
//! names them as the library's API, no source file or function grows past
//! the size a reader takes in at once, and every rule is reported only from
//! its own file under `src/lint/rules/`.
//!
//! The layers, lowest first (a layer imports only layers below it; the
//! two at one level do not import each other):
//!
//! | layer | what lives there |
//! |---|---|
//! | `model` | kinds, fields, places, configuration, diagnostics, rule names, the calendar |
//! | `syntax` | front matter, YAML, session text, words and CJK, edits, similarity, tokens, trailers, sanitizer |
//! | `lint`, `fmt` | the rules (text + configuration in, findings out); the formatter (text in, text out) |
//! | `io` | file system, walking, git through gix, the watcher |
//! | `store` | everything under `.memlint/`, one codec |
//! | `engine` | the use cases, typed values in and out |
//! | `cli` | flags, environment, standard streams, rendering, exit codes |
//!
//! Violations known when this test was written are listed in
//! `tests/architecture_baseline.txt`; the list may only shrink: a violation
//! not on it fails the test, and so does an entry that no longer occurs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: &[(&str, u8)] = &[
    ("model", 0),
    ("syntax", 1),
    ("lint", 2),
    ("fmt", 2),
    ("io", 3),
    ("store", 4),
    ("engine", 5),
    ("cli", 6),
];

/// Longest source file, in lines, not counting unit-test modules.
const MAX_FILE_LINES: usize = 1000;
/// Longest function, in lines.
const MAX_FN_LINES: usize = 120;

/// What the pure layers must not use.
const IMPURE: &[&str] = &[
    "std::fs",
    "std::env",
    "std::process",
    "std::io::stdout",
    "std::io::stderr",
    "std::io::stdin",
    "gix::",
    "print!(",
    "println!(",
    "eprint!(",
    "eprintln!(",
];

/// What the model must not hold: shared mutable state. Its types are
/// values; what a layer above meets (a walk's problems) is returned up,
/// never collected on a model value behind a lock.
const SHARED_STATE: &[&str] = &["Mutex", "RwLock", "RefCell", "Cell<", "Atomic"];

/// What the engine must not use: flags, standard streams, exit codes, and
/// the process's environment and current directory (a front end passes
/// them in).
const NOT_IN_ENGINE: &[&str] = &[
    "clap::",
    "std::env",
    "current_dir",
    "ExitCode",
    "std::process::exit",
    "std::io::stdout",
    "std::io::stderr",
    "std::io::stdin",
    "print!(",
    "println!(",
    "eprint!(",
    "eprintln!(",
    "IsTerminal",
];

/// Where code reaches the file system itself (`std::fs`, also brought in
/// by `use std::{fs, …}`): the offset of the first place, if any. The
/// engine and the store go through `io` for that.
fn fs_use(code: &str) -> Option<usize> {
    let direct = code.find("std::fs");
    let grouped = code.match_indices("std::{").find_map(|(at, m)| {
        let rest = &code[at + m.len()..];
        let group = &rest[..rest.find('}')?];
        group
            .split(|c: char| c == ',' || c == '{' || c.is_whitespace())
            .any(|item| item == "fs" || item.starts_with("fs::"))
            .then_some(at)
    });
    direct.into_iter().chain(grouped).min()
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read src")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a source file: `src/lint/rules/mod.rs` → `lint::rules`.
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix(src()).expect("under src");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_string());
    }
    if parts.is_empty() {
        return if stem == "main" {
            "main".into()
        } else {
            String::new()
        };
    }
    parts.join("::")
}

/// The text with comments, string and character literals blanked out
/// (line breaks kept), so that only code is searched.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |s: &str, out: &mut String| {
        for c in s.chars() {
            out.push(if c == '\n' { '\n' } else { ' ' });
        }
    };
    while i < b.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').map_or(text.len(), |n| i + n);
            blank(&text[i..end], &mut out);
            i = end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(text.len(), |n| i + n + 2);
            blank(&text[i..end], &mut out);
            i = end;
        } else if let Some(hashes) = raw_string_start(rest, i, b) {
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            let end = rest[body..]
                .find(&close)
                .map_or(text.len(), |n| i + body + n + close.len());
            blank(&text[i..end], &mut out);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            blank(&text[i..end], &mut out);
            i = end;
        } else if b[i] == b'\'' {
            // A character literal (not a lifetime): 'x', '\n', '\u{..}'.
            let lit = char_literal_len(rest);
            match lit {
                Some(n) => {
                    blank(&text[i..i + n], &mut out);
                    i += n;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = rest.chars().next().expect("char");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn raw_string_start(rest: &str, i: usize, b: &[u8]) -> Option<usize> {
    let rest_b = rest.as_bytes();
    if rest_b.first() != Some(&b'r')
        || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
    {
        return None;
    }
    let hashes = rest_b[1..].iter().take_while(|&&c| c == b'#').count();
    (rest_b.get(1 + hashes) == Some(&b'"')).then_some(hashes)
}

fn char_literal_len(rest: &str) -> Option<usize> {
    let b = rest.as_bytes();
    if b.get(1) == Some(&b'\\') {
        let close = rest[2..].find('\'')?;
        return (close <= 10).then_some(close + 3);
    }
    let c = rest[1..].chars().next()?;
    let n = 1 + c.len_utf8();
    (b.get(n) == Some(&b'\'')).then_some(n + 1)
}

/// Byte ranges of `#[cfg(test)]` items (unit-test modules).
fn test_items(code: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("#[cfg(test)]") {
        let start = from + at;
        let Some(open) = code[start..].find(['{', ';']).map(|n| start + n) else {
            break;
        };
        if code.as_bytes()[open] == b';' {
            from = open + 1;
            continue;
        }
        let end = matching_brace(code, open);
        out.push(start..end);
        from = end;
    }
    out
}

fn matching_brace(code: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].matches('\n').count() + 1
}

/// The modules a file refers to: `crate::a::b…` and `super::…` paths,
/// `use crate::{a, b::c}` groups, resolved to the longest module that
/// exists.
fn imports(module: &str, code: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let mut paths: Vec<String> = Vec::new();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut push_path = |start: &str, tail: &str| expand(start, tail, &mut paths);
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && (word(code[..at].chars().last().unwrap_or(' ')) || code[..at].ends_with('$')) {
            continue;
        }
        push_path("", &code[at + "crate::".len()..]);
    }
    let parent = match module.rsplit_once("::") {
        Some((p, _)) => p.to_string(),
        None => String::new(),
    };
    let mut from = 0;
    while let Some(at) = code[from..].find("super::") {
        let at = from + at;
        from = at + 1;
        if at > 0 && word(code[..at].chars().last().unwrap_or(' ')) {
            continue;
        }
        // `super::super::` is not used here.
        let prefix = if parent.is_empty() {
            String::new()
        } else {
            format!("{parent}::")
        };
        push_path(&prefix, &code[at + "super::".len()..]);
    }
    let mut out = BTreeSet::new();
    for p in paths {
        let parts: Vec<&str> = p.split("::").filter(|s| !s.is_empty()).collect();
        for n in (1..=parts.len()).rev() {
            let candidate = parts[..n].join("::");
            if known.contains(&candidate) {
                if candidate != module {
                    out.insert(candidate);
                }
                break;
            }
        }
    }
    out
}

/// Adds the paths of the use tree at the start of `tail` (what follows
/// `crate::` or `super::`), each prefixed with `start`, to `out`:
/// `{a, b::{c, d}}` gives `a`, `b::c` and `b::d`.
fn expand(start: &str, tail: &str, out: &mut Vec<String>) {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if tail.trim().is_empty() {
        return; // after a trailing comma
    }
    let head: String = tail.chars().take_while(|&c| word(c) || c == ':').collect();
    let rest = &tail[head.len()..];
    let prefix = format!("{start}{head}");
    let Some(group) = rest.strip_prefix('{') else {
        out.push(prefix.trim_end_matches(':').to_string());
        return;
    };
    // The items of the group, split at top-level commas.
    let mut depth = 0;
    let mut item_start = 0;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                expand(&prefix, group[item_start..i].trim_start(), out);
                return;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&prefix, group[item_start..i].trim_start(), out);
                item_start = i + 1;
            }
            _ => {}
        }
    }
}

/// The re-exports of a module that give a second path to a value homed
/// elsewhere: every `pub use` (of any visibility) whose item does not live
/// below `module` (a facade `pub use child::X` is fine), as (item, line).
fn reexports(module: &str, code: &str, known: &BTreeSet<String>) -> Vec<(String, usize)> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
    let mut out = Vec::new();
    for (at, _) in code.match_indices("pub") {
        if at > 0 && word(code[..at].chars().last().unwrap_or(' ')) {
            continue;
        }
        let mut rest = &code[at + 3..];
        if rest.starts_with('(') {
            let Some(close) = rest.find(')') else {
                continue;
            };
            rest = &rest[close + 1..];
        }
        let Some(tree) = rest.trim_start().strip_prefix("use ") else {
            continue;
        };
        let Some(end) = tree.find(';') else { continue };
        let mut paths = Vec::new();
        expand("", tree[..end].trim_start(), &mut paths);
        for p in paths {
            let p = p.split_whitespace().next().unwrap_or("").to_string();
            let abs = if let Some(t) = p.strip_prefix("crate::") {
                t.to_string()
            } else if let Some(t) = p.strip_prefix("super::") {
                if parent.is_empty() {
                    t.to_string()
                } else {
                    format!("{parent}::{t}")
                }
            } else if let Some(t) = p.strip_prefix("self::") {
                format!("{module}::{t}")
            } else if known.contains(&format!("{module}::{}", p.split("::").next().unwrap_or(""))) {
                format!("{module}::{p}")
            } else {
                continue; // another crate's item
            };
            if !abs.starts_with(&format!("{module}::")) {
                out.push((abs, line_of(code, at)));
            }
        }
    }
    out
}

/// The library's API as `src/lib.rs` names it: the intra-doc links
/// (`` [`a::b`] ``) of its "The library's API" section.
fn api_paths(lib: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut inside = false;
    for line in lib.lines() {
        let Some(doc) = line.trim_start().strip_prefix("//!") else {
            continue;
        };
        if doc.trim_start().starts_with('#') {
            inside = doc.contains("The library's API");
            continue;
        }
        if !inside {
            continue;
        }
        // links, and plain `a::b` for items only reachable through a signature
        for part in doc.split('`').skip(1).step_by(2) {
            if part.contains("::") {
                out.insert(part.trim_start_matches("crate::").to_string());
            }
        }
    }
    out
}

/// The bare `pub` items of a file's code (visible outside the crate when
/// their modules are): (path, line), methods as `module::Type::name`,
/// re-exports as `module::name`.
fn pub_items(module: &str, code: &str) -> Vec<(String, usize)> {
    const KINDS: &[&str] = &[
        "fn", "struct", "enum", "trait", "type", "const", "static", "mod", "use", "union",
    ];
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    // (indent, segment) of the impl blocks and inline modules around a line
    let mut around: Vec<(usize, String)> = Vec::new();
    let mut offset = 0;
    for (n, line) in code.lines().enumerate() {
        let at = offset;
        offset += line.len() + 1;
        let text = line.trim_start();
        let indent = line.len() - text.len();
        if text.is_empty() {
            continue;
        }
        if text.starts_with('}') && around.last().is_some_and(|(i, _)| *i == indent) {
            around.pop();
            continue;
        }
        while around.last().is_some_and(|(i, _)| indent <= *i)
            && !text.starts_with("where")
            && !text.starts_with('{')
        {
            around.pop();
        }
        let head = text
            .strip_prefix("pub(crate) ")
            .or(text.strip_prefix("pub(super) "));
        let bare = text.strip_prefix("pub ");
        let rest = bare.or(head).unwrap_or(text);
        let mut rest = rest;
        for q in ["async ", "unsafe ", "extern \"C\" "] {
            rest = rest.strip_prefix(q).unwrap_or(rest);
        }
        if let Some(r) = rest.strip_prefix("impl") {
            if !r.starts_with(|c: char| c == '<' || c.is_whitespace()) {
                continue;
            }
            let mut r = r.trim_start();
            if r.starts_with('<') {
                let mut depth = 0;
                for (i, c) in r.char_indices() {
                    depth += match c {
                        '<' => 1,
                        '>' => -1,
                        _ => 0,
                    };
                    if depth == 0 {
                        r = r[i + 1..].trim_start();
                        break;
                    }
                }
            }
            if let Some((_, ty)) = r.split_once(" for ") {
                r = ty;
            }
            let ty: String = r
                .split(|c: char| !(word(c) || c == ':'))
                .next()
                .unwrap_or("")
                .rsplit("::")
                .next()
                .unwrap_or("")
                .to_string();
            around.push((indent, ty));
            continue;
        }
        let Some((kind, tail)) = rest.split_once(' ') else {
            continue;
        };
        let kind = if kind == "const" && tail.starts_with("fn ") {
            "fn"
        } else {
            kind
        };
        if !KINDS.contains(&kind) {
            continue;
        }
        let mut path: Vec<String> = module
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        path.extend(around.iter().map(|(_, s)| s.clone()));
        if kind == "mod" && text.ends_with('{') {
            let name: String = tail.chars().take_while(|&c| word(c)).collect();
            around.push((indent, name));
        }
        if bare.is_none() {
            continue;
        }
        let tail = if kind == "fn" && rest.starts_with("const ") {
            &tail[3..]
        } else {
            tail
        };
        let names: Vec<String> = if kind == "use" {
            let end = code[at..].find(';').map_or(code.len(), |e| at + e);
            let tree = &code[at..end];
            let tree = &tree[tree.find("use ").map_or(0, |u| u + 4)..];
            // `b as c` is named `c`
            let mut tree = tree.to_string();
            while let Some(at) = tree.find(" as ") {
                let start = tree[..at]
                    .rfind(|c: char| !(word(c) || c == ':'))
                    .map_or(0, |i| i + 1);
                tree.replace_range(start..at + 4, "");
            }
            let mut paths = Vec::new();
            if !tree.trim_end().ends_with('*') {
                expand("", tree.trim_start(), &mut paths);
            }
            paths
                .iter()
                .filter(|p| !p.ends_with('*')) // a glob lifts items named at their homes
                .map(|p| {
                    let p = p.trim();
                    match p.rsplit_once(" as ") {
                        Some((_, alias)) => alias.trim().to_string(),
                        None => p.rsplit("::").next().unwrap_or(p).to_string(),
                    }
                })
                .collect()
        } else {
            let name: String = tail.trim_start().chars().take_while(|&c| word(c)).collect();
            vec![name]
        };
        for name in names {
            let mut p = path.clone();
            p.push(name);
            out.push((p.join("::"), n + 1));
        }
    }
    out
}

/// Whether `item` is part of the named API: named itself, a module on the
/// way to a named item, a method of a named type, or the home of an item
/// a facade above it re-exports under a named path.
fn in_api(item: &str, api: &BTreeSet<String>) -> bool {
    if api.contains(item) || api.iter().any(|p| p.starts_with(&format!("{item}::"))) {
        return true;
    }
    let (parent, name) = item.rsplit_once("::").unwrap_or(("", item));
    let ty = parent.rsplit("::").next().unwrap_or(parent);
    if api.contains(parent)
        || (ty.starts_with(|c: char| c.is_ascii_uppercase())
            && api.iter().any(|p| p.ends_with(&format!("::{ty}"))))
    {
        return true; // a method of a named type (its impl may live elsewhere)
    }
    api.iter().any(|p| {
        let (pm, pn) = p.rsplit_once("::").unwrap_or(("", p));
        pn == name && (item.starts_with(&format!("{pm}::")) || pm.is_empty())
    })
}

fn layer(module: &str) -> Option<(&'static str, u8)> {
    let top = module.split("::").next().unwrap_or("");
    if top == "main" {
        return Some(("cli", 6));
    }
    LAYERS.iter().copied().find(|(name, _)| *name == top)
}

struct Source {
    module: String,
    rel: String,
    code: String,
    /// The code without unit-test modules.
    non_test: String,
}

fn sources() -> Vec<Source> {
    let mut paths = Vec::new();
    files(&src(), &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read source");
            let code = code_only(&text);
            let mut non_test = code.clone();
            for r in test_items(&code).into_iter().rev() {
                let blanked: String = code[r.clone()]
                    .chars()
                    .map(|c| if c == '\n' { '\n' } else { ' ' })
                    .collect();
                non_test.replace_range(r, &blanked);
            }
            Source {
                module: module_of(&p),
                rel: p
                    .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")))
                    .expect("rel")
                    .to_string_lossy()
                    .replace('\\', "/"),
                code,
                non_test,
            }
        })
        .collect()
}

/// Every violation, one line each, sorted.
fn violations() -> Vec<String> {
    let sources = sources();
    let known: BTreeSet<String> = sources.iter().map(|s| s.module.clone()).collect();
    let mut out = Vec::new();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in &sources {
        // lib.rs declares the layers; testing.rs is a unit-test helper.
        if s.module.is_empty() || s.module == "testing" {
            continue;
        }
        let deps = imports(&s.module, &s.non_test, &known);
        let Some((name, rank)) = layer(&s.module) else {
            out.push(format!("layer: {} is in no layer", s.rel));
            continue;
        };
        for d in &deps {
            if d == "testing" || d.is_empty() {
                continue;
            }
            let Some((dname, drank)) = layer(d) else {
                continue;
            };
            if dname != name && drank >= rank {
                out.push(format!("layer: {} ({name}) imports {d} ({dname})", s.rel));
            }
        }
        for (item, line) in reexports(&s.module, &s.non_test, &known) {
            out.push(format!(
                "reexport: {} (line {line}) re-exports {item}; import it from its home",
                s.rel
            ));
        }
        graph.insert(s.module.clone(), deps);
        let lines_of = |needles: &[&str], what: &str, out: &mut Vec<String>| {
            for (needle, line) in uses(&s.non_test, needles) {
                out.push(format!("{what}: {} uses `{needle}` (line {line})", s.rel));
            }
        };
        if name == "model" {
            lines_of(SHARED_STATE, "value", &mut out);
        }
        match name {
            "model" | "syntax" | "lint" | "fmt" => lines_of(IMPURE, "pure", &mut out),
            "engine" => lines_of(NOT_IN_ENGINE, "engine", &mut out),
            _ => {}
        }
        if name == "engine" || name == "store" {
            if let Some(at) = fs_use(&s.non_test) {
                out.push(format!(
                    "io: {} ({name}) uses `std::fs` (line {}); go through io",
                    s.rel,
                    line_of(&s.non_test, at)
                ));
            }
        }
        let test_lines: usize = test_items(&s.code)
            .into_iter()
            .map(|r| s.code[r].matches('\n').count() + 1)
            .sum();
        let lines = s.code.lines().count().saturating_sub(test_lines);
        if lines > MAX_FILE_LINES {
            out.push(format!(
                "size: {} has {lines} lines besides its unit tests (at most {MAX_FILE_LINES})",
                s.rel
            ));
        }
        for (name, len) in long_functions(&s.non_test) {
            out.push(format!(
                "size: {} fn {name} has {len} lines (at most {MAX_FN_LINES})",
                s.rel
            ));
        }
    }
    out.extend(rules_away_from_home(&sources));
    // The engine and the layers under it name no command-line flag: what
    // the user can do next is typed advice each front end words.
    for s in sources.iter().filter(|s| {
        ["engine", "store", "io"]
            .iter()
            .any(|m| s.module.starts_with(m))
    }) {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(&s.rel))
            .expect("read source");
        for (line, flag) in flag_literals(&text) {
            if !FLAGS_ALLOWED
                .iter()
                .any(|(file, f)| *file == s.rel && (f.is_empty() || *f == flag))
            {
                out.push(format!(
                    "flag: {} (line {line}) names the flag {flag} in a string; give the front end typed advice (engine::advice) to word",
                    s.rel
                ));
            }
        }
    }
    // One home for the workspace's methods: what io and engine add to it
    // are free functions of their modules.
    for s in &sources {
        if s.rel == WORKSPACE_HOME {
            continue;
        }
        for line in workspace_impls(&s.non_test) {
            out.push(format!(
                "home: {} (line {line}) has `impl Workspace`; its methods live in {WORKSPACE_HOME}, the rest are free functions",
                s.rel
            ));
        }
    }
    // `pub(crate)` by default: a bare `pub` item is the library's API, which
    // lib.rs names.
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("read lib.rs");
    let api = api_paths(&lib);
    for s in &sources {
        if s.module == "testing" {
            continue;
        }
        for (item, line) in pub_items(&s.module, &s.non_test) {
            if !in_api(&item, &api) {
                out.push(format!(
                    "api: {} (line {line}) `pub` {item} is not in lib.rs's API; make it pub(crate) or name it there",
                    s.rel
                ));
            }
        }
    }
    // Circles: every module that can reach itself.
    for m in graph.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&String> = graph[m].iter().collect();
        while let Some(n) = stack.pop() {
            if n == m {
                out.push(format!("circle: {m} imports itself back"));
                break;
            }
            if seen.insert(n.clone()) {
                if let Some(next) = graph.get(n) {
                    stack.extend(next.iter());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The file that holds `Workspace` and every `impl` of it.
const WORKSPACE_HOME: &str = "src/model/workspace.rs";

/// The lines of `code` (comments and strings blanked) where an `impl`
/// block of `Workspace` begins: `impl Workspace {` or `impl T for
/// Workspace {`.
fn workspace_impls(code: &str) -> Vec<usize> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut lines = Vec::new();
    for (at, _) in code.match_indices("impl") {
        if code[..at].chars().next_back().is_some_and(ident) {
            continue;
        }
        let head = &code[at..];
        let Some(end) = head.find(['{', ';']) else {
            continue;
        };
        let words: Vec<&str> = head[..end]
            .split(|c: char| !ident(c))
            .filter(|w| !w.is_empty())
            .collect();
        let target = match words.iter().position(|w| *w == "for") {
            Some(i) => words.get(i + 1..),
            None => words.get(1..),
        };
        // The type is the first word after `impl` (or `for`) that is not a
        // path segment leading to it (`crate::model::workspace::Workspace`).
        if target.is_some_and(|t| {
            t.iter()
                .find(|w| !matches!(**w, "crate" | "model" | "workspace" | "super" | "self"))
                == Some(&"Workspace")
        }) {
            lines.push(line_of(code, at));
        }
    }
    lines
}

/// Where the engine may name a flag in a string: (file, flag), an empty
/// flag for every flag of the file. These are the contents of files memlint
/// writes (git hooks, agent settings, the merge driver), which run memlint
/// with its flags. Everything else the engine says is typed (an `Advice`, a
/// `Name`) and worded by the front end.
const FLAGS_ALLOWED: &[(&str, &str)] = &[
    // The git hook scripts, and the line a commit-msg hook that is not
    // memlint's is told to run.
    ("src/engine/init/templates.rs", ""),
    // The agent settings memlint merges in (hook commands).
    ("src/engine/agents.rs", ""),
    // The merge driver: its .gitattributes lines and its command in the
    // git configuration.
    ("src/engine/merge/install.rs", ""),
    // The mark memlint's own git hooks carry.
    ("src/engine/init/hooks.rs", "--hooks"),
    // The arguments of the programs io runs: `git` on a remote, and the
    // watcher (memlint itself) in the background.
    ("src/io/git/remote.rs", ""),
    ("src/io/watch/client.rs", ""),
];

/// The `--flag`s named in the string literals of `text` (outside
/// comments and unit-test modules): (line, flag), each flag once a line.
fn flag_literals(text: &str) -> Vec<(usize, String)> {
    let code = code_only(text);
    let tests: Vec<std::ops::Range<usize>> = test_items(&code)
        .into_iter()
        .map(|r| line_of(&code, r.start)..line_of(&code, r.end) + 1)
        .collect();
    // `code_only` keeps the lines: a literal is where the text has
    // something the code blanked, and is not a comment.
    let mut out = Vec::new();
    for (n, (t, c)) in text.lines().zip(code.lines()).enumerate() {
        let line = n + 1;
        if tests.iter().any(|r| r.contains(&line)) {
            continue;
        }
        let code_chars: Vec<char> = c.chars().collect();
        let blanked: String = t
            .chars()
            .enumerate()
            .map(|(i, ch)| {
                if code_chars.get(i) == Some(&' ') && ch != ' ' {
                    ch
                } else {
                    ' '
                }
            })
            .collect();
        let comment = t
            .find("//")
            .map_or(usize::MAX, |at| t[..at].chars().count());
        let comment = if c.chars().skip(comment).all(|ch| ch == ' ') {
            comment
        } else {
            usize::MAX
        };
        let literal: String = blanked.chars().take(comment).collect();
        let mut seen = BTreeSet::new();
        for (at, _) in literal.match_indices("--") {
            let flag: String = literal[at + 2..]
                .chars()
                .take_while(|ch| ch.is_ascii_lowercase() || *ch == '-')
                .collect();
            let before = literal[..at].chars().next_back();
            if flag.starts_with(|ch: char| ch.is_ascii_lowercase())
                && !before.is_some_and(|ch| ch.is_ascii_alphanumeric() || ch == '-')
                && seen.insert(flag.clone())
            {
                out.push((line, format!("--{flag}")));
            }
        }
    }
    out
}

/// The first use of each of `needles` in `code`: (needle, line).
fn uses<'n>(code: &str, needles: &[&'n str]) -> Vec<(&'n str, usize)> {
    needles
        .iter()
        .filter_map(|needle| Some((*needle, line_of(code, code.find(needle)?))))
        .collect()
}

/// Every rule's home, from the registry: its `Rule` variant → the file of
/// the `DOC` it is registered with (`def(Rule::X, …, family::name::DOC)`
/// → `src/lint/rules/family/name.rs`).
fn rule_homes(registry: &str) -> BTreeMap<String, String> {
    let mut homes = BTreeMap::new();
    for (at, _) in registry.match_indices("def(") {
        let call = &registry[at..matching_paren(registry, at + 3)];
        let Some(variant) = rule_variants(call).into_iter().next().map(|(_, v)| v) else {
            continue;
        };
        let Some(doc) = call.find("::DOC") else {
            continue;
        };
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '#';
        let start = call[..doc].rfind(|c: char| !word(c)).map_or(0, |i| i + 1);
        let path = call[start..doc].replace("r#", "").replace("::", "/");
        homes.insert(variant, format!("src/lint/rules/{path}.rs"));
    }
    homes
}

/// The byte just past the `)` that closes the `(` at `open`.
fn matching_paren(code: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, c) in code[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return open + i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// Every `Rule::Variant` in `code` (also written `crate::model::rule::Rule::…`,
/// never `ProblemRule::…`): (offset of its path's start, variant).
fn rule_variants(code: &str) -> Vec<(usize, String)> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for (at, _) in code.match_indices("Rule::") {
        if code[..at].chars().last().is_some_and(ident) {
            continue;
        }
        let variant: String = code[at + 6..].chars().take_while(|&c| ident(c)).collect();
        // Variants are CamelCase; `Rule::ALL` and `Rule::names` are not rules.
        let mut chars = variant.chars();
        let camel = chars.next().is_some_and(|c| c.is_ascii_uppercase())
            && chars.any(|c| c.is_ascii_lowercase());
        if !camel {
            continue;
        }
        let start = code[..at]
            .rfind(|c: char| !(ident(c) || c == ':'))
            .map_or(0, |i| i + 1);
        out.push((start, variant));
    }
    out
}

/// Whether the rule named at `start..end` of `code` is only asked about
/// (compared, matched, looked up in the configuration), not reported: a
/// diagnostic is built from a rule given to `emit`, set as a `rule:` field,
/// or bound to a name, and those are left to the rule's own file.
fn only_asked(code: &str, start: usize, end: usize) -> bool {
    let before = code[..start].trim_end();
    let after = code[end..].trim_start();
    let compared = before.ends_with("==") || before.ends_with("!=");
    let or_pattern = |s: &str| s.ends_with('|') && !s.ends_with("||");
    let pattern = after.starts_with("=>")
        || (after.starts_with('|') && !after.starts_with("||"))
        || or_pattern(before);
    // The call the rule is an argument of.
    let mut depth = 0usize;
    let mut call = None;
    for (i, c) in code[..start].char_indices().rev() {
        match c {
            ')' | ']' | '}' => depth += 1,
            '(' | '[' | '{' if depth > 0 => depth -= 1,
            '(' => {
                call = Some(i);
                break;
            }
            '[' | '{' | ';' => break,
            _ => {}
        }
    }
    let asking = call.is_some_and(|i| {
        let name = code[..i].trim_end_matches('!');
        ["enabled", "severity", "matches"]
            .iter()
            .any(|f| name.ends_with(f))
    });
    compared || pattern || asking
}

/// Rules reported from a file other than their own: every `Rule::X` that
/// is not only asked about appears in the rule's file or in the registry.
fn rules_away_from_home(sources: &[Source]) -> Vec<String> {
    let Some(registry) = sources.iter().find(|s| s.rel == "src/lint/registry.rs") else {
        return vec!["rule: src/lint/registry.rs is missing".to_string()];
    };
    let homes = rule_homes(&registry.non_test);
    let mut out = Vec::new();
    if homes.len() < 40 {
        out.push(format!(
            "rule: the registry's rules were not found ({} of them)",
            homes.len()
        ));
    }
    for (variant, home) in &homes {
        if !sources.iter().any(|s| &s.rel == home) {
            out.push(format!(
                "rule: the home of Rule::{variant}, {home}, is missing"
            ));
        }
    }
    for s in sources {
        if s.rel == "src/model/rule.rs" || s.rel == "src/lint/registry.rs" {
            continue;
        }
        for (start, variant) in rule_variants(&s.non_test) {
            let Some(home) = homes.get(&variant) else {
                continue;
            };
            let end = s.non_test[start..]
                .find(&variant)
                .map_or(start, |i| start + i)
                + variant.len();
            if home == &s.rel || only_asked(&s.non_test, start, end) {
                continue;
            }
            out.push(format!(
                "rule: {} reports Rule::{variant} (line {}); its home is {home}",
                s.rel,
                line_of(&s.non_test, start)
            ));
        }
    }
    out
}

/// Functions longer than [`MAX_FN_LINES`]: (name, lines).
fn long_functions(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && word(code[..at].chars().last().unwrap_or(' ')) {
            continue;
        }
        let name: String = code[at + 3..].chars().take_while(|&c| word(c)).collect();
        if name.is_empty() {
            continue;
        }
        // The body: the first `{` before any `;` at the top level.
        let rest = &code[at..];
        let Some(open) = rest.find(['{', ';']) else {
            continue;
        };
        if rest.as_bytes()[open] == b';' {
            continue;
        }
        let end = matching_brace(code, at + open);
        let len = line_of(code, end) - line_of(code, at) + 1;
        if len > MAX_FN_LINES {
            out.push((name, len));
        }
    }
    out
}

#[test]
fn the_source_keeps_its_shape() {
    let found = violations();
    let baseline_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/architecture_baseline.txt");
    let baseline: BTreeSet<String> = std::fs::read_to_string(&baseline_path)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.to_string())
        .collect();
    let found_set: BTreeSet<String> = found.iter().cloned().collect();
    let new: Vec<&String> = found_set.difference(&baseline).collect();
    let gone: Vec<&String> = baseline.difference(&found_set).collect();
    if std::env::var_os("MEMLINT_ARCHITECTURE_BASELINE").is_some() {
        let mut text = String::from(
            "# Known violations of tests/architecture.rs; this list may only shrink.\n",
        );
        for v in &found {
            text.push_str(v);
            text.push('\n');
        }
        std::fs::write(&baseline_path, text).expect("write baseline");
        return;
    }
    assert!(
        new.is_empty() && gone.is_empty(),
        "new violations (fix them):\n  {}\nfixed but still listed in tests/architecture_baseline.txt (delete these lines):\n  {}",
        new.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n  "),
        gone.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n  ")
    );
}

/// The checker itself: a known shape gives the known answers.
#[test]
fn the_checker_finds_imports_long_functions_and_test_modules() {
    let code = code_only(
        "use crate::{model::kind::Kind, syntax::{yaml, text}};\n\
         use super::sink;\n\
         // crate::engine::check in a comment\n\
         fn a() { let s = \"crate::cli\"; }\n\
         #[cfg(test)]\nmod tests { use crate::engine::x; }\n",
    );
    let known: BTreeSet<String> = [
        "model::kind",
        "syntax::yaml",
        "syntax::text",
        "lint::sink",
        "engine",
        "cli",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let all = imports("lint::rules", &code, &known);
    assert!(
        all.contains("model::kind") && all.contains("syntax::yaml") && all.contains("syntax::text")
    );
    assert!(all.contains("lint::sink"), "{all:?}");
    assert!(
        all.contains("engine"),
        "the test module's import is seen in the whole code"
    );
    assert!(!all.contains("cli"), "string literals are not code");
    let tests = test_items(&code);
    assert_eq!(tests.len(), 1);
    let facade = code_only(
        "pub use child::X;\npub use self::child::{Y, Z as W};\n\
         pub use crate::lint::rules::child::V;\npub use rayon::prelude;\n\
         pub use crate::model::workspace::Workspace;\n\
         pub(crate) use crate::lint::registry::{lookup, names};\npub use super::sink::Sink;\n",
    );
    let known: BTreeSet<String> = ["lint::rules::child"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(
        reexports("lint::rules", &facade, &known),
        vec![
            ("model::workspace::Workspace".to_string(), 5),
            ("lint::registry::lookup".to_string(), 6),
            ("lint::registry::names".to_string(), 6),
            ("lint::sink::Sink".to_string(), 7),
        ]
    );
    let lib = "//! Intro [`not::this`].\n//!\n//! ## The library's API\n//!\n\
               //! - [`engine::staging::host_name`], [`model::kind::Kind`]\n\
               //! - [`engine::author::new`]\n";
    let api = api_paths(lib);
    assert_eq!(
        api.iter().map(String::as_str).collect::<Vec<_>>(),
        [
            "engine::author::new",
            "engine::staging::host_name",
            "model::kind::Kind"
        ]
    );
    let items = pub_items(
        "model::kind",
        &code_only(
            "pub enum Kind {}\nimpl Kind {\n    pub fn as_str(self) {}\n    pub(crate) fn x() {}\n}\n\
             pub(crate) struct Hidden;\nimpl Hidden {\n    pub fn leak(&self) {}\n}\n\
             pub const fn limit() {}\npub use inner::{a, b as c};\n",
        ),
    );
    assert_eq!(
        items,
        [
            ("model::kind::Kind".to_string(), 1),
            ("model::kind::Kind::as_str".to_string(), 3),
            ("model::kind::Hidden::leak".to_string(), 8),
            ("model::kind::limit".to_string(), 10),
            ("model::kind::a".to_string(), 11),
            ("model::kind::c".to_string(), 11),
        ]
    );
    let allowed: Vec<&str> = items
        .iter()
        .map(|(i, _)| i.as_str())
        .filter(|i| in_api(i, &api))
        .collect();
    assert_eq!(allowed, ["model::kind::Kind", "model::kind::Kind::as_str"]);
    assert!(in_api("engine", &api) && in_api("engine::staging", &api));
    assert!(
        in_api("engine::author::new::new", &api),
        "the home of a facade's item"
    );
    assert!(!in_api("engine::author::newer", &api));
    let long = format!("fn big() {{\n{}}}\n", "    x();\n".repeat(MAX_FN_LINES));
    assert_eq!(
        long_functions(&code_only(&long)),
        vec![("big".to_string(), MAX_FN_LINES + 2)]
    );
}

/// Issue 48 item 6: the engine reads neither the environment nor the
/// current directory; a front end passes them in. Code that does is
/// found, and a mention in a comment or string is not.
#[test]
fn the_engine_reads_no_environment_nor_current_directory() {
    let code = code_only(
        "// std::env::current_dir() in a comment\n\
         fn a() { let s = \"std::env::var\"; }\n\
         fn b() { let cwd = std::env::current_dir(); }\n\
         fn c() { let v = std::env::var(\"X\"); }\n",
    );
    assert_eq!(
        uses(&code, NOT_IN_ENGINE),
        vec![("std::env", 3), ("current_dir", 3)]
    );
    let imported = code_only("use std::env;\nfn d() { let _ = env::var(\"X\"); }\n");
    assert_eq!(uses(&imported, NOT_IN_ENGINE), vec![("std::env", 1)]);
}

/// The checker finds the file system used directly, however it is named.
#[test]
fn the_checker_finds_std_fs_however_it_is_imported() {
    for code in [
        "use std::fs;\nfn f() { fs::read(p); }",
        "fn f() { std::fs::read(p); }",
        "use std::{fs, io};",
        "use std::{io, fs::File};",
        "use std::{\n    io,\n    fs,\n};",
    ] {
        assert!(fs_use(&code_only(code)).is_some(), "{code}");
    }
    for code in [
        "use crate::io::fs::read_regular;",
        "use std::{io, path::Path};\nfn f() { crate::io::files::remove_file(p); }",
        "// std::fs in a comment\nfn f() { let s = \"std::fs\"; }",
    ] {
        assert_eq!(fs_use(&code_only(code)), None, "{code}");
    }
}

/// The rule check: a rule given to `emit` or set as a diagnostic's `rule`
/// away from its file is found; comparing, matching and asking the
/// configuration about it is not.
#[test]
fn the_checker_finds_a_rule_reported_away_from_its_file() {
    let registry = code_only(
        "pub static REGISTRY: &[RuleDef] = &[\n\
         def(Rule::FormatBom, Reader, format::bom::DOC),\n\
         def(\n    Rule::FrontmatterType,\n    Check::Record(frontmatter::r#type::check),\n    frontmatter::r#type::DOC,\n),\n];\n",
    );
    let homes = rule_homes(&registry);
    assert_eq!(
        homes.get("FormatBom").map(String::as_str),
        Some("src/lint/rules/format/bom.rs")
    );
    assert_eq!(
        homes.get("FrontmatterType").map(String::as_str),
        Some("src/lint/rules/frontmatter/type.rs")
    );
    let source = |rel: &str, text: &str| {
        let code = code_only(text);
        Source {
            module: String::new(),
            rel: rel.to_string(),
            non_test: code.clone(),
            code,
        }
    };
    let sources = [
        source("src/lint/registry.rs", &registry.to_string()),
        source(
            "src/lint/rules/format/bom.rs",
            "fn check(s: &mut Sink) { s.emit(Rule::FormatBom, 0..0, \"bom\"); }\n",
        ),
        source(
            "src/lint/rules/frontmatter/type.rs",
            "fn check(s: &mut Sink) { s.emit(\n    Rule::FrontmatterType,\n    0..0,\n    \"t\",\n); }\n",
        ),
        source(
            "src/lint/mod.rs",
            "fn a(s: &mut Sink, d: &Diagnostic, c: &Config) {\n\
             if d.rule == Rule::FormatBom || c.enabled(Rule::FrontmatterType) {}\n\
             let _ = matches!(d.rule, Rule::FormatBom | Rule::FrontmatterType);\n\
             match d.rule { Rule::FormatBom => {}, _ => {} }\n\
             s.emit(Rule::FormatBom, 0..0, \"x\");\n\
             let _ = Diagnostic { rule: crate::model::rule::Rule::FrontmatterType, ..d.clone() };\n\
             let r = Rule::FormatBom;\n\
             let _ = ProblemRule::Type;\n}\n",
        ),
    ];
    assert_eq!(
        rules_away_from_home(&sources)
            .into_iter()
            .filter(|v| !v.contains("were not found"))
            .collect::<Vec<_>>(),
        [
            "rule: src/lint/mod.rs reports Rule::FormatBom (line 5); its home is src/lint/rules/format/bom.rs",
            "rule: src/lint/mod.rs reports Rule::FrontmatterType (line 6); its home is src/lint/rules/frontmatter/type.rs",
            "rule: src/lint/mod.rs reports Rule::FormatBom (line 7); its home is src/lint/rules/format/bom.rs",
        ]
    );
}

/// The value check: shared mutable state is found however it is spelled,
/// and not in a comment or a string.
#[test]
fn the_checker_finds_shared_mutable_state() {
    let code = code_only(
        "pub struct W {\n    problems: Arc<std::sync::Mutex<Vec<P>>>,\n}\n\
         // a Mutex in a comment\n\
         fn f() -> &'static str { \"RwLock\" }\n\
         static N: std::sync::atomic::AtomicUsize = AtomicUsize::new(0);\n\
         struct C(std::cell::RefCell<u8>);\n",
    );
    assert_eq!(
        uses(&code, SHARED_STATE),
        vec![("Mutex", 2), ("RefCell", 7), ("Cell<", 7), ("Atomic", 6)]
    );
}

/// The home check: an `impl` of `Workspace` is found however it is
/// written, and an `impl` of another type is not.
#[test]
fn the_checker_finds_impl_workspace_away_from_home() {
    let code = code_only(
        "impl Workspace {\n}\n\
         impl std::fmt::Debug for Workspace {\n}\n\
         impl crate::model::workspace::Workspace {\n}\n\
         impl WorkspaceError {\n}\n\
         impl Walked {\n}\n\
         // impl Workspace in a comment\n\
         fn f() { let s = \"impl Workspace {\"; }\n",
    );
    assert_eq!(workspace_impls(&code), vec![1, 3, 5]);
}

/// The flag check: a flag in a string is found, in a comment, in a slug
/// (`a--b`) or in a unit test it is not.
#[test]
fn the_checker_finds_flags_in_engine_strings() {
    let text = "fn a() { e(\"rerun with --force\"); } // or --root\n\
                /// give --config\n\
                #[error(\"name one with --root DIR\")]\n\
                fn b() { let s = [\"a--b\", \"x\"]; }\n\
                #[cfg(test)]\nmod tests {\n    fn c() { e(\"--date\"); }\n}\n";
    assert_eq!(
        flag_literals(text),
        vec![(1, "--force".to_string()), (3, "--root".to_string())]
    );
}
