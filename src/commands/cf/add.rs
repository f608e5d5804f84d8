//! `CF.ADD key item` and `CF.ADDNX key item`
//!
//! CF.ADD adds the item, a duplicate included (CF.COUNT then counts it twice); CF.ADDNX adds
//! it only if CF.EXISTS would deny it. A missing key is created with `cf-initial-size` and
//! the other `cf-*` configs. Reply: a boolean (`:1`/`:0` in RESP2, `#t`/`#f` in RESP3) — true
//! when added, false when CF.ADDNX found the item. Errors: `WRONGTYPE`;
//! `Maximum expansions reached` (a filter of `cf-max-expansions` sub-filters, checked before
//! anything else, present items included); `Filter is full` (EXPANSION 0);
//! `ERR Insufficient memory` (no new sub-filter could be made); `ERR Insufficient memory to
//! create filter`. Replicated verbatim on a boolean reply, never on an error; keyspace event
//! `cf.add`.

use super::errors;
use super::values::filter_for_insert;
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::reply::Reply;
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_AND_ITEM};
use crate::core::cf::{CuckooFilter, ItemHash};
use crate::core::{Error, Memory};

const COMPLEXITY: &str = "O(k + i), where k is the number of sub-filters and i is maxIterations";

pub static ADD: CommandSpec = CommandSpec {
    name: "cf.add",
    flags: "write deny-oom",
    arity: 3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary: "Adds an item to a Cuckoo Filter",
    complexity: COMPLEXITY,
    since: "1.0.0",
    tips: None,
    args: KEY_AND_ITEM,
    run: add,
};

pub static ADDNX: CommandSpec = CommandSpec {
    name: "cf.addnx",
    flags: "write deny-oom",
    arity: 3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary: "Adds an item to a Cuckoo Filter if the item did not exist previously.",
    complexity: COMPLEXITY,
    since: "1.0.0",
    tips: None,
    args: KEY_AND_ITEM,
    run: addnx,
};

/// One way of adding an item: whether it was added, or why it could not be.
type AddItem = fn(&mut CuckooFilter, &ItemHash, &Memory) -> Result<bool, Error>;

fn add(call: &Call) -> CommandResult {
    add_with(call, |filter, item, memory| {
        filter.insert(item, memory).map(|()| true)
    })
}

fn addnx(call: &Call) -> CommandResult {
    add_with(call, CuckooFilter::insert_if_absent)
}

/// The step both share: the filter (created if need be), the item added its way, the reply.
fn add_with(call: &Call, add_item: AddItem) -> CommandResult {
    let mut key = call.open_for_write()?;
    let mut filter = filter_for_insert(call, &mut key, |defaults| Some(defaults.initial_size))?;
    let added =
        add_item(&mut filter, &ItemHash::of(call.arg(2)), &call.memory()).map_err(errors::fail)?;
    call.finish_write(c"cf.add");
    Ok(Reply::bool(added))
}
