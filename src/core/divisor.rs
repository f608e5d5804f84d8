//! Remainders by a divisor fixed when a structure is made, without a division instruction.
//!
//! Sketches take every hash modulo their width, once per row, on every write and read, and
//! Bloom filters every probe modulo their bit count, and a division is the slowest instruction
//! of that path (tens of cycles on most x86 cores). With the divisor's reciprocal computed once,
//! a remainder is two multiplications: Lemire, Kaser and Kurz, "Faster remainder by direct
//! computation" (Software: Practice and Experience, 2019), Theorem 1. So the columns and bits,
//! and the bytes they lead to, are those of the division.
//!
//! Two widths of dividend, two types: [`Divisor`] for 32-bit hashes (the sketches'), whose
//! 64-bit reciprocal costs 64-bit products, and [`WideDivisor`] for 64-bit ones (a Bloom
//! filter's probes, `(a + i·b) mod m` as RedisBloom takes it), which needs a 128-bit one.

/// A divisor and its 64-bit reciprocal, `⌈2^64 / divisor⌉` (wrapped to 0 for 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Divisor {
    divisor: u64,
    reciprocal: u64,
}

impl Divisor {
    /// `divisor`: any; 0 gives remainders of 0 rather than a panic (no structure has a width
    /// of 0).
    pub fn new(divisor: u64) -> Divisor {
        let reciprocal = match u32::try_from(divisor) {
            Ok(_) => u64::MAX
                .checked_div(divisor)
                .map_or(0, |q| q.wrapping_add(1)),
            // A hash is below such a divisor: it is its own remainder.
            Err(_) => 0,
        };
        Divisor {
            divisor,
            reciprocal,
        }
    }

    /// The divisor.
    pub fn divisor(&self) -> u64 {
        self.divisor
    }

    /// `hash % divisor`.
    #[inline(always)]
    pub fn remainder(&self, hash: u32) -> u64 {
        if self.divisor > u64::from(u32::MAX) {
            return u64::from(hash);
        }
        let fraction = self.reciprocal.wrapping_mul(u64::from(hash));
        ((u128::from(fraction) * u128::from(self.divisor)) >> 64) as u64
    }
}

/// A divisor of 64-bit dividends and its 128-bit reciprocal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WideDivisor {
    divisor: u64,
    /// `⌈2¹²⁸ / d⌉`, or 0 for powers of two (masked instead).
    magic: u128,
}

impl WideDivisor {
    /// Prepares division by `divisor` (0 is treated as 1: every remainder is 0).
    pub fn new(divisor: u64) -> WideDivisor {
        let divisor = divisor.max(1);
        let magic = if divisor.is_power_of_two() {
            0
        } else {
            u128::MAX / u128::from(divisor) + 1
        };
        WideDivisor { divisor, magic }
    }

    /// The divisor.
    pub fn divisor(&self) -> u64 {
        self.divisor
    }

    /// `x % divisor`.
    #[inline]
    pub fn remainder(&self, x: u64) -> u64 {
        if self.magic == 0 {
            return x & (self.divisor - 1);
        }
        let fraction = self.magic.wrapping_mul(u128::from(x));
        // The high 128 bits of the 192-bit product `fraction · d`, in 64-bit halves.
        let d = u128::from(self.divisor);
        let high = (fraction >> 64) * d;
        let low = (u128::from(fraction as u64) * d) >> 64;
        ((high + low) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testing::Rng;

    #[test]
    fn wide_remainders_are_those_of_the_division() {
        let mut rng = Rng::new(0x9e37);
        let mut divisors = vec![
            1,
            2,
            3,
            7,
            64,
            1152,
            1600,
            791_040,
            (1 << 33) + 64,
            u64::MAX,
            u64::MAX - 1,
            1 << 63,
        ];
        divisors.extend((0..200).map(|_| rng.next() >> (rng.next() % 64)));
        for d in divisors {
            let divisor = WideDivisor::new(d);
            let edges = [
                0,
                1,
                d.wrapping_sub(1),
                d,
                d.wrapping_add(1),
                u64::MAX,
                u64::MAX - 1,
            ];
            let random: Vec<u64> = (0..2000).map(|_| rng.next()).collect();
            for x in edges.into_iter().chain(random) {
                assert_eq!(divisor.remainder(x), x % d.max(1), "{x} % {d}");
            }
        }
    }

    fn check(divisor: u64, hash: u32) {
        let expected = u64::from(hash).checked_rem(divisor).unwrap_or(0);
        assert_eq!(
            Divisor::new(divisor).remainder(hash),
            expected,
            "{hash} % {divisor}"
        );
    }

    #[test]
    fn remainders_are_those_of_the_division() {
        let edges = |n: u64| [n.saturating_sub(1), n, n + 1];
        let mut divisors: Vec<u64> = (0..=1000).collect();
        for bits in 1..=34 {
            divisors.extend(edges(1 << bits));
        }
        divisors.extend(edges(u64::from(u32::MAX)));
        divisors.extend([2000, 2719, 100_000, 1 << 40, u64::MAX]);
        let mut rng = Rng::new(7);
        for &divisor in &divisors {
            for hash in [0, 1, 2, u32::MAX, u32::MAX - 1, 1 << 31] {
                check(divisor, hash);
            }
            for d in [divisor.saturating_sub(1), divisor, divisor + 1] {
                if let Ok(hash) = u32::try_from(d) {
                    check(divisor, hash);
                }
            }
            for _ in 0..200 {
                check(divisor, rng.below(1 << 32) as u32);
            }
        }
        for _ in 0..200_000 {
            let divisor = 1 + rng.below(u64::from(u32::MAX));
            check(divisor, rng.below(1 << 32) as u32);
        }
    }
}
