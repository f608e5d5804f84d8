//! RedisBloom's t-digest (the `TDIGEST.*` commands, data type `TDIS-TYPE`), bit-exact: after
//! any stream of commands every answer is the one RedisBloom 2.8.2 (and 8.x, whose t-digest is
//! the same) gives, to the bit, and every save is the same bytes.
//!
//! * [`digest`] — the digest: create, reset, add, merge, and the compression (t-digest-c's
//!   `src/tdigest.c`);
//! * [`read`] — min, max, quantiles, CDF, ranks, values by rank, trimmed mean;
//! * [`rdb`] — the RDB and DUMP format, with every field checked on load;
//! * `sort` — RedisBloom's quicksort, which decides the order of equal means, without its
//!   quadratic stall on them;
//! * `walk` — shortcuts through t-digest-c's walks over the centroids, with the walks' bits.
//!
//! # Reads do not write
//!
//! RedisBloom compresses a digest in place when a read (QUANTILE, CDF, TRIMMED_MEAN, most
//! RANK and BYRANK calls), DUMP or SAVE finds a buffer, and replicates nothing: a replica, or
//! a replica loaded from a snapshot, ends up with other centroids, and then other answers.
//! Here the state changes only through `&mut self` methods that commands replicate:
//!
//! * every read takes `&self` and looks at [`TDigest::merged_view`] — the digest itself when
//!   nothing is buffered, else a compressed copy. The answer is RedisBloom's bit for bit (a
//!   compression is deterministic), and two servers that received the same writes answer
//!   alike whatever was read where;
//! * [`TDigest::compress`] is the in-place compression, for a primary that wants RedisBloom's
//!   own history (its `Total compressions`, its later centroids): it runs it where RedisBloom
//!   would — [`TDigest::has_buffer`], [`TDigest::ranks_compress`],
//!   [`TDigest::by_ranks_compress`] say when — and replicates it as a write. Run after the
//!   read: RANK and BYRANK scale by the size from before the compression;
//! * [`rdb::save`] writes the compressed form, the only one RedisBloom's format can carry,
//!   from the view: saving (DUMP, BGSAVE, a full sync) leaves the value alone, so a primary and
//!   the replica that loads its snapshot hold the same digest.
//!
//! The view is a small type, [`Merged`], rather than a `Cow`: a `Cow` would need an infallible
//! `Clone`, and an owned copy could be added to, growing arrays that were sized for reading.
//! A command layer that wants to keep a view across reads stores the digest's compressed copy
//! and drops it on the next write.
//!
//! # Where RedisBloom is not followed
//!
//! Only where it corrupts a digest: a compression ≥ 357 913 940 (whose capacity wraps
//! negative in RedisBloom's `int`) is refused; centroid means that would overflow to ±inf or NaN
//! (opposite means near ±1e308) are averaged in a form that cannot overflow; a total weight whose
//! double reaches 2⁶³ is refused as an overflow instead of wrapping negative; and loading checks
//! every field. A digest that RedisBloom's reload would have emptied (one observation) is
//! rebuilt with its value.

pub mod digest;
pub mod rdb;
pub mod read;
mod sort;
mod walk;

#[cfg(test)]
mod tests;

pub use digest::{merge_compression, AddError, Info, TDigest, EXACT_SIZE, MAX_COMPRESSION};
pub use read::{Merged, Order, Ranks};
