//! A valkey-bloom object (its `BloomObject`, valkey-bloom 1.0 `src/bloom/utils.rs`): the
//! parameters every sub-filter derives from — expansion (0 for a non-scaling object), error
//! rate, tightening ratio, whether the seed was drawn at random — and the sub-filters, each
//! made when the previous one is full, with the capacity × expansion and the error rate ×
//! tightening^n, under the first one's seed.
//!
//! Sizes are valkey-bloom's to the byte, as `BF.INFO … SIZE`, `MEMORY USAGE` and its memory
//! limit count them: its structs on a 64-bit build (48 bytes for the object, 8 per slot of its
//! vector of sub-filters, 208 per sub-filter beside its bitmap), and the vector's capacity as
//! Rust grows it, which its RDB load and COPY keep. Its `BF.LOAD` makes the capacity exactly
//! the count, so a filter's size changes by an AOF rewrite there; here it does not.

use super::filter::{bitmap_bytes, Hashes, Seed, SubFilter};
use crate::core::bf::chain::MergeError;
use crate::core::bf::estimate::past_capacity;
use crate::core::relocate::{Mover, Relocate};
use crate::core::{try_vec, Error, Memory};

/// valkey-bloom's fixed seed (`configs.rs` `FIXED_SEED`), for objects made without a random
/// one; an object whose seed is not random must have it.
pub const FIXED_SEED: Seed = [
    89, 15, 245, 34, 234, 120, 17, 218, 167, 20, 216, 9, 59, 62, 123, 217, 29, 137, 138, 115, 62,
    152, 136, 135, 48, 127, 151, 205, 40, 7, 51, 131,
];
/// valkey-bloom's default per-object limit (`bf.bloom-memory-usage-limit`, 128 MiB), which its
/// commands enforce before they create or grow an object.
pub const OBJECT_LIMIT: u64 = 128 << 20;
/// `size_of::<BloomObject>()`.
const OBJECT_BYTES: u64 = 48;
/// A slot of its vector of sub-filters (a box).
const SLOT_BYTES: u64 = 8;
/// `size_of::<BloomFilter>() + size_of::<bloomfilter::Bloom<[u8]>>()`.
const FILTER_BYTES: u64 = 24 + 184;

/// What an object is made with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Items of the first sub-filter.
    pub capacity: i64,
    /// Error rate of the first sub-filter, in (0, 1).
    pub fp_rate: f64,
    /// Each added sub-filter's error rate is the previous one's times this, in (0, 1).
    pub tightening: f64,
    /// Each added sub-filter's capacity is the previous one's times this; 0: non-scaling.
    pub expansion: u32,
    /// The seed of every sub-filter.
    pub seed: Seed,
    /// Whether the seed was drawn at random (else it is [`FIXED_SEED`]).
    pub seed_random: bool,
}

/// Why an item could not be added; the object is then unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddError {
    /// A non-scaling object holds its capacity (`ERR non scaling filter is full`).
    Full,
    /// The next sub-filter's error rate would be 0 (`ERR false positive degrades to 0 on
    /// scale out`).
    FalsePositiveDegrades,
    /// The next sub-filter's capacity passes 2⁶³ (`ERR bad capacity`).
    CapacityOverflow,
    /// The next sub-filter would take the object past its limit, or the machine's.
    Memory(Error),
}

/// A valkey-bloom object.
#[derive(Debug, PartialEq)]
pub struct ValkeyBloom {
    expansion: u32,
    fp_rate: f64,
    tightening: f64,
    seed_random: bool,
    filters: Vec<SubFilter>,
    /// The capacity valkey-bloom's vector of sub-filters has (its memory counts it).
    slots: usize,
}

impl Relocate for ValkeyBloom {
    fn relocate(&mut self, mover: &mut impl Mover) {
        self.filters.relocate(mover);
    }
}

/// Rust's growth of a vector that holds `capacity` and must hold one more: double, at least 4.
fn grown(capacity: usize) -> usize {
    capacity.saturating_mul(2).max(capacity + 1).max(4)
}

/// The capacity of a vector that grew from 1 to hold `len` (valkey-bloom's RDB load).
fn slots_grown_to(len: usize) -> usize {
    let mut slots = 1;
    while slots < len {
        slots = grown(slots);
    }
    slots
}

/// The error rate of sub-filter `n` (0 the first), or `FalsePositiveDegrades` once it is no
/// longer above the smallest normal double (valkey-bloom's `calculate_fp_rate`).
pub fn nth_fp_rate(fp_rate: f64, tightening: f64, n: usize) -> Result<f64, AddError> {
    let n = i32::try_from(n).map_err(|_| AddError::FalsePositiveDegrades)?;
    let rate = fp_rate * tightening.powi(n);
    if rate > f64::MIN_POSITIVE {
        Ok(rate)
    } else {
        Err(AddError::FalsePositiveDegrades)
    }
}

/// What a sub-filter of `capacity` items at `fp_rate` adds to an object's memory, or `None`
/// past `u64`.
fn filter_bytes(capacity: i64, fp_rate: f64) -> Option<u64> {
    FILTER_BYTES.checked_add(bitmap_bytes(capacity, fp_rate)?)
}

impl ValkeyBloom {
    /// A new object of one empty sub-filter. `limit` bounds its size (valkey-bloom's object
    /// limit, where it applies); `memory` the machine's.
    pub fn new(params: Params, limit: u64, memory: &Memory) -> Result<ValkeyBloom, Error> {
        let bytes = filter_bytes(params.capacity, params.fp_rate)
            .and_then(|b| b.checked_add(OBJECT_BYTES + SLOT_BYTES))
            .ok_or(Error::OutOfMemory)?;
        if bytes > limit {
            return Err(Error::OverLimit);
        }
        memory.check(bytes)?;
        let first = SubFilter::new(params.capacity, params.fp_rate, &params.seed, memory)?;
        let mut filters = try_vec(1)?;
        filters.push(first);
        Ok(ValkeyBloom {
            expansion: params.expansion,
            fp_rate: params.fp_rate,
            tightening: params.tightening,
            seed_random: params.seed_random,
            filters,
            slots: 1,
        })
    }

    /// A saved object, from an RDB value or a `BF.LOAD` payload alike: `BadEncoding` unless it
    /// has a sub-filter, its rates are in (0, 1), every sub-filter has the first one's seed, a
    /// seed that is not random is the fixed one, and every sub-filter but the last is full. The
    /// RDB format can hold nothing else (it saves no seed flag per sub-filter and no item count
    /// but the last), so whatever loads here saves and loads back the same. valkey-bloom's
    /// `BF.LOAD` takes the last two unchecked; its RDB load refuses the seed, and rewrites the
    /// counts.
    pub fn from_saved(
        params: (u32, f64, f64, bool),
        filters: Vec<SubFilter>,
    ) -> Result<ValkeyBloom, Error> {
        let (expansion, fp_rate, tightening, seed_random) = params;
        let in_unit = |x: f64| x > 0.0 && x < 1.0;
        let seed = filters.first().ok_or(Error::BadEncoding)?.seed();
        let earlier = filters.get(..filters.len() - 1).unwrap_or_default();
        if !in_unit(fp_rate)
            || !in_unit(tightening)
            || filters.iter().any(|f| f.seed() != seed)
            || (!seed_random && seed != FIXED_SEED)
            || earlier.iter().any(|f| f.items != f.capacity)
        {
            return Err(Error::BadEncoding);
        }
        let slots = slots_grown_to(filters.len());
        Ok(ValkeyBloom {
            expansion,
            fp_rate,
            tightening,
            seed_random,
            filters,
            slots,
        })
    }

    /// Whether an item is (probably) in any sub-filter.
    pub fn contains(&self, item: &[u8]) -> bool {
        let hashes = Hashes::of(&self.seed(), item);
        self.filters.iter().any(|f| f.check(hashes))
    }

    /// Adds an item: `Ok(false)` if it was (probably) there, `Ok(true)` if added, scaling out
    /// by a sub-filter when the last is full. `limit` bounds the object's size on a scale-out
    /// (valkey-bloom skips it for replicated commands).
    pub fn add(&mut self, item: &[u8], limit: u64, memory: &Memory) -> Result<bool, AddError> {
        let hashes = Hashes::of(&self.seed(), item);
        if self.filters.iter().any(|f| f.check(hashes)) {
            return Ok(false);
        }
        let count = self.filters.len();
        let Some(last) = self.filters.last_mut() else {
            return Ok(false);
        };
        if last.items < last.capacity {
            last.set(hashes);
            last.items += 1;
            return Ok(true);
        }
        if self.expansion == 0 {
            return Err(AddError::Full);
        }
        let fp_rate = nth_fp_rate(self.fp_rate, self.tightening, count)?;
        let capacity = last
            .capacity
            .checked_mul(i64::from(self.expansion))
            .ok_or(AddError::CapacityOverflow)?;
        let bytes = filter_bytes(capacity, fp_rate)
            .and_then(|b| b.checked_add(self.memory_usage()))
            .ok_or(AddError::Memory(Error::OutOfMemory))?;
        if bytes > limit {
            return Err(AddError::Memory(Error::OverLimit));
        }
        memory.check(bytes).map_err(AddError::Memory)?;
        let mut next =
            SubFilter::new(capacity, fp_rate, &self.seed(), memory).map_err(AddError::Memory)?;
        self.filters
            .try_reserve(1)
            .map_err(|_| AddError::Memory(Error::OutOfMemory))?;
        next.set(hashes);
        next.items = 1;
        if self.filters.len() == self.slots {
            self.slots = grown(self.slots);
        }
        self.filters.push(next);
        Ok(true)
    }

    /// Whether `items` fit a non-scaling object before any is added (valkey-bloom's
    /// `validate_add_items`): the distinct items not (probably) in it must fit its room.
    pub fn fits(&self, items: &[&[u8]]) -> bool {
        if self.expansion != 0 {
            return true;
        }
        let room = self
            .filters
            .last()
            .map_or(0, |f| f.capacity.saturating_sub(f.items));
        let mut new = std::collections::HashSet::new();
        for &item in items {
            if !self.contains(item) && new.insert(item) && new.len() as i64 > room {
                return false;
            }
        }
        true
    }

    /// The seed every sub-filter hashes with.
    pub fn seed(&self) -> Seed {
        self.filters.first().map_or(FIXED_SEED, SubFilter::seed)
    }

    /// Items added (`BF.CARD`).
    pub fn items(&self) -> i64 {
        self.filters
            .iter()
            .map(|f| f.items)
            .fold(0, i64::saturating_add)
    }

    /// The sum of the sub-filters' capacities.
    pub fn capacity(&self) -> i64 {
        self.filters
            .iter()
            .map(|f| f.capacity)
            .fold(0, i64::saturating_add)
    }

    /// The first sub-filter's capacity.
    pub fn first_capacity(&self) -> i64 {
        self.filters.first().map_or(0, |f| f.capacity)
    }

    /// Expansion (0: non-scaling).
    pub fn expansion(&self) -> u32 {
        self.expansion
    }

    /// The first sub-filter's error rate.
    pub fn fp_rate(&self) -> f64 {
        self.fp_rate
    }

    /// The tightening ratio.
    pub fn tightening(&self) -> f64 {
        self.tightening
    }

    /// Whether the seed was drawn at random.
    pub fn seed_random(&self) -> bool {
        self.seed_random
    }

    /// The sub-filters, oldest first.
    pub fn filters(&self) -> &[SubFilter] {
        &self.filters
    }

    /// Bytes, as valkey-bloom counts them (`BF.INFO … SIZE`, `MEMORY USAGE`).
    pub fn memory_usage(&self) -> u64 {
        let filters: u64 = self
            .filters
            .iter()
            .map(|f| FILTER_BYTES + f.bitmap_len())
            .sum();
        OBJECT_BYTES + SLOT_BYTES * self.slots as u64 + filters
    }

    /// The union of `objects` (at least one) for `BF.MERGE`, built beside them from a copy
    /// of the one with the most sub-filters: sub-filter `i` ORs in every other object's
    /// sub-filter `i`. They combine when they have one expansion, error rate, tightening ratio,
    /// seed and first capacity (which fix every later sub-filter). valkey-bloom's format keeps
    /// every sub-filter but the newest at exactly its capacity and has no way to say one is
    /// past it, so a union that would put a sub-filter past its capacity (beyond four
    /// standard deviations of the estimate, as `Chain::union`) is refused, `OVERFILL` or not;
    /// the newest counts what its bits hold, never fewer than its largest part. `limit`
    /// bounds the union's size (valkey-bloom's object limit), `memory` the machine's.
    pub fn union(
        objects: &[&ValkeyBloom],
        limit: u64,
        memory: &Memory,
    ) -> Result<ValkeyBloom, MergeError> {
        let (first, others) = objects.split_first().ok_or(MergeError::ShapesDiffer)?;
        for other in others {
            combines(first, other)?;
        }
        let base = objects.iter().copied().fold(*first, |most, o| {
            if o.filters.len() > most.filters.len() {
                o
            } else {
                most
            }
        });
        let bytes = base.memory_usage();
        if bytes > limit {
            return Err(MergeError::Memory(Error::OverLimit));
        }
        memory.check(bytes).map_err(MergeError::Memory)?;
        let mut union = base.try_clone().map_err(MergeError::Memory)?;
        let newest = union.filters.len() - 1;
        for (i, sub) in union.filters.iter_mut().enumerate() {
            let parts = objects.iter().filter(|o| !std::ptr::eq(**o, base));
            let mut most = sub.items;
            let mut merged = false;
            for part in parts.filter_map(|o| o.filters.get(i)) {
                sub.or_from(part).map_err(|_| MergeError::ShapesDiffer)?;
                most = most.max(part.items);
                merged = true;
            }
            if !merged {
                continue;
            }
            let (estimate, spread) = sub.estimated_items();
            let capacity = u64::try_from(sub.capacity).unwrap_or(0);
            if past_capacity(estimate, spread, capacity) {
                return Err(MergeError::PastCapacity(i));
            }
            let counted = i64::try_from(estimate.min(capacity)).unwrap_or(i64::MAX);
            sub.items = if i < newest {
                sub.capacity
            } else {
                most.max(counted)
            };
        }
        Ok(union)
    }

    /// An independent copy (`COPY`: the same vector capacity), or `OutOfMemory`.
    pub fn try_clone(&self) -> Result<ValkeyBloom, Error> {
        let mut filters = try_vec(self.filters.len())?;
        for filter in &self.filters {
            filters.push(filter.try_clone()?);
        }
        Ok(ValkeyBloom { filters, ..*self })
    }

    /// The total capacity the object can reach by scaling out before its next sub-filter would
    /// pass `limit` bytes or its error rate reach 0 (valkey-bloom's
    /// `calculate_max_scaled_capacity`, as `BF.INFO` shows it).
    pub fn max_scaled_capacity(&self, limit: u64) -> i64 {
        match scaled_capacity(
            self.first_capacity(),
            self.fp_rate,
            self.tightening,
            self.expansion,
            limit,
            None,
        ) {
            Ok(total) | Err((total, Stop::Memory | Stop::FalsePositive)) => total,
            Err((_, Stop::Capacity)) => -1,
        }
    }
}

/// Why an object stops scaling before a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The next sub-filter would pass the limit.
    Memory,
    /// The next sub-filter's error rate would be 0.
    FalsePositive,
    /// The next sub-filter's capacity passes 2⁶³.
    Capacity,
}

/// Whether `other` combines with `first` in a union, or what differs.
fn combines(first: &ValkeyBloom, other: &ValkeyBloom) -> Result<(), MergeError> {
    if (first.expansion == 0) != (other.expansion == 0) {
        return Err(MergeError::ScalingDiffers);
    }
    if first.expansion != other.expansion {
        return Err(MergeError::ExpansionsDiffer);
    }
    if first.seed() != other.seed() {
        return Err(MergeError::HashingDiffers);
    }
    if first.first_capacity() != other.first_capacity() {
        return Err(MergeError::CapacitiesDiffer);
    }
    if first.fp_rate != other.fp_rate || first.tightening != other.tightening {
        return Err(MergeError::ErrorRatesDiffer);
    }
    let same_places = first.filters.iter().zip(&other.filters).all(|(a, b)| {
        a.capacity == b.capacity && a.bitmap_len() == b.bitmap_len() && a.probes() == b.probes()
    });
    if !same_places {
        return Err(MergeError::ShapesDiffer);
    }
    Ok(())
}

/// How far an object of these parameters scales: the total capacity of its sub-filters, made
/// one by one, until the total reaches `target` (`VALIDATESCALETO`, `Some`) or, without one,
/// as far as it goes (valkey-bloom's `calculate_max_scaled_capacity`). `Err` with the total so
/// far and why, when it stops short of the target or cannot go on.
pub fn scaled_capacity(
    capacity: i64,
    fp_rate: f64,
    tightening: f64,
    expansion: u32,
    limit: u64,
    target: Option<i64>,
) -> Result<i64, (i64, Stop)> {
    let (mut next, mut total, mut filters_bytes) = (capacity, 0i64, 0u64);
    let mut n: usize = 0;
    while target.is_none_or(|target| total < target) {
        let Ok(rate) = nth_fp_rate(fp_rate, tightening, n) else {
            return Err((total, Stop::FalsePositive));
        };
        let slots = if n == 0 {
            1
        } else {
            (n + 1).max(4).next_power_of_two()
        };
        let bytes = filter_bytes(next, rate).unwrap_or(u64::MAX);
        let object = (OBJECT_BYTES + SLOT_BYTES * slots as u64)
            .saturating_add(filters_bytes)
            .saturating_add(bytes);
        if object > limit {
            return Err((total, Stop::Memory));
        }
        filters_bytes = filters_bytes.saturating_add(bytes);
        total = total.saturating_add(next);
        next = next
            .checked_mul(i64::from(expansion))
            .ok_or((total, Stop::Capacity))?;
        n += 1;
    }
    Ok(total)
}
