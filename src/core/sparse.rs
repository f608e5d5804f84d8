//! Byte arrays that remember which of their 4 KiB blocks were ever written, so that work on
//! them can be in proportion to the data rather than to the reservation.
//!
//! A filter's arrays come lazily zeroed from the server (`Memory::zeroed`): a 1 GiB sub-filter
//! holding three items costs three pages. Anything that walks the whole array — compaction,
//! COPY, DEBUG DIGEST, SCANDUMP — would still read or write every byte of it, faulting in the
//! gigabytes the reservation never used and stopping the server for seconds. A [`Sparse`]
//! keeps one bit per block (32 KiB of map for 1 GiB), set by every write that can make a byte
//! non-zero, and those walks visit only the marked blocks: every other block is known to be
//! zero. A block is a page, the unit the kernel charges: a walk reads at most a page per
//! item written, so items spread over a huge array cost it no more than their own pages.
//!
//! Marking stops paying once an array is dense: after as many marking writes as the array has
//! blocks, when writes falling at random have reached most blocks (all but 1/e of them), every
//! block is marked once and writes mark nothing more. Until then a write pays for its mark
//! (about ten instructions); after it, one comparison per write.
//!
//! That moment is also when the array's owner is told (`Memory::dense`): the server glue
//! then asks for transparent huge pages. Asked earlier, on a fresh array, each item written
//! at random would fault in a 2 MiB page (zeroing it, and compacting memory to find it) and a
//! few thousand items into a fresh gigabyte array would stop the server for seconds; once
//! most blocks were written, most of those pages are wanted anyway.
//!
//! The invariant every method keeps: a block holding a non-zero byte is marked. The converse
//! need not hold (a block may be marked and hold zeros, after deletes), so whatever must not
//! depend on a value's history (a digest, SCANDUMP's choice of chunks) looks at the bytes of
//! the marked blocks, never at the marks alone. The map is not saved: an array loaded from its
//! bytes marks the blocks that hold a non-zero byte.

use std::ops::{Deref, Range};

use super::{no_advice, Dense, Error, Memory};
use crate::core::bits;
use crate::core::relocate::{Mover, Relocate};
use crate::core::try_filled;

/// log2 of the block size.
const BLOCK_SHIFT: u32 = 12;
/// Bytes of one block: a page, so the map is 1/32768 of the array.
pub const BLOCK: usize = 1 << BLOCK_SHIFT;

/// The smallest SCANDUMP chunk that is skipped when it holds only zeros: smaller ones are
/// sent as RedisBloom sends them, so small filters dump byte for byte as there.
const SMALLEST_SKIPPED_CHUNK: usize = 64 * 1024;

/// A byte array and the blocks of it that were ever written. Reads see the bytes through
/// `Deref`; writes go through the methods that mark.
#[derive(Debug, Clone)]
pub struct Sparse {
    bytes: Vec<u8>,
    /// Bit `b % 64` of word `b / 64` is set when block `b` may hold a non-zero byte.
    marks: Vec<u64>,
    /// Marking writes left before every block is marked; 0 once they all are.
    writes_to_dense: usize,
    /// Told once, when `writes_to_dense` reaches 0.
    on_dense: Dense,
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

impl Relocate for Sparse {
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(&mut self.bytes);
        mover.vector(&mut self.marks);
    }
}

impl Sparse {
    /// `len` zeroed bytes from `memory` (the caller has checked the value's size), nothing
    /// marked; `memory.dense` is told when the array becomes dense.
    pub fn zeroed(len: u64, memory: &Memory) -> Result<Sparse, Error> {
        let bytes = memory.array(len)?;
        Sparse::with_marks(bytes, memory.dense, |_| false)
    }

    /// Bytes loaded whole (an RDB string): the blocks holding a non-zero byte are marked.
    /// This reads every byte once, which loading them has just done too. Nobody is told
    /// when it becomes dense: every page of it was just written, and whoever loaded it has
    /// chosen its backing.
    pub fn loaded(bytes: Vec<u8>) -> Result<Sparse, Error> {
        Sparse::with_marks(bytes, no_advice, |block| !is_zero(block))
    }

    /// `bytes`, with the blocks `marked` says marked, telling `on_dense` once dense.
    fn with_marks(
        bytes: Vec<u8>,
        on_dense: Dense,
        marked: impl Fn(&[u8]) -> bool,
    ) -> Result<Sparse, Error> {
        let blocks = bytes.len().div_ceil(BLOCK);
        let mut marks = try_filled(blocks.div_ceil(64), 0)?;
        for (block, data) in bytes.chunks(BLOCK).enumerate() {
            if marked(data) {
                set_mark(&mut marks, block);
            }
        }
        Ok(Sparse {
            bytes,
            marks,
            writes_to_dense: blocks,
            on_dense,
        })
    }

    /// A copy whose bytes come from `memory`, lazily zeroed, with only the marked blocks
    /// written: copying a sparse array costs its data, not its size. `OutOfMemory` instead
    /// of aborting the server. The copy of a dense array is dense from the start, and
    /// `memory.dense` is told so before it is written.
    pub fn try_clone(&self, memory: &Memory) -> Result<Sparse, Error> {
        let mut copy = Sparse::zeroed(self.bytes.len() as u64, memory)?;
        if self.writes_to_dense == 0 {
            (copy.on_dense)(&copy.bytes);
        }
        for range in self.marked_runs() {
            if let (Some(to), Some(from)) = (copy.bytes.get_mut(range.clone()), self.get(range)) {
                to.copy_from_slice(from);
            }
        }
        copy.marks.copy_from_slice(&self.marks);
        copy.writes_to_dense = self.writes_to_dense;
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
        if self.writes_to_dense != 0 {
            self.count_write();
            set_mark(&mut self.marks, start >> BLOCK_SHIFT);
            set_mark(&mut self.marks, last >> BLOCK_SHIFT);
        }
        self.bytes.get_mut(start..=last)
    }

    /// Bytes `start .. start + len`, for a write that only clears bytes (which needs no mark:
    /// a zero never has to be found). `None` when the range runs past the end.
    #[inline]
    pub fn slice_to_clear(&mut self, start: usize, len: usize) -> Option<&mut [u8]> {
        self.bytes.get_mut(start..start.checked_add(len)?)
    }

    /// Sets bits `bits` (in `core::bits`' order);
    /// true when at least one was clear. One write for the map, however many bits: a byte's
    /// first bit marks its block.
    #[inline]
    pub fn set_bits(&mut self, bits: impl IntoIterator<Item = usize>) -> bool {
        let mut any_new = false;
        if self.writes_to_dense == 0 {
            for bit in bits {
                any_new |= set_bit(&mut self.bytes, bit).0;
            }
        } else {
            self.count_write();
            for bit in bits {
                let (new, byte_was_zero) = set_bit(&mut self.bytes, bit);
                any_new |= new;
                if byte_was_zero {
                    set_mark(&mut self.marks, bit >> (3 + BLOCK_SHIFT));
                }
            }
        }
        any_new
    }

    /// Copies `data` to byte `offset` (a SCANDUMP chunk), marking the blocks where it holds a
    /// non-zero byte; `None`, changing nothing, when it runs past the end. Each block it
    /// covers counts as a marking write, zeros or not, as the copy writes its pages either
    /// way: the chunks of a whole dump make the array dense.
    pub fn write(&mut self, offset: usize, data: &[u8]) -> Option<()> {
        let end = offset.checked_add(data.len())?;
        self.bytes.get_mut(offset..end)?.copy_from_slice(data);
        self.mark_written(offset, data);
        Some(())
    }

    /// ORs `other` (as long) into this one, reading only what it holds (a union of bit
    /// arrays, in proportion to the data); `None`, changing nothing, when the lengths differ.
    pub fn or_from(&mut self, other: &Sparse) -> Option<()> {
        if other.len() != self.len() {
            return None;
        }
        // A block at a time, so marking it reads what was just ORed in, from the cache.
        for run in other.marked_runs() {
            for start in run.clone().step_by(BLOCK) {
                let end = (start + BLOCK).min(run.end);
                let from = other.get(start..end).unwrap_or_default();
                if let Some(to) = self.bytes.get_mut(start..end) {
                    to.iter_mut().zip(from).for_each(|(to, &from)| *to |= from);
                }
                self.mark_written(start, from);
            }
        }
        Some(())
    }

    /// How many bits are set, in the marked blocks, a word at a time (of any byte order).
    pub fn count_ones(&self) -> u64 {
        let word = |w: &[u8]| w.iter().fold(0u64, |word, &b| word << 8 | u64::from(b));
        let ones =
            |run: &[u8]| -> u64 { run.chunks(8).map(|w| u64::from(word(w).count_ones())).sum() };
        self.marked_runs()
            .filter_map(|r| self.get(r))
            .map(ones)
            .sum()
    }

    /// Marks the blocks where `data`, just written at byte `offset`, holds a non-zero byte,
    /// each block it covers counting as a marking write.
    fn mark_written(&mut self, offset: usize, data: &[u8]) {
        // Split `data` where the array's blocks begin, so each piece lies in one block.
        let mut at = offset;
        let mut rest = data;
        while !rest.is_empty() {
            let room = BLOCK - (at & (BLOCK - 1));
            let (piece, tail) = rest.split_at(room.min(rest.len()));
            if !is_zero(piece) {
                set_mark(&mut self.marks, at >> BLOCK_SHIFT);
            }
            if self.writes_to_dense != 0 {
                self.count_write();
            }
            at += piece.len();
            rest = tail;
        }
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

    /// Whether a SCANDUMP walk passes over the chunk `range`: 64 KiB or more, and found to
    /// hold only zeros within `budget` (see [`Sparse::is_zero_within`]). A chunk is sent or
    /// skipped by what it holds, whatever its history; a filter rebuilt from its header and
    /// the chunks sent is zeroed where they skipped, on RedisBloom too.
    pub fn is_skipped_chunk(&self, range: Range<usize>, budget: &mut usize) -> bool {
        range.len() >= SMALLEST_SKIPPED_CHUNK && self.is_zero_within(range, budget) == Some(true)
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

    /// The runs of consecutive marked blocks that hold a non-zero byte, as `(offset, bytes)`,
    /// in order: what the array holds, whatever its history, read in proportion to what was
    /// written.
    pub fn nonzero_runs(&self) -> impl Iterator<Item = (usize, &[u8])> {
        let mut blocks = self
            .marked_blocks(0..self.bytes.len())
            .filter(|block| !is_zero(self.get(block.clone()).unwrap_or_default()))
            .peekable();
        std::iter::from_fn(move || {
            let first = blocks.next()?;
            let mut end = first.end;
            while let Some(next) = blocks.next_if(|next| next.start == end) {
                end = next.end;
            }
            Some((first.start, self.get(first.start..end)?))
        })
    }

    /// The first non-zero byte in `range`, read a word at a time: how a walk skips the empty
    /// stretches of a marked run.
    pub fn next_nonzero(&self, range: Range<usize>) -> Option<usize> {
        let bytes = self.get(range.start..range.end.min(self.bytes.len()))?;
        let mut words = bytes.chunks_exact(8);
        let mut at = range.start;
        for word in words.by_ref() {
            if word.iter().any(|&b| b != 0) {
                return word.iter().position(|&b| b != 0).map(|i| at + i);
            }
            at += 8;
        }
        let tail = words.remainder();
        tail.iter().position(|&b| b != 0).map(|i| at + i)
    }

    /// Counts a marking write (while `writes_to_dense` is not 0); the last one before the
    /// array is dense makes it so.
    #[inline]
    fn count_write(&mut self) {
        self.writes_to_dense -= 1;
        if self.writes_to_dense == 0 {
            self.become_dense();
        }
    }

    /// Marks every block, and tells the owner: taken once in an array's life.
    #[cold]
    #[inline(never)]
    fn become_dense(&mut self) {
        self.marks.fill(u64::MAX);
        (self.on_dense)(&self.bytes);
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
}

/// Sets bit `bit` of `bytes`: whether it was clear, and whether its byte was zero.
#[inline]
fn set_bit(bytes: &mut [u8], bit: usize) -> (bool, bool) {
    let Some(byte) = bytes.get_mut(bit / 8) else {
        return (false, false);
    };
    let byte_was_zero = *byte == 0;
    (
        bits::set(std::slice::from_mut(byte), bit % 8),
        byte_was_zero,
    )
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
        assert!(a.set_bits([4 * BLOCK * 8 + 3]));
        assert!(!a.set_bits([4 * BLOCK * 8 + 3]));
        assert_eq!(a[4 * BLOCK], 8);
        assert_eq!(marked(&a)[1], (4 * BLOCK, 5 * BLOCK + 10));
        assert!(!a.set_bits([usize::MAX]));
    }

    #[test]
    fn chunks_mark_only_where_they_hold_a_set_byte() {
        let mut a = Sparse::zeroed(16 * BLOCK as u64, &EAGER).unwrap();
        let mut chunk = vec![0u8; 2 * BLOCK];
        a.write(BLOCK / 2, &chunk).unwrap();
        assert!(marked(&a).is_empty());
        chunk[2 * BLOCK - 1] = 5; // byte 2.5 × BLOCK − 1 of the array: block 2
        a.write(BLOCK / 2, &chunk).unwrap();
        assert_eq!(marked(&a), [(2 * BLOCK, 3 * BLOCK)]);
        assert_eq!(a.write(15 * BLOCK, &chunk), None);
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
        let starts: Vec<usize> = a.nonzero_runs().map(|(at, _)| at).collect();
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
        assert_eq!(a.nonzero_runs().count(), 1);
        assert_eq!(a.next_nonzero(0..4 * BLOCK), Some(3 * BLOCK + 5));
        assert_eq!(a.next_nonzero(0..3 * BLOCK + 5), None);
        assert_eq!(a.next_nonzero(3 * BLOCK + 6..8 * BLOCK), None);
        a.slice_mut(3 * BLOCK + 8, 1).unwrap()[0] = 1;
        a.slice_mut(2 * BLOCK + 2, 1).unwrap()[0] = 1;
        let runs: Vec<(usize, usize)> = a.nonzero_runs().map(|(at, r)| (at, r.len())).collect();
        assert_eq!(
            runs,
            [(2 * BLOCK, 2 * BLOCK)],
            "adjacent blocks make one run"
        );
        assert_eq!(
            a.next_nonzero(3 * BLOCK + 6..4 * BLOCK),
            Some(3 * BLOCK + 8)
        );
    }

    #[test]
    fn after_as_many_writes_as_blocks_every_block_is_marked() {
        let mut a = Sparse::zeroed(8 * BLOCK as u64 + 1, &EAGER).unwrap();
        for _ in 0..8 {
            a.slice_mut(0, 1).unwrap()[0] = 1;
        }
        assert_eq!(marked(&a), [(0, BLOCK)]);
        assert!(a.set_bits([(BLOCK + 1) * 8]));
        assert_eq!(marked(&a), [(0, 8 * BLOCK + 1)], "dense: all marked");
        assert!(a.set_bits([(3 * BLOCK) * 8]));
        let copy = a.try_clone(&EAGER).unwrap();
        assert_eq!(copy, a);
        assert_eq!(marked(&copy), marked(&a));
        assert_eq!(a.nonzero_runs().count(), 2, "blocks 0 and 1, then block 3");
    }

    thread_local! {
        /// The lengths of the arrays `record_dense` was told about.
        static TOLD: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    fn record_dense(bytes: &[u8]) {
        TOLD.with(|told| told.borrow_mut().push(bytes.len()));
    }

    fn told() -> Vec<usize> {
        TOLD.with(|told| told.take())
    }

    #[test]
    fn the_owner_is_told_once_when_an_array_becomes_dense() {
        let memory = Memory {
            dense: record_dense,
            ..EAGER
        };
        let mut a = Sparse::zeroed(4 * BLOCK as u64, &memory).unwrap();
        a.try_clone(&memory).unwrap();
        assert!(told().is_empty(), "a sparse array's copy is sparse");
        for i in 0..3 {
            a.slice_mut(i * BLOCK, 1).unwrap()[0] = 1;
        }
        assert!(told().is_empty(), "three writes of four: still sparse");
        assert!(
            a.slice_mut(4 * BLOCK, 1).is_none(),
            "past the end: no write"
        );
        assert!(told().is_empty());
        assert!(a.set_bits([3 * BLOCK * 8]));
        assert_eq!(told(), [4 * BLOCK]);
        a.slice_mut(0, 1).unwrap()[0] = 2;
        assert!(a.set_bits([5]));
        assert!(told().is_empty(), "told once");
        a.try_clone(&memory).unwrap();
        assert_eq!(
            told(),
            [4 * BLOCK],
            "a dense array's copy is dense from the start"
        );
        // Chunks count a write per block they cover: a whole dump makes the array dense.
        let mut loaded = Sparse::zeroed(4 * BLOCK as u64, &memory).unwrap();
        loaded.write(0, &[0; 2 * BLOCK]).unwrap();
        loaded.write(2 * BLOCK, &[1; BLOCK]).unwrap();
        assert!(told().is_empty());
        loaded.write(3 * BLOCK, &[0; BLOCK]).unwrap();
        assert_eq!(told(), [4 * BLOCK]);
        assert_eq!(marked(&loaded), [(0, 4 * BLOCK)], "dense: all marked");
        // Loaded bytes are backed as their loader chose: nothing to tell.
        let mut whole = Sparse::loaded(vec![0; BLOCK]).unwrap();
        whole.slice_mut(0, 1).unwrap()[0] = 1;
        assert_eq!(marked(&whole), [(0, BLOCK)]);
        assert!(told().is_empty());
    }
}
