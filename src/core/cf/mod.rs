//! RedisBloom's Cuckoo filter (the `CF.*` commands, data type `MBbloomCF`), bit-exact, with no
//! Redis types, no globals and no `unsafe`. Everything a user can reach returns a `Result`.
//!
//! * [`params`] — the limits every filter keeps, and how a new one is built;
//! * [`hash`] — an item's hash, fingerprint and two bucket hashes;
//! * `sub_filter` — one sub-filter's buckets: lookups, writes and the kick loop;
//! * [`filter`] — the filter stored under a key: a chain of sub-filters, insertion, deletion,
//!   growth and compaction (RedisBloom's `src/cuckoo.c`);
//! * [`header`] — the seven numbers an RDB value starts with;
//! * [`encoding`] — the SCANDUMP header and chunks, and LOADCHUNK (RedisBloom's `src/cf.c`);
//! * [`rdb`] — the RDB and DUMP format of `MBbloomCF`, every encoding version.
//!
//! An item is hashed once per command into an [`ItemHash`]; every lookup, count, insert and
//! delete of that item takes the hash, so a command never hashes an item twice.

pub mod encoding;
pub mod filter;
pub mod hash;
pub mod header;
pub mod params;
pub mod rdb;
mod sub_filter;

#[cfg(test)]
mod tests;

pub use filter::CuckooFilter;
pub use hash::ItemHash;
pub use header::SavedHeader;
pub use params::{
    Params, MAX_BUCKETS, MAX_BUCKET_SIZE, MAX_EXPANSION, MAX_FILTERS, MAX_TOTAL_BYTES,
    MIN_ITERATIONS,
};
