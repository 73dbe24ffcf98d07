//! Everything under `.memlint/`: the record table, the listing, the
//! slug-cluster cache, the search index and the counters, in one binary
//! codec. A shadow of the files, always safe to delete. Never prints.

pub mod cites;
pub mod codec;
pub mod drift;
pub mod drift_marks;
pub mod duplicates;
pub mod failures;
pub mod judged;
pub mod listing;
pub mod material;
pub mod prompted;
pub mod search;
pub mod slugs;
pub mod table;
