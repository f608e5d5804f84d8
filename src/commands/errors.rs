//! Every error a BF command can send, byte for byte as RedisBloom sends it
//! (shared/reference/redisbloom-bf.md §1.12). Some carry no `ERR` code on purpose: RedisBloom
//! writes them that way and clients match on the text.

use crate::core;

/// Why a command failed, as it goes on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Redis's own `ERR wrong number of arguments for '<cmd>' command`.
    WrongArity,
    /// An error reply with exactly this text.
    Message(&'static str),
}

/// The outcome of a command: its reply, or the error that replaces it.
pub type CommandResult = Result<super::reply::Reply, Failure>;

pub const WRONG_TYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
pub const NOT_FOUND: &str = "ERR not found";
pub const ITEM_EXISTS: &str = "ERR item exists";

pub const BAD_ERROR_RATE: &str = "ERR bad error rate";
pub const ERROR_RATE_RANGE: &str = "ERR error rate must be in the range (0.000000, 1.000000)";
pub const BAD_CAPACITY: &str = "ERR bad capacity";
pub const CAPACITY_RANGE: &str = "ERR capacity must be in the range [1, 1073741824]";
pub const NO_EXPANSION: &str = "ERR no expansion";
pub const BAD_EXPANSION: &str = "ERR bad expansion";
pub const EXPANSION_RANGE: &str = "ERR expansion must be in the range [0, 32768]";
pub const NONSCALING_CANNOT_EXPAND: &str = "Nonscaling filters cannot expand";

pub const INSERT_BAD_ERROR_RATE: &str = "Bad error rate";
pub const INSERT_BAD_CAPACITY: &str = "Bad capacity";
pub const INSERT_BAD_EXPANSION: &str = "Bad expansion";
pub const UNKNOWN_ARGUMENT: &str = "Unknown argument received";

/// Ours: RedisBloom has no layouts.
pub const BAD_LAYOUT: &str = "ERR layout must be CLASSIC or FAST";

/// What CONFIG SET answers (inside Redis's `ERR CONFIG SET failed …`) for bad `bf-*` values,
/// worded as RedisBloom's configs (the layout is ours).
pub const CONFIG_BAD_ERROR_RATE: &str = "Invalid value for `bf-error-rate`";
pub const CONFIG_ERROR_RATE_RANGE: &str =
    "Value for `bf-error-rate` must be in the range (0.000000, 1.000000)";
pub const CONFIG_INITIAL_SIZE_RANGE: &str =
    "Value for `bf-initial-size` must be in the range [1, 1073741824]";
pub const CONFIG_EXPANSION_RANGE: &str =
    "Value for `bf-expansion-factor` must be in the range [0, 32768]";
pub const CONFIG_BAD_LAYOUT: &str = "Value for `bf-layout` must be classic or fast";

/// Ours: a command panicked (a bug) and the guard caught it; the server log has the details.
pub const INTERNAL_ERROR: &str = "ERR internal error in redis-bf, see the server log";

pub const INVALID_INFO_FIELD: &str = "Invalid information value";

pub const SCANDUMP_ITERATOR_NOT_NUMERIC: &str = "Second argument must be numeric";
pub const LOADCHUNK_ITERATOR_NOT_NUMERIC: &str = "ERR Second argument must be numeric";

const INSUFFICIENT_MEMORY: &str = "ERR Insufficient memory to create filter";
const COULD_NOT_CREATE: &str = "ERR could not create filter";
const FILTER_FULL: &str = "ERR non scaling filter is full";
const PROBLEM_INSERTING: &str = "ERR problem inserting into filter";
const BAD_DATA: &str = "ERR received bad data";
const NO_LINK_AT_OFFSET: &str = "ERR invalid offset - no link found";
const CHUNK_TOO_BIG: &str = "ERR invalid chunk - Too big for current filter";

/// The wire text of a core error.
pub fn message(error: core::Error) -> &'static str {
    match error {
        core::Error::InvalidParameters => COULD_NOT_CREATE,
        core::Error::OutOfMemory => INSUFFICIENT_MEMORY,
        core::Error::Full => FILTER_FULL,
        core::Error::CannotGrow => PROBLEM_INSERTING,
        core::Error::BadEncoding => BAD_DATA,
        core::Error::NoLinkAtOffset => NO_LINK_AT_OFFSET,
        core::Error::ChunkTooBig => CHUNK_TOO_BIG,
    }
}

impl From<core::Error> for Failure {
    fn from(error: core::Error) -> Self {
        Failure::Message(message(error))
    }
}
