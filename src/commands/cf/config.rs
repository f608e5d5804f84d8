//! The `cf-*` configs (RedisBloom 8's `src/config.c`): `cf-bucket-size`, `cf-initial-size`,
//! `cf-max-iterations` and `cf-expansion-factor`, the shape of filters created without
//! explicit parameters, which changing affects only filters created afterwards; and
//! `cf-max-expansions`, a limit every CF insert checks. Two ranges are coupled (see
//! [`rules`](super::rules)): each is checked against the other's value now.

use super::errors;
use super::rules::{bucket_sizes, capacities, Defaults, EXPANSION, MAX_EXPANSIONS, MAX_ITERATIONS};
use crate::commands::setting::{integer_within, show_number, Setting};

static BUCKET_SIZE: Setting = Setting::new(
    c"cf-bucket-size",
    None,
    |text| {
        let range = bucket_sizes(INITIAL_SIZE.get());
        let max = u8::try_from(*range.end()).unwrap_or(u8::MAX);
        let range_text = errors::config_bucket_size_range(max);
        integer_within(text, &range, errors::CONFIG_BAD_BUCKET_SIZE, range_text)
    },
    show_number,
    Defaults::REDISBLOOM.bucket_size as u64,
);

static INITIAL_SIZE: Setting = Setting::new(
    c"cf-initial-size",
    None,
    |text| {
        let bucket_size = u8::try_from(BUCKET_SIZE.get()).unwrap_or(u8::MAX);
        let range = capacities(bucket_size.into());
        let range_text = errors::config_initial_size_range(bucket_size);
        integer_within(text, &range, errors::CONFIG_BAD_INITIAL_SIZE, range_text)
    },
    show_number,
    Defaults::REDISBLOOM.initial_size,
);

static MAX_ITERATIONS_SETTING: Setting = Setting::integer(
    c"cf-max-iterations",
    None,
    &MAX_ITERATIONS,
    [
        errors::CONFIG_BAD_MAX_ITERATIONS,
        errors::CONFIG_MAX_ITERATIONS_RANGE,
    ],
    Defaults::REDISBLOOM.max_iterations as u64,
);

static EXPANSION_FACTOR: Setting = Setting::integer(
    c"cf-expansion-factor",
    None,
    &EXPANSION,
    [errors::CONFIG_BAD_EXPANSION, errors::CONFIG_EXPANSION_RANGE],
    Defaults::REDISBLOOM.expansion as u64,
);

static MAX_EXPANSIONS_SETTING: Setting = Setting::integer(
    c"cf-max-expansions",
    Some("CF_MAX_EXPANSIONS"),
    &MAX_EXPANSIONS,
    [
        errors::CONFIG_BAD_MAX_EXPANSIONS,
        errors::CONFIG_MAX_EXPANSIONS_RANGE,
    ],
    Defaults::REDISBLOOM.max_expansions as u64,
);

/// The family's configs, in registration order (a config file's values are applied in it:
/// the bucket size before the initial size it bounds, as RedisBloom 8 registers them).
pub static SETTINGS: &[&Setting] = &[
    &BUCKET_SIZE,
    &INITIAL_SIZE,
    &MAX_ITERATIONS_SETTING,
    &EXPANSION_FACTOR,
    &MAX_EXPANSIONS_SETTING,
];

/// The `cf-*` configs now (each stored within its range, so the narrowing is exact).
pub fn defaults() -> Defaults {
    let narrow = |setting: &Setting| u16::try_from(setting.get()).unwrap_or(u16::MAX);
    Defaults {
        initial_size: INITIAL_SIZE.get(),
        bucket_size: narrow(&BUCKET_SIZE),
        max_iterations: narrow(&MAX_ITERATIONS_SETTING),
        expansion: narrow(&EXPANSION_FACTOR),
        max_expansions: u32::try_from(MAX_EXPANSIONS_SETTING.get()).unwrap_or(u32::MAX),
    }
}
