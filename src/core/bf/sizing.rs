//! Sub-filter sizing, bit-exact with RedisBloom's `bloom_init` (`deps/bloom/bloom.c`).
//!
//! The constants are RedisBloom's truncated literals, not `std::f64::consts`: the stored
//! `hashes` of every RDB must equal `ceil(LN2 · bpe)` computed with them, or RedisBloom's
//! loader (and ours) rejects the payload.

use crate::core::Error;

/// ln 2, truncated as RedisBloom writes it.
#[allow(clippy::approx_constant)] // deliberately RedisBloom's literal, not std's LN_2
const LN2: f64 = 0.693147180559945;
/// (ln 2)², truncated as RedisBloom writes it.
const LN2_SQUARED: f64 = 0.480453013918201;
/// The most probes a valid sub-filter can have: even the smallest positive double as the
/// error rate gives fewer (RedisBloom's `BLOOM_MAX_HASHES`). Anything above is corrupt input
/// that would make every lookup spin.
pub const MAX_HASHES: u32 = 1075;

/// Option bits of a chain, as stored in RDB and SCANDUMP headers (`deps/bloom/bloom.h`).
pub mod options {
    /// Bits are `entries · bpe` rounded up to 64, not to a power of two (since RedisBloom 2.2).
    pub const NOROUND: u32 = 1;
    /// Used only by RedisBloom's own unit tests; accepted on load, never set by us.
    pub const ENTS_IS_BITS: u32 = 2;
    /// MurmurHash64A instead of the 32-bit MurmurHash2 (since RedisBloom 1.1.1).
    pub const FORCE64: u32 = 4;
    /// The chain never grows: a full filter refuses new items.
    pub const NO_SCALING: u32 = 8;
    /// Every bit RedisBloom knows (its loaders reject others).
    pub const ALL: u32 = NOROUND | ENTS_IS_BITS | FORCE64 | NO_SCALING;
    /// redis-bf's own: the fast, blocked layout, which RedisBloom cannot read. Such filters
    /// are stored under a data type of their own, so RedisBloom never sees this bit.
    pub const FAST: u32 = 16;
    /// Every bit a stored chain may carry.
    pub const KNOWN: u32 = ALL | FAST;
    /// What every filter created by a command gets.
    pub const DEFAULT: u32 = NOROUND | FORCE64;
}

/// Whether `error` can be a false-positive rate: strictly between 0 and 1 (NaN is not). The
/// BF commands and configs, both layouts' sizing and every stored sub-filter are held to
/// this one predicate.
pub fn is_error_rate(error: f64) -> bool {
    error > 0.0 && error < 1.0
}

/// Whether a sub-filter of either layout can be sized for `entries` items at `error`.
pub fn is_valid_target(entries: u64, error: f64) -> bool {
    entries >= 1 && is_error_rate(error)
}

/// The shape of one sub-filter: everything but its bits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Items it is sized for.
    pub entries: u64,
    /// Its own false-positive rate.
    pub error: f64,
    /// Bits per entry, `-ln(error) / ln(2)²`.
    pub bpe: f64,
    /// Probes per item, `ceil(ln 2 · bpe)`.
    pub hashes: u32,
    /// Bits in the array: always a whole number of 64-bit words.
    pub bits: u64,
    /// Nonzero for pre-2.2 power-of-two filters: probes are reduced mod `2^n2`, not mod `bits`.
    pub n2: u8,
}

impl Layout {
    /// Sizes a new sub-filter for `entries` items at `error`, with the chain's `options`.
    pub fn new(entries: u64, error: f64, chain_options: u32) -> Result<Layout, Error> {
        if !is_valid_target(entries, error) {
            return Err(Error::InvalidParameters);
        }
        let bpe = bits_per_entry(error);
        let mut entries = entries;
        let (raw_bits, n2) = if chain_options & options::NOROUND != 0 {
            // `(uint64_t)(entries * bpe)`, at least one bit.
            ((((entries as f64) * bpe) as u64).max(1), 0)
        } else {
            // Legacy: round up to a power of two and let the spare bits hold extra entries.
            let wanted = entries as f64 * bpe;
            let exponent = binary_exponent(wanted);
            if exponent > 63 {
                return Err(Error::InvalidParameters);
            }
            let n2 = (exponent + 1).clamp(0, 63) as u8;
            let bits = 1u64 << n2;
            let spare_bits = (bits as f64 - wanted) as u64;
            entries = entries.saturating_add((spare_bits as f64 / bpe) as u64);
            (bits, n2)
        };
        let hashes = hashes_for(bpe);
        if hashes > MAX_HASHES {
            return Err(Error::InvalidParameters);
        }
        Ok(Layout {
            entries,
            error,
            bpe,
            hashes,
            bits: whole_words(raw_bits),
            n2,
        })
    }

    /// Bytes of the bit array.
    pub fn bytes(&self) -> u64 {
        self.bits / 8
    }

    /// What every probe is reduced modulo.
    pub fn modulus(&self) -> u64 {
        if self.n2 == 0 {
            self.bits
        } else {
            1u64 << self.n2
        }
    }

    /// RedisBloom's `bloom_validate_integrity`, plus the probe-count cap: a stored layout
    /// must be one `Layout::new` could have produced, so loading never trusts a field.
    /// RedisBloom's `bits == bytes * 8` (bytes being the stored array's length) is the whole
    /// bytes here: the array must then be `bits / 8` long. Without it, 193 bits over 24 bytes
    /// would probe a bit past the array, and SCANDUMP (which stores bytes, not bits) would
    /// rebuild a different filter.
    pub fn is_consistent(&self) -> bool {
        is_error_rate(self.error)
            && self.bpe.is_finite()
            && self.n2 <= 63
            && (self.n2 == 0 || self.bits >= 1u64 << self.n2)
            && self.bits != 0
            && self.bits.is_multiple_of(8)
            && self.hashes >= 1
            && self.hashes <= MAX_HASHES
            && self.hashes == hashes_for(self.bpe)
    }
}

/// The bits `entries` items at `error` take in RedisBloom's sizing, before any rounding.
pub fn bits_needed(entries: u64, error: f64) -> f64 {
    entries as f64 * bits_per_entry(error)
}

/// RedisBloom's `calc_bpe`.
fn bits_per_entry(error: f64) -> f64 {
    (-(error.ln() / LN2_SQUARED)).abs()
}

/// `(int)ceil(LN2 * bpe)`; saturates where C would overflow, which `is_consistent` rejects.
fn hashes_for(bpe: f64) -> u32 {
    let k = (LN2 * bpe).ceil();
    if k.is_finite() && k >= 0.0 && k <= f64::from(u32::MAX) {
        k as u32
    } else {
        u32::MAX
    }
}

/// C's `logb`: the unbiased binary exponent, floor(log2(x)), for positive finite x.
fn binary_exponent(x: f64) -> i64 {
    if !x.is_finite() {
        return i64::MAX;
    }
    if x <= 0.0 {
        return i64::MIN;
    }
    // Normalise subnormals by scaling, then read the exponent field.
    let (scaled, shift) = if x < f64::MIN_POSITIVE {
        (x * 2f64.powi(64), 64)
    } else {
        (x, 0)
    };
    ((scaled.to_bits() >> 52) & 0x7ff) as i64 - 1023 - shift
}

/// Rounds a bit count up to whole 64-bit words, as RedisBloom allocates them.
fn whole_words(bits: u64) -> u64 {
    bits.div_ceil(64).saturating_mul(64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sized(entries: u64, error: f64) -> Layout {
        Layout::new(entries, error, options::DEFAULT).unwrap()
    }

    #[test]
    fn worked_sizes_from_redisbloom_tests() {
        // RedisBloom's `src/sb.c` (ERROR_TIGHTENING_RATIO): the first link of a scaling filter
        // gets half the filter's error rate.
        let auto = sized(100, 0.01 * 0.5);
        assert_eq!((auto.bits, auto.bytes(), auto.hashes), (1152, 144, 8));
        let reserve = sized(100, 0.001 * 0.5);
        assert_eq!(
            (reserve.bits, reserve.bytes(), reserve.hashes),
            (1600, 200, 11)
        );
        let tiny = sized(3, 0.01);
        assert_eq!((tiny.bits, tiny.bytes(), tiny.hashes), (64, 8, 7));
        let docs = sized(10, 0.1 * 0.5);
        assert_eq!((docs.bits, docs.bytes(), docs.hashes), (64, 8, 5));
        assert!((docs.bpe - 6.2352).abs() < 1e-4);
        // BF.INFO Size = 32 + 64 per link + bytes: 1132420232 for 0.000001 / 300000000.
        let huge = sized(300_000_000, 0.000001 * 0.5);
        assert_eq!(32 + 64 + huge.bytes(), 1_132_420_232);
        // MEMORY USAGE 1104 (= 1056 + 48 of key overhead) for BF.RESERVE bf 0.05 1000.
        assert_eq!(32 + 64 + sized(1000, 0.05 * 0.5).bytes(), 1056);
    }

    #[test]
    fn legacy_power_of_two_layout() {
        let l = Layout::new(100, 0.01, options::FORCE64).unwrap();
        // 100 · 9.585 = 958.5 bits → 2^10; the spare 65.5 bits hold 6 more entries.
        assert_eq!((l.n2, l.bits, l.entries), (10, 1024, 106));
        assert_eq!(l.modulus(), 1024);
        assert!(l.is_consistent());
    }

    #[test]
    fn rejects_what_redisbloom_rejects() {
        for (entries, error) in [(0, 0.01), (1, 0.0), (1, 1.0), (1, -0.5), (1, f64::NAN)] {
            assert_eq!(
                Layout::new(entries, error, options::DEFAULT),
                Err(Error::InvalidParameters)
            );
        }
    }

    #[test]
    fn smallest_error_rate_stays_within_the_probe_cap() {
        let l = sized(1, f64::MIN_POSITIVE);
        assert!(l.hashes <= MAX_HASHES && l.is_consistent());
    }

    #[test]
    fn consistency_catches_each_corrupted_field() {
        let good = sized(1000, 0.01);
        assert!(good.is_consistent());
        let broken = [
            Layout {
                hashes: good.hashes + 1,
                ..good
            },
            Layout { bits: 0, ..good },
            Layout {
                bits: good.bits + 1,
                ..good
            },
            Layout { error: 1.5, ..good },
            Layout { n2: 64, ..good },
            Layout { n2: 20, ..good },
            Layout {
                bpe: f64::INFINITY,
                ..good
            },
        ];
        for layout in broken {
            assert!(!layout.is_consistent(), "{layout:?}");
        }
    }
}
