//! Process tuning, in one place: what the memlint process sets for itself
//! before a command runs. The engine and the layers below never change
//! the process; the front end decides from what it knows up front.

use crate::model::workspace::Workspace;

/// Before a command that lints the workspace (`check`, `index`, `report`,
/// `search`, `context`): when no index was stored for this configuration
/// and executable, every record will be read and linted, and transparent
/// huge pages are turned off for the rest of the process, on Linux
/// (`MIMALLOC_ALLOW_THP` in the environment keeps them). Walking and
/// linting thousands of files allocates from every thread at once, thinly
/// spread, and the kernel zeroes each 2 MiB huge page whole on its first
/// touch: on 100k records that was a tenth of the cold check. Warm runs
/// decode the index densely and are faster with huge pages, so they keep
/// them.
pub(super) fn before_lint(ws: &Workspace) {
    let key = crate::io::cache::key(&ws.config);
    if !crate::store::table::stored_for(&ws.root, key) {
        no_huge_pages();
    }
}

/// Before `memlint new`: transparent huge pages off, on Linux
/// (`MIMALLOC_ALLOW_THP` in the environment keeps them). It decodes the
/// stored entries of one kind of record (40,000 on 100k records) into
/// small allocations and exits: on a loaded machine, zeroing and finding
/// 2 MiB pages for them cost more than the huge pages save (CPU time,
/// median of 15 alternated runs: 224 ms with them, 169 ms without;
/// docs/benchmarks.md).
pub(super) fn before_new() {
    no_huge_pages();
}

fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: sets a flag of this process; no memory is touched.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}
