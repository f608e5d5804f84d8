//! Every error a command can send, byte for byte as RedisBloom sends it
//! (`src/rebloom.c`, RedisBloom 8). Some carry no `ERR` code on purpose: RedisBloom writes them
//! that way and clients match on the text. They are C strings because the server's reply and
//! config calls take them so: no copy is made to send one. The few that carry a number which
//! follows the configuration (a range) are made once per number and kept.

use std::ffi::{CStr, CString};
use std::sync::OnceLock;

use crate::core;

/// Why a command failed, as it goes on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Redis's own `ERR wrong number of arguments for '<cmd>' command`.
    WrongArity,
    /// An error reply with exactly this text.
    Message(&'static CStr),
}

/// The outcome of a command: its reply, or the error that replaces it.
pub type CommandResult = Result<super::reply::Reply, Failure>;

pub const WRONG_TYPE: &CStr = c"WRONGTYPE Operation against a key holding the wrong kind of value";
pub const NOT_FOUND: &CStr = c"ERR not found";
pub const ITEM_EXISTS: &CStr = c"ERR item exists";

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
pub const UNKNOWN_ARGUMENT: &CStr = c"Unknown argument received";

/// Ours: RedisBloom has no layouts.
pub const BAD_LAYOUT: &CStr = c"ERR layout must be CLASSIC or FAST";

/// What CONFIG SET answers (inside Redis's `ERR CONFIG SET failed …`) for bad `bf-*` values,
/// worded as RedisBloom's configs (the layout is ours).
pub const CONFIG_BAD_ERROR_RATE: &CStr = c"Invalid value for `bf-error-rate`";
pub const CONFIG_ERROR_RATE_RANGE: &CStr =
    c"Value for `bf-error-rate` must be in the range (0.000000, 1.000000)";
pub const CONFIG_INITIAL_SIZE_RANGE: &CStr =
    c"Value for `bf-initial-size` must be in the range [1, 1073741824]";
pub const CONFIG_EXPANSION_RANGE: &CStr =
    c"Value for `bf-expansion-factor` must be in the range [0, 32768]";
pub const CONFIG_BAD_HUGE_PAGES: &CStr = c"Value for `bf-huge-pages` must be yes or no";
pub const CONFIG_BAD_LAYOUT: &CStr = c"Value for `bf-layout` must be classic or fast";
pub const CONFIG_MEMORY_LIMIT: &CStr =
    c"Value for `bf-memory-usage-limit` must be a size in bytes such as 134217728 or 128mb, 0 for no limit";

/// Ours: a command panicked (a bug) and the guard caught it; the server log has the details.
pub const INTERNAL_ERROR: &CStr = c"ERR internal error in redis-bf, see the server log";

pub const INVALID_INFO_FIELD: &CStr = c"Invalid information value";

pub const SCANDUMP_ITERATOR_NOT_NUMERIC: &CStr = c"Second argument must be numeric";
pub const LOADCHUNK_ITERATOR_NOT_NUMERIC: &CStr = c"ERR Second argument must be numeric";

const INSUFFICIENT_MEMORY: &CStr = c"ERR Insufficient memory to create filter";
const COULD_NOT_CREATE: &CStr = c"ERR could not create filter";
/// valkey-bloom's text for its per-object limit, which ours mirrors.
const BLOOM_OVER_LIMIT: &CStr = c"ERR operation exceeds bloom object memory limit";
const FILTER_FULL: &CStr = c"ERR non scaling filter is full";
const PROBLEM_INSERTING: &CStr = c"ERR problem inserting into filter";
const BAD_DATA: &CStr = c"ERR received bad data";
const NO_LINK_AT_OFFSET: &CStr = c"ERR invalid offset - no link found";
const CHUNK_TOO_BIG: &CStr = c"ERR invalid chunk - Too big for current filter";

/// The wire text of a core error in a Bloom-filter command.
pub fn bloom_text(error: core::Error) -> &'static CStr {
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

/// A core error of a Bloom-filter command, as its reply. (Each family words the same core
/// error its own way, so there is no blanket conversion.)
pub fn bloom(error: core::Error) -> Failure {
    Failure::Message(bloom_text(error))
}

// The Cuckoo filter (`CF.*`).

/// CF.DEL of a missing key or a key of another type.
pub const CF_DEL_NOT_FOUND: &CStr = c"Not found";
/// CF.COMPACT of a missing key or a key of another type.
pub const CF_COMPACT_NOT_FOUND: &CStr = c"Cuckoo filter was not found";
pub const CF_BAD_CAPACITY: &CStr = c"Bad capacity";
pub const CF_RESERVE_CAPACITY_RANGE: &CStr =
    c"Capacity must be in the range [2 * BUCKETSIZE, 1073741824]";
/// CF.INSERT's, which names the config that decides the bucket size of the filters it makes.
pub const CF_INSERT_CAPACITY_RANGE: &CStr =
    c"Capacity must be in the range [cf-bucket-size * 2, 1073741824]";
pub const CF_BAD_BUCKET_SIZE: &CStr = c"Couldn't parse BUCKETSIZE";
pub const CF_BAD_MAX_ITERATIONS: &CStr = c"Couldn't parse MAXITERATIONS";
pub const CF_MAX_ITERATIONS_RANGE: &CStr = c"MAXITERATIONS: value must be in the range [1, 65535]";
pub const CF_BAD_EXPANSION: &CStr = c"Couldn't parse EXPANSION";
pub const CF_EXPANSION_RANGE: &CStr = c"EXPANSION: value must be in the range [0, 32768]";
pub const CF_MAX_EXPANSIONS: &CStr = c"Maximum expansions reached";
pub const CF_INVALID_POSITION: &CStr = c"Invalid position";
pub const CF_INVALID_HEADER: &CStr = c"Invalid header";
pub const CF_CANNOT_CREATE_FROM_HEADER: &CStr = c"Couldn't create filter!";
pub const CF_CANNOT_LOAD_CHUNK: &CStr = c"Couldn't load chunk!";

/// `BUCKETSIZE: value must be in the range [1, <max>]`: the maximum follows `cf-initial-size`
/// (`cf::bucket_sizes`).
pub fn cf_bucket_size_range(max: u8) -> &'static CStr {
    static TEXTS: [OnceLock<CString>; 256] = [const { OnceLock::new() }; 256];
    numbered(&TEXTS, max, || {
        format!("BUCKETSIZE: value must be in the range [1, {max}]")
    })
}

/// What CONFIG SET answers (inside Redis's `ERR CONFIG SET failed …`) for bad `cf-*` values.
pub const CONFIG_CF_BAD_BUCKET_SIZE: &CStr = c"Invalid value for `cf-bucket-size`";
pub const CONFIG_CF_BAD_INITIAL_SIZE: &CStr = c"Invalid value for `cf-initial-size`";
pub const CONFIG_CF_BAD_MAX_ITERATIONS: &CStr = c"Invalid value for `cf-max-iterations`";
pub const CONFIG_CF_BAD_EXPANSION: &CStr = c"Invalid value for `cf-expansion-factor`";
pub const CONFIG_CF_BAD_MAX_EXPANSIONS: &CStr = c"Invalid value for `cf-max-expansions`";
pub const CONFIG_CF_MAX_ITERATIONS_RANGE: &CStr =
    c"Value for `cf-max-iterations` must be in the range [1, 65535]";
pub const CONFIG_CF_EXPANSION_RANGE: &CStr =
    c"Value for `cf-expansion-factor` must be in the range [0, 32768]";
pub const CONFIG_CF_MAX_EXPANSIONS_RANGE: &CStr =
    c"Value for `cf-max-expansions` must be in the range [1, 65536]";

/// `cf-bucket-size`'s range, whose maximum follows `cf-initial-size`.
pub fn config_cf_bucket_size_range(max: u8) -> &'static CStr {
    static TEXTS: [OnceLock<CString>; 256] = [const { OnceLock::new() }; 256];
    numbered(&TEXTS, max, || {
        format!("Value for `cf-bucket-size` must be in the range [1, {max}]")
    })
}

/// `cf-initial-size`'s range, whose minimum is twice `cf-bucket-size`.
pub fn config_cf_initial_size_range(bucket_size: u8) -> &'static CStr {
    static TEXTS: [OnceLock<CString>; 256] = [const { OnceLock::new() }; 256];
    numbered(&TEXTS, bucket_size, || {
        let min = 2 * u32::from(bucket_size);
        format!("Value for `cf-initial-size` must be in the range [{min}, 1073741824]")
    })
}

/// The text for `n` from `table`, made by `text` the first time it is asked for.
fn numbered(
    table: &'static [OnceLock<CString>; 256],
    n: u8,
    text: impl FnOnce() -> String,
) -> &'static CStr {
    table[usize::from(n)]
        .get_or_init(|| CString::new(text()).unwrap_or_default())
        .as_c_str()
}

const CF_COULD_NOT_CREATE: &CStr = c"ERR Could not create filter";
/// valkey-bloom's wording for its per-object limit, which ours mirrors.
const CUCKOO_OVER_LIMIT: &CStr = c"ERR operation exceeds cuckoo object memory limit";
const CF_FULL: &CStr = c"Filter is full";
/// A filter that needed a new sub-filter and could not get one (RedisBloom 8's
/// `MemAllocFailed`: past 65535 sub-filters, 2^56 buckets, or the memory).
const CF_CANNOT_GROW: &CStr = c"ERR Insufficient memory";

/// The wire text of a core error in a Cuckoo-filter command.
pub fn cuckoo_text(error: core::Error) -> &'static CStr {
    match error {
        core::Error::InvalidParameters => CF_COULD_NOT_CREATE,
        core::Error::OutOfMemory => INSUFFICIENT_MEMORY,
        core::Error::OverLimit => CUCKOO_OVER_LIMIT,
        core::Error::Full => CF_FULL,
        core::Error::CannotGrow => CF_CANNOT_GROW,
        core::Error::BadEncoding | core::Error::NoLinkAtOffset | core::Error::ChunkTooBig => {
            CF_CANNOT_LOAD_CHUNK
        }
    }
}

/// A core error of a Cuckoo-filter command, as its reply.
pub fn cuckoo(error: core::Error) -> Failure {
    Failure::Message(cuckoo_text(error))
}
