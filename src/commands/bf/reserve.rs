//! `BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING] [WINDOW | TIMESPAN ms]`
//!
//! Creates an empty filter. Reply `+OK`. Errors, in RedisBloom's order: arity; `ERR bad error
//! rate` / `ERR error rate must be in the range (0.000000, 1.000000)` (above 0.25 is capped
//! silently); `ERR bad capacity` / `ERR capacity must be in the range [1, 1073741824]`;
//! `ERR no expansion`, `ERR bad expansion`, `Nonscaling filters cannot expand` (no ERR),
//! `ERR expansion must be in the range [0, 32768]`; then `WRONGTYPE` or `ERR item exists`.
//! `LAYOUT CLASSIC|FAST` (ours; default: the `bf-layout` config) picks the layout, or
//! `ERR layout must be CLASSIC or FAST`. Unknown extra arguments are ignored, as RedisBloom
//! does. Replicated verbatim; keyspace event `bf.reserve`.
//!
//! Ours: `WINDOW` makes a filter that forgets all but the last `capacity` additions,
//! `TIMESPAN ms` one that forgets what is older than `ms` milliseconds (`window.rs`). Their
//! errors come before the others': `ERR WINDOW and TIMESPAN cannot be combined`, the timespan's
//! range, `ERR WINDOW and TIMESPAN filters take no EXPANSION, NONSCALING or LAYOUT`. Such a
//! filter is replicated as its SCANDUMP header (`window.rs`). RedisBloom, and redis-bf before
//! them, ignore both words and make a filter that never forgets.
//!
//! Options are read left to right after the capacity, each keyword taking its value from the
//! argument after it: a value is never read as an option, nor is the key (RedisBloom looks for
//! `NONSCALING` and `EXPANSION` among every argument, so a key named `nonscaling` changes the
//! filter — a documented difference).

use super::config;
use super::errors;
use super::rules::{
    capped_error_rate, error_rate, log_capped, parse_layout, timespan, CAPACITY, EXPANSION,
};
use super::rules::{EXPANSION_ARG, LAYOUT_ARG, NONSCALING_ARG, WINDOW_ARG};
use super::values::is_bloom;
use super::{valkey, window};
use crate::commands::args::integer_in;
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::bf::chain::{Chain, Params};
use crate::core::window::Window;

pub static RESERVE: CommandSpec = CommandSpec {
    name: "bf.reserve",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write fast",
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
        WINDOW_ARG,
    ],
    run: reserve,
};

fn reserve(call: &Call) -> CommandResult {
    if valkey::makes_valkey_bloom(call.args, 4) {
        return valkey::reserve(call);
    }
    // RedisBloom's bound (at most 7 arguments), plus those of our options.
    let ours: usize = call
        .args
        .iter()
        .skip(4)
        .map(|a| match () {
            _ if a.eq_ignore_ascii_case(b"LAYOUT") || a.eq_ignore_ascii_case(b"TIMESPAN") => 2,
            _ if a.eq_ignore_ascii_case(b"WINDOW") => 1,
            _ => 0,
        })
        .sum();
    call.require_arity(call.args.len() <= 7 + ours)?;
    let ReserveArgs {
        params,
        capped,
        window,
    } = parse(call.args, config::params())?;
    if capped {
        log_capped(call);
    }
    let mut key = call.open_for_write()?;
    match key.peek(is_bloom) {
        Lookup::Found(()) => Err(Failure::Message(errors::ITEM_EXISTS)),
        Lookup::WrongType => Err(Failure::Message(errors::WRONG_TYPE)),
        Lookup::Missing => match window {
            Some(window) => {
                window::reserve(call, &mut key, params, window)?;
                Ok(Reply::OK)
            }
            None => {
                let chain = Chain::new(params, &call.memory()).map_err(errors::fail)?;
                call.create(&mut key, chain, c"bf.reserve")
            }
        },
    }
}

/// What BF.RESERVE was asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReserveArgs {
    /// The new filter's parameters, its error rate capped at `ERROR_RATE_CAP`.
    pub params: Params,
    /// Whether the error rate asked for was above the cap (RedisBloom logs it).
    pub capped: bool,
    /// `WINDOW` or `TIMESPAN`: a filter that forgets, of `params`' capacity and error rate.
    pub window: Option<Window>,
}

/// BF.RESERVE's options as they stand, left to right; a keyword without its value holds
/// `Some(None)`. The first of a repeated option counts, as RedisBloom's `RMUtil_ArgIndex`.
#[derive(Default)]
struct Options<'a> {
    expansion: Option<Option<&'a [u8]>>,
    nonscaling: bool,
    layout: Option<Option<&'a [u8]>>,
    window: bool,
    timespan: Option<Option<&'a [u8]>>,
}

impl<'a> Options<'a> {
    /// Reads `options`; words that are neither an option nor its value are skipped.
    fn read(options: &[&'a [u8]]) -> Options<'a> {
        let mut read = Options::default();
        let mut i = 0;
        while let Some(word) = options.get(i) {
            let is = |name: &str| word.eq_ignore_ascii_case(name.as_bytes());
            let value = options.get(i + 1).copied();
            let with_value = if is("EXPANSION") {
                read.expansion.get_or_insert(value);
                true
            } else if is("LAYOUT") {
                read.layout.get_or_insert(value);
                true
            } else if is("TIMESPAN") {
                read.timespan.get_or_insert(value);
                true
            } else {
                read.nonscaling |= is("NONSCALING");
                read.window |= is("WINDOW");
                false
            };
            i += if with_value { 2 } else { 1 };
        }
        read
    }

    /// The window asked for, if any, checked against the options of a scalable filter: a
    /// count window finds the last `capacity` additions.
    fn window(&self, capacity: u64) -> Result<Option<Window>, Failure> {
        let window = match (self.window, self.timespan) {
            (true, Some(_)) => return Err(Failure::Message(errors::WINDOW_AND_TIMESPAN)),
            (true, None) => Window::Count(capacity),
            (false, Some(value)) => Window::Time(timespan(value.unwrap_or_default())?),
            (false, None) => return Ok(None),
        };
        if self.expansion.is_some() || self.nonscaling || self.layout.is_some() {
            return Err(Failure::Message(errors::WINDOW_TAKES_NO_SCALING));
        }
        Ok(Some(window))
    }
}

/// BF.RESERVE's arguments (`args`, the command name first, arity checked) with the `bf-*`
/// configuration's `defaults`: a pure function of them, so it is fuzzed without a server.
pub fn parse(args: &[&[u8]], defaults: Params) -> Result<ReserveArgs, Failure> {
    let arg = |i: usize| args.get(i).copied().unwrap_or_default();
    let error_rate = error_rate(arg(2))
        .map_err(|bad| bad.fail(errors::BAD_ERROR_RATE, errors::ERROR_RATE_RANGE))?;
    let capacity = integer_in(arg(3), &CAPACITY)
        .map_err(|bad| bad.fail(errors::BAD_CAPACITY, errors::CAPACITY_RANGE))?;
    let options = Options::read(args.get(4..).unwrap_or(&[]));
    let window = options.window(capacity as u64)?;
    let mut nonscaling = defaults.nonscaling || options.nonscaling;
    let mut expansion = defaults.expansion;
    if let Some(value) = options.expansion {
        let value = value.ok_or(Failure::Message(errors::NO_EXPANSION))?;
        let value = parse_integer(value).ok_or(Failure::Message(errors::BAD_EXPANSION))?;
        if value == 0 {
            nonscaling = true;
        } else if nonscaling {
            return Err(Failure::Message(errors::NONSCALING_CANNOT_EXPAND));
        }
        expansion = u32::try_from(value)
            .ok()
            .filter(|_| EXPANSION.contains(&value))
            .ok_or(Failure::Message(errors::EXPANSION_RANGE))?;
    }
    let layout = match options.layout {
        Some(value) => parse_layout(value.unwrap_or_default())?,
        None => defaults.layout,
    };
    let (error_rate, capped) = capped_error_rate(error_rate);
    Ok(ReserveArgs {
        params: Params {
            capacity: capacity as u64,
            error_rate,
            expansion,
            nonscaling,
            layout,
        },
        capped,
        window,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::bf::rules::parse_tests::DEFAULTS;
    use crate::commands::testing::words;
    use crate::core::bf::chain::LayoutKind;

    fn parsed(line: &str) -> Result<ReserveArgs, Failure> {
        parse(&words(line), DEFAULTS)
    }

    #[test]
    fn parses_without_a_server() {
        let r = parsed("BF.RESERVE k 0.5 1000 expansion 4 layout FAST").unwrap();
        assert!(r.capped);
        assert_eq!(
            r.params,
            Params {
                capacity: 1000,
                error_rate: 0.25,
                expansion: 4,
                nonscaling: false,
                layout: LayoutKind::Fast,
            }
        );
        let r = parsed("BF.RESERVE k 0.01 10 EXPANSION 0").unwrap();
        assert!(!r.capped && r.params.nonscaling);
        for (line, error) in [
            ("BF.RESERVE k x 10", errors::BAD_ERROR_RATE),
            ("BF.RESERVE k 1 10", errors::ERROR_RATE_RANGE),
            ("BF.RESERVE k 0.1 0", errors::CAPACITY_RANGE),
            ("BF.RESERVE k 0.1 10 EXPANSION", errors::NO_EXPANSION),
            (
                "BF.RESERVE k 0.1 10 NONSCALING EXPANSION 2",
                errors::NONSCALING_CANNOT_EXPAND,
            ),
            ("BF.RESERVE k 0.1 10 LAYOUT slow", errors::BAD_LAYOUT),
        ] {
            assert_eq!(parsed(line), Err(Failure::Message(error)), "{line}");
        }
    }

    #[test]
    fn windows_are_read_by_position_and_refuse_the_scaling_options() {
        let r = parsed("BF.RESERVE k 0.5 1000 window").unwrap();
        assert_eq!((r.window, r.capped), (Some(Window::Count(1000)), true));
        let r = parsed("BF.RESERVE k 0.01 1000 TIMESPAN 2000").unwrap();
        assert_eq!(r.window, Some(Window::Time(2000)));
        assert_eq!(r.params.capacity, 1000);
        // Keys and values are not options.
        let r = parsed("BF.RESERVE window 0.01 10 EXPANSION 4").unwrap();
        assert_eq!((r.window, r.params.expansion), (None, 4));
        assert_eq!(parsed("BF.RESERVE k 0.01 10 unknown").unwrap().window, None);
        for (line, error) in [
            (
                "BF.RESERVE k 0.01 10 WINDOW TIMESPAN 5",
                errors::WINDOW_AND_TIMESPAN,
            ),
            (
                "BF.RESERVE k 0.01 10 TIMESPAN 5 WINDOW",
                errors::WINDOW_AND_TIMESPAN,
            ),
            (
                "BF.RESERVE k 0.01 10 WINDOW EXPANSION 2",
                errors::WINDOW_TAKES_NO_SCALING,
            ),
            (
                "BF.RESERVE k 0.01 10 NONSCALING WINDOW",
                errors::WINDOW_TAKES_NO_SCALING,
            ),
            (
                "BF.RESERVE k 0.01 10 TIMESPAN 9 NONSCALING",
                errors::WINDOW_TAKES_NO_SCALING,
            ),
            (
                "BF.RESERVE k 0.01 10 TIMESPAN 9 LAYOUT FAST",
                errors::WINDOW_TAKES_NO_SCALING,
            ),
            ("BF.RESERVE k 0.01 10 TIMESPAN 0", errors::TIMESPAN_RANGE),
            ("BF.RESERVE k 0.01 10 TIMESPAN -5", errors::TIMESPAN_RANGE),
            ("BF.RESERVE k 0.01 10 TIMESPAN 1.5", errors::TIMESPAN_RANGE),
            ("BF.RESERVE k 0.01 10 TIMESPAN abc", errors::TIMESPAN_RANGE),
            (
                "BF.RESERVE k 0.01 10 TIMESPAN 1099511627777",
                errors::TIMESPAN_RANGE,
            ),
            ("BF.RESERVE k 0.01 10 TIMESPAN", errors::TIMESPAN_RANGE),
            // TIMESPAN's value is never an option, nor EXPANSION's.
            (
                "BF.RESERVE k 0.01 10 TIMESPAN WINDOW",
                errors::TIMESPAN_RANGE,
            ),
            (
                "BF.RESERVE k 0.01 10 EXPANSION WINDOW",
                errors::BAD_EXPANSION,
            ),
        ] {
            assert_eq!(parsed(line), Err(Failure::Message(error)), "{line}");
        }
        let r = parsed("BF.RESERVE k 0.01 10 TIMESPAN 1099511627776").unwrap();
        assert_eq!(r.window, Some(Window::Time(1 << 40)));
        // Only the words refuse a window: configs that make new filters non-scaling do not.
        let nonscaling = Params {
            nonscaling: true,
            expansion: 0,
            ..DEFAULTS
        };
        let r = parse(&words("BF.RESERVE k 0.01 10 WINDOW"), nonscaling).unwrap();
        assert_eq!(r.window, Some(Window::Count(10)));
    }
}
