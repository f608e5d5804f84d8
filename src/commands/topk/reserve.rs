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
//!
//! Ours: `[WINDOW n | TIMESPAN ms] [SLOTS s]` after RedisBloom's arguments makes a Top-K that
//! keeps the heaviest items of the last `n` updates or `ms` milliseconds, its window cut into
//! `s` slots (1 to 8, default 4; `window.rs`), replicated in its explicit form; arity 5, 7, 8
//! or 10, which RedisBloom answers with an arity error. Errors of the options: `TopK: WINDOW
//! must be…`, `TopK: TIMESPAN must be…`, `TopK: SLOTS must be…`, `TopK: SLOTS needs WINDOW or
//! TIMESPAN before it`, `TopK: a Top-K forgets by one of WINDOW or TIMESPAN, given once`,
//! `TopK: unknown argument`.

use super::{errors, window};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::double::parse_double;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::reply::Reply;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::commands::window_options::{WindowOptions, SLOTS_ARG, WINDOW_ARG};
use crate::core::topk::{Params, TopK};
use crate::core::window::Window;

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
        WINDOW_ARG,
        SLOTS_ARG,
    ],
    run: reserve,
};

fn reserve(call: &Call) -> CommandResult {
    // RedisBloom's 3 or 6 arguments; ours, 2 or 4 more that ask for a window.
    call.require_arity(match call.args.len() {
        3 | 6 => true,
        len @ (5 | 7 | 8 | 10) => WindowOptions::asked_for(options(call.args, len)),
        _ => false,
    })?;
    let mut key = call.open_for_write()?;
    if !key.is_empty() {
        return Err(Failure::Message(errors::KEY_EXISTS));
    }
    let ReserveArgs { params, window } = parse(call.args)?;
    if let Some(window) = window {
        window::create(call, &mut key, params, window)?;
        return Ok(Reply::OK);
    }
    let topk = TopK::new(params, &call.memory()).map_err(errors::fail)?;
    call.create(&mut key, topk, c"topk.reserve")
}

/// What TOPK.RESERVE asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReserveArgs {
    /// k, width, depth and decay.
    pub params: Params,
    /// Ours: what the Top-K forgets by and its slots, for a Top-K that forgets.
    pub window: Option<(Window, u64)>,
}

/// The options after RedisBloom's arguments, of `len` arguments: with 6, 8 or 10 width, depth
/// and decay are given and the options follow them, else they follow k.
fn options<'a>(args: &'a [&'a [u8]], len: usize) -> &'a [&'a [u8]] {
    let first = if len.is_multiple_of(2) { 6 } else { 3 };
    args.get(first..).unwrap_or(&[])
}

/// TOPK.RESERVE's parameters (`args`, the command name first, arity checked): a pure function
/// of them, so it is fuzzed without a server. An unparsable integer counts as 0 and an
/// unparsable decay as NaN, which fail the same range checks, in the same order. With 6, 8 or
/// 10 arguments width, depth and decay are given; the options follow them.
pub fn parse(args: &[&[u8]]) -> Result<ReserveArgs, Failure> {
    let arg = |i: usize| args.get(i).copied().unwrap_or_default();
    let integer = |i: usize| parse_integer(arg(i)).unwrap_or(0);
    let shaped = args.len().is_multiple_of(2);
    let params = if shaped {
        let decay = parse_double(arg(5)).unwrap_or(f64::NAN);
        Params::new(integer(2), integer(3), integer(4), decay)
    } else {
        Params::with_defaults(integer(2))
    };
    let params = params.map_err(errors::reserve)?;
    let window = WindowOptions::parse(options(args, args.len()))
        .map_err(|error| errors::WINDOW_OPTIONS.refuse(error))?
        .window();
    Ok(ReserveArgs { params, window })
}
