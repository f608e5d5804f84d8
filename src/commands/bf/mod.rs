//! The Bloom-filter commands (`BF.*`), one file per command family, and what they share: the
//! parameter rules (also used by the `bf-*` configs), the layout names, the argument docs,
//! and the lookup of a key that may hold either of the two Bloom data types.

mod add;
mod debug;
mod dump;
mod exists;
mod info;
mod insert;
mod reserve;

pub use add::{ADD, MADD};
pub use debug::DEBUG;
pub use dump::{LOADCHUNK, SCANDUMP};
pub use exists::{EXISTS, MEXISTS};
pub use info::{CARD, INFO};
pub use insert::INSERT;
pub use reserve::RESERVE;
#[cfg(fuzzing)]
pub use {
    insert::{parse as parse_insert, Insert},
    reserve::{parse as parse_reserve, Reserve},
};

use std::ops::RangeInclusive;

pub use super::args::{integer_in, Bad};

use super::args::parse_double;
use super::call::{Call, Lookup, ReadKey, WriteKey};
use super::errors::{self, Failure};
use super::metrics::Tracked;
use super::spec::{ArgKind, ArgSpec, KEY_ARG};
use crate::core::bloom::chain::{Chain, LayoutKind, Params};
use crate::core::bloom::sizing::is_error_rate;

/// RedisBloom caps error rates silently at this (`BF_ERROR_RATE_CAP`), logging a warning.
pub const ERROR_RATE_CAP: f64 = 0.25;
/// The capacities BF.RESERVE, BF.INSERT and `bf-initial-size` accept (1 to 2^30).
pub const CAPACITY: RangeInclusive<i64> = 1..=1 << 30;
/// The expansions BF.RESERVE, BF.INSERT and `bf-expansion-factor` accept.
pub const EXPANSION: RangeInclusive<i64> = 0..=32768;

/// An error rate: a double strictly between 0 and 1.
pub fn error_rate(text: &[u8]) -> Result<f64, Bad> {
    let rate = parse_double(text).ok_or(Bad::NotANumber)?;
    if is_error_rate(rate) {
        Ok(rate)
    } else {
        Err(Bad::OutOfRange)
    }
}

/// Applies RedisBloom's error-rate cap: the rate to use, and whether it was capped (which
/// RedisBloom logs; the command does, with [`log_capped`]).
fn capped_error_rate(error_rate: f64) -> (f64, bool) {
    if error_rate > ERROR_RATE_CAP {
        (ERROR_RATE_CAP, true)
    } else {
        (error_rate, false)
    }
}

/// Tells the log that an error rate was capped, as RedisBloom does.
fn log_capped(call: &Call) {
    call.log_warning("Error rate is capped at 0.250000");
}

/// The layouts' names, as `LAYOUT`, the `bf-layout` config (any case) and `BF.INFO` spell them.
const LAYOUT_NAMES: [(LayoutKind, &str); 2] =
    [(LayoutKind::Classic, "classic"), (LayoutKind::Fast, "fast")];

/// The layout called `name`, in any case.
pub fn layout_named(name: &[u8]) -> Option<LayoutKind> {
    LAYOUT_NAMES
        .iter()
        .find(|(_, n)| name.eq_ignore_ascii_case(n.as_bytes()))
        .map(|(kind, _)| *kind)
}

/// The name of `layout`.
pub fn layout_name(layout: LayoutKind) -> &'static str {
    LAYOUT_NAMES
        .iter()
        .find(|(kind, _)| *kind == layout)
        .map_or("classic", |(_, n)| n)
}

/// A `LAYOUT` value.
fn parse_layout(text: &[u8]) -> Result<LayoutKind, Failure> {
    layout_named(text).ok_or(Failure::Message(errors::BAD_LAYOUT))
}

/// BF.ADD and BF.EXISTS: a key and one item.
const ONE_ITEM_ARGS: &[ArgSpec] = &[KEY_ARG, ArgSpec::new("item", ArgKind::String)];
/// BF.MADD and BF.MEXISTS: a key and items.
const MANY_ITEM_ARGS: &[ArgSpec] = &[KEY_ARG, ArgSpec::new("item", ArgKind::String).multiple()];

/// Options BF.RESERVE and BF.INSERT share.
const EXPANSION_ARG: ArgSpec = ArgSpec::new("expansion", ArgKind::Integer)
    .token("EXPANSION")
    .optional();
const NONSCALING_ARG: ArgSpec = ArgSpec::new("nonscaling", ArgKind::PureToken)
    .token("NONSCALING")
    .optional();
const LAYOUT_ARG: ArgSpec = ArgSpec::new("layout", ArgKind::String)
    .token("LAYOUT")
    .optional();

/// What a key opened for writing holds.
fn lookup<'k>(call: &Call, key: &'k WriteKey) -> Lookup<Tracked<'k, Chain>> {
    call.lookup(key)
}

/// What a key opened for reading holds.
fn lookup_read<'k>(call: &Call, key: &'k ReadKey) -> Lookup<&'k Chain> {
    call.lookup_read(key)
}

/// The filter at the key, created with `params` (asked only then) when the key is empty.
fn existing_or_created<'k>(
    call: &Call,
    key: &'k WriteKey,
    params: impl FnOnce() -> Params,
) -> Result<Tracked<'k, Chain>, Failure> {
    call.existing_or_created(key, || {
        Chain::new(params(), &call.memory()).map_err(errors::bloom)
    })
}

/// What the argument-parser tests of BF.RESERVE and BF.INSERT share.
#[cfg(test)]
mod parse_tests {
    use crate::core::bloom::chain::{LayoutKind, Params};

    /// The `bf-*` configs' defaults.
    pub const DEFAULTS: Params = Params {
        capacity: 100,
        error_rate: 0.01,
        expansion: 2,
        nonscaling: false,
        layout: LayoutKind::Classic,
    };

    /// A command line's arguments, split on spaces.
    pub fn words(line: &str) -> Vec<&[u8]> {
        line.split(' ').map(str::as_bytes).collect()
    }
}
