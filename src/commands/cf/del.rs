//! `CF.DEL key item`
//!
//! Removes one copy of the item's fingerprint, newest sub-filter first; when there are several
//! sub-filters and deletes since the last compaction exceed a tenth of the items, compacts as
//! RedisBloom does (stopping at the first sub-filter it cannot empty). Deleting an item never
//! added may remove another item's fingerprint, as in any Cuckoo filter. Reply: a boolean
//! (`:1`/`:0` in RESP2, `#t`/`#f` in RESP3), true when a copy was removed. A missing key or a
//! key of another type: `Not found` (no ERR, as RedisBloom). Replicated verbatim whenever the
//! key holds a filter, found or not (RedisBloom replicates before it deletes); keyspace event
//! `cf.del`.

use super::errors;
use super::values::lookup_write;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_AND_ITEM};
use crate::core::cf::ItemHash;

pub static DEL: CommandSpec = CommandSpec {
    name: "cf.del",
    flags: "write fast",
    arity: 3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary: "Deletes an item from a Cuckoo Filter",
    complexity: "O(k), where k is the number of sub-filters",
    since: "1.0.0",
    tips: None,
    args: KEY_AND_ITEM,
    run: del,
};

fn del(call: &Call) -> CommandResult {
    let mut key = call.open_for_write()?;
    let Lookup::Found(mut filter) = lookup_write(&mut key) else {
        return Err(Failure::Message(errors::DEL_NOT_FOUND));
    };
    let deleted = filter.delete(&ItemHash::of(call.arg(2)));
    call.finish_write(c"cf.del");
    Ok(Reply::bool(deleted))
}
