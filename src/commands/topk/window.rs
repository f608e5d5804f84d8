//! What the TOPK.* commands do on Top-Ks that forget (`TOPK.RESERVE key k [width depth decay]
//! WINDOW n | TIMESPAN ms [SLOTS s]`; the Top-K is `core::topk::window`): creating one,
//! `TOPK.ADVANCE`, and `TOPK.INFO`.
//!
//! Time reaches replicas and the AOF as for the Count-Min sketches that forget
//! (`commands/forgetting.rs`, `commands/cms/window.rs`), with slots in place of ticks: a
//! write reads the clock once, on the primary, and counts every item of it in that time's
//! slot; a write in the newest slot held is replicated as it came, one that opens a slot
//! behind `TOPK.ADVANCE key <ms>` (accepted only from the replication stream or an AOF), which
//! opens it on the replica first — counting the heap's items again there, as the primary did.
//! A new Top-K travels as `TOPK.RESERVE` with its whole shape, and a time window's clock
//! behind it. Count windows depend on no clock: every write is replicated as it came. Reads
//! count by the reader's clock and change nothing; the decay draws no random number
//! (`core::topk`), so every copy holds the same bytes.

use std::ffi::CStr;

use super::errors;
use crate::commands::call::Call;
use crate::commands::classic_or_window;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::forgetting::{self, Forgetting};
use crate::commands::keys::WriteKey;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::CommandSpec;
use crate::commands::window_options;
use crate::core::topk::window::{Shape, Window};
use crate::core::topk::{Params, TopK, WindowTopK};
use crate::core::Error;

pub static ADVANCE: CommandSpec = classic_or_window::advance_spec(
    "topk.advance",
    "Moves the clock of a Top-K that forgets by time (replication and AOF only)",
    "O(k × depth × slots) when a slot opens",
    advance,
);

/// Its values that forget, to the shared machinery (`forgetting.rs`).
impl Forgetting for WindowTopK {
    const ADVANCE: &'static CStr = c"TOPK.ADVANCE";
}

/// `TOPK.ADVANCE key ms`: what a primary's write that opened a slot sends ahead of itself.
fn advance(call: &Call) -> CommandResult {
    let texts = [errors::NOT_FOUND, errors::NOT_A_WINDOW];
    classic_or_window::advance::<TopK, WindowTopK>(call, texts, c"topk.advance")
}

/// A new Top-K that forgets by `window`, cut into `slots`, stored under the empty key and
/// replicated in its explicit form.
pub fn create(
    call: &Call,
    key: &mut WriteKey,
    params: Params,
    (window, slots): (Window, u64),
) -> Result<(), Failure> {
    let shape =
        Shape::new(params, window, slots).ok_or_else(|| errors::fail(Error::OutOfMemory))?;
    let now = forgetting::creation_time(call, window);
    let topk = WindowTopK::new(shape, now, &call.memory()).map_err(errors::fail)?;
    key.store(topk)?;
    let [k, width, depth] = [params.k(), params.width(), params.depth()].map(|n| n.to_string());
    // The decay as the shortest text that reads back as the same double.
    let decay = format!("{:?}", params.decay());
    let words = [
        k.as_bytes(),
        width.as_bytes(),
        depth.as_bytes(),
        decay.as_bytes(),
    ];
    let explicit = (c"TOPK.RESERVE", &words[..]);
    forgetting::created::<WindowTopK>(call, explicit, (window, slots), now, c"topk.reserve");
    Ok(())
}

/// `TOPK.INFO` of a Top-K that forgets at time `now`: RedisBloom's pairs first, in order, then
/// `window_type`, `window`, `slots` and `window_count` (the increments of the window).
pub fn info(topk: &WindowTopK, now: u64) -> Reply {
    let shape = topk.shape();
    let params = shape.params;
    let mut pairs = vec![
        (c"k", Reply::count(params.k().into())),
        (c"width", Reply::count(params.width().into())),
        (c"depth", Reply::count(params.depth().into())),
        (c"decay", Reply::Scalar(Scalar::Double(params.decay()))),
    ];
    pairs.extend(window_options::info(shape.window, shape.slots));
    pairs.push((c"window_count", Reply::count(topk.window_total(now))));
    Reply::Map(pairs)
}
