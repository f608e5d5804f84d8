//! `CMS.INITBYDIM key width depth` and `CMS.INITBYPROB key error probability`
//!
//! Create an empty sketch: of `width × depth` counters, or of width `⌈2 / error⌉` and depth
//! `⌈log10(probability) / log10(0.5)⌉` (RedisBloom's arithmetic, `core::cms::Dimensions`).
//! Reply `+OK` in both protocols. Errors, in RedisBloom's order, none with ERR: arity (exactly
//! 4 arguments); `CMS: key already exists` (a key of any type, checked before the other
//! arguments); `CMS: invalid width` / `CMS: invalid depth` (not an integer, or below 1);
//! `CMS: invalid overestimation value` / `CMS: invalid prob value` (not a double in (0, 1));
//! `CMS: invalid init arguments` (computed dimensions below 1, or a product past 2^63);
//! `CMS: Insufficient memory to create the key` (more than the machine holds), or
//! `ERR operation exceeds count-min sketch object memory limit` (`bf-memory-usage-limit`),
//! both before anything is allocated. Replicated verbatim; keyspace events `cms.initbydim`,
//! `cms.initbyprob`.

use std::ffi::CStr;

use super::errors;
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::double::parse_double;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::cms::{CountMinSketch, Dimensions};

pub static INITBYDIM: CommandSpec = CommandSpec {
    name: "cms.initbydim",
    flags: "write deny-oom",
    arity: 4,
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
    ],
    run: initbydim,
};

pub static INITBYPROB: CommandSpec = CommandSpec {
    name: "cms.initbyprob",
    flags: "write deny-oom",
    arity: 4,
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
    ],
    run: initbyprob,
};

fn initbydim(call: &Call) -> CommandResult {
    create(call, parse_by_dimensions, c"cms.initbydim")
}

fn initbyprob(call: &Call) -> CommandResult {
    create(call, parse_by_error, c"cms.initbyprob")
}

/// What both do: an empty key first, then the arguments, then the sketch.
fn create(
    call: &Call,
    parse: fn(&[&[u8]]) -> Result<Dimensions, Failure>,
    event: &'static CStr,
) -> CommandResult {
    let mut key = call.open_for_write()?;
    if !matches!(key.lookup::<CountMinSketch>(), Lookup::Missing) {
        return Err(Failure::Message(errors::KEY_EXISTS));
    }
    let dimensions = parse(call.args)?;
    let sketch = CountMinSketch::new(dimensions, &call.memory()).map_err(errors::fail)?;
    key.store(sketch)?;
    call.finish_write(event);
    Ok(Reply::OK)
}

/// The dimensions CMS.INITBYDIM (`args[0]` `cms.initbydim`) or CMS.INITBYPROB asks for
/// (`args`, the command name first, arity checked): a pure function of them, so it is fuzzed
/// without a server.
pub fn parse(args: &[&[u8]]) -> Result<Dimensions, Failure> {
    if args
        .first()
        .is_some_and(|name| name.eq_ignore_ascii_case(b"cms.initbyprob"))
    {
        parse_by_error(args)
    } else {
        parse_by_dimensions(args)
    }
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
