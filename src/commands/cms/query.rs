//! `CMS.QUERY key item [item ...]`
//!
//! Each item's estimate: the minimum of its counters, an integer in both protocols (at most
//! the cell's maximum). Errors: `CMS: key does not exist`, `WRONGTYPE`. Read-only. Ours, on a
//! sketch that forgets: its count in the window at the reader's time (`window.rs`).

use super::values::{existing_read, Sketch};
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::forgetting;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_AND_ITEMS};

pub static QUERY: CommandSpec = CommandSpec {
    name: "cms.query",
    flags: "readonly",
    arity: -3,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Returns the count for one or more items in a sketch",
    complexity: "O(n) where n is the number of items",
    since: "2.0.0",
    tips: None,
    args: KEY_AND_ITEMS,
    run: query,
};

fn query(call: &Call) -> CommandResult {
    let key = call.open_for_read()?;
    let items = call.args.get(2..).unwrap_or(&[]).iter();
    match existing_read(&key)? {
        Sketch::Classic(sketch) => {
            // Counters are at most 2^63 − 1.
            call.out
                .scalars(items.map(|item| Scalar::Integer(sketch.query(item) as i64)));
        }
        Sketch::Window(sketch) => {
            let now = forgetting::read_time(call, sketch);
            call.out.scalars(
                items.map(|item| {
                    Scalar::Integer(sketch.query(item, now).min(i64::MAX as u64) as i64)
                }),
            );
        }
    }
    Ok(Reply::Sent)
}
