//! `CMS.INCRBY key item increment [item increment ...]`
//!
//! Adds each increment (a negative one subtracts) to its item's counter in every row, pair by
//! pair, in order. Reply: an array, one element per pair — the item's new estimate (the minimum
//! of its counters), or an error element for a pair refused whole, which changes nothing:
//! `CMS: INCRBY overflow` when a counter would pass its cell's maximum (255, 65535,
//! 4294967295 or 2^63 − 1) or the total 2^63 − 1, `CMS: INCRBY underflow` when a counter or
//! the total would go below 0; the other pairs still apply (RedisBloom 8.12's `CMS_IncrBy`,
//! `src/cms.c`). Errors, all before anything changes, none with ERR: arity (an odd number of
//! arguments); `CMS: key does not exist`, `WRONGTYPE`; then, for the first bad pair, `CMS:
//! Cannot parse number` (not an integer as Redis parses one) or `CMS: invalid increment`
//! (−2^63). Replicated verbatim (the outcome of each pair follows from the sketch); keyspace
//! event `cms.incrby`. The key is opened for writing (RedisBloom 8: it invalidates a WATCH).
//!
//! Ours, on a sketch that forgets: each pair is counted at the write's time (`window.rs`); a
//! counter stops at 4294967295 (`CMS: INCRBY overflow` beyond); a negative increment is the
//! error element `CMS: a sketch that forgets takes no negative increments`; the estimate is the
//! item's count in the window.

use super::errors;
use super::values::{existing_write, Sketch};
use crate::commands::args::{checked_pairs, parse_integer};
use crate::commands::call::Call;
use crate::commands::digits::decimal_digits;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::forgetting;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::commands::tracked::Tracked;
use crate::core::cms::WindowSketch;

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
    let sketch = existing_write(&mut key)?;
    let pairs = parse(call.args)?;
    call.out.array(pairs.len());
    let mut sketch = match sketch {
        Sketch::Classic(sketch) => sketch,
        Sketch::Window(sketch) => return increment_window(call, sketch, pairs),
    };
    for (item, amount) in pairs {
        match sketch.increment(item, amount) {
            // Counters are at most 2^63 − 1.
            Ok(estimate) => call.out.scalar(Scalar::Integer(estimate as i64)),
            Err(refused) => call.out.error(errors::increment(refused)),
        }
    }
    call.finish_write(c"cms.incrby");
    Ok(Reply::Sent)
}

/// CMS.INCRBY on a sketch that forgets: every pair at the write's time, a negative increment
/// refused as its element (what it would take from is not known to be in the window).
fn increment_window<'a>(
    call: &Call,
    mut sketch: Tracked<WindowSketch>,
    pairs: impl Iterator<Item = (&'a [u8], i64)>,
) -> CommandResult {
    let time = forgetting::write_time(call, &*sketch);
    for (item, amount) in pairs {
        let Ok(amount) = u64::try_from(amount) else {
            call.out.error(errors::NEGATIVE_INCREMENT);
            continue;
        };
        match sketch.increment(item, amount, time.now) {
            Ok(estimate) => call
                .out
                .scalar(Scalar::Integer(estimate.min(i64::MAX as u64) as i64)),
            Err(refused) => call.out.error(errors::increment(refused)),
        }
    }
    forgetting::written::<WindowSketch>(call, c"CMS.INCRBY", time.opens, c"cms.incrby");
    Ok(Reply::Sent)
}

/// CMS.INCRBY's pairs (`args`, the command name first, arity checked), every increment checked
/// before the first is applied: a pure function of them, so it is fuzzed without a server.
/// Each increment is parsed once, by the check; the pairs then read its digits.
pub fn parse<'a>(
    args: &'a [&'a [u8]],
) -> Result<impl ExactSizeIterator<Item = (&'a [u8], i64)> + 'a, Failure> {
    checked_pairs(args, amount_of, checked_amount)
}

/// The value of an increment [`amount_of`] accepted (an optional `-`, then decimal digits of
/// at most `i64::MAX`): its digits read without checking them again.
// Inlined, as `amount_of` is.
#[inline]
fn checked_amount(text: &[u8]) -> i64 {
    match text {
        [b'-', digits @ ..] => -(decimal_digits(0, digits).0 as i64),
        digits => decimal_digits(0, digits).0 as i64,
    }
}

/// An increment: an integer as Redis parses one, but −2^63.
// Inlined into the check of every pair: called, it cost some 30 instructions of an item's 736
// (`CMS.INCRBY` ×100 at depth 3, bench/README.md).
#[inline]
fn amount_of(text: &[u8]) -> Result<i64, Failure> {
    match parse_integer(text) {
        None => Err(Failure::Message(errors::CANNOT_PARSE_NUMBER)),
        Some(i64::MIN) => Err(Failure::Message(errors::INVALID_INCREMENT)),
        Some(n) => Ok(n),
    }
}
