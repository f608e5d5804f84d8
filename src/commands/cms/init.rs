//! `CMS.INITBYDIM key width depth [CELL_SIZE n] [WINDOW n | TIMESPAN ms] [SLOTS s]` and
//! `CMS.INITBYPROB key error probability [CELL_SIZE n] [WINDOW n | TIMESPAN ms] [SLOTS s]`
//!
//! Create an empty sketch: of `width × depth` counters, or of width `⌈2 / error⌉` and depth
//! `⌈log10(probability) / log10(0.5)⌉` (RedisBloom's arithmetic, `core::cms::Dimensions`),
//! each counter of `n` bytes (1, 2, 4 or 8; 4 without `CELL_SIZE`, RedisBloom 8.12). Ours:
//! with `WINDOW n` a sketch that counts only the last `n` updates (item/increment pairs), with
//! `TIMESPAN ms` only the last `ms` milliseconds, its window cut into `s` slots (1 to 8,
//! default 4; it forgets within a slot after the window: `window.rs`). Reply `+OK` in both
//! protocols. Errors, in RedisBloom's order, none with ERR: arity (4 or 6 arguments;
//! ours, 8 or 10); `CMS: key already exists` (a key of any type, checked before the other
//! arguments); `CMS: invalid width` / `CMS: invalid depth` (not an integer, or below 1);
//! `CMS: invalid overestimation value` / `CMS: invalid prob value` (not a double in (0, 1));
//! `CMS: invalid init arguments` (computed dimensions below 1, or a product past 2^63);
//! `CMS: unknown argument` (a keyword other than these, in any case, or out of place); `CMS:
//! CELL_SIZE must be 1, 2, 4 or 8`; ours, a size other than 4 while `cms-rdb-encoding` is 0,
//! and the window options' own (`errors.rs`); `CMS: Insufficient memory to create the key`
//! (more than the machine holds), or `ERR operation exceeds count-min sketch object memory
//! limit` (`bf-memory-usage-limit`), both before anything is allocated. Replicated verbatim
//! (a sketch that forgets: in its explicit form, `window.rs`); keyspace events
//! `cms.initbydim`, `cms.initbyprob`. RedisBloom 2.8 answers every form with a window by an
//! arity error, 8.12 by `CMS: unknown argument`: never silently.

use std::ffi::CStr;

use super::{config, errors, window};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::double::parse_double;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::reply::Reply;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::commands::window_options::{WindowOptions, SLOTS_ARG, WINDOW_ARG};
use crate::core::cms::{CellSize, CountMinSketch, Dimensions};
use crate::core::window::Window;

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
        WINDOW_ARG,
        SLOTS_ARG,
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
        WINDOW_ARG,
        SLOTS_ARG,
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

fn initbydim(call: &Call) -> CommandResult {
    create(call, c"cms.initbydim")
}

fn initbyprob(call: &Call) -> CommandResult {
    create(call, c"cms.initbyprob")
}

/// What both do: the arity, an empty key, the arguments, then the sketch.
fn create(call: &Call, event: &'static CStr) -> CommandResult {
    // RedisBloom's 4 or 6 arguments; ours, 8 or 10 that ask for a window.
    let options = call.args.get(4..).unwrap_or(&[]);
    call.require_arity(match call.args.len() {
        4 | 6 => true,
        8 | 10 => WindowOptions::asked_for(options),
        _ => false,
    })?;
    let mut key = call.open_for_write()?;
    if !key.is_empty() {
        return Err(Failure::Message(errors::KEY_EXISTS));
    }
    let InitArgs { dimensions, window } = parse(call.args)?;
    if let Some(window) = window {
        window::create(call, &mut key, dimensions, window, event)?;
        return Ok(Reply::OK);
    }
    if config::legacy_cells() && dimensions.cell_size() != CellSize::Four {
        return Err(Failure::Message(errors::CELL_SIZE_LEGACY));
    }
    let sketch = CountMinSketch::new(dimensions, &call.memory()).map_err(errors::fail)?;
    call.create(&mut key, sketch, event)
}

/// What CMS.INITBYDIM or CMS.INITBYPROB asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InitArgs {
    /// The dimensions and cell size.
    pub dimensions: Dimensions,
    /// Ours: what the sketch forgets by and its slots, for a sketch that forgets.
    pub window: Option<(Window, u64)>,
}

/// What CMS.INITBYDIM (`args[0]` `cms.initbydim`) or CMS.INITBYPROB asks for (`args`, the
/// command name first, arity checked): a pure function of them, so it is fuzzed without a
/// server. The dimensions first, in RedisBloom's order, then the options after them by
/// position: `[CELL_SIZE n]` (RedisBloom 8.12), or ours, `[WINDOW n | TIMESPAN ms] [SLOTS s]`.
pub fn parse(args: &[&[u8]]) -> Result<InitArgs, Failure> {
    let by_error = args
        .first()
        .is_some_and(|name| name.eq_ignore_ascii_case(b"cms.initbyprob"));
    let dimensions = if by_error {
        parse_by_error(args)
    } else {
        parse_by_dimensions(args)
    }?;
    // `[CELL_SIZE n]` first (RedisBloom 8.12's), else ours.
    let pairs = args.get(4..).unwrap_or(&[]);
    let (cell_size, options) = match pairs {
        [keyword, value, rest @ ..] if keyword.eq_ignore_ascii_case(b"CELL_SIZE") => {
            (cell_size_of(value)?, rest)
        }
        _ => (CellSize::DEFAULT, pairs),
    };
    // Options that ask for no window are RedisBloom 8.12's: anything but CELL_SIZE is unknown.
    if !WindowOptions::asked_for(options) && !options.is_empty() {
        return Err(Failure::Message(errors::UNKNOWN_ARGUMENT));
    }
    let window = WindowOptions::parse(options)
        .map_err(|error| errors::WINDOW_OPTIONS.refuse(error))?
        .window();
    if window.is_some() && options.len() < pairs.len() {
        return Err(Failure::Message(errors::CELL_SIZE_WITH_WINDOW));
    }
    Ok(InitArgs {
        dimensions: dimensions.with_cell_size(cell_size),
        window,
    })
}

/// `[CELL_SIZE n]`'s value (RedisBloom 8.12's `parseCellSize`): 1, 2, 4 or 8.
fn cell_size_of(value: &[u8]) -> Result<CellSize, Failure> {
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
