//! `.memlint/drift-judged`: what `sources/drifted` last concluded of each
//! record citing a file, and the files each conclusion read (the record
//! itself, its cited files, where they were renamed to), with their stat
//! data and git blob id. The whole file is keyed by HEAD, the workspace's
//! place in the repository and the configuration key
//! ([`crate::io::cache::key`]): a commit, a rebase, a reset or an amend
//! (HEAD moved), a new configuration or another memlint judges every
//! record again. Within one key, a record is judged again only when one of
//! the files its conclusion read has another blob id now; a file whose
//! stat data are those stored (and not racily close to the run that stored
//! them) keeps its stored id without being read. The strings findings
//! repeat (messages, commit ids, rule names, fix texts) are stored once,
//! in a table the findings point into.

use crate::io::cache::DIR;
use crate::io::cache::FORMAT;
use crate::io::stat::Stat;
use crate::model::diagnostic::{Commits, Diagnostic};
use crate::model::hashing::Map;
use crate::model::rule::Rule;
use crate::model::severity::Severity;
use crate::model::workspace::Workspace;
use crate::store::codec::{checked, Reader, Writer};
use gix::ObjectId;
use std::ops::Range;
use std::path::Path;

/// The cache's name inside [`DIR`].
pub(crate) const JUDGED: &str = "drift-judged";

/// The third layout: the repeated strings in one table, the lists of
/// commit ids in another.
const MAGIC: &[u8; 8] = b"MLJUDGE4";

/// A file a conclusion read: its path, stat data and blob id then (`None`
/// when it could not be read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Known {
    pub path: String,
    pub stat: Option<Stat>,
    pub id: Option<ObjectId>,
}

/// A rewrite `--fix` makes to a source entry (see
/// `engine::drift::SourceFix`; the record is the verdict's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fix {
    pub span: Range<usize>,
    pub old: String,
    pub new: String,
}

/// Why a record was not judged, if it was not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unjudged {
    No,
    Uncommitted,
    Shallow,
    /// A source names what cannot be read as a file: a directory, or
    /// lines of a file over the size memlint reads.
    Unreadable,
    /// A source names a file git holds no version of (untracked, ignored,
    /// or only added): not in HEAD, touched by no commit since the record.
    NotCommitted,
}

/// What was concluded of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// The record, root-relative.
    pub path: String,
    /// The files the conclusion read: indexes into [`Header::files`].
    pub deps: Vec<usize>,
    pub diagnostics: Vec<Diagnostic>,
    pub fixes: Vec<Fix>,
    /// The drift marks of the record (see `engine::drift_marks`).
    pub marks: Vec<crate::store::drift_marks::DriftMark>,
    pub unjudged: Unjudged,
}

/// What the stored conclusions were drawn from: the head of the file,
/// written by [`save`] and read by [`load`] before the verdicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    /// The configuration key ([`crate::io::cache::key`]).
    pub key: u64,
    /// HEAD when they were drawn.
    pub head: ObjectId,
    /// The workspace root's place in the work tree.
    pub prefix: String,
    /// When the run that drew them started (ns since the epoch): a file
    /// modified this close to it is read again.
    pub started: i64,
    pub files: Vec<Known>,
}

impl Header {
    fn write(&self, w: &mut Writer) {
        w.uint(self.key);
        id(w, Some(&self.head));
        w.str(&self.prefix);
        w.int(self.started);
        w.usize(self.files.len());
        for f in &self.files {
            w.str(&f.path);
            w.opt_stat(f.stat.as_ref());
            id(w, f.id.as_ref());
        }
    }

    fn read(r: &mut Reader) -> Option<Header> {
        let key = r.uint()?;
        let head = read_id(r)??;
        let prefix = r.str()?;
        let started = r.int()?;
        let n = r.count()?;
        let mut files = Vec::with_capacity(n);
        for _ in 0..n {
            files.push(Known {
                path: r.str()?,
                stat: r.opt_stat()?,
                id: read_id(r)?,
            });
        }
        Some(Header {
            key,
            head,
            prefix,
            started,
            files,
        })
    }
}

/// The stored conclusions, if there are readable ones: the files
/// decoded, the verdicts only located (see [`Stored`]).
pub(crate) fn load(root: &Path) -> Option<Stored> {
    // Mapped, not copied into fresh memory: 7 MB on the 100k workspace.
    let bytes = crate::io::map::map_regular(&root.join(DIR).join(JUDGED)).ok()?;
    Stored::of(bytes)
}

/// The stored conclusions as read: the files decoded, each verdict only
/// located (its record, the files it read, whether it says anything)
/// until [`Stored::verdict`] decodes it. A warm check reuses the verdicts
/// of 41k records on the 100k workspace, most of which say nothing;
/// decoding every one into owned strings, to drop most of them, was a
/// third of the rule's time. The whole file is still checked when read:
/// a damaged one is refused whole, and decoding a located verdict cannot
/// fail.
pub(crate) struct Stored {
    pub header: Header,
    bytes: crate::io::map::Mapped,
    /// The repeated strings, as ranges of `bytes`.
    table: Vec<Range<usize>>,
    /// The lists of commit ids: each a range of `list_items` (indexes
    /// into `table`).
    lists: Vec<Range<usize>>,
    list_items: Vec<usize>,
    /// The files each verdict read, one verdict's after the other's
    /// (indexes into `files`).
    deps: Vec<usize>,
    /// Sorted by path.
    verdicts: Vec<Located>,
}

/// Where one stored verdict is.
struct Located {
    /// Its record, a range of `bytes`.
    path: Range<usize>,
    /// Its files, a range of [`Stored::deps`].
    deps: Range<usize>,
    unjudged: Unjudged,
    /// Where its findings start in `bytes`.
    findings: usize,
    /// Whether it holds a finding, fix or mark.
    says: bool,
}

impl Stored {
    /// Reads `bytes` (see [`Stored`]); `None` when damaged or of another
    /// layout.
    fn of(bytes: crate::io::map::Mapped) -> Option<Stored> {
        let mut r = checked(&bytes, MAGIC)?;
        let header = Header::read(&mut r)?;
        let n = r.count()?;
        let mut table = Vec::with_capacity(n);
        let mut strings = Vec::with_capacity(n);
        for _ in 0..n {
            let s = r.str_ref()?;
            table.push(r.pos - s.len()..r.pos);
            strings.push(s);
        }
        let n = r.count()?;
        let mut lists = Vec::with_capacity(n);
        let mut list_items = Vec::new();
        for _ in 0..n {
            let start = list_items.len();
            for _ in 0..r.count()? {
                let i = r.usize()?;
                if i >= strings.len() {
                    return None;
                }
                list_items.push(i);
            }
            lists.push(start..list_items.len());
        }
        let n = r.count()?;
        let mut deps = Vec::new();
        let mut verdicts = Vec::with_capacity(n);
        // Locating checks the lists' indexes; they are built when decoded.
        let unbuilt = vec![Commits::default(); lists.len()];
        let tables = Tables {
            strings: &strings,
            lists: &unbuilt,
        };
        for _ in 0..n {
            verdicts.push(locate_verdict(
                &mut r,
                &tables,
                header.files.len(),
                &mut deps,
            )?);
        }
        drop(unbuilt);
        if !r.at_end() {
            return None;
        }
        drop(strings);
        Some(Stored {
            header,
            table,
            lists,
            list_items,
            deps,
            verdicts,
            bytes,
        })
    }

    /// How many verdicts are stored.
    pub(crate) fn len(&self) -> usize {
        self.verdicts.len()
    }

    /// The record of verdict `i`.
    pub(crate) fn path(&self, i: usize) -> &str {
        // Checked as UTF-8 when located.
        std::str::from_utf8(&self.bytes[self.verdicts[i].path.clone()]).unwrap_or_default()
    }

    /// The record of verdict `i`, as bytes (compared as they are: the
    /// order of UTF-8 bytes is that of the strings).
    pub(crate) fn path_bytes(&self, i: usize) -> &[u8] {
        &self.bytes[self.verdicts[i].path.clone()]
    }

    /// The files verdict `i` read (indexes into [`Stored::files`]).
    pub(crate) fn deps(&self, i: usize) -> &[usize] {
        &self.deps[self.verdicts[i].deps.clone()]
    }

    /// Whether verdict `i` holds a finding, a fix or a mark, or says why
    /// its record was not judged.
    pub(crate) fn says(&self, i: usize) -> bool {
        let v = &self.verdicts[i];
        v.says || v.unjudged != Unjudged::No
    }

    /// The verdicts at `indexes`, decoded, in the order given.
    pub(crate) fn decoded(&self, indexes: impl Iterator<Item = usize>) -> Vec<Verdict> {
        // Checked as UTF-8 when located.
        let table: Vec<&str> = self
            .table
            .iter()
            .map(|t| std::str::from_utf8(&self.bytes[t.clone()]).unwrap_or_default())
            .collect();
        // Each list once, shared by the findings naming it.
        let lists: Vec<Commits> = self
            .lists
            .iter()
            .map(|l| {
                let items = &self.list_items[l.clone()];
                items.iter().map(|&i| table[i].to_string()).collect()
            })
            .collect();
        let tables = Tables {
            strings: &table,
            lists: &lists,
        };
        indexes
            .map(|i| {
                let at = &self.verdicts[i];
                let path = self.path(i).to_string();
                let mut r = Reader {
                    buf: &self.bytes,
                    pos: at.findings,
                };
                // Read through once when located: they decode.
                let (found, _) = read_findings(&mut r, &tables, Some(&path)).unwrap_or_default();
                Verdict {
                    deps: self.deps(i).to_vec(),
                    path,
                    diagnostics: found.diagnostics,
                    fixes: found.fixes,
                    marks: found.marks,
                    unjudged: at.unjudged,
                }
            })
            .collect()
    }
}

/// Stores the conclusions; a cache, so a failure to write is ignored (the
/// next run judges again).
///
/// `judged.verdicts` is not read: the verdicts stored are `verdicts`, each
/// with the files its conclusion read (indexes into `judged.files`),
/// borrowed from the run's own (a cold check on 100k records copied
/// 41k verdicts and their findings only to store them).
pub(crate) fn save(ws: &Workspace, header: &Header, verdicts: &[(&Verdict, Vec<usize>)]) {
    let _ = crate::io::cache::make_dir(&ws.root).and_then(|dir| {
        crate::io::fs::write_cache(&dir.join(JUDGED), &encode_parts(header, verdicts))
    });
}

fn id(w: &mut Writer, id: Option<&ObjectId>) {
    match id {
        None => w.usize(0),
        Some(id) => {
            let bytes = id.as_bytes();
            w.usize(bytes.len());
            w.buf.extend_from_slice(bytes);
        }
    }
}

fn read_id(r: &mut Reader) -> Option<Option<ObjectId>> {
    match r.usize()? {
        0 => Some(None),
        n => Some(Some(ObjectId::try_from(r.bytes(n)?).ok()?)),
    }
}

/// The strings verdicts repeat (messages, commit ids, rule names, the
/// source entries a fix rewrites), each stored once: many records citing
/// one file draw the same message naming the same commits.
/// The lists of commit ids likewise: the findings of the records citing
/// one file share one list (a hundred ids when a hundred commits changed
/// it), found again by where it is before what it holds.
#[derive(Default)]
struct Strings<'a> {
    index: Map<&'a str, usize>,
    all: Vec<&'a str>,
    list_at: Map<*const String, usize>,
    list_index: Map<&'a [String], usize>,
    lists: Vec<&'a [String]>,
}

impl<'a> Strings<'a> {
    fn of(&mut self, s: &'a str) -> usize {
        *self.index.entry(s).or_insert_with(|| {
            self.all.push(s);
            self.all.len() - 1
        })
    }

    /// The index of list `l`, plus one (0 for no commits).
    fn list(&mut self, l: &'a Commits) -> usize {
        if l.is_empty() {
            return 0;
        }
        let at = l.as_ptr();
        if let Some(&i) = self.list_at.get(&at) {
            return i + 1;
        }
        let i = match self.list_index.get(&l[..]) {
            Some(&i) => i,
            None => {
                for c in l.iter() {
                    self.of(c);
                }
                self.lists.push(&l[..]);
                self.list_index.insert(&l[..], self.lists.len() - 1);
                self.lists.len() - 1
            }
        };
        self.list_at.insert(at, i);
        i + 1
    }

    /// The index [`Strings::list`] gave list `l`, plus one.
    fn list_of(&self, l: &Commits) -> usize {
        match l.is_empty() {
            true => 0,
            false => self.list_at[&l.as_ptr()] + 1,
        }
    }
}

/// The tables a verdict's findings are read with.
struct Tables<'t, 'a> {
    strings: &'t [&'a str],
    lists: &'t [Commits],
}

/// Interns the strings of the verdicts.
fn strings<'a>(verdicts: &[(&'a Verdict, Vec<usize>)]) -> Strings<'a> {
    let mut t = Strings::default();
    for (v, _) in verdicts {
        for d in &v.diagnostics {
            t.of(d.rule.as_str());
            t.of(&d.message);
            t.list(&d.commits);
        }
        for f in &v.fixes {
            t.of(&f.old);
            t.of(&f.new);
        }
        for m in &v.marks {
            t.of(&m.source);
            for s in [&m.commit, &m.date].into_iter().flatten() {
                t.of(s);
            }
        }
    }
    t
}

/// An optional interned string: 0 for none, else its index plus one.
fn opt_string(w: &mut Writer, t: &Strings, s: Option<&String>) {
    w.usize(s.map_or(0, |s| t.index[s.as_str()] + 1));
}

fn read_opt_index<'a>(r: &mut Reader, table: &[&'a str]) -> Option<Option<&'a str>> {
    match r.usize()? {
        0 => Some(None),
        i => Some(Some(table.get(i - 1)?)),
    }
}

fn diagnostic(w: &mut Writer, t: &Strings, d: &Diagnostic) {
    w.usize(t.index[d.rule.as_str()]);
    w.u8(match d.severity {
        Severity::Warning => 0,
        Severity::Error => 1,
    });
    w.usize(d.line);
    w.usize(d.column);
    w.usize(d.end_line);
    w.usize(d.end_column);
    w.span(&d.span);
    w.usize(t.index[d.message.as_str()]);
    w.u8(u8::from(d.fixable));
    w.usize(d.omitted);
    w.usize(t.list_of(&d.commits));
}

/// A string of the table by its stored index.
fn read_string<'a>(r: &mut Reader, table: &[&'a str]) -> Option<&'a str> {
    table.get(r.usize()?).copied()
}

/// Reads one diagnostic of the verdict of record `path`; with no
/// `path`, only checks it (`Some(None)`).
fn read_diagnostic(
    r: &mut Reader,
    tables: &Tables,
    path: Option<&str>,
) -> Option<Option<Diagnostic>> {
    let table = tables.strings;
    let rule = Rule::from_name(read_string(r, table)?)?;
    let severity = match r.u8()? {
        0 => Severity::Warning,
        1 => Severity::Error,
        _ => return None,
    };
    let (line, column, end_line, end_column) = (r.usize()?, r.usize()?, r.usize()?, r.usize()?);
    let span = r.span()?;
    let message = read_string(r, table)?;
    let fixable = r.flag()?;
    let omitted = r.usize()?;
    let commits = match r.usize()? {
        0 => Commits::default(),
        i => tables.lists.get(i - 1)?.clone(),
    };
    let Some(path) = path else {
        return Some(None);
    };
    Some(Some(Diagnostic {
        rule,
        severity,
        path: path.to_string(),
        line,
        column,
        end_line,
        end_column,
        message: message.to_string(),
        fixable,
        span,
        omitted,
        commits,
    }))
}

#[cfg(test)]
fn encode(h: &Header, verdicts: &[Verdict]) -> Vec<u8> {
    let verdicts: Vec<(&Verdict, Vec<usize>)> =
        verdicts.iter().map(|v| (v, v.deps.clone())).collect();
    encode_parts(h, &verdicts)
}

/// At least as many bytes as [`encode_parts`] writes (each integer in at
/// most ten), so that the buffer is allocated once and never copied to a
/// larger one: the pages it does not fill are never touched.
fn encoded_size(h: &Header, t: &Strings, verdicts: &[(&Verdict, Vec<usize>)]) -> usize {
    const INT: usize = 10;
    let files: usize = h.files.iter().map(|f| f.path.len() + 8 * INT).sum();
    let strings: usize = t.all.iter().map(|s| s.len() + INT).sum();
    let lists: usize = t.lists.iter().map(|l| (l.len() + 1) * INT).sum();
    let verdicts: usize = verdicts
        .iter()
        .map(|(v, deps)| {
            let diagnostics: usize = v.diagnostics.iter().map(|_| 12 * INT).sum();
            v.path.len()
                + 6 * INT
                + deps.len() * INT
                + diagnostics
                + v.fixes.len() * 4 * INT
                + v.marks.len() * 3 * INT
        })
        .sum();
    64 + h.prefix.len() + 6 * INT + files + strings + lists + verdicts
}

fn encode_parts(h: &Header, verdicts: &[(&Verdict, Vec<usize>)]) -> Vec<u8> {
    let t = strings(verdicts);
    let mut w = Writer {
        buf: Vec::with_capacity(encoded_size(h, &t, verdicts)),
    };
    w.buf.extend_from_slice(MAGIC);
    w.buf.extend_from_slice(&FORMAT.to_le_bytes());
    h.write(&mut w);
    w.usize(t.all.len());
    for s in &t.all {
        w.str(s);
    }
    w.usize(t.lists.len());
    for l in &t.lists {
        w.usize(l.len());
        for c in l.iter() {
            w.usize(t.index[c.as_str()]);
        }
    }
    w.usize(verdicts.len());
    for (v, deps) in verdicts {
        w.str(&v.path);
        w.u8(match v.unjudged {
            Unjudged::No => 0,
            Unjudged::Uncommitted => 1,
            Unjudged::Shallow => 2,
            Unjudged::Unreadable => 3,
            Unjudged::NotCommitted => 4,
        });
        w.usize(deps.len());
        for d in deps {
            w.usize(*d);
        }
        w.usize(v.diagnostics.len());
        for d in &v.diagnostics {
            diagnostic(&mut w, &t, d);
        }
        w.usize(v.fixes.len());
        for f in &v.fixes {
            w.span(&f.span);
            w.usize(t.index[f.old.as_str()]);
            w.usize(t.index[f.new.as_str()]);
        }
        w.usize(v.marks.len());
        for m in &v.marks {
            w.usize(t.index[m.source.as_str()]);
            opt_string(&mut w, &t, m.commit.as_ref());
            opt_string(&mut w, &t, m.date.as_ref());
        }
    }
    w.finish()
}

/// The header and every stored verdict decoded.
#[cfg(test)]
fn decode(bytes: &[u8]) -> Option<(Header, Vec<Verdict>)> {
    let stored = Stored::of(crate::io::map::Mapped::Read(bytes.to_vec()))?;
    let verdicts = stored.decoded(0..stored.len());
    Some((stored.header, verdicts))
}

/// Locates the verdict `r` is at (see [`Stored`]): its files join `deps`
/// (each below `files`), its findings are checked and read past.
fn locate_verdict(
    r: &mut Reader,
    tables: &Tables,
    files: usize,
    deps: &mut Vec<usize>,
) -> Option<Located> {
    let path = r.str_ref()?;
    let path = r.pos - path.len()..r.pos;
    let unjudged = match r.u8()? {
        0 => Unjudged::No,
        1 => Unjudged::Uncommitted,
        2 => Unjudged::Shallow,
        3 => Unjudged::Unreadable,
        4 => Unjudged::NotCommitted,
        _ => return None,
    };
    let start = deps.len();
    for _ in 0..r.count()? {
        let d = r.usize()?;
        if d >= files {
            return None;
        }
        deps.push(d);
    }
    let findings = r.pos;
    let (_, says) = read_findings(r, tables, None)?;
    Some(Located {
        path,
        deps: start..deps.len(),
        unjudged,
        findings,
        says,
    })
}

/// A verdict's findings, fixes and marks.
#[derive(Default)]
struct Findings {
    diagnostics: Vec<Diagnostic>,
    fixes: Vec<Fix>,
    marks: Vec<crate::store::drift_marks::DriftMark>,
}

/// Reads the findings, fixes and marks of the verdict of record `path`,
/// and whether there is any; with no `path`, only checks them (and
/// leaves [`Findings`] empty).
fn read_findings(r: &mut Reader, tables: &Tables, path: Option<&str>) -> Option<(Findings, bool)> {
    let table = tables.strings;
    let mut out = Findings::default();
    let diagnostics = r.count()?;
    if path.is_some() {
        out.diagnostics.reserve_exact(diagnostics);
    }
    for _ in 0..diagnostics {
        out.diagnostics.extend(read_diagnostic(r, tables, path)?);
    }
    let fixes = r.count()?;
    for _ in 0..fixes {
        let (span, old, new) = (r.span()?, read_string(r, table)?, read_string(r, table)?);
        if path.is_some() {
            out.fixes.push(Fix {
                span,
                old: old.to_string(),
                new: new.to_string(),
            });
        }
    }
    // Only a record's first mark is shown (`engine::drift_marks`): the
    // others are read past (a file written before kept them all).
    let marks = r.count()?;
    for k in 0..marks {
        let source = read_string(r, table)?;
        let (commit, date) = (read_opt_index(r, table)?, read_opt_index(r, table)?);
        if k == 0 && path.is_some() {
            out.marks.push(crate::store::drift_marks::DriftMark {
                source: source.to_string(),
                commit: commit.map(str::to_string),
                date: date.map(str::to_string),
            });
        }
    }
    Some((out, diagnostics + fixes + marks > 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_conclusions_read_back_and_damage_is_refused() {
        let a = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        let header = Header {
            // The largest integers take the most bytes (ten each).
            key: u64::MAX,
            head: a,
            prefix: "sub/".into(),
            started: i64::MIN,
            files: vec![
                Known {
                    path: "knowledge/a.md".into(),
                    stat: Some(Stat {
                        size: u64::MAX,
                        mtime: i64::MIN,
                        ctime: i64::MAX,
                        ino: u64::MAX,
                    }),
                    id: Some(a),
                },
                Known {
                    path: "src/gone.rs".into(),
                    stat: None,
                    id: None,
                },
            ],
        };
        let verdicts = vec![Verdict {
            path: "knowledge/a.md".into(),
            deps: vec![0, 1],
            diagnostics: vec![Diagnostic {
                rule: Rule::SourcesDrifted,
                severity: Severity::Warning,
                path: "knowledge/a.md".into(),
                line: usize::MAX,
                column: usize::MAX,
                end_line: 4,
                end_column: 20,
                message: "changed".into(),
                fixable: true,
                span: 30..45,
                omitted: 0,
                commits: ["0123".to_string()].into(),
            }],
            fixes: vec![Fix {
                span: 30..45,
                old: "file:a#L1-2".into(),
                new: "file:a#L3-4".into(),
            }],
            marks: vec![
                crate::store::drift_marks::DriftMark {
                    source: "file:a#L1-2".into(),
                    commit: Some("0123".into()),
                    date: Some("2026-12-01".into()),
                },
                crate::store::drift_marks::DriftMark {
                    source: "file:b".into(),
                    commit: None,
                    date: None,
                },
            ],
            unjudged: Unjudged::No,
        }];
        let bytes = encode(&header, &verdicts);
        // Written into one buffer allocated at its size, never regrown.
        let parts: Vec<(&Verdict, Vec<usize>)> =
            verdicts.iter().map(|v| (v, v.deps.clone())).collect();
        let t = strings(&parts);
        assert_eq!(bytes.capacity(), encoded_size(&header, &t, &parts));
        // Only the first mark of a record is read back.
        let mut first = verdicts.clone();
        first[0].marks.truncate(1);
        assert_eq!(decode(&bytes), Some((header.clone(), first.clone())));
        assert_eq!(
            decode(&encode(&header, &first)),
            Some((header.clone(), first))
        );
        let mut bad = encode(&header, &verdicts);
        bad[14] ^= 1;
        assert!(decode(&bad).is_none());
    }

    /// A `sources/drifted` finding of `path` naming `commits`.
    fn changed(path: &str, commits: Commits) -> Diagnostic {
        Diagnostic {
            rule: Rule::SourcesDrifted,
            severity: Severity::Warning,
            path: path.into(),
            line: 6,
            column: 5,
            end_line: 6,
            end_column: 20,
            message: "`file:src/a.rs` changed".into(),
            fixable: false,
            span: 40..55,
            omitted: 0,
            commits,
        }
    }

    /// A list of commits is stored once, whether the findings naming it
    /// share it or hold equal copies, and decoded once: the findings read
    /// back share one list, in its order; other lists stay apart.
    #[test]
    fn lists_of_commits_are_stored_and_read_back_once() {
        let a = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        let ids = |n: usize| -> Commits { (0..n).rev().map(|i| format!("{i:040x}")).collect() };
        let (shared, other) = (ids(100), ids(3));
        let finding = |path: &str, commits: &Commits| changed(path, commits.clone());
        let verdict = |path: &str, diagnostics: Vec<Diagnostic>| Verdict {
            path: path.into(),
            deps: Vec::new(),
            diagnostics,
            fixes: Vec::new(),
            marks: Vec::new(),
            unjudged: Unjudged::No,
        };
        let verdicts = vec![
            verdict("memory/a.md", vec![finding("memory/a.md", &shared)]),
            verdict(
                "memory/b.md",
                vec![
                    finding("memory/b.md", &shared),
                    finding("memory/b.md", &ids(100)),
                    finding("memory/b.md", &Commits::default()),
                ],
            ),
            verdict("memory/c.md", vec![finding("memory/c.md", &other)]),
        ];
        let header = Header {
            key: 1,
            head: a,
            prefix: String::new(),
            started: 0,
            files: Vec::new(),
        };
        let bytes = encode(&header, &verdicts);
        let (_, back) = decode(&bytes).expect("decodes");
        assert_eq!(back, verdicts);
        let list = |v: usize, d: usize| &back[v].diagnostics[d].commits;
        assert!(std::sync::Arc::ptr_eq(list(0, 0), list(1, 0)));
        assert!(std::sync::Arc::ptr_eq(list(0, 0), list(1, 1)));
        assert!(!std::sync::Arc::ptr_eq(list(0, 0), list(2, 0)));
        // Naming a list stored already costs what naming none does.
        let mut fewer = verdicts.clone();
        for d in &mut fewer[1].diagnostics[..2] {
            d.commits = Commits::default();
        }
        assert_eq!(bytes.len(), encode(&header, &fewer).len());
    }

    /// A verdict that says nothing is located but never decoded; those
    /// asked for are decoded whole, with the files they read, whatever
    /// the verdicts around them hold.
    #[test]
    fn located_verdicts_decode_only_those_asked_for() {
        let a = ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").unwrap();
        let quiet = |path: &str, deps: Vec<usize>| Verdict {
            path: path.into(),
            deps,
            diagnostics: Vec::new(),
            fixes: Vec::new(),
            marks: Vec::new(),
            unjudged: Unjudged::No,
        };
        let finding = changed("memory/b.md", ["0123".to_string()].into());
        let header = Header {
            key: 1,
            head: a,
            prefix: String::new(),
            started: 0,
            files: vec![Known {
                path: "src/a.rs".into(),
                stat: None,
                id: Some(a),
            }],
        };
        let verdicts = vec![
            quiet("memory/a.md", vec![0]),
            Verdict {
                diagnostics: vec![finding],
                ..quiet("memory/b.md", vec![0])
            },
            Verdict {
                unjudged: Unjudged::Shallow,
                ..quiet("memory/c.md", Vec::new())
            },
        ];
        let stored = Stored::of(crate::io::map::Mapped::Read(encode(&header, &verdicts))).unwrap();
        assert_eq!(stored.len(), 3);
        assert_eq!(stored.path(1), "memory/b.md");
        assert_eq!(stored.path_bytes(2), b"memory/c.md");
        assert_eq!(stored.deps(0), &[0]);
        assert_eq!(
            (0..3).map(|i| stored.says(i)).collect::<Vec<_>>(),
            [false, true, true]
        );
        assert_eq!(
            stored.decoded([2, 1].into_iter()),
            vec![verdicts[2].clone(), verdicts[1].clone()]
        );
    }
}
