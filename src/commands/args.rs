//! Numbers in arguments, parsed exactly as Redis parses them, so that what RedisBloom (which
//! uses the server's parsers) accepts and refuses, redis-bf accepts and refuses.

use std::ops::RangeInclusive;

/// A signed integer as Redis parses one (`string2ll`): optional `-`, no `+`, no spaces, no
/// leading zeros, within i64.
pub fn parse_integer(text: &[u8]) -> Option<i64> {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    let canonical = match digits {
        [b'0'] => true,
        [first, rest @ ..] => (b'1'..=b'9').contains(first) && rest.iter().all(u8::is_ascii_digit),
        [] => false,
    };
    if !canonical || (digits.len() != text.len() && digits == b"0") {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// Why a parameter was refused. Each caller words it its own way: the same fault gets different
/// texts from BF.RESERVE, BF.INSERT, CF.RESERVE and CONFIG SET.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bad {
    NotANumber,
    OutOfRange,
}

/// An integer within `range`.
pub fn integer_in(text: &[u8], range: &RangeInclusive<i64>) -> Result<i64, Bad> {
    let n = parse_integer(text).ok_or(Bad::NotANumber)?;
    if range.contains(&n) {
        Ok(n)
    } else {
        Err(Bad::OutOfRange)
    }
}

/// A double as Redis parses one (`RedisModule_StringToDouble`): the whole string, no
/// leading space, no NaN, and no overflow or underflow of a finite literal.
pub fn parse_double(text: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(text).ok()?;
    let value: f64 = text.parse().ok()?;
    let names_infinity = text.to_ascii_lowercase().contains("inf");
    let nonzero_mantissa = text
        .split(['e', 'E'])
        .next()
        .is_some_and(|m| m.bytes().any(|b| (b'1'..=b'9').contains(&b)));
    let overflowed = value.is_infinite() && !names_infinity;
    let underflowed = value == 0.0 && nonzero_mantissa;
    (!value.is_nan() && !overflowed && !underflowed).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_parse_like_redis() {
        assert_eq!(parse_integer(b"0"), Some(0));
        assert_eq!(parse_integer(b"-12"), Some(-12));
        assert_eq!(parse_integer(b"9223372036854775807"), Some(i64::MAX));
        for bad in [
            &b""[..],
            b"-",
            b"+1",
            b"01",
            b"-0",
            b" 1",
            b"1 ",
            b"1.0",
            b"9223372036854775808",
            b"0x10",
        ] {
            assert_eq!(
                parse_integer(bad),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn doubles_parse_like_redis() {
        assert_eq!(parse_double(b"0.01"), Some(0.01));
        assert_eq!(parse_double(b"1e-3"), Some(0.001));
        assert_eq!(parse_double(b"inf"), Some(f64::INFINITY));
        assert_eq!(parse_double(b"0"), Some(0.0));
        for bad in [
            &b""[..],
            b" 1",
            b"1 ",
            b"nan",
            b"abc",
            b"1e400",
            b"1e-400",
            b"0.01x",
        ] {
            assert_eq!(
                parse_double(bad),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
