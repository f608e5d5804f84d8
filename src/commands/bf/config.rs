//! The Bloom-filter family's configs. Changing one affects only filters created afterwards.
//!
//! * `bf-error-rate`, `bf-initial-size`, `bf-expansion-factor` (RedisBloom's) and `bf-layout`
//!   (ours): the parameters of RedisBloom's filters created without explicit ones (BF.ADD,
//!   BF.MADD, BF.INSERT without options) and the defaults of BF.RESERVE's options.
//! * `bloom-capacity`, `bloom-expansion`, `bloom-fp-rate`, `bloom-tightening-ratio`,
//!   `bloom-use-random-seed`, `bloom-memory-usage-limit`, `bloom-defrag-enabled`: valkey-bloom's
//!   (`src/configs.rs`, `bf.bloom-*` on the server), the same for its filters, with its
//!   defaults and its per-object limit, so a valkey-bloom config file starts the server.
//! * `bf-flavour` (ours, set when the module loads): which kind BF.ADD, BF.MADD, BF.RESERVE and
//!   BF.INSERT make on an empty key, RedisBloom's (the default) or valkey-bloom's, so that an
//!   application written for either module runs unchanged. Keys that hold a filter answer as
//!   the module that made it, whatever the flavour.

use std::ffi::CStr;

use super::errors;
use super::rules::{
    capped_error_rate, error_rate, fraction, layout_name, layout_named, CAPACITY, EXPANSION,
};
use crate::commands::setting::{show_number, show_rate, show_yes_or_no, yes_or_no, Setting};
use crate::core::bf::chain::{LayoutKind, Params};
use crate::core::bf::valkey::{self, Seed, FIXED_SEED};

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
    show_rate,
    0.01f64.to_bits(),
);

static INITIAL_SIZE: Setting = Setting::integer(
    c"bf-initial-size",
    Some("INITIAL_SIZE"),
    &CAPACITY,
    [errors::CONFIG_INITIAL_SIZE_RANGE; 2],
    100,
);

static EXPANSION_FACTOR: Setting = Setting::integer(
    c"bf-expansion-factor",
    None,
    &EXPANSION,
    [errors::CONFIG_EXPANSION_RANGE; 2],
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

/// Ours: the kind of filter made on an empty key, 1 for valkey-bloom's, 0 for RedisBloom's.
static FLAVOUR: Setting = Setting::new(
    c"bf-flavour",
    None,
    |text| match () {
        () if text.eq_ignore_ascii_case(b"redisbloom") => Ok(0),
        () if text.eq_ignore_ascii_case(b"valkey-bloom") => Ok(1),
        () => Err(errors::CONFIG_BAD_FLAVOUR),
    },
    |value| {
        if value == 1 {
            "valkey-bloom"
        } else {
            "redisbloom"
        }
        .into()
    },
    0,
)
.at_load_only();

static BLOOM_CAPACITY: Setting = Setting::new(
    c"bloom-capacity",
    None,
    |text| {
        whole(
            text,
            1,
            i64::MAX as u64,
            errors::CONFIG_BLOOM_CAPACITY_RANGE,
        )
    },
    show_number,
    100,
);

static BLOOM_EXPANSION: Setting = Setting::new(
    c"bloom-expansion",
    None,
    |text| {
        whole(
            text,
            0,
            u32::MAX.into(),
            errors::CONFIG_BLOOM_EXPANSION_RANGE,
        )
    },
    show_number,
    2,
);

static BLOOM_FP_RATE: Setting = Setting::new(
    c"bloom-fp-rate",
    None,
    |text| rate(text, errors::VALKEY_ERROR_RATE_RANGE),
    show_rate,
    0.01f64.to_bits(),
);

static BLOOM_TIGHTENING: Setting = Setting::new(
    c"bloom-tightening-ratio",
    None,
    |text| rate(text, errors::TIGHTENING_RANGE),
    show_rate,
    0.5f64.to_bits(),
);

static BLOOM_RANDOM_SEED: Setting = Setting::new(
    c"bloom-use-random-seed",
    None,
    |text| yes_or_no(text, errors::CONFIG_YES_OR_NO),
    show_yes_or_no,
    1,
);

static BLOOM_MEMORY_LIMIT: Setting = Setting::new(
    c"bloom-memory-usage-limit",
    None,
    |text| whole(text, 0, i64::MAX as u64, errors::CONFIG_BLOOM_LIMIT_RANGE),
    show_number,
    valkey::OBJECT_LIMIT,
);

static BLOOM_DEFRAG: Setting = Setting::new(
    c"bloom-defrag-enabled",
    None,
    |text| yes_or_no(text, errors::CONFIG_YES_OR_NO),
    show_yes_or_no,
    1,
);

/// The family's configs, in registration order.
pub static SETTINGS: &[&Setting] = &[
    &ERROR_RATE,
    &INITIAL_SIZE,
    &EXPANSION_FACTOR,
    &LAYOUT,
    &FLAVOUR,
    &BLOOM_CAPACITY,
    &BLOOM_EXPANSION,
    &BLOOM_FP_RATE,
    &BLOOM_TIGHTENING,
    &BLOOM_RANDOM_SEED,
    &BLOOM_MEMORY_LIMIT,
    &BLOOM_DEFRAG,
];

/// An integer in `[min, max]`, as Valkey reads its numeric configs.
fn whole(text: &[u8], min: u64, max: u64, range: &'static CStr) -> Result<u64, &'static CStr> {
    let n = std::str::from_utf8(text)
        .ok()
        .and_then(|text| text.parse::<i128>().ok())
        .ok_or(errors::CONFIG_NOT_AN_INTEGER)?;
    u64::try_from(n)
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or(range)
}

/// A rate in (0, 1) as valkey-bloom's commands read it, kept as the `f64`'s bits.
fn rate(text: &[u8], range: &'static CStr) -> Result<u64, &'static CStr> {
    fraction(text)
        .map(f64::to_bits)
        .map_err(|fault| fault.text(errors::CONFIG_NOT_A_FLOAT, range))
}

/// Whether filters made on an empty key are valkey-bloom's (`bf-flavour valkey-bloom`).
pub fn valkey_flavour() -> bool {
    FLAVOUR.get() == 1
}

/// The `bloom-*` configs now: the parameters of a valkey-bloom filter made without explicit
/// ones, its seed `random` when `bloom-use-random-seed` is on (asked only then), else
/// valkey-bloom's fixed seed.
pub fn valkey_params(random: impl FnOnce() -> Seed) -> valkey::Params {
    let seed_random = BLOOM_RANDOM_SEED.get() == 1;
    valkey::Params {
        capacity: i64::try_from(BLOOM_CAPACITY.get()).unwrap_or(i64::MAX),
        fp_rate: f64::from_bits(BLOOM_FP_RATE.get()),
        tightening: f64::from_bits(BLOOM_TIGHTENING.get()),
        expansion: u32::try_from(BLOOM_EXPANSION.get()).unwrap_or(u32::MAX),
        seed: if seed_random { random() } else { FIXED_SEED },
        seed_random,
    }
}

/// `bloom-memory-usage-limit`: the most bytes a valkey-bloom filter may hold.
pub fn valkey_object_limit() -> u64 {
    BLOOM_MEMORY_LIMIT.get()
}

/// `bloom-defrag-enabled`: whether active defrag moves valkey-bloom filters.
pub fn valkey_defrag() -> bool {
    BLOOM_DEFRAG.get() == 1
}

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
