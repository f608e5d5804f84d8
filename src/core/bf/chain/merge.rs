//! The union of scalable filters of one shape (`BF.MERGE`): sub-filter `i` of the union is the
//! OR of the sub-filters `i` of every filter that has one, so it finds every item any of them
//! found, with no false negative.
//!
//! Filters combine only when sub-filter `i` has the same bits and probes in each: the same
//! layout, hashing, scaling, expansion, and first sub-filter (capacity and error rate), which
//! fix every later one. A filter with more sub-filters brings the others along.
//!
//! A union of filters each within its capacity can be past it, and then past its error rate
//! (RedisBloom #20, #274): items added to two filters are one item in the union, items added
//! to one only are new to the others. So a sub-filter made from two or more counts the items
//! its bits hold (`estimate.rs`), never the sum of its parts — and never fewer than the
//! largest of them — and a union that puts a sub-filter past its capacity is refused, unless
//! the caller asks for it knowingly. The estimate strays by chance: a sub-filter counts as past
//! its capacity only beyond four standard deviations of the estimate (a full sub-filter merged
//! with itself is at its capacity, not past it). In a scaled filter every sub-filter but the
//! newest is full, so scaled filters of distinct items are refused.

use super::{Chain, Link};
use crate::core::bf::estimate::past_capacity;
use crate::core::{try_vec, Error, Memory};

/// Why filters cannot be merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeError {
    /// Classic and fast layouts.
    LayoutsDiffer,
    /// 32-bit and 64-bit hashing.
    HashingDiffers,
    /// A scaling and a non-scaling filter.
    ScalingDiffers,
    /// Different expansions.
    ExpansionsDiffer,
    /// Different capacities (of the first sub-filter).
    CapacitiesDiffer,
    /// Different error rates.
    ErrorRatesDiffer,
    /// Sub-filters of the same place sized differently (saved by another writer).
    ShapesDiffer,
    /// The union would put sub-filter `.0` (from 0) past its capacity.
    PastCapacity(usize),
    /// The union's item counts would not fit a count (sources loaded with absurd ones).
    CountsOverflow,
    /// The union could not be allocated, or passes the per-filter limit.
    Memory(Error),
}

impl Chain {
    /// The union of `filters` (at least one), its bits from `memory`: each checked against
    /// the first, then built beside them (they are left as they are). With `overfill`, a
    /// sub-filter may pass its capacity (and its error rate).
    pub fn union(filters: &[&Chain], overfill: bool, memory: &Memory) -> Result<Chain, MergeError> {
        let (first, others) = filters.split_first().ok_or(MergeError::ShapesDiffer)?;
        for other in others {
            combines(first, other)?;
        }
        let longest = filters.iter().map(|f| f.links.len()).max().unwrap_or(0);
        let mut links = try_vec(longest).map_err(MergeError::Memory)?;
        let mut bytes = 0u64;
        for i in 0..longest {
            let shape = filters.iter().find_map(|f| f.links.get(i)).map(Link::shape);
            bytes = bytes.saturating_add(shape.map_or(0, |s| s.bytes()));
        }
        let usage = super::memory_usage(longest as u64, bytes).unwrap_or(u64::MAX);
        memory.check(usage).map_err(MergeError::Memory)?;
        for i in 0..longest {
            let mut parts = filters.iter().filter_map(|f| f.links.get(i));
            let Some(part) = parts.next() else { break };
            let mut link = part.try_clone(memory).map_err(MergeError::Memory)?;
            let mut most = part.items();
            let mut merged = false;
            for part in parts {
                link.or_from(part).map_err(|_| MergeError::ShapesDiffer)?;
                most = most.max(part.items());
                merged = true;
            }
            if merged {
                let (estimate, spread) = link.estimated_items();
                let entries = link.shape().entries();
                let counted = if overfill {
                    estimate
                } else if past_capacity(estimate, spread, entries) {
                    return Err(MergeError::PastCapacity(i));
                } else {
                    // Within the estimate's spread of its capacity: at it, not past it.
                    estimate.min(entries)
                };
                link.set_items(most.max(counted));
            }
            links.push(link);
        }
        let items = links
            .iter()
            .try_fold(0u64, |sum, link| sum.checked_add(link.items()))
            .ok_or(MergeError::CountsOverflow)?;
        Ok(Chain {
            links,
            items,
            options: first.options,
            growth: first.growth,
        })
    }

    /// How many sub-filters hold more items than they were sized for (a union asked for
    /// past capacity): their error rate is no longer the one they were made with.
    pub fn links_past_capacity(&self) -> usize {
        self.links
            .iter()
            .filter(|l| l.items() > l.shape().entries())
            .count()
    }
}

/// Whether `other` combines with `first`, or what differs, named in the order a user would
/// look: the kind of filter, then its parameters.
fn combines(first: &Chain, other: &Chain) -> Result<(), MergeError> {
    use super::options::{FAST, FORCE64, NO_SCALING};
    let differ = |bit: u32| (first.options ^ other.options) & bit != 0;
    if differ(FAST) {
        return Err(MergeError::LayoutsDiffer);
    }
    if differ(FORCE64) {
        return Err(MergeError::HashingDiffers);
    }
    if differ(NO_SCALING) {
        return Err(MergeError::ScalingDiffers);
    }
    if first.growth != other.growth && !first.is_nonscaling() {
        return Err(MergeError::ExpansionsDiffer);
    }
    let (Some(a), Some(b)) = (first.links.first(), other.links.first()) else {
        return Err(MergeError::ShapesDiffer);
    };
    let (a, b) = (a.shape(), b.shape());
    if a.entries() != b.entries() {
        return Err(MergeError::CapacitiesDiffer);
    }
    if a.error() != b.error() {
        return Err(MergeError::ErrorRatesDiffer);
    }
    let same_places = first
        .links
        .iter()
        .zip(&other.links)
        .all(|(a, b)| a.shape() == b.shape());
    if !same_places || first.options != other.options {
        return Err(MergeError::ShapesDiffer);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bf::chain::{LayoutKind, Params};
    use crate::core::bf::false_positive_rate;
    use crate::core::testing::eager_limited;
    use crate::core::EAGER;

    fn filter(capacity: u64, nonscaling: bool, layout: LayoutKind, items: &[String]) -> Chain {
        let params = Params {
            capacity,
            error_rate: 0.01,
            expansion: 2,
            nonscaling,
            layout,
        };
        let mut chain = Chain::new(params, &EAGER).unwrap();
        for item in items {
            chain.add(item.as_bytes(), &EAGER).unwrap();
        }
        chain
    }

    fn items(prefix: &str, range: std::ops::Range<u32>) -> Vec<String> {
        range.map(|i| format!("{prefix}:{i}")).collect()
    }

    #[test]
    fn a_union_within_capacity_finds_every_item_counts_shared_ones_once_and_keeps_its_rate() {
        for layout in [LayoutKind::Classic, LayoutKind::Fast] {
            let shared = items("shared", 0..20_000);
            let (a, b) = (items("a", 0..30_000), items("b", 0..30_000));
            let left = filter(100_000, true, layout, &[&a[..], &shared[..]].concat());
            let right = filter(100_000, true, layout, &[&b[..], &shared[..]].concat());
            let union = Chain::union(&[&left, &right], false, &EAGER).unwrap();
            for item in a.iter().chain(&b).chain(&shared) {
                assert!(union.contains(item.as_bytes()), "{layout:?}: {item} lost");
            }
            let (estimate, spread) = union.links()[0].estimated_items();
            assert!(
                (estimate as f64 - 80_000.0).abs() < 4.0 * spread,
                "{estimate}"
            );
            assert_eq!(union.items(), estimate);
            // 80% of its capacity: under the rate it was made with.
            let rate = false_positive_rate(200_000, |item| union.contains(item));
            assert!(rate <= 0.01, "{layout:?}: {rate}");
            assert_eq!(union.links_past_capacity(), 0);
        }
    }

    #[test]
    fn a_union_past_capacity_is_refused_unless_asked_for() {
        let left = filter(10_000, true, LayoutKind::Classic, &items("a", 0..8000));
        let right = filter(10_000, true, LayoutKind::Classic, &items("b", 0..8000));
        let refused = Chain::union(&[&left, &right], false, &EAGER);
        assert_eq!(refused, Err(MergeError::PastCapacity(0)));
        let union = Chain::union(&[&left, &right], true, &EAGER).unwrap();
        assert!(union.links_past_capacity() == 1 && union.items() > 14_000);
        // A full filter merged with itself, or with a copy, is at its capacity, not past it.
        let full = filter(10_000, true, LayoutKind::Classic, &items("a", 0..10_000));
        let copy = full.try_clone(&EAGER).unwrap();
        let union = Chain::union(&[&full, &copy, &full], false, &EAGER).unwrap();
        assert!(union.items() >= full.items());
        assert!(union.links()[0].segments().eq(full.links()[0].segments()));
    }

    #[test]
    fn scaled_filters_bring_their_sub_filters_and_distinct_ones_are_refused() {
        let scaled = filter(1000, false, LayoutKind::Classic, &items("a", 0..5000));
        let small = filter(1000, false, LayoutKind::Classic, &items("a", 0..100));
        assert!(scaled.links().len() >= 3);
        // The small filter's items are the scaled one's first ones: no new item.
        let union = Chain::union(&[&small, &scaled], false, &EAGER).unwrap();
        assert_eq!(union.links().len(), scaled.links().len());
        assert!((0..5000).all(|i| union.contains(format!("a:{i}").as_bytes())));
        let other = filter(1000, false, LayoutKind::Classic, &items("b", 0..5000));
        let refused = Chain::union(&[&scaled, &other], false, &EAGER);
        assert_eq!(refused, Err(MergeError::PastCapacity(0)));
    }

    #[test]
    fn filters_of_other_shapes_are_refused_naming_what_differs() {
        let base = filter(1000, true, LayoutKind::Classic, &[]);
        let fast = filter(1000, true, LayoutKind::Fast, &[]);
        let scaling = filter(1000, false, LayoutKind::Classic, &[]);
        let bigger = filter(2000, true, LayoutKind::Classic, &[]);
        let stricter = Chain::new(
            Params {
                capacity: 1000,
                error_rate: 0.001,
                expansion: 2,
                nonscaling: true,
                layout: LayoutKind::Classic,
            },
            &EAGER,
        )
        .unwrap();
        let expanding = |expansion| {
            let params = Params {
                capacity: 1000,
                error_rate: 0.01,
                expansion,
                nonscaling: false,
                layout: LayoutKind::Classic,
            };
            Chain::new(params, &EAGER).unwrap()
        };
        for (other, error) in [
            (&fast, MergeError::LayoutsDiffer),
            (&scaling, MergeError::ScalingDiffers),
            (&bigger, MergeError::CapacitiesDiffer),
            (&stricter, MergeError::ErrorRatesDiffer),
        ] {
            assert_eq!(Chain::union(&[&base, other], false, &EAGER), Err(error));
        }
        let (two, four) = (expanding(2), expanding(4));
        let refused = Chain::union(&[&two, &four], false, &EAGER);
        assert_eq!(refused, Err(MergeError::ExpansionsDiffer));
    }

    #[test]
    fn an_overfilled_union_keeps_counts_a_filter_can_be_loaded_with() {
        // Thirty scaled filters of distinct items: the union's first sub-filter has every
        // bit set, which any number of items could do.
        let filters: Vec<Chain> = (0..30)
            .map(|n| {
                filter(
                    10,
                    false,
                    LayoutKind::Classic,
                    &items(&format!("f{n}"), 0..40),
                )
            })
            .collect();
        let all: Vec<&Chain> = filters.iter().collect();
        assert_eq!(
            Chain::union(&all, false, &EAGER),
            Err(MergeError::PastCapacity(0))
        );
        let union = Chain::union(&all, true, &EAGER).unwrap();
        let links = union.links().to_vec();
        let loaded = Chain::from_links(union.items(), union.options(), union.growth(), links);
        assert_eq!(loaded.as_ref(), Ok(&union));
        assert!(union.links_past_capacity() >= 1);
    }

    #[test]
    fn the_union_is_sized_before_it_is_allocated() {
        let left = filter(100_000, true, LayoutKind::Classic, &items("a", 0..10));
        let limit = eager_limited(left.memory_usage() - 1);
        let refused = Chain::union(&[&left, &left], false, &limit);
        assert_eq!(refused, Err(MergeError::Memory(Error::OverLimit)));
    }
}
