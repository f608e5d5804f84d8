//! RedisBloom's Count-Min sketch (the `CMS.*` commands, data type `CMSk-TYPE`), bit-exact,
//! with no Redis types, no globals and no `unsafe`.
//!
//! * [`sketch`] — the sketch: dimensions as `CMS.INITBYDIM`/`CMS.INITBYPROB` compute and
//!   check them, signed increments refused whole where a counter would leave its range,
//!   queries and weighted merges (RedisBloom's `src/cms.c`, as Redis 8.12 ships it);
//! * [`dimensions`] — width and depth as the create commands compute and check them;
//! * [`cell`] — the counters' widths (`CELL_SIZE`) and ranges;
//! * [`rdb`] — the RDB and DUMP format of `CMSk-TYPE`, encodings 0 and 1;
//! * [`window`] — sketches that forget (data type `cm-window`): the counts of the last `n`
//!   updates or milliseconds.
//!
//! Every command can check all its arguments before it writes anything: [`Dimensions`] are
//! checked before [`CountMinSketch::new`] allocates, an increment a counter cannot take
//! changes nothing, and [`CountMinSketch::check_merge`]
//! checks a whole merge (dimensions and every weighted sum) without changing the destination;
//! [`CountMinSketch::merge`] runs the same check and writes only if it passes.
//!
//! An item's counter in row `i` is MurmurHash2 of the item seeded with `i`, modulo the width:
//! there is no other seed, so a sketch's bytes are a function of the increments alone and
//! every replica, reload and AOF replay agrees.

pub mod cell;
pub mod dimensions;
pub mod rdb;
pub mod sketch;
pub mod window;

#[cfg(test)]
pub(crate) mod tests;

pub use cell::CellSize;
pub use dimensions::{Dimensions, InitError};
pub use sketch::{CountMinSketch, IncrementError, MergeError, MergeSource, Weighted};
pub use window::WindowSketch;
