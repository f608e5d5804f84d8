//! `CMS.INITBYDIM key width depth [CELL_SIZE n]` and
//! `CMS.INITBYPROB key error probability [CELL_SIZE n]`
//!
//! Create an empty sketch: of `width × depth` counters, or of width `⌈2 / error⌉` and depth
//! `⌈log10(probability) / log10(0.5)⌉` (RedisBloom's arithmetic, `core::cms::Dimensions`),
//! each counter of `n` bytes (1, 2, 4 or 8; 4 without `CELL_SIZE`, RedisBloom 8.12). Reply
//! `+OK` in both protocols. Errors, in RedisBloom's order, none with ERR: arity (4 or 6
//! arguments); `CMS: key already exists` (a key of any type, checked before the other
//! arguments); `CMS: invalid width` / `CMS: invalid depth` (not an integer, or below 1);
//! `CMS: invalid overestimation value` / `CMS: invalid prob value` (not a double in (0, 1));
//! `CMS: invalid init arguments` (computed dimensions below 1, or a product past 2^63);
//! `CMS: unknown argument` (a fifth argument other than `CELL_SIZE`, in any case); `CMS:
//! CELL_SIZE must be 1, 2, 4 or 8`; ours, a size other than 4 while `cms-rdb-encoding` is 0;
//! `CMS: Insufficient memory to create the key` (more than the machine holds), or
//! `ERR operation exceeds count-min sketch object memory limit` (`bf-memory-usage-limit`),
//! both before anything is allocated. Replicated verbatim; keyspace events `cms.initbydim`,
//! `cms.initbyprob`.

use std::ffi::CStr;

use super::{config, errors};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::double::parse_double;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::cms::{CellSize, CountMinSketch, Dimensions};

pub static INITBYDIM: CommandSpec = CommandSpec {
    name: "cms.initbydim",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write fast",
    summary: "Initializes a Count-Min Sketch to dimensions specified by user",
    complexity: "O(1)",
    since: "2.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("width", ArgKind::Integer),
        ArgSpec::new("depth", ArgKind::Integer),
        CELL_SIZE_ARG,
    ],
    run: initbydim,
};

pub static INITBYPROB: CommandSpec = CommandSpec {
    name: "cms.initbyprob",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write fast",
    summary: "Initializes a Count-Min Sketch to accommodate requested tolerances.",
    complexity: "O(1)",
    since: "2.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("error", ArgKind::Double),
        ArgSpec::new("probability", ArgKind::Double),
        CELL_SIZE_ARG,
    ],
    run: initbyprob,
};

/// `[CELL_SIZE n]`, after the dimensions.
const CELL_SIZE_ARG: ArgSpec = ArgSpec::new(
    "cell_size",
    ArgKind::Block(&[
        ArgSpec::new("cell_size", ArgKind::PureToken).token("CELL_SIZE"),
        ArgSpec::new("n", ArgKind::Integer),
    ]),
)
.optional();

/// Arguments with `CELL_SIZE n`, the command name first.
const WITH_CELL_SIZE: usize = 6;

fn initbydim(call: &Call) -> CommandResult {
    create(call, parse_by_dimensions, c"cms.initbydim")
}

fn initbyprob(call: &Call) -> CommandResult {
    create(call, parse_by_error, c"cms.initbyprob")
}

/// What both do: the arity, an empty key, the arguments, then the sketch.
fn create(
    call: &Call,
    parse: fn(&[&[u8]]) -> Result<Dimensions, Failure>,
    event: &'static CStr,
) -> CommandResult {
    call.require_arity(matches!(call.args.len(), 4 | WITH_CELL_SIZE))?;
    let mut key = call.open_for_write()?;
    if !matches!(key.lookup::<CountMinSketch>(), Lookup::Missing) {
        return Err(Failure::Message(errors::KEY_EXISTS));
    }
    let dimensions = sized(call.args, parse)?;
    if config::legacy_cells() && dimensions.cell_size() != CellSize::Four {
        return Err(Failure::Message(errors::CELL_SIZE_LEGACY));
    }
    let sketch = CountMinSketch::new(dimensions, &call.memory()).map_err(errors::fail)?;
    key.store(sketch)?;
    call.finish_write(event);
    Ok(Reply::OK)
}

/// The dimensions CMS.INITBYDIM (`args[0]` `cms.initbydim`) or CMS.INITBYPROB asks for
/// (`args`, the command name first, arity checked): a pure function of them, so it is fuzzed
/// without a server.
pub fn parse(args: &[&[u8]]) -> Result<Dimensions, Failure> {
    let by_error = args
        .first()
        .is_some_and(|name| name.eq_ignore_ascii_case(b"cms.initbyprob"));
    sized(
        args,
        if by_error {
            parse_by_error
        } else {
            parse_by_dimensions
        },
    )
}

/// The dimensions `parse` reads, then the cell size, in RedisBloom's order.
fn sized(
    args: &[&[u8]],
    parse: fn(&[&[u8]]) -> Result<Dimensions, Failure>,
) -> Result<Dimensions, Failure> {
    Ok(parse(args)?.with_cell_size(cell_size(args)?))
}

/// `[CELL_SIZE n]` (RedisBloom 8.12's `parseCellSize`): the keyword in any case, then 1, 2,
/// 4 or 8.
fn cell_size(args: &[&[u8]]) -> Result<CellSize, Failure> {
    let (Some(keyword), Some(value)) = (args.get(4), args.get(5)) else {
        return Ok(CellSize::DEFAULT);
    };
    if !keyword.eq_ignore_ascii_case(b"CELL_SIZE") {
        return Err(Failure::Message(errors::UNKNOWN_ARGUMENT));
    }
    parse_integer(value)
        .and_then(CellSize::new)
        .ok_or(Failure::Message(errors::CELL_SIZE_VALUES))
}

/// `width depth`. Unparsable counts as 0, which fails the same check, in the same order.
fn parse_by_dimensions(args: &[&[u8]]) -> Result<Dimensions, Failure> {
    let number = |i: usize| parse_integer(args.get(i).copied().unwrap_or_default()).unwrap_or(0);
    Dimensions::new(number(2), number(3)).map_err(errors::init)
}

/// `error probability`. Unparsable counts as NaN, which fails the same range check.
fn parse_by_error(args: &[&[u8]]) -> Result<Dimensions, Failure> {
    let number =
        |i: usize| parse_double(args.get(i).copied().unwrap_or_default()).unwrap_or(f64::NAN);
    Dimensions::for_error(number(2), number(3)).map_err(errors::init)
}
