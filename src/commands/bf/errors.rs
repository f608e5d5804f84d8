//! The Bloom-filter family's wire texts, byte for byte as RedisBloom sends them
//! (`src/rebloom.c`, RedisBloom 8), and the text of each core error in a BF command.

use std::ffi::CStr;

use crate::commands::errors::Failure;
use crate::core;
use crate::core::bf::chain::MergeError;

pub use crate::commands::errors::{
    BAD_NUMKEYS, INSUFFICIENT_MEMORY, ITEM_EXISTS, NOT_FOUND, UNKNOWN_ARGUMENT, WRONG_TYPE,
};

pub const BAD_ERROR_RATE: &CStr = c"ERR bad error rate";
pub const ERROR_RATE_RANGE: &CStr = c"ERR error rate must be in the range (0.000000, 1.000000)";
pub const BAD_CAPACITY: &CStr = c"ERR bad capacity";
pub const CAPACITY_RANGE: &CStr = c"ERR capacity must be in the range [1, 1073741824]";
pub const NO_EXPANSION: &CStr = c"ERR no expansion";
pub const BAD_EXPANSION: &CStr = c"ERR bad expansion";
pub const EXPANSION_RANGE: &CStr = c"ERR expansion must be in the range [0, 32768]";
pub const NONSCALING_CANNOT_EXPAND: &CStr = c"Nonscaling filters cannot expand";

pub const INSERT_BAD_ERROR_RATE: &CStr = c"Bad error rate";
pub const INSERT_BAD_CAPACITY: &CStr = c"Bad capacity";
pub const INSERT_BAD_EXPANSION: &CStr = c"Bad expansion";

/// Ours: RedisBloom has no layouts.
pub const BAD_LAYOUT: &CStr = c"ERR layout must be CLASSIC or FAST";

/// Ours: the window filters' options (`WINDOW`, `TIMESPAN ms`) and their replicated time
/// (`AT ms`, see `window.rs`).
pub const WINDOW_AND_TIMESPAN: &CStr = c"ERR WINDOW and TIMESPAN cannot be combined";
pub const WINDOW_TAKES_NO_SCALING: &CStr =
    c"ERR WINDOW and TIMESPAN filters take no EXPANSION, NONSCALING or LAYOUT";
pub const TIMESPAN_RANGE: &CStr =
    c"ERR timespan must be an integer number of milliseconds in the range [1, 1099511627776]";
pub const OTHER_KIND: &CStr =
    c"ERR the key holds a filter of another kind than WINDOW or TIMESPAN asks for";
pub const BAD_TIME: &CStr = c"ERR AT must be a time in milliseconds since the Unix epoch";
pub const AT_NOT_REPLAYED: &CStr =
    c"ERR AT is accepted only from the primary's replication stream or the AOF";

/// What CONFIG SET answers (inside Redis's `ERR CONFIG SET failed …`) for bad `bf-*` values,
/// worded as RedisBloom's configs (the layout is ours).
pub const CONFIG_BAD_ERROR_RATE: &CStr = c"Invalid value for `bf-error-rate`";
pub const CONFIG_ERROR_RATE_RANGE: &CStr =
    c"Value for `bf-error-rate` must be in the range (0.000000, 1.000000)";
pub const CONFIG_INITIAL_SIZE_RANGE: &CStr =
    c"Value for `bf-initial-size` must be in the range [1, 1073741824]";
pub const CONFIG_EXPANSION_RANGE: &CStr =
    c"Value for `bf-expansion-factor` must be in the range [0, 32768]";
pub const CONFIG_BAD_LAYOUT: &CStr = c"Value for `bf-layout` must be classic or fast";

/// Ours: `bf-flavour`, which kind of filter BF.ADD, BF.MADD, BF.RESERVE and BF.INSERT make.
pub const CONFIG_BAD_FLAVOUR: &CStr = c"Value for `bf-flavour` must be redisbloom or valkey-bloom";
/// What CONFIG SET answers for bad values of valkey-bloom's configs (`bf.bloom-*`), as Valkey
/// words them for its numeric and boolean configs, and valkey-bloom for its rates.
pub const CONFIG_NOT_AN_INTEGER: &CStr = c"argument couldn't be parsed into an integer";
pub const CONFIG_BLOOM_CAPACITY_RANGE: &CStr =
    c"argument must be between 1 and 9223372036854775807 inclusive";
pub const CONFIG_BLOOM_EXPANSION_RANGE: &CStr =
    c"argument must be between 0 and 4294967295 inclusive";
pub const CONFIG_BLOOM_LIMIT_RANGE: &CStr =
    c"argument must be between 0 and 9223372036854775807 inclusive";
pub const CONFIG_YES_OR_NO: &CStr = c"argument must be 'yes' or 'no'";
pub const CONFIG_NOT_A_FLOAT: &CStr = c"Invalid floating-point value";

pub const INVALID_INFO_FIELD: &CStr = c"Invalid information value";

pub const SCANDUMP_ITERATOR_NOT_NUMERIC: &CStr = c"Second argument must be numeric";
pub const LOADCHUNK_ITERATOR_NOT_NUMERIC: &CStr = c"ERR Second argument must be numeric";

/// valkey-bloom's texts (`src/bloom/utils.rs`), for its filters; those RedisBloom shares
/// (`ERR bad capacity`, `ERR bad expansion`, `ERR bad error rate`, `ERR item exists`, `ERR not
/// found`) are RedisBloom's constants above.
pub const INVALID_INFO_VALUE: &CStr = c"ERR invalid information value";
pub const INVALID_SEED: &CStr = c"ERR invalid seed";
pub const VALKEY_ERROR_RATE_RANGE: &CStr = c"ERR (0 < error rate range < 1)";
pub const BAD_TIGHTENING: &CStr = c"ERR bad tightening ratio";
pub const TIGHTENING_RANGE: &CStr = c"ERR (0 < tightening ratio range < 1)";
pub const CAPACITY_ZERO: &CStr = c"ERR (capacity should be larger than 0)";
pub const FP_DEGRADES: &CStr = c"ERR false positive degrades to 0 on scale out";
pub const VALKEY_UNKNOWN_ARGUMENT: &CStr = c"ERR unknown argument received";
/// BF.RESERVE's for an option it does not take, without an `ERR` code.
pub const VALKEY_ERROR: &CStr = c"ERROR";
pub const VALIDATE_SCALE_TO_MEMORY: &CStr =
    c"ERR provided VALIDATESCALETO causes bloom object to exceed memory limit";
pub const VALIDATE_SCALE_TO_FP: &CStr =
    c"ERR provided VALIDATESCALETO causes false positive to degrade to 0";
pub const BUSYKEY: &CStr = c"BUSYKEY Target key name already exists.";
pub const DECODE_FAILED: &CStr = c"ERR bloom object decoding failed";
pub const DECODE_VERSION: &CStr = c"ERR bloom object decoding failed. Unsupported version";
pub const NONSCALING_AND_VALIDATE: &CStr =
    c"ERR cannot use NONSCALING and VALIDATESCALETO options together";
/// valkey-bloom's text for its per-object limit, which ours mirrors.
pub const BLOOM_OVER_LIMIT: &CStr = c"ERR operation exceeds bloom object memory limit";
/// Ours: valkey-bloom has no SCANDUMP, and its filters have no chunks RedisBloom reads.
pub const NO_CHUNKS: &CStr = c"ERR valkey-bloom filters (type bloomfltr) have no SCANDUMP chunks: use DUMP and RESTORE, or BF.LOAD";

/// Ours: BF.MERGE's (`merge.rs`).
pub const FORGETS: &CStr = c"ERR filters that forget (WINDOW, TIMESPAN) cannot be merged";
pub const KINDS_DIFFER: &CStr =
    c"ERR filters differ in kind (RedisBloom's or valkey-bloom's): they cannot be merged";
pub const MERGE_PAST_CAPACITY: &CStr = c"ERR the union would pass a sub-filter's capacity, and so its error rate (OVERFILL merges all the same)";

const COULD_NOT_CREATE: &CStr = c"ERR could not create filter";
/// RedisBloom's and valkey-bloom's alike.
pub const FILTER_FULL: &CStr = c"ERR non scaling filter is full";
const PROBLEM_INSERTING: &CStr = c"ERR problem inserting into filter";
const BAD_DATA: &CStr = c"ERR received bad data";
const NO_LINK_AT_OFFSET: &CStr = c"ERR invalid offset - no link found";
const CHUNK_TOO_BIG: &CStr = c"ERR invalid chunk - Too big for current filter";

/// The wire text of a core error in a Bloom-filter command.
pub fn text(error: core::Error) -> &'static CStr {
    match error {
        core::Error::InvalidParameters => COULD_NOT_CREATE,
        core::Error::OutOfMemory => INSUFFICIENT_MEMORY,
        core::Error::OverLimit => BLOOM_OVER_LIMIT,
        core::Error::Full => FILTER_FULL,
        core::Error::CannotGrow => PROBLEM_INSERTING,
        core::Error::BadEncoding => BAD_DATA,
        core::Error::NoLinkAtOffset => NO_LINK_AT_OFFSET,
        core::Error::ChunkTooBig => CHUNK_TOO_BIG,
    }
}

/// Why BF.MERGE refused a union (`merge.rs`), naming what differs.
pub fn merge(error: MergeError) -> Failure {
    let text: &'static CStr = match error {
        MergeError::LayoutsDiffer => c"ERR filters differ in layout (CLASSIC or FAST)",
        MergeError::HashingDiffers => c"ERR filters differ in hashing",
        MergeError::ScalingDiffers => c"ERR filters differ in scaling (NONSCALING)",
        MergeError::ExpansionsDiffer => c"ERR filters differ in expansion",
        MergeError::CapacitiesDiffer => c"ERR filters differ in capacity",
        MergeError::ErrorRatesDiffer => c"ERR filters differ in error rate",
        MergeError::ShapesDiffer => c"ERR filters differ in the sizes of their sub-filters",
        MergeError::PastCapacity(_) => MERGE_PAST_CAPACITY,
        MergeError::CountsOverflow => c"ERR the union's item counts would overflow",
        MergeError::Memory(error) => text(error),
    };
    Failure::Message(text)
}

/// A core error of a Bloom-filter command, as its reply. (Each family words the same core
/// error its own way, so there is no blanket conversion.)
pub fn fail(error: core::Error) -> Failure {
    Failure::Message(text(error))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::bf::rules::{CAPACITY, EXPANSION};

    /// The ranges the texts spell are the ranges the rules check.
    #[test]
    fn ranges_in_texts_are_the_rules() {
        let span = |r: &std::ops::RangeInclusive<i64>| format!("[{}, {}]", r.start(), r.end());
        for (text, range) in [
            (CAPACITY_RANGE, &CAPACITY),
            (EXPANSION_RANGE, &EXPANSION),
            (CONFIG_INITIAL_SIZE_RANGE, &CAPACITY),
            (CONFIG_EXPANSION_RANGE, &EXPANSION),
        ] {
            let text = text.to_str().unwrap();
            assert!(text.ends_with(&span(range)), "{text}");
        }
    }
}
