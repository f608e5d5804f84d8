//! The Cuckoo-filter family's wire texts, byte for byte as RedisBloom sends them
//! (`src/rebloom.c`, `src/config.c`, RedisBloom 8), and the text of each core error in a CF
//! command.

use std::ffi::{CStr, CString};
use std::sync::OnceLock;

use crate::commands::errors::{numbered, Failure, INSUFFICIENT_MEMORY};
use crate::core;
use crate::core::cf::filter::MergeError;

pub use crate::commands::errors::{BAD_NUMKEYS, ITEM_EXISTS, UNKNOWN_ARGUMENT, WRONG_TYPE};

/// CF.DEL of a missing key or a key of another type.
pub const DEL_NOT_FOUND: &CStr = c"Not found";
/// CF.COMPACT of a missing key or a key of another type.
pub const COMPACT_NOT_FOUND: &CStr = c"Cuckoo filter was not found";
pub const BAD_CAPACITY: &CStr = c"Bad capacity";
pub const RESERVE_CAPACITY_RANGE: &CStr =
    c"Capacity must be in the range [2 * BUCKETSIZE, 1073741824]";
/// CF.INSERT's, which names the config that decides the bucket size of the filters it makes.
pub const INSERT_CAPACITY_RANGE: &CStr =
    c"Capacity must be in the range [cf-bucket-size * 2, 1073741824]";
pub const BAD_BUCKET_SIZE: &CStr = c"Couldn't parse BUCKETSIZE";
pub const BAD_MAX_ITERATIONS: &CStr = c"Couldn't parse MAXITERATIONS";
pub const MAX_ITERATIONS_RANGE: &CStr = c"MAXITERATIONS: value must be in the range [1, 65535]";
pub const BAD_EXPANSION: &CStr = c"Couldn't parse EXPANSION";
pub const EXPANSION_RANGE: &CStr = c"EXPANSION: value must be in the range [0, 32768]";
pub const MAX_EXPANSIONS: &CStr = c"Maximum expansions reached";
pub const INVALID_POSITION: &CStr = c"Invalid position";
pub const INVALID_HEADER: &CStr = c"Invalid header";
pub const CANNOT_CREATE_FROM_HEADER: &CStr = c"Couldn't create filter!";
pub const CANNOT_LOAD_CHUNK: &CStr = c"Couldn't load chunk!";

/// `BUCKETSIZE: value must be in the range [1, <max>]`: the maximum follows `cf-initial-size`
/// (`cf::bucket_sizes`).
pub fn bucket_size_range(max: u8) -> &'static CStr {
    static TEXTS: [OnceLock<CString>; 256] = [const { OnceLock::new() }; 256];
    numbered(&TEXTS, max, || {
        format!("BUCKETSIZE: value must be in the range [1, {max}]")
    })
}

/// What CONFIG SET answers (inside Redis's `ERR CONFIG SET failed …`) for bad `cf-*` values.
pub const CONFIG_BAD_BUCKET_SIZE: &CStr = c"Invalid value for `cf-bucket-size`";
pub const CONFIG_BAD_INITIAL_SIZE: &CStr = c"Invalid value for `cf-initial-size`";
pub const CONFIG_BAD_MAX_ITERATIONS: &CStr = c"Invalid value for `cf-max-iterations`";
pub const CONFIG_BAD_EXPANSION: &CStr = c"Invalid value for `cf-expansion-factor`";
pub const CONFIG_BAD_MAX_EXPANSIONS: &CStr = c"Invalid value for `cf-max-expansions`";
pub const CONFIG_MAX_ITERATIONS_RANGE: &CStr =
    c"Value for `cf-max-iterations` must be in the range [1, 65535]";
pub const CONFIG_EXPANSION_RANGE: &CStr =
    c"Value for `cf-expansion-factor` must be in the range [0, 32768]";
pub const CONFIG_MAX_EXPANSIONS_RANGE: &CStr =
    c"Value for `cf-max-expansions` must be in the range [1, 65536]";

/// `cf-bucket-size`'s range, whose maximum follows `cf-initial-size`.
pub fn config_bucket_size_range(max: u8) -> &'static CStr {
    static TEXTS: [OnceLock<CString>; 256] = [const { OnceLock::new() }; 256];
    numbered(&TEXTS, max, || {
        format!("Value for `cf-bucket-size` must be in the range [1, {max}]")
    })
}

/// `cf-initial-size`'s range, whose minimum is twice `cf-bucket-size`.
pub fn config_initial_size_range(bucket_size: u8) -> &'static CStr {
    static TEXTS: [OnceLock<CString>; 256] = [const { OnceLock::new() }; 256];
    numbered(&TEXTS, bucket_size, || {
        let min = 2 * u32::from(bucket_size);
        format!("Value for `cf-initial-size` must be in the range [{min}, 1073741824]")
    })
}

const COULD_NOT_CREATE: &CStr = c"ERR Could not create filter";
/// valkey-bloom's wording for its per-object limit, which ours mirrors.
const CUCKOO_OVER_LIMIT: &CStr = c"ERR operation exceeds cuckoo object memory limit";
const FULL: &CStr = c"Filter is full";
/// A filter that needed a new sub-filter and could not get one (RedisBloom 8's
/// `MemAllocFailed`: past 65535 sub-filters, 2^56 buckets, or the memory).
const CANNOT_GROW: &CStr = c"ERR Insufficient memory";

/// The wire text of a core error in a Cuckoo-filter command.
pub fn text(error: core::Error) -> &'static CStr {
    match error {
        core::Error::InvalidParameters => COULD_NOT_CREATE,
        core::Error::OutOfMemory => INSUFFICIENT_MEMORY,
        core::Error::OverLimit => CUCKOO_OVER_LIMIT,
        core::Error::Full => FULL,
        core::Error::CannotGrow => CANNOT_GROW,
        core::Error::BadEncoding | core::Error::NoLinkAtOffset | core::Error::ChunkTooBig => {
            CANNOT_LOAD_CHUNK
        }
    }
}

/// Why CF.MERGE refused a union (`merge.rs`), naming what differs. Ours.
pub fn merge(error: MergeError) -> Failure {
    let text: &'static CStr = match error {
        MergeError::BucketSizesDiffer => c"ERR filters differ in bucket size",
        MergeError::CapacitiesDiffer => c"ERR filters differ in capacity (their bucket count)",
        MergeError::ExpansionsDiffer => c"ERR filters differ in expansion",
        MergeError::ShapesDiffer => c"ERR filters differ in the sizes of their sub-filters",
        MergeError::BucketCountNotPowerOfTwo => {
            c"ERR filters whose bucket counts are not powers of two cannot be merged"
        }
        MergeError::Full => {
            c"ERR the union does not fit: a sub-filter has no room for a fingerprint"
        }
        MergeError::Memory(error) => text(error),
    };
    Failure::Message(text)
}

/// A core error of a Cuckoo-filter command, as its reply.
pub fn fail(error: core::Error) -> Failure {
    Failure::Message(text(error))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::cf::rules::{
        bucket_sizes, capacities, EXPANSION, MAX_CAPACITY, MAX_EXPANSIONS, MAX_ITERATIONS,
    };

    /// The ranges the texts spell are the ranges the rules check.
    #[test]
    fn ranges_in_texts_are_the_rules() {
        let span = |r: &std::ops::RangeInclusive<i64>| format!("[{}, {}]", r.start(), r.end());
        for (text, range) in [
            (MAX_ITERATIONS_RANGE, &MAX_ITERATIONS),
            (EXPANSION_RANGE, &EXPANSION),
            (CONFIG_MAX_ITERATIONS_RANGE, &MAX_ITERATIONS),
            (CONFIG_EXPANSION_RANGE, &EXPANSION),
            (CONFIG_MAX_EXPANSIONS_RANGE, &MAX_EXPANSIONS),
            (config_bucket_size_range(7), &bucket_sizes(14)),
            (config_initial_size_range(3), &capacities(3)),
        ] {
            let text = text.to_str().unwrap();
            assert!(text.ends_with(&span(range)), "{text}");
        }
        let max = format!("{MAX_CAPACITY}]");
        for text in [RESERVE_CAPACITY_RANGE, INSERT_CAPACITY_RANGE] {
            assert!(text.to_str().unwrap().ends_with(&max));
        }
        let bucket = bucket_size_range(9).to_str().unwrap();
        assert!(bucket.ends_with(&span(&bucket_sizes(18))));
    }
}
