//! RedisBloom's Cuckoo filter (the `CF.*` commands, data type `MBbloomCF`), bit-exact, with no
//! Redis types, no globals and no `unsafe`. Everything a user can reach returns a `Result`.
//!
//! * [`filter`] — the filter stored under a key: hashing, buckets, the kick loop, growth,
//!   deletion and compaction (RedisBloom's `src/cuckoo.c`), and its RDB fields;
//! * [`encoding`] — the SCANDUMP header and chunks, and LOADCHUNK (RedisBloom's `src/cf.c`);
//! * [`rdb`] — the RDB and DUMP format of `MBbloomCF`, every encoding version.
//!
//! An item is hashed once per command into an [`ItemHash`]; every lookup, count, insert and
//! delete of that item takes the hash, so a command never hashes an item twice.

pub mod encoding;
pub mod filter;
pub mod rdb;

#[cfg(test)]
mod tests;

pub use filter::{CuckooFilter, ItemHash, Params, SavedHeader};
