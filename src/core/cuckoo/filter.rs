//! The Cuckoo filter stored under a CF key, as RedisBloom's `CuckooFilter` (`src/cuckoo.c`,
//! `src/cuckoo.h`): a chain of sub-filters, each an array of buckets of `bucket_size` one-byte
//! fingerprints, 0 meaning an empty slot. Bit-exact: the same commands in the same order leave
//! the same bytes, which is what SCANDUMP, RDB and DUMP carry.
//!
//! # Invariants
//!
//! Every constructor checks these, and every method keeps them:
//!
//! 1. there are 1 to [`MAX_FILTERS`] sub-filters;
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

use crate::core::hash::murmur64a;
use crate::core::{Error, Memory};

/// The most slots per bucket: RedisBloom stores the bucket size of a sub-filter in 8 bits.
pub const MAX_BUCKET_SIZE: u16 = 255;
/// The largest expansion RedisBloom 8 accepts (`CF.RESERVE … EXPANSION`, SCANDUMP headers).
pub const MAX_EXPANSION: u16 = 32768;
/// The most buckets in one sub-filter: RedisBloom's 56-bit field (`CF_MAX_NUM_BUCKETS`).
pub const MAX_BUCKETS: u64 = (1 << 56) - 1;
/// The most sub-filters: RedisBloom counts them in 16 bits and, since 8.4, refuses to grow at
/// 65535 instead of wrapping.
pub const MAX_FILTERS: u16 = u16::MAX;
/// The most bytes all sub-filters may hold together: SCANDUMP cursors are one plus a byte
/// offset, in a signed 64-bit integer.
pub const MAX_TOTAL_BYTES: u64 = i64::MAX as u64 - 1;

/// The odd constant of the alternate bucket (`getAltHash`): `index XOR fp × 0x5BD1E995`.
const ALT_MULTIPLIER: u64 = 0x5bd1_e995;
/// RedisBloom's `sizeof(CuckooFilter)` and `sizeof(SubCF)` on 64-bit machines: `MEMORY USAGE`
/// and `CF.INFO Size` count them, so the figures match RedisBloom's to the byte.
const FILTER_OVERHEAD: u64 = 40;
const SUB_FILTER_OVERHEAD: u64 = 16;
/// A delete compacts a multi-filter chain once deletes exceed this share of the items
/// (`CuckooFilter_Delete`).
const COMPACT_RATIO: f64 = 0.10;

/// An item's hash, computed once per command and used for every sub-filter: RedisBloom's
/// `LookupParams` (`getLookupParams`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemHash {
    /// MurmurHash64A of the item with seed 0; its primary bucket in every sub-filter is this
    /// modulo the sub-filter's bucket count.
    h1: u64,
    /// The alternate bucket's hash: `h1 XOR fp × 0x5BD1E995`, on all 64 bits.
    h2: u64,
    /// `h1 mod 255 + 1`: never 0, which marks an empty slot.
    fp: u8,
}

impl ItemHash {
    /// Hashes `item` as RedisBloom's `CUCKOO_GEN_HASH` does (MurmurHash64A, seed 0).
    pub fn of(item: &[u8]) -> ItemHash {
        ItemHash::from_hash(murmur64a(item, 0))
    }

    /// The fingerprint and both bucket hashes of a 64-bit item hash.
    pub fn from_hash(hash: u64) -> ItemHash {
        // hash % 255 is at most 254, so the fingerprint is 1..=255.
        let fp = (hash % 255 + 1) as u8;
        ItemHash {
            h1: hash,
            h2: alt_index(fp, hash),
            fp,
        }
    }

    /// The item's 64-bit hash (its primary bucket hash).
    pub fn hash(&self) -> u64 {
        self.h1
    }

    /// The alternate bucket hash.
    pub fn alt_hash(&self) -> u64 {
        self.h2
    }

    /// The one-byte fingerprint stored for the item.
    pub fn fingerprint(&self) -> u8 {
        self.fp
    }
}

/// The alternate bucket of a fingerprint at `index` (`getAltHash`), before reduction modulo
/// the bucket count. The product is below 2^40; the XOR keeps every bit of `index`.
fn alt_index(fp: u8, index: u64) -> u64 {
    index ^ u64::from(fp).wrapping_mul(ALT_MULTIPLIER)
}

/// How a new filter is to be built (`CF.RESERVE`, auto-creation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Items it is sized for: the first sub-filter gets `next_pow2(capacity / bucket_size)`
    /// buckets (at least one).
    pub capacity: u64,
    /// Slots per bucket, 1 to 255.
    pub bucket_size: u16,
    /// Kicks tried before the filter grows, at least 1.
    pub max_iterations: u16,
    /// Growth factor, 0 (never grow) to 32768; stored rounded up to a power of two.
    pub expansion: u16,
}

impl Params {
    /// Buckets of the first sub-filter: `next_pow2(capacity / bucket_size)`, at least 1
    /// (`CuckooFilter_Init`). `InvalidParameters` for a bucket size of 0 or a count beyond
    /// [`MAX_BUCKETS`] (RedisBloom's `getNextN2` would wrap such a count to 0, then to 1).
    pub fn num_buckets(&self) -> Result<u64, Error> {
        if self.bucket_size == 0 {
            return Err(Error::InvalidParameters);
        }
        let quotient = self.capacity / u64::from(self.bucket_size);
        let rounded = quotient.max(1).checked_next_power_of_two();
        rounded
            .filter(|n| *n <= MAX_BUCKETS)
            .ok_or(Error::InvalidParameters)
    }

    /// The expansion as stored: rounded up to a power of two, 0 staying 0 (`getNextN2`), so
    /// 3 becomes 4 and 30000 becomes 32768. Values above 32768, which [`CuckooFilter::new`]
    /// refuses, give 0 as RedisBloom's 16-bit field would.
    pub fn stored_expansion(&self) -> u16 {
        match self.expansion {
            0 => 0,
            e => e.checked_next_power_of_two().unwrap_or(0),
        }
    }

    /// The ranges RedisBloom 8's `CF.RESERVE` enforces (its commands check them with their
    /// own messages first; this keeps the core from building what they would refuse).
    fn check(&self) -> Result<(), Error> {
        let valid = (1..=MAX_BUCKET_SIZE).contains(&self.bucket_size)
            && self.max_iterations >= 1
            && self.expansion <= MAX_EXPANSION;
        if valid {
            Ok(())
        } else {
            Err(Error::InvalidParameters)
        }
    }
}

/// The seven numbers an RDB value starts with, in the order RedisBloom's `CFRdbSave` writes
/// them with `RedisModule_SaveUnsigned`. Each sub-filter follows as its bucket count (also
/// `SaveUnsigned`) and its bytes (`SaveStringBuffer`), oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SavedHeader {
    /// Sub-filters that follow.
    pub num_filters: u64,
    /// Buckets of the first sub-filter as created (the base of growth).
    pub num_buckets: u64,
    /// Items inserted minus items deleted.
    pub items: u64,
    /// Deletes since the last compaction.
    pub deletes: u64,
    /// Slots per bucket.
    pub bucket_size: u64,
    /// Kicks tried before growing.
    pub max_iterations: u64,
    /// Growth factor, as stored (already rounded).
    pub expansion: u64,
}

impl SavedHeader {
    /// The seven numbers in their saved order (the RDB value's start, and what a digest
    /// covers).
    pub fn fields(&self) -> [u64; 7] {
        [
            self.num_filters,
            self.num_buckets,
            self.items,
            self.deletes,
            self.bucket_size,
            self.max_iterations,
            self.expansion,
        ]
    }

    /// The fields of a value saved with encoding version 1 or 3 (RedisBloom before 2.2), which
    /// stored only `numFilters`, `numBuckets` and `numItems`: no deletes, and the rest from
    /// defaults (RedisBloom 2.8 uses 2, 20 and 1; 8.x its `cf-*` configs). Every one of its
    /// sub-filters has `num_buckets` buckets: pair each loaded buffer with that count. Such
    /// buffers hold 2 slots per bucket, so a default bucket size other than 2 makes
    /// [`CuckooFilter::from_saved`] refuse them (RedisBloom 8 aborts on the assertion). The
    /// expansion is rounded up to a power of two, as for every filter built here.
    pub fn legacy(
        num_filters: u64,
        num_buckets: u64,
        items: u64,
        bucket_size: u16,
        max_iterations: u16,
        expansion: u16,
    ) -> SavedHeader {
        let rounded = Params {
            capacity: 0,
            bucket_size,
            max_iterations,
            expansion,
        }
        .stored_expansion();
        SavedHeader {
            num_filters,
            num_buckets,
            items,
            deletes: 0,
            bucket_size: u64::from(bucket_size),
            max_iterations: u64::from(max_iterations),
            expansion: u64::from(rounded),
        }
    }

    /// Whether the fields can describe a filter: 1 to 65535 sub-filters, 1 to 2^56 − 1 base
    /// buckets, a bucket size of 1 to 255, and iterations and expansion within 16 bits (where
    /// RedisBloom would silently truncate). The glue calls this right after reading the seven
    /// numbers, before reading `num_filters` sub-filters; [`CuckooFilter::from_saved`] checks
    /// it again. Like RedisBloom's loader, it accepts a zero iteration count, any 16-bit
    /// expansion and bucket counts that are not powers of two: filters saved by some version
    /// have them, and they work.
    pub fn check(&self) -> Result<(), Error> {
        let valid = (1..=u64::from(MAX_FILTERS)).contains(&self.num_filters)
            && (1..=MAX_BUCKETS).contains(&self.num_buckets)
            && (1..=u64::from(MAX_BUCKET_SIZE)).contains(&self.bucket_size)
            && self.max_iterations <= u64::from(u16::MAX)
            && self.expansion <= u64::from(u16::MAX);
        if valid {
            Ok(())
        } else {
            Err(Error::BadEncoding)
        }
    }
}

/// One sub-filter: `num_buckets` buckets of the filter's bucket size, one byte per slot.
#[derive(Debug, PartialEq, Eq)]
struct SubFilter {
    num_buckets: u64,
    /// `num_buckets − 1` when it is a power of two, so that reduction is a mask.
    mask: u64,
    pow2: bool,
    data: Vec<u8>,
}

impl SubFilter {
    /// Wraps `data`, which the caller has checked holds `num_buckets × bucket size` bytes.
    fn new(num_buckets: u64, data: Vec<u8>) -> SubFilter {
        SubFilter {
            num_buckets,
            mask: num_buckets.wrapping_sub(1),
            pow2: num_buckets.is_power_of_two(),
            data,
        }
    }

    /// A zeroed sub-filter of `num_buckets` buckets, its bytes from `memory` (the caller has
    /// checked the filter's size against it).
    fn zeroed(num_buckets: u64, bucket_size: u16, memory: &Memory) -> Result<SubFilter, Error> {
        let len = num_buckets
            .checked_mul(u64::from(bucket_size))
            .filter(|len| *len <= MAX_TOTAL_BYTES)
            .ok_or(Error::OutOfMemory)?;
        Ok(SubFilter::new(num_buckets, memory.array(len)?))
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

    #[inline]
    fn bucket_mut(&mut self, index: u64, bucket_size: usize) -> &mut [u8] {
        let start = index as usize * bucket_size;
        self.data
            .get_mut(start..start + bucket_size)
            .unwrap_or_default()
    }

    /// Whether `fp` is in bucket `h1` or `h2` (`Filter_Find`).
    #[inline]
    fn find(&self, fp: u8, h1: u64, h2: u64, bucket_size: usize) -> bool {
        self.bucket(self.index(h1), bucket_size).contains(&fp)
            || self.bucket(self.index(h2), bucket_size).contains(&fp)
    }

    /// Copies of `fp` in bucket `h1` plus copies in bucket `h2` (`subFilterCount`): a bucket
    /// that is both is counted twice, as in RedisBloom.
    fn count(&self, fp: u8, h1: u64, h2: u64, bucket_size: usize) -> u64 {
        [h1, h2]
            .into_iter()
            .map(|h| {
                let bucket = self.bucket(self.index(h), bucket_size);
                bucket.iter().filter(|&&slot| slot == fp).count() as u64
            })
            .sum()
    }

    /// Writes `new` into the first slot holding `old` in bucket `h1`, else in bucket `h2`;
    /// false when neither holds it. An empty slot holds 0.
    #[inline]
    fn replace_first(&mut self, old: u8, new: u8, h1: u64, h2: u64, bucket_size: usize) -> bool {
        for h in [h1, h2] {
            let index = self.index(h);
            if let Some(slot) = self
                .bucket_mut(index, bucket_size)
                .iter_mut()
                .find(|slot| **slot == old)
            {
                *slot = new;
                return true;
            }
        }
        false
    }

    /// Writes `fp` into the first empty slot of bucket `h1`, else of bucket `h2`
    /// (`Filter_FindAvailable`); false when both are full.
    #[inline]
    fn place(&mut self, fp: u8, h1: u64, h2: u64, bucket_size: usize) -> bool {
        self.replace_first(0, fp, h1, h2, bucket_size)
    }

    /// Clears the first slot holding `fp` in bucket `h1`, else in bucket `h2`
    /// (`Filter_Delete`); false when neither holds it.
    fn remove(&mut self, fp: u8, h1: u64, h2: u64, bucket_size: usize) -> bool {
        self.replace_first(fp, 0, h1, h2, bucket_size)
    }

    /// Exchanges `fp` with slot `victim` (< bucket size) of bucket `index` (`swapFPs`).
    #[inline]
    fn swap(&mut self, index: u64, victim: usize, bucket_size: usize, fp: &mut u8) {
        if let Some(slot) = self.bucket_mut(index, bucket_size).get_mut(victim) {
            std::mem::swap(slot, fp);
        }
    }

    fn try_clone(&self) -> Result<SubFilter, Error> {
        let mut data = Vec::new();
        data.try_reserve_exact(self.data.len())
            .map_err(|_| Error::OutOfMemory)?;
        data.extend_from_slice(&self.data);
        Ok(SubFilter::new(self.num_buckets, data))
    }
}

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
        let mut subs = Vec::new();
        subs.try_reserve_exact(sub_filters.len())
            .map_err(|_| Error::OutOfMemory)?;
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
            subs.push(SubFilter::new(num_buckets, data));
        }
        Ok(CuckooFilter {
            num_buckets: header.num_buckets,
            items: header.items,
            deletes: header.deletes,
            bucket_size,
            max_iterations: u64_to_u16(header.max_iterations)?,
            expansion: u64_to_u16(header.expansion)?,
            subs,
        })
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
        let mut sizes = Vec::new();
        sizes
            .try_reserve_exact(count)
            .map_err(|_| Error::OutOfMemory)?;
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
        let mut subs = Vec::new();
        subs.try_reserve_exact(count)
            .map_err(|_| Error::OutOfMemory)?;
        for num_buckets in sizes {
            subs.push(SubFilter::zeroed(num_buckets, bucket_size, memory)?);
        }
        Ok(CuckooFilter {
            num_buckets: header.num_buckets,
            items: header.items,
            deletes: header.deletes,
            bucket_size,
            max_iterations: u64_to_u16(header.max_iterations)?,
            expansion,
            subs,
        })
    }

    /// A deep copy (for `COPY`), or `OutOfMemory` instead of aborting the server.
    pub fn try_clone(&self) -> Result<CuckooFilter, Error> {
        let mut subs = Vec::new();
        subs.try_reserve_exact(self.subs.len())
            .map_err(|_| Error::OutOfMemory)?;
        for sub in &self.subs {
            subs.push(sub.try_clone()?);
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
        self.subs.iter().map(|sub| sub.data.len() as u64).sum()
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
            .map(|sub| (sub.num_buckets, sub.data.as_slice()))
    }

    /// The sub-filters' bytes, oldest first, for LOADCHUNK to write into.
    pub(super) fn sub_filter_bytes_mut(&mut self) -> impl Iterator<Item = &mut [u8]> {
        self.subs.iter_mut().map(|sub| sub.data.as_mut_slice())
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

    /// Step 2 (`Filter_KOInsert`): in the newest sub-filter only, swap the fingerprint in hand
    /// with slot `victim` of the current bucket, move to the alternate bucket of the evicted
    /// fingerprint and stop at an empty slot there; otherwise rotate `victim` and repeat, up
    /// to `max_iterations` times. On failure, walk the same path backwards swapping again, which
    /// puts every byte back and leaves the new item's fingerprint in hand. Bucket indexes are
    /// 64-bit, as in RedisBloom 8.4+ (2.8 truncated them to 32 bits).
    fn kick(&mut self, item: &ItemHash) -> bool {
        let bucket_size = usize::from(self.bucket_size);
        let rounds = self.max_iterations;
        let Some(sub) = self.subs.last_mut() else {
            return false;
        };
        let mut fp = item.fp;
        let mut victim = 0;
        let mut index = sub.index(item.h1);
        for _ in 0..rounds {
            sub.swap(index, victim, bucket_size, &mut fp);
            index = sub.index(alt_index(fp, index));
            if let Some(slot) = sub
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
            index = sub.index(alt_index(fp, index));
            sub.swap(index, victim, bucket_size, &mut fp);
        }
        false
    }

    /// Appends sub-filter `n` of `num_buckets × expansion^n` buckets (`CuckooFilter_Grow`,
    /// with RedisBloom 8's guards: at most 65535 sub-filters, at most 2^56 − 1 buckets, and a
    /// failed allocation is an error rather than an abort). Leaves the filter unchanged on
    /// failure.
    fn grow(&mut self, memory: &Memory) -> Result<(), Error> {
        let n = self.subs.len();
        if n >= usize::from(MAX_FILTERS) {
            return Err(Error::CannotGrow);
        }
        let num_buckets =
            sub_filter_buckets(self.num_buckets, self.expansion, n).ok_or(Error::CannotGrow)?;
        let held: u64 = self.subs.iter().map(|sub| sub.data.len() as u64).sum();
        let total = num_buckets
            .checked_mul(u64::from(self.bucket_size))
            .and_then(|bytes| bytes.checked_add(held))
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
        self.subs.push(sub);
        Ok(())
    }

    /// `CuckooFilter_Compact`: sub-filters from the newest down to the second, each emptied
    /// into the older ones as far as possible; an emptied sub-filter is freed only if it is
    /// the newest (freeing one in the middle would shift the others' sizes). With
    /// `keep_going` false (after a delete) it stops at the first sub-filter that kept a
    /// fingerprint. Every compaction resets the deletes, even with one sub-filter.
    fn compact_with(&mut self, keep_going: bool) {
        let bucket_size = usize::from(self.bucket_size);
        for i in (1..self.subs.len()).rev() {
            if self.relocate_from(i, bucket_size) {
                if i + 1 == self.subs.len() {
                    self.subs.pop();
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
    fn relocate_from(&mut self, i: usize, bucket_size: usize) -> bool {
        let Some((older, rest)) = self.subs.split_at_mut_checked(i) else {
            return false;
        };
        let Some(current) = rest.first_mut() else {
            return false;
        };
        let mut emptied = true;
        for (b, bucket) in current.data.chunks_exact_mut(bucket_size).enumerate() {
            let b = b as u64;
            for slot in bucket.iter_mut().filter(|slot| **slot != 0) {
                let fp = *slot;
                let alt = alt_index(fp, b);
                if older
                    .iter_mut()
                    .any(|sub| sub.place(fp, b, alt, bucket_size))
                {
                    *slot = 0;
                } else {
                    emptied = false;
                }
            }
        }
        emptied
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
    use crate::core::cuckoo::tests::params;
    use crate::core::{Memory, EAGER};

    fn filter(
        capacity: u64,
        bucket_size: u16,
        max_iterations: u16,
        expansion: u16,
    ) -> CuckooFilter {
        CuckooFilter::new(
            params(capacity, bucket_size, max_iterations, expansion),
            &EAGER,
        )
        .unwrap()
    }

    fn bytes(f: &CuckooFilter) -> Vec<Vec<u8>> {
        f.sub_filters().map(|(_, data)| data.to_vec()).collect()
    }

    #[test]
    fn hash_vectors_of_the_spec() {
        // RedisBloom's CUCKOO_GEN_HASH (MurmurHash64A, seed 0) of a few items.
        for (item, hash) in [
            (&b""[..], 0u64),
            (b"a", 0x0717_17d2_d36b_6b11),
            (b"foo", 0xcdde_3835_8fd2_5b01),
            (b"item1", 0x7930_a108_c52a_9032),
            (b"123456789", 0x4977_4902_5167_4330),
        ] {
            let h = ItemHash::of(item);
            assert_eq!(h.hash(), hash, "{item:?}");
            assert_eq!(u64::from(h.fingerprint()), hash % 255 + 1);
            assert_eq!(
                h.alt_hash(),
                hash ^ (u64::from(h.fingerprint()) * 0x5bd1_e995)
            );
        }
        // The empty item: fingerprint 1, bucket 0.
        assert_eq!(ItemHash::of(b"").fingerprint(), 1);
        assert_eq!(ItemHash::of(b"item1").fingerprint(), 7);
    }

    #[test]
    fn fingerprint_is_never_zero() {
        for hash in [0, 254, 255, 256, u64::MAX, u64::MAX - 1, 255 * 1000 - 1] {
            let fp = ItemHash::from_hash(hash).fingerprint();
            assert_eq!(u64::from(fp), hash % 255 + 1);
            assert_ne!(fp, 0);
        }
    }

    #[test]
    fn sizing_table_of_the_spec() {
        // (capacity, bucket size, buckets) as CF.RESERVE reports them.
        for (capacity, bucket_size, buckets) in [
            (1000, 2, 512),
            (9, 2, 4),
            (10, 2, 8),
            (4, 2, 2),
            (5, 2, 2),
            (100, 2, 64),
            (10000, 2, 8192),
            (64, 1, 64),
            (256, 4, 64),
            (1024, 2, 512),
            (1, 2, 1),
            (0, 2, 1),
        ] {
            let p = params(capacity, bucket_size, 20, 1);
            assert_eq!(p.num_buckets(), Ok(buckets), "{capacity}/{bucket_size}");
        }
        assert_eq!(params(1000, 2, 20, 1).num_buckets(), Ok(512));
        let f = filter(1000, 2, 20, 1);
        assert_eq!(f.memory_usage(), 1080);
        assert_eq!(filter(9, 2, 20, 0).memory_usage(), 64);
        assert_eq!(
            filter(1024, 2, 20, 1).sub_filters().next().unwrap().1.len(),
            1024
        );
    }

    #[test]
    fn expansion_is_stored_rounded() {
        for (given, stored) in [
            (0, 0),
            (1, 1),
            (2, 2),
            (3, 4),
            (5, 8),
            (30000, 32768),
            (32768, 32768),
        ] {
            assert_eq!(params(100, 2, 20, given).stored_expansion(), stored);
            assert_eq!(filter(100, 2, 20, given).expansion(), stored);
        }
    }

    #[test]
    fn invalid_params_are_refused() {
        for p in [
            params(100, 0, 20, 1),
            params(100, 256, 20, 1),
            params(100, 2, 0, 1),
            params(100, 2, 20, 32769),
            params(u64::MAX, 1, 20, 1),
            params(1 << 57, 2, 20, 1),
        ] {
            assert_eq!(
                CuckooFilter::new(p, &EAGER),
                Err(Error::InvalidParameters),
                "{p:?}"
            );
        }
        // The largest valid RESERVE of RedisBloom's test_reserve_limits.
        assert_eq!(
            params(67_108_864, 255, 65535, 32768).num_buckets(),
            Ok(524_288)
        );
        fn refuse(_: usize) -> Option<Vec<u8>> {
            None
        }
        assert_eq!(
            CuckooFilter::new(
                params(100, 2, 20, 1),
                &Memory {
                    zeroed: refuse,
                    ..EAGER
                }
            ),
            Err(Error::OutOfMemory)
        );
        fn short(len: usize) -> Option<Vec<u8>> {
            Some(vec![0; len / 2])
        }
        assert_eq!(
            CuckooFilter::new(
                params(100, 2, 20, 1),
                &Memory {
                    zeroed: short,
                    ..EAGER
                }
            ),
            Err(Error::OutOfMemory)
        );
    }

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
}
