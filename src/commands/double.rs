//! Doubles in arguments, parsed exactly as Redis parses them (`RedisModule_StringToDouble`,
//! which is `strtod`), hexadecimal literals included, so that what RedisBloom accepts and
//! refuses, redis-bf accepts and refuses.

use super::digits::decimal_digits;
use super::hex_double;

/// A double as Redis parses one (`RedisModule_StringToDouble`, which is `strtod`): the whole
/// string, no leading space, no NaN, and no overflow or underflow of a finite literal.
/// Hexadecimal literals (`0x1p-4`) are numbers too, as for `strtod`.
#[inline]
pub fn parse_double(text: &[u8]) -> Option<f64> {
    parse_short_decimal(text).or_else(|| parse_general(text))
}

/// [`parse_double`] of what [`parse_short_decimal`] does not read. Out of line, so that the
/// common case does not pay for its frame (some 15 instructions a value).
#[cold]
#[inline(never)]
fn parse_general(text: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(text).ok()?;
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if let Some(digits) = unsigned
        .strip_prefix("0x")
        .or_else(|| unsigned.strip_prefix("0X"))
    {
        let magnitude = hex_double::magnitude(digits)?;
        return Some(if negative { -magnitude } else { magnitude });
    }
    let value: f64 = text.parse().ok()?;
    // Only an infinite or zero result needs a second look (values are parsed per item: no
    // allocation, no scan of the common case).
    let names_infinity = || {
        text.as_bytes()
            .windows(3)
            .any(|w| w.eq_ignore_ascii_case(b"inf"))
    };
    let nonzero_mantissa = || {
        text.split(['e', 'E'])
            .next()
            .is_some_and(|m| m.bytes().any(|b| (b'1'..=b'9').contains(&b)))
    };
    let overflowed = value.is_infinite() && !names_infinity();
    let underflowed = value == 0.0 && nonzero_mantissa();
    (!value.is_nan() && !overflowed && !underflowed).then_some(value)
}

/// 10⁰ to 10¹⁵, each exact in a double.
const POWERS_OF_TEN: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// The common case, read without the general parser (which costs some 300 instructions a
/// value, a third of a TDIGEST.ADD): an optional sign, then at most 16 characters, decimal
/// digits with at most one point among them (`12`, `-0.25`, `.5`). Without a point the
/// integer's conversion to a double is the one rounding. With one, the digits (15 at most)
/// make an integer below 2⁵³ and the point a power of ten up to 10¹⁵, both exact in a double,
/// so their one division rounds the exact value to nearest as `strtod` does. `None` for
/// anything else.
fn parse_short_decimal(text: &[u8]) -> Option<f64> {
    let (negative, unsigned) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    if unsigned.len() > POWERS_OF_TEN.len() {
        return None;
    }
    let (mantissa, whole) = decimal_digits(0, unsigned);
    let (mantissa, decimals) = match unsigned.get(whole..) {
        Some([b'.', fraction @ ..]) => match decimal_digits(mantissa, fraction) {
            (mantissa, decimals) if decimals == fraction.len() => (mantissa, decimals),
            _ => return None,
        },
        Some([]) => (mantissa, 0),
        _ => return None,
    };
    if whole + decimals == 0 {
        return None;
    }
    // Below 10^16, so the signed conversion (one instruction, where an unsigned one takes
    // five) gives the same double.
    let magnitude = mantissa as i64 as f64 / POWERS_OF_TEN.get(decimals).copied()?;
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::assert_reads_none;
    use crate::core::testing::Rng;

    #[test]
    fn doubles_parse_like_redis() {
        assert_eq!(parse_double(b"0.01"), Some(0.01));
        assert_eq!(parse_double(b"1e-3"), Some(0.001));
        assert_eq!(parse_double(b"inf"), Some(f64::INFINITY));
        assert_eq!(parse_double(b"0"), Some(0.0));
        // Hexadecimal, as strtod reads it (RedisBloom takes `BF.RESERVE k 0x1p-4 100`).
        assert_eq!(parse_double(b"0x1p-4"), Some(0.0625));
        assert_eq!(parse_double(b"-0X.8"), Some(-0.5));
        assert_eq!(parse_double(b"0x1.8p1"), Some(3.0));
        assert_eq!(parse_double(b"0x105"), Some(261.0));
        assert_eq!(parse_double(b"0x1p-1074"), Some(f64::from_bits(1)));
        assert_eq!(parse_double(b"0x1.fffffffffffff8p1023"), None);
        assert_eq!(parse_double(b"0x1.fffffffffffff7p1023"), Some(f64::MAX));
        let bad = [
            &b""[..],
            b" 1",
            b"1 ",
            b"nan",
            b"abc",
            b"1e400",
            b"1e-400",
            b"0.01x",
            b"0x",
            b"0x.",
            b"0x1p",
            b"0x1p+",
            b"0x1p-1075",
            b"0x1p1024",
            b" 0x1",
            b".",
            b"-",
            b"+",
            b"1..2",
            b"1.2.",
            b"--1",
            b"+-1",
            b"1-",
        ];
        assert_reads_none(parse_double, &bad);
        assert_reads_none(parse_short_decimal, &bad);
    }

    #[test]
    fn short_decimals_read_as_the_general_parser_reads_them() {
        let mut g = Rng::new(11);
        for _ in 0..200_000 {
            let len = 1 + g.below(16) as usize;
            let mut text: Vec<u8> = (0..len).map(|_| b'0' + g.below(10) as u8).collect();
            if g.below(3) > 0 {
                text[g.below(len as u64 + 1).min(len as u64 - 1) as usize] = b'.';
            }
            match g.below(4) {
                0 => text.insert(0, b'-'),
                1 => text.insert(0, b'+'),
                _ => {}
            }
            let text = String::from_utf8(text).unwrap();
            let general: Option<f64> = text.parse().ok();
            let short = parse_short_decimal(text.as_bytes());
            if let Some(short) = short {
                assert_eq!(Some(short.to_bits()), general.map(f64::to_bits), "{text}");
            }
            assert_eq!(
                parse_double(text.as_bytes()).map(f64::to_bits),
                general.map(f64::to_bits),
                "{text}"
            );
        }
        assert_eq!(
            parse_short_decimal(b"-0").map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
        assert_eq!(
            parse_short_decimal(b"999999999999999"),
            Some(999999999999999.0)
        );
        // 17 characters.
        assert_eq!(parse_short_decimal(b"0.000000000000001"), None);
        // Runs of eight digits and more, whole and after the point.
        assert_eq!(parse_short_decimal(b"12345678"), Some(12345678.0));
        assert_eq!(parse_short_decimal(b"000000012345"), Some(12345.0));
        assert_eq!(
            parse_short_decimal(b"98765432.1234567"),
            Some(98765432.1234567)
        );
        assert_eq!(parse_short_decimal(b"98765432.12345678"), None); // 17 characters
        assert_eq!(
            parse_short_decimal(b"9876543.12345678"),
            Some(9876543.12345678)
        );
        assert_eq!(
            parse_short_decimal(b".12345678901234"),
            Some(0.12345678901234)
        );
        assert_eq!(parse_short_decimal(b"1234567:"), None); // ':' follows '9'
        assert_eq!(parse_short_decimal(b"1234567/"), None); // '/' precedes '0'
        for text in [&b"1234567\xff"[..], b"\xff2345678", b"12345678\xff"] {
            assert_eq!(parse_short_decimal(text), None);
        }
        assert_eq!(parse_short_decimal(b".000000000000001"), Some(1e-15));
    }
}
