//! One sub-filter of a Cuckoo filter (RedisBloom's `SubCF`, `src/cuckoo.c`): its buckets,
//! the lookups, writes and kicks inside them, and the bucket count each sub-filter of a chain
//! gets. Its bytes are [`Sparse`]: a write into a bucket marks its block, so compaction,
//! COPY, DEBUG DIGEST and SCANDUMP visit only the blocks that were written.

use super::hash::{alt_index, ItemHash};
use super::params::{MAX_BUCKETS, MAX_TOTAL_BYTES};
use crate::core::relocate::{Mover, Relocate};
use crate::core::sparse::Sparse;
use crate::core::{Error, Memory};

/// One sub-filter: `num_buckets` buckets of the filter's bucket size, one byte per slot.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct SubFilter {
    num_buckets: u64,
    /// `num_buckets − 1` when it is a power of two, so that reduction is a mask.
    mask: u64,
    pow2: bool,
    data: Sparse,
}

impl Relocate for SubFilter {
    fn relocate(&mut self, mover: &mut impl Mover) {
        self.data.relocate(mover);
    }
}

impl SubFilter {
    /// Wraps `data`, which the caller has checked holds `num_buckets × bucket size` bytes.
    pub(super) fn new(num_buckets: u64, data: Sparse) -> SubFilter {
        SubFilter {
            num_buckets,
            mask: num_buckets.wrapping_sub(1),
            pow2: num_buckets.is_power_of_two(),
            data,
        }
    }

    /// A zeroed sub-filter of `num_buckets` buckets, its bytes from `memory` (the caller has
    /// checked the filter's size against it).
    pub(super) fn zeroed(
        num_buckets: u64,
        bucket_size: u16,
        memory: &Memory,
    ) -> Result<SubFilter, Error> {
        let len = num_buckets
            .checked_mul(u64::from(bucket_size))
            .filter(|len| *len <= MAX_TOTAL_BYTES)
            .ok_or(Error::OutOfMemory)?;
        Ok(SubFilter::new(num_buckets, Sparse::zeroed(len, memory)?))
    }

    /// Its bucket count.
    pub(super) fn num_buckets(&self) -> u64 {
        self.num_buckets
    }

    /// Its slots, bucket by bucket: one fingerprint per byte, 0 when empty.
    pub(super) fn bytes(&self) -> &Sparse {
        &self.data
    }

    /// Its slots, for LOADCHUNK and compaction to write into.
    pub(super) fn bytes_mut(&mut self) -> &mut Sparse {
        &mut self.data
    }

    /// The bucket a hash lands in: `hash mod num_buckets` (`SubCF_GetIndex`). Its byte offset
    /// stays 64-bit: RedisBloom truncates it to 32 bits outside the kick loop, which sends
    /// lookups in a sub-filter of 4 GiB or more to the wrong bucket, a bug not copied.
    #[inline]
    fn index(&self, hash: u64) -> u64 {
        if self.pow2 {
            hash & self.mask
        } else {
            hash % self.num_buckets
        }
    }

    /// The slots of bucket `index` (< `num_buckets`), with one bounds check for the bucket.
    #[inline]
    fn bucket(&self, index: u64, bucket_size: usize) -> &[u8] {
        // index < num_buckets and num_buckets × bucket_size = data.len() fits a usize.
        let start = index as usize * bucket_size;
        self.data
            .get(start..start + bucket_size)
            .unwrap_or_default()
    }

    /// The slots of bucket `index`, to write into: its block is marked.
    #[inline]
    fn bucket_mut(&mut self, index: u64, bucket_size: usize) -> &mut [u8] {
        self.data
            .slice_mut(index as usize * bucket_size, bucket_size)
            .unwrap_or_default()
    }

    /// Whether `fp` is in bucket `h1` or `h2` (`Filter_Find`).
    #[inline]
    pub(super) fn find(&self, fp: u8, h1: u64, h2: u64, bucket_size: usize) -> bool {
        self.bucket(self.index(h1), bucket_size).contains(&fp)
            || self.bucket(self.index(h2), bucket_size).contains(&fp)
    }

    /// Where the bucket `hash` lands in starts among the bytes, for reading ahead
    /// ([`CuckooFilter::contains_each`](super::CuckooFilter::contains_each)).
    #[inline]
    pub(super) fn bucket_start(&self, hash: u64, bucket_size: usize) -> usize {
        self.index(hash) as usize * bucket_size
    }

    /// Copies of `fp` in bucket `h1` plus copies in bucket `h2` (`subFilterCount`): a bucket
    /// that is both is counted twice, as in RedisBloom.
    pub(super) fn count(&self, fp: u8, h1: u64, h2: u64, bucket_size: usize) -> u64 {
        [h1, h2]
            .into_iter()
            .map(|h| {
                let bucket = self.bucket(self.index(h), bucket_size);
                bucket.iter().filter(|&&slot| slot == fp).count() as u64
            })
            .sum()
    }

    /// Writes `fp` into the first empty slot of bucket `h1`, else of bucket `h2`
    /// (`Filter_FindAvailable`); false when both are full.
    #[inline]
    pub(super) fn place(&mut self, fp: u8, h1: u64, h2: u64, bucket_size: usize) -> bool {
        for h in [h1, h2] {
            let index = self.index(h);
            if let Some(slot) = self
                .bucket_mut(index, bucket_size)
                .iter_mut()
                .find(|slot| **slot == 0)
            {
                *slot = fp;
                return true;
            }
        }
        false
    }

    /// Clears the first slot holding `fp` in bucket `h1`, else in bucket `h2`
    /// (`Filter_Delete`); false when neither holds it. Clearing marks nothing, so deleting
    /// absent items cannot make the walks of an empty filter long.
    pub(super) fn remove(&mut self, fp: u8, h1: u64, h2: u64, bucket_size: usize) -> bool {
        for h in [h1, h2] {
            let start = self.index(h) as usize * bucket_size;
            if let Some(slot) = self
                .data
                .slice_to_clear(start, bucket_size)
                .unwrap_or_default()
                .iter_mut()
                .find(|slot| **slot == fp)
            {
                *slot = 0;
                return true;
            }
        }
        false
    }

    /// Exchanges `fp` with slot `victim` (< bucket size) of bucket `index` (`swapFPs`).
    #[inline]
    fn swap(&mut self, index: u64, victim: usize, bucket_size: usize, fp: &mut u8) {
        if let Some(slot) = self.bucket_mut(index, bucket_size).get_mut(victim) {
            std::mem::swap(slot, fp);
        }
    }

    /// `Filter_KOInsert`, in the newest sub-filter: swap the fingerprint in hand with slot
    /// `victim` of the current bucket, move to the alternate bucket of the evicted fingerprint
    /// and stop at an empty slot there; otherwise rotate `victim` and repeat, up to `rounds`
    /// times. On failure, walk the same path backwards swapping again, which puts every byte
    /// back and leaves the new item's fingerprint in hand. Bucket indexes are 64-bit, as in
    /// RedisBloom 8.4+ (2.8 truncated them to 32 bits).
    pub(super) fn kick(&mut self, item: &ItemHash, bucket_size: usize, rounds: u16) -> bool {
        let mut fp = item.fp;
        let mut victim = 0;
        let mut index = self.index(item.h1);
        for _ in 0..rounds {
            self.swap(index, victim, bucket_size, &mut fp);
            index = self.index(alt_index(fp, index));
            if let Some(slot) = self
                .bucket_mut(index, bucket_size)
                .iter_mut()
                .find(|slot| **slot == 0)
            {
                *slot = fp;
                return true;
            }
            victim = (victim + 1) % bucket_size;
        }
        for _ in 0..rounds {
            victim = (victim + bucket_size - 1) % bucket_size;
            index = self.index(alt_index(fp, index));
            self.swap(index, victim, bucket_size, &mut fp);
        }
        false
    }

    /// A copy with its bytes from `memory`, written only where this one was.
    pub(super) fn try_clone(&self, memory: &Memory) -> Result<SubFilter, Error> {
        Ok(SubFilter::new(
            self.num_buckets,
            self.data.try_clone(memory)?,
        ))
    }
}

/// Buckets of sub-filter `i`: `base × expansion^i` (RedisBloom computes the power with `pow`,
/// exact for every size that can be allocated), or `None` past 2^56 − 1 (RedisBloom 8's guard
/// in `CuckooFilter_Grow`).
pub(super) fn sub_filter_buckets(base: u64, expansion: u16, i: usize) -> Option<u64> {
    let growth = u64::from(expansion).checked_pow(u32::try_from(i).ok()?)?;
    base.checked_mul(growth)
        .filter(|n| (1..=MAX_BUCKETS).contains(n))
}
