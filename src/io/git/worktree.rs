//! Work-tree copies git vouches for: a file whose stat data match its git
//! index entry holds that blob, so it is read from the disk instead of the
//! object database; [`Tracked`] looks many of them up along the index.

use crate::io::git::repo::Repo;
use gix::bstr::ByteSlice;
use gix::ObjectId;
use std::path::Path;

/// The content of root-relative `rel` read from the work tree, when the
/// file certainly holds blob `id`: the git index vouches for that blob with
/// the file's stat data (see `vouched`), or else the bytes read hash to
/// `id` (a work tree whose stat data git has not refreshed since it was
/// copied or restored: hashing a small file costs far less than decoding
/// its blob from a pack). Reading many files this way runs in parallel and
/// skips pack decoding.
pub(crate) fn work_tree_copy(
    index: &gix::index::File,
    prefix: &str,
    root: &Path,
    rel: &str,
    id: ObjectId,
) -> Option<Vec<u8>> {
    let path = root.join(rel);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let full = format!("{prefix}{rel}");
    let sure = vouched(index, &full, &crate::io::stat::Stat::of(&meta)) == Some(id);
    let bytes = crate::io::fs::read_regular(&path, meta.len()).ok()?;
    (bytes.len() as u64 == meta.len() && (sure || holds_blob(&bytes, id))).then_some(bytes)
}

/// Whether `bytes` are the content of blob `id` (their git blob id is
/// `id`, in `id`'s hash kind).
pub(crate) fn holds_blob(bytes: &[u8], id: ObjectId) -> bool {
    gix::objs::compute_hash(id.kind(), gix::objs::Kind::Blob, bytes).is_ok_and(|h| h == id)
}

/// What the git index says of a file, given its stat data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Said {
    /// The entry vouches for this blob (see `vouched`).
    Vouched(ObjectId),
    /// A plain entry of this blob whose stat data do not vouch for it (the
    /// file changed, or only its stat data did): its content tells.
    Unvouched(ObjectId),
    /// No entry git would vouch with (see `vouched`).
    Nothing,
}

/// The blob id the git index records for `full` (a path from the top of
/// the work tree) when that entry says the file holds it as long as its
/// stat data are `stat`, and those data were not recorded racily: git's
/// test for a clean file, stricter where git compares less (nanoseconds
/// whenever git recorded them). `None` for a file git does not vouch for:
/// untracked, conflicted, intent-to-add, assumed unchanged, outside the
/// sparse checkout, not a regular file, changed since it was staged, or
/// empty (git marks a racily clean entry by recording size 0).
fn vouched(index: &gix::index::File, full: &str, stat: &crate::io::stat::Stat) -> Option<ObjectId> {
    vouched_entry(index, index.entry_by_path(full.as_bytes().as_bstr())?, stat)
}

/// [`vouched`], given the path's first entry in the index.
fn vouched_entry(
    index: &gix::index::File,
    e: &gix::index::Entry,
    stat: &crate::io::stat::Stat,
) -> Option<ObjectId> {
    use gix::index::entry::{Flags, Mode};
    let untrusted = Flags::INTENT_TO_ADD | Flags::ASSUME_VALID | Flags::SKIP_WORKTREE;
    if e.stage_raw() != 0
        || e.flags.intersects(untrusted)
        || !matches!(e.mode, Mode::FILE | Mode::FILE_EXECUTABLE)
    {
        return None;
    }
    let s = &e.stat;
    let same_time = |t: gix::index::entry::stat::Time, ns: i64| {
        let (secs, nsecs) = (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
        i64::from(t.secs) == secs && (t.nsecs == 0 || i64::from(t.nsecs) == nsecs)
    };
    // Git keeps only the low 32 bits of sizes and inode numbers.
    #[allow(clippy::cast_possible_truncation)]
    let same = s.size != 0
        && s.size == stat.size as u32
        && (s.ino == 0 || s.ino == stat.ino as u32)
        && same_time(s.mtime, stat.mtime)
        && same_time(s.ctime, stat.ctime);
    if !same {
        return None;
    }
    // Racy: modified in the same instant as (or after) the index was
    // written, so a later change may have kept the same stat data. Where
    // git recorded no nanoseconds, the same second is racy.
    let written = index.timestamp();
    let racy = match written.unix_seconds().cmp(&i64::from(s.mtime.secs)) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Equal => s.mtime.nsecs == 0 || written.nanoseconds() <= s.mtime.nsecs,
        std::cmp::Ordering::Greater => false,
    };
    (!racy).then_some(e.id)
}

/// Whether git may convert content between the work tree and its blobs
/// (line endings, filters) for the records under `root`: a `.gitattributes`
/// file in the index, or in the work tree from its top down to the record
/// directories, `info/attributes`, `core.attributesFile` or
/// `core.autocrlf`. The work tree's bytes of a file then need not be its
/// blob's, even where the git index vouches for the file's stat data, so no
/// blob id stands for them.
pub(crate) fn may_convert(repo: &gix::Repository, root: &Path, index: &gix::index::File) -> bool {
    let attributes_in = |dir: &Path| dir.join(".gitattributes").exists();
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let top = repo.workdir().map(canonical);
    let mut dirs: Vec<std::path::PathBuf> = vec![root.to_path_buf()];
    if let Some(top) = &top {
        dirs.extend(
            canonical(root)
                .ancestors()
                .take_while(|d| d.starts_with(top))
                .map(Path::to_path_buf),
        );
    }
    for kind in crate::model::kind::Kind::ALL {
        let mut dir = root.to_path_buf();
        for part in kind.dir().split('/') {
            dir.push(part);
            dirs.push(dir.clone());
        }
    }
    if dirs.iter().any(|d| attributes_in(d)) {
        return true;
    }
    let config = repo.config_snapshot();
    let autocrlf = config.string("core.autocrlf").is_some_and(|v| {
        !matches!(
            v.to_str_lossy().to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0"
        )
    });
    autocrlf
        || config.string("core.attributesFile").is_some()
        || repo.common_dir().join("info/attributes").is_file()
        || index.entries().iter().any(|e| {
            let p = e.path(index);
            p == ".gitattributes" || p.ends_with(b"/.gitattributes")
        })
}

/// The git index seen as content fingerprints (docs/recall.md): for a tracked file
/// whose stat data match its index entry, the blob id git recorded for it.
pub struct Tracked {
    index: gix::index::File,
    prefix: String,
}

impl Tracked {
    /// The git index of the repository whose work tree holds `root`; `None`
    /// outside a repository or when the index cannot be read.
    pub fn open(root: &Path) -> Option<Tracked> {
        let repo = Repo::open(root, crate::io::git::Asking::Index).ok()?;
        let index = repo.index().ok()?;
        if may_convert(&repo.repo, root, &index) {
            return None;
        }
        Some(Tracked {
            index,
            prefix: repo.prefix,
        })
    }

    /// The blob id of root-relative `rel` the git index vouches for with
    /// stat data `stat` (see `vouched`).
    pub fn blob(&self, rel: &str, stat: &crate::io::stat::Stat) -> Option<ObjectId> {
        let mut full = String::with_capacity(self.prefix.len() + rel.len());
        full.push_str(&self.prefix);
        full.push_str(rel);
        vouched(&self.index, &full, stat)
    }

    /// The blob id of root-relative `rel` in a commit whose tree holds
    /// `rel`'s directory (`dir`, ending in `/`) as the tree `dir_tree`,
    /// when the index's cache tree holds that directory as that same tree:
    /// the index then holds what the tree does (`Some(None)`: no such
    /// file). `None` when the index cannot say (another tree, the cache
    /// tree invalid there, a sparse index, an entry git leaves out of a
    /// tree).
    pub(crate) fn in_tree(
        &self,
        rel: &str,
        dir: &str,
        dir_tree: ObjectId,
    ) -> Option<Option<ObjectId>> {
        use gix::bstr::ByteSlice;
        use gix::index::entry::Flags;
        if self.index.is_sparse()
            || super::cached::cached_tree(&self.index, &self.prefix, dir)? != dir_tree
        {
            return None;
        }
        let full = format!("{}{rel}", self.prefix);
        match self.index.entry_by_path(full.as_bytes().as_bstr()) {
            None => Some(None),
            Some(e) if e.stage_raw() == 0 && !e.flags.contains(Flags::INTENT_TO_ADD) => {
                Some(Some(e.id))
            }
            Some(_) => None,
        }
    }

    /// The directories under the root, at most `depth` levels down, whose
    /// tree the index's cache tree holds (see [`super::cached::cached_dirs`]).
    pub(crate) fn cached_dirs(&self, depth: usize) -> Vec<super::CachedDir> {
        super::cached::cached_dirs(&self.index, &self.prefix, depth)
    }

    /// The root-relative path and blob id of index entry `i`.
    pub(crate) fn entry(&self, i: usize) -> Option<(&str, ObjectId)> {
        let e = self.index.entries().get(i)?;
        let path = e
            .path(&self.index)
            .get(self.prefix.len()..)?
            .to_str()
            .ok()?;
        Some((path, e.id))
    }

    /// [`Tracked::blob`] for paths asked in ascending order: each found by
    /// walking on from the last one along the index (galloping), not by a
    /// search of the whole index. Any order still gives the right answers.
    pub fn in_order(&self) -> InOrder<'_> {
        InOrder {
            tracked: self,
            at: 0,
            full: Vec::new(),
        }
    }
}

/// See [`Tracked::in_order`].
pub struct InOrder<'t> {
    tracked: &'t Tracked,
    /// Every entry before it is before the last path asked.
    at: usize,
    full: Vec<u8>,
}

impl InOrder<'_> {
    /// The blob id of root-relative `rel` the git index vouches for with
    /// stat data `stat`.
    pub fn blob(&mut self, rel: &str, stat: &crate::io::stat::Stat) -> Option<ObjectId> {
        match self.said(rel, stat) {
            Said::Vouched(id) => Some(id),
            Said::Unvouched(_) | Said::Nothing => None,
        }
    }

    /// What the git index says of root-relative `rel` with stat data
    /// `stat` (see [`Said`]).
    pub(crate) fn said(&mut self, rel: &str, stat: &crate::io::stat::Stat) -> Said {
        let index = &self.tracked.index;
        let entries = index.entries();
        self.full.clear();
        self.full.extend_from_slice(self.tracked.prefix.as_bytes());
        self.full.extend_from_slice(rel.as_bytes());
        let full = self.full.as_bstr();
        let before = |e: &gix::index::Entry| e.path(index) < full;
        let mut lo = self.at.min(entries.len());
        if lo > 0 && !before(&entries[lo - 1]) {
            // Asked out of order: search from the start.
            lo = entries[..lo].partition_point(before);
        } else if lo < entries.len() && before(&entries[lo]) {
            // The first entry not before `full` lies in (lo, lo + step].
            let mut step = 1;
            while lo + step < entries.len() && before(&entries[lo + step]) {
                lo += step;
                step *= 2;
            }
            let hi = (lo + step).min(entries.len());
            lo = lo + 1 + entries[lo + 1..hi].partition_point(before);
        }
        self.at = lo;
        let Some(e) = entries.get(lo).filter(|e| e.path(index) == full) else {
            return Said::Nothing;
        };
        if let Some(id) = vouched_entry(index, e, stat) {
            return Said::Vouched(id);
        }
        use gix::index::entry::{Flags, Mode};
        let untrusted = Flags::INTENT_TO_ADD | Flags::ASSUME_VALID | Flags::SKIP_WORKTREE;
        let plain = e.stage_raw() == 0
            && !e.flags.intersects(untrusted)
            && matches!(e.mode, Mode::FILE | Mode::FILE_EXECUTABLE);
        match plain {
            true => Said::Unvouched(e.id),
            false => Said::Nothing,
        }
    }
}

impl Repo {
    /// The commits being merged when a merge is under way (`MERGE_HEAD` in
    /// the git dir, one id a line; at most 64 KiB of it read); empty
    /// otherwise. Lines that are no commit id are left out.
    pub(crate) fn merge_heads(&self) -> Vec<ObjectId> {
        use std::io::Read;
        let Ok(file) = std::fs::File::open(self.repo.git_dir().join("MERGE_HEAD")) else {
            return Vec::new();
        };
        let mut text = String::new();
        if file.take(64 * 1024).read_to_string(&mut text).is_err() {
            return Vec::new();
        }
        text.lines()
            .filter_map(|l| ObjectId::from_hex(l.trim().as_bytes()).ok())
            .filter(|id| self.repo.find_commit(*id).is_ok())
            .collect()
    }
}
