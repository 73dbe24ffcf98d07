//! The documentation holds together: every relative link in README.md and
//! docs/*.md resolves to a file of the repository (and a `#anchor` to a
//! heading of that file, by GitHub's anchor rules), docs/README.md indexes
//! every page, and README.md opens with the two commands a newcomer (and CI)
//! starts with.
//!
//! The rules reference, docs/rules.md, is generated from the rule registry
//! by another test; while it is absent, links to it are skipped with a note.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// The block README.md opens with, after its title paragraph. `.ci/run`
/// and the checks outside this repository rely on it: change it only
/// together with them.
const FIRST_COMMANDS: &str = "\
```sh
# Lint the example workspace
cargo run --release -- check --root fixtures/example

# Run the whole test suite
cargo test
```";

/// A page generated elsewhere (from the rule registry): links to it are
/// checked once it exists.
const GENERATED_ELSEWHERE: &str = "docs/rules.md";

/// README.md is what a newcomer reads on a screen or two; the rest belongs
/// in docs/. (The tour carries every file and command it runs, so that
/// tests/cli/docs_console.rs can run it: 270, not 250.)
const README_MAX_LINES: usize = 270;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(repo().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

/// README.md and every markdown page under docs/, as paths relative to the
/// repository, sorted.
fn pages() -> Vec<String> {
    let mut out = vec!["README.md".to_string()];
    let mut stack = vec![repo().join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read docs/") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path.strip_prefix(repo()).expect("under the repository");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// The lines of a markdown text that are prose, not code: the lines inside
/// fenced code blocks are `None`.
fn prose_lines(text: &str) -> Vec<Option<&str>> {
    let mut fence: Option<(char, usize)> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = marker.map_or(0, |c| trimmed.chars().take_while(|x| *x == c).count());
        match (fence, marker) {
            (None, Some(c)) if run >= 3 && indent < 4 => {
                fence = Some((c, run));
                out.push(None);
            }
            (Some((c, n)), Some(m)) if m == c && run >= n && trimmed[run..].trim().is_empty() => {
                fence = None;
                out.push(None);
            }
            (Some(_), _) => out.push(None),
            (None, _) => out.push(Some(line)),
        }
    }
    assert!(fence.is_none(), "a fenced code block is not closed");
    out
}

/// The line with its code spans blanked out (a link inside a code span is
/// text, not a link).
fn without_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        // The closing run of exactly the same length.
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let n = chars[j..].iter().take_while(|c| **c == '`').count();
                if n == run {
                    close = Some(j);
                    break;
                }
                j += n;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                out.extend(std::iter::repeat_n(' ', j + run - i));
                i = j + run;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// Every link destination in a markdown text, with its 1-based line:
/// inline links and images `[text](dest "title")` and reference
/// definitions `[label]: dest`.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose_lines(text).into_iter().enumerate() {
        let Some(line) = line else { continue };
        let line = without_code_spans(line);
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            if let Some(end) = trimmed.find("]:") {
                let dest = trimmed[end + 2..].split_whitespace().next().unwrap_or("");
                out.push((n + 1, dest.trim_matches(['<', '>']).to_string()));
                continue;
            }
        }
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let mut depth = 0usize;
            let mut end = after.len();
            for (i, c) in after.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => {
                        end = i;
                        break;
                    }
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            let dest = after[..end].split_whitespace().next().unwrap_or("");
            out.push((n + 1, dest.trim_matches(['<', '>']).to_string()));
            rest = &after[end..];
        }
    }
    out
}

/// The anchor GitHub gives a heading: its text as rendered (markup
/// dropped), lowercased, with every character that is not a letter, a
/// digit, a mark, `_`, `-` or a space removed and each space made a `-`.
fn github_slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // A link in a heading renders as its text.
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else {
            break;
        };
        let Some(close) = rest[open + mid..].find(')') else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + close + 1..];
    }
    text.push_str(rest);
    let mut out = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            ' ' => out.push('-'),
            '-' | '_' => out.push(c),
            c if c.is_alphanumeric() => out.extend(c.to_lowercase()),
            _ => {}
        }
    }
    out
}

/// The anchors of a markdown text: one per ATX heading (`#` to `######`),
/// a repeated one suffixed `-1`, `-2`, … as GitHub does, plus explicit
/// `<a id="…">` / `<a name="…">` anchors.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for line in prose_lines(text).into_iter().flatten() {
        for key in ["<a id=\"", "<a name=\""] {
            let mut rest = line;
            while let Some(at) = rest.find(key) {
                let value = &rest[at + key.len()..];
                let end = value.find('"').unwrap_or(value.len());
                out.insert(value[..end].to_string());
                rest = &value[end..];
            }
        }
        let trimmed = line.trim_start();
        let level = trimmed.chars().take_while(|c| *c == '#').count();
        if !(1..=6).contains(&level) || line.len() - trimmed.len() > 3 {
            continue;
        }
        let after = &trimmed[level..];
        if !(after.is_empty() || after.starts_with(' ')) {
            continue;
        }
        let title = after.trim().trim_end_matches('#').trim();
        let base = github_slug(title);
        let count = seen.entry(base.clone()).or_insert(0);
        let slug = if *count == 0 {
            base
        } else {
            format!("{base}-{count}")
        };
        *count += 1;
        out.insert(slug);
    }
    out
}

/// `dir/../x/./y` → `x/y`; `None` when it climbs out of the repository.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// What is wrong with one link of `page`, if anything; `Ok(Some(note))`
/// when it was skipped.
fn check_link(page: &str, dest: &str) -> Result<Option<String>, String> {
    if dest.is_empty() {
        return Err("an empty link".into());
    }
    if dest.starts_with("//") || dest.contains("://") || dest.starts_with("mailto:") {
        return Ok(None);
    }
    let (path, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (dest, None),
    };
    let path = path.replace("%20", " ");
    let target = if path.is_empty() {
        PathBuf::from(page)
    } else {
        let base = Path::new(page).parent().unwrap_or(Path::new(""));
        normalize(&base.join(&path)).ok_or_else(|| format!("{dest} leaves the repository"))?
    };
    let target_str = target.to_string_lossy().replace('\\', "/");
    let full = repo().join(&target);
    if !full.exists() {
        if target_str == GENERATED_ELSEWHERE {
            return Ok(Some(format!(
                "{page}: {dest} skipped: {GENERATED_ELSEWHERE} is not generated yet"
            )));
        }
        return Err(format!("{dest}: no file {target_str}"));
    }
    let Some(anchor) = anchor else {
        return Ok(None);
    };
    if full.is_dir() || !target_str.ends_with(".md") {
        return Err(format!(
            "{dest}: #{anchor} into {target_str}, not a markdown file"
        ));
    }
    let known = anchors(&read(&target_str));
    if known.contains(anchor) {
        Ok(None)
    } else {
        Err(format!(
            "{dest}: {target_str} has no heading with anchor #{anchor} (it has: {})",
            known.into_iter().collect::<Vec<_>>().join(", ")
        ))
    }
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        for (line, dest) in links(&read(&page)) {
            checked += 1;
            match check_link(&page, &dest) {
                Ok(Some(note)) => eprintln!("{note}"),
                Ok(None) => {}
                Err(why) => broken.push(format!("{page}:{line}: {why}")),
            }
        }
    }
    assert!(
        checked > 20,
        "only {checked} links found: is the parser broken?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn readme_opens_with_the_two_commands() {
    let readme = read("README.md");
    let mut lines = readme.lines().peekable();
    assert_eq!(
        lines.next(),
        Some("# memlint"),
        "README.md starts with its title"
    );
    // The title paragraph: what memlint is.
    while lines.peek().is_some_and(|l| l.trim().is_empty()) {
        lines.next();
    }
    let mut paragraph = 0;
    while lines.peek().is_some_and(|l| !l.trim().is_empty()) {
        lines.next();
        paragraph += 1;
    }
    assert!(paragraph > 0, "README.md has no title paragraph");
    while lines.peek().is_some_and(|l| l.trim().is_empty()) {
        lines.next();
    }
    let block: Vec<&str> = lines.take(FIRST_COMMANDS.lines().count()).collect();
    assert_eq!(
        block.join("\n"),
        FIRST_COMMANDS,
        "README.md must open, after its title paragraph, with the two commands"
    );
    // What they name exists, and CI runs the second.
    assert!(repo().join("fixtures/example").is_dir());
    assert!(
        read(".ci/run").lines().any(|l| l.trim() == "cargo test"),
        ".ci/run runs the test suite"
    );
}

#[test]
fn docs_index_lists_every_page() {
    let index = read("docs/README.md");
    let linked: BTreeSet<String> = links(&index)
        .into_iter()
        .map(|(_, dest)| dest.split('#').next().unwrap_or("").to_string())
        .collect();
    let missing: Vec<String> = pages()
        .into_iter()
        .filter_map(|p| p.strip_prefix("docs/").map(str::to_string))
        .filter(|p| p != "README.md" && !linked.contains(p))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/README.md does not link {missing:?}"
    );
    let readme_links: Vec<String> = links(&read("README.md")).into_iter().map(|l| l.1).collect();
    assert!(
        readme_links.iter().any(|l| l == "docs/README.md"),
        "README.md links the docs index"
    );
}

#[test]
fn readme_fits_a_newcomer() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines (at most {README_MAX_LINES}): move the detail to a page under docs/"
    );
}

#[test]
fn github_anchor_rules() {
    assert_eq!(github_slug("Pre-commit hook"), "pre-commit-hook");
    assert_eq!(github_slug("`memlint check`"), "memlint-check");
    assert_eq!(github_slug("Git and CI"), "git-and-ci");
    assert_eq!(github_slug("`status/chain`"), "statuschain");
    assert_eq!(
        github_slug("Why: `replaced_by` & co."),
        "why-replaced_by--co"
    );
    assert_eq!(
        github_slug("[Recall](recall.md) — search"),
        "recall--search"
    );
    assert_eq!(github_slug("検索 (search)"), "検索-search");
    let text = "# A\n## Notes\n```\n# not a heading\n```\n## Notes\n### Notes ##\n";
    let got: Vec<String> = anchors(text).into_iter().collect();
    assert_eq!(got, ["a", "notes", "notes-1", "notes-2"]);
}

#[test]
fn links_are_found_outside_code() {
    let text = "See [a](a.md) and [`b`](docs/b.md#x \"t\").\n\
                `[not](c.md)` and\n```\n[no](d.md)\n```\n[ref]: e.md\n![img](f.png)\n";
    let got: Vec<String> = links(text).into_iter().map(|l| l.1).collect();
    assert_eq!(got, ["a.md", "docs/b.md#x", "e.md", "f.png"]);
}
