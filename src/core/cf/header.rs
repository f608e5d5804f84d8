//! The seven numbers a Cuckoo filter's RDB value starts with (RedisBloom's `CFRdbSave`,
//! `src/rebloom.c`), and the rules a loaded set of them must keep before any sub-filter is
//! read.

use super::params::{Params, MAX_BUCKETS, MAX_BUCKET_SIZE, MAX_FILTERS};
use crate::core::Error;

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
    ///
    /// [`CuckooFilter::from_saved`]: super::CuckooFilter::from_saved
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
    /// RedisBloom would silently truncate). The RDB loader calls this right after reading the
    /// seven numbers, before reading `num_filters` sub-filters; [`CuckooFilter::from_saved`]
    /// checks it again, and a SCANDUMP header is held to it too. Like RedisBloom's loader, it
    /// accepts a zero iteration count, any 16-bit expansion and bucket counts that are not
    /// powers of two: filters saved by some version have them, and they work.
    ///
    /// [`CuckooFilter::from_saved`]: super::CuckooFilter::from_saved
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
