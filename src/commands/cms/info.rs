//! `CMS.INFO key`
//!
//! `width`, `depth`, `count` (the sum of every increment taken, sent as a signed 64-bit
//! integer, as RedisBloom sends it) and `cell_size` (bytes per counter), RedisBloom 8.12's
//! four pairs: a map in RESP3, a flat array of 8 in RESP2. Errors: `CMS: key does not exist`,
//! `WRONGTYPE`. Ours, a sketch that forgets: the same four pairs first (`count` the window's
//! increments), then `window_type`, `window`, `slots` and `ticks_per_slot` (`window.rs`).

use super::values::{existing_read, Sketch};
use super::window;
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::forgetting;
use crate::commands::reply::Reply;
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_ARG};

pub static INFO: CommandSpec = CommandSpec {
    name: "cms.info",
    flags: "readonly",
    arity: 2,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read fast",
    summary: "Returns information about a sketch",
    complexity: "O(1)",
    since: "2.0.0",
    tips: Some("dont_cache"),
    args: &[KEY_ARG],
    run: info,
};

fn info(call: &Call) -> CommandResult {
    let key = call.open_for_read()?;
    let sketch = match existing_read(&key)? {
        Sketch::Classic(sketch) => sketch,
        Sketch::Window(sketch) => {
            return Ok(window::info(sketch, forgetting::read_time(call, sketch)))
        }
    };
    // Dimensions fit an i64 (their product does); the count is a wrapped u64, shown signed.
    let int = |n: u64| Reply::integer(n as i64);
    Ok(Reply::Map(vec![
        (c"width", int(sketch.width())),
        (c"depth", int(sketch.depth())),
        (c"count", int(sketch.count())),
        (c"cell_size", int(sketch.cell_size().bytes())),
    ]))
}
