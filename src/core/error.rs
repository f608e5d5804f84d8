//! What can go wrong inside the filter core. Variants carry no wire text: the command layer
//! (`commands/errors.rs`) maps each one to RedisBloom's exact error string.
//!
//! Deliberately not a `std::error::Error`: `redis_module` has a blanket `From<E: Error>` that
//! would turn any core error into a generic `ERR {e}` reply behind our back.

/// A failure of a core operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// Capacity or error rate outside what a sub-filter can be built from.
    InvalidParameters,
    /// An array could not be allocated (too big for this machine).
    OutOfMemory,
    /// A filter would grow beyond the operator's per-filter memory limit.
    OverLimit,
    /// A non-scaling filter already holds its capacity.
    Full,
    /// A scaling filter needed a new sub-filter and could not make one.
    CannotGrow,
    /// A serialized filter (RDB payload or SCANDUMP header) is inconsistent.
    BadEncoding,
    /// A SCANDUMP chunk's iterator points past every sub-filter.
    NoLinkAtOffset,
    /// A SCANDUMP chunk runs past the end of its sub-filter.
    ChunkTooBig,
}
