//! `TOPK.QUERY key item [item ...]` and `TOPK.COUNT key item [item ...]`
//!
//! TOPK.QUERY: whether each item is among the top k — a boolean (`:1`/`:0` in RESP2, `#t`/`#f`
//! in RESP3), true also for an item held with count 0, which TOPK.LIST does not show.
//! TOPK.COUNT (deprecated since RedisBloom 2.4): each item's count in its buckets, an integer —
//! the largest among the buckets holding its fingerprint and, for an item in the top k, at
//! least the smallest count there. Errors: `TopK: key does not exist`, `WRONGTYPE`. Read-only
//! (RedisBloom 2.8 flagged TOPK.COUNT `write`, so a read-only replica refused it; 8.x does not).

use super::values::{existing_read, Topk};
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::forgetting;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_AND_ITEMS};
use crate::core::topk::{TopK, WindowTopK};

pub static QUERY: CommandSpec = CommandSpec {
    name: "topk.query",
    flags: "readonly",
    arity: -3,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Checks whether one or more items are in a sketch",
    complexity: "O(n) where n is the number of items",
    since: "2.0.0",
    tips: None,
    args: KEY_AND_ITEMS,
    run: query,
};

pub static COUNT: CommandSpec = CommandSpec {
    name: "topk.count",
    flags: "readonly",
    arity: -3,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Return the count for one or more items are in a sketch",
    complexity: "O(n) where n is the number of items",
    since: "2.0.0",
    tips: None,
    args: KEY_AND_ITEMS,
    run: count,
};

fn query(call: &Call) -> CommandResult {
    each_item(call, |topk, item| {
        Scalar::Bool(match topk {
            Topk::Classic(topk) => topk.query(item),
            Topk::Window((topk, now)) => topk.query(item, now),
        })
    })
}

fn count(call: &Call) -> CommandResult {
    each_item(call, |topk, item| {
        Scalar::Integer(i64::from(match topk {
            Topk::Classic(topk) => topk.count(item),
            Topk::Window((topk, now)) => topk.count(item, now),
        }))
    })
}

/// The Top-K's `answer` about each item (arguments 2 on), as an array; a Top-K that forgets
/// with the reader's time.
fn each_item(
    call: &Call,
    answer: impl Fn(Topk<&TopK, (&WindowTopK, u64)>, &[u8]) -> Scalar,
) -> CommandResult {
    let key = call.open_for_read()?;
    let topk = match existing_read(&key)? {
        Topk::Classic(topk) => Topk::Classic(topk),
        Topk::Window(topk) => Topk::Window((topk, forgetting::read_time(call, topk))),
    };
    let items = call.args.get(2..).unwrap_or(&[]);
    call.out
        .scalars(items.iter().map(|item| answer(topk, item)));
    Ok(Reply::Sent)
}
