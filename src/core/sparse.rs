//! Byte arrays that remember which of their 64 KiB blocks were ever written, so that work on
//! them can be in proportion to the data rather than to the reservation.
//!
//! A filter's arrays come lazily zeroed from the server (`Memory::zeroed`): a 1 GiB sub-filter
//! holding three items costs three pages. Anything that walks the whole array — compaction,
//! COPY, DEBUG DIGEST, SCANDUMP — would still read or write every byte of it, faulting in the
//! gigabytes the reservation never used and stopping the server for seconds. A [`Sparse`]
//! keeps one bit per block (2 KiB of map for 1 GiB), set by every write that can make a byte
//! non-zero, and those walks visit only the marked blocks: every other block is known to be
//! zero.
//!
//! The invariant every method keeps: a block holding a non-zero byte is marked. The converse
//! need not hold (a block may be marked and hold zeros, after deletes), so whatever must not
//! depend on a value's history (a digest, SCANDUMP's choice of chunks) looks at the bytes of
//! the marked blocks, never at the marks alone. The map is not saved: an array loaded from its
//! bytes marks the blocks that hold a non-zero byte.

use std::ops::{Deref, Range};

use super::{Error, Memory};

/// log2 of the block size.
const BLOCK_SHIFT: u32 = 16;
/// Bytes of one block: a bit of map per 64 KiB keeps the map 1/524288 of the array, and a
/// block is still small beside what a walk of a few items may afford.
pub const BLOCK: usize = 1 << BLOCK_SHIFT;

/// A byte array and the blocks of it that were ever written. Reads see the bytes through
/// `Deref`; writes go through the methods that mark.
#[derive(Debug, Clone)]
pub struct Sparse {
    bytes: Vec<u8>,
    /// Bit `b % 64` of word `b / 64` is set when block `b` may hold a non-zero byte.
    marks: Vec<u64>,
}

/// Equal when the bytes are: which blocks were written is history, not value.
impl PartialEq for Sparse {
    fn eq(&self, other: &Sparse) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for Sparse {}

impl Deref for Sparse {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Sparse {
    /// `len` zeroed bytes from `memory` (the caller has checked the value's size), nothing
    /// marked.
    pub fn zeroed(len: u64, memory: &Memory) -> Result<Sparse, Error> {
        let bytes = memory.array(len)?;
        let marks = no_marks(bytes.len())?;
        Ok(Sparse { bytes, marks })
    }

    /// Bytes loaded whole (an RDB string): the blocks holding a non-zero byte are marked.
    /// This reads every byte once, which loading them has just done too.
    pub fn loaded(bytes: Vec<u8>) -> Result<Sparse, Error> {
        let mut marks = no_marks(bytes.len())?;
        for (block, data) in bytes.chunks(BLOCK).enumerate() {
            if !is_zero(data) {
                set_mark(&mut marks, block);
            }
        }
        Ok(Sparse { bytes, marks })
    }

    /// A copy whose bytes come from `memory`, lazily zeroed, with only the marked blocks
    /// written: copying a sparse array costs its data, not its size. `OutOfMemory` instead
    /// of aborting the server.
    pub fn try_clone(&self, memory: &Memory) -> Result<Sparse, Error> {
        let mut copy = Sparse::zeroed(self.bytes.len() as u64, memory)?;
        for range in self.marked_runs() {
            if let (Some(to), Some(from)) = (copy.bytes.get_mut(range.clone()), self.get(range)) {
                to.copy_from_slice(from);
            }
        }
        copy.marks.copy_from_slice(&self.marks);
        Ok(copy)
    }

    /// Bytes `start .. start + len`, to write into: their blocks are marked. `None` when the
    /// range is empty or runs past the end.
    #[inline]
    pub fn slice_mut(&mut self, start: usize, len: usize) -> Option<&mut [u8]> {
        let last = start.checked_add(len)?.checked_sub(1)?;
        if last >= self.bytes.len() {
            return None;
        }
        self.mark(start);
        if (start ^ last) >> BLOCK_SHIFT != 0 {
            self.mark(last);
        }
        self.bytes.get_mut(start..=last)
    }

    /// Bytes `start .. start + len`, for a write that only clears bytes (which needs no mark:
    /// a zero never has to be found). `None` when the range runs past the end.
    #[inline]
    pub fn slice_to_clear(&mut self, start: usize, len: usize) -> Option<&mut [u8]> {
        self.bytes.get_mut(start..start.checked_add(len)?)
    }

    /// Sets bit `bit` (LSB first within each byte); true when it was clear. A byte's first
    /// bit marks its block: a Bloom filter's add pays one comparison for the map.
    #[inline]
    pub fn set_bit(&mut self, bit: usize) -> bool {
        let index = bit >> 3;
        let mask = 1u8 << (bit & 7);
        let Some(byte) = self.bytes.get_mut(index) else {
            return false;
        };
        let old = *byte;
        *byte = old | mask;
        if old == 0 {
            self.mark(index);
        }
        old & mask == 0
    }

    /// Copies `data` to byte `offset` (a SCANDUMP chunk), marking the blocks where it holds a
    /// non-zero byte; `None`, changing nothing, when it runs past the end.
    pub fn write(&mut self, offset: usize, data: &[u8]) -> Option<()> {
        let end = offset.checked_add(data.len())?;
        self.bytes.get_mut(offset..end)?.copy_from_slice(data);
        // Split `data` where the array's blocks begin, so each piece lies in one block.
        let mut at = offset;
        let mut rest = data;
        while !rest.is_empty() {
            let room = BLOCK - (at & (BLOCK - 1));
            let (piece, tail) = rest.split_at(room.min(rest.len()));
            if !is_zero(piece) {
                self.mark(at);
            }
            at += piece.len();
            rest = tail;
        }
        Some(())
    }

    /// Whether no block overlapping `range` was ever written: its bytes are all zero then.
    pub fn is_unwritten(&self, range: Range<usize>) -> bool {
        range.is_empty() || self.marked_blocks(range).next().is_none()
    }

    /// Whether `range` holds only zeros, reading only its marked blocks; `budget` is how many
    /// bytes may be read for it, and is reduced by those read. `None` when reading them all
    /// would pass the budget: the answer is unknown, and nothing is charged beyond it.
    pub fn is_zero_within(&self, range: Range<usize>, budget: &mut usize) -> Option<bool> {
        for block in self.marked_blocks(range.clone()) {
            let part = clip(block, &range);
            *budget = budget.checked_sub(part.len())?;
            if !is_zero(self.get(part).unwrap_or_default()) {
                return Some(false);
            }
        }
        Some(true)
    }

    /// The maximal ranges of consecutive marked blocks, in order, clipped to the array:
    /// every non-zero byte lies in one of them.
    pub fn marked_runs(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        let mut from = 0;
        std::iter::from_fn(move || {
            let run = self.marked_run_from(from)?;
            from = run.end;
            Some(run)
        })
    }

    /// The first maximal range of consecutive marked blocks among those starting at or after
    /// byte `offset`, clipped to the array. Borrows only for the call, so that a walk may
    /// write between two runs.
    pub fn marked_run_from(&self, offset: usize) -> Option<Range<usize>> {
        let first = self.next_block(offset.div_ceil(BLOCK), true)?;
        let end = self
            .next_block(first, false)
            .unwrap_or(self.bytes.len().div_ceil(BLOCK));
        Some(first << BLOCK_SHIFT..(end << BLOCK_SHIFT).min(self.bytes.len()))
    }

    /// The first block from `from` on that is marked (or unmarked, with `marked` false),
    /// a map word at a time; `None` past the last block.
    fn next_block(&self, from: usize, marked: bool) -> Option<usize> {
        let blocks = self.bytes.len().div_ceil(BLOCK);
        let flip = if marked { 0 } else { u64::MAX };
        let mut w = from / 64;
        let mut word = (self.marks.get(w)? ^ flip) & (u64::MAX << (from % 64));
        while word == 0 {
            w += 1;
            word = self.marks.get(w)? ^ flip;
        }
        let block = w * 64 + word.trailing_zeros() as usize;
        (block < blocks).then_some(block)
    }

    /// The marked blocks that hold a non-zero byte, as `(offset, bytes)`, in order: what the
    /// array holds, whatever its history, read in proportion to what was written.
    pub fn nonzero_blocks(&self) -> impl Iterator<Item = (usize, &[u8])> {
        self.marked_blocks(0..self.bytes.len())
            .filter_map(|block| Some((block.start, self.get(block)?)))
            .filter(|(_, data)| !is_zero(data))
    }

    /// The marked blocks overlapping `range`, as byte ranges clipped to the array, in order.
    fn marked_blocks(&self, range: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
        let len = self.bytes.len();
        let first = range.start >> BLOCK_SHIFT;
        let end = range.end.min(len).div_ceil(BLOCK);
        let words = self.marks.iter().enumerate();
        words
            .skip(first / 64)
            .take(end.div_ceil(64).saturating_sub(first / 64))
            .flat_map(|(w, &word)| set_bits(word).map(move |bit| w * 64 + bit))
            .filter(move |&block| (first..end).contains(&block))
            .map(move |block| block << BLOCK_SHIFT..((block + 1) << BLOCK_SHIFT).min(len))
    }

    /// Marks the block of byte `offset`.
    #[inline]
    fn mark(&mut self, offset: usize) {
        set_mark(&mut self.marks, offset >> BLOCK_SHIFT);
    }
}

/// An empty map for an array of `len` bytes.
fn no_marks(len: usize) -> Result<Vec<u64>, Error> {
    let words = len.div_ceil(BLOCK).div_ceil(64);
    let mut marks = Vec::new();
    marks
        .try_reserve_exact(words)
        .map_err(|_| Error::OutOfMemory)?;
    marks.resize(words, 0);
    Ok(marks)
}

#[inline]
fn set_mark(marks: &mut [u64], block: usize) {
    if let Some(word) = marks.get_mut(block / 64) {
        *word |= 1 << (block % 64);
    }
}

/// The positions of the set bits of `word`, lowest first.
fn set_bits(mut word: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let bit = word.trailing_zeros();
        (bit < 64).then(|| {
            word &= word - 1;
            bit as usize
        })
    })
}

/// `block` within `range`.
fn clip(block: Range<usize>, range: &Range<usize>) -> Range<usize> {
    let start = block.start.max(range.start);
    start..block.end.min(range.end).max(start)
}

/// Whether every byte is zero: OR-folded a page at a time, which vectorises, stopping at the
/// first page with a set byte.
fn is_zero(bytes: &[u8]) -> bool {
    bytes
        .chunks(4096)
        .all(|page| page.iter().fold(0u8, |acc, &b| acc | b) == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::EAGER;

    /// The marked runs as (start, end).
    fn marked(array: &Sparse) -> Vec<(usize, usize)> {
        array
            .marked_runs()
            .map(|run| (run.start, run.end))
            .collect()
    }

    #[test]
    fn writes_mark_their_blocks_and_clearing_does_not() {
        let mut a = Sparse::zeroed(5 * BLOCK as u64 + 10, &EAGER).unwrap();
        assert!(marked(&a).is_empty());
        a.slice_mut(BLOCK - 1, 2).unwrap().fill(7);
        assert_eq!(marked(&a), [(0, 2 * BLOCK)]);
        assert!(a.slice_mut(5 * BLOCK + 9, 2).is_none());
        assert!(a.slice_mut(0, 0).is_none());
        a.slice_mut(5 * BLOCK + 9, 1).unwrap()[0] = 1;
        assert_eq!(marked(&a), [(0, 2 * BLOCK), (5 * BLOCK, 5 * BLOCK + 10)]);
        a.slice_to_clear(3 * BLOCK, 4).unwrap().fill(0);
        assert_eq!(marked(&a).len(), 2);
        assert!(a.set_bit(4 * BLOCK * 8 + 3));
        assert!(!a.set_bit(4 * BLOCK * 8 + 3));
        assert_eq!(a[4 * BLOCK], 8);
        assert_eq!(marked(&a)[1], (4 * BLOCK, 5 * BLOCK + 10));
        assert!(!a.set_bit(usize::MAX));
    }

    #[test]
    fn chunks_mark_only_where_they_hold_a_set_byte() {
        let mut a = Sparse::zeroed(4 * BLOCK as u64, &EAGER).unwrap();
        let mut chunk = vec![0u8; 2 * BLOCK];
        a.write(BLOCK / 2, &chunk).unwrap();
        assert!(marked(&a).is_empty());
        chunk[2 * BLOCK - 1] = 5; // byte 2.5 × BLOCK − 1 of the array: block 2
        a.write(BLOCK / 2, &chunk).unwrap();
        assert_eq!(marked(&a), [(2 * BLOCK, 3 * BLOCK)]);
        assert_eq!(a.write(3 * BLOCK, &chunk), None);
        assert!(a.is_unwritten(0..2 * BLOCK));
        assert!(!a.is_unwritten(0..2 * BLOCK + 1));
        assert!(a.is_unwritten(5..5));
    }

    #[test]
    fn loading_marks_the_blocks_with_data_and_copies_keep_only_them() {
        let mut bytes = vec![0u8; 3 * BLOCK + 1];
        bytes[BLOCK + 17] = 1;
        bytes[3 * BLOCK] = 2;
        let a = Sparse::loaded(bytes.clone()).unwrap();
        assert_eq!(marked(&a), [(BLOCK, 2 * BLOCK), (3 * BLOCK, 3 * BLOCK + 1)]);
        let starts: Vec<usize> = a.nonzero_blocks().map(|(at, _)| at).collect();
        assert_eq!(starts, [BLOCK, 3 * BLOCK]);
        // Bytes outside the marks are not copied: a copy from garbage-filled "zeroed" memory
        // keeps the garbage there, which shows that only the marked blocks were written.
        let garbage = Memory {
            zeroed: |len| Some(vec![9; len]),
            ..EAGER
        };
        let copy = a.try_clone(&garbage).unwrap();
        assert_eq!(copy[BLOCK + 17], 1);
        assert_eq!(copy[0], 9);
        assert_eq!(marked(&copy), marked(&a));
        assert_eq!(a.try_clone(&EAGER).unwrap(), a);
        assert_eq!(&*a, &bytes[..]);
    }

    #[test]
    fn zero_checks_read_marked_blocks_within_a_budget() {
        let mut a = Sparse::zeroed(4 * BLOCK as u64, &EAGER).unwrap();
        a.slice_mut(BLOCK, 1).unwrap()[0] = 1;
        a.slice_mut(BLOCK, 1).unwrap()[0] = 0; // marked, but zero again
        a.slice_mut(3 * BLOCK + 5, 1).unwrap()[0] = 1;
        let mut budget = 10 * BLOCK;
        assert_eq!(a.is_zero_within(0..3 * BLOCK, &mut budget), Some(true));
        assert_eq!(budget, 9 * BLOCK, "one marked block read");
        assert_eq!(a.is_zero_within(0..4 * BLOCK, &mut budget), Some(false));
        let mut small = BLOCK / 2;
        assert_eq!(a.is_zero_within(BLOCK..2 * BLOCK, &mut small), None);
        assert_eq!(
            a.is_zero_within(BLOCK / 2..BLOCK + 10, &mut small),
            Some(true)
        );
        assert_eq!(small, BLOCK / 2 - 10);
        assert_eq!(a.nonzero_blocks().count(), 1);
    }
}
