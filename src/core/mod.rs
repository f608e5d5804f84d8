//! The filter engine: pure Rust, with no Redis types and no `unsafe`, and no globals but the
//! vector kernel the glue hands [`lanes`] at load. Everything
//! a user can reach returns a `Result`. One wing per family, sharing the hash
//! functions, the error type and the memory rules:
//!
//! * [`batch`] — items a batch at a time, for reading ahead what a batch will touch;
//! * [`bf`] — RedisBloom's scalable Bloom filter, bit-exact, the fast layout, and Bloom filters
//!   that forget (the last N additions, or the last N milliseconds);
//! * [`cf`] — RedisBloom's Cuckoo filter, bit-exact: it can delete and count;
//! * [`cms`] — RedisBloom's Count-Min sketch, bit-exact;
//! * [`divisor`] — remainders by a width fixed at creation, without a division instruction;
//! * [`dump`] — a value as the `DUMP` payload `RESTORE` takes (an AOF rewrite's `RESTORE`);
//! * [`tdigest`] — RedisBloom's t-digest, bit-exact, whose reads never change it;
//! * [`hash`] — MurmurHash64A, MurmurHash2 and xxh3, as the families use them;
//! * [`lanes`] — MurmurHash2 under many seeds at once (the sketches' rows), scalar or vector;
//! * [`Error`] — what can go wrong, without wire text;
//! * [`le`] — little-endian fields read from plain bytes (SCANDUMP headers, RDB fields);
//! * [`Memory`] — where new arrays come from, and how large a filter may grow;
//! * [`printf_double`] — a double as C's `printf("%.17g")` writes it (a server's RESP2 replies);
//! * [`rdb`] — a value as the fields of an RDB file, read and written by each family's format;
//! * [`relocate`] — each value's heap blocks, offered for moving (active defragmentation);
//! * [`short_list`] — a list of a few numbers that does not allocate for them;
//! * [`sparse`] — byte arrays that know which blocks were written, for work in proportion to data;
//! * [`topk`] — RedisBloom's Top-K (HeavyKeeper), bit-exact at decay 1, deterministic below;
//! * [`window`] — what Count-Min sketches and Top-Ks that forget forget by.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod batch;
pub mod bf;
pub mod bits;
pub mod cf;
pub mod cms;
pub mod divisor;
pub mod dump;
mod error;
pub mod hash;
pub mod lanes;
pub mod le;
mod memory;
pub mod printf_double;
pub mod rdb;
pub mod relocate;
pub mod short_list;
pub mod sparse;
pub mod tdigest;
#[cfg(test)]
pub(crate) mod testing;
pub mod topk;
pub mod window;

pub use error::Error;
pub use memory::{
    eager_zeroed, no_advice, no_server_bound, try_copy, try_filled, try_vec, Dense, Memory, Zeroed,
    EAGER,
};
