//! Hash maps and sets keyed by what a repository holds: paths, slugs, words.
//!
//! Anyone who can open a pull request can choose those keys. With an
//! unseeded hasher such as FxHash, crafted file names or words can all
//! collide and turn every lookup into a scan of the whole table. foldhash
//! is about as fast on the short keys here, is seeded anew for every map,
//! and is already built as a dependency of gix.
//!
//! The standard library's maps are safe too (SipHash with random keys),
//! only slower: they stay where a map is small or public API
//! (`check::Outcome::sources`); a map built per record or per file of a
//! large workspace uses these.

/// A hash map with a seed of its own.
pub(crate) type Map<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A hash set with a seed of its own.
pub(crate) type Set<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn every_map_hashes_with_its_own_seed() {
        // A fixed hasher (FxHash, or a default-seeded one) would give every
        // map the same hash for a key: collisions crafted once would work
        // against every run.
        let key = "memory/decisions/use-a-lock-file.md";
        let hashes: Vec<u64> = (0..8)
            .map(|_| Map::<&str, ()>::default().hasher().hash_one(key))
            .collect();
        let mut distinct = hashes.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), hashes.len(), "{hashes:?}");
        let set = Set::<&str>::default();
        assert!(!hashes.contains(&set.hasher().hash_one(key)));
    }
}
