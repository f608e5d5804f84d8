//! Where a classic sub-filter's probes fall, RedisBloom's positions computed with two
//! remainders per item instead of one division per probe.

use crate::core::divisor::WideDivisor;
use crate::core::hash::HashPair;

/// How a classic sub-filter turns an item's hash into bit positions: RedisBloom's
/// `x = (a + i·b) % m` for i in 0..k, the sum wrapping at 64 bits (`CHECK_ADD_FUNC` in
/// `deps/bloom/bloom.c`; its 32-bit variant computes the same values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ProbeRule {
    modulus: WideDivisor,
    /// 2⁶⁴ mod m: what a wrap of the 64-bit sum takes off its remainder.
    wrap: u64,
    hashes: u32,
}

impl ProbeRule {
    pub(super) fn new(modulus: u64, hashes: u32) -> ProbeRule {
        let modulus = WideDivisor::new(modulus);
        // 2⁶⁴ mod m = ((2⁶⁴ − 1) mod m + 1) mod m.
        let below = modulus.remainder(u64::MAX) + 1;
        let wrap = if below == modulus.divisor() { 0 } else { below };
        ProbeRule {
            modulus,
            wrap,
            hashes,
        }
    }

    /// The bits `hash` probes, in order.
    #[inline]
    pub(super) fn probes(&self, hash: HashPair) -> Probes {
        let modulus = self.modulus.divisor();
        let step = self.modulus.remainder(hash.b);
        let wrapped_step = if step >= self.wrap {
            step - self.wrap
        } else {
            step + (modulus - self.wrap)
        };
        Probes {
            bit: self.modulus.remainder(hash.a),
            sum: hash.a,
            b: hash.b,
            step,
            wrapped_step,
            modulus,
            left: self.hashes,
        }
    }
}

/// The bit positions of one item: RedisBloom divides once per probe; here each position
/// follows from the previous one by adding `b mod m` — less `2⁶⁴ mod m` when the 64-bit sum
/// `a + i·b` wraps — and taking m off once if that passes m. Two remainders per item then,
/// whatever k is, and the same positions exactly.
#[derive(Debug, Clone, Copy)]
pub(super) struct Probes {
    /// The next position, `sum mod m`.
    bit: u64,
    /// `a + i·b`, wrapping at 64 bits.
    sum: u64,
    b: u64,
    /// `b mod m`, and the same less `2⁶⁴ mod m`, modulo m.
    step: u64,
    wrapped_step: u64,
    modulus: u64,
    left: u32,
}

impl Iterator for Probes {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let bit = self.bit;
        let (sum, wrapped) = self.sum.overflowing_add(self.b);
        self.sum = sum;
        let step = if wrapped {
            self.wrapped_step
        } else {
            self.step
        };
        // bit, step < m, so the sum is below 2m: one subtraction reduces it (a 64-bit
        // overflow means it is above m too).
        let (next, overflowed) = bit.overflowing_add(step);
        self.bit = if overflowed || next >= self.modulus {
            next.wrapping_sub(self.modulus)
        } else {
            next
        };
        Some(bit as usize)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bf::xorshift;

    #[test]
    fn probes_are_redisbloom_remainders() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut moduli = vec![
            1,
            2,
            3,
            64,
            1152,
            1 << 33,
            95_850_560,
            (1 << 63) - 1,
            1 << 63,
            (1 << 63) + 1,
            u64::MAX - 1,
            u64::MAX,
        ];
        moduli.extend((0..300).map(|_| next() >> (next() % 64)).filter(|&m| m > 0));
        for m in moduli {
            let rule = ProbeRule::new(m, 40);
            let mut hashes = vec![
                HashPair { a: 0, b: 0 },
                HashPair {
                    a: u64::MAX,
                    b: u64::MAX,
                },
                HashPair {
                    a: u64::MAX - 3,
                    b: 1,
                },
                HashPair {
                    a: 5,
                    b: u64::MAX - 1,
                },
            ];
            hashes.extend((0..200).map(|_| HashPair {
                a: next(),
                b: next(),
            }));
            for h in hashes {
                let expected: Vec<usize> = (0..40u64)
                    .map(|i| (h.a.wrapping_add(i.wrapping_mul(h.b)) % m) as usize)
                    .collect();
                assert_eq!(
                    rule.probes(h).collect::<Vec<_>>(),
                    expected,
                    "m = {m}, {h:?}"
                );
            }
        }
    }
}
