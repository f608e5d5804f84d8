//! A double as C's `printf("%.17g")` writes it: how Redis before 7.2 sends a double to a RESP2
//! client (`addReplyDouble` in its `src/networking.c`), so a reply built from this text is the
//! server's own, byte for byte. 17 significant digits, rounded to nearest with ties to even,
//! trailing zeros dropped, the exponent form below 1e-4 and from 1e17 up; `nan`, `-nan`, `inf`
//! and `-inf` as glibc spells them.
//!
//! glibc reaches the digits through multi-precision arithmetic, about 2,900 instructions a
//! double (more than half of a `TDIGEST.QUANTILE`). The digits are one integer, the value
//! times a power of ten, rounded: for a double from 1e-16 to about 1e46 that is one product or
//! one quotient in 128 bits, exact. Anything else (subnormals, the far ends of the range) goes
//! through Rust's own exact formatting (`{:.16e}`), which rounds the same way.

use std::fmt::Write;

/// The longest text: a sign, 17 digits, a point and `e-308`.
const LONGEST: usize = 24;

/// 10¹⁶ and 10¹⁷: 17 significant digits are an integer between them.
const TEN_TO_16: u64 = 10_000_000_000_000_000;
const TEN_TO_17: u64 = 100_000_000_000_000_000;

/// 5⁰ to 5⁵⁵, the powers of five below 2¹²⁸.
// Evaluated by the compiler: an index out of range would fail the build, never a call.
#[allow(clippy::indexing_slicing)]
const FIVES: [u128; 56] = {
    let mut fives = [1u128; 56];
    let mut i = 1;
    while i < fives.len() {
        fives[i] = fives[i - 1] * 5;
        i += 1;
    }
    fives
};

/// The text of one double (at most 24 bytes).
pub struct Printed {
    bytes: [u8; LONGEST],
    len: usize,
}

impl Printed {
    /// The text.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }

    fn extend(&mut self, bytes: &[u8]) {
        let written = self.write_str_bytes(bytes);
        debug_assert!(written.is_ok(), "a double's text outgrew its buffer");
    }

    fn write_str_bytes(&mut self, bytes: &[u8]) -> std::fmt::Result {
        let end = self.len + bytes.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }

    fn empty() -> Printed {
        Printed {
            bytes: [0; LONGEST],
            len: 0,
        }
    }
}

/// Rust's formatting writes into the same buffer (the fallback's `{:.16e}`).
impl Write for Printed {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.write_str_bytes(s.as_bytes())
    }
}

/// `printf("%.17g", x)`.
pub fn printf_g17(x: f64) -> Printed {
    let mut out = Printed::empty();
    if x.is_sign_negative() {
        out.extend(b"-");
    }
    let magnitude = x.abs();
    if x.is_nan() {
        out.extend(b"nan");
    } else if x.is_infinite() {
        out.extend(b"inf");
    } else if magnitude == 0.0 {
        out.extend(b"0");
    } else {
        let (digits, exponent) = exact_digits(magnitude).unwrap_or_else(|| formatted(magnitude));
        lay_out(&mut out, digits, exponent);
    }
    out
}

/// `%g`'s layout of 17 digits `d₀d₁…d₁₆` meaning `d₀.d₁…d₁₆ × 10^exponent`.
fn lay_out(out: &mut Printed, digits: u64, exponent: i32) {
    const ZEROS: [u8; 17] = [b'0'; 17];
    let mut text = ZEROS;
    // Nine digits and eight, each in 32 bits.
    let (high, low) = (digits / 100_000_000, digits % 100_000_000);
    write_digits(text.get_mut(9..).unwrap_or_default(), low as u32);
    write_digits(text.get_mut(..9).unwrap_or_default(), high as u32);
    let significant = 17
        - text
            .iter()
            .rev()
            .take_while(|&&d| d == b'0')
            .count()
            .min(16);
    let digits = text.get(..significant).unwrap_or_default();
    match exponent {
        -4..=-1 => {
            out.extend(
                b"0.000"
                    .get(..1 + exponent.unsigned_abs() as usize)
                    .unwrap_or_default(),
            );
            out.extend(digits);
        }
        0..=16 => {
            let whole = exponent as usize + 1;
            out.extend(digits.get(..whole).unwrap_or(digits));
            out.extend(ZEROS.get(significant..whole).unwrap_or_default());
            if let Some(fraction) = digits.get(whole..).filter(|f| !f.is_empty()) {
                out.extend(b".");
                out.extend(fraction);
            }
        }
        _ => {
            let (first, fraction) = digits.split_at(1);
            out.extend(first);
            if !fraction.is_empty() {
                out.extend(b".");
                out.extend(fraction);
            }
            out.extend(if exponent < 0 { b"e-" } else { b"e+" });
            // At least two digits, as C prints an exponent.
            let power = exponent.unsigned_abs();
            if power >= 100 {
                out.extend(&[b'0' + (power / 100) as u8]);
            }
            out.extend(PAIRS.get((power % 100) as usize).unwrap_or(&[b'0'; 2]));
        }
    }
}

/// "00" to "99".
// Evaluated by the compiler, as `FIVES`.
#[allow(clippy::indexing_slicing)]
const PAIRS: [[u8; 2]; 100] = {
    let mut pairs = [[0u8; 2]; 100];
    let mut i = 0;
    while i < 100 {
        pairs[i] = [b'0' + (i / 10) as u8, b'0' + (i % 10) as u8];
        i += 1;
    }
    pairs
};

/// `value`'s decimal digits, right-aligned in `slots` (which it fits), two at a time.
fn write_digits(slots: &mut [u8], mut value: u32) {
    let mut pairs = slots.rchunks_exact_mut(2);
    for pair in pairs.by_ref() {
        pair.copy_from_slice(PAIRS.get((value % 100) as usize).unwrap_or(&[b'0'; 2]));
        value /= 100;
    }
    if let Some(first) = pairs.into_remainder().first_mut() {
        *first = b'0' + (value % 10) as u8;
    }
}

/// The 17 digits of a positive normal double and its decimal exponent, computed exactly where
/// 128 bits suffice; `None` elsewhere.
fn exact_digits(x: f64) -> Option<(u64, i32)> {
    let bits = x.to_bits();
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        return None;
    }
    let mantissa = bits & ((1 << 52) - 1) | 1 << 52;
    let power_of_two = biased - 1075;
    // x lies in [2^(p+52), 2^(p+53)): its decimal exponent is ⌊(p+52)·log₁₀2⌋ or one more.
    let low = floor_log10_of_power_of_two(power_of_two + 52);
    for exponent in [low, low + 1] {
        let scaled = rounded_scaled(mantissa, power_of_two, 16 - exponent)?;
        // 10¹⁷: the digits rounded up to the next power of ten, or x was 10^(low+1).
        if scaled == TEN_TO_17 {
            return Some((TEN_TO_16, exponent + 1));
        }
        if scaled < TEN_TO_17 {
            return Some((scaled, exponent));
        }
    }
    None
}

/// ⌊n·log₁₀2⌋, for |n| ≤ 1100 (in integers: `f64::floor` is a call to libm).
fn floor_log10_of_power_of_two(n: i32) -> i32 {
    (n * 78_913) >> 18
}

/// `mantissa × 2^power_of_two × 10^decimals`, rounded to nearest, ties to even, when it can be
/// computed exactly in 128 bits: a product by a power of five, then a shift (a value below
/// 10¹⁷), or a quotient by a power of five (from 10¹⁷ up).
fn rounded_scaled(mantissa: u64, power_of_two: i32, decimals: i32) -> Option<u64> {
    let mantissa = u128::from(mantissa);
    let five = *FIVES.get(decimals.unsigned_abs() as usize)?;
    let shift = power_of_two + decimals;
    let (quotient, against_half) = if decimals >= 0 {
        let product = mantissa.checked_mul(five)?;
        if shift >= 0 {
            return u64::try_from(shifted_left(product, shift.unsigned_abs())?).ok();
        }
        let shift = shift.unsigned_abs();
        let half = 1u128.checked_shl(shift - 1)?;
        let remainder = product & ((half << 1).wrapping_sub(1));
        (product >> shift, remainder.cmp(&half))
    } else {
        let numerator = shifted_left(mantissa, u32::try_from(shift).ok()?)?;
        let twice_remainder = (numerator % five).checked_mul(2)?;
        (numerator / five, twice_remainder.cmp(&five))
    };
    let up = against_half.is_gt() || against_half.is_eq() && quotient % 2 == 1;
    u64::try_from(quotient + u128::from(up)).ok()
}

/// `value << shift`, when no bit falls off.
fn shifted_left(value: u128, shift: u32) -> Option<u128> {
    value
        .checked_shl(shift)
        .filter(|shifted| shifted >> shift == value)
}

/// The 17 digits and decimal exponent of a positive double, from Rust's exact formatting.
fn formatted(x: f64) -> (u64, i32) {
    let mut text = Printed::empty();
    // `d.dddddddddddddddde[-]x`: 17 digits, then the exponent (23 bytes at most).
    let _ = write!(text, "{x:.16e}");
    let written = std::str::from_utf8(text.as_bytes()).unwrap_or("");
    let (mantissa, exponent) = written.split_once('e').unwrap_or(("0", "0"));
    let digits = mantissa.bytes().filter(u8::is_ascii_digit);
    let digits = digits.fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    (digits, exponent.parse().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testing::Rng;

    fn printed(x: f64) -> String {
        String::from_utf8(printf_g17(x).as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn doubles_print_as_glibc_prints_them() {
        // What glibc's printf("%.17g") gives for each.
        for (x, text) in [
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (-2.5, "-2.5"),
            (0.1, "0.10000000000000001"),
            (0.3, "0.29999999999999999"),
            (123.0, "123"),
            (1e16, "10000000000000000"),
            (1e17, "1e+17"),
            (99999999999999999.0, "1e+17"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (1e-4, "0.0001"),
            (0.00011, "0.00011"),
            (0.00012345678901234567, "0.00012345678901234567"),
            (1e-5, "1.0000000000000001e-05"),
            (1e100, "1e+100"),
            (1e-100, "1e-100"),
            (-1.2345678901234567e-300, "-1.2345678901234568e-300"),
            // A tie at the 17th digit goes to the even one.
            (4938271560493825.0 / 4.0, "1234567890123456.2"),
            (4938271560493827.0 / 4.0, "1234567890123456.8"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (5e-324, "4.9406564584124654e-324"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-f64::NAN, "-nan"),
        ] {
            assert_eq!(printed(x), text, "{x:e}");
        }
    }

    #[test]
    fn decimal_exponents_of_powers_of_two() {
        for n in -1100..=1100 {
            let exact = (f64::from(n) * std::f64::consts::LOG10_2).floor() as i32;
            assert_eq!(floor_log10_of_power_of_two(n), exact, "{n}");
        }
    }

    #[test]
    fn exact_digits_are_the_correctly_rounded_ones() {
        let mut rng = Rng::new(17);
        for i in 0..400_000 {
            let bits = rng.next();
            let x = match i % 4 {
                0 => f64::from_bits(bits).abs(),
                1 => (bits >> 11) as f64 / (1u64 << (bits % 60)) as f64,
                2 => (bits >> 11) as f64 * 0.25,
                _ => (bits % 100_000) as f64 / 1000.0,
            };
            if !x.is_finite() || x == 0.0 {
                continue;
            }
            if let Some(exact) = exact_digits(x) {
                assert_eq!(exact, formatted(x), "{x:e} ({:#x})", x.to_bits());
            }
        }
        // The 128-bit path covers what replies hold: from 1e-16 to about 1e46.
        for x in [
            1.5e-16, 3.5e-10, 1.0, 123.456, 1e17, 7.25e30, 1e38, 1e40, 1e44, 1e45, 1e46,
        ] {
            assert_eq!(exact_digits(x), Some(formatted(x)), "{x:e}");
        }
    }
}
