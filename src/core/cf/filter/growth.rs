//! How a Cuckoo filter grows and shrinks (`CuckooFilter_Grow`, `CuckooFilter_Compact`,
//! `src/cuckoo.c`): a new sub-filter when the newest one is full, and fingerprints moved back
//! into older sub-filters by `CF.COMPACT` and by deletes.

use super::{memory_usage, CuckooFilter};
use crate::core::cf::hash::alt_index;
use crate::core::cf::params::{MAX_FILTERS, MAX_TOTAL_BYTES};
use crate::core::cf::sub_filter::{sub_filter_buckets, SubFilter};
use crate::core::{Error, Memory};

impl CuckooFilter {
    /// Appends sub-filter `n` of `num_buckets × expansion^n` buckets (`CuckooFilter_Grow`,
    /// with RedisBloom 8's guards: at most 65535 sub-filters, at most 2^56 − 1 buckets, and a
    /// failed allocation is an error rather than an abort). Leaves the filter unchanged on
    /// failure.
    pub(super) fn grow(&mut self, memory: &Memory) -> Result<(), Error> {
        let n = self.subs.len();
        if n >= usize::from(MAX_FILTERS) {
            return Err(Error::CannotGrow);
        }
        let num_buckets =
            sub_filter_buckets(self.num_buckets, self.expansion, n).ok_or(Error::CannotGrow)?;
        let total = num_buckets
            .checked_mul(u64::from(self.bucket_size))
            .and_then(|bytes| bytes.checked_add(self.slots()))
            .filter(|total| *total <= MAX_TOTAL_BYTES)
            .ok_or(Error::CannotGrow)?;
        let grown = memory_usage(n as u64 + 1, total).ok_or(Error::CannotGrow)?;
        match memory.check(grown) {
            Err(Error::OverLimit) => return Err(Error::OverLimit),
            Err(_) => return Err(Error::CannotGrow),
            Ok(()) => {}
        }
        let sub = SubFilter::zeroed(num_buckets, self.bucket_size, memory)
            .map_err(|_| Error::CannotGrow)?;
        self.subs.try_reserve(1).map_err(|_| Error::CannotGrow)?;
        self.slots += sub.bytes().len() as u64;
        self.subs.push(sub);
        Ok(())
    }

    /// `CuckooFilter_Compact`: sub-filters from the newest down to the second, each emptied
    /// into the older ones as far as possible; an emptied sub-filter is freed only if it is
    /// the newest (freeing one in the middle would shift the others' sizes). With
    /// `keep_going` false (after a delete) it stops at the first sub-filter that kept a
    /// fingerprint. Every compaction resets the deletes, even with one sub-filter.
    pub(super) fn compact_with(&mut self, keep_going: bool) {
        let bucket_size = usize::from(self.bucket_size);
        for i in (1..self.subs.len()).rev() {
            if self.relocate_from(i, bucket_size) {
                if i + 1 == self.subs.len() {
                    if let Some(freed) = self.subs.pop() {
                        self.slots -= freed.bytes().len() as u64;
                    }
                }
            } else if !keep_going {
                break;
            }
        }
        self.deletes = 0;
    }

    /// `CuckooFilter_CompactSingle`: every fingerprint of sub-filter `i`, bucket by bucket and
    /// slot by slot, moves to the first empty slot of bucket `b` or its alternate in sub-filter
    /// 0, 1, …, i − 1 (`relocateSlot`, no kicking), where `b` is its bucket in sub-filter `i`.
    /// True when sub-filter `i` ends up empty.
    ///
    /// Only the buckets of blocks that were ever written are visited, in the same order: the
    /// others hold nothing to move, so the outcome is RedisBloom's, in time proportional to
    /// the data rather than to the sub-filter's size (a 1 GiB sub-filter holding five items
    /// is a few blocks; one never written is empty without a look).
    fn relocate_from(&mut self, i: usize, bucket_size: usize) -> bool {
        let Some((older, rest)) = self.subs.split_at_mut_checked(i) else {
            return false;
        };
        let Some(current) = rest.first_mut() else {
            return false;
        };
        let mut emptied = true;
        let mut from = 0;
        while let Some(run) = current.bytes().marked_run_from(from) {
            from = run.end;
            // From one non-zero byte to the next: the bucket that holds it, whole (a bucket
            // may straddle two blocks), then on past it.
            let mut at = run.start;
            while let Some(nonzero) = current.bytes().next_nonzero(at..run.end) {
                let b = nonzero / bucket_size;
                at = (b + 1) * bucket_size;
                let data = current.bytes_mut();
                let Some(bucket) = data.slice_to_clear(b * bucket_size, bucket_size) else {
                    continue;
                };
                for slot in bucket.iter_mut().filter(|slot| **slot != 0) {
                    let fp = *slot;
                    let alt = alt_index(fp, b as u64);
                    if older
                        .iter_mut()
                        .any(|sub| sub.place(fp, b as u64, alt, bucket_size))
                    {
                        *slot = 0;
                    } else {
                        emptied = false;
                    }
                }
            }
        }
        emptied
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cf::tests::{bytes, filter};
    use crate::core::cf::{ItemHash, SavedHeader};
    use crate::core::EAGER;

    #[test]
    fn expansion_zero_reports_full_and_keeps_every_byte() {
        // test_expansion_0: four slots, a fifth and sixth item are refused.
        let mut f = filter(4, 2, 20, 0);
        for item in [b"1", b"2", b"3", b"4"] {
            f.insert(&ItemHash::of(item), &EAGER).unwrap();
        }
        let before = bytes(&f);
        for item in [b"5", b"6"] {
            assert_eq!(f.insert(&ItemHash::of(item), &EAGER), Err(Error::Full));
            assert_eq!(bytes(&f), before);
        }
        assert_eq!((f.items(), f.num_filters()), (4, 1));
    }

    #[test]
    fn duplicates_fill_their_two_buckets_then_grow() {
        let mut f = filter(4, 2, 20, 2);
        let h = ItemHash::of(b"x");
        for _ in 0..20 {
            f.insert(&h, &EAGER).unwrap();
        }
        assert_eq!(f.items(), 20);
        assert_eq!(f.count(&h), 20);
        // The first insert of each new sub-filter lands at h1, the next ones beside it.
        assert!(f.num_filters() >= 3);
        for (i, (buckets, _)) in f.sub_filters().enumerate() {
            assert_eq!(buckets, 2 << i);
        }
    }

    #[test]
    fn growth_stops_at_the_bucket_guard_and_leaves_the_filter_alone() {
        assert_eq!(sub_filter_buckets(1 << 55, 2, 1), None);
        assert_eq!(sub_filter_buckets(1 << 54, 2, 1), Some(1 << 55));
        assert_eq!(sub_filter_buckets(1, 32768, 4), None);
        assert_eq!(sub_filter_buckets(1, 32768, 3), Some(1 << 45));
        assert_eq!(sub_filter_buckets(5, 0, 0), Some(5));
        assert_eq!(sub_filter_buckets(5, 0, 1), None);
        assert_eq!(sub_filter_buckets(5, 3, 2), Some(45));
        // A saved value whose base is 2^55 buckets (its one sub-filter is tiny): the next
        // sub-filter would need 2^56, so growth fails before allocating anything.
        let header = SavedHeader {
            num_filters: 1,
            num_buckets: 1 << 55,
            items: 0,
            deletes: 0,
            bucket_size: 1,
            max_iterations: 4,
            expansion: 2,
        };
        let mut f = CuckooFilter::from_saved(header, vec![(1, vec![0])]).unwrap();
        fn never(_: usize) -> Option<Vec<u8>> {
            panic!("allocated past the guard")
        }
        let h = ItemHash::of(b"a");
        f.insert(
            &h,
            &Memory {
                zeroed: never,
                ..EAGER
            },
        )
        .unwrap();
        assert_eq!(
            f.insert(
                &ItemHash::of(b"b"),
                &Memory {
                    zeroed: never,
                    ..EAGER
                }
            ),
            Err(Error::CannotGrow)
        );
        assert_eq!(
            (bytes(&f), f.items(), f.num_filters()),
            (vec![vec![h.fingerprint()]], 1, 1)
        );
        // A refused allocation is CannotGrow too, and changes nothing either.
        fn refuse(_: usize) -> Option<Vec<u8>> {
            None
        }
        let mut f = filter(2, 1, 3, 1);
        let before = loop {
            let snapshot = bytes(&f);
            let items = f.items();
            match f.insert(
                &ItemHash::of(&items.to_le_bytes()),
                &Memory {
                    zeroed: refuse,
                    ..EAGER
                },
            ) {
                Ok(()) => {}
                Err(e) => {
                    assert_eq!(e, Error::CannotGrow);
                    break snapshot;
                }
            }
        };
        assert_eq!((bytes(&f), f.num_filters()), (before, 1));
    }

    #[test]
    fn growth_stops_at_65535_sub_filters() {
        let header = SavedHeader {
            num_filters: 65535,
            num_buckets: 1,
            items: 65535,
            deletes: 0,
            bucket_size: 1,
            max_iterations: 3,
            expansion: 1,
        };
        let subs = (0..65535).map(|_| (1, vec![9])).collect();
        let mut f = CuckooFilter::from_saved(header, subs).unwrap();
        assert_eq!(
            f.insert(&ItemHash::of(b"z"), &EAGER),
            Err(Error::CannotGrow)
        );
        assert_eq!((f.num_filters(), f.items()), (65535, 65535));
        assert!(f.sub_filters().all(|(_, data)| data == [9]));
    }

    #[test]
    fn delete_then_compact_resets_deletes_even_with_one_sub_filter() {
        let mut f = filter(100, 2, 20, 1);
        let h = ItemHash::of(b"k");
        f.insert(&h, &EAGER).unwrap();
        f.insert(&h, &EAGER).unwrap();
        assert!(f.delete(&h));
        assert_eq!((f.items(), f.deletes()), (1, 1));
        f.compact();
        assert_eq!((f.items(), f.deletes()), (1, 0));
    }

    #[test]
    fn sixty_adds_forty_deletes() {
        // As run on RedisBloom 2.8.2: 60 adds into CF.RESERVE dd 8 give 8 sub-filters; 40 deletes
        // bring it to filters:3 deletes:2.
        let mut f = filter(8, 2, 20, 1);
        for i in 0..60 {
            f.insert(&ItemHash::of(i.to_string().as_bytes()), &EAGER)
                .unwrap();
        }
        assert_eq!(f.num_filters(), 8);
        for i in 0..40 {
            assert!(f.delete(&ItemHash::of(i.to_string().as_bytes())));
        }
        assert_eq!((f.num_filters(), f.deletes(), f.items()), (3, 2, 20));
    }

    #[test]
    fn only_the_newest_emptied_sub_filter_is_freed() {
        let header = |num_filters, num_buckets| SavedHeader {
            num_filters,
            num_buckets,
            items: 3,
            deletes: 0,
            bucket_size: 1,
            max_iterations: 1,
            expansion: 1,
        };
        // One bucket of one slot each; the newest is empty and freed, the middle one's 6 has
        // nowhere to go.
        let saved = vec![(1, vec![5]), (1, vec![6]), (1, vec![0])];
        let mut f = CuckooFilter::from_saved(header(3, 1), saved).unwrap();
        f.compact();
        assert_eq!(bytes(&f), vec![vec![5], vec![6]]);

        // Two buckets of one slot. The newest's 8 (even: both its buckets are bucket 0) finds
        // bucket 0 full everywhere; the middle one's 9 (odd: buckets 0 and 1) moves to the
        // oldest's bucket 1. The emptied middle sub-filter is not the newest: it stays.
        let saved = || vec![(2, vec![5, 0]), (2, vec![9, 0]), (2, vec![8, 0])];
        let mut f = CuckooFilter::from_saved(header(3, 2), saved()).unwrap();
        f.compact();
        assert_eq!(bytes(&f), vec![vec![5, 9], vec![0, 0], vec![8, 0]]);
        assert_eq!(f.memory_usage(), 40 + 3 * 16 + 6);

        // The automatic compaction of a delete stops at the newest sub-filter's failure.
        let mut f = CuckooFilter::from_saved(header(3, 2), saved()).unwrap();
        f.compact_with(false);
        assert_eq!(bytes(&f), vec![vec![5, 0], vec![9, 0], vec![8, 0]]);
        assert_eq!(f.deletes(), 0);
    }

    #[test]
    fn compaction_visits_only_the_blocks_that_were_written() {
        use crate::core::sparse::BLOCK;
        // Sub-filters of 4 blocks (2^17 buckets of 2). Repeats of one item fill its two
        // buckets and open new sub-filters.
        let mut f = filter(1 << 18, 2, 20, 1);
        let h = ItemHash::of(b"same");
        for _ in 0..11 {
            f.insert(&h, &EAGER).unwrap();
        }
        assert!(f.num_filters() >= 3);
        // Fingerprints planted behind the map's back in the newest sub-filter's unwritten
        // blocks: a walk of every bucket would move them into the older sub-filters' free
        // slots. The compaction does not see them.
        let newest = f.subs.last_mut().unwrap().bytes_mut();
        let mut planted = Vec::new();
        for start in (0..newest.len()).step_by(BLOCK) {
            if newest.is_unwritten(start..start + BLOCK) {
                newest.slice_to_clear(start, 1).unwrap()[0] = 0x42;
                planted.push(start);
            }
        }
        assert!(
            planted.len() >= 2,
            "the item's two buckets lie in at most two blocks"
        );
        let filters = f.num_filters();
        f.compact();
        assert_eq!(
            f.num_filters(),
            filters,
            "the newest still holds its copies"
        );
        let newest = f.subs.last().unwrap().bytes();
        assert!(planted.iter().all(|&at| newest[at] == 0x42));
        assert_eq!(f.deletes(), 0);
    }
}
