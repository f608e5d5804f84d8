//! HeavyKeeper's decay: when an item meets a bucket held by another fingerprint, each unit
//! of its increment decrements that bucket with probability `decay^count`. RedisBloom draws
//! the chance from `rand()`; here it is a pure function of the sketch's saved state and the
//! command (the module documentation says why that is enough and what it changes).

use crate::core::hash::{splitmix64_mix, GOLDEN_GAMMA};
use crate::core::relocate::{Mover, Relocate};
use crate::core::{try_vec, Error};

/// Entries of the probability table (`TOPK_DECAY_LOOKUP_TABLE`).
const TABLE_LEN: u32 = 256;

/// `decay^i` for `i` in 0..256 (`lookupTable`).
///
/// Filled by repeated multiplication, as RedisBloom 8 fills it on RDB load, where its
/// `TOPK.RESERVE` uses `pow`: both give exactly 1.0 everywhere for decay 1, the only decay
/// whose results can match RedisBloom's, and multiplication gives the same bits on every
/// platform, which a replica on another libm needs.
#[derive(Debug, PartialEq)]
pub(super) struct DecayTable(Vec<f64>);

impl Relocate for DecayTable {
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(&mut self.0);
    }
}

impl DecayTable {
    pub(super) fn new(decay: f64) -> Result<DecayTable, Error> {
        let mut table = try_vec(TABLE_LEN as usize)?;
        let mut power = 1.0;
        for _ in 0..TABLE_LEN {
            table.push(power);
            power *= decay;
        }
        Ok(DecayTable(table))
    }

    fn entry(&self, i: u32) -> f64 {
        self.0.get(i as usize).copied().unwrap_or(0.0)
    }

    /// The chance that one unit of increment decrements a bucket of count `count`:
    /// `decay^count`, from the table below 256 and, as RedisBloom computes it above,
    /// `table[255]^(count / 255) · table[count % 255]` (255, not 256: the same value).
    pub(super) fn probability(&self, count: u32) -> f64 {
        if count < TABLE_LEN {
            self.entry(count)
        } else {
            let last = TABLE_LEN - 1;
            power(self.entry(last), count / last) * self.entry(count % last)
        }
    }
}

/// `base^exponent` by squaring: exact IEEE steps, so the same bits on every platform (where
/// RedisBloom calls `pow`).
fn power(mut base: f64, mut exponent: u32) -> f64 {
    let mut result = 1.0;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result *= base;
        }
        base *= base;
        exponent >>= 1;
    }
    result
}

/// The chances of one item's decay attempts in one command, in the order they come: a
/// SplitMix64 stream seeded, at the item's first attempt, with its fingerprint and a digest
/// of its bucket in every row as they are then. A chance is compared with `probability <`,
/// as RedisBloom compares `rand() / RAND_MAX`, so probability 1 always decrements — as
/// RedisBloom does but for `rand() == RAND_MAX`, once in 2^31 draws — and probability 0
/// never does.
pub(super) struct Chances(u64);

impl Chances {
    /// The stream of an item of fingerprint `item_fp` whose buckets [`digest`] to
    /// `item_buckets`.
    pub(super) fn seeded(item_fp: u32, item_buckets: u64) -> Chances {
        Chances(splitmix64_mix(
            DRAW_SEED ^ item_buckets ^ u64::from(item_fp),
        ))
    }

    /// The next chance, in [0, 1): the top 53 bits of the next output.
    pub(super) fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        (splitmix64_mix(self.0) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// A digest of an item's buckets, each as `(fingerprint, count)`, row by row: a
/// multiply-rotate chain, which [`Chances::seeded`] mixes whole.
pub(super) fn digest(buckets: impl Iterator<Item = (u32, u32)>) -> u64 {
    buckets.fold(DIGEST_SEED, |h, (fp, count)| {
        (h ^ (u64::from(fp) << 32 | u64::from(count)))
            .wrapping_mul(GOLDEN_GAMMA)
            .rotate_left(29)
    })
}

/// Arbitrary odd constants (the fractional parts of √2 and √3), so that an all-zero input
/// does not mix to zero.
const DRAW_SEED: u64 = 0x6a09_e667_f3bc_c909;
const DIGEST_SEED: u64 = 0xbb67_ae85_84ca_a73b;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_powers_of_the_decay() {
        let table = DecayTable::new(0.9).unwrap();
        assert_eq!(table.probability(0), 1.0);
        assert_eq!(table.probability(1), 0.9);
        for count in [2, 100, 255, 256, 511, 1000, 70_000] {
            let exact = 0.9f64.powi(count as i32);
            let got = table.probability(count);
            assert!(
                (got - exact).abs() <= exact * 1e-12,
                "{count}: {got} {exact}"
            );
        }
        let one = DecayTable::new(1.0).unwrap();
        assert!([1, 255, 256, 99_999, u32::MAX]
            .iter()
            .all(|&c| one.probability(c) == 1.0));
        // Large counts underflow to exactly 0, as in RedisBloom: no draw can decay them.
        assert_eq!(table.probability(100_000), 0.0);
    }

    #[test]
    fn chances_lie_in_the_unit_interval_and_spread_evenly() {
        let mut buckets = [0u64; 10];
        for n in 0..20_000u32 {
            let item_buckets = digest([(n, 1), (7, n)].into_iter());
            let mut chances = Chances::seeded(n.wrapping_mul(2_654_435_761), item_buckets);
            for _ in 0..5 {
                let c = chances.next();
                assert!((0.0..1.0).contains(&c));
                buckets[(c * 10.0) as usize] += 1;
            }
        }
        assert!(
            buckets.iter().all(|&b| (9_500..10_500).contains(&b)),
            "{buckets:?}"
        );
    }
}
