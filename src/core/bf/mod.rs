//! The Bloom-filter family: RedisBloom's scalable Bloom filter, bit-exact, the fast
//! cache-line-blocked layout beside it, the filters that forget, and valkey-bloom's filters.
//!
//! * [`sizing`] — bits and probes of a classic sub-filter from its capacity and error rate;
//! * [`blocked`] — the fast, cache-line-blocked layout;
//! * [`shape`] — a sub-filter's shape in either layout: everything but its bits;
//! * `probes` — where a classic sub-filter's probes fall;
//! * [`filter`] — one sub-filter's bit array, in RedisBloom's layout or the blocked one;
//! * [`chain`] — the scalable chain stored under a key, and the union of chains of one shape;
//! * `estimate` — how many items a union holds, told from its bits;
//! * [`encoding`] — SCANDUMP header and chunks;
//! * [`rdb`] — the RDB fields of both Bloom data types;
//! * [`window`] — Bloom filters that forget, with their own encodings;
//! * [`valkey`] — valkey-bloom's filters, its data type and formats.

pub mod blocked;
pub mod chain;
pub mod encoding;
mod estimate;
pub mod filter;
mod probes;
pub mod rdb;
pub mod shape;
pub mod sizing;
pub mod valkey;
pub mod window;

/// A xorshift generator (Marsaglia's 13, 7, 17), so that randomised tests reproduce.
#[cfg(test)]
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// The share of `trials` items never added (`other:0`, `other:1`, …) that `contains` finds.
#[cfg(test)]
fn false_positive_rate(trials: u64, contains: impl Fn(&[u8]) -> bool) -> f64 {
    let hits = (0..trials)
        .filter(|i| contains(format!("other:{i}").as_bytes()))
        .count();
    hits as f64 / trials as f64
}

/// Checks that a full filter's [`false_positive_rate`] is within ten percent of the `error`
/// rate it was configured for.
#[cfg(test)]
fn assert_false_positive_rate_near(error: f64, trials: u64, contains: impl Fn(&[u8]) -> bool) {
    let rate = false_positive_rate(trials, contains);
    assert!(
        (rate - error).abs() <= error * 0.1,
        "rate {rate} for configured {error}"
    );
}
