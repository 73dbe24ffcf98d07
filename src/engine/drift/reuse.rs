//! What `sources/drifted` keeps between runs in the work tree
//! (`.memlint/drift-judged`, [`crate::store::judged`]): the stored verdict
//! of a record is reused while HEAD, the configuration and every file the
//! verdict read (the record, its cited files) are as they were; a file is
//! read again only when its stat data changed or were racily close to the
//! run that stored them.

use super::Judge;
use crate::io::git::Repo;
use crate::io::stat::Stat;
use crate::model::hashing::Map as HashMap;
use crate::model::workspace::Workspace;
use crate::store::judged::{Header, Known, Stored, Verdict};
use gix::ObjectId;

/// A verdict drawn this run and the paths it read (its `deps` empty; a
/// stored verdict keeps its files as indexes into the stored files).
pub(super) type Judgement = (Verdict, Vec<String>);

/// The stored verdicts that may be reused, and what is known of files now.
pub(super) struct Reuse {
    key: u64,
    head: ObjectId,
    prefix: String,
    started: i64,
    /// The stored verdicts, located, not decoded: those that hold are
    /// decoded when they say something ([`Reuse::saying`]) or are stored
    /// again ([`Reuse::save`]).
    stored: Option<Stored>,
    /// (stat now, blob id now) of each stored file, in the order of the
    /// stored files.
    checked: Vec<(Option<Stat>, Option<ObjectId>)>,
    /// Path → (stat now, blob id now) of the files read by this run's
    /// judging; the stored files join them when the verdicts are saved.
    now: HashMap<String, (Option<Stat>, Option<ObjectId>)>,
    /// Whether what is stored differs from what this run concludes.
    changed: bool,
}

/// The stat data a caller already took of some files this run (the record
/// table's), so that they are not stat'ed again.
pub(crate) type Stats<'k> = &'k (dyn Fn(&str) -> Option<Stat> + Sync);

impl Reuse {
    /// The stored verdicts for HEAD `head` and this configuration, their
    /// files checked against the work tree (in parallel); nothing when
    /// `caching` is off.
    pub(super) fn load(
        ws: &Workspace,
        repo: &Repo,
        head: ObjectId,
        caching: bool,
        known: Stats,
    ) -> Reuse {
        let started = crate::io::stat::now_ns();
        let key = crate::io::cache::key(&ws.config);
        let stored = caching
            .then(|| crate::store::judged::load(&ws.root))
            .flatten()
            .filter(|j| {
                let h = &j.header;
                h.key == key && h.head == head && h.prefix == repo.prefix
            });
        let mut out = Reuse {
            key,
            head,
            prefix: repo.prefix.clone(),
            started,
            now: HashMap::default(),
            checked: Vec::new(),
            changed: stored.is_none(),
            stored: None,
        };
        if let Some(j) = stored {
            out.check_files(ws, repo, &j, known);
            out.stored = Some(j);
        }
        out
    }

    /// Fills `now` from the stored files: the stored id where the stat
    /// data match and are not racy, else the file read and hashed again.
    fn check_files(&mut self, ws: &Workspace, repo: &Repo, j: &Stored, known: Stats) {
        use rayon::prelude::*;
        let j = &j.header;
        let mut stats: Vec<Option<Stat>> = j.files.iter().map(|f| known(&f.path)).collect();
        let (at, paths): (Vec<usize>, Vec<&str>) = j
            .files
            .iter()
            .enumerate()
            .filter(|(i, _)| stats[*i].is_none())
            .map(|(i, f)| (i, f.path.as_str()))
            .unzip();
        for (i, stat) in at.into_iter().zip(Stat::many(&ws.root, &paths)) {
            stats[i] = stat;
        }
        let kind = repo.repo.object_hash();
        let now: Vec<(Option<Stat>, Option<ObjectId>, bool)> = j
            .files
            .par_iter()
            .zip(stats)
            .map(|(f, stat)| match (stat, f.stat) {
                (None, None) => (None, None, false),
                (Some(s), Some(old)) if s == old && !s.racy(j.started) => (Some(s), f.id, false),
                (stat, _) => {
                    let id = crate::io::source::read_source(&ws.root, &f.path).and_then(|b| {
                        gix::objs::compute_hash(kind, gix::objs::Kind::Blob, &b).ok()
                    });
                    (stat, id, true)
                }
            })
            .collect();
        self.checked.reserve_exact(now.len());
        for (stat, id, reread) in now {
            self.changed |= reread;
            self.checked.push((stat, id));
        }
    }

    /// The records whose stored verdicts hold (by their index among the
    /// stored verdicts, increasing: they stay here, see
    /// [`Reuse::saying`]), and those to judge.
    pub(super) fn split<'a, T>(
        &mut self,
        by_record: Vec<(&'a str, T)>,
    ) -> (Vec<usize>, Vec<(&'a str, T)>) {
        let Some(stored) = self.stored.as_ref() else {
            return (Vec::new(), by_record);
        };
        // Both sorted by path: the stored verdict of each record is found
        // by one walk over both.
        let mut at = 0;
        let mut leftover = 0usize;
        let (mut kept, mut rest) = (
            Vec::with_capacity(by_record.len()),
            Vec::with_capacity(by_record.len().min(64)),
        );
        let mut stale = 0;
        for (record, sources) in by_record {
            let record_bytes = record.as_bytes();
            while at < stored.len() && stored.path_bytes(at) < record_bytes {
                leftover += 1;
                at += 1;
            }
            let was_stored = at < stored.len() && stored.path_bytes(at) == record_bytes;
            if was_stored {
                at += 1;
            }
            let holds = was_stored
                && stored.deps(at - 1).iter().all(|&d| {
                    let f = &stored.header.files[d];
                    self.checked.get(d).is_some_and(|(_, id)| *id == f.id)
                });
            match holds {
                // Kept as an index into the stored verdicts: decoding or
                // copying every verdict reused was a good part of a warm
                // check.
                true => kept.push(at - 1),
                false => {
                    stale += usize::from(was_stored);
                    rest.push((record, sources));
                }
            }
        }
        leftover += stored.len() - at;
        // A record gone, or no longer citing a file, or judged again: what
        // is stored changes. (A record not stored, judged now, changes it
        // only if it is stored: see [`Reuse::judged`].)
        self.changed |= leftover > 0 || stale > 0;
        (kept, rest)
    }

    /// The stored verdicts at `kept` (from [`Reuse::split`]) that say
    /// something, decoded, sorted by path.
    pub(super) fn saying(&self, kept: &[usize]) -> Vec<Verdict> {
        match &self.stored {
            Some(stored) => stored.decoded(kept.iter().copied().filter(|&i| stored.says(i))),
            None => Vec::new(),
        }
    }

    /// Takes in what this run judged: a verdict that is stored (one of a
    /// record committed as it is, see [`Reuse::save`]) changes the file.
    pub(super) fn judged(&mut self, verdicts: &[Judgement]) {
        self.changed |= verdicts.iter().any(|(v, _)| stored(v));
    }

    /// Takes in the blob ids of the files `judge` read.
    pub(super) fn learn(&mut self, judge: &Judge) {
        for (path, id) in judge.ids.borrow().iter() {
            self.now.entry(path.clone()).or_insert((None, *id)).1 = *id;
        }
    }

    /// Stores the verdicts when they differ from the stored ones. The
    /// verdicts of records not committed as they are (edited since their
    /// last commit, or new) are not stored: judging one needs no history,
    /// and a record being edited would otherwise rewrite the whole file at
    /// every check.
    pub(super) fn save(
        &mut self,
        ws: &Workspace,
        kept: &[usize],
        judged: &[Judgement],
        known: Stats,
    ) {
        if !self.changed {
            return;
        }
        let no_paths: &[String] = &[];
        let (no_files, no_stored) = (Vec::new(), Vec::new());
        let stored_files = self.stored.as_ref().map_or(&no_files, |s| &s.header.files);
        // The verdicts kept are stored again: decoded (only when what is
        // stored changes).
        let reused = match &self.stored {
            Some(stored) => stored.decoded(kept.iter().copied()),
            None => no_stored,
        };
        let mut verdicts: Vec<(&Verdict, &[String])> = reused
            .iter()
            .map(|v| (v, no_paths))
            .chain(judged.iter().map(|(v, deps)| (v, deps.as_slice())))
            .collect();
        verdicts.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        // What is known of the stored files now, under what this run read.
        for (f, (stat, id)) in stored_files.iter().zip(&self.checked) {
            match self.now.get_mut(&f.path) {
                Some(known) => known.0 = *stat,
                None => {
                    self.now.insert(f.path.clone(), (*stat, *id));
                }
            }
        }
        let mut index: HashMap<&str, usize> = HashMap::default();
        let mut paths: Vec<&str> = Vec::new();
        let mut out: Vec<(&Verdict, Vec<usize>)> = Vec::with_capacity(verdicts.len());
        for &(v, deps) in verdicts.iter().filter(|(v, _)| stored(v)) {
            let read = v.deps.iter().map(|&d| stored_files[d].path.as_str());
            let deps = read
                .chain(deps.iter().map(String::as_str))
                .map(|p| {
                    *index.entry(p).or_insert_with(|| {
                        paths.push(p);
                        paths.len() - 1
                    })
                })
                .collect();
            out.push((v, deps));
        }
        // The files read for the first time are stat'ed now: a change
        // since they were read shows as a racy stat on the next run. The
        // records have the stat data they were read with (the record
        // table's): a cold check on 100k records stat'ed 41k of them again.
        let mut unknown: Vec<&str> = Vec::new();
        for p in paths.iter().copied() {
            if self.now.get(p).is_some_and(|(s, _)| s.is_some()) {
                continue;
            }
            match known(p) {
                Some(stat) => self.now.entry(p.to_string()).or_insert((None, None)).0 = Some(stat),
                None => unknown.push(p),
            }
        }
        for (p, stat) in unknown.iter().zip(Stat::many(&ws.root, &unknown)) {
            self.now.entry(p.to_string()).or_insert((None, None)).0 = stat;
        }
        let files = paths
            .iter()
            .map(|p| {
                let (stat, id) = self.now.get(*p).copied().unwrap_or((None, None));
                Known {
                    path: p.to_string(),
                    stat,
                    id,
                }
            })
            .collect();
        crate::store::judged::save(
            ws,
            &Header {
                key: self.key,
                head: self.head,
                prefix: self.prefix.clone(),
                started: self.started,
                files,
            },
            &out,
        );
    }
}

/// Whether a verdict is kept in the file: not one of a record that is not
/// committed as it is.
fn stored(v: &Verdict) -> bool {
    v.unjudged != crate::store::judged::Unjudged::Uncommitted
}
