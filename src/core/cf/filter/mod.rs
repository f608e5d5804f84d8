//! The Cuckoo filter stored under a CF key, as RedisBloom's `CuckooFilter` (`src/cuckoo.c`,
//! `src/cuckoo.h`): a chain of sub-filters, each an array of buckets of `bucket_size` one-byte
//! fingerprints, 0 meaning an empty slot. Bit-exact: the same commands in the same order leave
//! the same bytes, which is what SCANDUMP, RDB and DUMP carry.
//!
//! # Invariants
//!
//! Every constructor checks these, and every method keeps them:
//!
//! 1. there are 1 to [`MAX_FILTERS`](super::MAX_FILTERS) sub-filters;
//! 2. `bucket_size` is 1 to [`MAX_BUCKET_SIZE`] (RedisBloom keeps an 8-bit copy per sub-filter);
//! 3. the base bucket count and every sub-filter's bucket count are 1 to [`MAX_BUCKETS`];
//! 4. every sub-filter holds exactly `bucket_size × its bucket count` bytes, and all of them
//!    together at most [`MAX_TOTAL_BYTES`], so every SCANDUMP cursor (one plus a byte offset)
//!    fits an `i64`.
//!
//! Nothing else is assumed: `items` and `deletes` are whatever was counted or loaded (LOADCHUNK
//! data is not reconciled with them, as in RedisBloom, so they may wrap), and a fingerprint may
//! be any byte. Filters built by [`CuckooFilter::new`] or from a SCANDUMP header have a
//! power-of-two base bucket count, and with a power-of-two expansion every sub-filter is a power
//! of two too: those are indexed with a mask. A header may carry an expansion such as 3
//! (RedisBloom 8 accepts it) and an RDB value any bucket counts, so a `%` path serves the rest
//! with RedisBloom's results, even where its kick loop stops being undone exactly (the
//! alternate of the alternate bucket is the bucket itself only for powers of two).

mod growth;
mod merge;

pub use merge::MergeError;

use super::hash::ItemHash;
use super::header::SavedHeader;
use crate::core::batch::{self, in_batches};
// Also here for the fuzz targets, which import it from this module.
pub use super::params::MAX_BUCKET_SIZE;
use super::params::{Params, MAX_BUCKETS, MAX_TOTAL_BYTES};
use super::sub_filter::{sub_filter_buckets, SubFilter};
use crate::core::relocate::{Mover, Relocate};
use crate::core::sparse::Sparse;
use crate::core::{try_vec, Error, Memory};

/// RedisBloom's `sizeof(CuckooFilter)` and `sizeof(SubCF)` on 64-bit machines: `MEMORY USAGE`
/// and `CF.INFO Size` count them, so the figures match RedisBloom's to the byte.
const FILTER_OVERHEAD: u64 = 40;
const SUB_FILTER_OVERHEAD: u64 = 16;
/// A delete compacts a multi-filter chain once deletes exceed this share of the items
/// (`CuckooFilter_Delete`).
const COMPACT_RATIO: f64 = 0.10;
/// How many items `CF.MEXISTS` hashes and reads ahead at a time. In batches of 8, 16, 32 and
/// 64 on a 2 MiB filter, 8 and 16 did best (bench/README.md).
const READ_AHEAD_BATCH: usize = 16;

/// A Cuckoo filter: the value stored under a CF key. See the module docs for its invariants.
#[derive(Debug, PartialEq, Eq)]
pub struct CuckooFilter {
    /// Buckets of the first sub-filter as created; sub-filter `i` is built with
    /// `num_buckets × expansion^i`.
    num_buckets: u64,
    items: u64,
    deletes: u64,
    bucket_size: u16,
    max_iterations: u16,
    expansion: u16,
    /// Oldest first.
    subs: Vec<SubFilter>,
    /// The slots of all of them (a function of `subs`, kept as they come and go): the INFO
    /// totals read it around every write, which would otherwise walk every sub-filter.
    slots: u64,
}

impl Relocate for CuckooFilter {
    fn relocate(&mut self, mover: &mut impl Mover) {
        self.subs.relocate(mover);
    }
}

impl CuckooFilter {
    /// A new, empty filter of one sub-filter, its bytes from `zeroed` (`CuckooFilter_Init`).
    /// `InvalidParameters` outside RedisBloom 8's `CF.RESERVE` ranges (bucket size 1..=255,
    /// max iterations ≥ 1, expansion ≤ 32768) or for an absurd capacity; `OutOfMemory` when
    /// the bytes cannot be had.
    pub fn new(params: Params, memory: &Memory) -> Result<CuckooFilter, Error> {
        params.check()?;
        let num_buckets = params.num_buckets()?;
        let bytes = num_buckets
            .checked_mul(u64::from(params.bucket_size))
            .ok_or(Error::OutOfMemory)?;
        memory.check(memory_usage(1, bytes).ok_or(Error::OutOfMemory)?)?;
        let first = SubFilter::zeroed(num_buckets, params.bucket_size, memory)?;
        Ok(CuckooFilter {
            num_buckets,
            items: 0,
            deletes: 0,
            bucket_size: params.bucket_size,
            max_iterations: params.max_iterations,
            expansion: params.stored_expansion(),
            slots: first.bytes().len() as u64,
            subs: vec![first],
        })
    }

    /// Rebuilds a value from its RDB fields and its sub-filters as `(bucket count, bytes)`,
    /// oldest first, taking the loaded buffers without copying them. `BadEncoding` where
    /// RedisBloom would accept inconsistent geometry or abort on its length assertion: a header
    /// that fails [`SavedHeader::check`], a number of sub-filters other than `num_filters`, a
    /// sub-filter of 0 or more than 2^56 − 1 buckets, or bytes other than `bucket_size ×
    /// buckets` long.
    pub fn from_saved(
        header: SavedHeader,
        sub_filters: Vec<(u64, Vec<u8>)>,
    ) -> Result<CuckooFilter, Error> {
        header.check()?;
        if sub_filters.len() as u64 != header.num_filters {
            return Err(Error::BadEncoding);
        }
        let bucket_size = u64_to_u16(header.bucket_size)?;
        let mut subs = try_vec(sub_filters.len())?;
        let mut total = 0u64;
        for (num_buckets, data) in sub_filters {
            let expected = num_buckets.checked_mul(u64::from(bucket_size));
            total = total.saturating_add(data.len() as u64);
            if !(1..=MAX_BUCKETS).contains(&num_buckets)
                || expected != Some(data.len() as u64)
                || total > MAX_TOTAL_BYTES
            {
                return Err(Error::BadEncoding);
            }
            subs.push(SubFilter::new(num_buckets, Sparse::loaded(data)?));
        }
        CuckooFilter::from_header(&header, subs)
    }

    /// A filter of `header.num_filters` zeroed sub-filters of `num_buckets × expansion^i`
    /// buckets (`CFHeader_Load`), for a SCANDUMP header whose own rules the caller has checked.
    /// `BadEncoding` when a sub-filter would pass 2^56 − 1 buckets or the total would pass
    /// [`MAX_TOTAL_BYTES`]; `OutOfMemory` when it would pass `max_total_bytes`, before anything
    /// is allocated, or when `zeroed` fails.
    pub(super) fn with_zeroed_sub_filters(
        header: SavedHeader,
        memory: &Memory,
    ) -> Result<CuckooFilter, Error> {
        header.check()?;
        let bucket_size = u64_to_u16(header.bucket_size)?;
        let expansion = u64_to_u16(header.expansion)?;
        let count = usize::try_from(header.num_filters).map_err(|_| Error::BadEncoding)?;
        let mut sizes = try_vec(count)?;
        let mut total = 0u64;
        for i in 0..count {
            let num_buckets =
                sub_filter_buckets(header.num_buckets, expansion, i).ok_or(Error::BadEncoding)?;
            total = num_buckets
                .checked_mul(u64::from(bucket_size))
                .and_then(|bytes| total.checked_add(bytes))
                .filter(|total| *total <= MAX_TOTAL_BYTES)
                .ok_or(Error::BadEncoding)?;
            sizes.push(num_buckets);
        }
        memory.check(memory_usage(count as u64, total).ok_or(Error::OutOfMemory)?)?;
        let mut subs = try_vec(count)?;
        for num_buckets in sizes {
            subs.push(SubFilter::zeroed(num_buckets, bucket_size, memory)?);
        }
        CuckooFilter::from_header(&header, subs)
    }

    /// The filter `header` describes, holding `subs`: the caller has checked the header and
    /// that `subs` fit it.
    fn from_header(header: &SavedHeader, subs: Vec<SubFilter>) -> Result<CuckooFilter, Error> {
        Ok(CuckooFilter {
            num_buckets: header.num_buckets,
            items: header.items,
            deletes: header.deletes,
            bucket_size: u64_to_u16(header.bucket_size)?,
            max_iterations: u64_to_u16(header.max_iterations)?,
            expansion: u64_to_u16(header.expansion)?,
            slots: subs.iter().map(|sub| sub.bytes().len() as u64).sum(),
            subs,
        })
    }

    /// A deep copy (for `COPY`), its arrays from `memory` and written only where this one's
    /// were (in time proportional to the data, not the reservation), or `OutOfMemory` instead
    /// of aborting the server. The copy has this filter's size, which was checked when it was
    /// made.
    pub fn try_clone(&self, memory: &Memory) -> Result<CuckooFilter, Error> {
        let mut subs = try_vec(self.subs.len())?;
        for sub in &self.subs {
            subs.push(sub.try_clone(memory)?);
        }
        Ok(CuckooFilter { subs, ..*self })
    }

    /// Whether the item may be present (`CuckooFilter_Check`): oldest sub-filter first, bucket
    /// `h1` then `h2`. No false negatives for items inserted and not deleted.
    pub fn contains(&self, item: &ItemHash) -> bool {
        let bucket_size = usize::from(self.bucket_size);
        self.subs
            .iter()
            .any(|sub| sub.find(item.fp, item.h1, item.h2, bucket_size))
    }

    /// [`CuckooFilter::contains`] of every item in order, handing each answer to `found`
    /// (`CF.MEXISTS`). Items are hashed a batch at a time, and each one's primary bucket in
    /// every sub-filter read before any is checked (`core::batch`).
    pub fn contains_each<'a>(
        &self,
        items: impl IntoIterator<Item = &'a [u8]>,
        mut found: impl FnMut(bool),
    ) {
        in_batches::<_, READ_AHEAD_BATCH>(items, ItemHash::of, |hashes| {
            self.read_ahead(hashes);
            hashes.iter().for_each(|hash| found(self.contains(hash)));
            true
        });
    }

    /// Reads ahead each item's primary bucket in every sub-filter. Only the primary: a lookup
    /// reads the alternate bucket only when the primary lacks the item, and reading both ahead
    /// made `CF.MEXISTS` ×100 no faster, with the prefetch, and slower with loads
    /// (bench/README.md).
    fn read_ahead(&self, hashes: &[ItemHash]) {
        let bucket_size = usize::from(self.bucket_size);
        for sub in &self.subs {
            let offsets = hashes
                .iter()
                .map(|hash| sub.bucket_start(hash.h1, bucket_size));
            batch::read_ahead(sub.bytes(), offsets);
        }
    }

    /// How many times the item may be present (`CuckooFilter_Count`, `CF.COUNT`): its
    /// fingerprint's copies in both of its buckets of every sub-filter. When both buckets are
    /// the same bucket it is counted twice, as RedisBloom does (clients see that count).
    pub fn count(&self, item: &ItemHash) -> u64 {
        let bucket_size = usize::from(self.bucket_size);
        self.subs
            .iter()
            .map(|sub| sub.count(item.fp, item.h1, item.h2, bucket_size))
            .sum()
    }

    /// Adds the item, a duplicate included (`CuckooFilter_Insert`, `CF.ADD`): into the first
    /// empty slot of its buckets, newest sub-filter first; else by kicking fingerprints around
    /// the newest sub-filter, undone exactly if that fails; else by growing the filter and
    /// placing it in the new sub-filter (bytes from `zeroed`).
    ///
    /// `Full` when the filter may not grow (expansion 0); `CannotGrow` when a new sub-filter
    /// would pass 2^56 − 1 buckets, 65535 sub-filters or the available memory. The filter is
    /// unchanged after either.
    pub fn insert(&mut self, item: &ItemHash, memory: &Memory) -> Result<(), Error> {
        loop {
            if self.place(item) || self.kick(item) {
                self.items = self.items.wrapping_add(1);
                return Ok(());
            }
            if self.expansion == 0 {
                return Err(Error::Full);
            }
            self.grow(memory)?;
        }
    }

    /// Adds the item unless it may already be present (`CuckooFilter_InsertUnique`,
    /// `CF.ADDNX`): `Ok(false)` when [`CuckooFilter::contains`] finds it, else as
    /// [`CuckooFilter::insert`] and `Ok(true)`.
    pub fn insert_if_absent(&mut self, item: &ItemHash, memory: &Memory) -> Result<bool, Error> {
        if self.contains(item) {
            return Ok(false);
        }
        self.insert(item, memory).map(|()| true)
    }

    /// Removes one copy of the item's fingerprint (`CuckooFilter_Delete`, `CF.DEL`): the first
    /// in its buckets, newest sub-filter first. Then, when there are several sub-filters and
    /// deletes exceed a tenth of the items, compacts, stopping at the first sub-filter that
    /// cannot be emptied. False when no copy was found. Deleting an item never added may
    /// remove another item's fingerprint, as in every Cuckoo filter.
    pub fn delete(&mut self, item: &ItemHash) -> bool {
        let bucket_size = usize::from(self.bucket_size);
        let removed = self
            .subs
            .iter_mut()
            .rev()
            .any(|sub| sub.remove(item.fp, item.h1, item.h2, bucket_size));
        if !removed {
            return false;
        }
        self.items = self.items.wrapping_sub(1);
        self.deletes = self.deletes.wrapping_add(1);
        // Compared in floating point, as RedisBloom does.
        if self.subs.len() > 1 && self.deletes as f64 > self.items as f64 * COMPACT_RATIO {
            self.compact_with(false);
        }
        true
    }

    /// `CF.COMPACT` (`CuckooFilter_Compact(cf, true)`): moves fingerprints from newer
    /// sub-filters into free slots of older ones, frees the newest sub-filter while it ends up
    /// empty, carries on past sub-filters that cannot be emptied, and resets the deletes to 0.
    pub fn compact(&mut self) {
        self.compact_with(true);
    }

    /// Items inserted minus items deleted (`numItems`: CF.INFO's "Number of items inserted").
    pub fn items(&self) -> u64 {
        self.items
    }

    /// Deletes since the last compaction (`numDeletes`).
    pub fn deletes(&self) -> u64 {
        self.deletes
    }

    /// Sub-filters (`numFilters`).
    pub fn num_filters(&self) -> u16 {
        // At most MAX_FILTERS, by invariant 1.
        self.subs.len() as u16
    }

    /// Buckets of the first sub-filter as created (`numBuckets`, CF.INFO's "Number of buckets").
    pub fn num_buckets(&self) -> u64 {
        self.num_buckets
    }

    /// Slots per bucket.
    pub fn bucket_size(&self) -> u16 {
        self.bucket_size
    }

    /// Kicks tried before growing.
    pub fn max_iterations(&self) -> u16 {
        self.max_iterations
    }

    /// The growth factor as stored: rounded up to a power of two for filters built here.
    pub fn expansion(&self) -> u16 {
        self.expansion
    }

    /// `CF.DEBUG`'s line, in RedisBloom's format.
    pub fn debug_line(&self) -> String {
        format!(
            "bktsize:{} buckets:{} items:{} deletes:{} filters:{} max_iterations:{} expansion:{}",
            self.bucket_size(),
            self.num_buckets(),
            self.items(),
            self.deletes(),
            self.num_filters(),
            self.max_iterations(),
            self.expansion()
        )
    }

    /// Bytes this value holds as RedisBloom counts them (`CFMemUsage`, CF.INFO's "Size"):
    /// `40 + 16 × sub-filters + all sub-filter bytes`.
    pub fn memory_usage(&self) -> u64 {
        memory_usage(self.subs.len() as u64, self.slots()).unwrap_or(u64::MAX)
    }

    /// Slots of all sub-filters: one byte each, so also the bytes of their arrays.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// The RDB fields in save order (`CFRdbSave`); the sub-filters follow from
    /// [`CuckooFilter::sub_filters`].
    pub fn saved_header(&self) -> SavedHeader {
        SavedHeader {
            num_filters: self.subs.len() as u64,
            num_buckets: self.num_buckets,
            items: self.items,
            deletes: self.deletes,
            bucket_size: u64::from(self.bucket_size),
            max_iterations: u64::from(self.max_iterations),
            expansion: u64::from(self.expansion),
        }
    }

    /// The sub-filters as `(bucket count, bytes)`, oldest first: bucket `b` is bytes
    /// `b × bucket_size .. (b + 1) × bucket_size`, one fingerprint per byte, 0 when empty.
    pub fn sub_filters(&self) -> impl ExactSizeIterator<Item = (u64, &[u8])> {
        self.subs
            .iter()
            .map(|sub| (sub.num_buckets(), &sub.bytes()[..]))
    }

    /// The sub-filters' bytes as [`Sparse`] arrays, oldest first: for the walks that visit
    /// only what was written (DEBUG DIGEST, SCANDUMP).
    pub fn sub_filter_arrays(&self) -> impl ExactSizeIterator<Item = &Sparse> {
        self.subs.iter().map(SubFilter::bytes)
    }

    /// The sub-filters' bytes, oldest first, for LOADCHUNK to write into.
    pub(super) fn sub_filter_bytes_mut(&mut self) -> impl Iterator<Item = &mut Sparse> {
        self.subs.iter_mut().map(|sub| sub.bytes_mut())
    }

    /// Step 1 of an insert (`CuckooFilter_InsertFP`): the first empty slot of the item's
    /// buckets, newest sub-filter first.
    fn place(&mut self, item: &ItemHash) -> bool {
        let bucket_size = usize::from(self.bucket_size);
        self.subs
            .iter_mut()
            .rev()
            .any(|sub| sub.place(item.fp, item.h1, item.h2, bucket_size))
    }

    /// Step 2 (`Filter_KOInsert`): kicking fingerprints around the newest sub-filter only
    /// ([`SubFilter::kick`]), undone exactly when that fails.
    fn kick(&mut self, item: &ItemHash) -> bool {
        let bucket_size = usize::from(self.bucket_size);
        let rounds = self.max_iterations;
        self.subs
            .last_mut()
            .is_some_and(|sub| sub.kick(item, bucket_size, rounds))
    }
}

fn u64_to_u16(value: u64) -> Result<u16, Error> {
    u16::try_from(value).map_err(|_| Error::BadEncoding)
}

/// What `MEMORY USAGE` counts for a filter of `filters` sub-filters holding `bytes` of
/// fingerprints (RedisBloom's structs included); `None` on overflow.
pub fn memory_usage(filters: u64, bytes: u64) -> Option<u64> {
    SUB_FILTER_OVERHEAD
        .checked_mul(filters)?
        .checked_add(FILTER_OVERHEAD)?
        .checked_add(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cf::tests::{bytes, filter};
    use crate::core::EAGER;

    #[test]
    fn worked_example_item1() {
        // CF.RESERVE cf 8 (4 buckets × 2), CF.ADD cf item1: fp 7 in bucket 2, slot 0.
        let mut f = filter(8, 2, 20, 1);
        let h = ItemHash::of(b"item1");
        assert_eq!((h.hash() % 4, h.alt_hash() % 4), (2, 1));
        f.insert(&h, &EAGER).unwrap();
        assert_eq!(bytes(&f), vec![vec![0, 0, 0, 0, 7, 0, 0, 0]]);
        assert!(f.contains(&h));
        assert_eq!(f.count(&h), 1);
        assert_eq!(f.items(), 1);
    }

    #[test]
    fn count_double_counts_a_bucket_that_is_both_candidates() {
        // CF.RESERVE c2 4 (2 buckets): "3" has fp 228, even, so both buckets coincide.
        let mut f = filter(4, 2, 20, 1);
        let h = ItemHash::of(b"3");
        assert_eq!(h.fingerprint(), 228);
        f.insert(&h, &EAGER).unwrap();
        assert_eq!(f.count(&h), 2);
        assert!(f.contains(&h));
        assert!(f.delete(&h));
        assert_eq!(f.count(&h), 0);
        assert!(!f.contains(&h));
        assert!(!f.delete(&h));
    }
}
