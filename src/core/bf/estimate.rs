//! How many items a Bloom array holds, told from its bits: what a union of filters counts,
//! since items added to two of them are one item in their union, not two.
//!
//! Swamidass and Baldi, *Mathematical correction for fingerprint similarity measures to
//! improve information retrieval performance* (J. Chem. Inf. Model. 47, 2007): an array of `m`
//! bits of which `X` are set, each item setting `k`, most likely holds
//! `n = −(m/k)·ln(1 − X/m)` items, with a variance of about `m·(e^(kn/m) − 1 − kn/m) / k²`.
//! Guava's `BloomFilter.approximateElementCount` is the same estimate.

/// How far past its capacity, in standard deviations of the estimate, a merged array must
/// count before it is past it: a full array merged with a copy of itself is at its capacity.
const SPREADS_ALLOWED: f64 = 4.0;

/// Whether an array estimated to hold `estimate` items, with a spread of `spread`, is past
/// its `capacity` by more than chance: a union that must be refused (`BF.MERGE`).
pub fn past_capacity(estimate: u64, spread: f64, capacity: u64) -> bool {
    estimate as f64 > capacity as f64 + SPREADS_ALLOWED * spread
}

/// The estimated items of an array of `bits` bits, `set` of them set, `hashes` set per item:
/// rounded to the nearest item. An array with every bit set could hold any number: it counts
/// as one with a bit to spare, the most its bits can tell (so a count stays a count).
pub fn estimated_items(bits: u64, set: u64, hashes: u32) -> u64 {
    if bits == 0 {
        return 0;
    }
    let set = set.min(bits - 1);
    let (m, x, k) = (bits as f64, set as f64, f64::from(hashes.max(1)));
    let n = -(m / k) * (-x / m).ln_1p();
    n.round() as u64
}

/// The standard deviation of the estimate for an array of `bits` bits holding `items`, each
/// setting `hashes`: how far an estimate may stray from the true count by chance alone. Never
/// more than `items` (an array loaded far past what its bits can tell would otherwise allow
/// any count).
pub fn estimate_spread(bits: u64, items: u64, hashes: u32) -> f64 {
    let (m, n, k) = (bits as f64, items as f64, f64::from(hashes.max(1)));
    let load = k * n / m.max(1.0);
    let spread = (m * (load.exp_m1() - load)).max(0.0).sqrt() / k;
    if spread.is_finite() {
        spread.min(n)
    } else {
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bits;

    /// A 64-bit generator for the tests' positions (SplitMix64's sequence).
    fn positions(seed: u64) -> impl Iterator<Item = u64> {
        let mut state = seed;
        std::iter::repeat_with(move || {
            state = state.wrapping_add(crate::core::hash::GOLDEN_GAMMA);
            crate::core::hash::splitmix64_mix(state)
        })
    }

    #[test]
    fn the_estimate_of_random_fills_is_within_its_spread() {
        let (bits, hashes) = (1u64 << 20, 7);
        for items in [0u64, 1, 1000, 50_000, 109_000, 200_000] {
            let mut array = vec![0u8; (bits / 8) as usize];
            let mut draws = positions(items);
            for _ in 0..items * u64::from(hashes) {
                bits::set(&mut array, (draws.next().unwrap() % bits) as usize);
            }
            let set = array.iter().map(|b| u64::from(b.count_ones())).sum();
            let estimate = estimated_items(bits, set, hashes);
            let spread = estimate_spread(bits, items, hashes);
            let off = (estimate as f64 - items as f64).abs();
            assert!(off <= 4.0 * spread + 1.0, "{items}: {estimate} ±{spread}");
        }
    }

    #[test]
    fn empty_and_full_arrays() {
        assert_eq!(estimated_items(1024, 0, 7), 0);
        // Every bit set: as with one to spare, (1024/7)·ln(1024).
        assert_eq!(estimated_items(1024, 1024, 7), 1014);
        assert_eq!(estimated_items(1024, 5000, 7), 1014);
        assert_eq!(estimated_items(0, 0, 7), 0);
        assert_eq!(estimate_spread(1024, 0, 7), 0.0);
        // Far past what the bits tell: bounded by the count.
        assert_eq!(estimate_spread(64, 1000, 40), 1000.0);
    }
}
