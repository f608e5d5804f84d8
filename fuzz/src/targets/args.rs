//! The number parsers every family's options go through, each against Redis's own.

use redis_bf::commands::args::{integer_in, parse_integer, Bad};
use redis_bf::commands::bf::rules::{error_rate, layout_named, CAPACITY, EXPANSION};
use redis_bf::commands::double::parse_double;
use redis_bf::core::bf::chain::LayoutKind;

/// One argument through every number parser, each against its reference.
pub fn args_numbers(data: &[u8]) {
    let integer = parse_integer(data);
    assert_eq!(integer, reference::string2ll(data), "parse_integer");
    let double = parse_double(data);
    assert_eq!(
        double.map(f64::to_bits),
        reference::string2d(data).map(f64::to_bits),
        "parse_double"
    );
    let rate = error_rate(data);
    match double {
        None => assert_eq!(rate, Err(Bad::NotANumber)),
        Some(x) if x > 0.0 && x < 1.0 => assert_eq!(rate, Ok(x)),
        Some(_) => assert_eq!(rate, Err(Bad::OutOfRange)),
    }
    for range in [CAPACITY, EXPANSION] {
        let within = integer_in(data, &range);
        match integer {
            None => assert_eq!(within, Err(Bad::NotANumber)),
            Some(n) if range.contains(&n) => assert_eq!(within, Ok(n)),
            Some(_) => assert_eq!(within, Err(Bad::OutOfRange)),
        }
    }
    let layout = if data.eq_ignore_ascii_case(b"classic") {
        Some(LayoutKind::Classic)
    } else if data.eq_ignore_ascii_case(b"fast") {
        Some(LayoutKind::Fast)
    } else {
        None
    };
    assert_eq!(layout_named(data), layout);
}
/// Redis's own number parsers, written out from its C source (`util.c`, `object.c`) as the
/// reference the module's parsers are compared with.
pub mod reference {
    /// `string2ll` (`RedisModule_StringToLongLong`).
    pub fn string2ll(s: &[u8]) -> Option<i64> {
        const LONG_STR_SIZE: usize = 21;
        if s.is_empty() || s.len() >= LONG_STR_SIZE {
            return None;
        }
        if s == b"0" {
            return Some(0);
        }
        let (negative, digits) = match s.split_first() {
            Some((b'-', rest)) if !rest.is_empty() => (true, rest),
            Some((b'-', _)) => return None,
            _ => (false, s),
        };
        if !(b'1'..=b'9').contains(&digits[0]) {
            return None;
        }
        let mut v: u64 = 0;
        for &c in digits {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
        }
        if negative {
            if v > (i64::MAX as u64) + 1 {
                return None;
            }
            Some((v as i64).wrapping_neg())
        } else {
            i64::try_from(v).ok()
        }
    }

    /// `getDoubleFromObject` (`RedisModule_StringToDouble`): glibc's `strtod` over the whole
    /// string, no leading space, no NaN, no overflow, no underflow to zero.
    pub fn string2d(s: &[u8]) -> Option<f64> {
        let first = *s.first()?;
        if matches!(first, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
            return None;
        }
        let mut text = s.to_vec();
        text.push(0);
        let mut end: *mut libc::c_char = std::ptr::null_mut();
        // SAFETY: `text` is NUL-terminated and outlives the call; errno is this thread's.
        let (value, errno) = unsafe {
            *libc::__errno_location() = 0;
            let value = libc::strtod(text.as_ptr().cast(), &mut end);
            (value, *libc::__errno_location())
        };
        let consumed = end as usize - text.as_ptr() as usize;
        let range_error = errno == libc::ERANGE && (value.is_infinite() || value == 0.0);
        (consumed == s.len() && !range_error && !value.is_nan()).then_some(value)
    }
}
