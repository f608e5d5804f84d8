//! The k items a Top-K keeps: a binary min-heap by count, slot 0 the smallest, moved exactly
//! as RedisBloom's `heapifyDown` moves it (`src/topk.c`), ties included — which item is
//! expelled, and the order `TOPK.LIST` shows ties in, follow from it.
//!
//! The slots are kept as the bytes RedisBloom saves (its `HeapBucket` array: `fp u32,
//! itemlen u32, item pointer (8 bytes), count u32, pad u32`, little-endian), with the pointer
//! and pad bytes always 0, so RDB save writes them without a copy. The items are kept beside
//! them, each followed by one NUL as RedisBloom's copy is, so that save writes them without a
//! copy too. The fingerprints are also kept apart, contiguous, so that the search for an item
//! (every `TOPK.QUERY`, and `TOPK.ADD` of a heavy item) compares many at once.

use crate::core::relocate::{Mover, Relocate};
use crate::core::{try_copy, try_filled, try_vec, Error, Memory};

/// Bytes of one slot (`sizeof(HeapBucket)`).
pub(super) const SLOT_BYTES: u64 = 24;
const FP: usize = 0;
const ITEM_LEN: usize = 4;
const COUNT: usize = 16;

type Slot = [u8; SLOT_BYTES as usize];

/// The item of a slot that was never filled, as RDB holds it: an empty C string.
const NO_ITEM: &[u8] = &[0];

/// An item `TOPK.ADD`/`TOPK.INCRBY` expelled from the heap.
#[derive(Debug, PartialEq, Eq)]
pub struct Expelled(Vec<u8>);

impl Expelled {
    /// The item's bytes, binary-safe. RedisBloom replies with a C string: the bytes before
    /// the first NUL, see [`super::c_string`].
    pub fn item(&self) -> &[u8] {
        without_nul(&self.0)
    }
}

/// One entry of `TOPK.LIST`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed<'a> {
    /// The item, binary-safe (RedisBloom replies with the bytes before its first NUL).
    pub item: &'a [u8],
    /// Its count in the heap.
    pub count: u32,
}

/// The heap of a Top-K (by default one of no slots).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Heap {
    /// `k` slots as RedisBloom saves them.
    slots: Vec<u8>,
    /// Each slot's item followed by one NUL, or `None` for a slot never filled.
    items: Vec<Option<Vec<u8>>>,
    /// Each slot's fingerprint, as in `slots`.
    fingerprints: Vec<u32>,
}

/// Fingerprints compared at once by [`Heap::find`]: a block without a match costs a few
/// vector instructions instead of a branch per slot.
const BLOCK: usize = 16;

impl Relocate for Heap {
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(&mut self.slots);
        mover.vector(&mut self.fingerprints);
        mover.vector(&mut self.items);
        for item in self.items.iter_mut().flatten() {
            mover.vector(item);
        }
    }
}

impl Heap {
    /// `k` empty slots (the caller has checked the memory).
    pub(super) fn empty(k: u32, memory: &Memory) -> Result<Heap, Error> {
        let slots = memory.array(u64::from(k) * SLOT_BYTES)?;
        let items = try_filled(k as usize, None)?;
        let fingerprints = try_filled(k as usize, 0)?;
        Ok(Heap {
            slots,
            items,
            fingerprints,
        })
    }

    /// Rebuilds a saved heap from its slots and, per slot, the string saved for its item.
    /// `BadEncoding` unless there are 24 bytes of slot per item and every item string ends
    /// with its one NUL. As RedisBloom 8 does, the item pointers are ignored and each
    /// `itemlen` is taken from the string; the pad bytes are ignored too.
    ///
    /// A string of only the NUL is an empty slot when its count and fingerprint are 0, and
    /// otherwise the empty-string item (RedisBloom saves both as one NUL, and turns the
    /// latter into an item-less slot on load, which `TOPK.LIST` shows as `nil`; here the
    /// empty string survives a reload).
    pub(super) fn from_saved(
        mut slots: Vec<u8>,
        mut items: Vec<Option<Vec<u8>>>,
    ) -> Result<Heap, Error> {
        let (records, rest) = slots.as_chunks_mut::<{ SLOT_BYTES as usize }>();
        if !rest.is_empty() || records.len() != items.len() {
            return Err(Error::BadEncoding);
        }
        for (slot, item) in records.iter_mut().zip(&mut items) {
            let saved = item.as_deref().unwrap_or_default();
            if saved.last() != Some(&0) {
                return Err(Error::BadEncoding);
            }
            let len = u32::try_from(saved.len() - 1).map_err(|_| Error::BadEncoding)?;
            let fp_and_count = (field(slot, FP), field(slot, COUNT));
            if len == 0 && fp_and_count == (0, 0) {
                *item = None;
            }
            *slot = record(fp_and_count.0, len, fp_and_count.1);
        }
        let mut fingerprints = try_vec(records.len())?;
        fingerprints.extend(records.iter().map(|slot| field(slot, FP)));
        Ok(Heap {
            slots,
            items,
            fingerprints,
        })
    }

    /// An independent copy, or `OutOfMemory`.
    pub(super) fn try_clone(&self) -> Result<Heap, Error> {
        let mut items = try_vec(self.items.len())?;
        for item in &self.items {
            items.push(item.as_deref().map(try_copy).transpose()?);
        }
        let fingerprints = try_copy(&self.fingerprints)?;
        Ok(Heap {
            slots: try_copy(&self.slots)?,
            items,
            fingerprints,
        })
    }

    /// The slots as RedisBloom saves them.
    pub(super) fn saved_slots(&self) -> &[u8] {
        &self.slots
    }

    /// Each slot's item as RedisBloom saves it: its bytes and one NUL, or only the NUL.
    pub(super) fn saved_items(&self) -> impl Iterator<Item = &[u8]> {
        self.items
            .iter()
            .map(|item| item.as_deref().unwrap_or(NO_ITEM))
    }

    fn records(&self) -> &[Slot] {
        self.slots.as_chunks().0
    }

    fn count(&self, slot: usize) -> u32 {
        self.records().get(slot).map_or(0, |s| field(s, COUNT))
    }

    /// The smallest count, in slot 0 (`heap[0].count`).
    pub(super) fn min_count(&self) -> u32 {
        self.count(0)
    }

    /// The slot holding `item`, whose fingerprint is `fp`, searched from the last slot to
    /// the first as `checkExistInHeap` does.
    pub(super) fn find(&self, fp: u32, item: &[u8]) -> Option<usize> {
        let (head, blocks) = self.fingerprints.as_rchunks::<BLOCK>();
        for (i, block) in blocks.iter().enumerate().rev() {
            // No early exit inside a block: the compiler compares it as vectors.
            if block
                .iter()
                .fold(false, |seen, &other| seen | (other == fp))
            {
                let start = head.len() + i * BLOCK;
                if let Some(slot) = self.find_in(block, start, fp, item) {
                    return Some(slot);
                }
            }
        }
        self.find_in(head, 0, fp, item)
    }

    /// [`Heap::find`] among `fingerprints`, those of the slots from `start` on.
    fn find_in(&self, fingerprints: &[u32], start: usize, fp: u32, item: &[u8]) -> Option<usize> {
        let candidates = fingerprints.iter().enumerate().rev();
        candidates
            .filter(|&(_, &other)| other == fp)
            .map(|(i, _)| start + i)
            .find(|&slot| self.holds(slot, item))
    }

    /// Whether `slot` holds `item` (a slot never filled holds the empty item).
    fn holds(&self, slot: usize, item: &[u8]) -> bool {
        let stored = self.items.get(slot).and_then(Option::as_deref);
        without_nul(stored.unwrap_or(NO_ITEM)) == item
    }

    /// What `TopK_Add` does with an item whose largest count is now `count`: nothing below the
    /// heap's minimum; the item's count updated if it is in the heap; otherwise the item (its
    /// copy made here) in place of the minimum, which is returned if it held an item.
    /// `OutOfMemory` if the copy cannot be made.
    pub(super) fn admit(
        &mut self,
        fp: u32,
        item: &[u8],
        count: u32,
    ) -> Result<Option<Expelled>, Error> {
        if count < self.min_count() {
            return Ok(None);
        }
        if let Some(slot) = self.find(fp, item) {
            self.recount(slot, count);
            return Ok(None);
        }
        let mut stored = try_vec(item.len() + 1)?;
        stored.extend_from_slice(item);
        stored.push(0);
        Ok(self.replace_min(fp, stored, count))
    }

    /// Sets the count of the item in `slot` — it may go down, as the item's buckets may have
    /// decayed — and moves it down only (`TopK_Add` never moves an item up).
    pub(super) fn recount(&mut self, slot: usize, count: u32) {
        if let Some(record) = self.slots.as_chunks_mut().0.get_mut(slot) {
            set_field(record, COUNT, count);
        }
        self.sift_down(slot);
    }

    /// Puts `item` (followed by one NUL) with `fp` and `count` in slot 0 and moves it down,
    /// returning the item it replaced, if that slot held one.
    pub(super) fn replace_min(&mut self, fp: u32, item: Vec<u8>, count: u32) -> Option<Expelled> {
        let len = item.len().saturating_sub(1) as u32;
        if let Some(slot) = self.slots.as_chunks_mut().0.first_mut() {
            *slot = record(fp, len, count);
        }
        if let Some(first) = self.fingerprints.first_mut() {
            *first = fp;
        }
        let expelled = self.items.first_mut()?.replace(item).map(Expelled);
        self.sift_down(0);
        expelled
    }

    /// Each filled slot's fingerprint and item, by slot.
    pub(super) fn entries(&self) -> impl Iterator<Item = (usize, u32, &[u8])> {
        self.items.iter().enumerate().filter_map(|(slot, item)| {
            let fp = self.fingerprints.get(slot).copied().unwrap_or(0);
            item.as_deref().map(|item| (slot, fp, without_nul(item)))
        })
    }

    /// Sets each filled slot's count to what `count` says of its fingerprint and item, then
    /// makes the heap a heap again, moving slots down as `sift_down` does, from the last
    /// parent to the root (a Top-K that forgets, when a new slot of time opens).
    pub(super) fn recount_all(&mut self, mut count: impl FnMut(u32, &[u8]) -> u32) {
        for slot in 0..self.items.len() {
            let fp = self.fingerprints.get(slot).copied().unwrap_or(0);
            let Some(Some(item)) = self.items.get(slot) else {
                continue;
            };
            let new = count(fp, without_nul(item));
            if let Some(record) = self.slots.as_chunks_mut().0.get_mut(slot) {
                set_field(record, COUNT, new);
            }
        }
        for parent in (0..self.items.len() / 2).rev() {
            self.sift_down(parent);
        }
    }

    /// `heapifyDown(start)`: on a tie between the children the left one is taken; the start
    /// is swapped with the smaller child even when their counts are equal; further down it
    /// keeps going only while the child is strictly smaller.
    fn sift_down(&mut self, mut start: usize) {
        let len = self.items.len();
        if len < 2 || (len - 2) / 2 < start {
            return;
        }
        let top = self.count(start);
        let mut child = self.smaller_child(start);
        if self.count(child) > top {
            return;
        }
        loop {
            self.swap(start, child);
            start = child;
            if (len - 2) / 2 < start {
                return;
            }
            child = self.smaller_child(start);
            if self.count(child) >= top {
                return;
            }
        }
    }

    /// The child of `parent` to move up: the right one only if it is strictly smaller.
    fn smaller_child(&self, parent: usize) -> usize {
        let left = 2 * parent + 1;
        if left + 1 < self.items.len() && self.count(left) > self.count(left + 1) {
            left + 1
        } else {
            left
        }
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.slots
            .as_chunks_mut::<{ SLOT_BYTES as usize }>()
            .0
            .swap(a, b);
        self.items.swap(a, b);
        self.fingerprints.swap(a, b);
    }

    /// The items by count, largest first, ties in slot order (glibc's `qsort` is a stable
    /// merge sort here), up to the first count of 0 (`TOPK.LIST` stops there).
    pub(super) fn listed(&self) -> Result<Vec<Listed<'_>>, Error> {
        let mut order = try_vec(self.items.len())?;
        order.extend((0..self.items.len()).filter(|&slot| self.count(slot) != 0));
        // Unstable sort by (count descending, slot) is the stable sort, without its buffer.
        order.sort_unstable_by_key(|&slot| (std::cmp::Reverse(self.count(slot)), slot));
        let mut listed = try_vec(order.len())?;
        listed.extend(order.into_iter().map(|slot| {
            Listed {
                item: without_nul(
                    self.items
                        .get(slot)
                        .and_then(Option::as_deref)
                        .unwrap_or(NO_ITEM),
                ),
                count: self.count(slot),
            }
        }));
        Ok(listed)
    }
}

/// A slot as RedisBloom lays it out, pointer and pad 0.
fn record(fp: u32, len: u32, count: u32) -> Slot {
    let mut slot = [0; SLOT_BYTES as usize];
    set_field(&mut slot, FP, fp);
    set_field(&mut slot, ITEM_LEN, len);
    set_field(&mut slot, COUNT, count);
    slot
}

fn field(slot: &Slot, at: usize) -> u32 {
    slot.get(at..at + 4)
        .and_then(|bytes| bytes.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

fn set_field(slot: &mut Slot, at: usize, value: u32) {
    if let Some(bytes) = slot.get_mut(at..at + 4) {
        bytes.copy_from_slice(&value.to_le_bytes());
    }
}

/// An item as kept (followed by one NUL) without that NUL.
fn without_nul(stored: &[u8]) -> &[u8] {
    stored.split_last().map_or(stored, |(_, item)| item)
}
