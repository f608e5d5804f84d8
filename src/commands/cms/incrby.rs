//! `CMS.INCRBY key item increment [item increment ...]`
//!
//! Adds each increment to its item's counter in every row, pair by pair, in order. Reply: an
//! array, one element per pair — the item's new estimate (the minimum of its counters), or the
//! error element `CMS: INCRBY overflow` when that minimum is 4294967295: a counter that would
//! pass it stays there, so any increment of 2^32 or more saturates the item (RedisBloom's
//! `CMS_IncrBy`, `src/cms.c`). Errors, all before anything changes, none with ERR: arity (an
//! odd number of arguments); `CMS: key does not exist`, `WRONGTYPE`; then, for the first bad
//! pair, `CMS: Cannot parse number` (not an integer as Redis parses one) or `CMS: Number
//! cannot be negative`. Replicated verbatim, overflow elements included; keyspace event
//! `cms.incrby`. The key is opened for writing (RedisBloom 8: it invalidates a WATCH).

use super::{errors, sketch_to_write};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::digits::decimal_digits;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::cms::Increment;

pub static INCRBY: CommandSpec = CommandSpec {
    name: "cms.incrby",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary: "Increases the count of one or more items by increment",
    complexity: "O(n) where n is the number of items",
    since: "2.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new(
            "items",
            ArgKind::Block(&[
                ArgSpec::new("item", ArgKind::String),
                ArgSpec::new("increment", ArgKind::Integer),
            ]),
        )
        .multiple(),
    ],
    run: incrby,
};

fn incrby(call: &Call) -> CommandResult {
    call.require_arity(call.args.len().is_multiple_of(2))?;
    let mut key = call.open_for_write()?;
    let mut sketch = sketch_to_write(&mut key)?;
    let pairs = parse(call.args)?;
    call.out.array(pairs.len());
    for (item, amount) in pairs {
        match sketch.increment(item, amount) {
            Increment::Estimate(n) => call.out.scalar(Scalar::Integer(i64::from(n))),
            Increment::Overflow => call.out.error(errors::INCRBY_OVERFLOW),
        }
    }
    call.finish_write(c"cms.incrby");
    Ok(Reply::Sent)
}

/// CMS.INCRBY's pairs (`args`, the command name first, arity checked), every increment checked
/// before the first is applied: a pure function of them, so it is fuzzed without a server.
/// Each increment is parsed once, by the check; the pairs then read its digits.
pub fn parse<'a>(
    args: &'a [&'a [u8]],
) -> Result<impl ExactSizeIterator<Item = (&'a [u8], u64)> + 'a, Failure> {
    let pairs = args.get(2..).unwrap_or(&[]).as_chunks::<2>().0;
    for [_, amount] in pairs {
        amount_of(amount)?;
    }
    Ok(pairs
        .iter()
        .map(|[item, amount]| (*item, checked_amount(amount))))
}

/// The value of an increment [`amount_of`] accepted (decimal digits, no sign, no leading
/// zero, at most `i64::MAX`): its digits read without checking them again.
fn checked_amount(digits: &[u8]) -> u64 {
    decimal_digits(0, digits).0
}

/// An increment: a non-negative integer as Redis parses one.
fn amount_of(text: &[u8]) -> Result<u64, Failure> {
    let n = parse_integer(text).ok_or(Failure::Message(errors::CANNOT_PARSE_NUMBER))?;
    u64::try_from(n).map_err(|_| Failure::Message(errors::NEGATIVE_NUMBER))
}
