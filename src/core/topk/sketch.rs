//! The Top-K stored under a key: HeavyKeeper's buckets and the heap of the k heaviest items,
//! updated exactly as RedisBloom's `TopK_Add`, `TopK_Query`, `TopK_Count` and `TopK_List`
//! (`src/topk.c`) update and read them, but for where a decay chance comes from.
//!
//! The buckets are kept as the bytes RedisBloom saves (`fp u32, count u32`, little-endian,
//! row-major), so RDB save writes them without a copy and load adopts the buffer it read.

use super::decay::{self, Chances, DecayTable};
use super::heap::{Expelled, Heap, Listed, SLOT_BYTES};
use super::params::Params;
use crate::core::divisor::Divisor;
use crate::core::hash::murmur2_32;
use crate::core::lanes::{for_each_lane_in_one_pass, Lanes, MAX_LANES};
use crate::core::relocate::{Mover, Relocate};
use crate::core::{try_copy, Error, Memory};

/// The seed of an item's fingerprint (RedisBloom's `GA`).
const FINGERPRINT_SEED: u32 = 1919;
/// Bytes of one bucket (`sizeof(Bucket)`).
const BUCKET_BYTES: u64 = 8;
/// The seeds of an item's one pass: the fingerprint's, then each row's index.
const SEEDS: Lanes = [
    FINGERPRINT_SEED,
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    14,
];
/// Rows whose bucket of the item `add` computes in that pass and keeps at hand (the rows after
/// are hashed again each time): the digest taken before a decay reads them all.
const CACHED_ROWS: usize = MAX_LANES - 1;
/// What RedisBloom's `TopKMemUsage` counts besides the buckets and the heap: its `TopK`
/// struct, 256 doubles of decay table included.
const STRUCT_BYTES: u64 = 2088;

/// RedisBloom's Top-K (`TopK`). Not `Clone`: a copy of user-sized arrays must be fallible
/// ([`TopK::try_clone`], for `COPY`).
#[derive(Debug, PartialEq)]
pub struct TopK {
    params: Params,
    /// `width × depth` buckets as RedisBloom saves them.
    buckets: Vec<u8>,
    heap: Heap,
    table: DecayTable,
}

impl Relocate for TopK {
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(&mut self.buckets);
        self.table.relocate(mover);
        self.heap.relocate(mover);
    }
}

impl TopK {
    /// An empty Top-K (`TopK_Create`). `OverLimit` or `OutOfMemory` when `memory` refuses
    /// its size, before anything is allocated.
    pub fn new(params: Params, memory: &Memory) -> Result<TopK, Error> {
        memory.check(memory_usage(&params).ok_or(Error::OutOfMemory)?)?;
        let buckets = memory.array(bucket_bytes(&params).ok_or(Error::OutOfMemory)?)?;
        let heap = Heap::empty(params.k, memory)?;
        TopK::from_parts(params, buckets, heap)
    }

    /// A Top-K from checked parameters, its buckets (`BadEncoding` unless exactly
    /// `width × depth` of them) and its heap of `k` slots.
    pub(super) fn from_parts(params: Params, buckets: Vec<u8>, heap: Heap) -> Result<TopK, Error> {
        if bucket_bytes(&params) != Some(buckets.len() as u64) {
            return Err(Error::BadEncoding);
        }
        Ok(TopK {
            params,
            buckets,
            heap,
            table: DecayTable::new(params.decay)?,
        })
    }

    /// An independent copy (`COPY`), or `OutOfMemory` instead of aborting the server.
    pub fn try_clone(&self) -> Result<TopK, Error> {
        TopK::from_parts(
            self.params,
            try_copy(&self.buckets)?,
            self.heap.try_clone()?,
        )
    }

    /// `TOPK.ADD` (increment 1) or one pair of `TOPK.INCRBY` (`TopK_Add`): counts the item in
    /// its bucket of every row, then, if its largest count reaches the heap's minimum,
    /// updates its count in the heap or puts it in place of the minimum. Returns the item
    /// that was expelled, if any (`nil` otherwise, and when the expelled slot was empty).
    ///
    /// `OutOfMemory` if the item's copy for the heap cannot be made; the buckets have then
    /// been counted already (RedisBloom would abort the server there).
    pub fn add(&mut self, item: &[u8], increment: u32) -> Result<Option<Expelled>, Error> {
        self.add_drawing(item, increment, &mut Chances::next)
    }

    /// [`TopK::add`] with the decay chances drawn by `draw`, in [0, 1], from the item's
    /// stream of chances.
    pub(super) fn add_drawing(
        &mut self,
        item: &[u8],
        increment: u32,
        draw: &mut impl FnMut(&mut Chances) -> f64,
    ) -> Result<Option<Expelled>, Error> {
        let positions = Positions::of(item, &self.params);
        let fp = positions.fp;
        let mut max_count = 0;
        let mut chances = None;
        for row in 0..self.params.depth {
            let at = positions.at(row);
            let (bucket_fp, count) = self.bucket(at);
            let (new_fp, new_count) = if count == 0 {
                (fp, increment)
            } else if bucket_fp == fp {
                (fp, count.wrapping_add(increment))
            } else {
                let mut attempt = Attempt {
                    bucket_count: count,
                    remaining: increment,
                };
                if self.decay(&positions, fp, &mut attempt, &mut chances, draw) {
                    (fp, attempt.remaining)
                } else {
                    (bucket_fp, attempt.bucket_count)
                }
            };
            if new_fp == fp {
                max_count = max_count.max(new_count);
            }
            self.set_bucket(at, new_fp, new_count);
        }
        self.heap.admit(fp, item, max_count)
    }

    /// Spends the increment of `attempt` on a bucket held by another fingerprint, one unit
    /// at a time: each unit decrements the bucket with probability `decay^count`. Returns
    /// whether the bucket reached 0 and was taken, with `attempt.remaining` then the units
    /// left for the new holder (the one that emptied it included); otherwise
    /// `attempt.bucket_count` is the bucket's count after the decrements.
    ///
    /// The item's stream of chances is seeded at its first draw in the command and kept in
    /// `chances` for the rows after.
    fn decay(
        &self,
        positions: &Positions,
        item_fp: u32,
        attempt: &mut Attempt,
        chances: &mut Option<Chances>,
        draw: &mut impl FnMut(&mut Chances) -> f64,
    ) -> bool {
        if self.params.decay >= 1.0 {
            // Every unit decrements (see `Chances`): the loop in closed form.
            let count = attempt.bucket_count;
            if count <= attempt.remaining {
                attempt.remaining -= count - 1;
                return true;
            }
            attempt.bucket_count -= attempt.remaining;
            return false;
        }
        let chances =
            chances.get_or_insert_with(|| Chances::seeded(item_fp, self.digest_of(positions)));
        while attempt.remaining > 0 {
            let probability = self.table.probability(attempt.bucket_count);
            if probability <= 0.0 {
                // No unit can decrement the bucket, whatever it draws.
                return false;
            }
            if draw(chances) < probability {
                attempt.bucket_count -= 1;
                if attempt.bucket_count == 0 {
                    return true;
                }
            }
            attempt.remaining -= 1;
        }
        false
    }

    /// `TOPK.QUERY`: whether the item is in the heap, with any count (0 included).
    pub fn query(&self, item: &[u8]) -> bool {
        self.heap.find(fingerprint(item), item).is_some()
    }

    /// `TOPK.COUNT`: the largest count of the item's buckets that hold its fingerprint; if
    /// the item is in the heap, only counts at least the heap's minimum take part.
    pub fn count(&self, item: &[u8]) -> u32 {
        let positions = Positions::of(item, &self.params);
        let fp = positions.fp;
        let heap_min = self.heap.min_count();
        let in_heap = self.heap.find(fp, item).is_some();
        (0..self.params.depth)
            .map(|row| self.bucket(positions.at(row)))
            .filter(|&(bucket_fp, count)| bucket_fp == fp && (!in_heap || count >= heap_min))
            .map(|(_, count)| count)
            .max()
            .unwrap_or(0)
    }

    /// `TOPK.LIST`: the heap's items by count, largest first, ties in heap order, without
    /// those of count 0.
    pub fn list(&self) -> Result<Vec<Listed<'_>>, Error> {
        self.heap.listed()
    }

    /// The parameters (`TOPK.INFO`).
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// What `MEMORY USAGE` counts for this Top-K, as RedisBloom's `TopKMemUsage` does:
    /// `2088 + 8 × width × depth + 24 × k` (its items are not counted).
    pub fn memory_usage(&self) -> u64 {
        memory_usage(&self.params).unwrap_or(u64::MAX)
    }

    /// The buckets as RedisBloom saves them.
    pub(super) fn saved_buckets(&self) -> &[u8] {
        &self.buckets
    }

    pub(super) fn heap(&self) -> &Heap {
        &self.heap
    }

    fn bucket(&self, at: usize) -> (u32, u32) {
        let (buckets, _) = self.buckets.as_chunks::<{ BUCKET_BYTES as usize }>();
        buckets.get(at).map_or((0, 0), |bucket| {
            let (fp, count) = bucket.split_at(4);
            (le_u32(fp), le_u32(count))
        })
    }

    fn set_bucket(&mut self, at: usize, fp: u32, count: u32) {
        let (buckets, _) = self.buckets.as_chunks_mut::<{ BUCKET_BYTES as usize }>();
        if let Some(bucket) = buckets.get_mut(at) {
            let (fp_bytes, count_bytes) = bucket.split_at_mut(4);
            fp_bytes.copy_from_slice(&fp.to_le_bytes());
            count_bytes.copy_from_slice(&count.to_le_bytes());
        }
    }

    /// A digest of the item's bucket in every row, as they are now.
    fn digest_of(&self, positions: &Positions) -> u64 {
        decay::digest((0..self.params.depth).map(|row| self.bucket(positions.at(row))))
    }
}

/// The bucket of `item` in `row`. RedisBloom computes `row × width` in 32 bits; it wraps
/// only past 2^32 buckets, where the result stays inside the sketch all the same.
///
/// Only rows past the cached ones come here. Kept out of line: inlined, its hashing's setup
/// was hoisted into `add` and paid on every call (about 25 instructions).
#[cold]
#[inline(never)]
fn bucket_of(columns: Divisor, item: &[u8], row: u32) -> usize {
    bucket_at(columns, row, murmur2_32(item, row))
}

/// The bucket in `row` of an item whose hash under that row's seed is `hash`, in a sketch
/// `columns` wide (a Top-K's width fits 32 bits).
fn bucket_at(columns: Divisor, row: u32, hash: u32) -> usize {
    let width = columns.divisor() as u32;
    row.wrapping_mul(width) as usize + columns.remainder(hash) as usize
}

/// The state of one decay attempt.
struct Attempt {
    /// The bucket's count, before this attempt and then after each unit spent.
    bucket_count: u32,
    /// The units of the increment not yet spent, the next one included (RedisBloom's
    /// `local_incr`).
    remaining: u32,
}

/// An item's fingerprint and its bucket in every row. The fingerprint and the first
/// [`CACHED_ROWS`] rows are hashed in one pass, rows past them each time they are asked for.
pub(super) struct Positions<'a> {
    item: &'a [u8],
    columns: Divisor,
    /// The item's fingerprint.
    pub(super) fp: u32,
    cached: [usize; CACHED_ROWS],
}

impl Positions<'_> {
    // Inlined into `add`: returned from a call, the positions were copied once more on the
    // stack (21 instructions a `TOPK.ADD`).
    #[inline(always)]
    pub(super) fn of<'a>(item: &'a [u8], params: &Params) -> Positions<'a> {
        let columns = params.columns;
        let rows = (params.depth as usize).min(CACHED_ROWS);
        let mut fp = 0;
        let mut cached = [0; CACHED_ROWS];
        for_each_lane_in_one_pass(item, &SEEDS, 1 + rows, |lane, hash| {
            match lane.checked_sub(1) {
                None => fp = hash,
                Some(row) => {
                    if let Some(at) = cached.get_mut(row) {
                        *at = bucket_at(columns, row as u32, hash);
                    }
                }
            }
        });
        Positions {
            item,
            columns,
            fp,
            cached,
        }
    }

    /// The item's bucket in `row`.
    pub(super) fn at(&self, row: u32) -> usize {
        match self.cached.get(row as usize) {
            Some(&at) => at,
            None => bucket_of(self.columns, self.item, row),
        }
    }
}

/// An item's fingerprint: MurmurHash2 seeded with 1919.
fn fingerprint(item: &[u8]) -> u32 {
    murmur2_32(item, FINGERPRINT_SEED)
}

fn le_u32(bytes: &[u8]) -> u32 {
    bytes.try_into().map_or(0, u32::from_le_bytes)
}

/// Bytes of the buckets, or `None` past `u64` (it cannot be, from `u32` dimensions).
pub(super) fn bucket_bytes(params: &Params) -> Option<u64> {
    u64::from(params.width)
        .checked_mul(u64::from(params.depth))?
        .checked_mul(BUCKET_BYTES)
}

/// What `MEMORY USAGE` counts for a Top-K of these parameters (its buckets of `bucket_bytes`
/// each, its heap and its struct).
pub(super) fn memory_usage(params: &Params) -> Option<u64> {
    bucket_bytes(params)?
        .checked_add(u64::from(params.k) * SLOT_BYTES)?
        .checked_add(STRUCT_BYTES)
}
