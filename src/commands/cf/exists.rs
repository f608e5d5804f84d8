//! `CF.EXISTS key item`, `CF.MEXISTS key item [item ...]` and `CF.COUNT key item`
//!
//! CF.EXISTS: whether the item may have been added — a boolean (`:1`/`:0` in RESP2,
//! `#t`/`#f` in RESP3); CF.MEXISTS an array of them. CF.COUNT: how many times it may have been
//! added, an integer in both protocols (an item whose two buckets are one bucket counts twice,
//! as in RedisBloom). A missing key — and, as in RedisBloom, a key of another type — answers
//! false or 0 rather than an error. Read-only, never replicated.

use super::values::lookup_read;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_AND_ITEM, KEY_AND_ITEMS};
use crate::core::cf::{CuckooFilter, ItemHash};

pub static EXISTS: CommandSpec = CommandSpec {
    name: "cf.exists",
    flags: "readonly fast",
    arity: 3,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Checks whether one or more items exist in a Cuckoo Filter",
    complexity: "O(k), where k is the number of sub-filters",
    since: "1.0.0",
    tips: None,
    args: KEY_AND_ITEM,
    run: exists,
};

pub static MEXISTS: CommandSpec = CommandSpec {
    name: "cf.mexists",
    flags: "readonly fast",
    arity: -3,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Checks whether one or more items exist in a Cuckoo Filter",
    complexity: "O(k * n), where k is the number of sub-filters and n is the number of items",
    since: "1.0.0",
    tips: None,
    args: KEY_AND_ITEMS,
    run: mexists,
};

pub static COUNT: CommandSpec = CommandSpec {
    name: "cf.count",
    flags: "readonly fast",
    arity: 3,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Return the number of times an item might be in a Cuckoo Filter",
    complexity: "O(k), where k is the number of sub-filters",
    since: "1.0.0",
    tips: None,
    args: KEY_AND_ITEM,
    run: count,
};

fn exists(call: &Call) -> CommandResult {
    Ok(Reply::bool(answer(call, |filter, item| {
        filter.contains(item)
    })?))
}

fn count(call: &Call) -> CommandResult {
    Ok(Reply::count(answer(call, CuckooFilter::count)?))
}

fn mexists(call: &Call) -> CommandResult {
    let items = call.args.get(2..).unwrap_or(&[]);
    let key = call.open_for_read()?;
    // Each answer is sent as it is found: no array of replies is built.
    call.out.array(items.len());
    let found = |found| call.out.scalar(Scalar::Bool(found));
    match lookup_read(&key) {
        Lookup::Found(filter) => filter.contains_each(items.iter().copied(), found),
        Lookup::Missing | Lookup::WrongType => items.iter().for_each(|_| found(false)),
    }
    Ok(Reply::Sent)
}

/// `ask` of the filter about the item (argument 2); the default (false, 0) without a filter.
fn answer<T: Default>(
    call: &Call,
    ask: impl FnOnce(&CuckooFilter, &ItemHash) -> T,
) -> Result<T, Failure> {
    let key = call.open_for_read()?;
    Ok(match lookup_read(&key) {
        Lookup::Found(filter) => ask(filter, &ItemHash::of(call.arg(2))),
        Lookup::Missing | Lookup::WrongType => T::default(),
    })
}
