//! What making and filling valkey-bloom's filters share: the configured defaults and limits,
//! and adding items with their replication.

use std::ffi::CStr;

use super::super::{config, errors};
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::reply::Reply;
use crate::commands::server::{Arg, Replicated};
use crate::commands::tracked::Tracked;
use crate::core::bf::valkey::object::AddError;
use crate::core::bf::valkey::{Params, ValkeyBloom};
use crate::core::{no_server_bound, try_vec, Memory};

/// valkey-bloom's keyspace events.
pub(super) const ADD_EVENT: &CStr = c"bloom.add";
pub(super) const RESERVE_EVENT: &CStr = c"bloom.reserve";

/// Our options, which make a filter of ours under either flavour.
pub(super) const OURS: [&str; 4] = ["LAYOUT", "WINDOW", "TIMESPAN", "AT"];

/// The parameters of a filter made without explicit ones: valkey-bloom's configs, a random
/// seed drawn if they ask for one.
pub(super) fn defaults(call: &Call) -> Params {
    config::valkey_params(|| {
        let mut seed = [0; 32];
        call.random_bytes(&mut seed);
        seed
    })
}

/// valkey-bloom's object limit (`bloom-memory-usage-limit`), or redis-bf's where lower.
pub(super) fn object_limit(call: &Call) -> u64 {
    config::valkey_object_limit().min(call.memory().limit)
}

/// The bound on an object's size for this command: none when replayed.
pub(in crate::commands::bf) fn limit(call: &Call) -> u64 {
    if call.replayed() {
        u64::MAX
    } else {
        object_limit(call)
    }
}

fn add_error(error: AddError) -> &'static CStr {
    match error {
        AddError::Full => errors::FILTER_FULL,
        AddError::FalsePositiveDegrades => errors::FP_DEGRADES,
        AddError::CapacityOverflow => errors::BAD_CAPACITY,
        AddError::Memory(error) => errors::text(error),
    }
}

/// How many of `replies` are items that were tried and did not fail (a failure ends them).
pub(super) fn tried(replies: &[Reply]) -> usize {
    match replies.last() {
        Some(Reply::Error(_)) => replies.len() - 1,
        _ => replies.len(),
    }
}

/// `BF.ADD` on a valkey-bloom filter: 1 if the item was added, 0 if it was there.
pub fn add(call: &Call, object: &mut Tracked<ValkeyBloom>) -> CommandResult {
    let added = object
        .add(call.arg(2), limit(call), &memory(call))
        .map_err(|e| Failure::Message(add_error(e)))?;
    if added {
        call.finish_write(ADD_EVENT);
    }
    Ok(Reply::integer(i64::from(added)))
}

/// `BF.MADD` (items from argument 2) or `BF.INSERT` (from `first`) on a valkey-bloom filter.
pub fn add_items(call: &Call, object: &mut Tracked<ValkeyBloom>, first: usize) -> CommandResult {
    let items = call.args.get(first..).unwrap_or(&[]);
    let replies = add_each(call, object, items)?;
    replicate_adds(call, first, &replies, items.len());
    Ok(Reply::Array(replies))
}

/// Adds each item: a non-scaling object refuses the whole command if the new items do not
/// fit (valkey-bloom 1.0's check before a multi-item add); otherwise one reply per item, the
/// first failure the last.
pub(super) fn add_each(
    call: &Call,
    object: &mut ValkeyBloom,
    items: &[&[u8]],
) -> Result<Vec<Reply>, Failure> {
    if !object.fits(items) {
        return Err(Failure::Message(errors::FILTER_FULL));
    }
    let (limit, memory) = (limit(call), memory(call));
    let mut replies =
        try_vec(items.len()).map_err(|_| Failure::Message(errors::INSUFFICIENT_MEMORY))?;
    for item in items {
        match object.add(item, limit, &memory) {
            Ok(added) => replies.push(Reply::integer(i64::from(added))),
            Err(error) => {
                replies.push(Reply::Error(add_error(error)));
                break;
            }
        }
    }
    Ok(replies)
}

/// Replicates adds that added an item: verbatim when every item was tried, else as the
/// `BF.MADD` of the items tried before the failure (a replica skips the limit, so it would
/// add the rest).
fn replicate_adds(call: &Call, first: usize, replies: &[Reply], items: usize) {
    if !replies.contains(&Reply::integer(1)) {
        return;
    }
    let tried = tried(replies);
    if tried == items {
        call.finish_write(ADD_EVENT);
        return;
    }
    let mut args = vec![Arg::Own(1)];
    args.extend((first..first + tried).map(Arg::Own));
    let madd = Replicated {
        command: c"BF.MADD",
        args,
    };
    call.written_as(&[ADD_EVENT], &[madd]);
}

/// The memory bounds of a valkey-bloom filter: its object limit and the machine's memory, not
/// `maxmemory`, which valkey-bloom leaves to eviction (a filter larger than `maxmemory` is
/// made, and other keys evicted).
pub(super) fn memory(call: &Call) -> Memory {
    Memory {
        server_bound: no_server_bound,
        ..call.memory()
    }
}
