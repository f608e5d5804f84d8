//! RedisBloom's Top-K (the `TOPK.*` commands, data type `TopK-TYPE`): HeavyKeeper, with no
//! Redis types, no globals and no `unsafe`.
//!
//! * [`params`] — what `TOPK.RESERVE` and `TOPK.INCRBY` accept;
//! * [`sketch`] — the buckets and what adding, querying, counting and listing do (RedisBloom's
//!   `src/topk.c`);
//! * `heap` — the k heaviest items, moved as RedisBloom moves them;
//! * `decay` — the decay table and where a decay chance comes from;
//! * [`rdb`] — the RDB and DUMP format of `TopK-TYPE`;
//! * [`window`] — Top-Ks that forget (data type `tk-window`).
//!
//! A command checks its arguments with [`Params::new`] or [`params::increment`] before it
//! writes anything; [`TopK::new`] asks [`crate::core::Memory`] before it allocates.
//!
//! # Decay without `rand()`
//!
//! When an item meets a bucket of its row held by another fingerprint, HeavyKeeper spends its
//! increment one unit at a time, each unit decrementing the bucket with probability
//! `decay^count`; the item takes the bucket when it reaches 0. RedisBloom draws each chance
//! from the process-wide `rand()`, which the server seeds at start-up and uses itself, so a
//! replica (commands are replicated verbatim), an AOF replay or a restart draws other numbers
//! and, after the first collision, holds other buckets and another heap.
//!
//! Here a chance is a pure function of the sketch and the command: an item's attempts in a
//! command draw, in order, from a SplitMix64 stream seeded with the item's fingerprint and
//! a digest of its bucket in every row (taken at its first attempt in the command), mapped
//! to [0, 1). Everything it reads — buckets, decay — is
//! in the RDB payload, which keeps RedisBloom's format: the same commands applied to the
//! same bytes give the same bytes, on the master, on every replica, in an AOF replay and
//! after a reload, and nothing extra travels.
//!
//! * **Decay 1** (`TOPK.RESERVE … 1`): every probability is exactly 1, and a chance in
//!   [0, 1) is always below it, so every unit decrements. RedisBloom's `rand() / RAND_MAX`
//!   is below 1 unless `rand()` returns `RAND_MAX`, once in 2^31 draws: the results are
//!   RedisBloom's (the golden runs in `tests.rs` check them), and no chance is drawn at all.
//! * **Decay below 1**: RedisBloom's results are not reproducible even by RedisBloom. The
//!   chances are spread evenly, as `rand()`'s are, and independent across different states,
//!   so the sketch behaves as HeavyKeeper (`tests.rs` compares top-k recall on Zipf streams
//!   with a `rand()`-like draw). One difference is inherent to any pure function: an
//!   attempt that changes nothing, repeated, fails again. That needs every one of the
//!   item's buckets held by others and untouched in between (the digest sees any change in
//!   any of them, the item's own counts included), while RedisBloom would eventually decay
//!   one with probability `decay^count` per try — at the default 0.9 that is 3·10^-5 for a
//!   count of 100 and 4·10^-12 for 250, so a heavy holder hardly decays in RedisBloom
//!   either.
//!
//! # Items
//!
//! Items are binary-safe in memory, and through save and load: the whole item is saved
//! (RedisBloom cuts it at its first NUL), and the empty string stays the empty string
//! (RedisBloom turns it into an item-less slot that `TOPK.LIST` shows as `nil`); see
//! [`rdb`]. Replies carry C strings in RedisBloom: [`c_string`] cuts an item as they do.

mod decay;
mod heap;
pub mod params;
pub mod rdb;
pub mod sketch;
pub mod window;

#[cfg(test)]
mod tests;

pub use heap::{Expelled, Listed};
pub use params::{Params, ReserveError};
pub use sketch::TopK;
pub use window::WindowTopK;

/// An item as RedisBloom replies with it (`RedisModule_ReplyWithCString`): the bytes before
/// its first NUL.
pub fn c_string(item: &[u8]) -> &[u8] {
    item.split(|&b| b == 0).next().unwrap_or(item)
}
