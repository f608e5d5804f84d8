//! Numbers in arguments, parsed exactly as Redis parses them, so that what RedisBloom (which
//! uses the server's parsers) accepts and refuses, redis-bf accepts and refuses; and
//! item/increment pairs, every increment checked before any is applied.

use std::ffi::CStr;
use std::ops::RangeInclusive;

use super::digits::decimal_digits;
use super::errors::Failure;

/// A signed integer as Redis parses one (`string2ll`): optional `-`, no `+`, no spaces, no
/// leading zeros, within i64.
#[inline]
pub fn parse_integer(text: &[u8]) -> Option<i64> {
    // One digit, the common increment, first: the general path costs some 30 instructions.
    if let &[digit @ b'0'..=b'9'] = text {
        return Some(i64::from(digit - b'0'));
    }
    let (negative, digits) = match text {
        [b'-', digits @ ..] => (true, digits),
        _ => (false, text),
    };
    match digits {
        [b'0'] if !negative => return Some(0),
        // No leading zero: more digits than `i64::MIN` has are out of range.
        [b'1'..=b'9', ..] if digits.len() <= I64_DIGITS => {}
        _ => return None, // empty, a leading zero, `-0`, a sign or space first, too long
    }
    let (magnitude, read) = decimal_digits(0, digits);
    if read != digits.len() {
        return None;
    }
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// Digits of `i64::MIN`, the longest `i64`: a `u64` holds any number of that many.
const I64_DIGITS: usize = 19;

/// Why a parameter was refused. Each caller words it its own way: the same fault gets different
/// texts from BF.RESERVE, BF.INSERT, CF.RESERVE and CONFIG SET.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bad {
    NotANumber,
    OutOfRange,
}

impl Bad {
    /// The text of this fault, given the caller's wording of each.
    pub fn text(self, not_a_number: &'static CStr, out_of_range: &'static CStr) -> &'static CStr {
        match self {
            Bad::NotANumber => not_a_number,
            Bad::OutOfRange => out_of_range,
        }
    }

    /// This fault as a command's error, given the caller's wording of each.
    pub fn fail(self, not_a_number: &'static CStr, out_of_range: &'static CStr) -> Failure {
        Failure::Message(self.text(not_a_number, out_of_range))
    }
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

/// The item/increment pairs after the key (`args`, the command name first, an even count),
/// every increment checked by `check` before the first pair is given, so that a bad one
/// refuses them all and nothing is applied; each pair's increment is then what `read` reads
/// of a text `check` accepted (what `check` made of it is not kept: keeping it would take an
/// allocation per command).
pub fn checked_pairs<'a, T, Checked>(
    args: &'a [&'a [u8]],
    check: impl Fn(&[u8]) -> Result<Checked, Failure>,
    read: impl Fn(&[u8]) -> T + 'a,
) -> Result<impl ExactSizeIterator<Item = (&'a [u8], T)> + 'a, Failure> {
    let pairs = args.get(2..).unwrap_or(&[]).as_chunks::<2>().0;
    for [_, increment] in pairs {
        check(increment)?;
    }
    Ok(pairs
        .iter()
        .map(move |[item, increment]| (*item, read(increment))))
}

/// A byte count as redis.conf spells memory sizes (`maxmemory 2gb`): digits, then optionally
/// one of the units `b`, `k` (1000), `kb` (1024), `m`, `mb`, `g`, `gb`, in any case.
pub fn parse_memory(text: &[u8]) -> Option<u64> {
    const UNITS: [(&[u8], u64); 7] = [
        (b"b", 1),
        (b"k", 1000),
        (b"kb", 1024),
        (b"m", 1000 * 1000),
        (b"mb", 1024 * 1024),
        (b"g", 1000 * 1000 * 1000),
        (b"gb", 1024 * 1024 * 1024),
    ];
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    let (number, unit) = text.split_at(digits);
    let multiplier = if unit.is_empty() {
        1
    } else {
        UNITS
            .iter()
            .find(|(name, _)| unit.eq_ignore_ascii_case(name))?
            .1
    };
    let number: u64 = std::str::from_utf8(number).ok()?.parse().ok()?;
    number.checked_mul(multiplier)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::assert_reads_none;

    #[test]
    fn integers_parse_like_redis() {
        assert_eq!(parse_integer(b"0"), Some(0));
        assert_eq!(parse_integer(b"-12"), Some(-12));
        assert_eq!(parse_integer(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_integer(b"-9223372036854775808"), Some(i64::MIN));
        for n in [1, 7, 10, 99, 12345, i64::MAX / 10, i64::MIN + 1] {
            assert_eq!(parse_integer(n.to_string().as_bytes()), Some(n));
        }
        // Every one-byte text (the one-digit path): the ten digits, and nothing else.
        for byte in 0..=u8::MAX {
            let digit = byte.is_ascii_digit().then(|| i64::from(byte - b'0'));
            assert_eq!(parse_integer(&[byte]), digit, "{byte}");
        }
        assert_reads_none(
            parse_integer,
            &[
                &b""[..],
                b"-",
                b"+1",
                b"01",
                b"-0",
                b" 1",
                b"1 ",
                b"1.0",
                b"9223372036854775808",
                b"-9223372036854775809",
                b"99999999999999999999",
                b"0x10",
                b"12345678901234567a",
                b"123456789012345678a",
            ],
        );
    }

    /// Redis takes exactly the texts an `i64` prints as: the oracle parses with Rust and
    /// checks the text is the number's own, over random digits, signs and lengths up to 21
    /// (either side of the 18 digits read without checks).
    #[test]
    fn integers_are_the_texts_an_i64_prints_as() {
        let mut g = crate::core::testing::Rng::new(5);
        for _ in 0..200_000 {
            let len = g.below(22) as usize;
            let mut text: Vec<u8> = (0..len).map(|_| b'0' + g.below(10) as u8).collect();
            match g.below(8) {
                0 => text.insert(0, b'-'),
                1 => text.insert(0, b'+'),
                2 if len > 0 => text[g.below(len as u64) as usize] = b"x. /:"[g.below(5) as usize],
                3 if len > 1 => text[0] = b'0',
                _ => {}
            }
            let oracle = std::str::from_utf8(&text)
                .ok()
                .and_then(|t| t.parse::<i64>().ok())
                .filter(|n| n.to_string().as_bytes() == text);
            let shown = String::from_utf8_lossy(&text);
            assert_eq!(parse_integer(&text), oracle, "{shown}");
        }
    }

    #[test]
    fn memory_sizes_parse_like_redis_conf() {
        assert_eq!(parse_memory(b"0"), Some(0));
        assert_eq!(parse_memory(b"134217728"), Some(1 << 27));
        assert_eq!(parse_memory(b"128mb"), Some(1 << 27));
        assert_eq!(parse_memory(b"128MB"), Some(1 << 27));
        assert_eq!(parse_memory(b"2k"), Some(2000));
        assert_eq!(parse_memory(b"2Kb"), Some(2048));
        assert_eq!(parse_memory(b"1g"), Some(1_000_000_000));
        assert_eq!(parse_memory(b"4gb"), Some(4 << 30));
        assert_eq!(parse_memory(b"7b"), Some(7));
        assert_eq!(parse_memory(b"18446744073709551615"), Some(u64::MAX));
        assert_reads_none(
            parse_memory,
            &[
                &b""[..],
                b"mb",
                b"-1",
                b"+1",
                b" 1",
                b"1 mb",
                b"1.5gb",
                b"1tb",
                b"18446744073709551616",
                b"17179869184gb",
            ],
        );
    }
}
