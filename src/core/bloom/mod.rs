//! The Bloom-filter family: RedisBloom's scalable Bloom filter, bit-exact, and the fast
//! cache-line-blocked layout beside it.
//!
//! * [`sizing`] — bits and probes of a classic sub-filter from its capacity and error rate;
//! * `divisor` — the classic probes' exact remainder without a division;
//! * [`blocked`] — the fast, cache-line-blocked layout;
//! * [`filter`] — one sub-filter's bit array, in RedisBloom's layout or the blocked one;
//! * [`chain`] — the scalable chain stored under a key;
//! * [`encoding`] — SCANDUMP header and chunks;
//! * [`rdb`] — the RDB fields of both Bloom data types.

pub mod blocked;
pub mod chain;
mod divisor;
pub mod encoding;
pub mod filter;
pub mod rdb;
pub mod sizing;
