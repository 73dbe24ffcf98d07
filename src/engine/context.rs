//! `memlint context` and `memlint context rotate` (SPEC §6): the text an
//! agent runtime injects at session start, and the trimming of `CONTEXT.md`.
//!
//! The core is pure: [`material`] turns the record table into what the
//! context can show, [`render`] lays it out within the character budget, and
//! [`blocks`] / [`rotate_text`] split and trim `CONTEXT.md` text. Reading the
//! index and the files, and writing, happen in [`gather`] and [`rotate`].

use crate::engine::workspace::Workspace;
use crate::model::config::ContextConfig;
use crate::model::kind::{stem, Kind};
use crate::store::table::Glance;
use rayon::prelude::*;
use std::ops::Range;
use std::path::Path;

/// The file of working-context blocks, at the workspace root.
pub const CONTEXT_FILE: &str = "CONTEXT.md";

/// Blocks `context rotate` keeps by default.
pub const DEFAULT_KEEP: usize = 5;

/// The record directories of the table of contents, in the order shown.
pub const TOC_DIRS: [(&str, Kind); 4] = [
    ("memory/decisions/", Kind::Decision),
    ("memory/requests/", Kind::Request),
    ("memory/sessions/", Kind::Session),
    ("knowledge/", Kind::Knowledge),
];

/// What `memlint context` was asked for, resolved: flags over environment
/// over configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub max_chars: usize,
    pub blocks: usize,
    pub header: String,
    pub brief: bool,
    pub resident: bool,
}

/// The command-line overrides of `memlint context`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags {
    pub brief: bool,
    pub no_resident: bool,
    pub max_chars: Option<usize>,
    pub blocks: Option<usize>,
}

/// Whether `MEMORY_INJECT` turns the context off (`0`, `false`, `no`, `off`).
pub fn inject_disabled(env: &dyn Fn(&str) -> Option<String>) -> bool {
    env("MEMORY_INJECT").is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "no" | "off"
        )
    })
}

/// A non-negative integer from the environment; a value that is not one is
/// reported in `warnings` and ignored (a hook must never fail on it).
fn env_number(
    env: &dyn Fn(&str) -> Option<String>,
    name: &str,
    min: usize,
    warnings: &mut Vec<String>,
) -> Option<usize> {
    let raw = env(name)?;
    match raw.trim().parse::<usize>() {
        Ok(n) if n >= min => Some(n),
        _ => {
            warnings.push(format!(
                "{name}={raw:?} is not an integer of at least {min}; ignored"
            ));
            None
        }
    }
}

impl Settings {
    /// Flags win over `MEMORY_INJECT_MAX_CHARS` / `MEMORY_INJECT_BLOCKS`, which
    /// win over `context:` in the configuration. Returns the settings and the
    /// warnings about ignored environment values.
    pub fn resolve(
        config: &ContextConfig,
        flags: &Flags,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> (Settings, Vec<String>) {
        let mut warnings = Vec::new();
        let env_max = env_number(env, "MEMORY_INJECT_MAX_CHARS", 1, &mut warnings);
        let env_blocks = env_number(env, "MEMORY_INJECT_BLOCKS", 0, &mut warnings);
        let settings = Settings {
            max_chars: flags.max_chars.or(env_max).unwrap_or(config.max_chars),
            blocks: flags.blocks.or(env_blocks).unwrap_or(config.blocks),
            header: config.header.clone(),
            brief: flags.brief,
            resident: !flags.no_resident,
        };
        (settings, warnings)
    }
}

/// How many blocks `context rotate` keeps: the flag, else `MEMORY_KEEP_N`,
/// else [`DEFAULT_KEEP`]; with the warning about an ignored value.
pub fn keep_n(flag: Option<usize>, env: &dyn Fn(&str) -> Option<String>) -> (usize, Vec<String>) {
    let mut warnings = Vec::new();
    let n = flag
        .or_else(|| env_number(env, "MEMORY_KEEP_N", 0, &mut warnings))
        .unwrap_or(DEFAULT_KEEP);
    (n, warnings)
}

/// One directory of the table of contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TocDir {
    /// `memory/decisions/` and the like.
    pub dir: &'static str,
    /// File names of its newest active records, newest first: all of them,
    /// or as many as any budget of the characters gathered for can show.
    pub names: Vec<String>,
    /// How many active records it has.
    pub total: usize,
}

/// Everything the context can show, gathered from the record table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Material {
    /// The text of `CONTEXT.md`, when it could be read.
    pub context_md: Option<String>,
    /// `(slug, description)` of the active knowledge records with
    /// `model_invocation: true`, newest first.
    pub resident: Vec<(String, String)>,
    /// How many resident records there are (`resident` may hold only the
    /// newest of them, like [`TocDir::names`]).
    pub resident_total: usize,
    /// The directories of [`TOC_DIRS`], in that order.
    pub dirs: Vec<TocDir>,
    /// `memory/summary.md` exists.
    pub summary: bool,
    /// Staging entries awaiting consolidation.
    pub staging: usize,
}

/// A record is active unless it was replaced (requests both `open` and
/// `done`; sessions and summaries have no status) or its front matter could
/// not be read (its status is unknown).
fn active(g: &Glance) -> bool {
    g.parsed && g.status != Some("replaced")
}

/// Newest first: by date (records without one last), then file name.
fn newest_first(a: &(Option<&str>, &str), b: &(Option<&str>, &str)) -> std::cmp::Ordering {
    match (a.0, b.0) {
        (Some(x), Some(y)) => y.cmp(x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
    .then_with(|| a.1.cmp(b.1))
}

/// How many items of a list to keep for a context of at most `max_chars`
/// characters: an item takes at least three (`- x` and its newline), so
/// more than this many never fit.
pub fn keep_for(max_chars: usize) -> usize {
    max_chars / 3 + 1
}

/// The newest `keep` of `items`, newest first.
fn newest<T: Send>(
    mut items: Vec<T>,
    keep: usize,
    order: impl Fn(&T, &T) -> std::cmp::Ordering + Sync,
) -> Vec<T> {
    if items.len() > keep {
        items.select_nth_unstable_by(keep, &order);
        items.truncate(keep);
    }
    items.par_sort_unstable_by(order);
    items
}

/// Gathers the context material from what the index holds of every
/// workspace file, keeping at most `keep` items of each list (see
/// [`keep_for`]).
pub fn material(files: &[Glance], context_md: Option<String>, keep: usize) -> Material {
    let mut per_dir: Vec<Vec<(Option<&str>, &str)>> = vec![Vec::new(); TOC_DIRS.len()];
    let mut resident: Vec<(Option<&str>, &str, &str)> = Vec::new();
    let mut m = Material {
        context_md,
        ..Material::default()
    };
    for g in files {
        let Some(kind) = g.kind else { continue };
        match kind {
            Kind::Summary => m.summary = true,
            Kind::Staging => m.staging += 1,
            _ => {}
        }
        if !active(g) {
            continue;
        }
        let name = g.path.rsplit('/').next().unwrap_or(g.path);
        if let Some(i) = TOC_DIRS.iter().position(|(_, k)| *k == kind) {
            per_dir[i].push((g.date, name));
        }
        if kind == Kind::Knowledge && g.model_invocation == Some(true) {
            // One whose description is missing or invalid (`check` reports
            // it) is still listed, by its slug alone.
            resident.push((g.date, stem(g.path), g.description.unwrap_or("")));
        }
    }
    m.dirs = TOC_DIRS
        .iter()
        .zip(per_dir)
        .map(|((dir, _), names)| TocDir {
            dir,
            total: names.len(),
            names: newest(names, keep, newest_first)
                .into_iter()
                .map(|(_, n)| n.to_string())
                .collect(),
        })
        .collect();
    m.resident_total = resident.len();
    m.resident = newest(resident, keep, |a, b| {
        newest_first(&(a.0, a.1), &(b.0, b.1))
    })
    .into_iter()
    .map(|(_, slug, d)| (slug.to_string(), one_line(d)))
    .collect();
    m
}

/// How many items of each list the material stored beside the search index
/// keeps (see [`encode_material`]): as many as a context of the configured
/// size can show, or of the size `MEMORY_INJECT_MAX_CHARS` asks for.
pub fn stored_keep(config: &ContextConfig) -> usize {
    let env = |k: &str| std::env::var(k).ok();
    let (settings, _) = Settings::resolve(config, &Flags::default(), &env);
    keep_for(settings.max_chars)
}

/// The material (without `CONTEXT.md`) as stored beside the search index:
/// the key of the index it was gathered for (configuration and executable),
/// how many items each list kept, then the lists.
pub fn encode_material(m: &Material, keep: usize, key: u64) -> Vec<u8> {
    let mut w = crate::store::codec::Writer {
        buf: Vec::with_capacity(64 + keep * 48),
    };
    w.buf.extend_from_slice(&key.to_le_bytes());
    w.usize(keep);
    w.u8(u8::from(m.summary));
    w.usize(m.staging);
    w.usize(m.resident_total);
    w.usize(m.resident.len());
    for (slug, description) in &m.resident {
        w.str(slug);
        w.str(description);
    }
    w.usize(m.dirs.len());
    for d in &m.dirs {
        w.usize(d.total);
        w.usize(d.names.len());
        for name in &d.names {
            w.str(name);
        }
    }
    w.buf
}

/// The stored material, with at most `keep` items per list, when it was
/// gathered for `key` with at least that many; `None` otherwise (or when
/// damaged), and the caller gathers it from the record table.
pub fn decode_material(bytes: &[u8], keep: usize, key: u64) -> Option<Material> {
    let mut r = crate::store::codec::Reader { buf: bytes, pos: 0 };
    if r.fixed64()? != key || r.usize()? < keep {
        return None;
    }
    let summary = r.flag()?;
    let staging = r.usize()?;
    let resident_total = r.usize()?;
    let n = r.count()?;
    let mut resident = Vec::with_capacity(n.min(keep));
    for i in 0..n {
        let item = (r.str_ref()?, r.str_ref()?);
        if i < keep {
            resident.push((item.0.to_string(), item.1.to_string()));
        }
    }
    if r.usize()? != TOC_DIRS.len() {
        return None;
    }
    let mut dirs = Vec::with_capacity(TOC_DIRS.len());
    for (dir, _) in TOC_DIRS {
        let total = r.usize()?;
        let n = r.count()?;
        let mut names = Vec::with_capacity(n.min(keep));
        for i in 0..n {
            let name = r.str_ref()?;
            if i < keep {
                names.push(name.to_string());
            }
        }
        dirs.push(TocDir { dir, names, total });
    }
    (r.pos == bytes.len()).then_some(Material {
        context_md: None,
        resident,
        resident_total,
        dirs,
        summary,
        staging,
    })
}

/// A description on one line (it should be one already).
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The byte ranges of the blocks of a `CONTEXT.md` text: a block is a
/// level-2 heading and what follows it, up to the next heading of level 1
/// or 2 outside fenced code, or the end.
pub fn blocks(text: &str) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    let mut open: Option<usize> = None;
    let mut fence: Option<(char, usize)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let t = line.trim_end_matches(['\n', '\r']);
        let stripped = t.trim_start_matches(' ');
        let indent = t.len() - stripped.len();
        if indent <= 3 {
            let marker = stripped.chars().next().filter(|c| *c == '`' || *c == '~');
            if let Some(c) = marker {
                let run = stripped.chars().take_while(|x| *x == c).count();
                if run >= 3 {
                    match fence {
                        None => fence = Some((c, run)),
                        Some((fc, fr))
                            if fc == c && run >= fr && stripped[run..].trim().is_empty() =>
                        {
                            fence = None
                        }
                        Some(_) => {}
                    }
                    continue;
                }
            }
        }
        if fence.is_some() || indent > 3 {
            continue;
        }
        let level = stripped.chars().take_while(|c| *c == '#').count();
        let is_heading = (1..=2).contains(&level)
            && stripped[level..]
                .chars()
                .next()
                .is_none_or(|c| c == ' ' || c == '\t');
        if is_heading {
            if let Some(s) = open.take() {
                out.push(s..start);
            }
            if level == 2 {
                open = Some(start);
            }
        }
    }
    if let Some(s) = open {
        out.push(s..text.len());
    }
    out
}

/// The first `n` blocks of a `CONTEXT.md` text, each without trailing blank
/// lines and with LF line endings.
pub fn first_blocks(text: &str, n: usize) -> Vec<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    blocks(text)
        .into_iter()
        .take(n)
        .map(|r| {
            text[r]
                .lines()
                .map(|l| l.trim_end_matches('\r'))
                .collect::<Vec<_>>()
                .join("\n")
                .trim_end()
                .to_string()
        })
        .filter(|b| !b.is_empty())
        .collect()
}

/// The result of trimming a `CONTEXT.md` text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rotated {
    /// The new text (`None` when nothing changes).
    pub text: Option<String>,
    /// Blocks before and after.
    pub before: usize,
    pub kept: usize,
    /// Older blocks kept because `droppable` refused them.
    pub held: usize,
}

/// Keeps the first `keep` blocks of `text` and everything that is not a
/// block (the title and introduction, level-1 sections); the later blocks go,
/// except those `droppable` refuses (text that is not in git history yet).
pub fn rotate_text(text: &str, keep: usize, droppable: &dyn Fn(&str) -> bool) -> Rotated {
    let all = blocks(text);
    let before = all.len();
    let gone: Vec<&Range<usize>> = all
        .iter()
        .skip(keep)
        .filter(|r| droppable(&text[(*r).clone()]))
        .collect();
    let held = before.saturating_sub(keep) - gone.len();
    if gone.is_empty() {
        return Rotated {
            text: None,
            before,
            kept: before,
            held,
        };
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in gone.iter().copied() {
        out.push_str(&text[at..r.start]);
        at = r.end;
    }
    out.push_str(&text[at..]);
    // One final newline, however the removed blocks ended.
    let trimmed = out.trim_end_matches(['\n', '\r', ' ', '\t']).len();
    out.truncate(trimmed);
    out.push_str(if text.contains("\r\n") { "\r\n" } else { "\n" });
    Rotated {
        text: Some(out),
        before,
        kept: before - gone.len(),
        held,
    }
}

// ---------------------------------------------------------------- rendering

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Output under construction, counted in characters.
struct Out {
    text: String,
    used: usize,
    limit: usize,
}

impl Out {
    /// Appends `line` and a newline if they fit.
    fn push(&mut self, line: &str) -> bool {
        let n = chars(line) + 1;
        if self.used + n > self.limit {
            return false;
        }
        self.text.push_str(line);
        self.text.push('\n');
        self.used += n;
        true
    }

    fn room(&self) -> usize {
        self.limit - self.used
    }
}

/// A titled list: the title lines, then items; cut, it ends with
/// `(+N more)`.
struct List {
    head: Vec<String>,
    /// The first items (all of them when there are `total`).
    items: Vec<String>,
    total: usize,
}

impl List {
    /// Its size whole; when only its first items are at hand, more than any
    /// budget (yet small enough to add up).
    fn full_size(&self) -> usize {
        let known: usize = self
            .head
            .iter()
            .chain(&self.items)
            .map(|l| chars(l) + 1)
            .sum();
        if self.items.len() < self.total {
            known.max(usize::MAX / 16)
        } else {
            known
        }
    }

    /// Its title and the widest `(+N more)` line it can need: the least it
    /// takes when shown at all.
    fn least_size(&self) -> usize {
        let head: usize = self.head.iter().map(|l| chars(l) + 1).sum();
        (head + chars(&more(self.total)) + 1).min(self.full_size())
    }

    /// Writes as much of the list as fits in `share` characters; nothing
    /// when not even its title and the `(+N more)` line fit.
    fn write(&self, out: &mut Out, share: usize) {
        let share = share.min(out.room());
        if self.full_size() <= share {
            for l in self.head.iter().chain(&self.items) {
                out.push(l);
            }
            return;
        }
        let head: usize = self.head.iter().map(|l| chars(l) + 1).sum();
        // The widest trailer this list can need.
        let trailer = chars(&more(self.total)) + 1;
        if head + trailer > share {
            return;
        }
        let mut left = share - head - trailer;
        let mut shown = 0;
        for item in &self.items {
            let n = chars(item) + 1;
            if n > left {
                break;
            }
            left -= n;
            shown += 1;
        }
        for l in &self.head {
            out.push(l);
        }
        for item in &self.items[..shown] {
            out.push(item);
        }
        out.push(&more(self.total - shown));
    }
}

fn more(n: usize) -> String {
    format!("(+{n} more)")
}

/// The last line of a cut context.
fn cut_notice(max_chars: usize) -> String {
    format!("[cut to {max_chars} characters: run `memlint search QUERY` to recall the rest]")
}

/// The last line of a cut context when [`cut_notice`] would crowd out the
/// header.
const SHORT_CUT_NOTICE: &str = "[cut: `memlint search` recalls more]";

/// The notice a cut context of at most `max_chars` characters ends with,
/// with the room left before it: the long one when the header fits beside
/// it, else the short one; `None` when not even that fits.
fn notice_for(max_chars: usize, header_size: usize) -> Option<(String, usize)> {
    let long = cut_notice(max_chars);
    let long_size = chars(&long) + 1;
    if header_size + long_size <= max_chars {
        return Some((long, max_chars - long_size));
    }
    let short_size = chars(SHORT_CUT_NOTICE) + 1;
    let limit = max_chars.checked_sub(short_size)?;
    Some((SHORT_CUT_NOTICE.to_string(), limit))
}

const RESIDENT_TITLE: &str = "## Resident knowledge";
const TOC_TITLE: &str = "## Memory index (active records, newest first)";

/// Lays the material out: header, the first blocks of `CONTEXT.md`, the
/// resident knowledge, the table of contents; never more than
/// `max_chars` characters, cut at line boundaries and then ending with a
/// line pointing to `memlint search`.
pub fn render(m: &Material, s: &Settings) -> String {
    // Every line is sanitized before it is counted, so that the budget
    // holds for what is printed: secrets masked (never longer), control
    // characters shown as one symbol each (a line feed in a file name
    // too, which would split its line).
    let shown = |l: &str| crate::syntax::sanitize::line(l).into_owned();
    // The header: cut by keeping a prefix of its lines.
    let mut fixed: Vec<String> = s.header.lines().map(shown).collect();
    while fixed.last().is_some_and(|l| l.trim().is_empty()) {
        fixed.pop();
    }
    let header_len = fixed.len();
    if s.brief {
        fixed.push(String::new());
        fixed.push("## Memory index (active records)".into());
        fixed.extend(toc_fixed(m));
        for d in &m.dirs {
            fixed.push(format!("{} ({})", d.dir, d.total));
        }
        return fit_fixed(&fixed, header_len, s.max_chars);
    }
    if let Some(text) = &m.context_md {
        for b in first_blocks(text, s.blocks) {
            fixed.push(String::new());
            // Masked as a whole: a private key's material is in the
            // lines after its `BEGIN` line.
            let b = crate::syntax::sanitize::secrets(&b);
            fixed.extend(b.lines().map(shown));
        }
    }
    let resident = (s.resident && !m.resident.is_empty()).then(|| List {
        head: vec![String::new(), RESIDENT_TITLE.into()],
        items: m
            .resident
            .iter()
            .map(|(slug, d)| match d.as_str() {
                "" => shown(&format!("- {slug}")),
                d => shown(&format!("- {slug} — {d}")),
            })
            .collect(),
        total: m.resident_total,
    });
    let toc_head: Vec<String> = [String::new(), TOC_TITLE.into()]
        .into_iter()
        .chain(toc_fixed(m))
        .collect();
    let dirs: Vec<List> = m
        .dirs
        .iter()
        .filter(|d| d.total > 0)
        .map(|d| List {
            head: vec![format!("{} ({})", d.dir, d.total)],
            items: d.names.iter().map(|n| shown(&format!("- {n}"))).collect(),
            total: d.total,
        })
        .collect();

    // Everything, if it fits.
    let full: usize = fixed
        .iter()
        .chain(&toc_head)
        .map(|l| chars(l) + 1)
        .sum::<usize>()
        + resident.as_ref().map_or(0, List::full_size)
        + dirs.iter().map(List::full_size).sum::<usize>();
    if full <= s.max_chars {
        let mut out = Out {
            text: String::new(),
            used: 0,
            limit: usize::MAX,
        };
        for l in &fixed {
            out.push(l);
        }
        if let Some(r) = &resident {
            r.write(&mut out, usize::MAX);
        }
        for l in &toc_head {
            out.push(l);
        }
        for d in &dirs {
            d.write(&mut out, usize::MAX);
        }
        return out.text;
    }

    // Cut: reserve the notice, then fill part by part.
    let (header, blocks) = fixed.split_at(header_len);
    let header_size: usize = header.iter().map(|l| chars(l) + 1).sum();
    let Some((notice, limit)) = notice_for(s.max_chars, header_size) else {
        return String::new();
    };
    let mut out = Out {
        text: String::new(),
        used: 0,
        limit,
    };
    // The parts keep their order: once a header line does not fit, nothing
    // after it is shown.
    let whole = header.iter().all(|l| out.push(l));
    let toc_head_size: usize = toc_head.iter().map(|l| chars(l) + 1).sum();
    // Each directory's title and `(+N more)` line, which a directory shown
    // at all needs.
    let least: Vec<usize> = dirs.iter().map(List::least_size).collect();
    if whole {
        // The blocks of `CONTEXT.md`, as many of their lines as fit while
        // leaving the parts after them their titles and counts (or half of
        // the room, when those need more).
        let later = toc_head_size
            + least.iter().sum::<usize>()
            + resident.as_ref().map_or(0, List::least_size);
        let mut block_room = out.room() - later.min(out.room() / 2);
        for l in blocks {
            let n = chars(l) + 1;
            if n > block_room {
                break;
            }
            out.push(l);
            block_room -= n;
        }
        // Resident knowledge takes at most half of what is left when a
        // table of contents follows, and leaves room for every directory's
        // title when it can.
        if let Some(r) = &resident {
            let share = if dirs.is_empty() {
                out.room()
            } else {
                let toc_least = toc_head_size + least.iter().sum::<usize>();
                (out.room() / 2).min(out.room().saturating_sub(toc_least).max(out.room() / 4))
            };
            r.write(&mut out, share);
        }
        if toc_head_size <= out.room() {
            for l in &toc_head {
                out.push(l);
            }
            // Shared again after each directory, so that what one leaves
            // of its share (a part of a line) goes to the next.
            for i in 0..dirs.len() {
                let share = dir_shares(&dirs[i..], &least[i..], out.room())[0];
                dirs[i].write(&mut out, share);
            }
        }
    }
    let mut text = out.text;
    // No blank line before the notice (a part whose title did not fit).
    while text.ends_with("\n\n") {
        text.pop();
    }
    text.push_str(&notice);
    text.push('\n');
    text
}

/// The lines for the summary and the staging backlog.
fn toc_fixed(m: &Material) -> Vec<String> {
    let mut out = Vec::new();
    if m.summary {
        out.push("memory/summary.md (rolling summary)".to_string());
    }
    if m.staging > 0 {
        out.push(format!("staging/ ({} awaiting consolidation)", m.staging));
    }
    out
}

/// Fixed lines (the first `header_len` of them the header) within
/// `max_chars`: all of them, or a prefix and the notice.
fn fit_fixed(lines: &[String], header_len: usize, max_chars: usize) -> String {
    let full: usize = lines.iter().map(|l| chars(l) + 1).sum();
    let header_size: usize = lines[..header_len].iter().map(|l| chars(l) + 1).sum();
    let (notice, limit) = if full <= max_chars {
        (String::new(), usize::MAX)
    } else {
        match notice_for(max_chars, header_size) {
            Some(n) => n,
            None => return String::new(),
        }
    };
    let mut out = Out {
        text: String::new(),
        used: 0,
        limit,
    };
    for l in lines {
        if !out.push(l) {
            break;
        }
    }
    let mut text = out.text;
    if full > max_chars {
        text.push_str(&notice);
        text.push('\n');
    }
    text
}

/// The shares of the directories in `room` characters: when every
/// directory's title and `(+N more)` line (`least`) fit, each gets that
/// and a fair share of the rest; otherwise the first directories that fit
/// get their least, and the rest nothing.
fn dir_shares(dirs: &[List], least: &[usize], room: usize) -> Vec<usize> {
    let floor: usize = least.iter().sum();
    if floor > room {
        let mut left = room;
        return least
            .iter()
            .map(|&l| {
                let share = if l <= left { l } else { 0 };
                left -= share;
                share
            })
            .collect();
    }
    let extra: Vec<usize> = dirs
        .iter()
        .zip(least)
        .map(|(d, l)| d.full_size().saturating_sub(*l))
        .collect();
    fair_shares(&extra, room - floor)
        .into_iter()
        .zip(least)
        .map(|(e, l)| e + l)
        .collect()
}

/// Splits `budget` fairly among parts needing `sizes`: parts that need less
/// than an equal share get what they need, the rest share what remains
/// equally (max-min fairness).
pub fn fair_shares(sizes: &[usize], budget: usize) -> Vec<usize> {
    let mut shares = vec![0; sizes.len()];
    let mut open: Vec<usize> = (0..sizes.len()).collect();
    let mut left = budget;
    while !open.is_empty() {
        let equal = left / open.len();
        let (small, big): (Vec<usize>, Vec<usize>) = open.iter().partition(|&&i| sizes[i] <= equal);
        if small.is_empty() {
            for i in big {
                shares[i] = equal;
            }
            break;
        }
        for i in small {
            shares[i] = sizes[i];
            left -= sizes[i];
        }
        open = big;
    }
    shares
}

// ---------------------------------------------------------------- edges

/// Reads `CONTEXT.md` as text (lossily), or `None` when it is missing, not
/// a file or unreadable. At most `max_bytes` are read.
pub fn read_context_md(root: &Path, max_bytes: u64) -> Option<String> {
    use std::io::Read;
    let path = root.join(CONTEXT_FILE);
    if !path.is_file() || !crate::io::fs::stays_inside(root, &path) {
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
pub fn gather(ws: &Workspace, max_chars: usize) -> Material {
    let keep = keep_for(max_chars);
    let key = crate::store::table::key(&ws.config);
    let with_md = |mut m: Material| {
        m.context_md = read_context_md(&ws.root, ws.config.max_file_bytes);
        m
    };
    let (listing, stored, watch) = match crate::engine::search::stored_context(ws) {
        crate::engine::search::StoredContext::Fresh(block) => {
            match decode_material(&block, keep, key) {
                Some(m) => return with_md(m),
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
    if stored {
        let (_, _, block) =
            crate::engine::search::refresh_keeping(ws, &listing, &opts, keep, watch);
        if let Some(m) = decode_material(&block, keep, key) {
            rayon::spawn(move || drop(listing));
            return with_md(m);
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
    with_md(m)
}

/// The material available without refreshing the index: `CONTEXT.md`, and
/// the records of the stored index if there is one (possibly stale), for a
/// context of at most `max_chars` characters.
pub fn gather_stale(ws: &Workspace, max_chars: usize) -> Material {
    let context_md = read_context_md(&ws.root, ws.config.max_file_bytes);
    let keep = keep_for(max_chars);
    // The search index's material is a fraction of the record table to read.
    let stored = crate::engine::search::stored_context_unchecked(ws)
        .and_then(|b| decode_material(&b, keep, crate::store::table::key(&ws.config)));
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
pub enum RotateError {
    #[error("{CONTEXT_FILE} is a symbolic link that leads out of the workspace root; it was left unchanged")]
    OutsideRoot,
    #[error("{CONTEXT_FILE} is not a regular file")]
    NotAFile,
    #[error("cannot read {CONTEXT_FILE}: {0}")]
    Read(std::io::Error),
    #[error("{CONTEXT_FILE} is not valid UTF-8; it was left unchanged")]
    Encoding,
    #[error("cannot write {CONTEXT_FILE}: {0}")]
    Write(std::io::Error),
}

/// What `context rotate` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RotateOutcome {
    /// There is no `CONTEXT.md`.
    Missing,
    /// `CONTEXT.md` has `blocks` blocks, no more than `keep`.
    Unchanged { blocks: usize, keep: usize },
    /// Older blocks were removed; `held` older ones were kept because git
    /// history does not have them yet.
    Rotated {
        kept: usize,
        removed: usize,
        /// Of the removed blocks, those git history does not hold
        /// (dropped by `--force`).
        lost: usize,
        held: usize,
    },
    /// Another program changed `CONTEXT.md` while it was being rotated: it
    /// was left as that program made it.
    Raced,
}

impl RotateOutcome {
    /// One line for the user.
    pub fn human(&self) -> String {
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
                        "{CONTEXT_FILE}: {lost} removed block(s) were never committed and are gone (--force).\n"
                    ));
                }
                if *held > 0 {
                    out.push_str(&format!(
                        "{CONTEXT_FILE}: kept {held} older block(s) that are not in git history yet \
                         (not committed); commit {CONTEXT_FILE} and rotate again, or use --force to drop them.\n"
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
pub fn rotate(root: &Path, keep: usize, force: bool) -> Result<RotateOutcome, RotateError> {
    let path = root.join(CONTEXT_FILE);
    let meta = match std::fs::metadata(&path) {
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
    let seen = crate::io::fs::Snapshot::read(&path).map_err(RotateError::Read)?;
    let text = std::str::from_utf8(&seen.bytes).map_err(|_| RotateError::Encoding)?;
    let committed = crate::io::git::Repo::open(root, "context rotate")
        .ok()
        .and_then(|repo| repo.committed(CONTEXT_FILE, u64::MAX))
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
    use super::*;

    fn settings(max_chars: usize) -> Settings {
        Settings {
            max_chars,
            blocks: 1,
            header: "Header line.".into(),
            brief: false,
            resident: true,
        }
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
        assert!(text.starts_with("Header line.\n\n## 2026-11-03 今日の作業\n\n本文。\n"));
        assert!(!text.contains("## 2026-11-02"));
        assert!(text.contains("- wal-pitfalls — SQLite の WAL の落とし穴\n"));
        assert!(text.contains("memory/decisions/ (2)\n- 记录-00000.md\n"));
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
                    last == SHORT_CUT_NOTICE || last == cut_notice(max),
                    "{max}: {text}"
                );
                // The header is kept when it fits beside the notice.
                if max > "Header line.\n".len() + SHORT_CUT_NOTICE.len() {
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
            blocks: 1,
            header: "h".into(),
        };
        let env = |k: &str| match k {
            "MEMORY_INJECT_MAX_CHARS" => Some("900".to_string()),
            "MEMORY_INJECT_BLOCKS" => Some("x".to_string()),
            _ => None,
        };
        let (s, w) = Settings::resolve(&config, &Flags::default(), &env);
        assert_eq!((s.max_chars, s.blocks), (900, 1));
        assert_eq!(w.len(), 1);
        let flags = Flags {
            max_chars: Some(100),
            blocks: Some(3),
            ..Flags::default()
        };
        let (s, _) = Settings::resolve(&config, &flags, &env);
        assert_eq!((s.max_chars, s.blocks), (100, 3));
    }
}
