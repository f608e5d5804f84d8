//! `BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]`
//!
//! Creates an empty filter. Reply `+OK`. Errors, in RedisBloom's order: arity; `ERR bad error
//! rate` / `ERR error rate must be in the range (0.000000, 1.000000)` (above 0.25 is capped
//! silently); `ERR bad capacity` / `ERR capacity must be in the range [1, 1073741824]`;
//! `ERR no expansion`, `ERR bad expansion`, `Nonscaling filters cannot expand` (no ERR),
//! `ERR expansion must be in the range [0, 32768]`; then `WRONGTYPE` or `ERR item exists`.
//! `LAYOUT CLASSIC|FAST` (ours; default: the `bf-layout` config) picks the layout, or
//! `ERR layout must be CLASSIC or FAST`. Unknown extra arguments are ignored, as RedisBloom
//! does. Replicated verbatim; keyspace event `bf.reserve`.

use super::errors::{self, CommandResult, Failure};
use super::reply::Reply;
use super::KEY_ARG;
use super::{
    capped_error_rate, parse_double, parse_integer, ArgKind, ArgSpec, Call, CommandSpec, KeyAccess,
    Lookup,
};
use super::{parse_layout, EXPANSION_ARG, LAYOUT_ARG, MAX_CAPACITY, MAX_EXPANSION, NONSCALING_ARG};
use crate::core::chain::{Chain, Params};

pub static RESERVE: CommandSpec = CommandSpec {
    name: "bf.reserve",
    flags: "write deny-oom",
    arity: -4,
    key: KeyAccess::Write,
    acl_categories: "write fast bloom",
    summary: "Creates a new Bloom Filter",
    complexity: "O(1)",
    since: "1.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("error_rate", ArgKind::Double),
        ArgSpec::new("capacity", ArgKind::Integer),
        EXPANSION_ARG,
        NONSCALING_ARG,
        LAYOUT_ARG,
    ],
    run: reserve,
};

fn reserve(call: &Call) -> CommandResult {
    call.require_arity((4..=7).contains(&call.args.len()))?;
    let params = parse(call)?;
    let key = call.open_for_write()?;
    match call.lookup(&key) {
        Lookup::Filter(_) => return Err(Failure::Message(errors::ITEM_EXISTS)),
        Lookup::WrongType => return Err(Failure::Message(errors::WRONG_TYPE)),
        Lookup::Missing => call.store(&key, Chain::new(params, call.zeroed)?)?,
    }
    call.finish_write(c"bf.reserve");
    Ok(Reply::Ok)
}

fn parse(call: &Call) -> Result<Params, Failure> {
    let error_rate = parse_double(call.arg(2)).ok_or(Failure::Message(errors::BAD_ERROR_RATE))?;
    if !(error_rate > 0.0 && error_rate < 1.0) {
        return Err(Failure::Message(errors::ERROR_RATE_RANGE));
    }
    let capacity = parse_integer(call.arg(3)).ok_or(Failure::Message(errors::BAD_CAPACITY))?;
    if !(1..=MAX_CAPACITY).contains(&capacity) {
        return Err(Failure::Message(errors::CAPACITY_RANGE));
    }
    // Options are looked for among the options only: RedisBloom scans every argument, so a
    // key named "nonscaling" or "expansion" changes the filter (a documented difference).
    let options = call.args.get(4..).unwrap_or(&[]);
    let is = |i: usize, word: &str| {
        options
            .get(i)
            .is_some_and(|a| a.eq_ignore_ascii_case(word.as_bytes()))
    };
    let mut nonscaling =
        call.defaults.expansion == 0 || (0..options.len()).any(|i| is(i, "NONSCALING"));
    let mut expansion = call.defaults.expansion;
    if let Some(at) = (0..options.len()).find(|&i| is(i, "EXPANSION")) {
        let value = options
            .get(at + 1)
            .ok_or(Failure::Message(errors::NO_EXPANSION))?;
        let value = parse_integer(value).ok_or(Failure::Message(errors::BAD_EXPANSION))?;
        if value == 0 {
            nonscaling = true;
        } else if nonscaling {
            return Err(Failure::Message(errors::NONSCALING_CANNOT_EXPAND));
        }
        expansion = u32::try_from(value)
            .ok()
            .filter(|e| i64::from(*e) <= MAX_EXPANSION)
            .ok_or(Failure::Message(errors::EXPANSION_RANGE))?;
    }
    let layout = match (0..options.len()).find(|&i| is(i, "LAYOUT")) {
        Some(at) => parse_layout(options.get(at + 1).copied().unwrap_or_default())?,
        None => call.defaults.layout,
    };
    Ok(Params {
        capacity: capacity as u64,
        error_rate: capped_error_rate(call.ctx, error_rate),
        expansion,
        nonscaling,
        layout,
    })
}
