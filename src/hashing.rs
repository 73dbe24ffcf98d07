//! Hash maps and sets keyed by what a repository holds: paths, slugs, words.
//!
//! Anyone who can open a pull request can choose those keys. With an
//! unseeded hasher such as FxHash, crafted file names or words can all
//! collide and turn every lookup into a scan of the whole table. foldhash
//! is as fast on short keys and is seeded anew in every process. It is
//! already built as a dependency of gix.

/// A hash map with a per-process seed.
pub type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A hash set with a per-process seed.
pub type Set<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
