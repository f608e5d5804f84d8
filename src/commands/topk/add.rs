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
//!
//! Ours, on a Top-K that forgets: every item is counted at the write's time (`window.rs`), and
//! its window count is what the heap compares.

use std::ffi::CStr;

use super::errors;
use super::values::{existing_write, Topk};
use crate::commands::args::{checked_pairs, parse_integer};
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::forgetting;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_AND_ITEMS, KEY_ARG,
};
use crate::commands::tracked::Tracked;
use crate::core::topk::{c_string, params, Expelled, TopK, WindowTopK};
use crate::core::Error;

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
    let topk = existing_write(&mut key)?;
    let items = call.args.get(2..).unwrap_or(&[]);
    call.out.array(items.len());
    let pairs = items.iter().map(|item| (*item, 1));
    count_all(call, topk, pairs, c"TOPK.ADD", c"topk.add");
    Ok(Reply::Sent)
}

fn incrby(call: &Call) -> CommandResult {
    call.require_arity(call.args.len().is_multiple_of(2))?;
    let mut key = call.open_for_write()?;
    let topk = existing_write(&mut key)?;
    let pairs = call.args.get(2..).unwrap_or(&[]).len() / 2;
    let Ok(pairs) = parse(call.args) else {
        call.out.array(pairs);
        (0..pairs).for_each(|_| call.out.error(errors::BAD_INCREMENT));
        return Ok(Reply::Sent);
    };
    call.out.array(pairs.len());
    count_all(call, topk, pairs, c"TOPK.INCRBY", c"topk.incrby");
    Ok(Reply::Sent)
}

/// Counts each item by its increment, writing its element of the reply, then replicates the
/// write: as it came, or (ours) behind TOPK.ADVANCE when it opened a slot of a Top-K that
/// forgets by time (`window.rs`), where every item is counted at the write's time.
fn count_all<'a>(
    call: &Call,
    topk: Topk<Tracked<TopK>, Tracked<WindowTopK>>,
    pairs: impl Iterator<Item = (&'a [u8], u32)>,
    command: &'static CStr,
    event: &'static CStr,
) {
    match topk {
        Topk::Classic(mut topk) => {
            for (item, increment) in pairs {
                reply(call, topk.add(item, increment));
            }
            call.finish_write(event);
        }
        Topk::Window(mut topk) => {
            let time = forgetting::write_time(call, &*topk);
            for (item, increment) in pairs {
                reply(call, topk.add(item, increment, time.now));
            }
            forgetting::written::<WindowTopK>(call, command, time.opens, event);
        }
    }
}

/// One item's element of the reply: the item it expelled, or null.
fn reply(call: &Call, counted: Result<Option<Expelled>, Error>) {
    match counted {
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
    checked_pairs(args, increment_of, |text| increment_of(text).unwrap_or(0))
}

/// An increment: an integer in [0, 100000] as Redis parses one.
fn increment_of(text: &[u8]) -> Result<u32, Failure> {
    parse_integer(text)
        .and_then(params::increment)
        .ok_or(Failure::Message(errors::BAD_INCREMENT))
}
