//! The Count-Min sketch family's wire texts, byte for byte as RedisBloom sends them as Redis
//! 8.12 ships it (`src/rm_cms.c`), and the text of each core error in a CMS command. None
//! carries an `ERR` code: RedisBloom writes them so, and clients match on the text.

use std::ffi::CStr;

use crate::commands::errors::Failure;
use crate::commands::window_options::OptionTexts;
use crate::core;
use crate::core::cms::{IncrementError, InitError, MergeError};

pub const KEY_EXISTS: &CStr = c"CMS: key already exists";
pub const NOT_FOUND: &CStr = c"CMS: key does not exist";
pub const INVALID_WIDTH: &CStr = c"CMS: invalid width";
pub const INVALID_DEPTH: &CStr = c"CMS: invalid depth";
pub const INVALID_OVERESTIMATION: &CStr = c"CMS: invalid overestimation value";
pub const INVALID_PROBABILITY: &CStr = c"CMS: invalid prob value";
pub const INVALID_INIT_ARGUMENTS: &CStr = c"CMS: invalid init arguments";
pub const UNKNOWN_ARGUMENT: &CStr = c"CMS: unknown argument";
pub const CELL_SIZE_VALUES: &CStr = c"CMS: CELL_SIZE must be 1, 2, 4 or 8";
/// Ours: `cms-rdb-encoding 0` writes RedisBloom's older encoding, which has four-byte cells.
pub const CELL_SIZE_LEGACY: &CStr =
    c"CMS: CELL_SIZE must be 4 while cms-rdb-encoding is 0 (RedisBloom before Redis 8.12)";
/// What CONFIG SET or a module argument answers for a bad `cms-rdb-encoding`.
pub const CONFIG_RDB_ENCODING: &CStr = c"Value for `cms-rdb-encoding` must be 0 or 1";
pub const CELL_SIZE_WITH_WINDOW: &CStr =
    c"CMS: CELL_SIZE cannot be combined with WINDOW or TIMESPAN (their counters have 4 bytes)";
/// Ours: the error element of a negative increment to a sketch that forgets.
pub const NEGATIVE_INCREMENT: &CStr = c"CMS: a sketch that forgets takes no negative increments";
/// Ours: CMS.ADVANCE on a sketch that does not forget by time.
pub const NOT_A_WINDOW: &CStr = c"CMS: the key holds no sketch that forgets";
pub const CANNOT_PARSE_NUMBER: &CStr = c"CMS: Cannot parse number";
/// An increment of `-9223372036854775808`, whose magnitude no counter holds.
pub const INVALID_INCREMENT: &CStr = c"CMS: invalid increment";
const INCRBY_OVERFLOW: &CStr = c"CMS: INCRBY overflow";
const INCRBY_UNDERFLOW: &CStr = c"CMS: INCRBY underflow";
pub const INVALID_NUMKEYS: &CStr = c"CMS: invalid numkeys";
pub const NUMKEYS_NOT_POSITIVE: &CStr = c"CMS: Number of keys must be positive";
pub const WRONG_NUMBER_OF_KEYS: &CStr = c"CMS: wrong number of keys";
pub const WRONG_NUMBER_OF_KEYS_WEIGHTS: &CStr = c"CMS: wrong number of keys/weights";
pub const INVALID_WEIGHT: &CStr = c"CMS: invalid weight value";
const DIMENSIONS_DIFFER: &CStr = c"CMS: width/depth is not equal";
const CELL_SIZES_DIFFER: &CStr = c"CMS: cell_size is not equal";
const MERGE_OVERFLOW: &CStr = c"CMS: MERGE overflow";
/// Ours: sketches that forget merge only with sketches of the same window.
const WINDOWS_DIFFER: &CStr = c"CMS: sketches of different windows cannot be merged";
/// Ours: count windows have no common clock.
const COUNT_WINDOW: &CStr = c"CMS: sketches that forget by count cannot be merged";

const INSUFFICIENT_MEMORY: &CStr = c"CMS: Insufficient memory to create the key";
/// Ours, worded as valkey-bloom words its per-object limit (`bf-memory-usage-limit`).
const OVER_LIMIT: &CStr = c"ERR operation exceeds count-min sketch object memory limit";

/// The wire text of a core error in a CMS command: only creating a sketch allocates.
pub fn fail(error: core::Error) -> Failure {
    Failure::Message(match error {
        core::Error::OverLimit => OVER_LIMIT,
        _ => INSUFFICIENT_MEMORY,
    })
}

/// Why CMS.INITBYDIM or CMS.INITBYPROB refused its arguments.
pub fn init(error: InitError) -> Failure {
    Failure::Message(match error {
        InitError::Width => INVALID_WIDTH,
        InitError::Depth => INVALID_DEPTH,
        InitError::Overestimation => INVALID_OVERESTIMATION,
        InitError::Probability => INVALID_PROBABILITY,
        InitError::Arguments => INVALID_INIT_ARGUMENTS,
    })
}

/// Ours: how the options of a sketchs that forget (`window.rs`) are refused.
pub const WINDOW_OPTIONS: OptionTexts = OptionTexts {
    window_range: c"CMS: WINDOW must be an integer in the range [1, 1099511627776]",
    timespan_range:
        c"CMS: TIMESPAN must be an integer number of milliseconds in the range [1, 1099511627776]",
    slots_range: c"CMS: SLOTS must be an integer in the range [1, 8]",
    slots_without_window: c"CMS: SLOTS needs WINDOW or TIMESPAN before it",
    one_window: c"CMS: a sketch forgets by one of WINDOW or TIMESPAN, given once",
    unknown: UNKNOWN_ARGUMENT,
};

/// Why CMS.MERGE refused its sources.
pub fn merge(error: MergeError) -> Failure {
    Failure::Message(match error {
        MergeError::DimensionsDiffer => DIMENSIONS_DIFFER,
        MergeError::CellSizesDiffer => CELL_SIZES_DIFFER,
        MergeError::Overflow => MERGE_OVERFLOW,
        MergeError::WindowsDiffer => WINDOWS_DIFFER,
        MergeError::CountWindow => COUNT_WINDOW,
    })
}

/// The error element of a CMS.INCRBY pair a counter or the total cannot take.
pub fn increment(error: IncrementError) -> &'static CStr {
    match error {
        IncrementError::Overflow => INCRBY_OVERFLOW,
        IncrementError::Underflow => INCRBY_UNDERFLOW,
    }
}
