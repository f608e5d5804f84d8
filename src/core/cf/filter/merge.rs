//! The multiset union of Cuckoo filters of one shape (`CF.MERGE`): every fingerprint of every
//! filter after the first is inserted into a copy of the first, so `CF.COUNT` of an item in the
//! union is the sum of its counts.
//!
//! A stored fingerprint no longer knows its item's hash, only its bucket: its other bucket
//! follows from that and the sub-filter's bucket count (`getAltHash`), but its buckets in a
//! sub-filter of another size do not. So a sub-filter pours only into the union's sub-filter of
//! the same place, which has the same bucket count when the filters have the same bucket count,
//! bucket size and expansion; it is placed as `CF.ADD` places a fingerprint in a sub-filter
//! (either bucket's first empty slot, else kicking others around, undone if that fails). A
//! filter with more sub-filters makes the union grow to them. A fingerprint that finds no room
//! refuses the union whole, which is built beside the filters and left unfinished. The other
//! bucket computed from the one a fingerprint sits in is its item's only when the bucket count
//! is a power of two (as every filter `CF.RESERVE` makes): other filters are refused.

use super::{memory_usage, CuckooFilter};
use crate::core::cf::hash::{alt_index, ItemHash};
use crate::core::cf::sub_filter::sub_filter_buckets;
use crate::core::{Error, Memory};

/// Why Cuckoo filters cannot be merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeError {
    /// Different bucket sizes.
    BucketSizesDiffer,
    /// Different bucket counts (of the first sub-filter: the capacity).
    CapacitiesDiffer,
    /// Different expansions.
    ExpansionsDiffer,
    /// Sub-filters of the same place with different bucket counts (saved by another writer).
    ShapesDiffer,
    /// A sub-filter whose bucket count is not a power of two (an RDB value or a SCANDUMP header
    /// with an expansion such as 3): there a fingerprint's other bucket, computed from the one
    /// it sits in, is not its item's, so a fingerprint moved there would be lost.
    BucketCountNotPowerOfTwo,
    /// A fingerprint found no room in its sub-filter.
    Full,
    /// The union could not be allocated, or passes the per-filter limit.
    Memory(Error),
}

impl CuckooFilter {
    /// The union of `filters` (at least one; a filter may be listed more than once, each
    /// listing counting), its slots from `memory`: each checked against the first, then built
    /// beside them (they are left as they are), keeping the first's maximum iterations.
    pub fn union(filters: &[&CuckooFilter], memory: &Memory) -> Result<CuckooFilter, MergeError> {
        let (first, others) = filters.split_first().ok_or(MergeError::ShapesDiffer)?;
        for other in others {
            combines(first, other)?;
        }
        // Every place's bucket count, from the filters that have it; the union grows past the
        // first's sub-filters as `grow` does, so those places must have the grown sizes.
        let longest = filters.iter().map(|f| f.subs.len()).max().unwrap_or(0);
        let mut bytes = 0u64;
        for i in 0..longest {
            let mut sizes = filters
                .iter()
                .filter_map(|f| f.subs.get(i))
                .map(|s| s.num_buckets());
            let size = sizes.next().unwrap_or(0);
            let grown = sub_filter_buckets(first.num_buckets, first.expansion, i);
            if sizes.any(|n| n != size) || (i >= first.subs.len() && grown != Some(size)) {
                return Err(MergeError::ShapesDiffer);
            }
            if !size.is_power_of_two() {
                return Err(MergeError::BucketCountNotPowerOfTwo);
            }
            let sub_bytes = size.saturating_mul(u64::from(first.bucket_size));
            bytes = bytes.saturating_add(sub_bytes);
        }
        let usage = memory_usage(longest as u64, bytes).unwrap_or(u64::MAX);
        memory.check(usage).map_err(MergeError::Memory)?;
        let mut union = first.try_clone(memory).map_err(MergeError::Memory)?;
        while union.subs.len() < longest {
            union.grow(memory).map_err(MergeError::Memory)?;
        }
        for other in others {
            union.pour(other)?;
        }
        Ok(union)
    }

    /// Inserts every fingerprint of `other` into the sub-filter of the same place, and adds
    /// its counts.
    fn pour(&mut self, other: &CuckooFilter) -> Result<(), MergeError> {
        let bucket_size = usize::from(self.bucket_size);
        let rounds = self.max_iterations;
        for (sub, from) in self.subs.iter_mut().zip(&other.subs) {
            for (offset, run) in from.bytes().nonzero_runs() {
                for (at, &fp) in run.iter().enumerate().filter(|(_, &fp)| fp != 0) {
                    let bucket = ((offset + at) / bucket_size) as u64;
                    let item = ItemHash {
                        h1: bucket,
                        h2: alt_index(fp, bucket),
                        fp,
                    };
                    // Kicks from its bucket, then from the other: copies of one fingerprint
                    // in the slots a kick from one bucket takes first swap with each other.
                    let from_other = ItemHash {
                        h1: item.h2,
                        h2: item.h1,
                        fp,
                    };
                    let placed = sub.place(fp, item.h1, item.h2, bucket_size)
                        || sub.kick(&item, bucket_size, rounds)
                        || sub.kick(&from_other, bucket_size, rounds);
                    if !placed {
                        return Err(MergeError::Full);
                    }
                }
            }
        }
        self.items = self.items.wrapping_add(other.items);
        self.deletes = self.deletes.wrapping_add(other.deletes);
        Ok(())
    }
}

/// Whether `other` combines with `first`, or what differs.
fn combines(first: &CuckooFilter, other: &CuckooFilter) -> Result<(), MergeError> {
    if first.bucket_size != other.bucket_size {
        return Err(MergeError::BucketSizesDiffer);
    }
    if first.num_buckets != other.num_buckets {
        return Err(MergeError::CapacitiesDiffer);
    }
    if first.expansion != other.expansion {
        return Err(MergeError::ExpansionsDiffer);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cf::params::Params;
    use crate::core::testing::eager_limited;
    use crate::core::EAGER;

    fn filter(capacity: u64, expansion: u16, items: &[String]) -> CuckooFilter {
        filter_of(capacity, 2, expansion, items)
    }

    fn filter_of(
        capacity: u64,
        bucket_size: u16,
        expansion: u16,
        items: &[String],
    ) -> CuckooFilter {
        let params = Params {
            capacity,
            bucket_size,
            max_iterations: 20,
            expansion,
        };
        let mut filter = CuckooFilter::new(params, &EAGER).unwrap();
        for item in items {
            let inserted = filter.insert(&ItemHash::of(item.as_bytes()), &EAGER);
            assert_eq!(inserted, Ok(()), "{item}");
        }
        filter
    }

    fn items(prefix: &str, range: std::ops::Range<u32>) -> Vec<String> {
        range.map(|i| format!("{prefix}:{i}")).collect()
    }

    #[test]
    fn a_union_holds_every_copy_of_every_item() {
        let (a, b, shared) = (items("a", 0..300), items("b", 0..300), items("s", 0..200));
        // 1,500 fingerprints in 8,192 slots; up to three copies of one in its two buckets,
        // which need more than two slots a bucket (a kick swaps copies with each other).
        let left = filter_of(8000, 4, 2, &[&a[..], &shared[..]].concat());
        let right = filter_of(8000, 4, 2, &[&b[..], &shared[..]].concat());
        let union = CuckooFilter::union(&[&left, &right, &right], &EAGER).unwrap();
        assert_eq!(union.items(), 500 + 2 * 500);
        let count = |item: &String| union.count(&ItemHash::of(item.as_bytes()));
        assert!(a.iter().all(|item| count(item) >= 1));
        assert!(b.iter().all(|item| count(item) >= 2));
        assert!(shared.iter().all(|item| count(item) >= 3));
        // What a filter holds is what the union's counts add up to, fingerprint for
        // fingerprint: every byte poured found a slot.
        let held = |f: &CuckooFilter| {
            f.sub_filters()
                .flat_map(|(_, bytes)| bytes.iter())
                .filter(|&&fp| fp != 0)
                .count()
        };
        assert_eq!(held(&union), held(&left) + 2 * held(&right));
    }

    #[test]
    fn a_filter_with_more_sub_filters_makes_the_union_grow() {
        let grown = filter(64, 2, &items("g", 0..400));
        let empty = filter(64, 2, &[]);
        assert!(grown.num_filters() >= 3);
        // Poured into empty sub-filters, every fingerprint lands in its own bucket and slot.
        let union = CuckooFilter::union(&[&empty, &grown], &EAGER).unwrap();
        assert!(union.sub_filters().eq(grown.sub_filters()));
        assert_eq!(union.memory_usage(), grown.memory_usage());
        // A grown filter's older sub-filters are full: a filter with items of its own there
        // does not fit.
        let small = filter(64, 2, &items("s", 0..40));
        assert_eq!(
            CuckooFilter::union(&[&small, &grown], &EAGER),
            Err(MergeError::Full)
        );
    }

    #[test]
    fn no_room_other_shapes_and_memory_refuse_the_union_whole() {
        // Two filters of 256 slots that cannot grow, 150 fingerprints each: no room.
        let left = filter_of(256, 4, 0, &items("a", 0..150));
        let right = filter_of(256, 4, 0, &items("b", 0..150));
        let before = (
            left.try_clone(&EAGER).unwrap(),
            right.try_clone(&EAGER).unwrap(),
        );
        assert_eq!(
            CuckooFilter::union(&[&left, &right], &EAGER),
            Err(MergeError::Full)
        );
        assert_eq!((left, right), before, "the filters are left as they were");
        let base = filter(1000, 2, &[]);
        let wider = filter_of(1000, 4, 2, &[]);
        for (other, error) in [
            (filter(2000, 2, &[]), MergeError::CapacitiesDiffer),
            (filter(1000, 4, &[]), MergeError::ExpansionsDiffer),
            (wider, MergeError::BucketSizesDiffer),
        ] {
            assert_eq!(CuckooFilter::union(&[&base, &other], &EAGER), Err(error));
        }
        // A bucket count of 3 (an RDB value): the other bucket of a fingerprint is not its
        // item's, so nothing may move there.
        let odd = crate::core::cf::SavedHeader {
            num_filters: 1,
            num_buckets: 3,
            items: 1,
            deletes: 0,
            bucket_size: 2,
            max_iterations: 20,
            expansion: 0,
        };
        let odd = CuckooFilter::from_saved(odd, vec![(3, vec![7, 0, 0, 0, 0, 0])]).unwrap();
        assert_eq!(
            CuckooFilter::union(&[&odd, &odd], &EAGER),
            Err(MergeError::BucketCountNotPowerOfTwo)
        );
        let limited = eager_limited(base.memory_usage() - 1);
        assert_eq!(
            CuckooFilter::union(&[&base, &base], &limited),
            Err(MergeError::Memory(Error::OverLimit))
        );
    }
}
