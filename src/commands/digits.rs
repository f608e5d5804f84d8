//! Decimal digits read fast, for the parsers of integers (`args`) and doubles (`double`):
//! eight at a time, as one word, where eight are there.

/// The decimal digits `bytes` begins with, read after those of `value`: the number they all
/// make, and how many of `bytes` they are. The caller keeps the digits, `value`'s included, to
/// at most 19, whose number a `u64` holds.
#[inline]
pub fn decimal_digits(value: u64, bytes: &[u8]) -> (u64, usize) {
    // Words of eight first, where eight are there (one by one a digit costs some 15
    // instructions); a short text, the common increment, skips their frame.
    let (mut value, rest) = if bytes.len() >= 8 {
        eight_at_a_time(value, bytes)
    } else {
        (value, bytes)
    };
    let mut taken = bytes.len() - rest.len();
    for &byte in rest {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value * 10 + u64::from(digit);
        taken += 1;
    }
    (value, taken)
}

/// [`decimal_digits`] of the words of eight digits `bytes` begins with: the number so far, and
/// the bytes after them.
#[inline(never)]
fn eight_at_a_time(mut value: u64, bytes: &[u8]) -> (u64, &[u8]) {
    let mut rest = bytes;
    while let Some((eight, tail)) = rest.split_first_chunk::<8>() {
        let Some(number) = eight_digits(*eight) else {
            break;
        };
        value = value * 100_000_000 + number;
        rest = tail;
    }
    (value, rest)
}

/// The number eight decimal digits make, or `None` unless all eight are digits: the digits'
/// bytes as one little-endian word, checked and combined in three multiplications (as
/// simdjson's `is_made_of_eight_digits_fast` and `parse_eight_digits_unrolled` do).
fn eight_digits(bytes: [u8; 8]) -> Option<u64> {
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    let word = u64::from_le_bytes(bytes);
    // A byte is a digit when its high nibble is 3, and still is once 6 is added to it.
    let nibbles =
        (word & HIGH_NIBBLES) | ((word.wrapping_add(0x0606_0606_0606_0606) & HIGH_NIBBLES) >> 4);
    if nibbles != 0x3333_3333_3333_3333 {
        return None;
    }
    // Each byte a digit, the first (the most significant) lowest: pairs, then fours, then all.
    let digits = word - 0x3030_3030_3030_3030;
    let pairs = digits.wrapping_mul(10).wrapping_add(digits >> 8);
    const PAIR_MASK: u64 = 0x0000_00FF_0000_00FF;
    let high = (pairs & PAIR_MASK).wrapping_mul(100 + (1_000_000 << 32));
    let low = ((pairs >> 16) & PAIR_MASK).wrapping_mul(1 + (10_000 << 32));
    Some(high.wrapping_add(low) >> 32)
}
