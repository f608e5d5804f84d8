//! Hexadecimal literals in double arguments (`0x1p-4`), which `strtod` — and so Redis's
//! `RedisModule_StringToDouble` — reads as numbers: RedisBloom takes `BF.RESERVE k 0x1p-4 100`.
//! Tested through `double::parse_double`.

/// The magnitude of a hexadecimal literal after its `0x`: hex digits with at most one point,
/// at least one digit, then optionally `p` and a signed decimal exponent of two. Rounded to
/// nearest, ties to even, as `strtod` does; `None` for what `strtod` would not read to the
/// end, and for overflow and for underflow to zero (its `ERANGE`).
pub fn magnitude(digits: &str) -> Option<f64> {
    let (mantissa, exponent) = match digits.split_once(['p', 'P']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (digits, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    // Up to 60 significant bits kept exactly; what falls off only tells whether it was zero.
    let mut bits = 0u64;
    let mut scale = 0i64;
    let mut sticky = false;
    for (c, after_point) in whole
        .chars()
        .map(|c| (c, false))
        .chain(fraction.chars().map(|c| (c, true)))
    {
        let digit = u64::from(c.to_digit(16)?);
        if bits >> 60 == 0 {
            bits = bits << 4 | digit;
            scale -= if after_point { 4 } else { 0 };
        } else {
            sticky |= digit != 0;
            scale += if after_point { 0 } else { 4 };
        }
    }
    if let Some(exponent) = exponent {
        let (sign, decimal) = match exponent.as_bytes().first() {
            Some(b'-') => (-1, &exponent[1..]),
            Some(b'+') => (1, &exponent[1..]),
            _ => (1, exponent),
        };
        if decimal.is_empty() || !decimal.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        // Beyond a few thousand, every exponent over- or underflows alike.
        let value = decimal
            .bytes()
            .fold(0i64, |n, b| (n * 10 + i64::from(b - b'0')).min(1 << 20));
        scale += sign * value;
    }
    if bits == 0 {
        return Some(0.0);
    }
    // value = m · 2^(e − 63) with m's top bit set: its binary exponent is e.
    let shift = bits.leading_zeros();
    let m = bits << shift;
    let e = scale + 63 - i64::from(shift);
    // Significant bits the result keeps: 53, fewer for subnormals.
    let keep = if e >= -1022 { 53 } else { e + 1075 };
    if e > 1023 || keep < 0 {
        return None;
    }
    if keep == 0 {
        // Between 2^-1075 and 2^-1074: the smallest subnormal, unless exactly half of it.
        let half = m == 1 << 63 && !sticky;
        return (!half).then(|| f64::from_bits(1));
    }
    let drop = 64 - keep as u32;
    let mut q = m >> drop;
    let rest = m & ((1u64 << drop) - 1);
    let half = 1u64 << (drop - 1);
    if rest > half || (rest == half && (sticky || q & 1 == 1)) {
        q += 1;
    }
    // q · 2^(e − keep + 1), both factors exact; the product only rounds by overflowing.
    let power = e - keep + 1;
    let unit = if power >= -1022 {
        f64::from_bits(((power + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (power + 1074))
    };
    let value = q as f64 * unit;
    value.is_finite().then_some(value)
}
