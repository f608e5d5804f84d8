//! `CF.COMPACT key`
//!
//! Moves fingerprints from newer sub-filters into free slots of older ones, frees the newest
//! sub-filters while they end up empty, and resets the delete count. Reply `+OK`. A missing
//! key or a key of another type: `Cuckoo filter was not found` (no ERR). It runs on the main
//! thread, in time proportional to the filter's size.
//!
//! Declared a write command: RedisBloom declares it read-only although it changes the filter,
//! so a read-only replica would run it and drift from its master. Replicated verbatim;
//! keyspace event `cf.compact`.

use super::errors;
use super::values::lookup_write;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_ARG};

pub static COMPACT: CommandSpec = CommandSpec {
    name: "cf.compact",
    flags: "write",
    arity: 2,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write slow",
    summary: "Compacts a Cuckoo Filter by moving items into earlier sub-filters",
    complexity: "O(n * k), where n is the total number of slots and k is the number of \
                 sub-filters",
    since: "2.2.0",
    tips: None,
    args: &[KEY_ARG],
    run: compact,
};

fn compact(call: &Call) -> CommandResult {
    let mut key = call.open_for_write()?;
    let Lookup::Found(mut filter) = lookup_write(&mut key) else {
        return Err(Failure::Message(errors::COMPACT_NOT_FOUND));
    };
    filter.compact();
    call.finish_write(c"cf.compact");
    Ok(Reply::OK)
}
