//! The errors every family sends, byte for byte as RedisBloom sends them (`src/rebloom.c`,
//! RedisBloom 8); each family's own texts are in its wing's `errors.rs`. Some carry no `ERR`
//! code on purpose: RedisBloom writes them that way and clients match on the text. They are C
//! strings because the server's reply and config calls take them so: no copy is made to send
//! one. The few that carry a number which follows the configuration (a range) are made once
//! per number and kept ([`numbered`]).

use std::ffi::{CStr, CString};
use std::sync::OnceLock;

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
pub const UNKNOWN_ARGUMENT: &CStr = c"Unknown argument received";
/// Ours: the merges RedisBloom does not have (`BF.MERGE`, `CF.MERGE`) count their sources so.
pub const BAD_NUMKEYS: &CStr = c"ERR numkeys must be a positive integer";

/// What CONFIG SET answers (inside Redis's `ERR CONFIG SET failed …`) for bad values of the
/// module-wide configs.
pub const CONFIG_BAD_HUGE_PAGES: &CStr = c"Value for `bf-huge-pages` must be yes or no";
pub const CONFIG_BAD_VECTOR_HASHING: &CStr = c"Value for `bf-vector-hashing` must be yes or no";
pub const CONFIG_MEMORY_LIMIT: &CStr =
    c"Value for `bf-memory-usage-limit` must be a size in bytes such as 134217728 or 128mb, 0 for no limit";

/// Ours: a family's ADVANCE (which moves the clock of a value that forgets) from a client.
pub const REPLICATION_ONLY: &CStr =
    c"ERR this command is accepted only from a primary's replication stream or an AOF";
/// Ours: an ADVANCE's time that is no time.
pub const BAD_TIME: &CStr = c"ERR the time must be milliseconds since the Unix epoch";
/// Ours: a command panicked (a bug) and the guard caught it; the server log has the details.
pub const INTERNAL_ERROR: &CStr = c"ERR internal error in redis-bf, see the server log";

/// A value could not be allocated (RedisBloom's wording, in every family).
pub const INSUFFICIENT_MEMORY: &CStr = c"ERR Insufficient memory to create filter";

/// The text for `n` from `table`, made by `text` the first time it is asked for.
pub fn numbered(
    table: &'static [OnceLock<CString>; 256],
    n: u8,
    text: impl FnOnce() -> String,
) -> &'static CStr {
    table[usize::from(n)]
        .get_or_init(|| CString::new(text()).unwrap_or_default())
        .as_c_str()
}
