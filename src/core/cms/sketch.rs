//! The sketch stored under a key: its dimensions, the counters and their total, and what
//! `CMS.INCRBY`, `CMS.QUERY` and `CMS.MERGE` do to them (RedisBloom's `src/cms.c`).
//!
//! The counters are kept as the bytes RedisBloom saves (`u32` little-endian, row-major), so
//! RDB save writes them without a copy and load adopts the buffer it read.

use crate::core::hash::{murmur2_32_rows, MURMUR2_ROWS};
use crate::core::relocate::{Mover, Relocate};
use crate::core::{try_copy, Error, Memory};

/// Bytes of one counter.
const COUNTER_BYTES: u64 = 4;
/// What RedisBloom 8's `CMSMemUsage` (`src/rm_cms.c`) counts besides the counters: its
/// `CMSketch` struct (width, depth, total and the array pointer).
const SKETCH_STRUCT_BYTES: u64 = 32;

/// Why a sketch cannot be made from `CMS.INITBYDIM`/`CMS.INITBYPROB` arguments, in the order
/// RedisBloom checks them (`parseCreateArgs` in `src/rm_cms.c`); each has its own error text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitError {
    /// A width below 1 (`CMS: invalid width`).
    Width,
    /// A depth below 1 (`CMS: invalid depth`).
    Depth,
    /// An error rate outside (0, 1) (`CMS: invalid overestimation value`).
    Overestimation,
    /// A probability outside (0, 1) (`CMS: invalid prob value`).
    Probability,
    /// Dimensions that are below 1 once computed, or whose product passes `i64::MAX`
    /// (`CMS: invalid init arguments`).
    Arguments,
}

/// A sketch's width and depth, checked as RedisBloom checks them: both at least 1 and their
/// product at most `i64::MAX`. Whether that many counters fit in memory is
/// [`CountMinSketch::new`]'s question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimensions {
    width: u64,
    depth: u64,
}

impl Dimensions {
    /// The dimensions `CMS.INITBYDIM key width depth` asks for.
    pub fn new(width: i64, depth: i64) -> Result<Dimensions, InitError> {
        if width < 1 {
            return Err(InitError::Width);
        }
        if depth < 1 {
            return Err(InitError::Depth);
        }
        Dimensions::checked(width, depth)
    }

    /// The dimensions `CMS.INITBYPROB key error probability` asks for: width `⌈2 / error⌉`
    /// in `f64`, depth `⌈log10(probability) / log10(0.5)⌉` in **`f32`**, as RedisBloom's
    /// `CMS_DimFromProb` computes them with `log10f` (so 0.249999999 gives depth 2, where
    /// `f64` would give 3). Both results pass through `size_t` into a `long long`, which the
    /// saturating casts below reproduce: a width of 2^63 or more, or an infinite depth, is
    /// [`InitError::Arguments`], as is a probability that rounds to 1 in `f32` (depth 0).
    pub fn for_error(error: f64, probability: f64) -> Result<Dimensions, InitError> {
        // Negated comparisons so that NaN fails them too.
        if !(error > 0.0 && error < 1.0) {
            return Err(InitError::Overestimation);
        }
        if !(probability > 0.0 && probability < 1.0) {
            return Err(InitError::Probability);
        }
        let width = (2.0 / error).ceil() as u64 as i64;
        let depth_f32 = (probability as f32).log10() / 0.5f32.log10();
        let depth = f64::from(depth_f32).ceil() as u64 as i64;
        if width < 1 || depth < 1 {
            return Err(InitError::Arguments);
        }
        Dimensions::checked(width, depth)
    }

    fn checked(width: i64, depth: i64) -> Result<Dimensions, InitError> {
        if width > i64::MAX / depth {
            return Err(InitError::Arguments);
        }
        Ok(Dimensions {
            width: width.unsigned_abs(),
            depth: depth.unsigned_abs(),
        })
    }

    /// Counters per row.
    pub fn width(&self) -> u64 {
        self.width
    }

    /// Rows.
    pub fn depth(&self) -> u64 {
        self.depth
    }

    /// What `MEMORY USAGE` would count for a saved sketch of these dimensions, or `None`
    /// past `u64`: load asks [`Memory`] with it before the dimensions are trusted.
    pub(super) fn saved_memory_usage(width: u64, depth: u64) -> Option<u64> {
        Dimensions { width, depth }.memory_usage()
    }

    /// Bytes of the counters, or `None` past `u64`.
    fn counter_bytes(&self) -> Option<u64> {
        self.width
            .checked_mul(self.depth)?
            .checked_mul(COUNTER_BYTES)
    }

    /// What `MEMORY USAGE` counts for a sketch of these dimensions, or `None` past `u64`.
    fn memory_usage(&self) -> Option<u64> {
        self.counter_bytes()?.checked_add(SKETCH_STRUCT_BYTES)
    }
}

/// What `CMS.INCRBY` replies for one pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Increment {
    /// The item's new estimate: the minimum of its counters.
    Estimate(u32),
    /// The minimum is `u32::MAX` (a saturated counter in every row, or an exact sum that
    /// reached it): RedisBloom replies `CMS: INCRBY overflow` in its place.
    Overflow,
}

/// Why a merge was refused; the destination is then unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeError {
    /// A source's width or depth differs from the destination's (`CMS: width/depth is not
    /// equal`).
    DimensionsDiffer,
    /// A weighted sum of a counter leaves [0, `u32::MAX`] or overflows `i64` on the way, or
    /// the weighted total does either with [0, `i64::MAX`] (`CMS: MERGE overflow`).
    Overflow,
}

/// A sketch to merge into a destination, as `CMS.MERGE` names it.
#[derive(Debug, Clone, Copy)]
pub enum MergeSource<'a> {
    /// The destination itself, listed among the sources (RedisBloom merges in place: each
    /// counter is read before it is written).
    Destination,
    /// Another sketch.
    Other(&'a CountMinSketch),
}

/// A merge source and its weight (`WEIGHTS`, 1 when absent).
#[derive(Debug, Clone, Copy)]
pub struct Weighted<'a> {
    /// The sketch.
    pub source: MergeSource<'a>,
    /// Its weight; negative weights are allowed as long as every sum stays in range.
    pub weight: i64,
}

/// RedisBloom's Count-Min sketch (`CMSketch`). Not `Clone`: a copy of a user-sized array
/// must be fallible ([`CountMinSketch::try_clone`], for `COPY`).
#[derive(Debug, PartialEq, Eq)]
pub struct CountMinSketch {
    width: u64,
    depth: u64,
    /// The sum of every accepted increment, wrapping at 2^64 (`counter`).
    count: u64,
    /// `width × depth` counters, `u32` little-endian, row `i` at `[i·width, (i+1)·width)`.
    counters: Vec<u8>,
}

impl Relocate for CountMinSketch {
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(&mut self.counters);
    }
}

impl CountMinSketch {
    /// An empty sketch (`NewCMSketch`). `OverLimit` or `OutOfMemory` when `memory` refuses
    /// its size, before anything is allocated.
    pub fn new(dimensions: Dimensions, memory: &Memory) -> Result<CountMinSketch, Error> {
        memory.check(dimensions.memory_usage().ok_or(Error::OutOfMemory)?)?;
        let bytes = dimensions.counter_bytes().ok_or(Error::OutOfMemory)?;
        Ok(CountMinSketch {
            width: dimensions.width,
            depth: dimensions.depth,
            count: 0,
            counters: memory.array(bytes)?,
        })
    }

    /// Rebuilds a saved sketch, adopting `counters`. `BadEncoding` unless both dimensions
    /// are at least 1 and `counters` holds exactly `width × depth` of them (RedisBloom 8's
    /// `CMSRdbLoad` checks; 2.8.2 took anything and later read out of bounds).
    pub(super) fn from_saved(
        width: u64,
        depth: u64,
        count: u64,
        counters: Vec<u8>,
    ) -> Result<CountMinSketch, Error> {
        let dimensions = Dimensions { width, depth };
        if width == 0 || depth == 0 || dimensions.counter_bytes() != Some(counters.len() as u64) {
            return Err(Error::BadEncoding);
        }
        Ok(CountMinSketch {
            width,
            depth,
            count,
            counters,
        })
    }

    /// An independent copy (`COPY`), or `OutOfMemory` instead of aborting the server.
    pub fn try_clone(&self) -> Result<CountMinSketch, Error> {
        Ok(CountMinSketch {
            width: self.width,
            depth: self.depth,
            count: self.count,
            counters: try_copy(&self.counters)?,
        })
    }

    /// Adds `amount` to the item's counter in every row (`CMS_IncrBy`) and to the total.
    /// A counter that wraps past `u32::MAX` stays at `u32::MAX` — so any amount of 2^32 or
    /// more saturates every row — while the total wraps at 2^64. Amount 0 is allowed and
    /// only reads the estimate.
    pub fn increment(&mut self, item: &[u8], amount: u64) -> Increment {
        let mut estimate = u32::MAX;
        let row_len = self.row_len();
        let rows = self
            .counters
            .as_chunks_mut::<4>()
            .0
            .chunks_exact_mut(row_len);
        for_each_row(rows, self.depth, item, |row, column| {
            let Some(bytes) = row.get_mut(column) else {
                return;
            };
            // C adds a size_t to a uint32_t cell: the sum is cut to 32 bits, then compared
            // with the whole amount.
            let sum = u32::from_le_bytes(*bytes).wrapping_add(amount as u32);
            let counter = if u64::from(sum) < amount {
                u32::MAX
            } else {
                sum
            };
            *bytes = counter.to_le_bytes();
            estimate = smaller(counter, estimate);
        });
        self.count = self.count.wrapping_add(amount);
        if estimate == u32::MAX {
            Increment::Overflow
        } else {
            Increment::Estimate(estimate)
        }
    }

    /// The item's estimate: the minimum of its counters (`CMS_Query`).
    pub fn query(&self, item: &[u8]) -> u32 {
        let mut estimate = u32::MAX;
        let rows = self
            .counters
            .as_chunks::<4>()
            .0
            .chunks_exact(self.row_len());
        for_each_row(rows, self.depth, item, |row, column| {
            let counter = row
                .get(column)
                .map_or(u32::MAX, |bytes| u32::from_le_bytes(*bytes));
            estimate = smaller(counter, estimate);
        });
        estimate
    }

    /// Checks a merge of `sources` into this sketch without changing anything: the
    /// dimensions of every source, then every weighted sum as [`MergeError`] describes
    /// (`checkOverflow` in `src/cms.c`).
    pub fn check_merge(&self, sources: &[Weighted]) -> Result<(), MergeError> {
        self.merged_count(sources).map(|_| ())
    }

    /// Replaces every counter by the weighted sum of the sources' counters, and the total by
    /// the weighted sum of their totals (`CMS_Merge`): the old contents count only if the
    /// destination is among the sources. On an error nothing has changed.
    pub fn merge(&mut self, sources: &[Weighted]) -> Result<(), MergeError> {
        let count = self.merged_count(sources)?;
        for cell in 0..self.width * self.depth {
            // Checked above: counter `cell` of each source, and of this sketch, is still
            // what it was, as only counters before it have been written.
            let value = self.merged_counter(sources, cell)?;
            update_counter(&mut self.counters, cell, |_| value);
        }
        self.count = count;
        Ok(())
    }

    /// Counters per row.
    pub fn width(&self) -> u64 {
        self.width
    }

    /// Rows.
    pub fn depth(&self) -> u64 {
        self.depth
    }

    /// The sum of every accepted increment, wrapped at 2^64 (`CMS.INFO count`, which
    /// RedisBloom prints as an `i64`).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The counters as RedisBloom saves them: `u32` little-endian, row-major.
    pub fn counters(&self) -> &[u8] {
        &self.counters
    }

    /// What `MEMORY USAGE` counts for this sketch, as RedisBloom 8's `CMSMemUsage` does:
    /// `32 + 4 × width × depth` (2.8.2 counted `8 + 8 × width × depth`, a bug).
    pub fn memory_usage(&self) -> u64 {
        SKETCH_STRUCT_BYTES + self.counters.len() as u64
    }

    /// Counters per row, for cutting the counters into rows: each row a slice exactly that
    /// long, so that a column taken modulo its length needs no bounds check. A width past
    /// `usize` or past the counters (which `from_saved` rules out) gives no row at all.
    fn row_len(&self) -> usize {
        usize::try_from(self.width).unwrap_or(usize::MAX).max(1)
    }

    fn counter(&self, cell: u64) -> Option<u32> {
        let (counters, _) = self.counters.as_chunks::<4>();
        counters
            .get(usize::try_from(cell).ok()?)
            .map(|bytes| u32::from_le_bytes(*bytes))
    }

    fn source_counter(&self, source: MergeSource, cell: u64) -> Option<u32> {
        match source {
            MergeSource::Destination => self.counter(cell),
            MergeSource::Other(sketch) => sketch.counter(cell),
        }
    }

    /// The weighted sum of counter `cell` over the sources, in `i64` with every product
    /// and partial sum checked as GCC's `__builtin_*_overflow` checks them; partial sums may
    /// be negative, the result must be a `u32`.
    fn merged_counter(&self, sources: &[Weighted], cell: u64) -> Result<u32, MergeError> {
        let mut sum = 0i64;
        for weighted in sources {
            let counter = self
                .source_counter(weighted.source, cell)
                .ok_or(MergeError::DimensionsDiffer)?;
            sum = i64::from(counter)
                .checked_mul(weighted.weight)
                .and_then(|product| sum.checked_add(product))
                .ok_or(MergeError::Overflow)?;
        }
        u32::try_from(sum).map_err(|_| MergeError::Overflow)
    }

    /// Checks a whole merge and returns the merged total.
    fn merged_count(&self, sources: &[Weighted]) -> Result<u64, MergeError> {
        for weighted in sources {
            if let MergeSource::Other(sketch) = weighted.source {
                if (sketch.width, sketch.depth) != (self.width, self.depth) {
                    return Err(MergeError::DimensionsDiffer);
                }
            }
        }
        for cell in 0..self.width * self.depth {
            self.merged_counter(sources, cell)?;
        }
        let mut total = 0i64;
        for weighted in sources {
            let count = match weighted.source {
                MergeSource::Destination => self.count,
                MergeSource::Other(sketch) => sketch.count,
            };
            // An unsigned total times a signed weight, exact in 128 bits, must fit an i64.
            total = i64::try_from(i128::from(count) * i128::from(weighted.weight))
                .ok()
                .and_then(|product| total.checked_add(product))
                .ok_or(MergeError::Overflow)?;
        }
        u64::try_from(total).map_err(|_| MergeError::Overflow)
    }
}

/// Calls `f` with each of the first `depth` rows, in order, and the item's column in it:
/// MurmurHash2 of the item seeded with the row index (cut to the hash's 32-bit seed, as C
/// passes it), modulo the width. The rows are hashed [`MURMUR2_ROWS`] at a time.
#[inline]
fn for_each_row<R: AsRef<[[u8; 4]]>>(
    mut rows: impl Iterator<Item = R>,
    depth: u64,
    item: &[u8],
    mut f: impl FnMut(R, usize),
) {
    let mut first = 0;
    while first < depth {
        // The hashes lead: a row is taken only when a hash is there for it.
        for (hash, row) in murmur2_32_rows(item, first as u32)
            .into_iter()
            .zip(rows.by_ref())
        {
            let width = row.as_ref().len();
            f(row, hash as usize % width);
        }
        first += MURMUR2_ROWS as u64;
    }
}

/// The smaller of two counters, in a form LLVM (Rust 1.95) keeps free of branches, as the
/// assembly of `query` shows; `min`, and `std::hint::select_unpredictable` too, came out as a
/// branch inside the row loop (LLVM's x86 pass turns conditional moves in loops back into
/// branches). Which row holds an item's smallest counter is a coin toss, so that branch was
/// mispredicted about every other row, each miss throwing away the rows' overlapped divisions
/// and loads: `CMS.QUERY` ×100 took 1.3 times RedisBloom's time with fewer instructions, and
/// 0.8 with this.
fn smaller(a: u32, b: u32) -> u32 {
    let difference = i64::from(a) - i64::from(b);
    (i64::from(b) + (difference & (difference >> 63))) as u32
}

/// Replaces counter `cell` by `f` of its value and returns the new value (`None` past the
/// end, which the sketch's geometry rules out).
fn update_counter(counters: &mut [u8], cell: u64, f: impl FnOnce(u32) -> u32) -> Option<u32> {
    let (cells, _) = counters.as_chunks_mut::<4>();
    let bytes = cells.get_mut(usize::try_from(cell).ok()?)?;
    let value = f(u32::from_le_bytes(*bytes));
    *bytes = value.to_le_bytes();
    Some(value)
}

#[cfg(test)]
mod branchless {
    use super::smaller;

    #[test]
    fn smaller_is_the_minimum() {
        let values = [0, 1, 2, 0x7fff_ffff, 0x8000_0000, u32::MAX - 1, u32::MAX];
        for a in values {
            for b in values {
                assert_eq!(smaller(a, b), a.min(b), "{a} {b}");
            }
        }
    }
}
