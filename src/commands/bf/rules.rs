//! The Bloom filter's parameter rules, shared by BF.RESERVE, BF.INSERT and the `bf-*`
//! configs (RedisBloom 8's `src/rebloom.c`, `src/config.c`), the layout names, the
//! window filters' timespan and replicated time, and the options' docs both commands list.

use std::ops::RangeInclusive;

use super::errors;
use crate::commands::args::{integer_in, parse_integer, Bad};
use crate::commands::call::Call;
use crate::commands::double::parse_double;
use crate::commands::errors::Failure;
use crate::commands::spec::{ArgKind, ArgSpec};
use crate::core::bf::chain::LayoutKind;
use crate::core::bf::sizing::is_error_rate;
use crate::core::window::MAX_WINDOW;

/// RedisBloom caps error rates silently at this (`BF_ERROR_RATE_CAP`), logging a warning.
pub const ERROR_RATE_CAP: f64 = 0.25;
/// The capacities BF.RESERVE, BF.INSERT and `bf-initial-size` accept (1 to 2^30).
pub const CAPACITY: RangeInclusive<i64> = 1..=1 << 30;
/// The expansions BF.RESERVE, BF.INSERT and `bf-expansion-factor` accept.
pub const EXPANSION: RangeInclusive<i64> = 0..=32768;

/// The timespans of time-window filters, in milliseconds (2^40 ms is about 35 years).
pub const TIMESPAN: RangeInclusive<i64> = 1..=MAX_WINDOW as i64;

/// A `TIMESPAN` value.
pub fn timespan(text: &[u8]) -> Result<u64, Failure> {
    integer_in(text, &TIMESPAN)
        .map(|ms| ms as u64)
        .map_err(|_| Failure::Message(errors::TIMESPAN_RANGE))
}

/// An `AT` value: milliseconds since the Unix epoch.
pub fn time_ms(text: &[u8]) -> Result<u64, Failure> {
    parse_integer(text)
        .and_then(|ms| u64::try_from(ms).ok())
        .ok_or(Failure::Message(errors::BAD_TIME))
}

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
/// RedisBloom logs; commands do, with [`log_capped`], the `bf-error-rate` config silently).
pub fn capped_error_rate(error_rate: f64) -> (f64, bool) {
    if error_rate > ERROR_RATE_CAP {
        (ERROR_RATE_CAP, true)
    } else {
        (error_rate, false)
    }
}

/// Tells the log that an error rate was capped, as RedisBloom does.
pub fn log_capped(call: &Call) {
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
pub fn parse_layout(text: &[u8]) -> Result<LayoutKind, Failure> {
    layout_named(text).ok_or(Failure::Message(errors::BAD_LAYOUT))
}

/// A number as valkey-bloom parses one (Rust's `parse`: `+5`, `1e-3`, `inf`).
pub fn number<T: std::str::FromStr>(text: &[u8]) -> Option<T> {
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// A rate in (0, 1) as valkey-bloom reads its rates, in commands and configs alike.
pub fn fraction(text: &[u8]) -> Result<f64, Bad> {
    match number::<f64>(text) {
        Some(x) if x > 0.0 && x < 1.0 => Ok(x),
        Some(_) => Err(Bad::OutOfRange),
        None => Err(Bad::NotANumber),
    }
}

/// Options BF.RESERVE and BF.INSERT share.
pub(super) const EXPANSION_ARG: ArgSpec = ArgSpec::new("expansion", ArgKind::Integer)
    .token("EXPANSION")
    .optional();
pub(super) const NONSCALING_ARG: ArgSpec = ArgSpec::new("nonscaling", ArgKind::PureToken)
    .token("NONSCALING")
    .optional();
pub(super) const LAYOUT_ARG: ArgSpec = ArgSpec::new("layout", ArgKind::String)
    .token("LAYOUT")
    .optional();
/// Ours: what a filter that forgets forgets by (`window.rs`).
pub(super) const WINDOW_ARG: ArgSpec = ArgSpec::new(
    "window",
    ArgKind::OneOf(&[
        ArgSpec::new("count", ArgKind::PureToken).token("WINDOW"),
        ArgSpec::new("timespan", ArgKind::Integer).token("TIMESPAN"),
    ]),
)
.optional();

/// What the argument-parser tests of BF.RESERVE and BF.INSERT share.
#[cfg(test)]
pub(super) mod parse_tests {
    use crate::core::bf::chain::{LayoutKind, Params};

    /// The `bf-*` configs' defaults.
    pub const DEFAULTS: Params = Params {
        capacity: 100,
        error_rate: 0.01,
        expansion: 2,
        nonscaling: false,
        layout: LayoutKind::Classic,
    };
}
