//! Git history: the `Memlint-GC:` trailer (docs/rules.md) and `memlint log`.
//! Everything is read through gix. (`check --base` is in
//! `crate::engine::version`.)

use crate::io::git::{Change, CommitInfo, GitError, Object, Repo};
use crate::model::content::Content;
use crate::model::kind::{classify, Kind, Place};
use crate::model::workspace::Workspace;
use gix::ObjectId;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};

#[cfg(test)]
use crate::syntax::trailer::parse_trailer;
use crate::syntax::trailer::{trailers, GcOp, Malformed, TRAILER};

/// Records whose removal or rename git would see: `old → new` for the
/// removed paths that reappear under another name. An identical blob is a
/// rename (paired as git pairs them, [`exact_renames`]); otherwise the added
/// record of the same kind that shares most of its lines, at least half
/// (git's default threshold, [`most_alike`]), not counting the `---`
/// delimiters and blank lines every record has.
///
/// [`exact_renames`]: crate::engine::renames::exact_renames
/// [`most_alike`]: crate::engine::renames::most_alike
pub(crate) fn renames(repo: &Repo, changes: &[Change], ws: &Workspace) -> HashMap<String, String> {
    let record = |p: &str| match classify(p, &ws.config.banned_dirs) {
        Place::Record(k) => Some(k),
        _ => None,
    };
    let records: Vec<Change> = changes
        .iter()
        .filter(|c| record(&c.path).is_some())
        .cloned()
        .collect();
    let mut out: HashMap<String, String> = crate::engine::renames::all_exact_renames(&records)
        .into_iter()
        .map(|(from, to)| (from.to_string(), to.to_string()))
        .collect();
    let renamed_to: HashSet<&str> = out.values().map(String::as_str).collect();
    let rest: Vec<(&str, Object, Kind)> = records
        .iter()
        .filter(|c| c.new.is_none() && !out.contains_key(&c.path))
        .filter_map(|c| Some((c.path.as_str(), c.old?, record(&c.path)?)))
        .collect();
    let added: Vec<(&str, Object, Kind)> = records
        .iter()
        .filter(|c| c.old.is_none() && !renamed_to.contains(c.path.as_str()))
        .filter_map(|c| Some((c.path.as_str(), c.new?, record(&c.path)?)))
        .collect();
    // Content similarity costs a read and a diff per pair: bounded.
    if rest.is_empty() || added.is_empty() || rest.len() * added.len() > 2_500 {
        return out;
    }
    let bytes = crate::engine::renames::COMPARED_BYTES as u64;
    let text = |o: &Object| match repo.blob(o.id, bytes) {
        Ok(Content::Bytes(b)) => Some(
            String::from_utf8_lossy(&b)
                .lines()
                .filter(|l| !l.trim().is_empty() && l.trim_end() != "---")
                .map(|l| format!("{l}\n"))
                .collect::<String>(),
        ),
        _ => None,
    };
    let added_text: Vec<Option<String>> = added.iter().map(|(_, o, _)| text(o)).collect();
    let mut taken = vec![false; added.len()];
    let mut found = Vec::new();
    for (path, old, kind) in rest {
        let Some(old_text) = text(&old) else { continue };
        let free = added
            .iter()
            .zip(&added_text)
            .enumerate()
            .filter(|(i, ((_, _, k), _))| !taken[*i] && *k == kind)
            .filter_map(|(i, (_, t))| Some((i, t.as_deref()?)));
        if let Some(i) = crate::engine::renames::most_alike(&old_text, free) {
            taken[i] = true;
            found.push((path.to_string(), added[i].0.to_string()));
        }
    }
    out.extend(found);
    out
}

// ---------------------------------------------------------------------------
// memlint log

/// What `memlint log` was asked for.
#[derive(Debug, Clone, Default)]
pub(crate) struct LogRequest {
    /// A record's path (relative to the root) or slug; `None`: the workspace.
    pub record: Option<String>,
    /// `A..B`, `A..`, `..B`, `A...B` or one revision (default HEAD).
    pub range: Option<String>,
    /// Only commits with `Memlint-GC:` trailers.
    pub gc_only: bool,
}

/// One commit of `memlint log`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LogCommit {
    /// The full commit id.
    pub id: String,
    /// Author time, RFC 3339 with the author's offset.
    pub time: String,
    /// The first line of the message.
    pub summary: String,
    /// The record paths the commit touched (for a record: its names).
    pub paths: Vec<String>,
    /// The well-formed `Memlint-GC:` trailers.
    pub gc: Vec<GcOp>,
    /// The malformed ones (also reported on standard error), each with
    /// its line and what is wrong with it.
    #[serde(rename = "malformed_gc")]
    pub malformed: Vec<Malformed>,
    /// One letter per path: A added, M modified, D deleted.
    #[serde(skip)]
    pub status: Vec<char>,
}

/// The result of `memlint log`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Log {
    /// Newest first.
    pub commits: Vec<LogCommit>,
}

/// RFC 3339 with the offset the time was recorded in.
pub(crate) fn rfc3339_offset(seconds: i64, offset: i32) -> String {
    let local = seconds + offset as i64;
    let date = crate::model::clock::date(local);
    let rem = local.rem_euclid(86_400);
    let sign = if offset < 0 { '-' } else { '+' };
    let off = offset.unsigned_abs();
    format!(
        "{date}T{:02}:{:02}:{:02}{sign}{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        off / 3600,
        off % 3600 / 60
    )
}

/// Which paths the log follows.
enum Target {
    Workspace,
    /// Paths of the record, growing as renames are followed back in time.
    Paths(BTreeSet<String>),
    /// Any record path whose stem is the slug (renames followed as well).
    Slug(String, BTreeSet<String>),
}

impl Target {
    fn matches(&self, path: &str, ws: &Workspace) -> bool {
        match self {
            Target::Workspace => classify(path, &ws.config.banned_dirs) != Place::Outside,
            Target::Paths(paths) => paths.contains(path),
            Target::Slug(slug, paths) => {
                paths.contains(path)
                    || (crate::model::kind::stem(path) == slug
                        && matches!(classify(path, &ws.config.banned_dirs), Place::Record(_)))
            }
        }
    }

    fn follow(&mut self, old: &str) {
        match self {
            Target::Paths(paths) | Target::Slug(_, paths) => {
                paths.insert(old.to_string());
            }
            Target::Workspace => {}
        }
    }

    fn named_by(&self, op: &GcOp, ws: &Workspace) -> bool {
        match self {
            Target::Workspace => true,
            _ => {
                let with_md = |r: &str| format!("{r}.md");
                self.matches(&with_md(&op.record), ws)
                    || op
                        .into
                        .as_ref()
                        .is_some_and(|t| self.matches(&with_md(t), ws))
            }
        }
    }
}

/// Splits the words after `log` into the record and the range: a word with
/// `..` is a range; a path or slug of a record is the record; another word
/// that names a revision is the range.
pub(crate) fn parse_log_args(words: &[String]) -> Result<LogRequest, String> {
    let mut req = LogRequest::default();
    if words.len() > 2 {
        return Err("`memlint log` takes at most a record (path or slug) and a range".into());
    }
    for w in words {
        if w.contains("..") && !w.ends_with(".md") {
            if req.range.is_some() {
                return Err(format!("two ranges given (`{w}`)"));
            }
            req.range = Some(w.clone());
        } else if req.record.is_none() {
            req.record = Some(w.clone());
        } else if req.range.is_none() {
            req.range = Some(w.clone());
        } else {
            return Err(format!("unexpected `{w}`"));
        }
    }
    Ok(req)
}

/// `memlint log`: the history of a record (following renames) or of the
/// workspace, newest first, with the parsed trailers.
///
/// # Examples
///
/// ```ignore
/// use memlint::engine::log::{log, LogRequest};
/// use memlint::model::workspace::Workspace;
///
/// let cwd = std::env::current_dir().expect("the current directory");
/// let at = memlint::engine::workspace::Surroundings { cwd: &cwd, env: &|name| std::env::var(name).ok() };
/// let ws = memlint::engine::workspace::load(&at, None, None)?;
/// let request = LogRequest { record: Some("use-gix".into()), ..LogRequest::default() };
/// for commit in log(&ws, &request)?.commits {
///     println!("{} {} {}", &commit.id[..7], commit.time, commit.summary);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub(crate) fn log(ws: &Workspace, req: &LogRequest) -> Result<Log, GitError> {
    let repo = Repo::open(&ws.root, crate::io::git::Asking::Log)?;
    let Some(head) = repo.head()? else {
        if let Some(r) = &req.range {
            return Err(GitError::UnknownRevision {
                rev: r.clone(),
                hint: " (the repository has no commits yet)".into(),
            });
        }
        return Ok(Log {
            commits: Vec::new(),
        });
    };
    let mut range_spec = req.range.clone();
    // A slug that names no record at HEAD: with no commit either, it names
    // nothing, which is an error (as `git log` refuses an unknown path).
    let mut unknown_slug = None;
    let mut target = match &req.record {
        None => Target::Workspace,
        Some(word) => match record_target(&repo, ws, word, head)? {
            (target, true) => target,
            // `memlint log main`: a word that names no record at HEAD but a
            // revision is the range.
            (_, false) if range_spec.is_none() && repo.resolve(word).is_ok() => {
                range_spec = Some(word.clone());
                Target::Workspace
            }
            (target, false) => {
                unknown_slug = Some(word.clone());
                target
            }
        },
    };
    let (tips, hidden) = match range_spec.as_deref() {
        None => (vec![head], vec![]),
        Some(r) => range(&repo, r, head)?,
    };
    let mut out = Vec::new();
    for c in repo.commits(&tips, &hidden)? {
        let changes = commit_changes(&repo, &c)?;
        let (gc, malformed) = trailers(&c.message);
        let mut paths = Vec::new();
        let mut status = Vec::new();
        for ch in &changes {
            if target.matches(&ch.path, ws) {
                paths.push(ch.path.clone());
                status.push(match (ch.old, ch.new) {
                    (None, _) => 'A',
                    (_, None) => 'D',
                    _ => 'M',
                });
            }
        }
        // Follow renames back in time: an added path of the record that came
        // from a removed one.
        if !matches!(target, Target::Workspace) && status.contains(&'A') {
            for (old, new) in renames(&repo, &changes, ws) {
                if paths.contains(&new) && !paths.contains(&old) {
                    target.follow(&old);
                    paths.push(old);
                    status.push('D');
                }
            }
        }
        let gc: Vec<GcOp> = gc
            .into_iter()
            .filter(|op| target.named_by(op, ws))
            .collect();
        let has_trailer = !gc.is_empty() || !malformed.is_empty();
        let keep = if req.gc_only {
            !gc.is_empty()
                || (!malformed.is_empty()
                    && (matches!(target, Target::Workspace) || !paths.is_empty()))
        } else {
            !paths.is_empty() || (has_trailer && matches!(target, Target::Workspace))
        };
        if !keep {
            continue;
        }
        let mut order: Vec<usize> = (0..paths.len()).collect();
        order.sort_by(|&a, &b| paths[a].cmp(&paths[b]));
        out.push(LogCommit {
            id: c.id.to_string(),
            time: rfc3339_offset(c.seconds, c.offset),
            summary: c.summary().to_string(),
            paths: order.iter().map(|&i| paths[i].clone()).collect(),
            status: order.iter().map(|&i| status[i]).collect(),
            gc,
            malformed,
        });
    }
    if let (true, Target::Paths(paths), Some(word)) = (out.is_empty(), &target, &req.record) {
        if paths.iter().all(|p| !ws.root.join(p).exists()) {
            return Err(GitError::Unknown(format!(
                "`{word}` names no record: no such file, and no commit of the history touched it"
            )));
        }
    }
    if let Some(word) = unknown_slug.filter(|_| out.is_empty()) {
        // A slug of hex digits may have been meant as a commit id.
        let hex = word.len() >= 4 && word.bytes().all(|b| b.is_ascii_hexdigit());
        let revision = match repo.resolve(&word) {
            Err(GitError::UnknownRevision { hint, .. }) if hex => {
                format!("; nor is it a revision{hint}")
            }
            _ => String::new(),
        };
        return Err(GitError::Unknown(format!(
            "`{word}` names no record: no file of the workspace at HEAD has that slug, and no commit of the history touched one{revision}"
        )));
    }
    Ok(Log { commits: out })
}

/// Tips and hidden commits of a range.
fn range(
    repo: &Repo,
    spec: &str,
    head: ObjectId,
) -> Result<(Vec<ObjectId>, Vec<ObjectId>), GitError> {
    let side = |s: &str| -> Result<ObjectId, GitError> {
        if s.is_empty() {
            Ok(head)
        } else {
            repo.resolve(s)
        }
    };
    let (a, b, three) = match (spec.split_once("..."), spec.split_once("..")) {
        (Some((a, b)), _) => (a, b, true),
        (None, Some((a, b))) => (a, b, false),
        (None, None) => return Ok((vec![repo.resolve(spec)?], vec![])),
    };
    if a.contains("..") || b.contains("..") {
        return Err(GitError::Unknown(format!(
            "`{spec}` is not a range: write `A..B` (the commits of B not in A) or `A...B` (of either, not both)"
        )));
    }
    if three {
        let (a, b) = (side(a)?, side(b)?);
        let base = repo.merge_base(a, b, spec)?;
        return Ok((vec![a, b], vec![base]));
    }
    Ok((vec![side(b)?], vec![side(a)?]))
}

/// The record `word` names: a path relative to the current directory (or
/// the root), or a slug; and whether it is certainly a record (a path, or
/// the slug of a record at HEAD).
fn record_target(
    repo: &Repo,
    ws: &Workspace,
    word: &str,
    head: ObjectId,
) -> Result<(Target, bool), GitError> {
    let is_record = |r: &str| {
        matches!(
            classify(r, &ws.config.banned_dirs),
            Place::Record(_) | Place::Context
        )
    };
    let rel = crate::io::walk::relative(ws, std::path::Path::new(word));
    if let Some(rel) = rel.filter(|r| is_record(r)) {
        return Ok((Target::Paths(BTreeSet::from([rel])), true));
    }
    if is_record(word) {
        return Ok((Target::Paths(BTreeSet::from([word.to_string()])), true));
    }
    let slug = word.trim_end_matches(".md");
    let valid = crate::model::kind::is_slug(slug)
        || crate::model::kind::is_session_id(slug)
        || crate::model::kind::is_staging_id(slug);
    if !valid {
        return match repo.resolve(word) {
            Ok(_) => Ok((Target::Workspace, false)),
            Err(GitError::UnknownRevision { hint, .. }) => Err(GitError::Unknown(format!(
                "`{word}` is neither a record (a path inside the workspace or a slug) nor a revision{hint}"
            ))),
            Err(e) => Err(e),
        };
    }
    // A slug shared by records of several kinds at HEAD is ambiguous.
    let head_paths = repo.flatten(repo.tree_of(head)?)?;
    let matches: Vec<&str> = head_paths
        .iter()
        .map(|(p, _)| p.as_str())
        .filter(|p| {
            crate::model::kind::stem(p) == slug
                && matches!(classify(p, &ws.config.banned_dirs), Place::Record(_))
        })
        .collect();
    if matches.len() > 1 {
        return Err(GitError::Unknown(format!(
            "`{slug}` names several records ({}); give the path",
            matches.join(", ")
        )));
    }
    Ok((
        Target::Slug(slug.to_string(), BTreeSet::new()),
        !matches.is_empty(),
    ))
}

/// What a commit changed under the root. A merge counts only the paths it
/// changed relative to every parent (as `git log` simplifies history).
fn commit_changes(repo: &Repo, c: &CommitInfo) -> Result<Vec<Change>, GitError> {
    let Some((first, others)) = c.parents.split_first() else {
        return repo.diff_trees(None, Some(c.tree));
    };
    let parent_tree = |id: &ObjectId| repo.tree_of(*id);
    let mut changes = repo.diff_trees(Some(parent_tree(first)?), Some(c.tree))?;
    for p in others {
        let other: HashSet<String> = repo
            .diff_trees(Some(parent_tree(p)?), Some(c.tree))?
            .into_iter()
            .map(|ch| ch.path)
            .collect();
        changes.retain(|ch| other.contains(&ch.path));
    }
    Ok(changes)
}

/// Human output of `memlint log`: commit messages and file names with
/// secrets masked and control characters shown as symbols.
pub(crate) fn render_human(log: &Log) -> String {
    use crate::syntax::sanitize::line;
    let mut out = String::new();
    for c in &log.commits {
        out.push_str(&format!(
            "{} {} {}\n",
            &c.id[..7.min(c.id.len())],
            c.time,
            line(&c.summary)
        ));
        for (p, s) in c.paths.iter().zip(&c.status) {
            out.push_str(&format!("    {s} {}\n", line(p)));
        }
        for op in &c.gc {
            out.push_str(&format!("    {TRAILER}: {}\n", line(&op.value())));
        }
        for m in &c.malformed {
            out.push_str(&format!(
                "    malformed {TRAILER} trailer: `{}`: {}\n",
                line(&m.line),
                line(&m.reason)
            ));
        }
    }
    out
}

/// JSON output of `memlint log` (docs/commands.md), secrets masked.
pub(crate) fn render_json(log: &Log) -> String {
    crate::syntax::sanitize::json(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_example() {
        let op = parse_trailer(
            " merge memory/decisions/use-gix-v2 into memory/decisions/use-gix superseded",
        )
        .expect("valid");
        assert_eq!(op.op, "merge");
        assert_eq!(op.record, "memory/decisions/use-gix-v2");
        assert_eq!(op.into.as_deref(), Some("memory/decisions/use-gix"));
        assert_eq!(op.categories, vec!["superseded"]);
        assert!(op.names("memory/decisions/use-gix-v2.md"));
        assert!(op.is_on("memory/decisions/use-gix-v2.md"));
        // The record merged into survives: its removal is not explained.
        assert!(!op.is_on("memory/decisions/use-gix.md"));
    }

    #[test]
    fn any_removed_record_can_be_named() {
        for value in [
            "drop memory/summary outdated",
            "drop memory/decisions/Bad_Name noisy",
            "drop staging/whatever unused",
        ] {
            let op = parse_trailer(value).unwrap_or_else(|e| panic!("{value}: {e}"));
            assert!(op.is_on(&format!("{}.md", op.record)));
        }
    }

    #[test]
    fn several_categories() {
        let op = parse_trailer("drop knowledge/mmap-pitfalls outdated,noisy").expect("valid");
        assert_eq!(op.categories, vec!["outdated", "noisy"]);
        let op = parse_trailer("trim knowledge/mmap-pitfalls outdated, noisy").expect("valid");
        assert_eq!(op.categories, vec!["outdated", "noisy"]);
    }

    #[test]
    fn malformed_trailers() {
        for (value, why) in [
            ("", "empty"),
            ("delete memory/decisions/x outdated", "unknown operation"),
            ("drop memory/decisions/x", "no reason category"),
            ("drop memory/decisions/x.md outdated", "without `.md`"),
            ("drop memory/notes/x outdated", "not a record directory"),
            ("drop memory/decisions/ outdated", "names no record"),
            ("merge memory/decisions/x superseded", "needs the record"),
            ("drop memory/decisions/x stale", "unknown reason category"),
            (
                "drop memory/decisions/x outdated noisy",
                "separate reason categories",
            ),
            ("drop decisions outdated", "not `<kind-dir>/<slug>`"),
        ] {
            let err = parse_trailer(value).expect_err(value);
            assert!(err.contains(why), "{value}: {err}");
        }
    }

    #[test]
    fn finds_trailers_in_a_message() {
        let msg = "Tidy up memory\n\nBody text mentioning Memlint-GCs.\n\nMemlint-GC: drop memory/decisions/a outdated\nmemlint-gc: trim knowledge/b noisy\nMemlint-GC drop memory/decisions/c unused\nSigned-off-by: x\n";
        let (ops, bad) = trailers(msg);
        assert_eq!(ops.len(), 2);
        assert_eq!(bad.len(), 1);
        assert!(bad[0].reason.contains("`:`"));
    }

    #[test]
    fn times_keep_their_offset() {
        assert_eq!(rfc3339_offset(0, 0), "1970-01-01T00:00:00+00:00");
        assert_eq!(rfc3339_offset(0, 9 * 3600), "1970-01-01T09:00:00+09:00");
        assert_eq!(
            rfc3339_offset(0, -(5 * 3600 + 1800)),
            "1969-12-31T18:30:00-05:30"
        );
    }

    #[test]
    fn log_words() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let r = parse_log_args(&w(&["use-gix", "main..HEAD"])).expect("ok");
        assert_eq!(r.record.as_deref(), Some("use-gix"));
        assert_eq!(r.range.as_deref(), Some("main..HEAD"));
        let r = parse_log_args(&w(&["HEAD~3.."])).expect("ok");
        assert_eq!(r.record, None);
        assert!(parse_log_args(&w(&["a", "b", "c"])).is_err());
    }
}
