//! `TOPK.INFO key`
//!
//! `k`, `width`, `depth` (integers) and `decay` (a double, as the server writes one: RESP3's
//! double, a bulk string in RESP2 — `0.90000000000000002` on Redis 7.0, `0.9` on later
//! servers): a map in RESP3, a flat array of 8 in RESP2. Errors: `TopK: key does not exist`,
//! `WRONGTYPE`.

use super::values::{existing_read, Topk};
use super::window;
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::forgetting;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_ARG};

pub static INFO: CommandSpec = CommandSpec {
    name: "topk.info",
    flags: "readonly",
    arity: 2,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read fast",
    summary: "Returns information about a sketch",
    complexity: "O(1)",
    since: "2.0.0",
    tips: None,
    args: &[KEY_ARG],
    run: info,
};

fn info(call: &Call) -> CommandResult {
    let key = call.open_for_read()?;
    let params = match existing_read(&key)? {
        Topk::Classic(topk) => *topk.params(),
        Topk::Window(topk) => return Ok(window::info(topk, forgetting::read_time(call, topk))),
    };
    Ok(Reply::Map(vec![
        (c"k", Reply::integer(params.k().into())),
        (c"width", Reply::integer(params.width().into())),
        (c"depth", Reply::integer(params.depth().into())),
        (c"decay", Reply::Scalar(Scalar::Double(params.decay()))),
    ]))
}
