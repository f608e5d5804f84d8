//! What the CMS.* commands do on sketches that forget (`CMS.INITBYDIM key width depth WINDOW n
//! | TIMESPAN ms [SLOTS s]`, and the same options after CMS.INITBYPROB's; the sketch is
//! `core::cms::window`): creating one, the time of a write and of a read, how a write reaches
//! replicas, and `CMS.INFO`.
//!
//! # Time on replicas and in the AOF
//!
//! What a time window holds depends on when each increment came, so its writes cannot simply
//! be replicated as they came: a replica, or an AOF replayed a day later, would apply them at
//! its own time. As for the Bloom filters that forget (`commands/bf/window.rs`):
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

use super::{errors, sketch_to_write, Sketch};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::keys::WriteKey;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::server::{Arg, Replicated};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::cms::window::{Shape, Window};
use crate::core::cms::{Dimensions, WindowSketch};
use crate::core::Error;

pub static ADVANCE: CommandSpec = CommandSpec {
    name: "cms.advance",
    flags: "write fast",
    arity: 3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write fast",
    summary: "Moves the clock of a sketch that forgets by time (replication and AOF only)",
    complexity: "O(width × depth / 16) per tick opened, O(width × depth × slots) at most",
    since: "1.1.0",
    tips: None,
    args: &[KEY_ARG, ArgSpec::new("milliseconds", ArgKind::Integer)],
    run: advance,
};

/// `CMS.ADVANCE key ms`: what a primary's write that opened a tick sends ahead of itself.
fn advance(call: &Call) -> CommandResult {
    if !call.server.replayed() {
        return Err(Failure::Message(errors::ADVANCE_FROM_CLIENT));
    }
    let now = parse_integer(call.arg(2))
        .and_then(|ms| u64::try_from(ms).ok())
        .ok_or(Failure::Message(errors::BAD_TIME))?;
    let mut key = call.open_for_write()?;
    let Sketch::Window(mut sketch) = sketch_to_write(&mut key)? else {
        return Err(Failure::Message(errors::NOT_A_WINDOW));
    };
    sketch.advance_to(now);
    call.finish_write(c"cms.advance");
    Ok(Reply::OK)
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
    let replayed = call.server.replayed();
    // A replayed creation starts at tick 0; the CMS.ADVANCE that follows it sets the primary's.
    let now = match window {
        Window::Time(_) if !replayed => call.server.now_ms(),
        _ => 0,
    };
    let sketch = WindowSketch::new(shape, now, &call.memory()).map_err(errors::fail)?;
    key.store(sketch)?;
    if replayed {
        call.finish_write(event);
        return Ok(());
    }
    let (kind, length): (&[u8], u64) = match window {
        Window::Count(n) => (b"WINDOW", n),
        Window::Time(ms) => (b"TIMESPAN", ms),
    };
    let [width, depth, length, slots, now] =
        [width, depth, length, slots, now].map(|n| n.to_string());
    let created = Replicated {
        command: c"CMS.INITBYDIM",
        args: vec![
            KEY,
            Arg::Bytes(width.as_bytes()),
            Arg::Bytes(depth.as_bytes()),
            Arg::Bytes(kind),
            Arg::Bytes(length.as_bytes()),
            Arg::Bytes(b"SLOTS"),
            Arg::Bytes(slots.as_bytes()),
        ],
    };
    match window {
        Window::Time(_) => call
            .server
            .written_as(&[event], &[created, advance_to(now.as_bytes())]),
        Window::Count(_) => call.server.written_as(&[event], &[created]),
    }
    Ok(())
}

/// The time a write to `sketch` is made at: the clock, read once, on a primary; on replicas
/// and in the AOF none (the newest tick held). Count windows keep no time.
pub fn write_time(call: &Call, sketch: &WindowSketch) -> Option<u64> {
    match sketch.shape().window {
        Window::Time(_) if !call.server.replayed() => Some(call.server.now_ms()),
        _ => None,
    }
}

/// The time a read of `sketch` sees it at: the clock for time windows.
pub fn read_time(call: &Call, sketch: &WindowSketch) -> u64 {
    match sketch.shape().window {
        Window::Time(_) => call.server.now_ms(),
        Window::Count(_) => 0,
    }
}

/// Replicates a write to a sketch that forgets and raises `event`: as it came, unless it
/// `opened` a tick at that time — then behind `CMS.ADVANCE` to it.
pub fn written(call: &Call, command: &'static CStr, opened: Option<u64>, event: &'static CStr) {
    let Some(now) = opened else {
        call.finish_write(event);
        return;
    };
    let now = now.to_string();
    let as_it_came = Replicated {
        command,
        args: (1..call.args.len()).map(Arg::Own).collect(),
    };
    call.server
        .written_as(&[event], &[advance_to(now.as_bytes()), as_it_came]);
}

/// `CMS.ADVANCE key <now>`.
fn advance_to(now: &[u8]) -> Replicated<'_> {
    Replicated {
        command: c"CMS.ADVANCE",
        args: vec![KEY, Arg::Bytes(now)],
    }
}

/// The command's key, as the replicated commands name it.
const KEY: Arg = Arg::Own(1);

/// `CMS.INFO` of a sketch that forgets at time `now`: RedisBloom's pairs first, in order —
/// `count` being the increments of the window, at tick granularity, and `cell_size` 4 — then
/// the window's.
pub fn info(sketch: &WindowSketch, now: u64) -> Reply {
    let shape = sketch.shape();
    let int = |n: u64| Reply::integer(i64::try_from(n).unwrap_or(i64::MAX));
    let kind = match shape.window {
        Window::Count(_) => "count",
        Window::Time(_) => "time",
    };
    Reply::Map(vec![
        (c"width", int(shape.width)),
        (c"depth", int(shape.depth)),
        (c"count", int(sketch.window_count(now))),
        (c"cell_size", int(4)),
        (c"window_type", Reply::Scalar(Scalar::Text(kind))),
        (c"window", int(shape.window.length())),
        (c"slots", int(shape.slots)),
        (c"ticks_per_slot", int(shape.ticks_per_slot)),
    ])
}
