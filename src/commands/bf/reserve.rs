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

use super::config;
use super::errors;
use super::lookup;
use super::rules::{capped_error_rate, error_rate, log_capped, parse_layout, CAPACITY, EXPANSION};
use super::{EXPANSION_ARG, LAYOUT_ARG, NONSCALING_ARG};
use crate::commands::args::integer_in;
use crate::commands::args::parse_integer;
use crate::commands::call::{Call, Lookup};
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::reply::Reply;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::bloom::chain::{Chain, Params};

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
    ],
    run: reserve,
};

fn reserve(call: &Call) -> CommandResult {
    // RedisBloom's bound (at most 7 arguments), plus the two of our LAYOUT option.
    let layout_args = if call
        .args
        .iter()
        .skip(4)
        .any(|a| a.eq_ignore_ascii_case(b"LAYOUT"))
    {
        2
    } else {
        0
    };
    call.require_arity(call.args.len() <= 7 + layout_args)?;
    let Reserve { params, capped } = parse(call.args, config::params())?;
    if capped {
        log_capped(call);
    }
    let key = call.open_for_write();
    match lookup(call, &key) {
        Lookup::Found(_) => return Err(Failure::Message(errors::ITEM_EXISTS)),
        Lookup::WrongType => return Err(Failure::Message(errors::WRONG_TYPE)),
        Lookup::Missing => {
            let chain = Chain::new(params, &call.memory()).map_err(errors::fail)?;
            call.store(&key, chain)?;
        }
    }
    call.finish_write(c"bf.reserve");
    Ok(Reply::OK)
}

/// What BF.RESERVE was asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reserve {
    /// The new filter's parameters, its error rate capped at `ERROR_RATE_CAP`.
    pub params: Params,
    /// Whether the error rate asked for was above the cap (RedisBloom logs it).
    pub capped: bool,
}

/// BF.RESERVE's arguments (`args`, the command name first, arity checked) with the `bf-*`
/// configuration's `defaults`: a pure function of them, so it is fuzzed without a server.
pub fn parse(args: &[&[u8]], defaults: Params) -> Result<Reserve, Failure> {
    let arg = |i: usize| args.get(i).copied().unwrap_or_default();
    let error_rate = error_rate(arg(2))
        .map_err(|bad| bad.fail(errors::BAD_ERROR_RATE, errors::ERROR_RATE_RANGE))?;
    let capacity = integer_in(arg(3), &CAPACITY)
        .map_err(|bad| bad.fail(errors::BAD_CAPACITY, errors::CAPACITY_RANGE))?;
    // Options are looked for among the options only: RedisBloom scans every argument, so a
    // key named "nonscaling" or "expansion" changes the filter (a documented difference).
    let options = args.get(4..).unwrap_or(&[]);
    let is = |i: usize, word: &str| {
        options
            .get(i)
            .is_some_and(|a| a.eq_ignore_ascii_case(word.as_bytes()))
    };
    let mut nonscaling = defaults.nonscaling || (0..options.len()).any(|i| is(i, "NONSCALING"));
    let mut expansion = defaults.expansion;
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
            .filter(|_| EXPANSION.contains(&value))
            .ok_or(Failure::Message(errors::EXPANSION_RANGE))?;
    }
    let layout = match (0..options.len()).find(|&i| is(i, "LAYOUT")) {
        Some(at) => parse_layout(options.get(at + 1).copied().unwrap_or_default())?,
        None => defaults.layout,
    };
    let (error_rate, capped) = capped_error_rate(error_rate);
    Ok(Reserve {
        params: Params {
            capacity: capacity as u64,
            error_rate,
            expansion,
            nonscaling,
            layout,
        },
        capped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::bf::parse_tests::{words, DEFAULTS};
    use crate::core::bloom::chain::LayoutKind;

    fn parsed(line: &str) -> Result<Reserve, Failure> {
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
}
