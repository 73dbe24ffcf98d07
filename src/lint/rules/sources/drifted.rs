//! `sources/drifted`: a `file:` source changed after the record was last
//! written. The history is read by the engine (`crate::engine::drift`);
//! here are the rule's documentation, its messages, its fix and the search
//! for cited lines that moved, all pure text.

use crate::model::kind::{split_file_source, Lines};

/// The rule's documentation, as `memlint rule sources/drifted` prints it.
pub(crate) const DOC: &str = r#"# sources/drifted

a `file:` source changed after the record was last written

## What it does

Fires on a `file:` source whose file changed after the record citing it was last written, that is after the commit that wrote the record as HEAD holds it (the one `git log -1 -- RECORD` names: through a merge that kept one side's text of the record, that side's commit), passing over commits that only reformatted the record (`memlint fmt`: the same fields and body, laid out otherwise). For a whole file (`file:src/cache.rs`): a commit reachable from HEAD, but not from the record's commit, modified the file. For a line range (`file:src/cache.rs#L10-L42`): the text of the cited lines, as the file held them in the record's commit, is no longer in the file; a commit that changed other lines, or a revert that restored the cited ones, is not drift. Renames are followed: a file renamed without change is reported only so that `--fix` can rewrite the path (and `sources/dangling` does not also report its old name, unless configured more severe), and cited lines that now sit at other lines only so that `--fix` can move the range. Changes not committed yet count too: `check` compares the work tree, and `check --staged` the index, with HEAD, for every record that itself has no such change, so the pre-commit hook tells the committer which records their change leaves stale.

The message names the newest commit that changed the file (short id, date, subject) and how many did; the JSON output lists their ids in `commits`, newest first.

A record with changes not committed yet (a new record, or one edited since its last commit), or whose last commit lies beyond the history of a shallow clone, and a cited file git has never committed (untracked, ignored, or only added), cannot be judged by history (its pins, if it has them, still judge it; in a shallow clone without merges, a cited file that one of the commits the clone holds changed has drifted for certain, and is reported): `check` says once, in one line on standard error, how many records were left unjudged and why. A workspace outside a git repository is not judged.

## Why it matters

A record that cites `file:src/cache.rs` and says "the cache is one SQLite file" goes on being served to agents at every session start after a commit moved the cache to Redis. The source was the record's evidence; when it changes, the record may no longer be true. Someone has to look at the record again: confirm it or replace it.

## Example

<!-- example: history -->

A decision cites `src/cache.rs`, committed together with it.

`src/cache.rs`:

```text
// The cache: one SQLite file next to the binary.
pub const CACHE: &str = "cache.db";
```

`memory/decisions/cache-in-sqlite.md`:

```markdown
---
title: The cache is one SQLite file
status: active
date: 2026-03-02
sources:
  - file:src/cache.rs
---

The cache lives in `cache.db` next to the binary: one SQLite file, no server.
```

```sh
git init -q -b main && git add -A && git commit -q -m "Keep the cache in SQLite"
```

A later commit moves the cache to Redis; the decision stays as it was.

`src/cache.rs`:

```text
// The cache: Redis, shared by every replica.
pub const CACHE: &str = "redis://cache:6379";
```

```sh
git commit -q -am "Move the cache to Redis" && memlint check
```

## Fixed

A new decision replaces the old one, which is marked replaced.

`memory/decisions/cache-in-redis.md`:

```markdown
---
title: The cache is in Redis
status: active
date: 2026-03-20
sources:
  - file:src/cache.rs
  - decision:cache-in-sqlite
---

The cache moved to Redis so that every replica shares it.
```

`memory/decisions/cache-in-sqlite.md`:

```markdown
---
title: The cache is one SQLite file
status: replaced
date: 2026-03-02
sources:
  - file:src/cache.rs
replaced_by: cache-in-redis
---

The cache lives in `cache.db` next to the binary: one SQLite file, no server.
```

```sh
git add -A && git commit -q -m "Replace the cache decision" && memlint check
```

## Fix

`memlint check --fix` rewrites what moved without changing meaning: the path of a file that was renamed (`file:src/cache.rs` → `file:src/store/cache.rs`), and the range of cited lines that now sit at other lines (`#L10-L42` → `#L14-L46`). A file whose content changed is not fixed automatically: read the record against the file, then update the record (its new commit is a new writing) or replace it, as above.

## Configuration

```yaml
# .memlint.yml
rules:
  sources/drifted: error   # default: warning; or off
```
"#;

/// A commit that changed a cited file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Commit {
    /// The full id.
    pub id: String,
    /// The author date, `YYYY-MM-DD`.
    pub date: String,
    /// The first line of its message.
    pub summary: String,
}

/// Changes not committed yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pending {
    /// In the work tree.
    WorkTree,
    /// In the index.
    Staged,
}

/// What became of a cited file since the record was last written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Finding {
    /// The file (or the cited lines) changed.
    Changed {
        /// The commits that changed it, newest first (shared by the
        /// findings of one file).
        commits: std::rc::Rc<[Commit]>,
        /// Changes not committed yet, if any.
        uncommitted: Option<Pending>,
        /// The file's name now, when it was renamed.
        renamed_to: Option<String>,
        /// The history begins after the record (a shallow clone): commits
        /// it lacks may have changed the file too.
        cut: bool,
    },
    /// The file was renamed and is otherwise unchanged.
    Renamed {
        /// Its name now.
        to: String,
        /// The commit that renamed it.
        commit: Commit,
    },
    /// The file (or the cited lines) no longer matches the pin `memlint
    /// verify` wrote.
    Unpinned {
        /// The record's `verified` date, if it has one.
        verified: Option<String>,
    },
    /// The cited lines are unchanged but sit at other lines now (and,
    /// maybe, in a renamed file).
    Moved {
        /// The file's name now, when it was renamed.
        to: Option<String>,
        /// Where the lines are now.
        lines: Lines,
    },
}

impl Finding {
    /// The commits the finding names, newest first.
    pub(crate) fn commits(&self) -> Vec<&Commit> {
        match self {
            Finding::Changed { commits, .. } => commits.iter().collect(),
            Finding::Renamed { commit, .. } => vec![commit],
            Finding::Moved { .. } | Finding::Unpinned { .. } => Vec::new(),
        }
    }
}

/// How a commit is named in a message: short id, date and subject, the
/// subject made safe to show (no control characters, no credentials).
fn commit_label(c: &Commit) -> String {
    let short = c.id.get(..7).unwrap_or(&c.id);
    let mut subject =
        crate::syntax::sanitize::line(&crate::syntax::sanitize::secrets(&c.summary)).into_owned();
    if subject.chars().count() > 72 {
        subject = subject.chars().take(71).collect::<String>() + "…";
    }
    format!("{short} ({}, \"{subject}\")", c.date)
}

/// The `sources/drifted` diagnostic of `record` at its source `at`, with
/// the rule's configured `severity`: what the engine reports once it has
/// judged the source against git's history with this file's functions.
pub(crate) fn diagnostic(
    record: &str,
    at: &crate::lint::info::Located,
    severity: crate::model::severity::Severity,
    message: String,
    fixable: bool,
    commits: crate::model::diagnostic::Commits,
) -> crate::model::diagnostic::Diagnostic {
    crate::model::diagnostic::Diagnostic {
        rule: crate::model::rule::Rule::SourcesDrifted,
        severity,
        path: record.to_string(),
        line: at.line,
        column: at.column,
        end_line: at.end_line,
        end_column: at.end_column,
        message,
        fixable,
        span: at.span.clone(),
        omitted: 0,
        commits,
    }
}

/// The diagnostic's message for `source` (the entry as written).
pub(crate) fn message(source: &str, finding: &Finding) -> String {
    let source = crate::syntax::sanitize::line(source);
    match finding {
        Finding::Changed {
            commits,
            uncommitted,
            renamed_to,
            cut,
        } => {
            let what = if source.contains("#L") {
                format!("the lines `{source}` cites changed")
            } else {
                format!("`{source}` changed")
            };
            let mut how = Vec::new();
            if let Some(newest) = commits.first() {
                let n = commits.len();
                let count = if n == 1 {
                    "1 commit".to_string()
                } else {
                    format!("{n} commits")
                };
                let count = match cut {
                    true => format!("at least {count} (the history of this clone begins after the record)"),
                    false => count,
                };
                how.push(format!("{count}, the newest {}", commit_label(newest)));
            }
            match uncommitted {
                Some(Pending::WorkTree) => how.push("uncommitted changes".to_string()),
                Some(Pending::Staged) => how.push("staged changes".to_string()),
                None => {}
            }
            // Renamed too: the record must cite the new name before it
            // can be verified.
            let (renamed, then) = match renamed_to {
                Some(to) => {
                    let to = crate::syntax::sanitize::line(to);
                    (
                        format!(" (the file is now `{to}`)"),
                        format!("cite `{to}` instead and verify it"),
                    )
                }
                None => (String::new(), "verify it".to_string()),
            };
            format!(
                "{what} after this record was last written: {}{renamed}; check the record against it, then {then} or replace it",
                how.join(" and ")
            )
        }
        Finding::Unpinned { verified } => {
            let what = if source.contains("#L") {
                format!("the lines `{source}` cites changed")
            } else {
                format!("`{source}` changed")
            };
            // Pinned without `verified`: by `new`, or by a `--fix` that
            // kept the content the record was written against.
            let when = match verified {
                Some(date) => format!("verified on {}", crate::syntax::sanitize::line(date)),
                None => "pinned".to_string(),
            };
            format!(
                "{what} since this record was {when}: it no longer matches its pin; check the record against it, then verify it or replace it"
            )
        }
        Finding::Renamed { to, commit } => format!(
            "`{source}` was renamed to `{}` by {}; `--fix` rewrites the path",
            crate::syntax::sanitize::line(to),
            commit_label(commit)
        ),
        Finding::Moved { to, lines } => match to {
            Some(to) => format!(
                "the lines `{source}` cites are unchanged but now sit at `{}{lines}`; `--fix` rewrites the source",
                crate::syntax::sanitize::line(to)
            ),
            None => format!(
                "the lines `{source}` cites are unchanged but now sit at `{lines}`; `--fix` moves the range"
            ),
        },
    }
}

/// The message for a record a change leaves untouched while it modifies
/// the file (or the lines) `source` cites, or `created` it: `staged` for
/// the change about to be committed, else the pull request's.
pub(crate) fn change_message(
    source: &str,
    rel: &str,
    renamed_to: Option<&str>,
    record: &str,
    (staged, created): (bool, bool),
) -> String {
    let cited = source.strip_prefix("file:").unwrap_or(source);
    let lines = split_file_source(cited)
        .ok()
        .and_then(|(_, l)| l)
        .map(|l| l.to_string())
        .unwrap_or_default();
    let renamed = renamed_to
        .map(|to| format!(" (renaming it to `{}`)", crate::syntax::sanitize::line(to)))
        .unwrap_or_default();
    let verb = match created {
        true => "creates",
        false => "modifies",
    };
    format!(
        "{} {verb} `{}{lines}`{renamed}, cited by `{}`, and leaves the record as it was; check the record against the change, then verify it or replace it",
        the_change(staged),
        crate::syntax::sanitize::line(rel),
        crate::syntax::sanitize::line(record)
    )
}

/// The message of a change that renames the file `source` cites to `to`
/// and leaves what it cites as it was.
pub(crate) fn change_rename_message(source: &str, to: &str, staged: bool) -> String {
    format!(
        "`{source}` is renamed to `{}` by {}; once it is committed, `check --fix` rewrites the path",
        crate::syntax::sanitize::line(to),
        the_change(staged)
    )
}

fn the_change(staged: bool) -> &'static str {
    match staged {
        true => "the staged change",
        false => "this change",
    }
}

/// The entry `--fix` writes instead of `source`, when the finding can be
/// repaired without a judgement: a renamed file, lines that moved.
pub(crate) fn rewrite(source: &str, finding: &Finding) -> Option<String> {
    let value = source.strip_prefix("file:")?;
    let (path, old_lines) = split_file_source(value).ok()?;
    match finding {
        Finding::Renamed { to, .. } => Some(match old_lines {
            Some(l) => format!("file:{to}{l}"),
            None => format!("file:{to}"),
        }),
        Finding::Moved { to, lines } => {
            Some(format!("file:{}{lines}", to.as_deref().unwrap_or(path)))
        }
        Finding::Changed { .. } | Finding::Unpinned { .. } => None,
    }
}

/// One line without its line ending (`\n` or `\r\n`): CRLF and LF
/// checkouts of a file cite the same text.
fn lines_of(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// The cited lines of `text`, when the file has them all.
pub(crate) fn cited_lines(text: &str, lines: Lines) -> Option<Vec<String>> {
    Some(
        cited_in(&lines_of(text), lines)?
            .iter()
            .map(|l| l.to_string())
            .collect(),
    )
}

/// [`cited_lines`] of a text given as its lines (`str::lines`): many
/// citations of one file split it once.
pub(crate) fn cited_in<'a, 't>(all: &'a [&'t str], lines: Lines) -> Option<&'a [&'t str]> {
    all.get(lines.first.checked_sub(1)?..lines.last)
}

/// Where `cited` lines sit in `text`: at `near` when they still do, else
/// the occurrence closest to it; `None` when they are nowhere.
pub(crate) fn find_lines(cited: &[String], text: &str, near: Lines) -> Option<Lines> {
    find_in(cited, &lines_of(text), near)
}

/// [`find_lines`] in a text given as its lines (`str::lines`).
pub(crate) fn find_in<S: AsRef<str>>(cited: &[S], all: &[&str], near: Lines) -> Option<Lines> {
    let n = cited.len();
    if n == 0 || n > all.len() {
        return None;
    }
    let at = |start: usize| {
        all[start..start + n]
            .iter()
            .zip(cited)
            .all(|(a, b)| *a == b.as_ref())
    };
    let want = near.first - 1;
    if want + n <= all.len() && at(want) {
        return Some(near);
    }
    (0..=all.len() - n)
        .filter(|&s| at(s))
        .min_by_key(|&s| s.abs_diff(want))
        .map(|s| Lines {
            first: s + 1,
            last: s + n,
        })
}

/// The pin of a `file:` source: `xxh3:` and the 16 hex digits of the
/// xxh3-64 hash of the file's content (for a range, of its lines, each
/// ending with `\n`), line endings read as LF so that a CRLF checkout pins
/// the same; `None` when the file lacks the cited lines.
pub(crate) fn pin(bytes: &[u8], lines: Option<Lines>) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let normal: String = match lines {
        None => text.replace("\r\n", "\n"),
        Some(l) => cited_lines(&text, l)?
            .iter()
            .map(|line| format!("{line}\n"))
            .collect(),
    };
    Some(format!(
        "xxh3:{:016x}",
        xxhash_rust::xxh3::xxh3_64(normal.as_bytes())
    ))
}

/// Where lines matching `pinned` (the pin of a range as long as `near`)
/// sit in `bytes`: at `near` when they still do, else the nearest.
pub(crate) fn find_pinned(bytes: &[u8], pinned: &str, near: Lines) -> Option<Lines> {
    let text = String::from_utf8_lossy(bytes);
    let all = lines_of(&text);
    let n = near.last - near.first + 1;
    if n > all.len() {
        return None;
    }
    let mut starts: Vec<usize> = (1..=all.len() - n + 1).collect();
    starts.sort_by_key(|&f| f.abs_diff(near.first));
    starts.into_iter().find_map(|first| {
        let normal: String = all[first - 1..first - 1 + n]
            .iter()
            .map(|line| format!("{line}\n"))
            .collect();
        let hash = format!(
            "xxh3:{:016x}",
            xxhash_rust::xxh3::xxh3_64(normal.as_bytes())
        );
        (hash == pinned).then_some(Lines {
            first,
            last: first + n - 1,
        })
    })
}

/// The well-formed `file:` sources of `info`, each with the root-relative
/// file it names, as `sources/drifted` reads them on a change.
pub(crate) fn cited_sources(
    info: &crate::lint::RecordInfo,
) -> Vec<(&crate::lint::Located, std::borrow::Cow<'_, str>)> {
    info.sources
        .iter()
        .filter_map(|at| {
            let value = at.value.strip_prefix("file:")?;
            if crate::model::kind::source_problem(&at.value).is_some() {
                return None;
            }
            crate::model::kind::split_file_source(value).ok()?;
            Some((at, crate::lint::rules::sources::file_target(value).ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moved_lines_are_found_nearest_first() {
        let cited = vec!["b".to_string(), "c".to_string()];
        let near = Lines { first: 2, last: 3 };
        assert_eq!(find_lines(&cited, "a\nb\nc\n", near), Some(near));
        assert_eq!(
            find_lines(&cited, "x\r\ny\r\na\r\nb\r\nc\r\n", near),
            Some(Lines { first: 4, last: 5 })
        );
        assert_eq!(find_lines(&cited, "a\nb\nd\n", near), None);
        assert_eq!(find_lines(&cited, "", near), None);
    }
}
