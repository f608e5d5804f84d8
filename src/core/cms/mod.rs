//! RedisBloom's Count-Min sketch (the `CMS.*` commands, data type `CMSk-TYPE`), bit-exact,
//! with no Redis types, no globals and no `unsafe`.
//!
//! * [`sketch`] — the sketch: dimensions as `CMS.INITBYDIM`/`CMS.INITBYPROB` compute and
//!   check them, increments with RedisBloom's saturation, queries and weighted merges
//!   (RedisBloom's `src/cms.c`);
//! * [`rdb`] — the RDB and DUMP format of `CMSk-TYPE`.
//!
//! Every command can check all its arguments before it writes anything: [`Dimensions`] are
//! checked before [`CountMinSketch::new`] allocates, and [`CountMinSketch::check_merge`]
//! checks a whole merge (dimensions and every weighted sum) without changing the destination;
//! [`CountMinSketch::merge`] runs the same check and writes only if it passes.
//!
//! An item's counter in row `i` is MurmurHash2 of the item seeded with `i`, modulo the width:
//! there is no other seed, so a sketch's bytes are a function of the increments alone and
//! every replica, reload and AOF replay agrees.

pub mod rdb;
pub mod sketch;

#[cfg(test)]
pub(crate) mod tests;

pub use sketch::{
    CountMinSketch, Dimensions, Increment, InitError, MergeError, MergeSource, Weighted,
};
