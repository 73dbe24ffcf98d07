//! The body of a compacted session memory (SPEC §2): fourteen level-2
//! sections in a fixed order. Shared by the `session/*` rules and
//! `memlint compact`.

use std::ops::Range;

/// The sections, in order.
pub const SECTIONS: [&str; 14] = [
    "Session ID",
    "Project Root",
    "Objective",
    "Execution Plan",
    "Working Files (Modified)",
    "Reference Files (Read-Only)",
    "Last Action",
    "Decisions",
    "Constraints",
    "Dependencies",
    "Known Issues",
    "Changes Made",
    "Pending",
    "Notes",
];

/// Valid words after `### Source:`.
pub const PLAN_SOURCES: [&str; 4] = ["workflow", "todo", "user-stated", "inferred"];

/// One section heading found in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Index into [`SECTIONS`].
    pub index: usize,
    /// Byte range of the heading line (without its line break).
    pub heading: Range<usize>,
    /// Byte range of the content up to the next section heading.
    pub content: Range<usize>,
}

/// The sections of a session text, in the order they appear. Only `## `
/// headings that name a known section count, so a plan kept verbatim may hold
/// headings of its own.
pub fn sections(text: &str) -> Vec<Section> {
    let mut found: Vec<Section> = Vec::new();
    let mut offset = 0;
    let mut fence = false;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if content.trim_start().starts_with("```") {
            fence = !fence;
        }
        if fence {
            continue;
        }
        let Some(name) = content.strip_prefix("## ") else {
            continue;
        };
        let Some(index) = SECTIONS.iter().position(|s| *s == name.trim()) else {
            continue;
        };
        if let Some(prev) = found.last_mut() {
            prev.content.end = start;
        }
        found.push(Section {
            index,
            heading: start..start + content.len(),
            content: offset..text.len(),
        });
    }
    found
}

/// The first section named `name`.
pub fn section<'a>(found: &'a [Section], name: &str) -> Option<&'a Section> {
    let index = SECTIONS.iter().position(|s| *s == name)?;
    found.iter().find(|s| s.index == index)
}

/// A problem with the sections: (byte range, message).
pub fn section_problems(text: &str, found: &[Section]) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    let mut seen = [false; SECTIONS.len()];
    let mut last = None::<usize>;
    for s in found {
        let name = SECTIONS[s.index];
        if seen[s.index] {
            out.push((
                s.heading.clone(),
                format!("section `{name}` appears more than once"),
            ));
            continue;
        }
        seen[s.index] = true;
        if let Some(prev) = last {
            if s.index < prev {
                out.push((
                    s.heading.clone(),
                    format!("section `{name}` must come before `{}`", SECTIONS[prev]),
                ));
                continue;
            }
        }
        last = Some(s.index);
    }
    for (i, name) in SECTIONS.iter().enumerate() {
        if !seen[i] {
            let at = found
                .iter()
                .find(|s| s.index > i)
                .map(|s| s.heading.clone())
                .unwrap_or(text.len()..text.len());
            out.push((
                at,
                format!("section `## {name}` is missing (write `(none)` under it when empty)"),
            ));
        }
    }
    out
}

/// The non-empty lines of a section's content, with their byte ranges,
/// outside fenced code and `<details>` blocks.
pub fn content_lines(text: &str, range: Range<usize>) -> Vec<(Range<usize>, &str)> {
    let mut out = Vec::new();
    let mut offset = range.start;
    for line in text[range].split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if content.trim().is_empty() {
            continue;
        }
        out.push((start..start + content.len(), content));
    }
    out
}

/// True when a section's content says it is empty.
pub fn is_none(lines: &[(Range<usize>, &str)]) -> bool {
    lines.is_empty() || (lines.len() == 1 && lines[0].1.trim() == "(none)")
}

/// A file-list entry `- <absolute path> (role: <role>)`: the path and its range.
pub fn file_entry(line: &str, at: usize) -> Option<(&str, Range<usize>)> {
    let rest = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))?;
    let start = at + (line.len() - rest.len());
    let path = match rest.rfind(" (role:") {
        Some(i) => &rest[..i],
        None => rest,
    };
    let trimmed = path.trim().trim_matches('`');
    let lead = path.find(trimmed).unwrap_or(0);
    Some((trimmed, start + lead..start + lead + trimmed.len()))
}

/// The plan source line: `### Source: <word>[ label]`, valid or not.
pub fn plan_source(line: &str) -> Result<&str, String> {
    let Some(rest) = line.trim().strip_prefix("### Source:") else {
        return Err(
            "`Execution Plan` must start with `### Source: <workflow|todo|user-stated|inferred>`"
                .into(),
        );
    };
    let word = rest.split_whitespace().next().unwrap_or("");
    if PLAN_SOURCES.contains(&word) {
        Ok(word)
    } else {
        Err(format!(
            "plan source `{word}` is not one of workflow, todo, user-stated, inferred"
        ))
    }
}
