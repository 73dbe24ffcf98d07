//! The body of a compacted session memory (docs/records.md): fourteen level-2
//! sections in a fixed order. Shared by the `session/*` rules and
//! `memlint compact`.

use std::ops::Range;

/// The sections, in order.
pub(crate) const SECTIONS: [&str; 14] = [
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
pub(crate) const PLAN_SOURCES: [&str; 4] = ["workflow", "todo", "user-stated", "inferred"];

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
/// headings that name a known section count, and not inside fenced code or a
/// `<details>` block, so a plan kept verbatim may hold headings of its own.
pub(crate) fn sections(text: &str) -> Vec<Section> {
    match scan_sections(text, true) {
        Some(found) => found,
        // An unclosed `<details>` would hide every later heading: read the
        // text as if it had none.
        None => scan_sections(text, false).unwrap_or_default(),
    }
}

/// `None` when `details` is set and a `<details>` block is never closed.
fn scan_sections(text: &str, details: bool) -> Option<Vec<Section>> {
    let mut found: Vec<Section> = Vec::new();
    let mut offset = 0;
    let mut hidden = Hidden::default();
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if hidden.skip(content, details) {
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
    (!details || hidden.details == 0).then_some(found)
}

/// Tracks fenced code and `<details>` blocks line by line.
#[derive(Default)]
struct Hidden {
    fence: bool,
    details: usize,
}

impl Hidden {
    /// True when `line` is a fence line, inside fenced code, or (with
    /// `details`) inside or on the edge of a `<details>` block.
    fn skip(&mut self, line: &str, details: bool) -> bool {
        if line.trim_start().starts_with("```") {
            self.fence = !self.fence;
            return true;
        }
        if self.fence {
            return true;
        }
        if !details {
            return false;
        }
        // An HTML block starts a line; a `<details>` quoted inside a
        // sentence opens nothing.
        let was = self.details;
        let opens = usize::from(line.trim_start().starts_with("<details"));
        // Most lines hold no tag: memchr first, the substring search after.
        let closes = if line.contains('<') {
            line.matches("</details>").count()
        } else {
            0
        };
        self.details = (self.details + opens).saturating_sub(closes);
        was > 0 || opens > 0
    }
}

/// The first section named `name`.
pub(crate) fn section<'a>(found: &'a [Section], name: &str) -> Option<&'a Section> {
    let index = SECTIONS.iter().position(|s| *s == name)?;
    found.iter().find(|s| s.index == index)
}

/// A problem with the sections: (byte range, message).
pub(crate) fn section_problems(text: &str, found: &[Section]) -> Vec<(Range<usize>, String)> {
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
pub(crate) fn content_lines(text: &str, range: Range<usize>) -> Vec<(Range<usize>, &str)> {
    let mut out = Vec::new();
    let mut offset = range.start;
    let mut hidden = Hidden::default();
    for line in text[range].split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        if content.trim().is_empty() || hidden.skip(content, true) {
            continue;
        }
        out.push((start..start + content.len(), content));
    }
    out
}

/// True when a section's content says it is empty.
pub(crate) fn is_none(lines: &[(Range<usize>, &str)]) -> bool {
    lines.is_empty() || (lines.len() == 1 && lines[0].1.trim() == "(none)")
}

/// A file-list entry `- <absolute path> (role: <role>)`: the path and its range.
pub(crate) fn file_entry(line: &str, at: usize) -> Option<(&str, Range<usize>)> {
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
pub(crate) fn plan_source(line: &str) -> Result<&str, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_inside_details_belong_to_the_plan() {
        let text = "## Session ID\nx\n## Execution Plan\n### Source: workflow\n<details>\n\n## Notes\nplan notes\n</details>\n## Notes\n(none)\n";
        let found = sections(text);
        let names: Vec<&str> = found.iter().map(|s| SECTIONS[s.index]).collect();
        assert_eq!(names, ["Session ID", "Execution Plan", "Notes"]);
        assert_eq!(&text[found[2].heading.clone()], "## Notes");
        assert!(found[2].heading.start > text.find("</details>").unwrap_or(0));
    }

    #[test]
    fn unclosed_details_hides_nothing() {
        let text = "## Session ID\n<details>\n## Notes\n(none)\n";
        assert_eq!(sections(text).len(), 2);
    }

    #[test]
    fn details_quoted_in_a_sentence_opens_nothing() {
        let text = "- keep the plan in `<details>`: short\n- b: c\n";
        assert_eq!(content_lines(text, 0..text.len()).len(), 2);
    }

    #[test]
    fn content_lines_skip_fences_and_details() {
        let text = "a\n```\n- b\n```\n<details>\n- c\n</details>\n- d\n";
        let lines: Vec<&str> = content_lines(text, 0..text.len())
            .into_iter()
            .map(|(_, l)| l)
            .collect();
        assert_eq!(lines, ["a", "- d"]);
    }
}
