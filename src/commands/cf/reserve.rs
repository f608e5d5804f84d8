//! `CF.RESERVE key capacity [BUCKETSIZE bucketsize] [MAXITERATIONS maxiterations] [EXPANSION expansion]`
//!
//! Creates an empty filter of `next_pow2(capacity / bucketsize)` buckets (at least one). Reply
//! `+OK` in both protocols. Errors, in RedisBloom's order, without ERR unless shown: arity (an
//! even number of arguments); `Bad capacity`; `Couldn't parse MAXITERATIONS`,
//! `MAXITERATIONS: value must be in the range [1, 65535]`; `Couldn't parse BUCKETSIZE`,
//! `BUCKETSIZE: value must be in the range [1, <max>]` (max: half of `cf-initial-size`, at most
//! 255); `Couldn't parse EXPANSION`, `EXPANSION: value must be in the range [0, 32768]`;
//! `Capacity must be in the range [2 * BUCKETSIZE, 1073741824]`; then `WRONGTYPE`,
//! `ERR item exists`, `ERR Insufficient memory to create filter`.
//!
//! Options are looked for among the arguments after the capacity (RedisBloom searches every
//! argument, the key included); the first of a repeated option wins, unknown words are ignored,
//! and an option word with no value after it is `Couldn't parse …` (RedisBloom reads past its
//! arguments and crashes). Omitted options take `cf-bucket-size`, `cf-max-iterations` and
//! `cf-expansion-factor`. Replicated verbatim; keyspace event `cf.reserve`.

use std::ffi::CStr;
use std::ops::RangeInclusive;

use super::config;
use super::errors;
use super::rules::{bucket_sizes, capacities, Defaults, EXPANSION, MAX_ITERATIONS};
use super::values::create;
use crate::commands::args::{integer_in, parse_integer};
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::cf::{CuckooFilter, Params};

pub static RESERVE: CommandSpec = CommandSpec {
    name: "cf.reserve",
    flags: "write deny-oom",
    arity: -3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write fast",
    summary: "Creates a new Cuckoo Filter",
    complexity: "O(1)",
    since: "1.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("capacity", ArgKind::Integer),
        // Each option a block of its token and value, as RedisBloom 8 documents it.
        ArgSpec::new(
            "bucketsize",
            ArgKind::Block(&[ArgSpec::new("bucketsize", ArgKind::Integer)]),
        )
        .token("BUCKETSIZE")
        .optional(),
        ArgSpec::new(
            "maxiterations",
            ArgKind::Block(&[ArgSpec::new("maxiterations", ArgKind::Integer)]),
        )
        .token("MAXITERATIONS")
        .optional(),
        ArgSpec::new(
            "expansion",
            ArgKind::Block(&[ArgSpec::new("expansion", ArgKind::Integer)]),
        )
        .token("EXPANSION")
        .optional(),
    ],
    run: reserve,
};

fn reserve(call: &Call) -> CommandResult {
    call.require_arity(call.args.len() % 2 == 1)?;
    let params = parse(call.args, &config::defaults())?;
    let mut key = call.open_for_write()?;
    match key.peek(|value| value.is::<CuckooFilter>()) {
        Lookup::Found(()) => Err(Failure::Message(errors::ITEM_EXISTS)),
        Lookup::WrongType => Err(Failure::Message(errors::WRONG_TYPE)),
        Lookup::Missing => call.create(&mut key, create(call, params)?, c"cf.reserve"),
    }
}

/// CF.RESERVE's arguments (`args`, the command name first, arity checked) with the `cf-*`
/// configuration's `defaults`: a pure function of them, so it is fuzzed without a server.
pub fn parse(args: &[&[u8]], defaults: &Defaults) -> Result<Params, Failure> {
    let capacity = parse_integer(args.get(2).copied().unwrap_or_default())
        .ok_or(Failure::Message(errors::BAD_CAPACITY))?;
    let max_iterations = option(
        args,
        "MAXITERATIONS",
        errors::BAD_MAX_ITERATIONS,
        &MAX_ITERATIONS,
        errors::MAX_ITERATIONS_RANGE,
    )?
    .map_or(defaults.max_iterations, |n| n as u16);
    let max_bucket_size = defaults.max_bucket_size();
    let bucket_size = option(
        args,
        "BUCKETSIZE",
        errors::BAD_BUCKET_SIZE,
        &bucket_sizes(defaults.initial_size),
        errors::bucket_size_range(u8::try_from(max_bucket_size).unwrap_or(u8::MAX)),
    )?
    .map_or(defaults.bucket_size, |n| n as u16);
    let expansion = option(
        args,
        "EXPANSION",
        errors::BAD_EXPANSION,
        &EXPANSION,
        errors::EXPANSION_RANGE,
    )?
    .map_or(defaults.expansion, |n| n as u16);
    if !capacities(bucket_size).contains(&capacity) {
        return Err(Failure::Message(errors::RESERVE_CAPACITY_RANGE));
    }
    Ok(Params {
        capacity: capacity as u64,
        bucket_size,
        max_iterations,
        expansion,
    })
}

/// The value of option `word` (any case) among the arguments after the capacity, checked
/// against `range`; `None` when the option is absent.
fn option(
    args: &[&[u8]],
    word: &str,
    not_a_number: &'static CStr,
    range: &RangeInclusive<i64>,
    out_of_range: &'static CStr,
) -> Result<Option<i64>, Failure> {
    let options = args.get(3..).unwrap_or(&[]);
    let Some(at) = options
        .iter()
        .position(|a| a.eq_ignore_ascii_case(word.as_bytes()))
    else {
        return Ok(None);
    };
    let value = options.get(at + 1).copied().unwrap_or_default();
    integer_in(value, range)
        .map(Some)
        .map_err(|bad| bad.fail(not_a_number, out_of_range))
}
