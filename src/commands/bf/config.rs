//! The `bf-*` configs: `bf-error-rate`, `bf-initial-size`, `bf-expansion-factor` (RedisBloom's)
//! and `bf-layout` (ours), the parameters of filters created without explicit ones (BF.ADD,
//! BF.MADD, BF.INSERT without options) and the defaults of BF.RESERVE's options. Changing them
//! affects only filters created afterwards.

use super::errors;
use super::rules::{capped_error_rate, error_rate, layout_name, layout_named, CAPACITY, EXPANSION};
use crate::commands::args::integer_in;
use crate::commands::setting::Setting;
use crate::core::bf::chain::{LayoutKind, Params};

static ERROR_RATE: Setting = Setting::new(
    c"bf-error-rate",
    Some("ERROR_RATE"),
    |text| {
        let rate = error_rate(text).map_err(|bad| {
            bad.text(
                errors::CONFIG_BAD_ERROR_RATE,
                errors::CONFIG_ERROR_RATE_RANGE,
            )
        })?;
        Ok(capped_error_rate(rate).0.to_bits())
    },
    |bits| f64::from_bits(bits).to_string(),
    0.01f64.to_bits(),
);

static INITIAL_SIZE: Setting = Setting::new(
    c"bf-initial-size",
    Some("INITIAL_SIZE"),
    |text| {
        integer_in(text, &CAPACITY)
            .map(|n| n as u64)
            .map_err(|_| errors::CONFIG_INITIAL_SIZE_RANGE)
    },
    |n| n.to_string(),
    100,
);

static EXPANSION_FACTOR: Setting = Setting::new(
    c"bf-expansion-factor",
    None,
    |text| {
        integer_in(text, &EXPANSION)
            .map(|n| n as u64)
            .map_err(|_| errors::CONFIG_EXPANSION_RANGE)
    },
    |n| n.to_string(),
    2,
);

/// Ours: the layout of filters created without `LAYOUT` (RedisBloom's by default), stored as
/// 1 for fast, 0 for classic.
static LAYOUT: Setting = Setting::new(
    c"bf-layout",
    None,
    |text| {
        let layout = layout_named(text).ok_or(errors::CONFIG_BAD_LAYOUT)?;
        Ok(u64::from(layout == LayoutKind::Fast))
    },
    |value| layout_name(stored_layout(value)).into(),
    0,
);

/// The family's configs, in registration order.
pub static SETTINGS: &[&Setting] = &[&ERROR_RATE, &INITIAL_SIZE, &EXPANSION_FACTOR, &LAYOUT];

/// The `bf-*` configs now: the parameters of a filter made without explicit ones.
pub fn params() -> Params {
    let expansion = u32::try_from(EXPANSION_FACTOR.get()).unwrap_or(2);
    Params {
        capacity: INITIAL_SIZE.get(),
        error_rate: f64::from_bits(ERROR_RATE.get()),
        expansion,
        nonscaling: expansion == 0,
        layout: stored_layout(LAYOUT.get()),
    }
}

fn stored_layout(value: u64) -> LayoutKind {
    if value == 1 {
        LayoutKind::Fast
    } else {
        LayoutKind::Classic
    }
}
