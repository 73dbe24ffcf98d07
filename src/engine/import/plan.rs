//! Settling an import: slugs (colliding safely, an earlier import found
//! again), dates, sources, the records' texts, the rules run on them, and
//! the writes, all or nothing.

use super::item::{Dated, Item, Rec, What};
use super::report::{Entry, ImportError, Options, Outcome, Report, Summary};
use crate::engine::author::commit::{commit, Write};
use crate::engine::author::verify::{self, Current};
use crate::engine::author::Draft;
use crate::model::diagnostic::Diagnostic;
use crate::model::kind::{stem, Kind};
use crate::model::severity::Severity;
use crate::model::workspace::Workspace;
use std::collections::{HashMap, HashSet};

/// Where an item's record goes.
enum Slot {
    /// A new record at `path`, named `slug`.
    New { slug: String, path: String },
    /// The record at `path`, whose text is `text`, is this item's earlier
    /// import.
    Existing { path: String, text: String },
    /// Not a record.
    None,
}

/// What the rules found, by path, and how fresh records count.
struct Judged<'a> {
    by_path: HashMap<String, Vec<Diagnostic>>,
    context: &'a super::plan_context::Context,
    context_ok: bool,
    fresh: Outcome,
}

/// Plans (and unless `dry_run`, writes) the records of `items`; what
/// reading the workspace met is added to `problems`.
pub(crate) fn settle(
    ws: &Workspace,
    items: Vec<Item>,
    opts: &Options,
    today: &str,
    problems: &mut Vec<crate::model::workspace::Problem>,
) -> Result<Report, ImportError> {
    let dated = dates(ws, &items, today);
    let slots = slots(ws, &items);
    let names = names(&items, &slots);
    // Each record laid out on its own: in parallel, in order.
    use rayon::prelude::*;
    let (texts, mut notes): (Vec<Option<Result<String, String>>>, Vec<Vec<String>>) = items
        .par_iter()
        .enumerate()
        .map(|(i, item)| {
            let mut notes = item.notes.clone();
            let text = match (&item.what, &slots[i], &dated[i]) {
                (What::Record(rec), Slot::New { slug, .. }, Some(d)) => {
                    Some(text(rec, slug, &item.file, d, &names, &mut notes))
                }
                // What it would be now, to tell whether the source changed.
                (What::Record(rec), Slot::Existing { path, .. }, Some(d)) => Some(text(
                    rec,
                    stem(path),
                    &item.file,
                    d,
                    &names,
                    &mut Vec::new(),
                )),
                _ => None,
            };
            (text, notes)
        })
        .unzip();
    let context = super::plan_context::blocks(ws, &items, &dated)?;
    let mut changes: Vec<(String, String)> = Vec::new();
    for (i, slot) in slots.iter().enumerate() {
        if let (Slot::New { path, .. }, Some(Ok(t))) = (slot, &texts[i]) {
            changes.push((path.clone(), t.clone()));
        }
    }
    if let Some(c) = &context.change {
        changes.push(("CONTEXT.md".into(), c.text.clone()));
    }
    let mut by_path: HashMap<String, Vec<Diagnostic>> = HashMap::new();
    if !changes.is_empty() {
        let current = Current::read(ws);
        problems.extend(current.problems.iter().cloned());
        for d in verify::lint_changes(ws, &current, &changes).diagnostics {
            by_path.entry(d.path.clone()).or_default().push(d);
        }
    }
    let context_ok = !by_path
        .get("CONTEXT.md")
        .is_some_and(|d| verify::has_errors(d));
    let mut judged = Judged {
        by_path,
        context: &context,
        context_ok,
        fresh: match opts.dry_run {
            true => Outcome::WouldWrite,
            false => Outcome::Written,
        },
    };
    let mut writes = Vec::new();
    let mut entries = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let mut e = Entry {
            input: crate::syntax::sanitize::secrets(&item.input).into_owned(),
            outcome: Outcome::Skipped,
            record: None,
            kind: None,
            date: None,
            date_from: None,
            reason: None,
            notes: std::mem::take(&mut notes[i]),
            diagnostics: Vec::new(),
        };
        if let Some(d) = &dated[i] {
            e.date = Some(d.date.clone());
            e.date_from = Some(d.from.to_string());
            e.notes.push(d.note.clone());
        }
        judge(
            &mut e,
            i,
            item,
            &slots[i],
            &texts[i],
            &mut judged,
            &mut writes,
        );
        entries.push(e);
    }
    if let Some(c) = context.change.filter(|_| context_ok) {
        writes.push(c.write);
    }
    if !opts.dry_run && !writes.is_empty() {
        write_all(&ws.root, writes)?;
    }
    Ok(Report {
        format: "",
        dry_run: opts.dry_run,
        items: entries,
        summary: Summary::default(),
    })
}

/// Each item's date: from the source, else git history, else `today`.
fn dates(ws: &Workspace, items: &[Item], today: &str) -> Vec<Option<Dated>> {
    let need_git: HashSet<String> = items
        .iter()
        .filter_map(|i| match &i.what {
            What::Record(r) | What::Block(r) if r.date.is_none() => Some(i.file.clone()),
            _ => None,
        })
        .collect();
    let added = super::dates::added(&ws.root, &need_git);
    items
        .iter()
        .map(|i| match &i.what {
            What::Record(r) | What::Block(r) => Some(date(r, &i.file, &added, today)),
            _ => None,
        })
        .collect()
}

/// Fills in what became of item `i`, queueing its write when it is one.
fn judge(
    e: &mut Entry,
    i: usize,
    item: &Item,
    slot: &Slot,
    text: &Option<Result<String, String>>,
    j: &mut Judged,
    writes: &mut Vec<Write>,
) {
    const ALREADY: &str = "imported already; nothing new written";
    match (&item.what, slot) {
        (What::Skip(why), _) => e.reason = Some(why.clone()),
        (What::Refuse(why), _) => {
            e.outcome = Outcome::Refused;
            e.reason = Some(why.clone());
        }
        (What::Record(rec), Slot::Existing { path, text: old }) => {
            e.kind = Some(rec.kind.name().into());
            e.record = Some(path.clone());
            match text {
                Some(Ok(now)) if !same_import(old, now) => {
                    e.outcome = Outcome::Changed;
                    e.reason = Some(format!(
                        "the source changed since it was imported into {path} (or the record was edited since); not re-imported: bring the change into the record by hand"
                    ));
                }
                _ => {
                    e.outcome = Outcome::Unchanged;
                    e.reason = Some(ALREADY.into());
                }
            }
        }
        (What::Record(rec), Slot::New { path, .. }) => {
            e.kind = Some(rec.kind.name().into());
            e.record = Some(path.clone());
            let diags = j.by_path.remove(path.as_str()).unwrap_or_default();
            match text {
                Some(Ok(t)) if !verify::has_errors(&diags) => {
                    e.outcome = j.fresh;
                    writes.push(Write::Create {
                        path: path.clone(),
                        text: t.clone(),
                    });
                }
                Some(Err(why)) => {
                    e.outcome = Outcome::Refused;
                    e.reason = Some(why.clone());
                }
                _ => {
                    e.outcome = Outcome::Refused;
                    e.reason = Some(format!(
                        "the rules found {} error(s) in the record it would become; nothing was written for it",
                        diags.iter().filter(|d| d.severity == Severity::Error).count()
                    ));
                }
            }
            e.diagnostics = diags;
        }
        (What::Record(_), Slot::None) => {
            e.outcome = Outcome::Refused;
            e.reason = Some("no free file name for its record".into());
        }
        (What::Block(_), _) => {
            e.kind = Some("context".into());
            e.record = Some("CONTEXT.md".into());
            match j.context.outcome(i) {
                Some(true) if j.context.changed(i) => {
                    e.outcome = Outcome::Changed;
                    e.reason = Some("the source changed since it was imported into CONTEXT.md (or its block was edited since); not re-imported: bring the change into the block by hand".into());
                }
                Some(true) => {
                    e.outcome = Outcome::Unchanged;
                    e.reason = Some(ALREADY.into());
                }
                Some(false) if j.context_ok => e.outcome = j.fresh,
                Some(false) => {
                    e.outcome = Outcome::Refused;
                    e.reason =
                        Some("CONTEXT.md would have errors; nothing was written to it".into());
                    e.diagnostics = j.by_path.get("CONTEXT.md").cloned().unwrap_or_default();
                }
                None => {
                    e.outcome = Outcome::Refused;
                    e.reason = j.context.refused.clone();
                }
            }
        }
    }
}

fn date(rec: &Rec, file: &str, added: &HashMap<String, (String, String)>, today: &str) -> Dated {
    if let Some((d, said)) = &rec.date {
        return Dated {
            date: d.clone(),
            from: "source",
            note: format!("dated {d} from {said}"),
            commit: None,
        };
    }
    if let Some((d, id)) = added.get(file) {
        return Dated {
            date: d.clone(),
            from: "git",
            note: format!(
                "dated {d} from git history (commit {})",
                &id[..id.len().min(12)]
            ),
            commit: Some(id.clone()),
        };
    }
    Dated {
        date: today.to_string(),
        from: "today",
        note: format!("dated {today} (today): neither the source nor git history gives a date"),
        commit: None,
    }
}

/// Each item's slot: its earlier import when a record holding its source
/// is found at its slug (or a numbered one), else the first free slug.
fn slots(ws: &Workspace, items: &[Item]) -> Vec<Slot> {
    let mut claimed: HashSet<String> = HashSet::new();
    items
        .iter()
        .map(|item| {
            let What::Record(rec) = &item.what else {
                return Slot::None;
            };
            let base = base_slug(rec, &item.input);
            let source = format!("file:{}", item.file);
            for n in 1..=1000 {
                let slug = numbered(&base, n);
                let path = format!("{}/{slug}.md", rec.kind.dir());
                if claimed.contains(&path) {
                    continue;
                }
                match existing(ws, &path) {
                    None => {
                        claimed.insert(path.clone());
                        return Slot::New { slug, path };
                    }
                    Some(text) if holds(&text, &source, rec.marker.as_deref()) => {
                        claimed.insert(path.clone());
                        return Slot::Existing { path, text };
                    }
                    Some(_) => continue,
                }
            }
            Slot::None
        })
        .collect()
}

/// The text of the record at `path`, when something is there (`Some("")`
/// when it cannot be read: taken, but not this item's).
fn existing(ws: &Workspace, path: &str) -> Option<String> {
    let full = ws.root.join(path);
    crate::io::files::symlink_metadata(&full).ok()?;
    match crate::io::read::read_capped(&full, ws.config.max_file_bytes) {
        Ok(crate::model::content::Content::Bytes(b)) => {
            Some(String::from_utf8_lossy(&b).into_owned())
        }
        _ => Some(String::new()),
    }
}

/// Whether the record an earlier import wrote (`old`) is what the source
/// gives `now`: the same text but for the date and the sources, which
/// change with git history alone (a file committed after its import is
/// dated by its commit then).
fn same_import(old: &str, now: &str) -> bool {
    fn essence(text: &str) -> String {
        let text = text.replace("\r\n", "\n");
        let (mut out, mut dashes, mut in_sources) = (String::new(), 0, false);
        for line in text.lines() {
            if dashes == 1 && line != "---" {
                if line.starts_with("date:") {
                    continue;
                }
                if line.starts_with("sources:") {
                    in_sources = true;
                    continue;
                }
                if in_sources && line.trim_start().starts_with("- ") {
                    continue;
                }
                in_sources = false;
            } else if line == "---" && dashes < 2 {
                dashes += 1;
            }
            out += line.trim_end();
            out.push('\n');
        }
        out.trim_end().to_string()
    }
    essence(old) == essence(now)
}

/// Whether a record's `text` lists `source` among its sources (and holds
/// `marker`, when there is one).
fn holds(text: &str, source: &str, marker: Option<&str>) -> bool {
    let listed = text.lines().any(|l| {
        l.trim()
            .strip_prefix("- ")
            .is_some_and(|s| s.trim().trim_matches(['\'', '"']) == source)
    });
    listed && marker.is_none_or(|m| text.lines().any(|l| l == m))
}

/// The slug of `rec`, made as `memlint new` makes one: never from what
/// looks like a credential (a file name is committed, pushed and printed).
fn base_slug(rec: &Rec, input: &str) -> String {
    use crate::syntax::secrets::find;
    rec.slug_from
        .iter()
        .find_map(|t| {
            let mut words = t.clone();
            for (range, _) in find(t).iter().rev() {
                words.replace_range(range.clone(), " ");
            }
            crate::syntax::slugify::from_title(&words).filter(|s| find(s).is_empty())
        })
        .unwrap_or_else(|| {
            // FNV-1a: a stable name for an item no slug can be made of.
            let h = input.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
            format!("imported-{:08x}", h as u32)
        })
}

/// `base` for the first, `base-n` after, cut to 64 characters.
fn numbered(base: &str, n: usize) -> String {
    if n == 1 {
        return base.to_string();
    }
    let suffix = format!("-{n}");
    let keep = crate::syntax::slugify::MAX_LEN - suffix.len();
    let mut b = base[..base.len().min(keep)]
        .trim_end_matches('-')
        .to_string();
    b += &suffix;
    b
}

/// The key an item is called by in [`names`]: a title or wiki-link name
/// lowercased; a beads id (`beads:ID`) exactly, since ids that differ
/// only in case are different issues.
fn name_key(name: &str) -> String {
    match name.starts_with("beads:") {
        true => name.to_string(),
        false => name.to_lowercase(),
    }
}

/// What items may be called by (see [`name_key`]): (kind, slug) of each
/// record.
fn names(items: &[Item], slots: &[Slot]) -> HashMap<String, (Kind, String)> {
    let mut out = HashMap::new();
    for (item, slot) in items.iter().zip(slots) {
        let What::Record(rec) = &item.what else {
            continue;
        };
        let slug = match slot {
            Slot::New { slug, .. } => slug.clone(),
            Slot::Existing { path, .. } => stem(path).to_string(),
            Slot::None => continue,
        };
        for n in rec.names.iter().chain(std::iter::once(&rec.title)) {
            out.entry(name_key(n)).or_insert((rec.kind, slug.clone()));
        }
    }
    out
}

/// The record's text, as `memlint new` lays it out.
fn text(
    rec: &Rec,
    slug: &str,
    file: &str,
    d: &Dated,
    names: &HashMap<String, (Kind, String)>,
    notes: &mut Vec<String>,
) -> Result<String, String> {
    let mut sources = vec![format!("file:{file}")];
    if let Some(c) = &d.commit {
        sources.push(format!("commit:{c}"));
    }
    for link in &rec.links {
        match names.get(&name_key(link)) {
            Some((kind, target)) if target != slug => {
                let s = format!("{}:{target}", kind.name());
                if !sources.contains(&s) {
                    sources.push(s);
                }
            }
            Some(_) => {}
            None => notes.push(match link.strip_prefix("beads:") {
                Some(id) => format!(
                    "depends on `{id}`, which is not among the issues imported; kept as text"
                ),
                None => format!(
                    "links to [[{link}]], which is no note imported; the link is kept as text"
                ),
            }),
        }
    }
    let mut tags: Vec<String> = Vec::new();
    for t in &rec.tags {
        match crate::syntax::slugify::from_title(t) {
            Some(s) if !tags.contains(&s) => tags.push(s),
            Some(_) => {}
            None => notes.push(format!(
                "the tag `{}` makes no slug; left out",
                crate::syntax::sanitize::line(t)
            )),
        }
    }
    let draft = Draft {
        kind: Some(rec.kind),
        title: rec.title.clone(),
        slug: Some(slug.to_string()),
        sources,
        tags,
        description: (rec.kind == Kind::Knowledge)
            .then(|| rec.description.clone())
            .flatten(),
        resident: rec.resident,
        body: rec.body.clone(),
        date: Some(d.date.clone()),
    };
    let laid = draft.lay_out(&d.date).map_err(|e| e.to_string())?;
    Ok(match rec.kind == Kind::Request && rec.done {
        true => laid
            .text
            .replacen("\nstatus: open\n", "\nstatus: done\n", 1),
        false => laid.text,
    })
}

/// Writes the new records (each created, never over a file, the file
/// system flushed once), then the replaced files in order; when one fails,
/// what this run created is removed again (while it still holds what was
/// written) and the error returned.
fn write_all(root: &std::path::Path, writes: Vec<Write>) -> Result<(), ImportError> {
    use crate::engine::author::AuthorError;
    let (creates, replaces): (Vec<Write>, Vec<Write>) = writes
        .into_iter()
        .partition(|w| matches!(w, Write::Create { .. }));
    let mut files: Vec<(std::path::PathBuf, Vec<u8>)> = Vec::with_capacity(creates.len());
    let mut names: Vec<String> = Vec::with_capacity(creates.len());
    // Nothing is written through a link out of the root. A new record's
    // own name is no link (its slot was free, and a link never writes
    // through a name that is taken), so each directory is resolved once.
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut dirs: HashMap<&str, Option<String>> = HashMap::new();
    for w in &creates {
        if let Write::Create { path, text } = w {
            let (dir, _) = path.rsplit_once('/').unwrap_or(("", path));
            let escapes = dirs.entry(dir).or_insert_with(|| {
                match crate::io::fs::resolve_below(&canonical, std::path::Path::new(path)) {
                    crate::io::fs::Resolved::Escapes(link) => Some(link),
                    _ => None,
                }
            });
            if let Some(link) = escapes {
                return Err(AuthorError::Usage(format!(
                    "{link} leads out of the workspace root through a symbolic link; memlint never writes there"
                ))
                .into());
            }
            files.push((root.join(path), text.clone().into_bytes()));
            names.push(path.clone());
        }
    }
    let results = crate::io::batch::write_new_all(root, &files);
    let undo = || {
        for ((full, bytes), r) in files.iter().zip(&results) {
            if r.is_ok()
                && crate::io::fs::read_regular(full, bytes.len() as u64).is_ok_and(|b| &b == bytes)
            {
                let _ = crate::io::files::remove_file(full);
            }
        }
    };
    if let Some(i) = results.iter().position(|r| r.is_err()) {
        undo();
        let path = names[i].clone();
        return Err(match results.into_iter().nth(i).and_then(|r| r.err()) {
            Some(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                AuthorError::Exists { path }
            }
            Some(source) => AuthorError::Write { path, source },
            None => AuthorError::Changed(path),
        }
        .into());
    }
    if let Err(e) = commit(root, replaces) {
        undo();
        return Err(e.into());
    }
    Ok(())
}
