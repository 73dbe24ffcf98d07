//! The context material stored beside the search index: what the session
//! context can show (resident knowledge, the table of contents, counts),
//! gathered from the record table, and its binary form. Search writes it
//! when it refreshes its index; context reads it back. Both import it from
//! here, so neither imports the other for it.

use crate::model::kind::{stem, Kind};
use crate::store::table::Glance;
use rayon::prelude::*;

/// The record directories of the table of contents, in the order shown.
pub(crate) const TOC_DIRS: [(&str, Kind); 4] = [
    ("memory/decisions/", Kind::Decision),
    ("memory/requests/", Kind::Request),
    ("memory/sessions/", Kind::Session),
    ("knowledge/", Kind::Knowledge),
];

/// One directory of the table of contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TocDir {
    /// `memory/decisions/` and the like.
    pub dir: &'static str,
    /// Its newest active records, newest first, as index lines
    /// (`slug — title`): all of them, or as many as any budget of the
    /// characters gathered for can show.
    pub names: Vec<String>,
    /// How many active records it has.
    pub total: usize,
}

/// Everything the context can show, gathered from the record table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Material {
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
    /// How many of the records listed are marked drifted (never stored:
    /// the marks are added when the material is read).
    pub drifted: usize,
    /// What listing the workspace met while gathering (never stored; see
    /// `store::listing::Listing::problems`), for the front end to report.
    pub problems: Vec<crate::model::workspace::Problem>,
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
pub(crate) fn keep_for(max_chars: usize) -> usize {
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
pub(crate) fn material(files: &[Glance], context_md: Option<String>, keep: usize) -> Material {
    let mut per_dir: Vec<Vec<(Option<&str>, &str, &Glance)>> = vec![Vec::new(); TOC_DIRS.len()];
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
            per_dir[i].push((g.date, name, g));
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
            names: newest(names, keep, |a, b| newest_first(&(a.0, a.1), &(b.0, b.1)))
                .into_iter()
                .map(|(_, _, g)| index_line(g))
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

/// The material (without `CONTEXT.md`) as stored beside the search index:
/// the key of the index it was gathered for (configuration and executable),
/// how many items each list kept, then the lists.
pub(crate) fn encode_material(m: &Material, keep: usize, key: u64) -> Vec<u8> {
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
pub(crate) fn decode_material(bytes: &[u8], keep: usize, key: u64) -> Option<Material> {
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
        drifted: 0,
        problems: Vec::new(),
    })
}

/// Most characters of a title in the memory index: the line says what the
/// record is about, `memlint show` gives the rest.
pub(crate) const INDEX_TITLE_CHARS: usize = 80;

/// A record's line in the memory index: `slug — title` (a session's
/// description stands for its title), the title's credentials masked and
/// the title then cut to [`INDEX_TITLE_CHARS`]; the slug alone when there
/// is neither.
fn index_line(g: &Glance) -> String {
    let slug = stem(g.path);
    let title = g.title.or(g.description).map(one_line).unwrap_or_default();
    if title.is_empty() {
        return slug.to_string();
    }
    // Masked before it is cut: a token cut short is no longer recognised.
    let cut = match crate::syntax::sanitize::clip(&title, INDEX_TITLE_CHARS) {
        (cut, true) => format!("{}…", cut.trim_end()),
        (whole, false) => whole.into_owned(),
    };
    format!("{slug} — {cut}")
}

/// A description on one line (it should be one already).
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
