//! Everything under `.memlint/`: the record table, the listing, the
//! slug-cluster cache, the search index and the counters, in one binary
//! codec. A shadow of the files, always safe to delete. Never prints.

pub(crate) mod cites;
pub(crate) mod codec;
pub(crate) mod drift;
pub(crate) mod drift_marks;
pub(crate) mod duplicates;
pub(crate) mod failures;
pub(crate) mod judged;
pub(crate) mod kinds;
pub(crate) mod listing;
pub(crate) mod material;
pub(crate) mod prompted;
pub(crate) mod rendered;
pub(crate) mod search;
pub(crate) mod slugs;
pub mod table;
