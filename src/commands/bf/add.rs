//! `BF.ADD key item` and `BF.MADD key item [item ...]`
//!
//! Adds items, auto-creating the filter with the configured defaults. BF.ADD replies with a
//! boolean (`:1`/`:0` in RESP2): 1 when the item was new. BF.MADD replies with an array of
//! them. A full non-scaling filter gives `ERR non scaling filter is full` — for BF.MADD as
//! the last element, ending the array there; a sub-filter that cannot be allocated gives
//! `ERR problem inserting into filter` for that item and the rest go on (RedisBloom's
//! `bfInsertCommon`). `WRONGTYPE` on other types. Replicated verbatim; keyspace event `bf.add`.
//! On a filter that forgets, an item found is written again all the same, which renews it
//! (the reply is still 0), and the write is replicated with its time (`window.rs`). A
//! valkey-bloom filter answers as valkey-bloom (`valkey.rs`).

use super::values::{existing_or_created, Bloom};
use super::{config, errors, valkey, window};
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_AND_ITEM, KEY_AND_ITEMS};
use crate::core::bf::chain::Chain;
use crate::core::Error;

pub static ADD: CommandSpec = CommandSpec {
    name: "bf.add",
    flags: "write deny-oom",
    arity: 3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary: "Adds an item to a Bloom Filter",
    complexity: "O(k), where k is the number of hash functions used by the last sub-filter",
    since: "1.0.0",
    tips: None,
    args: KEY_AND_ITEM,
    run: add,
};

pub static MADD: CommandSpec = CommandSpec {
    name: "bf.madd",
    flags: "write deny-oom",
    arity: -3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary:
        "Adds one or more items to a Bloom Filter. A filter will be created if it does not exist",
    complexity: "O(k * n), where k is the number of hash functions and n is the number of items",
    since: "1.0.0",
    tips: None,
    args: KEY_AND_ITEMS,
    run: madd,
};

fn add(call: &Call) -> CommandResult {
    let mut key = call.open_for_write()?;
    if let Some(created) = valkey::add_creating(call, &mut key, true) {
        return created;
    }
    let added = match existing_or_created(call, &mut key, config::params)? {
        Bloom::Chain(mut chain) => {
            let added = chain
                .add(call.arg(2), &call.memory())
                .map_err(errors::fail)?;
            call.finish_write(c"bf.add");
            added
        }
        Bloom::Window(mut filter) => {
            let mut added = false;
            window::add(call, &mut filter, 2, None, None, |new| added = new);
            added
        }
        Bloom::Valkey(mut object) => return valkey::add(call, &mut object),
    };
    Ok(Reply::bool(added))
}

fn madd(call: &Call) -> CommandResult {
    let mut key = call.open_for_write()?;
    if let Some(created) = valkey::add_creating(call, &mut key, false) {
        return created;
    }
    let items = call.args.get(2..).unwrap_or(&[]);
    let reply = match existing_or_created(call, &mut key, config::params)? {
        Bloom::Chain(mut chain) => {
            let reply = add_items(call, &mut chain, items);
            call.finish_write(c"bf.add");
            reply
        }
        Bloom::Window(mut filter) => window::add_items(call, &mut filter, 2, None, None),
        Bloom::Valkey(mut object) => return valkey::add_items(call, &mut object, 2),
    };
    Ok(reply)
}

/// Adds each item, one reply per item; stops after the first "full" error, as RedisBloom.
/// The replies are written as they come, unless the filter may fill up on the way: the array
/// is then shorter than the items, so its length is known only at the end.
pub fn add_items(call: &Call, chain: &mut Chain, items: &[&[u8]]) -> Reply {
    let memory = call.memory();
    let reply = |outcome| match outcome {
        Ok(added) => Reply::bool(added),
        Err(error) => Reply::Error(errors::text(error)),
    };
    if chain.may_fill(items.len() as u64) {
        let mut replies = Vec::with_capacity(items.len());
        chain.add_each(items.iter().copied(), &memory, |outcome| {
            replies.push(reply(outcome));
            outcome != Err(Error::Full)
        });
        return Reply::Array(replies);
    }
    call.out.array(items.len());
    chain.add_each(items.iter().copied(), &memory, |outcome| {
        match outcome {
            Ok(added) => call.out.scalar(Scalar::Bool(added)),
            Err(error) => call.out.error(errors::text(error)),
        }
        true
    });
    Reply::Sent
}
