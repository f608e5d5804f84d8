//! `BF.INSERT key [CAPACITY cap] [ERROR err] [EXPANSION exp] [NOCREATE] [NONSCALING] ITEMS item [item ...]`
//!
//! BF.MADD with creation parameters. Reply: always an array, as BF.MADD's. Options are
//! recognised by their first letters, as RedisBloom does (`E…` is EXPANSION unless it starts
//! `ER`; `N…` is NOCREATE when its third letter is `C`); the last of a repeated option wins;
//! they are ignored when the filter exists. Errors: arity (no ITEMS, or no items after it, or
//! an option without its value); `Bad error rate`, `Bad capacity`, `Bad expansion`,
//! `Unknown argument received` (all without ERR); `ERR not found` with NOCREATE; `WRONGTYPE`.
//! NONSCALING with a non-zero EXPANSION is accepted (NONSCALING wins), unlike BF.RESERVE.
//! `LAYOUT CLASSIC|FAST` (ours) picks the layout of a new filter.
//! Replicated verbatim; keyspace event `bf.add`.

use super::add::add_items;
use super::errors::{self, CommandResult, Failure};
use super::reply::Reply;
use super::KEY_ARG;
use super::{
    capped_error_rate, parse_double, parse_integer, ArgKind, ArgSpec, Call, CommandSpec, KeyAccess,
};
use super::{parse_layout, EXPANSION_ARG, LAYOUT_ARG, MAX_CAPACITY, MAX_EXPANSION, NONSCALING_ARG};
use crate::core::chain::Params;

pub static INSERT: CommandSpec = CommandSpec {
    name: "bf.insert",
    flags: "write deny-oom",
    arity: -4,
    key: KeyAccess::Write,
    acl_categories: "write bloom",
    summary:
        "Adds one or more items to a Bloom Filter. A filter will be created if it does not exist",
    complexity: "O(k * n), where k is the number of hash functions and n is the number of items",
    since: "1.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("capacity", ArgKind::Integer)
            .token("CAPACITY")
            .optional(),
        ArgSpec::new("error", ArgKind::Double)
            .token("ERROR")
            .optional(),
        EXPANSION_ARG,
        ArgSpec::new("nocreate", ArgKind::PureToken)
            .token("NOCREATE")
            .optional(),
        NONSCALING_ARG,
        LAYOUT_ARG,
        ArgSpec::new("items", ArgKind::PureToken).token("ITEMS"),
        ArgSpec::new("item", ArgKind::String).multiple(),
    ],
    run: insert,
};

/// What BF.INSERT was asked to do.
struct InsertArgs {
    params: Params,
    nocreate: bool,
    /// Index of the first item.
    first_item: usize,
}

fn insert(call: &Call) -> CommandResult {
    call.require_arity(call.args.len() >= 4)?;
    let parsed = parse(call)?;
    let key = call.open_for_write()?;
    let chain = if parsed.nocreate {
        call.lookup(&key).existing()?
    } else {
        call.existing_or_created(&key, parsed.params)?
    };
    let items = call
        .args
        .get(parsed.first_item..)
        .unwrap_or(&[])
        .iter()
        .copied();
    let replies = add_items(chain, items, call.zeroed);
    call.finish_write(c"bf.add");
    Ok(Reply::Array(replies))
}

fn parse(call: &Call) -> Result<InsertArgs, Failure> {
    let defaults = call.defaults;
    let mut capacity = defaults.capacity;
    let mut error_rate = defaults.error_rate;
    let mut expansion = defaults.expansion;
    let mut nonscaling = false;
    let mut nocreate = false;
    let mut layout = defaults.layout;
    let mut i = 2;
    let first_item = loop {
        let Some(option) = call.args.get(i).map(|a| a.to_ascii_lowercase()) else {
            return Err(Failure::WrongArity); // no ITEMS
        };
        let value = || call.args.get(i + 1).copied().ok_or(Failure::WrongArity);
        match (option.first(), option.get(1), option.get(2)) {
            (Some(b'i'), _, _) => break i + 1,
            (Some(b'e'), Some(b'r'), _) => {
                let rate = parse_double(value()?).filter(|r| *r > 0.0 && *r < 1.0);
                error_rate = capped_error_rate(
                    call.ctx,
                    rate.ok_or(Failure::Message(errors::INSERT_BAD_ERROR_RATE))?,
                );
                i += 2;
            }
            (Some(b'e'), _, _) => {
                let factor = parse_integer(value()?).filter(|e| (0..=MAX_EXPANSION).contains(e));
                expansion = factor.ok_or(Failure::Message(errors::INSERT_BAD_EXPANSION))? as u32;
                i += 2;
            }
            (Some(b'c'), _, _) => {
                let cap = parse_integer(value()?).filter(|c| (1..=MAX_CAPACITY).contains(c));
                capacity = cap.ok_or(Failure::Message(errors::INSERT_BAD_CAPACITY))? as u64;
                i += 2;
            }
            (Some(b'l'), _, _) => {
                layout = parse_layout(value()?)?;
                i += 2;
            }
            (Some(b'n'), _, Some(b'c')) => {
                nocreate = true;
                i += 1;
            }
            (Some(b'n'), _, _) => {
                nonscaling = true;
                i += 1;
            }
            _ => return Err(Failure::Message(errors::UNKNOWN_ARGUMENT)),
        }
    };
    if first_item >= call.args.len() {
        return Err(Failure::WrongArity);
    }
    let params = Params {
        capacity,
        error_rate,
        expansion,
        nonscaling: nonscaling || expansion == 0,
        layout,
    };
    Ok(InsertArgs {
        params,
        nocreate,
        first_item,
    })
}
