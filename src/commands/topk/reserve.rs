//! `TOPK.RESERVE key topk [width depth decay]`
//!
//! Creates an empty Top-K keeping `topk` items, with `width × depth` buckets and the decay
//! base `decay` (defaults 8, 7 and 0.9). Reply `+OK` in both protocols. Errors, in
//! RedisBloom 8's order: arity (3 or 6 arguments); `TopK: key already exists` (a key of any
//! type, checked before the other arguments); `TopK: invalid k`, `TopK: invalid width`,
//! `TopK: invalid depth` (not an integer in [1, 4294967295]: RedisBloom 2.8.2 cut k to 32
//! bits, and aborted the server on 2^32); `TopK: invalid decay value. must be '<= 1' & '> 0'`;
//! `ERR Insufficient memory to create topk data structure` (more than the machine holds), or
//! `ERR operation exceeds topk object memory limit` (`bf-memory-usage-limit`), both before
//! anything is allocated. Replicated verbatim; keyspace event `topk.reserve`.

use super::errors;
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::double::parse_double;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::topk::{Params, TopK};

pub static RESERVE: CommandSpec = CommandSpec {
    name: "topk.reserve",
    flags: "write deny-oom",
    arity: -3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write fast",
    summary: "Initializes a Top-K sketch with specified parameters",
    complexity: "O(1)",
    since: "2.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("topk", ArgKind::Integer),
        ArgSpec::new(
            "params",
            ArgKind::Block(&[
                ArgSpec::new("width", ArgKind::Integer),
                ArgSpec::new("depth", ArgKind::Integer),
                ArgSpec::new("decay", ArgKind::Double),
            ]),
        )
        .optional(),
    ],
    run: reserve,
};

fn reserve(call: &Call) -> CommandResult {
    call.require_arity(matches!(call.args.len(), 3 | 6))?;
    let mut key = call.open_for_write()?;
    if !matches!(key.lookup::<TopK>(), Lookup::Missing) {
        return Err(Failure::Message(errors::KEY_EXISTS));
    }
    let params = parse(call.args)?;
    let topk = TopK::new(params, &call.memory()).map_err(errors::fail)?;
    key.store(topk)?;
    call.finish_write(c"topk.reserve");
    Ok(Reply::OK)
}

/// TOPK.RESERVE's parameters (`args`, the command name first, 3 or 6 of them): a pure
/// function of them, so it is fuzzed without a server. An unparsable integer counts as 0 and
/// an unparsable decay as NaN, which fail the same range checks, in the same order.
pub fn parse(args: &[&[u8]]) -> Result<Params, Failure> {
    let arg = |i: usize| args.get(i).copied().unwrap_or_default();
    let integer = |i: usize| parse_integer(arg(i)).unwrap_or(0);
    let params = if args.len() == 6 {
        let decay = parse_double(arg(5)).unwrap_or(f64::NAN);
        Params::new(integer(2), integer(3), integer(4), decay)
    } else {
        Params::with_defaults(integer(2))
    };
    params.map_err(errors::reserve)
}
