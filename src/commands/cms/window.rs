//! What the CMS.* commands do on sketches that forget (`CMS.INITBYDIM key width depth WINDOW n
//! | TIMESPAN ms [SLOTS s]`, and the same options after CMS.INITBYPROB's; the sketch is
//! `core::cms::window`): creating one, the time of a write and of a read, how a write reaches
//! replicas, and `CMS.INFO`.
//!
//! # Time on replicas and in the AOF
//!
//! What a time window holds depends on when each increment came, so its writes cannot simply
//! be replicated as they came: a replica, or an AOF replayed a day later, would apply them at
//! its own time. As for the Bloom filters that forget (`commands/bf/window.rs`), and with what
//! Top-Ks that forget share (`commands/forgetting.rs`):
//!
//! * A write reads the clock once, on the primary, and every pair of it is counted at that
//!   time's tick (`core::cms::window`: 16 ticks a slot). The sketch never goes behind the
//!   newest tick it holds, so a clock stepped back, or a failover to a replica whose clock
//!   lags, cannot reorder its generations.
//! * A write in the newest tick held — most writes — is replicated as it came; a replica or an
//!   AOF load makes a write that carries no time at that newest tick, which is the primary's.
//! * A write that opens a new tick reaches replicas and the AOF as `CMS.ADVANCE key <ms>`, then
//!   the write as it came, in one transaction. `CMS.ADVANCE` moves the sketch's clock and is
//!   accepted only from the primary's replication stream or an AOF being loaded: a client
//!   cannot move a sketch's clock, which could push it years ahead and stop it forgetting.
//!   CMS.INCRBY's arguments are free item/increment pairs, so no keyword could carry the time
//!   inside it, as `AT` does in BF.INSERT.
//! * A new sketch reaches them as `CMS.INITBYDIM` with its whole shape — width, depth, window
//!   and slots, never recomputed from CMS.INITBYPROB's floats — and, for a time window,
//!   `CMS.ADVANCE` to the time it was made at.
//! * Count windows depend on no clock: every write is replicated as it came.
//! * Reads take the clock as well, only to know which counters are still alive, and change
//!   nothing. A replica answers by its own clock: around an expiry (the clocks' difference)
//!   it may answer differently from the primary, while both hold the same bytes.
//!
//! In MULTI and in scripts each command reads its own time and replicates it.

use std::ffi::CStr;

use super::errors;
use crate::commands::call::Call;
use crate::commands::classic_or_window;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::forgetting::{self, Forgetting};
use crate::commands::keys::WriteKey;
use crate::commands::reply::Reply;
use crate::commands::spec::CommandSpec;
use crate::commands::window_options;
use crate::core::cms::window::{Shape, Window};
use crate::core::cms::{CountMinSketch, Dimensions, WindowSketch};
use crate::core::Error;

pub static ADVANCE: CommandSpec = classic_or_window::advance_spec(
    "cms.advance",
    "Moves the clock of a sketch that forgets by time (replication and AOF only)",
    "O(width × depth / 16) per tick opened, O(width × depth × slots) at most",
    advance,
);

/// Its values that forget, to the shared machinery (`forgetting.rs`).
impl Forgetting for WindowSketch {
    const ADVANCE: &'static CStr = c"CMS.ADVANCE";
}

/// `CMS.ADVANCE key ms`: what a primary's write that opened a tick sends ahead of itself.
fn advance(call: &Call) -> CommandResult {
    let texts = [errors::NOT_FOUND, errors::NOT_A_WINDOW];
    classic_or_window::advance::<CountMinSketch, WindowSketch>(call, texts, c"cms.advance")
}

/// A new sketch that forgets by `window`, cut into `slots`, stored under the empty key and
/// replicated in its explicit form (module docs).
pub fn create(
    call: &Call,
    key: &mut WriteKey,
    dimensions: Dimensions,
    (window, slots): (Window, u64),
    event: &'static CStr,
) -> Result<(), Failure> {
    let (width, depth) = (dimensions.width(), dimensions.depth());
    let shape =
        Shape::new(width, depth, window, slots).ok_or_else(|| errors::fail(Error::OutOfMemory))?;
    let now = forgetting::creation_time(call, window);
    let sketch = WindowSketch::new(shape, now, &call.memory()).map_err(errors::fail)?;
    key.store(sketch)?;
    let [width, depth] = [width, depth].map(|n| n.to_string());
    let words = [width.as_bytes(), depth.as_bytes()];
    let explicit = (c"CMS.INITBYDIM", &words[..]);
    forgetting::created::<WindowSketch>(call, explicit, (window, slots), now, event);
    Ok(())
}

/// `CMS.INFO` of a sketch that forgets at time `now`: RedisBloom's pairs first, in order —
/// `count` being the increments of the window, at tick granularity, and `cell_size` 4 — then
/// the window's.
pub fn info(sketch: &WindowSketch, now: u64) -> Reply {
    let shape = sketch.shape();
    let mut pairs = vec![
        (c"width", Reply::count(shape.width)),
        (c"depth", Reply::count(shape.depth)),
        (c"count", Reply::count(sketch.window_count(now))),
        (c"cell_size", Reply::count(4)),
    ];
    pairs.extend(window_options::info(shape.window, shape.slots));
    pairs.push((c"ticks_per_slot", Reply::count(shape.ticks_per_slot)));
    Reply::Map(pairs)
}
