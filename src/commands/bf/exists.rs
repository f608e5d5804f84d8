//! `BF.EXISTS key item` and `BF.MEXISTS key item [item ...]`
//!
//! Whether items may have been added: a boolean (`:1`/`:0` in RESP2), or an array of them.
//! A missing key — and, as in RedisBloom, a key of another type — answers 0 for every item
//! rather than an error. Read-only: a filter that forgets is read at the clock's time (its
//! own, on a replica: `window.rs`), and nothing in it changes.

use super::values::{lookup_read, Bloom};
use super::{valkey, window};
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::lookup::Lookup;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_AND_ITEM, KEY_AND_ITEMS};

pub static EXISTS: CommandSpec = CommandSpec {
    name: "bf.exists",
    flags: "readonly fast",
    arity: 3,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Checks whether an item exists in a Bloom Filter",
    complexity: "O(k), where k is the number of hash functions used by the last sub-filter",
    since: "1.0.0",
    tips: None,
    args: KEY_AND_ITEM,
    run: exists,
};

pub static MEXISTS: CommandSpec = CommandSpec {
    name: "bf.mexists",
    flags: "readonly fast",
    arity: -3,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Checks whether one or more items exist in a Bloom Filter",
    complexity: "O(k * n), where k is the number of hash functions and n is the number of items",
    since: "1.0.0",
    tips: None,
    args: KEY_AND_ITEMS,
    run: mexists,
};

fn exists(call: &Call) -> CommandResult {
    let key = call.open_for_read()?;
    let found = match lookup_read(&key) {
        Lookup::Found(Bloom::Chain(chain)) => chain.contains(call.arg(2)),
        Lookup::Found(Bloom::Window(filter)) => {
            filter.contains(call.arg(2), window::read_time(call, filter))
        }
        Lookup::Found(Bloom::Valkey(object)) => {
            return Ok(Reply::Scalar(valkey::found(object, call.arg(2))))
        }
        Lookup::Missing => return Ok(Reply::Scalar(valkey::absent())),
        Lookup::WrongType => return valkey::other_type().map(Reply::Scalar),
    };
    Ok(Reply::bool(found))
}

fn mexists(call: &Call) -> CommandResult {
    let items = call.args.get(2..).unwrap_or(&[]);
    let key = call.open_for_read()?;
    let held = lookup_read(&key);
    if matches!(held, Lookup::WrongType) {
        valkey::other_type()?; // before the array starts: an error replaces it
    }
    call.out.array(items.len());
    let found = |found| call.out.scalar(Scalar::Bool(found));
    match held {
        Lookup::Found(Bloom::Chain(chain)) => chain.contains_each(items.iter().copied(), found),
        Lookup::Found(Bloom::Window(filter)) => {
            let now = window::read_time(call, filter);
            items
                .iter()
                .for_each(|item| found(filter.contains(item, now)));
        }
        Lookup::Found(Bloom::Valkey(object)) => items
            .iter()
            .for_each(|item| call.out.scalar(valkey::found(object, item))),
        Lookup::Missing => {
            let absent = valkey::absent();
            items.iter().for_each(|_| call.out.scalar(absent));
        }
        Lookup::WrongType => items.iter().for_each(|_| found(false)),
    }
    Ok(Reply::Sent)
}
