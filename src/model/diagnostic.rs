//! Diagnostics: what a rule found, where, and how bad it is.

use crate::model::rule::Rule;
use crate::model::severity::Severity;
use serde::Serialize;
use std::ops::Range;

/// A line and column, both 1-based; the column counts Unicode scalar values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Position {
    pub line: usize,
    pub column: usize,
}

/// One finding, located in a file of the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub rule: Rule,
    pub severity: Severity,
    /// Relative to the workspace root, with `/` separators.
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub message: String,
    pub fixable: bool,
    /// Byte span in the file, for rendering the source snippet.
    #[serde(skip)]
    pub span: Range<usize>,
    /// For the entry that closes a capped list (`MAX_PER_RULE`): how many
    /// findings of its rule in its file are not listed, this one included.
    /// 0 for an ordinary diagnostic (and then absent from the JSON).
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: usize,
    /// The full ids of the commits a finding names (`sources/drifted`:
    /// those that changed the cited file, newest first); absent from the
    /// JSON when empty.
    #[serde(skip_serializing_if = "no_commits", serialize_with = "commit_list")]
    pub commits: Commits,
}

/// A list of commit ids, shared by the findings that name the same
/// commits: thousands of records cite a file that a hundred commits
/// changed, and each finding lists them all.
pub type Commits = std::sync::Arc<[String]>;

fn no_commits(c: &Commits) -> bool {
    c.is_empty()
}

fn commit_list<S: serde::Serializer>(c: &Commits, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(c.iter())
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Most diagnostics of one rule listed for one file. A file can hold a
/// great many findings of one rule (a megabyte of `today`: 170,000
/// `date/relative`), which no reader goes through and which made output
/// and memory grow without bound. Like golangci-lint's
/// `max-issues-per-linter`, the rest are counted, not listed: in one
/// closing entry that says how many more there are. No real record comes
/// near the cap.
pub(crate) const MAX_PER_RULE: usize = 100;

/// The message of the entry that stands for `omitted` findings of `rule`
/// left out of a file's list.
pub(crate) fn omitted_message(rule: Rule, omitted: usize) -> String {
    format!(
        "… and {omitted} more `{rule}` in this file (at most {MAX_PER_RULE} of a rule are listed per file)"
    )
}

impl Diagnostic {
    /// The order docs/commands.md asks for: path, line, column, rule.
    pub(crate) fn sort_key(&self) -> (&str, usize, usize, &str) {
        (&self.path, self.line, self.column, self.rule.as_str())
    }

    /// How many findings this entry stands for: 1, or the count of a
    /// capped list's closing entry. Totals add these, so that they count
    /// every finding, listed or not.
    pub(crate) fn count(&self) -> usize {
        self.omitted.max(1)
    }
}

/// Sorts diagnostics by path, line, column, rule, drops exact repeats, and
/// keeps at most [`MAX_PER_RULE`] of a rule per file (see [`cap`]).
pub(crate) fn sort(diags: &mut Vec<Diagnostic>) {
    diags.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.message.cmp(&b.message))
    });
    diags.dedup();
    cap(diags);
}

/// In a list sorted by path: keeps the first [`MAX_PER_RULE`] diagnostics
/// of each rule of each file and folds the rest (and any closing entries
/// already there) into one closing entry at the first of them.
pub(crate) fn cap(diags: &mut Vec<Diagnostic>) {
    let mut out: Option<Vec<Diagnostic>> = None;
    let mut start = 0;
    while start < diags.len() {
        let path = &diags[start].path;
        let len = diags[start..]
            .iter()
            .position(|d| &d.path != path)
            .unwrap_or(diags.len() - start);
        let file = start..start + len;
        // Per rule: ordinary entries and closing entries.
        let mut counts: Vec<(Rule, usize, usize)> = Vec::new();
        for d in &diags[file.clone()] {
            let i = match counts.iter().position(|c| c.0 == d.rule) {
                Some(i) => i,
                None => {
                    counts.push((d.rule, 0, 0));
                    counts.len() - 1
                }
            };
            if d.omitted > 0 {
                counts[i].2 += 1;
            } else {
                counts[i].1 += 1;
            }
        }
        let over = counts
            .iter()
            .any(|&(_, ordinary, closing)| ordinary > MAX_PER_RULE || closing > 1);
        if over || out.is_some() {
            let out = out.get_or_insert_with(|| diags[..start].to_vec());
            out.extend(capped_file(&diags[file.clone()]));
        }
        start = file.end;
    }
    if let Some(out) = out {
        *diags = out;
    }
}

/// The diagnostics of one file, sorted, capped per rule.
fn capped_file(file: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut kept: Vec<Diagnostic> = Vec::new();
    // Per rule: ordinary entries kept, and the index in `kept` of its
    // closing entry.
    let mut rules: Vec<(Rule, usize, Option<usize>)> = Vec::new();
    for d in file {
        let i = match rules.iter().position(|r| r.0 == d.rule) {
            Some(i) => i,
            None => {
                rules.push((d.rule, 0, None));
                rules.len() - 1
            }
        };
        if d.omitted == 0 && rules[i].1 < MAX_PER_RULE {
            rules[i].1 += 1;
            kept.push(d.clone());
            continue;
        }
        match rules[i].2 {
            Some(at) => kept[at].omitted += d.count(),
            None => {
                rules[i].2 = Some(kept.len());
                kept.push(Diagnostic {
                    omitted: d.count(),
                    ..d.clone()
                });
            }
        }
    }
    for (_, _, closing) in rules {
        if let Some(at) = closing {
            kept[at].message = omitted_message(kept[at].rule, kept[at].omitted);
        }
    }
    kept
}

/// Maps byte offsets of one text to lines and columns.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        // Most texts indexed are a front matter of a few lines, where a
        // plain scan beats setting up a searcher.
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { text, starts }
    }

    /// The position of byte `offset` (clamped to the text, and moved back to a
    /// character boundary).
    pub(crate) fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let column = self.text[self.starts[line]..offset].chars().count() + 1;
        Position {
            line: line + 1,
            column,
        }
    }

    /// Byte range of line `line` (1-based), without its line break.
    pub(crate) fn line_range(&self, line: usize) -> Range<usize> {
        let start = self
            .starts
            .get(line - 1)
            .copied()
            .unwrap_or(self.text.len());
        let end = self
            .starts
            .get(line)
            .map(|s| s - 1)
            .unwrap_or(self.text.len());
        let end = if end > start && self.text.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        start..end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &str, rule: Rule, line: usize) -> Diagnostic {
        Diagnostic {
            rule,
            severity: Severity::Warning,
            path: path.into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            message: format!("at {line}"),
            fixable: false,
            span: 0..0,
            omitted: 0,
            commits: Commits::default(),
        }
    }

    #[test]
    fn cap_keeps_the_first_of_a_rule_per_file_and_counts_the_rest() {
        let mut diags: Vec<Diagnostic> = (1..=MAX_PER_RULE + 5)
            .map(|l| at("a.md", Rule::DateRelative, l))
            .chain([
                at("a.md", Rule::SlugSimilar, 1),
                at("b.md", Rule::DateRelative, 1),
            ])
            .collect();
        sort(&mut diags);
        assert_eq!(diags.len(), MAX_PER_RULE + 3);
        let closing = &diags[MAX_PER_RULE + 1];
        assert_eq!((closing.line, closing.omitted), (MAX_PER_RULE + 1, 5));
        assert_eq!(closing.message, omitted_message(Rule::DateRelative, 5));
        assert_eq!(
            diags.iter().map(Diagnostic::count).sum::<usize>(),
            MAX_PER_RULE + 7
        );
        // A closing entry already there takes in what is left out later.
        let mut more = diags.clone();
        more.push(at("a.md", Rule::DateRelative, 1000));
        more.push(at("a.md", Rule::DateRelative, 0));
        sort(&mut more);
        let closing: Vec<&Diagnostic> = more.iter().filter(|d| d.omitted > 0).collect();
        assert_eq!(closing.len(), 1);
        assert_eq!((closing[0].line, closing[0].omitted), (MAX_PER_RULE, 7));
        assert_eq!(
            more.iter().map(Diagnostic::count).sum::<usize>(),
            MAX_PER_RULE + 9
        );
    }

    #[test]
    fn positions_count_characters() {
        let idx = LineIndex::new("ab\n日本語x\n");
        assert_eq!(idx.position(0), Position { line: 1, column: 1 });
        assert_eq!(idx.position(3), Position { line: 2, column: 1 });
        assert_eq!(idx.position(12), Position { line: 2, column: 4 });
        assert_eq!(idx.position(4), Position { line: 2, column: 1 });
        assert_eq!(idx.line_range(2), 3..13);
    }
}
