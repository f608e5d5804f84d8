//! `TOPK.ADD key item [item ...]` and `TOPK.INCRBY key item increment [item increment ...]`
//!
//! Count each item (once, or by its increment) in order, as RedisBloom's HeavyKeeper does
//! (`core::topk`). Reply: an array, one element per item — the item this one expelled from
//! the top k, as a bulk string cut at its first NUL (RedisBloom replies with C strings; an
//! expelled empty item is `$0`), or a null (`$-1` in RESP2, `_` in RESP3) when none was, or
//! the memory error when the item could not be copied into the heap. Errors: arity (TOPK.INCRBY:
//! an odd number of arguments); `TopK: key does not exist`, `WRONGTYPE`. Replicated verbatim;
//! keyspace events `topk.add`, `topk.incrby`.
//!
//! TOPK.INCRBY's increments are integers in [0, 100000], all checked before the first is
//! applied. When one is not, nothing changes and nothing is replicated, and the reply is the
//! array with every element the error `TopK: increment must be an integer greater or equal
//! to 0 … and smaller or equal to 100,000`. RedisBloom applies the pairs before the bad one,
//! replicates the command, and sends an array cut short after the error, so that its client
//! reads the next reply as the missing elements; with a single pair both reply `[error]`,
//! which RedisBloom's and redis-py's tests expect.

use super::{errors, topk_to_write};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_AND_ITEMS, KEY_ARG,
};
use crate::core::topk::{c_string, params, TopK};

pub static ADD: CommandSpec = CommandSpec {
    name: "topk.add",
    flags: "write deny-oom",
    arity: -3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary: "Adds an item to a Top-k sketch. Multiple items can be added at the same time.",
    complexity: "O(n * k) where n is the number of items and k is the depth",
    since: "2.0.0",
    tips: None,
    args: KEY_AND_ITEMS,
    run: add,
};

pub static INCRBY: CommandSpec = CommandSpec {
    name: "topk.incrby",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary: "Increases the count of one or more items by increment",
    complexity: "O(n * k * incr) where n is the number of items, k is the depth and incr is \
                 the increment",
    since: "2.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new(
            "item_increment",
            ArgKind::Block(&[
                ArgSpec::new("item", ArgKind::String),
                ArgSpec::new("increment", ArgKind::Integer),
            ]),
        )
        .multiple(),
    ],
    run: incrby,
};

fn add(call: &Call) -> CommandResult {
    let mut key = call.open_for_write()?;
    let mut topk = topk_to_write(&mut key)?;
    let items = call.args.get(2..).unwrap_or(&[]);
    call.out.array(items.len());
    for item in items {
        count(call, &mut topk, item, 1);
    }
    call.finish_write(c"topk.add");
    Ok(Reply::Sent)
}

fn incrby(call: &Call) -> CommandResult {
    call.require_arity(call.args.len().is_multiple_of(2))?;
    let mut key = call.open_for_write()?;
    let mut topk = topk_to_write(&mut key)?;
    let pairs = call.args.get(2..).unwrap_or(&[]).len() / 2;
    let Ok(pairs) = parse(call.args) else {
        call.out.array(pairs);
        (0..pairs).for_each(|_| call.out.error(errors::BAD_INCREMENT));
        return Ok(Reply::Sent);
    };
    call.out.array(pairs.len());
    for (item, increment) in pairs {
        count(call, &mut topk, item, increment);
    }
    call.finish_write(c"topk.incrby");
    Ok(Reply::Sent)
}

/// Counts one item and writes its element of the reply.
fn count(call: &Call, topk: &mut TopK, item: &[u8], increment: u32) {
    match topk.add(item, increment) {
        Ok(None) => call.out.scalar(Scalar::Null),
        Ok(Some(expelled)) => call.out.bulk(c_string(expelled.item())),
        Err(error) => call.out.error(errors::text(error)),
    }
}

/// TOPK.INCRBY's pairs (`args`, the command name first, arity checked), every increment
/// checked before the first is applied: a pure function of them, so it is fuzzed without a
/// server.
pub fn parse<'a>(
    args: &'a [&'a [u8]],
) -> Result<impl ExactSizeIterator<Item = (&'a [u8], u32)> + 'a, Failure> {
    let pairs = args.get(2..).unwrap_or(&[]).as_chunks::<2>().0;
    for [_, increment] in pairs {
        increment_of(increment)?;
    }
    Ok(pairs
        .iter()
        .map(|[item, increment]| (*item, increment_of(increment).unwrap_or(0))))
}

/// An increment: an integer in [0, 100000] as Redis parses one.
fn increment_of(text: &[u8]) -> Result<u32, Failure> {
    parse_integer(text)
        .and_then(params::increment)
        .ok_or(Failure::Message(errors::BAD_INCREMENT))
}
