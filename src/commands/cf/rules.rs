//! The Cuckoo filter's parameter rules and the configured defaults, shared by the CF commands
//! and the `cf-*` configs.
//!
//! The rules are RedisBloom 8's (`src/rebloom.c`, `src/config.c`). Two ranges are coupled:
//! bucket sizes go up to half of `cf-initial-size` (at most 255), and capacities start at twice
//! the bucket size — for CF.RESERVE its own BUCKETSIZE, for CF.INSERT and `cf-initial-size`
//! the `cf-bucket-size` config. [`bucket_sizes`] and [`capacities`] are their only home.

use std::ops::RangeInclusive;

use super::errors;
use crate::commands::errors::Failure;
use crate::core::cf::rdb::LegacyDefaults;
use crate::core::cf::{Params, MAX_BUCKET_SIZE, MAX_EXPANSION, MIN_ITERATIONS};

/// The largest capacity of CF.RESERVE, CF.INSERT and `cf-initial-size` (2^30).
pub const MAX_CAPACITY: i64 = 1 << 30;
/// MAXITERATIONS and `cf-max-iterations`: the core's limits, within 16 bits.
pub const MAX_ITERATIONS: RangeInclusive<i64> = MIN_ITERATIONS as i64..=u16::MAX as i64;
/// EXPANSION and `cf-expansion-factor`: 0 (never grow) to the core's limit.
pub const EXPANSION: RangeInclusive<i64> = 0..=MAX_EXPANSION as i64;
/// `cf-max-expansions`.
pub const MAX_EXPANSIONS: RangeInclusive<i64> = 1..=65536;

/// The bucket sizes allowed (CF.RESERVE BUCKETSIZE, `cf-bucket-size`, SCANDUMP headers) while
/// `cf-initial-size` is `initial_size`: 1 to half of it, at most 255.
pub fn bucket_sizes(initial_size: u64) -> RangeInclusive<i64> {
    let half = i64::try_from(initial_size / 2).unwrap_or(i64::MAX);
    1..=half.min(i64::from(MAX_BUCKET_SIZE))
}

/// The capacities allowed for filters of `bucket_size` slots per bucket (CF.RESERVE with it,
/// CF.INSERT and `cf-initial-size` with `cf-bucket-size`): at least two buckets' worth.
pub fn capacities(bucket_size: u16) -> RangeInclusive<i64> {
    2 * i64::from(bucket_size)..=MAX_CAPACITY
}

/// The `cf-*` configs when the command started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defaults {
    /// `cf-initial-size`: the capacity of filters created without one.
    pub initial_size: u64,
    /// `cf-bucket-size`.
    pub bucket_size: u16,
    /// `cf-max-iterations`.
    pub max_iterations: u16,
    /// `cf-expansion-factor`.
    pub expansion: u16,
    /// `cf-max-expansions`: no insert command runs on a filter with this many sub-filters.
    pub max_expansions: u32,
}

impl Defaults {
    /// RedisBloom's defaults (2.x's constants).
    pub const REDISBLOOM: Defaults = Defaults {
        initial_size: 1024,
        bucket_size: 2,
        max_iterations: 20,
        expansion: 1,
        max_expansions: 32,
    };

    /// A new filter of `capacity` with the configured shape.
    pub fn params(&self, capacity: u64) -> Params {
        Params {
            capacity,
            bucket_size: self.bucket_size,
            max_iterations: self.max_iterations,
            expansion: self.expansion,
        }
    }

    /// The largest bucket size allowed now.
    pub fn max_bucket_size(&self) -> u16 {
        u16::try_from(*bucket_sizes(self.initial_size).end()).unwrap_or(u16::MAX)
    }

    /// What RDB values of encoding versions before 4 get for the fields they lack.
    pub fn legacy(&self) -> LegacyDefaults {
        LegacyDefaults {
            bucket_size: self.bucket_size,
            max_iterations: self.max_iterations,
            expansion: self.expansion,
        }
    }

    /// `Maximum expansions reached` for a filter of `sub_filters` (checked once per insert
    /// command, before its first item).
    pub(super) fn allow_inserts(&self, sub_filters: u16) -> Result<(), Failure> {
        if u32::from(sub_filters) >= self.max_expansions {
            Err(Failure::Message(errors::MAX_EXPANSIONS))
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coupled_ranges() {
        assert_eq!(bucket_sizes(1024), 1..=255);
        assert_eq!(bucket_sizes(100), 1..=50);
        assert_eq!(bucket_sizes(4), 1..=2);
        assert_eq!(capacities(2), 4..=1 << 30);
        assert_eq!(capacities(255), 510..=1 << 30);
        assert_eq!(Defaults::REDISBLOOM.max_bucket_size(), 255);
        let small = Defaults {
            initial_size: 6,
            ..Defaults::REDISBLOOM
        };
        assert_eq!(small.max_bucket_size(), 3);
    }

    #[test]
    fn max_expansions_counts_sub_filters() {
        let d = Defaults::REDISBLOOM;
        assert!(d.allow_inserts(31).is_ok());
        assert!(d.allow_inserts(32).is_err());
        let one = Defaults {
            max_expansions: 1,
            ..d
        };
        assert!(one.allow_inserts(1).is_err());
    }
}
