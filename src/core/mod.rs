//! The filter engine: RedisBloom's scalable Bloom filter, bit-exact, with no Redis types,
//! no globals and no `unsafe`. Everything a user can reach returns a `Result`.
//!
//! * [`sizing`] — bits and probes of a sub-filter from its capacity and error rate;
//! * [`hash`] — the item hash pair (MurmurHash64A, MurmurHash2 or xxh3);
//! * `divisor` — the classic probes' exact remainder without a division;
//! * [`filter`] — one sub-filter's bit array, in RedisBloom's layout or [`blocked`];
//! * [`blocked`] — the fast, cache-line-blocked layout;
//! * [`chain`] — the scalable chain stored under a key;
//! * [`encoding`] — SCANDUMP header and chunks, RDB layout constants.

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod blocked;
pub mod chain;
pub mod cuckoo;
mod divisor;
pub mod encoding;
mod error;
pub mod filter;
pub mod hash;
pub mod sizing;

pub use error::Error;
pub use filter::{eager_zeroed, Zeroed};
