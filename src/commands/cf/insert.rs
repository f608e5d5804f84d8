//! `CF.INSERT key [CAPACITY capacity] [NOCREATE] ITEMS item [item ...]` and `CF.INSERTNX …`
//!
//! CF.ADD and CF.ADDNX for many items, in order (a duplicate later in the call sees the earlier
//! one), creating a missing key with CAPACITY (default `cf-initial-size`) unless NOCREATE.
//! Options are told apart by their first letter, in any case, as RedisBloom does: `c…` takes
//! the capacity (the last one wins), `n…` is NOCREATE, `i…` starts the items. Reply: an array,
//! one element per item. CF.INSERT: `:1` added, `:-1` not (full, or no new sub-filter could be
//! made); in RESP3 `#t` / `#f`. CF.INSERTNX: integers in both protocols, `1` added, `0`
//! present, `-1` not added. An item refused by the per-filter memory limit gets that error in
//! its place. Errors: arity (no ITEMS, no item, or CAPACITY last); `Bad capacity`,
//! `Capacity must be in the range [cf-bucket-size * 2, 1073741824]` (checked even when the
//! filter exists), `Unknown argument received` — all without ERR; `ERR not found` (NOCREATE);
//! `WRONGTYPE`; `Maximum expansions reached` (before the first item: one call may grow a filter
//! past `cf-max-expansions`). Replicated verbatim once the array is sent; keyspace event `cf.add`.

use super::config;
use super::errors;
use super::rules::{capacities, Defaults};
use super::values::filter_for_insert;
use crate::commands::args::integer_in;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::cf::{CuckooFilter, ItemHash};
use crate::core::{Error, Memory};

const COMPLEXITY: &str = "O(n * (k + i)), where n is the number of items, k is the number of \
                          sub-filters and i is maxIterations";

const ARGS: &[ArgSpec] = &[
    KEY_ARG,
    ArgSpec::new(
        "capacity",
        ArgKind::Block(&[
            ArgSpec::new("capacity", ArgKind::PureToken).token("CAPACITY"),
            ArgSpec::new("capacity", ArgKind::Integer),
        ]),
    )
    .optional(),
    ArgSpec::new("nocreate", ArgKind::PureToken)
        .token("NOCREATE")
        .optional(),
    ArgSpec::new("items", ArgKind::PureToken).token("ITEMS"),
    ArgSpec::new("item", ArgKind::String).multiple(),
];

pub static INSERT: CommandSpec = CommandSpec {
    name: "cf.insert",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary:
        "Adds one or more items to a Cuckoo Filter. A filter will be created if it does not exist",
    complexity: COMPLEXITY,
    since: "1.0.0",
    tips: None,
    args: ARGS,
    run: insert,
};

pub static INSERTNX: CommandSpec = CommandSpec {
    name: "cf.insertnx",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary: "Adds one or more items to a Cuckoo Filter if the items did not exist previously. \
              A filter will be created if it does not exist",
    complexity: COMPLEXITY,
    since: "1.0.0",
    tips: None,
    args: ARGS,
    run: insertnx,
};

/// One way of inserting an item, and its reply.
type InsertItem = fn(&mut CuckooFilter, &ItemHash, &Memory) -> Reply;

fn insert(call: &Call) -> CommandResult {
    insert_with(call, |filter, item, memory| {
        match filter.insert(item, memory) {
            Ok(()) => Reply::bool(true),
            Err(error) => not_inserted(error, Scalar::IntegerOrFalse(-1)),
        }
    })
}

fn insertnx(call: &Call) -> CommandResult {
    insert_with(call, |filter, item, memory| {
        match filter.insert_if_absent(item, memory) {
            Ok(added) => Reply::integer(i64::from(added)),
            Err(error) => not_inserted(error, Scalar::Integer(-1)),
        }
    })
}

/// The reply for an item that could not be inserted: `failed`, or the memory limit's error.
fn not_inserted(error: Error, failed: Scalar) -> Reply {
    match error {
        Error::OverLimit => Reply::Error(errors::text(error)),
        _ => Reply::Scalar(failed),
    }
}

/// The step both share: parse, the filter (created if need be), each item its way.
fn insert_with(call: &Call, insert_item: InsertItem) -> CommandResult {
    let parsed = parse(call.args, &config::defaults())?;
    let mut key = call.open_for_write()?;
    let mut filter = filter_for_insert(call, &mut key, |_| {
        (!parsed.nocreate).then_some(parsed.capacity)
    })?;
    let items = call.args.get(parsed.first_item..).unwrap_or(&[]);
    let memory = call.memory();
    let replies = items
        .iter()
        .map(|item| insert_item(&mut filter, &ItemHash::of(item), &memory))
        .collect();
    call.finish_write(c"cf.add");
    Ok(Reply::Array(replies))
}

/// What the options asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InsertArgs {
    /// The capacity of a filter the command creates.
    pub capacity: u64,
    pub nocreate: bool,
    /// Index of the first item.
    pub first_item: usize,
}

/// CF.INSERT's and CF.INSERTNX's arguments (`args`, the command name first) with the `cf-*`
/// configuration's `defaults`: a pure function of them, so it is fuzzed without a server.
pub fn parse(args: &[&[u8]], defaults: &Defaults) -> Result<InsertArgs, Failure> {
    let mut capacity = defaults.initial_size;
    let mut nocreate = false;
    let mut i = 2;
    let first_item = loop {
        let word = args.get(i).ok_or(Failure::WrongArity)?;
        match word.first().map(u8::to_ascii_lowercase) {
            Some(b'c') => {
                let value = args.get(i + 1).ok_or(Failure::WrongArity)?;
                let range = capacities(defaults.bucket_size);
                let n = integer_in(value, &range)
                    .map_err(|bad| bad.fail(errors::BAD_CAPACITY, errors::INSERT_CAPACITY_RANGE))?;
                capacity = n as u64;
                i += 2;
            }
            Some(b'n') => {
                nocreate = true;
                i += 1;
            }
            Some(b'i') => break i + 1,
            _ => return Err(Failure::Message(errors::UNKNOWN_ARGUMENT)),
        }
    };
    if first_item >= args.len() {
        return Err(Failure::WrongArity);
    }
    Ok(InsertArgs {
        capacity,
        nocreate,
        first_item,
    })
}
