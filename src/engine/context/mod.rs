//! `memlint context` and `memlint context rotate` (docs/agent-hooks.md): the text an
//! agent runtime injects at session start, and the trimming of `CONTEXT.md`.
//!
//! The core is pure: [`material`] turns the record table into what the
//! context can show, [`render`] lays it out within the character budget, and
//! [`blocks`] / [`rotate_text`] split and trim `CONTEXT.md` text. Reading the
//! index and the files, and writing, happen in [`gather`] and [`rotate`].

mod blocks;
mod render;
pub(crate) mod settings;

use crate::model::workspace::Workspace;
use crate::store::material::{decode_material, keep_for, material, Material};
#[cfg(test)]
use crate::store::material::{encode_material, TocDir, TOC_DIRS};
use crate::store::table::Glance;
pub(crate) use blocks::{blocks, first_blocks, rotate_text};
pub(crate) use render::render;
pub(crate) use settings::{inject_disabled, keep_n, Flags, Settings};
use std::path::Path;

/// The file of working-context blocks, at the workspace root.
pub(crate) const CONTEXT_FILE: &str = "CONTEXT.md";

// ---------------------------------------------------------------- edges

/// Reads `CONTEXT.md` as text (lossily), or `None` when it is missing, not
/// a file or unreadable. At most `max_bytes` are read.
pub(crate) fn read_context_md(root: &Path, max_bytes: u64) -> Option<String> {
    use std::io::Read;
    let path = root.join(CONTEXT_FILE);
    // Not a regular file: refused when opened.
    if !crate::io::fs::stays_inside(root, &path) {
        return None;
    }
    let mut bytes = Vec::new();
    crate::io::fs::open_regular(&path)
        .ok()?
        .take(max_bytes)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Refreshes the index and gathers the material of `ws` for a context of
/// at most `max_chars` characters.
///
/// The search index stores the material of its records: when it is fresh
/// and holds enough items, that is all that is read. When it is stale it is
/// brought up to date (only changed records are read), and the material
/// comes with it. Without a search index the record table alone is
/// refreshed: building the search index from nothing would cost a context
/// several times what it needs.
///
/// # Examples
///
/// ```ignore
/// use memlint::engine::advice::Advice;
/// use memlint::engine::context::{gather, render, Flags, Settings};
/// use memlint::model::workspace::Workspace;
/// use std::path::Path;
///
/// let cwd = std::env::current_dir().expect("the current directory");
/// let at = memlint::engine::workspace::Surroundings { cwd: &cwd, env: &|name| std::env::var(name).ok() };
/// let ws = memlint::engine::workspace::load(&at, Some(Path::new("fixtures/example")), None)?;
/// // Settings from the configuration and no environment.
/// // The front end words the advice a cut context ends with.
/// let words = |a: &Advice| match a {
///     Advice::Search => " search for the rest".to_string(),
///     _ => " search".to_string(),
/// };
/// let (settings, _warnings) =
///     Settings::resolve(&ws.config.context, &Flags::default(), &|_| None, words);
/// let material = gather(&ws, settings.max_chars);
/// print!("{}", render(&material, &settings));
/// # Ok::<(), memlint::engine::workspace::WorkspaceError>(())
/// ```
pub(crate) fn gather(ws: &Workspace, max_chars: usize) -> Material {
    let mut m = gather_unmarked(ws, max_chars);
    mark_drifted(ws, &mut m, max_chars);
    m
}

/// [`gather`] without the drift marks.
fn gather_unmarked(ws: &Workspace, max_chars: usize) -> Material {
    let keep = keep_for(max_chars);
    let key = crate::io::cache::key(&ws.config);
    let with_md = |mut m: Material, problems: Vec<crate::model::workspace::Problem>| {
        m.context_md = read_context_md(&ws.root, ws.config.max_file_bytes);
        m.problems = problems;
        m
    };
    let (mut listing, stored, watch) = match crate::engine::search::stored_context(ws) {
        crate::engine::search::StoredContext::Fresh(block, problems) => {
            match decode_material(&block, keep, key) {
                Some(m) => return with_md(m, problems),
                None => {
                    let watch = crate::io::watch::stamp(ws);
                    (crate::store::listing::listing(ws), true, watch)
                }
            }
        }
        crate::engine::search::StoredContext::Stale(listing, stored, watch) => {
            (listing, stored, watch)
        }
    };
    let opts = crate::engine::scan::Options {
        force: false,
        progress: None,
    };
    let problems = std::mem::take(&mut listing.problems);
    if stored {
        let (_, _, block) =
            crate::engine::search::refresh_keeping(ws, &listing, &opts, keep, watch);
        if let Some(m) = decode_material(&block, keep, key) {
            rayon::spawn(move || drop(listing));
            return with_md(m, problems);
        }
    }
    let files = listing.files;
    // Without a change since the index was written, a glance at it is
    // enough; otherwise it is refreshed.
    let m = crate::engine::scan::with_fresh(ws, &files, |g| material(g, None, keep))
        .unwrap_or_else(|| {
            let reports = crate::engine::scan::refresh(ws, &files, &opts).reports;
            let glances: Vec<Glance> = reports.iter().map(|r| Glance::of(r)).collect();
            let m = material(&glances, None, keep);
            drop(glances);
            // Freeing 100k reports takes a while; the pool does it while the
            // context is rendered and printed.
            rayon::spawn(move || drop(reports));
            m
        });
    rayon::spawn(move || drop(files));
    with_md(m, problems)
}

/// The material available without refreshing the index: `CONTEXT.md`, and
/// the records of the stored index if there is one (possibly stale), for a
/// context of at most `max_chars` characters.
pub(crate) fn gather_stale(ws: &Workspace, max_chars: usize) -> Material {
    let mut m = gather_stale_unmarked(ws, max_chars);
    mark_drifted(ws, &mut m, max_chars);
    m
}

/// Marks the listed records whose cited files changed, as the last `memlint
/// check` found (`engine::drift_marks`; no history is read here): ` (drifted:
/// src/cache.rs changed in abc1234)` after the record's index line. Only
/// the lines a context of `max_chars` characters could show are looked at
/// (each marked one is read again to see that its mark still holds).
fn mark_drifted(ws: &Workspace, m: &mut Material, max_chars: usize) {
    let path = |dir: &str, line: &str| {
        let slug = line.split_once(" — ").map_or(line, |(slug, _)| slug);
        format!("{dir}{slug}.md")
    };
    // A line shown takes its text, `> - ` and a line feed at least.
    let could_show = |lines: &mut dyn Iterator<Item = &str>| -> Vec<String> {
        let mut used = 0;
        let mut out = Vec::new();
        for l in lines {
            used += l.chars().count() + 5;
            if used > max_chars {
                break;
            }
            out.push(l.to_string());
        }
        out
    };
    let mut listed: std::collections::HashSet<String> = std::collections::HashSet::new();
    for d in &m.dirs {
        let names = could_show(&mut d.names.iter().map(String::as_str));
        listed.extend(names.iter().map(|n| path(d.dir, n)));
    }
    let knowledge = crate::model::kind::Kind::Knowledge.dir();
    let resident = could_show(&mut m.resident.iter().map(|(slug, _)| slug.as_str()));
    listed.extend(resident.iter().map(|slug| format!("{knowledge}/{slug}.md")));
    let marks = crate::engine::drift_marks::current(ws, |p| listed.contains(p));
    if marks.is_empty() {
        return;
    }
    let text = |p: &str| marks.get(p).map(crate::engine::drift_marks::text);
    let mut shown = std::collections::HashSet::new();
    for d in &mut m.dirs {
        for name in &mut d.names {
            let p = path(d.dir, name);
            if let Some(t) = text(&p) {
                name.push_str(&format!(" ({t})"));
                shown.insert(p);
            }
        }
    }
    for (slug, description) in &mut m.resident {
        let p = format!("{knowledge}/{slug}.md");
        if let Some(t) = text(&p) {
            *description = format!("{description} ({t})").trim_start().to_string();
            shown.insert(p);
        }
    }
    m.drifted = shown.len();
}

/// [`gather_stale`] without the drift marks.
fn gather_stale_unmarked(ws: &Workspace, max_chars: usize) -> Material {
    let context_md = read_context_md(&ws.root, ws.config.max_file_bytes);
    let keep = keep_for(max_chars);
    // The search index's material is a fraction of the record table to read.
    let stored = crate::engine::search::stored_context_unchecked(ws)
        .and_then(|b| decode_material(&b, keep, crate::io::cache::key(&ws.config)));
    if let Some(m) = stored {
        return Material { context_md, ..m };
    }
    match crate::store::table::read(&ws.root) {
        Some(table) => {
            let glances: Vec<Glance> = table
                .entries
                .iter()
                .map(|e| Glance::of(&e.report))
                .collect();
            material(&glances, context_md, keep_for(max_chars))
        }
        None => Material {
            context_md,
            ..Material::default()
        },
    }
}

/// Why `context rotate` could not rotate.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RotateError {
    #[error("{CONTEXT_FILE} is a symbolic link that leads out of the workspace root; it was left unchanged")]
    /// `CONTEXT.md` leads out of the root.
    OutsideRoot,
    #[error("{CONTEXT_FILE} is not a regular file")]
    /// `CONTEXT.md` is a FIFO, a directory or the like.
    NotAFile,
    #[error("cannot read {CONTEXT_FILE}: {0}")]
    /// `CONTEXT.md` could not be read.
    Read(std::io::Error),
    #[error("{CONTEXT_FILE} is not valid UTF-8; it was left unchanged")]
    /// `CONTEXT.md` is not UTF-8.
    Encoding,
    #[error("cannot write {CONTEXT_FILE}: {0}")]
    /// The rotated text could not be written.
    Write(std::io::Error),
}

/// What `context rotate` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RotateOutcome {
    /// There is no `CONTEXT.md`.
    Missing,
    /// `CONTEXT.md` has `blocks` blocks, no more than `keep`.
    Unchanged {
        /// Blocks in the file.
        blocks: usize,
        /// Blocks to keep.
        keep: usize,
    },
    /// Older blocks were removed; `held` older ones were kept because git
    /// history does not have them yet.
    Rotated {
        /// Blocks kept.
        kept: usize,
        /// Blocks removed.
        removed: usize,
        /// Of the removed blocks, those git history does not hold
        /// (dropped by `--force`).
        lost: usize,
        /// Older blocks kept because git history does not hold them yet.
        held: usize,
    },
    /// Another program changed `CONTEXT.md` while it was being rotated: it
    /// was left as that program made it.
    Raced,
}

impl RotateOutcome {
    /// One line for the user.
    pub(crate) fn human(&self, words: crate::engine::advice::Words) -> String {
        use crate::engine::advice::Advice;
        match self {
            RotateOutcome::Missing => format!("No {CONTEXT_FILE}; nothing to rotate.\n"),
            RotateOutcome::Raced => {
                format!("{CONTEXT_FILE} changed while memlint was rotating it; left as it is.\n")
            }
            RotateOutcome::Unchanged { blocks, keep } => format!(
                "{CONTEXT_FILE} has {blocks} block(s), no more than {keep}; nothing to rotate.\n"
            ),
            RotateOutcome::Rotated {
                kept,
                removed,
                lost,
                held,
            } => {
                let mut out = if *removed > *lost {
                    let those = if *lost > 0 {
                        format!("{} of them", removed - lost)
                    } else {
                        "they".to_string()
                    };
                    format!(
                        "{CONTEXT_FILE}: kept {kept} block(s), removed {removed} older block(s); \
                         {those} remain in git history (`git log -p -- {CONTEXT_FILE}`).\n"
                    )
                } else if *removed > 0 {
                    format!(
                        "{CONTEXT_FILE}: kept {kept} block(s), removed {removed} older block(s).\n"
                    )
                } else {
                    String::new()
                };
                if *lost > 0 {
                    out.push_str(&format!(
                        "{CONTEXT_FILE}: {lost} removed block(s) were never committed and are gone{}.\n",
                        words(&Advice::WasForced)
                    ));
                }
                if *held > 0 {
                    out.push_str(&format!(
                        "{CONTEXT_FILE}: kept {held} older block(s) that are not in git history yet \
                         (not committed); commit {CONTEXT_FILE} and rotate again{}.\n",
                        words(&Advice::OrForceDrop)
                    ));
                }
                out
            }
        }
    }
}

/// Keeps the first `keep` blocks of `<root>/CONTEXT.md`, atomically. An
/// older block is dropped only when HEAD's `CONTEXT.md` holds it (so it
/// stays in git history), or with `force`.
pub(crate) fn rotate(
    root: &Path,
    keep: usize,
    force: bool,
    max_bytes: u64,
) -> Result<RotateOutcome, RotateError> {
    let path = root.join(CONTEXT_FILE);
    let meta = match crate::io::files::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(RotateOutcome::Missing),
        Err(e) => return Err(RotateError::Read(e)),
    };
    if !meta.is_file() {
        return Err(RotateError::NotAFile);
    }
    if !crate::io::fs::stays_inside(root, &path) {
        return Err(RotateError::OutsideRoot);
    }
    let seen = crate::io::fs::Snapshot::read(&path, max_bytes).map_err(|e| {
        RotateError::Read(crate::io::fs::name_bound(e, max_bytes, "max_file_bytes"))
    })?;
    let text = std::str::from_utf8(&seen.bytes).map_err(|_| RotateError::Encoding)?;
    let committed = crate::io::git::Repo::open(root, crate::io::git::Asking::ContextRotate)
        .ok()
        .and_then(|repo| repo.committed(CONTEXT_FILE, max_bytes))
        .map(|b| String::from_utf8_lossy(&b).replace("\r\n", "\n"));
    // Blocks dropped by `force` that git history does not hold.
    let lost = std::cell::Cell::new(0);
    let droppable = |block: &str| {
        let kept_by_git = committed.as_deref().is_some_and(|c| {
            c.contains(
                block
                    .replace("\r\n", "\n")
                    .trim_end_matches(['\n', ' ', '\t']),
            )
        });
        if force && !kept_by_git {
            lost.set(lost.get() + 1);
        }
        force || kept_by_git
    };
    let rotated = rotate_text(text, keep, &droppable);
    match rotated.text {
        None if rotated.held == 0 => Ok(RotateOutcome::Unchanged {
            blocks: rotated.before,
            keep,
        }),
        None => Ok(RotateOutcome::Rotated {
            kept: rotated.kept,
            removed: 0,
            lost: 0,
            held: rotated.held,
        }),
        Some(new) => {
            // Only over what was read: an agent's edit meanwhile stays.
            let done = crate::io::fs::replace_if_unchanged(&path, &seen, new.as_bytes())
                .map_err(RotateError::Write)?;
            if done == crate::io::fs::Replaced::Changed {
                return Ok(RotateOutcome::Raced);
            }
            Ok(RotateOutcome::Rotated {
                kept: rotated.kept,
                removed: rotated.before - rotated.kept,
                lost: lost.get(),
                held: rotated.held,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::render::{chars, cut_notice, fair_shares, short_cut_notice};
    use super::*;
    use crate::model::config::ContextConfig;

    fn settings(max_chars: usize) -> Settings {
        Settings {
            max_chars,
            blocks: 1,
            header: "Header line.".into(),
            brief: false,
            resident: true,
            words: test_words,
        }
    }

    fn test_words(a: &crate::engine::advice::Advice) -> String {
        match a {
            crate::engine::advice::Advice::Search => {
                " run `memlint search QUERY` to recall the rest"
            }
            _ => " `memlint search` recalls more",
        }
        .to_string()
    }

    fn material_with(n: usize) -> Material {
        Material {
            context_md: Some(
                "# Context\n\n## 2026-11-03 今日の作業\n\n本文。\n\n## 2026-11-02 Old\n\nold\n"
                    .into(),
            ),
            resident: vec![("wal-pitfalls".into(), "SQLite の WAL の落とし穴".into())],
            resident_total: 1,
            dirs: TOC_DIRS
                .iter()
                .map(|(dir, _)| TocDir {
                    dir,
                    names: (0..n).map(|i| format!("记录-{i:05}.md")).collect(),
                    total: n,
                })
                .collect(),
            summary: true,
            staging: 2,
            drifted: 0,
            problems: Vec::new(),
        }
    }

    #[test]
    fn the_stored_material_round_trips_and_keeps_what_is_asked_for() {
        let mut m = material_with(7);
        m.context_md = None;
        m.resident.push(("b".into(), "第二".into()));
        m.resident_total = 2;
        let bytes = encode_material(&m, 7, 42);
        assert_eq!(decode_material(&bytes, 7, 42), Some(m.clone()));
        // Fewer items asked for: the newest of each list.
        let short = decode_material(&bytes, 3, 42).expect("decodes");
        assert_eq!(short.dirs[2].names, m.dirs[2].names[..3]);
        assert_eq!(short.dirs[2].total, 7);
        assert_eq!(short.resident.len(), 2);
        assert_eq!(
            decode_material(&bytes, 1, 42).expect("decodes").resident,
            m.resident[..1]
        );
        // More than was kept, another key, damage: not usable.
        assert_eq!(decode_material(&bytes, 8, 42), None);
        assert_eq!(decode_material(&bytes, 7, 43), None);
        assert_eq!(decode_material(&bytes[..bytes.len() - 1], 7, 42), None);
        assert_eq!(
            decode_material(&[bytes.as_slice(), b"x"].concat(), 7, 42),
            None
        );
        assert_eq!(decode_material(&[], 0, 42), None);
    }

    /// Records of the kinds their paths say, with clashing dates, some
    /// replaced, some resident.
    fn glances(paths: &[String]) -> Vec<Glance<'_>> {
        let dates = ["2026-11-01", "2026-11-02", "2026-11-03"];
        paths
            .iter()
            .enumerate()
            .map(|(i, p)| Glance {
                path: p,
                stat: None,
                hashed: true,
                parsed: true,
                kind: TOC_DIRS
                    .iter()
                    .find(|(dir, _)| p.starts_with(dir))
                    .map(|(_, kind)| *kind),
                status: (i % 7 == 0).then_some("replaced"),
                date: (i % 5 != 0).then(|| dates[i % 3]),
                model_invocation: Some(i % 3 == 0),
                description: Some("a  description\n over lines"),
                title: None,
            })
            .collect()
    }

    #[test]
    fn keeping_the_newest_items_renders_as_keeping_all() {
        // Short names in one directory: the budget goes to one long list.
        let short: Vec<String> = (0..3000)
            .map(|i| format!("{}{i}.md", TOC_DIRS[0].0))
            .collect();
        let g = glances(&short);
        let all = material(&g, None, usize::MAX);
        for max in [100, 1000, 4000, 40_000] {
            let kept = material(&g, None, keep_for(max));
            let s = settings(max);
            assert_eq!(render(&kept, &s), render(&all, &s), "max {max}");
        }
        let paths: Vec<String> = (0..2000)
            .map(|i| {
                let name = "n".repeat(1 + i % 12);
                format!("{}{name}{i}.md", TOC_DIRS[i % 4].0)
            })
            .collect();
        let g = glances(&paths);
        let all = material(&g, None, usize::MAX);
        assert_eq!(all.dirs[0].names.len(), all.dirs[0].total);
        for max in [0, 10, 60, 200, 1000, 4000, 20_000, 200_000] {
            let kept = material(&g, None, keep_for(max));
            for brief in [false, true] {
                let s = Settings {
                    brief,
                    ..settings(max)
                };
                assert_eq!(
                    render(&kept, &s),
                    render(&all, &s),
                    "max {max}, brief {brief}"
                );
            }
        }
        let kept = material(&g, None, keep_for(100));
        assert_eq!(kept.dirs[0].names.len(), keep_for(100));
        assert_eq!(kept.dirs[0].names[..], all.dirs[0].names[..keep_for(100)]);
        assert_eq!(kept.resident[..], all.resident[..keep_for(100)]);
    }

    #[test]
    fn blocks_split_at_level_two_headings_outside_code() {
        let text =
            "# T\n\nintro\n\n## A\na\n```\n## not a heading\n```\n## B\nb\n# Archive\nx\n## C\n";
        let b = blocks(text);
        assert_eq!(b.len(), 3);
        assert!(text[b[0].clone()].starts_with("## A\n"));
        assert!(text[b[0].clone()].contains("## not a heading"));
        assert_eq!(&text[b[1].clone()], "## B\nb\n");
        assert_eq!(&text[b[2].clone()], "## C\n");
    }

    #[test]
    fn rotate_keeps_the_preamble_and_the_first_blocks() {
        let text = "# Context\n\nintro\n\n## 1\none\n\n## 2\ntwo\n\n## 3\nthree\n";
        let all = |_: &str| true;
        let r = rotate_text(text, 2, &all);
        assert_eq!(
            r.text.as_deref(),
            Some("# Context\n\nintro\n\n## 1\none\n\n## 2\ntwo\n")
        );
        assert_eq!((r.before, r.kept, r.held), (3, 2, 0));
        assert_eq!(rotate_text(text, 3, &all).text, None);
        assert_eq!(
            rotate_text(text, 0, &all).text.as_deref(),
            Some("# Context\n\nintro\n")
        );
        // Blocks that are not in git history stay.
        let r = rotate_text(text, 0, &|b: &str| !b.contains("two"));
        assert_eq!(r.text.as_deref(), Some("# Context\n\nintro\n\n## 2\ntwo\n"));
        assert_eq!((r.kept, r.held), (1, 1));
    }

    #[test]
    fn fair_shares_give_small_parts_what_they_need() {
        assert_eq!(fair_shares(&[10, 100, 100], 150), vec![10, 70, 70]);
        assert_eq!(fair_shares(&[10, 20], 100), vec![10, 20]);
        assert_eq!(fair_shares(&[], 100), Vec::<usize>::new());
        assert_eq!(fair_shares(&[50, 50, 50], 30), vec![10, 10, 10]);
    }

    #[test]
    fn small_material_is_rendered_whole() {
        let text = render(&material_with(2), &settings(4000));
        let preface = crate::syntax::framing::PREFACE;
        assert!(text.starts_with(&format!(
            "Header line.\n{preface}\n> ## 2026-11-03 今日の作業\n>\n> 本文。\n"
        )));
        assert!(!text.contains("## 2026-11-02"));
        assert!(text.contains("> - wal-pitfalls — SQLite の WAL の落とし穴\n"));
        assert!(text.contains("> memory/decisions/ (2)\n> - 记录-00000.md\n"));
        assert!(!text.contains("memlint search QUERY` to recall"));
    }

    #[test]
    fn every_budget_is_respected_in_characters() {
        let m = material_with(500);
        for max in [0, 10, 50, 81, 82, 120, 200, 333, 1000, 4000] {
            let text = render(&m, &settings(max));
            assert!(chars(&text) <= max, "{max}: {} chars", chars(&text));
            assert!(text.is_empty() || text.ends_with('\n'));
            if !text.is_empty() {
                let last = text.lines().last().expect("a line");
                assert!(
                    last == short_cut_notice(test_words) || last == cut_notice(max, test_words),
                    "{max}: {text}"
                );
                // The header is kept when it fits beside the notice.
                if max > "Header line.\n".len() + short_cut_notice(test_words).len() {
                    assert!(text.starts_with("Header line.\n"), "{max}: {text}");
                }
            }
        }
        let text = render(&m, &settings(4000));
        for d in TOC_DIRS {
            assert!(text.contains(&format!("{} (500)", d.0)), "{text}");
        }
        assert!(text.contains(" more)\n"));
    }

    #[test]
    fn what_a_directory_leaves_of_its_share_goes_to_the_next() {
        let m = Material {
            resident: Vec::new(),
            resident_total: 0,
            ..material_with(500)
        };
        let item = chars("- 记录-00000.md\n");
        for max in (900..3000).step_by(7) {
            let text = render(&m, &settings(max));
            let unused = max - chars(&text);
            assert!(
                unused < 2 * item,
                "{max}: {unused} characters unused\n{text}"
            );
        }
    }

    #[test]
    fn resolve_prefers_flags_then_environment_then_configuration() {
        let config = ContextConfig {
            max_chars: 4000,
            export_max_chars: 4000,
            blocks: 1,
            header: "h".into(),
        };
        let env = |k: &str| match k {
            "MEMORY_INJECT_MAX_CHARS" => Some("900".to_string()),
            "MEMORY_INJECT_BLOCKS" => Some("x".to_string()),
            _ => None,
        };
        let (s, w) = Settings::resolve(&config, &Flags::default(), &env, test_words);
        assert_eq!((s.max_chars, s.blocks), (900, 1));
        assert_eq!(w.len(), 1);
        let flags = Flags {
            max_chars: Some(100),
            blocks: Some(3),
            ..Flags::default()
        };
        let (s, _) = Settings::resolve(&config, &flags, &env, test_words);
        assert_eq!((s.max_chars, s.blocks), (100, 3));
    }
}
