//! The Cuckoo filter's limits and how a new filter is built (`CF.RESERVE`, auto-creation):
//! RedisBloom 8's ranges (`src/rebloom.c`, `src/cuckoo.h`). The CF commands and configs word
//! their own messages, but build their ranges from these constants, so each limit has one
//! home.

use crate::core::Error;

/// The most slots per bucket: RedisBloom stores the bucket size of a sub-filter in 8 bits.
pub const MAX_BUCKET_SIZE: u16 = 255;
/// The fewest kicks a new filter may try before it grows (`CF.RESERVE … MAXITERATIONS`,
/// SCANDUMP headers); a saved RDB value may still hold 0.
pub const MIN_ITERATIONS: u16 = 1;
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

/// Whether RedisBloom 8 builds a filter of this shape (`CF.RESERVE`, a SCANDUMP header): a
/// bucket size of 1 to [`MAX_BUCKET_SIZE`], at least [`MIN_ITERATIONS`] and an expansion of
/// at most [`MAX_EXPANSION`].
pub(super) fn within_limits(bucket_size: u16, max_iterations: u16, expansion: u16) -> bool {
    (1..=MAX_BUCKET_SIZE).contains(&bucket_size)
        && max_iterations >= MIN_ITERATIONS
        && expansion <= MAX_EXPANSION
}

/// How a new filter is to be built (`CF.RESERVE`, auto-creation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Items it is sized for: the first sub-filter gets `next_pow2(capacity / bucket_size)`
    /// buckets (at least one).
    pub capacity: u64,
    /// Slots per bucket, 1 to [`MAX_BUCKET_SIZE`].
    pub bucket_size: u16,
    /// Kicks tried before the filter grows, at least [`MIN_ITERATIONS`].
    pub max_iterations: u16,
    /// Growth factor, 0 (never grow) to [`MAX_EXPANSION`]; stored rounded up to a power of two.
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
    ///
    /// [`CuckooFilter::new`]: super::CuckooFilter::new
    pub fn stored_expansion(&self) -> u16 {
        match self.expansion {
            0 => 0,
            e => e.checked_next_power_of_two().unwrap_or(0),
        }
    }

    /// The ranges RedisBloom 8's `CF.RESERVE` enforces ([`within_limits`]; its commands check
    /// them with their own messages first, and this keeps the core from building what they
    /// would refuse).
    pub(super) fn check(&self) -> Result<(), Error> {
        if within_limits(self.bucket_size, self.max_iterations, self.expansion) {
            Ok(())
        } else {
            Err(Error::InvalidParameters)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cf::tests::{filter, params};
    use crate::core::cf::CuckooFilter;
    use crate::core::{Memory, EAGER};

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
}
