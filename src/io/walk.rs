//! Walking the workspace: which files it holds. The walk uses the `ignore`
//! crate, with the ignore rules (`.gitignore`, `.ignore`, `.memlintignore`,
//! `info/exclude`) read by `crate::io::ignores`; what it meets and leaves
//! out comes back with its files, each a `Problem`.

use crate::io::ignores::Rules;
use crate::model::kind::{classify, Place, RECORD_ROOTS};
use crate::model::workspace::Problem;
use crate::model::workspace::Workspace;
use rayon::prelude::*;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// Root-relative path with `/` separators, or `None` when `path` is not
/// inside the root.
pub(crate) fn relative(ws: &Workspace, path: &Path) -> Option<String> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let abs = normalize(&abs);
    let rel = abs.strip_prefix(&ws.root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

/// Whether any of the record directories or `CONTEXT.md` is there.
pub(crate) fn has_layout(ws: &Workspace) -> bool {
    RECORD_ROOTS
        .iter()
        .chain(&["CONTEXT.md"])
        .any(|n| std::fs::symlink_metadata(ws.root.join(n)).is_ok())
}

/// Walks the workspace: every file memlint looks at, root-relative,
/// sorted, and the directories the walk entered. The engine lists
/// files through `crate::store::listing::files`, which keeps this
/// walk's result while no directory changed.
pub fn walk(ws: &Workspace) -> Walked {
    // The walk starts at the root itself, never above it, so that only
    // ignore files inside the root apply (docs/guarantees.md: nothing outside the
    // root is read) with git's precedence, and a record directory that
    // is a link is seen as a link (never followed out of the root).
    // Below the root it enters only the record roots and the banned
    // directories, and the directories leading to them.
    let mut tops: Vec<String> = RECORD_ROOTS.iter().map(|r| r.to_string()).collect();
    for dir in &ws.config.banned_dirs {
        if !RECORD_ROOTS
            .iter()
            .any(|r| dir.starts_with(&format!("{r}/")))
        {
            tops.push(dir.trim_matches('/').to_string());
        }
    }
    let mut out = Vec::new();
    let context = ws.root.join("CONTEXT.md");
    // Listed whatever it is but a directory (a FIFO is then reported as
    // unreadable), and as a link only to a file inside the root.
    let context_listed = match std::fs::symlink_metadata(&context) {
        Ok(m) if m.file_type().is_symlink() => {
            context.is_file() && crate::io::fs::stays_inside(&ws.root, &context)
        }
        Ok(m) => !m.is_dir(),
        Err(_) => false,
    };
    if context_listed {
        out.push("CONTEXT.md".to_string());
    }
    if !tops.iter().any(|t| ws.root.join(t).is_dir()) {
        return Walked {
            files: out,
            dirs: Vec::new(),
            complete: true,
            problems: Vec::new(),
        };
    }
    // The ignore files are read here, not by the walker, which would
    // open them whatever they are (see `crate::io::ignores`).
    let mut problems = Vec::new();
    let root_rules = Rules::of_dir(&ws.root, &ws.root, None, &mut problems);
    let filter = Arc::new(Filter {
        root: ws.root.clone(),
        // Below this depth every entry lies inside a top: its ancestor
        // at this depth was let through.
        deepest: tops.iter().map(|t| t.split('/').count()).max().unwrap_or(1),
        tops,
        root_rules,
        rules: Default::default(),
        problems: std::sync::Mutex::new(problems),
    });
    let mut builder = ignore::WalkBuilder::new(&ws.root);
    let keep = filter.clone();
    builder
        .standard_filters(false)
        .follow_links(false)
        .filter_entry(move |e| keep.keep(e));
    // Directories are read on as many threads as the rayon pool has (so
    // `RAYON_NUM_THREADS` applies), each keeping its own list until it
    // is done.
    let found = std::sync::Mutex::new(Found::default());
    builder
        .threads(rayon::current_num_threads())
        .build_parallel()
        .visit(&mut Lister { ws, found: &found });
    // Made root-relative and classified here, in parallel: the walk
    // of a large directory is serial.
    let found = found.into_inner().unwrap_or_else(|e| e.into_inner());
    out.par_extend(found.files.into_par_iter().filter_map(|p| listed(ws, &p)));
    out.par_sort_unstable();
    out.dedup();
    let mut problems =
        std::mem::take(&mut *filter.problems.lock().unwrap_or_else(|e| e.into_inner()));
    problems.extend(found.errors.iter().map(|e| unreadable_dir(ws, e)));
    // A walk that left something out is not stored as the listing, so
    // that every later command says so again.
    let complete = !found.incomplete && problems.is_empty();
    Walked {
        files: out,
        dirs: found.dirs,
        complete,
        problems,
    }
}

/// The files directly in the directory `rel` (root-relative, inside one
/// of the roots [`walk`] walks and entered by it) as [`walk`] would list
/// them, sorted, and the subdirectories it would enter there; `None` when
/// [`walk`] would not store what it found there (a symbolic link, a
/// temporary file of a live run, an entry that cannot be read, an ignore
/// file left out, a name that is not UTF-8), so that the caller walks.
/// What the listing reads again when only that directory changed. A
/// file `known` accepts (the listing held it, under the same ignore
/// files) is listed again without asking the ignore rules.
pub(crate) fn dir_entries(
    ws: &Workspace,
    rel: &str,
    known: &dyn Fn(&str) -> bool,
) -> Option<(Vec<String>, Vec<PathBuf>)> {
    let inside = |t: &str| {
        rel.strip_prefix(t)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    let banned = ws.config.banned_dirs.iter().map(|d| d.trim_matches('/'));
    if rel.is_empty() || !RECORD_ROOTS.iter().copied().chain(banned).any(inside) {
        return None;
    }
    // The rules of every directory from the root down, as the walk builds
    // them on its way.
    let mut problems = Vec::new();
    let mut rules = Rules::of_dir(&ws.root, &ws.root, None, &mut problems);
    let mut at = ws.root.clone();
    for part in rel.split('/') {
        at.push(part);
        rules = Rules::of_dir(&ws.root, &at, Some(rules), &mut problems);
    }
    if !problems.is_empty() {
        return None;
    }
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    for entry in std::fs::read_dir(&at).ok()? {
        let entry = entry.ok()?;
        let name = entry.file_name();
        let name = name.to_str()?;
        if name == ".git" || name == ".memlint" {
            continue;
        }
        let ft = entry.file_type().ok()?;
        if ft.is_symlink() {
            return None;
        }
        let file = format!("{rel}/{name}");
        if !ft.is_dir() && known(&file) {
            files.push(file);
            continue;
        }
        let path = entry.path();
        if !ft.is_dir() && crate::io::temporaries::temporary_in_progress(&path) {
            return None;
        }
        if rules.ignored(&path, ft.is_dir()) {
            continue;
        }
        if ft.is_dir() {
            dirs.push(path);
        } else if classify(&file, &ws.config.banned_dirs) != Place::Outside {
            files.push(file);
        }
    }
    files.sort_unstable();
    Some((files, dirs))
}

/// The problem a walker error stands for: the entry it names could not
/// be read.
fn unreadable_dir(ws: &Workspace, e: &ignore::Error) -> Problem {
    fn parts(e: &ignore::Error) -> (Option<&Path>, String) {
        match e {
            ignore::Error::WithPath { path, err } => (Some(path), parts(err).1),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                parts(err)
            }
            ignore::Error::Io(io) => (None, io.to_string()),
            other => (None, other.to_string()),
        }
    }
    let (path, reason) = parts(e);
    let path = path
        .and_then(|p| relative(ws, p))
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| ".".into());
    Problem::Unreadable { path, reason }
}

/// The path of a walked entry when it is a file (or a link to a file
/// inside the root).
fn walked(ws: &Workspace, entry: ignore::DirEntry) -> Option<PathBuf> {
    let ft = entry.file_type()?;
    if ft.is_dir() {
        return None;
    }
    if ft.is_symlink() {
        // Never follow a link out of the root.
        match entry.path().canonicalize() {
            Ok(target) if target.starts_with(&ws.root) && target.is_file() => {}
            _ => return None,
        }
    }
    Some(entry.into_path())
}

/// The root-relative path of a walked file when [`walk`]
/// lists it: one that memlint looks at.
fn listed(ws: &Workspace, path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        // The walk joins names onto the root: the root's bytes and a
        // `/` begin every path, which a byte comparison sees at once
        // (100k records make it count; `strip_prefix` parses both).
        use std::os::unix::ffi::OsStrExt;
        let root = ws.root.as_os_str().as_bytes();
        if let Some(rel) = path.as_os_str().as_bytes().strip_prefix(root) {
            let rel = if root.ends_with(b"/") {
                Some(rel)
            } else {
                rel.strip_prefix(b"/")
            };
            if let Some(rel) = rel.and_then(|r| std::str::from_utf8(r).ok()) {
                return (classify(rel, &ws.config.banned_dirs) != Place::Outside)
                    .then(|| rel.to_string());
            }
        }
    }
    let rel = path.strip_prefix(&ws.root).ok()?;
    // Where `/` is the separator a UTF-8 path is already in the
    // root-relative form; 100k records make the shortcut count.
    let rel = match rel.to_str() {
        Some(s) if std::path::MAIN_SEPARATOR == '/' => s.to_string(),
        _ => rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<String>>()
            .join("/"),
    };
    // `.gitkeep`, the consolidation lock and the like are not memlint's
    // business and do not count as linted files.
    (classify(&rel, &ws.config.banned_dirs) != Place::Outside).then_some(rel)
}

/// What [`walk`] found.
#[derive(Debug, Default)]
pub struct Walked {
    /// As [`walk`] gives them.
    pub files: Vec<String>,
    /// Every directory the walk entered (not the ignored ones), unsorted.
    pub dirs: Vec<PathBuf>,
    /// No symbolic link among the entries walked, no temporary file of a
    /// live memlint run left out, no error and no ignore file left out: a
    /// change under the walked roots that could change `files` then changes
    /// one of `dirs` or an ignore file in one of them.
    pub complete: bool,
    /// What the walk met and left out (an unreadable directory, an ignore
    /// file that was not read), in the order met, for the front end to
    /// report.
    pub(crate) problems: Vec<Problem>,
}

/// What the walk's threads found, merged.
#[derive(Default)]
struct Found {
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
    incomplete: bool,
    /// What could not be read.
    errors: Vec<ignore::Error>,
}

/// The walk's filter: which entries it enters and lists, with the ignore
/// rules of every directory it let through (built before the walker reads
/// the directory, and kept for its entries).
struct Filter {
    root: PathBuf,
    tops: Vec<String>,
    deepest: usize,
    root_rules: Arc<Rules>,
    /// Keyed by the directory's path as bytes: hashing a `Path` parses
    /// its components, which every listed file would pay.
    rules: std::sync::RwLock<crate::model::hashing::Map<std::ffi::OsString, Arc<Rules>>>,
    problems: std::sync::Mutex<Vec<Problem>>,
}

impl Filter {
    fn keep(&self, e: &ignore::DirEntry) -> bool {
        if e.file_name() == ".git" || e.file_name() == ".memlint" {
            return false;
        }
        if e.depth() != 0 && e.depth() <= self.deepest {
            let rel = e
                .path()
                .strip_prefix(&self.root)
                .ok()
                .and_then(Path::to_str);
            // Inside a top, or on the way to one.
            let wanted = rel.is_some_and(|rel| {
                self.tops.iter().any(|t| {
                    rel.strip_prefix(t.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
                        || t.strip_prefix(rel)
                            .is_some_and(|rest| rest.starts_with('/'))
                })
            });
            if !wanted {
                return false;
            }
        }
        let Some(parent) = e.path().parent().and_then(|d| self.rules_of(d)) else {
            return true;
        };
        let is_dir = e.file_type().is_some_and(|t| t.is_dir());
        if parent.ignored(e.path(), is_dir) {
            return false;
        }
        if is_dir {
            let mut met = Vec::new();
            let own = Rules::of_dir(&self.root, e.path(), Some(parent), &mut met);
            if !met.is_empty() {
                self.problems
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .append(&mut met);
            }
            self.rules
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .insert(e.path().as_os_str().to_os_string(), own);
        }
        true
    }

    /// The rules of a directory the filter let through (or the root).
    fn rules_of(&self, dir: &Path) -> Option<Arc<Rules>> {
        // Compared as bytes: `Path`'s equality parses components.
        if dir.as_os_str() == self.root.as_os_str() {
            return Some(self.root_rules.clone());
        }
        self.rules
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(dir.as_os_str())
            .cloned()
    }
}

/// Builds the visitors of [`walk`]'s parallel walk.
struct Lister<'w> {
    ws: &'w Workspace,
    found: &'w std::sync::Mutex<Found>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Lister<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Visitor {
            ws: self.ws,
            found: self.found,
            local: Found::default(),
        })
    }
}

/// One thread's share of the walk.
struct Visitor<'w> {
    ws: &'w Workspace,
    found: &'w std::sync::Mutex<Found>,
    local: Found,
}

impl ignore::ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        match entry {
            Ok(e) => {
                let ft = e.file_type();
                if ft.is_some_and(|t| t.is_dir()) {
                    self.local.dirs.push(e.into_path());
                } else if crate::io::temporaries::temporary_in_progress(e.path()) {
                    // Another run's write in progress (or just done). The
                    // listing is not stored, so that a file its writer left
                    // (killed) is listed, and reported, by the next walk.
                    self.local.incomplete = true;
                } else {
                    // A link's target can change under an unchanged
                    // directory.
                    self.local.incomplete |= ft.is_some_and(|t| t.is_symlink());
                    if let Some(path) = walked(self.ws, e) {
                        self.local.files.push(path);
                    }
                }
            }
            Err(e) => {
                self.local.incomplete = true;
                self.local.errors.push(e);
            }
        }
        ignore::WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found.files.append(&mut self.local.files);
        found.dirs.append(&mut self.local.dirs);
        found.incomplete |= self.local.incomplete;
        found.errors.append(&mut self.local.errors);
    }
}

/// Removes `.` and `..` components without touching the disk.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}
