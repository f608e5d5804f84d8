//! Exact `x mod d` without a division instruction, for the classic layout's probes.
//!
//! RedisBloom reduces every probe with a 64-bit `%` by the (non-power-of-two) bit count: k
//! hardware divisions per item per sub-filter. Lemire, Kaser and Kurz ("Faster Remainder by
//! Direct Computation", 2019) show that with `M = ⌈2¹²⁸ / d⌉` the remainder is
//! `⌊((M · x) mod 2¹²⁸) · d / 2¹²⁸⌋`, exact for every 64-bit x and d: two multiplications.

/// A precomputed divisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Divisor {
    divisor: u64,
    /// `⌈2¹²⁸ / d⌉`, or 0 for powers of two (masked instead).
    magic: u128,
}

impl Divisor {
    /// Prepares division by `divisor` (0 is treated as 1: every remainder is 0).
    pub fn new(divisor: u64) -> Divisor {
        let divisor = divisor.max(1);
        let magic = if divisor.is_power_of_two() {
            0
        } else {
            u128::MAX / u128::from(divisor) + 1
        };
        Divisor { divisor, magic }
    }

    /// The divisor.
    pub fn divisor(&self) -> u64 {
        self.divisor
    }

    /// `x % d`.
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
    use crate::core::bf::xorshift;

    #[test]
    fn equals_the_hardware_remainder() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
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
        divisors.extend((0..200).map(|_| next() >> (next() % 64)));
        for d in divisors {
            let divisor = Divisor::new(d);
            for x in [
                0,
                1,
                d.wrapping_sub(1),
                d,
                d.wrapping_add(1),
                u64::MAX,
                u64::MAX - 1,
            ] {
                assert_eq!(divisor.remainder(x), x % d.max(1), "{x} % {d}");
            }
            for _ in 0..2000 {
                let x = next();
                assert_eq!(divisor.remainder(x), x % d.max(1), "{x} % {d}");
            }
        }
    }
}
