//! Laying the context out within its character budget: the product's
//! output format for agents (header, `CONTEXT.md` blocks, resident
//! knowledge, table of contents, the cut notice). Pure: material and
//! settings in, text out.

use super::blocks::first_blocks;
use super::settings::Settings;
use crate::engine::advice::{Advice, Words};
use crate::store::material::Material;

pub(super) fn chars(s: &str) -> usize {
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
    format!("> (+{n} more)")
}

/// The last line of a cut context, with the front end's words for how to
/// recall the rest.
pub(super) fn cut_notice(max_chars: usize, words: Words) -> String {
    format!("[cut to {max_chars} characters:{}]", words(&Advice::Search))
}

/// The last line of a cut context when [`cut_notice`] would crowd out the
/// header.
pub(super) fn short_cut_notice(words: Words) -> String {
    format!("[cut:{}]", words(&Advice::SearchBrief))
}

/// The notice a cut context of at most `max_chars` characters ends with,
/// with the room left before it: the long one when the header fits beside
/// it, else the short one; `None` when not even that fits.
fn notice_for(max_chars: usize, header_size: usize, words: Words) -> Option<(String, usize)> {
    let long = cut_notice(max_chars, words);
    let long_size = chars(&long) + 1;
    if header_size + long_size <= max_chars {
        return Some((long, max_chars - long_size));
    }
    let short = short_cut_notice(words);
    let limit = max_chars.checked_sub(chars(&short) + 1)?;
    Some((short, limit))
}

const RESIDENT_TITLE: &str = "> ## Resident knowledge";
const TOC_TITLE: &str = "> ## Memory index (active records, newest first)";
/// A blank line between quoted notes.
const BLANK: &str = ">";

/// Lays the material out: header, the first blocks of `CONTEXT.md`, the
/// resident knowledge, the table of contents; never more than
/// `max_chars` characters, cut at line boundaries and then ending with a
/// line pointing to `memlint search`.
pub(crate) fn render(m: &Material, s: &Settings) -> String {
    // `--brief` lists no record, so it marks none.
    let (fixed, header_len) = header(s, m.drifted > 0 && !s.brief);
    if s.brief {
        return brief(m, fixed, header_len, s);
    }
    let parts = Parts::gather(m, s, fixed, header_len);
    if parts.full_size() <= s.max_chars {
        return parts.whole();
    }
    parts.cut(s.max_chars, s.words)
}

/// A line as printed: sanitized before it is counted, so that the budget
/// holds for what is printed: secrets masked (never longer), control
/// characters shown as one symbol each (a line feed in a file name too,
/// which would split its line).
fn shown(l: &str) -> String {
    crate::syntax::sanitize::line(l).into_owned()
}

/// A line of the notes as printed: [`shown`], then quoted, so that no text
/// of a record or of `CONTEXT.md` can end the quote the preface announces.
fn note(l: &str) -> String {
    crate::syntax::framing::quote_line(&shown(l))
}

/// The header's lines, without trailing blank ones, and their count (a cut
/// keeps a prefix of them); with what to do about a drifted record when
/// the index marks one.
fn header(s: &Settings, drifted: bool) -> (Vec<String>, usize) {
    let mut fixed: Vec<String> = s.header.lines().map(shown).collect();
    while fixed.last().is_some_and(|l| l.trim().is_empty()) {
        fixed.pop();
    }
    if drifted {
        fixed.push(format!(
            "A record marked `drifted` cites a file that changed after the record was written or verified (as the last `memlint check` found): it may be stale. Before relying on it, check it against the file;{}.",
            (s.words)(&crate::engine::advice::Advice::VerifyOrReplace)
        ));
    }
    // What follows the header is memory: the preface says so, once.
    fixed.push(crate::syntax::framing::PREFACE.to_string());
    let header_len = fixed.len();
    (fixed, header_len)
}

/// `--brief`: the header, the newest block of `CONTEXT.md` (it says where
/// the work stands, which the agent needs most after a compaction) and the
/// number of records per directory.
fn brief(m: &Material, mut fixed: Vec<String>, header_len: usize, s: &Settings) -> String {
    if let Some(text) = &m.context_md {
        for (i, b) in first_blocks(text, 1).into_iter().enumerate() {
            if i > 0 {
                fixed.push(BLANK.into());
            }
            // Masked as a whole: a private key's material is in the lines
            // after its `BEGIN` line.
            let b = crate::syntax::sanitize::secrets(&b);
            fixed.extend(b.lines().map(note));
        }
    }
    if fixed.len() > header_len {
        fixed.push(BLANK.into());
    }
    fixed.push("> ## Memory index (active records)".into());
    fixed.extend(toc_fixed(m));
    for d in &m.dirs {
        fixed.push(note(&format!("{} ({})", d.dir, d.total)));
    }
    fit_fixed(&fixed, header_len, s.max_chars, s.words)
}

/// The parts of a full context, in the order shown: the header and the
/// first blocks of `CONTEXT.md` (`fixed`), resident knowledge, the title of
/// the table of contents, and its directories.
struct Parts {
    fixed: Vec<String>,
    /// How many of `fixed` are the header.
    header_len: usize,
    resident: Option<List>,
    toc_head: Vec<String>,
    dirs: Vec<List>,
}

impl Parts {
    fn gather(m: &Material, s: &Settings, mut fixed: Vec<String>, header_len: usize) -> Parts {
        if let Some(text) = &m.context_md {
            for (i, b) in first_blocks(text, s.blocks).into_iter().enumerate() {
                if i > 0 {
                    fixed.push(BLANK.into());
                }
                // Masked as a whole: a private key's material is in the
                // lines after its `BEGIN` line.
                let b = crate::syntax::sanitize::secrets(&b);
                fixed.extend(b.lines().map(note));
            }
        }
        // A blank quoted line between parts, none right after the preface.
        let gap = |first: bool| (!first).then(|| BLANK.to_string());
        let has_blocks = fixed.len() > header_len;
        let resident = (s.resident && !m.resident.is_empty()).then(|| List {
            head: gap(!has_blocks)
                .into_iter()
                .chain([RESIDENT_TITLE.into()])
                .collect(),
            items: m
                .resident
                .iter()
                .map(|(slug, d)| match d.as_str() {
                    "" => note(&format!("- {slug}")),
                    d => note(&format!("- {slug} — {d}")),
                })
                .collect(),
            total: m.resident_total,
        });
        let toc_head: Vec<String> = gap(!has_blocks && resident.is_none())
            .into_iter()
            .chain([TOC_TITLE.into()])
            .chain(toc_fixed(m))
            .collect();
        let dirs: Vec<List> = m
            .dirs
            .iter()
            .filter(|d| d.total > 0)
            .map(|d| List {
                head: vec![note(&format!("{} ({})", d.dir, d.total))],
                items: d.names.iter().map(|n| note(&format!("- {n}"))).collect(),
                total: d.total,
            })
            .collect();
        Parts {
            fixed,
            header_len,
            resident,
            toc_head,
            dirs,
        }
    }

    /// Everything's size, in characters.
    fn full_size(&self) -> usize {
        self.fixed
            .iter()
            .chain(&self.toc_head)
            .map(|l| chars(l) + 1)
            .sum::<usize>()
            + self.resident.as_ref().map_or(0, List::full_size)
            + self.dirs.iter().map(List::full_size).sum::<usize>()
    }

    /// Everything, when it fits.
    fn whole(&self) -> String {
        let mut out = Out {
            text: String::new(),
            used: 0,
            limit: usize::MAX,
        };
        for l in &self.fixed {
            out.push(l);
        }
        if let Some(r) = &self.resident {
            r.write(&mut out, usize::MAX);
        }
        for l in &self.toc_head {
            out.push(l);
        }
        for d in &self.dirs {
            d.write(&mut out, usize::MAX);
        }
        out.text
    }

    /// Cut: reserve the notice, then fill part by part. The parts keep
    /// their order: once a header line does not fit, nothing after it is
    /// shown.
    fn cut(&self, max_chars: usize, words: Words) -> String {
        let (header, _) = self.fixed.split_at(self.header_len);
        let header_size: usize = header.iter().map(|l| chars(l) + 1).sum();
        let Some((notice, limit)) = notice_for(max_chars, header_size, words) else {
            return String::new();
        };
        let mut out = Out {
            text: String::new(),
            used: 0,
            limit,
        };
        if header.iter().all(|l| out.push(l)) {
            self.fill(&mut out);
        }
        let mut text = out.text;
        // No blank line before the notice (a part whose title did not fit).
        while text.ends_with("\n>\n") {
            text.truncate(text.len() - 2);
        }
        text.push_str(&notice);
        text.push('\n');
        text
    }

    /// After a whole header: the blocks, resident knowledge and the table
    /// of contents, each in its share of the room left.
    fn fill(&self, out: &mut Out) {
        let blocks = &self.fixed[self.header_len..];
        let toc_head_size: usize = self.toc_head.iter().map(|l| chars(l) + 1).sum();
        // Each directory's title and `(+N more)` line, which a directory
        // shown at all needs.
        let least: Vec<usize> = self.dirs.iter().map(List::least_size).collect();
        // The blocks of `CONTEXT.md`, as many of their lines as fit while
        // leaving the parts after them their titles and counts (or half of
        // the room, when those need more).
        let later = toc_head_size
            + least.iter().sum::<usize>()
            + self.resident.as_ref().map_or(0, List::least_size);
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
        if let Some(r) = &self.resident {
            let share = if self.dirs.is_empty() {
                out.room()
            } else {
                let toc_least = toc_head_size + least.iter().sum::<usize>();
                (out.room() / 2).min(out.room().saturating_sub(toc_least).max(out.room() / 4))
            };
            r.write(out, share);
        }
        if toc_head_size <= out.room() {
            for l in &self.toc_head {
                out.push(l);
            }
            // Shared again after each directory, so that what one leaves
            // of its share (a part of a line) goes to the next.
            for i in 0..self.dirs.len() {
                let share = dir_shares(&self.dirs[i..], &least[i..], out.room())[0];
                self.dirs[i].write(out, share);
            }
        }
    }
}

/// The lines for the summary and the staging backlog.
fn toc_fixed(m: &Material) -> Vec<String> {
    let mut out = Vec::new();
    if m.summary {
        out.push("> memory/summary.md (rolling summary)".to_string());
    }
    if m.staging > 0 {
        out.push(format!("> staging/ ({} awaiting consolidation)", m.staging));
    }
    out
}

/// Fixed lines (the first `header_len` of them the header) within
/// `max_chars`: all of them, or a prefix and the notice.
fn fit_fixed(lines: &[String], header_len: usize, max_chars: usize, words: Words) -> String {
    let full: usize = lines.iter().map(|l| chars(l) + 1).sum();
    let header_size: usize = lines[..header_len].iter().map(|l| chars(l) + 1).sum();
    let (notice, limit) = if full <= max_chars {
        (String::new(), usize::MAX)
    } else {
        match notice_for(max_chars, header_size, words) {
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
pub(crate) fn fair_shares(sizes: &[usize], budget: usize) -> Vec<usize> {
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
