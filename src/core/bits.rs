//! The one bit order of every bit array the filters keep — RedisBloom's (`bloom.c`,
//! `buf[x >> 3] & (1 << (x % 8))`), which valkey-bloom's bitmaps and our own layouts share:
//! bit `x` is bit `x % 8` of byte `x / 8`, least significant first. That is `bitvec`'s
//! `BitSlice<u8, Lsb0>`, so the arrays are viewed through it, as the bytes they are saved as:
//! no copy, no other type to convert.

use bitvec::order::Lsb0;
use bitvec::view::BitView;

// Each access views the one byte holding the bit: a view of the whole array costs a probe
// about three instructions more (its span is encoded, then the index decoded from it), which
// `BF.MEXISTS` ×100 showed as 20 more instructions an item and `BF.MADD` ×100 as 55
// (bench/instructions.py).

/// Whether bit `bit` of `bytes` is set; false past the end.
#[inline]
pub fn is_set(bytes: &[u8], bit: usize) -> bool {
    bytes
        .get(bit / 8)
        .is_some_and(|byte| byte.view_bits::<Lsb0>()[bit % 8])
}

/// Sets bit `bit` of `bytes`: whether it was clear. Past the end nothing changes (false).
#[inline]
pub fn set(bytes: &mut [u8], bit: usize) -> bool {
    bytes
        .get_mut(bit / 8)
        .is_some_and(|byte| !byte.view_bits_mut::<Lsb0>().replace(bit % 8, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_numbered_least_significant_first_within_each_byte() {
        let mut bytes = [0u8; 3];
        for bit in [0, 3, 8, 23] {
            assert!(set(&mut bytes, bit));
            assert!(!set(&mut bytes, bit), "{bit} was set already");
        }
        assert_eq!(bytes, [0b1001, 0b1, 0b1000_0000]);
        for bit in 0..24 {
            let redisbloom = bytes[bit >> 3] & (1 << (bit % 8)) != 0;
            assert_eq!(is_set(&bytes, bit), redisbloom, "{bit}");
        }
        // Past the end: unset, and nothing written.
        assert!(!is_set(&bytes, 24) && !set(&mut bytes, 24));
        assert_eq!(bytes, [0b1001, 0b1, 0b1000_0000]);
    }
}
