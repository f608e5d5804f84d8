//! The arguments of the t-digest commands, parsed as RedisBloom parses them
//! (`src/rm_tdigest.c`): numbers with the server's own parsers (`RedisModule_StringToDouble`,
//! `RedisModule_StringToLongLong`, reproduced in `commands::double` and `commands::args`),
//! keywords found anywhere among the options, case-insensitively (rmutil's `RMUtil_ArgIndex`),
//! and each list checked element by element, in order, the first fault winning. Pure functions
//! of the arguments (fuzzed); every argument is checked before anything is written.

use super::errors::{self, fail};
use crate::commands::args::parse_integer;
use crate::commands::double::parse_double;
use crate::commands::errors::Failure;
use crate::commands::spec::{ArgKind, ArgSpec};
use crate::core::short_list::ShortList;

/// The compression of a digest nobody gave one.
pub const DEFAULT_COMPRESSION: i64 = 100;

/// `[COMPRESSION compression]` in CREATE's and MERGE's COMMAND DOCS, named as RedisBloom 8
/// names it (`src/commands.json`; its flow test `test_docs_help.py` checks the block's name).
pub const COMPRESSION_BLOCK: ArgSpec = ArgSpec::new(
    "compression_block",
    ArgKind::Block(&[
        ArgSpec::new("compression_token", ArgKind::PureToken).token("COMPRESSION"),
        ArgSpec::new("compression", ArgKind::Integer),
    ]),
)
.optional();

/// Where `keyword` first is among `args`, compared whole and case-insensitively.
fn find(args: &[&[u8]], keyword: &str) -> Option<usize> {
    args.iter()
        .position(|arg| arg.eq_ignore_ascii_case(keyword.as_bytes()))
}

/// A COMPRESSION value: a strict integer, positive. (Whether a digest of it can be had is the
/// core's to say, against the memory limit.)
pub fn compression(arg: &[u8]) -> Result<i64, Failure> {
    let compression = parse_integer(arg).ok_or(fail(errors::BAD_COMPRESSION))?;
    if compression <= 0 {
        return Err(fail(errors::COMPRESSION_NOT_POSITIVE));
    }
    Ok(compression)
}

/// `TDIGEST.CREATE key [COMPRESSION compression]`: the compression. Two or four arguments;
/// with four, the keyword may be the third or the fourth (RedisBloom searches both) and the
/// value is always the fourth.
pub fn create(args: &[&[u8]]) -> Result<i64, Failure> {
    match args {
        [_, _] => Ok(DEFAULT_COMPRESSION),
        [_, _, options @ ..] if options.len() == 2 => {
            find(options, "COMPRESSION").ok_or(fail(errors::WRONG_KEYWORD))?;
            compression(options.get(1).copied().unwrap_or_default())
        }
        _ => Err(Failure::WrongArity),
    }
}

/// `TDIGEST.MERGE destination numkeys source… [COMPRESSION c] [OVERRIDE]`, as parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merge {
    /// How many sources follow `numkeys` (arguments `3..3 + sources`).
    pub sources: usize,
    /// The compression given.
    pub compression: Option<i64>,
    /// Whether the destination's old digest is replaced rather than merged in.
    pub overriding: bool,
}

/// MERGE's arguments after the destination's type was checked: `numkeys`, then the options
/// after the sources — the first COMPRESSION anywhere (its value the next argument), the first
/// OVERRIDE anywhere, other words ignored unless neither keyword is there.
pub fn merge(args: &[&[u8]]) -> Result<Merge, Failure> {
    let numkeys = args.get(2).copied().unwrap_or_default();
    let numkeys = parse_integer(numkeys).ok_or(fail(errors::BAD_NUMKEYS))?;
    if numkeys <= 0 {
        return Err(fail(errors::NUMKEYS_NOT_POSITIVE));
    }
    let sources = usize::try_from(numkeys).map_err(|_| Failure::WrongArity)?;
    let options = args
        .get(3..)
        .and_then(|rest| rest.get(sources..))
        .ok_or(Failure::WrongArity)?;
    let mut parsed = Merge {
        sources,
        compression: None,
        overriding: find(options, "OVERRIDE").is_some(),
    };
    if let Some(at) = find(options, "COMPRESSION") {
        let value = options.get(at + 1).ok_or(Failure::WrongArity)?;
        parsed.compression = Some(compression(value)?);
    }
    if !options.is_empty() && parsed.compression.is_none() && !parsed.overriding {
        return Err(fail(errors::WRONG_KEYWORD));
    }
    Ok(parsed)
}

/// ADD's values: each a number (NaN refused), then finite.
pub fn values_to_add(args: &[&[u8]]) -> Result<ShortList<f64>, Failure> {
    each(args, |arg| {
        let value = parse_double(arg).ok_or(fail(errors::BAD_VALUE_TO_ADD))?;
        if value.is_finite() {
            Ok(value)
        } else {
            Err(fail(errors::VALUE_NOT_FINITE))
        }
    })
}

/// QUANTILE's quantiles: each a number within [0, 1].
pub fn quantiles(args: &[&[u8]]) -> Result<ShortList<f64>, Failure> {
    each(args, |arg| {
        let q = parse_double(arg).ok_or(fail(errors::BAD_QUANTILE))?;
        if (0.0..=1.0).contains(&q) {
            Ok(q)
        } else {
            Err(fail(errors::QUANTILE_RANGE))
        }
    })
}

/// CDF's values: any number, ±inf included.
pub fn cdf_values(args: &[&[u8]]) -> Result<ShortList<f64>, Failure> {
    each(args, |arg| parse_double(arg).ok_or(fail(errors::BAD_CDF)))
}

/// RANK's and REVRANK's values: any number, ±inf included.
pub fn rank_values(args: &[&[u8]]) -> Result<ShortList<f64>, Failure> {
    each(args, |arg| parse_double(arg).ok_or(fail(errors::BAD_VALUE)))
}

/// BYRANK's and BYREVRANK's ranks: strict integers, not negative.
pub fn ranks(args: &[&[u8]]) -> Result<ShortList<i64>, Failure> {
    each(args, |arg| {
        let rank = parse_integer(arg).ok_or(fail(errors::BAD_RANK))?;
        if rank >= 0 {
            Ok(rank)
        } else {
            Err(fail(errors::RANK_NEGATIVE))
        }
    })
}

/// TRIMMED_MEAN's cuts: the low one parsed, the high one parsed, both within [0, 1], then the
/// low one below the high one.
pub fn cuts(low: &[u8], high: &[u8]) -> Result<(f64, f64), Failure> {
    let low = parse_double(low).ok_or(fail(errors::BAD_LOW_CUT))?;
    let high = parse_double(high).ok_or(fail(errors::BAD_HIGH_CUT))?;
    let unit = 0.0..=1.0;
    if !unit.contains(&low) || !unit.contains(&high) {
        return Err(fail(errors::CUTS_RANGE));
    }
    if low >= high {
        return Err(fail(errors::CUTS_ORDER));
    }
    Ok((low, high))
}

/// Each argument through `parse`, in order, into a list sized before it is filled.
fn each<T: Copy + Default>(
    args: &[&[u8]],
    parse: impl Fn(&[u8]) -> Result<T, Failure>,
) -> Result<ShortList<T>, Failure> {
    let mut out = ShortList::with_room(args.len()).map_err(|_| fail(errors::NO_MEMORY_TO_READ))?;
    for arg in args {
        out.push(parse(arg)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<&[u8]> {
        text.split(' ').map(str::as_bytes).collect()
    }

    #[test]
    fn create_finds_its_keyword_in_either_place() {
        assert_eq!(create(&args("c k")), Ok(100));
        assert_eq!(create(&args("c k COMPRESSION 7")), Ok(7));
        assert_eq!(create(&args("c k compression 7")), Ok(7));
        // RedisBloom searches both option slots for the keyword, and takes the fourth as the
        // value: `CREATE k 100 COMPRESSION` parses COMPRESSION as the value.
        assert_eq!(
            create(&args("c k 100 COMPRESSION")),
            Err(fail(errors::BAD_COMPRESSION))
        );
        assert_eq!(
            create(&args("c k COMPRESSIONS 7")),
            Err(fail(errors::WRONG_KEYWORD))
        );
        assert_eq!(
            create(&args("c k COMPRESSION 0")),
            Err(fail(errors::COMPRESSION_NOT_POSITIVE))
        );
        for bad in ["1.5", "+5", "05", "-0", "1e2", "9223372036854775808"] {
            let text = format!("c k COMPRESSION {bad}");
            assert_eq!(create(&args(&text)), Err(fail(errors::BAD_COMPRESSION)));
        }
        assert_eq!(create(&args("c k COMPRESSION")), Err(Failure::WrongArity));
    }

    #[test]
    fn merge_options_as_redisbloom_reads_them() {
        let merge_of = |text: &str| merge(&args(text));
        let plain = Merge {
            sources: 2,
            compression: None,
            overriding: false,
        };
        assert_eq!(merge_of("m d 2 a b"), Ok(plain));
        assert_eq!(
            merge_of("m d 2 a b OVERRIDE FOO"),
            Ok(Merge {
                overriding: true,
                ..plain
            })
        );
        assert_eq!(
            merge_of("m d 1 a FOO compression 5"),
            Ok(Merge {
                sources: 1,
                compression: Some(5),
                overriding: false,
            })
        );
        assert_eq!(merge_of("m d 2 a b FOO"), Err(fail(errors::WRONG_KEYWORD)));
        assert_eq!(
            merge_of("m d 1 a COMPRESSION OVERRIDE"),
            Err(fail(errors::BAD_COMPRESSION))
        );
        assert_eq!(merge_of("m d 1 a COMPRESSION"), Err(Failure::WrongArity));
        assert_eq!(merge_of("m d 3 a b"), Err(Failure::WrongArity));
        assert_eq!(merge_of("m d 0 a"), Err(fail(errors::NUMKEYS_NOT_POSITIVE)));
        assert_eq!(merge_of("m d x a"), Err(fail(errors::BAD_NUMKEYS)));
    }

    #[test]
    fn lists_fail_at_their_first_bad_element() {
        assert_eq!(
            values_to_add(&args("1 inf x")),
            Err(fail(errors::VALUE_NOT_FINITE))
        );
        assert_eq!(
            values_to_add(&args("1 1e309 inf")),
            Err(fail(errors::BAD_VALUE_TO_ADD))
        );
        assert_eq!(quantiles(&args("-0 1 0.5")).map(|q| q.len()), Ok(3));
        assert_eq!(quantiles(&args("1.5 x")), Err(fail(errors::QUANTILE_RANGE)));
        assert_eq!(quantiles(&args("inf")), Err(fail(errors::QUANTILE_RANGE)));
        assert_eq!(cdf_values(&args("-inf inf")).map(|v| v.len()), Ok(2));
        assert_eq!(rank_values(&args("nan")), Err(fail(errors::BAD_VALUE)));
        assert_eq!(ranks(&args("-1 x")), Err(fail(errors::RANK_NEGATIVE)));
        for bad in ["1.5", "1e2", "+1", "01"] {
            assert_eq!(ranks(&args(bad)), Err(fail(errors::BAD_RANK)));
        }
        assert_eq!(cuts(b"x", b"y"), Err(fail(errors::BAD_LOW_CUT)));
        assert_eq!(cuts(b"2", b"y"), Err(fail(errors::BAD_HIGH_CUT)));
        assert_eq!(cuts(b"2", b"0.5"), Err(fail(errors::CUTS_RANGE)));
        assert_eq!(cuts(b"0.5", b"0.5"), Err(fail(errors::CUTS_ORDER)));
        assert_eq!(cuts(b"0.1", b"0.9"), Ok((0.1, 0.9)));
    }
}
