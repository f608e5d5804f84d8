//! Remainders by a divisor fixed when a structure is made, without a division instruction.
//!
//! Sketches take every hash modulo their width, once per row, on every write and read, and a
//! division is the slowest instruction of that path (tens of cycles on most x86 cores). With
//! the width's reciprocal computed once, a remainder is two multiplications: Lemire, Kaser and
//! Kurz, "Faster remainder by direct computation" (Software: Practice and Experience, 2019),
//! Theorem 1, which with a 64-bit reciprocal is exact for every 32-bit dividend and divisor.
//! So the columns, and the bytes they lead to, are those of `hash % width`.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testing::Rng;

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
