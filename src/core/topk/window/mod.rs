//! Top-Ks that forget: the heaviest items of the last `n` updates (a count window) or of the
//! last `n` milliseconds (a time window). Data type `tk-window`; RedisBloom has none.
//!
//! HeavyKeeper with aligned time slots: the window is cut into `slots` slots, `slot(t) = ⌊t ·
//! slots / window⌋` (`t` the write's time in milliseconds or, for count windows, the updates —
//! `TOPK.ADD` items, `TOPK.INCRBY` pairs — applied before it). Every bucket holds a
//! fingerprint, the slot of its newest count (its tag) and `slots + 1` counts, one per slot,
//! at `slot mod (slots + 1)`; its *window count* at slot `s` is the sum of its counts of the
//! slots `s − slots ..= s`.
//!
//! * A write first ages each bucket it touches to its slot (clearing the counts of the slots
//!   passed since its tag: nothing array-wide, ever), then counts as HeavyKeeper does with the
//!   window count: an empty bucket is taken, the item's own bucket counts up, another's decays
//!   with probability `decay^(window count)` per unit, its oldest count first, and is taken when
//!   it reaches 0. The chances come from the same deterministic stream as the classic Top-K's
//!   (`super::decay`), seeded by the item and its buckets' window counts.
//! * The heap keeps the k items with the largest window counts, as RedisBloom's keeps the
//!   heaviest: the same admission rule and the same expelled-item reply. When a write opens a
//!   new slot, every item of the heap is counted again at that slot and the heap rebuilt.
//! * Reads count at the reader's slot, without writing: what expired is skipped.
//!
//! A bucket's window count never exceeds its holder's updates of the last window and slot
//! (barring 32-bit fingerprint collisions; decay only lowers it), and an item leaves the list
//! at most a window and a slot after its last update.

/// The RDB and DUMP format of `tk-window`.
pub mod rdb;
mod shape;
/// Its periods are its slots.
impl Forgets for WindowTopK {
    fn clock(&self) -> &Clock {
        &self.clock
    }

    fn move_to_period(&mut self, period: u64) {
        self.open(period);
    }
}

#[cfg(test)]
mod tests;

use super::decay::{self, Chances, DecayTable};
use super::heap::{Expelled, Heap, Listed};
use super::sketch::Positions;
use crate::core::relocate::{Mover, Relocate};
use crate::core::window::{fill_ring, in_ring, ring_place, Clock, Forgets};
pub use crate::core::window::{Window, DEFAULT_SLOTS, MAX_SLOTS};
use crate::core::{try_copy, try_filled, try_vec, Error, Memory};
pub use shape::Shape;
use shape::{HEAD_BYTES, HOLDER_BYTES};

/// A Top-K that forgets. Not `Clone`: copies are fallible ([`WindowTopK::try_clone`]).
#[derive(Debug, PartialEq)]
pub struct WindowTopK {
    shape: Shape,
    /// The newest slot a write opened, and the updates applied.
    clock: Clock,
    /// Increments per slot, slot `s` at `s mod (slots + 1)`.
    totals: Vec<u64>,
    /// `width × depth` buckets, row-major, each `fp u32, tag u64, counts u32 × (slots + 1)`,
    /// little-endian.
    buckets: Vec<u8>,
    heap: Heap,
    table: DecayTable,
}

impl Relocate for WindowTopK {
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(&mut self.totals);
        mover.vector(&mut self.buckets);
        self.table.relocate(mover);
        self.heap.relocate(mover);
    }
}

impl WindowTopK {
    /// An empty Top-K of `shape`, its clock at `now` (milliseconds; count windows start at
    /// 0). `OverLimit` or `OutOfMemory` when `memory` refuses its size, before allocating.
    pub fn new(shape: Shape, now: u64, memory: &Memory) -> Result<WindowTopK, Error> {
        memory.check(shape.memory_usage().ok_or(Error::OutOfMemory)?)?;
        let buckets = memory.array(shape.buckets_bytes().ok_or(Error::OutOfMemory)?)?;
        let heap = Heap::empty(shape.params.k(), memory)?;
        let clock = Clock::started(shape.window, shape.slots, now);
        WindowTopK::from_parts(shape, clock, zeroed_totals(&shape)?, buckets, heap)
    }

    /// A Top-K from its checked shape and its parts; `BadEncoding` unless they fit the shape.
    fn from_parts(
        shape: Shape,
        clock: Clock,
        totals: Vec<u64>,
        buckets: Vec<u8>,
        heap: Heap,
    ) -> Result<WindowTopK, Error> {
        if shape.buckets_bytes() != Some(buckets.len() as u64) || totals.len() != shape.counts() {
            return Err(Error::BadEncoding);
        }
        Ok(WindowTopK {
            shape,
            clock,
            totals,
            buckets,
            heap,
            table: DecayTable::new(shape.params.decay())?,
        })
    }

    /// An independent copy (`COPY`), or `OutOfMemory`.
    pub fn try_clone(&self) -> Result<WindowTopK, Error> {
        let mut totals = zeroed_totals(&self.shape)?;
        totals.copy_from_slice(&self.totals);
        WindowTopK::from_parts(
            self.shape,
            self.clock,
            totals,
            try_copy(&self.buckets)?,
            self.heap.try_clone()?,
        )
    }

    /// The shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// What `MEMORY USAGE` counts.
    pub fn memory_usage(&self) -> u64 {
        self.shape.memory_usage().unwrap_or(u64::MAX)
    }

    /// The newest slot a write opened.
    pub fn slot(&self) -> u64 {
        self.clock.newest()
    }

    /// `TOPK.ADD` (increment 1) or one pair of `TOPK.INCRBY`, at time `now` (milliseconds;
    /// `None`: at the newest slot held, as a replayed write) or, for count windows, at the next
    /// update: counts the item in its bucket of every row, then updates the heap as RedisBloom
    /// does with the item's window count. Returns the item expelled, if any.
    ///
    /// `OutOfMemory` if the item's copy for the heap cannot be made; the buckets have then
    /// been counted already.
    pub fn add(
        &mut self,
        item: &[u8],
        increment: u32,
        now: Option<u64>,
    ) -> Result<Option<Expelled>, Error> {
        let slot = self.clock.write_period(now);
        self.open(slot);
        self.clock.count_update();
        let at = ring_place(self.shape.counts(), slot);
        if let Some(total) = self.totals.get_mut(at) {
            *total = total.saturating_add(u64::from(increment));
        }
        let positions = Positions::of(item, &self.shape.params);
        let fp = positions.fp;
        let mut chances = None;
        let mut max_count = 0u64;
        for row in 0..self.shape.params.depth() {
            let bucket = positions.at(row);
            let held = match self.count_in(bucket, slot, at, fp, increment) {
                Ok(count) => {
                    max_count = max_count.max(count);
                    continue;
                }
                Err(held) => held,
            };
            let chances = chances
                .get_or_insert_with(|| Chances::seeded(fp, self.digest_of(&positions, slot)));
            // A bucket the item did not take is still another's, and counts nothing for it.
            if self.decay(bucket, fp, at, held, increment, chances) {
                let bucket = self.bucket(bucket);
                max_count = max_count.max(bucket.window_count(&self.shape, slot));
            }
        }
        let max_count = u32::try_from(max_count).unwrap_or(u32::MAX);
        self.heap.admit(fp, item, max_count)
    }

    /// `TOPK.QUERY` at time `now`: whether the item is in the heap with a window count above 0.
    pub fn query(&self, item: &[u8], now: u64) -> bool {
        let positions = Positions::of(item, &self.shape.params);
        self.heap.find(positions.fp, item).is_some()
            && self.count_at(&positions, self.clock.read_period(now)) > 0
    }

    /// `TOPK.COUNT` at time `now`: the largest window count of the item's buckets that hold
    /// its fingerprint.
    pub fn count(&self, item: &[u8], now: u64) -> u32 {
        self.item_count(item, self.clock.read_period(now))
    }

    /// `TOPK.LIST` at time `now`: the heap's items by window count, largest first, ties in
    /// heap order, without those of count 0.
    pub fn list(&self, now: u64) -> Result<Vec<Listed<'_>>, Error> {
        let slot = self.clock.read_period(now);
        let mut listed = try_vec(self.shape.params.k() as usize)?;
        let counted = self.heap.entries().map(|(heap_slot, _, item)| {
            let count = self.item_count(item, slot);
            (heap_slot, Listed { item, count })
        });
        listed.extend(counted.filter(|(_, listed)| listed.count > 0));
        listed.sort_unstable_by_key(|&(heap_slot, listed)| {
            (std::cmp::Reverse(listed.count), heap_slot)
        });
        Ok(listed.into_iter().map(|(_, listed)| listed).collect())
    }

    /// The increments of the window at time `now` (`TOPK.INFO`'s `window_count`).
    pub fn window_total(&self, now: u64) -> u64 {
        let oldest = self.clock.read_period(now).saturating_sub(self.shape.slots);
        let first = oldest.max(self.slot().saturating_sub(self.shape.slots));
        in_ring(&self.totals, first, self.slot()).fold(0, |sum, &total| sum.saturating_add(total))
    }

    /// Opens `slot` (nothing if it is not newer): the totals of the slots passed are cleared,
    /// and every item of the heap counted again at it.
    fn open(&mut self, slot: u64) {
        if slot <= self.slot() {
            return;
        }
        fill_ring(&mut self.totals, self.clock.newest() + 1, slot, 0);
        self.clock.move_to(slot);
        let mut heap = std::mem::take(&mut self.heap);
        heap.recount_all(|_, item| self.item_count(item, slot));
        self.heap = heap;
    }

    /// The largest window count at `slot` of the item's buckets that hold its fingerprint.
    fn item_count(&self, item: &[u8], slot: u64) -> u32 {
        self.count_at(&Positions::of(item, &self.shape.params), slot)
    }

    /// [`item_count`](Self::item_count) of an item of these positions.
    fn count_at(&self, positions: &Positions, slot: u64) -> u32 {
        let count = (0..self.shape.params.depth())
            .map(|row| self.bucket(positions.at(row)))
            .filter(|bucket| bucket.fp == positions.fp)
            .map(|bucket| bucket.window_count(&self.shape, slot))
            .max()
            .unwrap_or(0);
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// Bucket `bucket`, read in place.
    fn bucket(&self, bucket: usize) -> Bucket<'_> {
        let record = self.record(bucket);
        let (head, counts) = record.split_at_checked(HEAD_BYTES).unwrap_or_default();
        let fp = head.get(..HOLDER_BYTES).and_then(|b| b.try_into().ok());
        let tag = head
            .get(HOLDER_BYTES..HEAD_BYTES)
            .and_then(|b| b.try_into().ok());
        Bucket {
            fp: fp.map_or(0, u32::from_le_bytes),
            tag: tag.map_or(0, u64::from_le_bytes),
            counts: counts.as_chunks::<4>().0,
        }
    }

    fn record(&self, bucket: usize) -> &[u8] {
        let size = self.shape.bucket_bytes();
        self.buckets
            .get(bucket * size..(bucket + 1) * size)
            .unwrap_or(&[])
    }

    fn record_mut(&mut self, bucket: usize) -> &mut [u8] {
        let size = self.shape.bucket_bytes();
        self.buckets
            .get_mut(bucket * size..(bucket + 1) * size)
            .unwrap_or(&mut [])
    }

    /// Bucket `bucket`'s head (holder and tag) and counts, to change in place.
    fn parts_mut(&mut self, bucket: usize) -> Option<(&mut [u8], &mut [[u8; 4]])> {
        let (head, counts) = self.record_mut(bucket).split_at_mut_checked(HEAD_BYTES)?;
        Some((head, counts.as_chunks_mut::<4>().0))
    }

    /// The bucket's count of slot index `at`.
    fn slot_count(&self, bucket: usize, at: usize) -> u32 {
        let count = self.bucket(bucket).counts.get(at).copied();
        count.map_or(0, u32::from_le_bytes)
    }

    fn set_slot_count(&mut self, bucket: usize, at: usize, count: u32) {
        if let Some(slot) = self
            .parts_mut(bucket)
            .and_then(|(_, counts)| counts.get_mut(at))
        {
            *slot = count.to_le_bytes();
        }
    }

    fn set_holder(&mut self, bucket: usize, fp: u32, tag: u64) {
        let record = self.record_mut(bucket);
        if let Some(bytes) = record.get_mut(..HOLDER_BYTES) {
            bytes.copy_from_slice(&fp.to_le_bytes());
        }
        if let Some(bytes) = record.get_mut(HOLDER_BYTES..HEAD_BYTES) {
            bytes.copy_from_slice(&tag.to_le_bytes());
        }
    }

    /// Brings the bucket to `slot` (the counts of the slots since its tag are cleared), then,
    /// if it is empty there or the item's (`fp`), counts `increment` in it and returns its new
    /// window count; else returns its window count, held by another, to decay. One pass over
    /// the bucket's bytes: most writes end here.
    fn count_in(
        &mut self,
        bucket: usize,
        slot: u64,
        at: usize,
        fp: u32,
        increment: u32,
    ) -> Result<u64, u64> {
        let Some((head, counted)) = self.parts_mut(bucket) else {
            return Err(0);
        };
        let (holder, tag) = head.split_at_mut(HOLDER_BYTES);
        let old_tag = tag.try_into().map_or(0, u64::from_le_bytes);
        if old_tag < slot {
            fill_ring(counted, old_tag + 1, slot, [0; 4]);
            tag.copy_from_slice(&slot.to_le_bytes());
        }
        let held: u64 = counted
            .iter()
            .map(|c| u64::from(u32::from_le_bytes(*c)))
            .sum();
        let holder_fp = (&*holder).try_into().map_or(0, u32::from_le_bytes);
        if held != 0 && holder_fp != fp {
            return Err(held);
        }
        holder.copy_from_slice(&fp.to_le_bytes());
        if let Some(count) = counted.get_mut(at) {
            *count = u32::from_le_bytes(*count)
                .saturating_add(increment)
                .to_le_bytes();
        }
        Ok(held + u64::from(increment))
    }

    /// The item `fp` counts `increment` in its own (or an empty) aged bucket, at slot index
    /// `at`.
    fn take(&mut self, bucket: usize, fp: u32, at: usize, increment: u32) {
        let tag = self.bucket(bucket).tag;
        self.set_holder(bucket, fp, tag);
        let count = self.slot_count(bucket, at).saturating_add(increment);
        self.set_slot_count(bucket, at, count);
    }

    /// Spends `increment` on an aged bucket held by another fingerprint, whose window count
    /// is `held`: each unit decrements its oldest count with probability `decay^held`; the
    /// item takes the bucket, with the units left (the one that emptied it included), when it
    /// reaches 0. Returns whether it took it.
    fn decay(
        &mut self,
        bucket: usize,
        fp: u32,
        at: usize,
        mut held: u64,
        increment: u32,
        chances: &mut Chances,
    ) -> bool {
        if self.shape.params.decay() >= 1.0 {
            // Every unit decrements: the loop below in closed form, drawing nothing.
            let spent = u64::from(increment).min(held);
            self.decrement_oldest(bucket, at, spent);
            if spent == held {
                self.take(bucket, fp, at, increment - (spent as u32 - 1));
                return true;
            }
            return false;
        }
        let mut remaining = increment;
        while remaining > 0 {
            let probability = self
                .table
                .probability(u32::try_from(held).unwrap_or(u32::MAX));
            if probability <= 0.0 {
                return false;
            }
            if chances.next() < probability {
                self.decrement_oldest(bucket, at, 1);
                held -= 1;
                if held == 0 {
                    self.take(bucket, fp, at, remaining);
                    return true;
                }
            }
            remaining -= 1;
        }
        false
    }

    /// Takes `units` from the bucket's counts, oldest first (the slot after `at` is the
    /// oldest).
    fn decrement_oldest(&mut self, bucket: usize, at: usize, mut units: u64) {
        let counts = self.shape.counts();
        let oldest = if at + 1 >= counts { 0 } else { at + 1 };
        // The bucket's counts found once, not once per slot read and written.
        let Some((_, counted)) = self.parts_mut(bucket) else {
            return;
        };
        for index in (oldest..counts).chain(0..oldest) {
            if units == 0 {
                return;
            }
            let Some(count) = counted.get_mut(index) else {
                continue;
            };
            let value = u32::from_le_bytes(*count);
            if value == 0 {
                // Most of a bucket's counts are of slots it was not written in.
                continue;
            }
            let taken = u64::from(value).min(units);
            *count = (value - taken as u32).to_le_bytes();
            units -= taken;
        }
    }

    /// A digest of the item's buckets at `slot`: fingerprints and window counts.
    fn digest_of(&self, positions: &Positions, slot: u64) -> u64 {
        decay::digest((0..self.shape.params.depth()).map(|row| {
            let bucket = self.bucket(positions.at(row));
            let count = bucket.window_count(&self.shape, slot);
            (bucket.fp, u32::try_from(count).unwrap_or(u32::MAX))
        }))
    }
}

/// A bucket, read in place: its holder's fingerprint, its tag (the slot of its newest count)
/// and its counts, one per slot of `tag − slots ..= tag`.
struct Bucket<'a> {
    fp: u32,
    tag: u64,
    counts: &'a [[u8; 4]],
}

impl Bucket<'_> {
    /// Its window count at `slot` (not before its tag): its counts of the slots `slot − slots
    /// ..= tag`; at its tag, every count it holds (those of slots before 0 are never written).
    fn window_count(&self, shape: &Shape, slot: u64) -> u64 {
        let value = |count: &[u8; 4]| u64::from(u32::from_le_bytes(*count));
        if slot <= self.tag {
            // Most reads, and every write once the bucket is aged: one slice summed, where
            // `in_ring` made `TOPK.LIST` a tenth (a young bucket's, a third) slower.
            return self.counts.iter().map(value).sum();
        }
        let oldest = slot.max(self.tag).saturating_sub(shape.slots);
        in_ring(self.counts, oldest, self.tag).map(value).sum()
    }
}

fn zeroed_totals(shape: &Shape) -> Result<Vec<u64>, Error> {
    try_filled(shape.counts(), 0)
}
