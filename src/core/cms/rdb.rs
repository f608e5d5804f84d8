//! A Count-Min sketch as RDB fields (see `core::rdb`), data type `CMSk-TYPE`, encoding
//! version 0, field for field as RedisBloom's `CMSRdbSave`/`CMSRdbLoad` (`src/rm_cms.c`):
//! `width, depth, count` as unsigned integers, then the counters as one string of
//! `4 × width × depth` bytes (`u32` little-endian, row-major).
//!
//! Load checks the geometry before trusting it — both dimensions at least 1 and the string
//! exactly as long as they say, as RedisBloom 8 does — and asks [`Memory`] before the
//! counters are read, so a hostile header cannot make it allocate.

use super::sketch::{CountMinSketch, Dimensions};
use crate::core::rdb::{RdbRead, RdbWrite};
use crate::core::{Error, Memory};

/// The only encoding version of `CMSk-TYPE` (RedisBloom's `CMS_ENC_VER`).
pub const ENCODING_VERSION: i32 = 0;

/// Saves a sketch.
pub fn save(sketch: &CountMinSketch, out: &mut impl RdbWrite) {
    out.unsigned(sketch.width());
    out.unsigned(sketch.depth());
    out.unsigned(sketch.count());
    out.bytes(sketch.counters());
}

/// Loads a `CMSk-TYPE` value of encoding version `encver`. `BadEncoding` for another
/// version, a missing field or inconsistent geometry; `OverLimit`/`OutOfMemory` when
/// `memory` refuses the size the header announces.
pub fn load(
    input: &mut impl RdbRead,
    encver: i32,
    memory: &Memory,
) -> Result<CountMinSketch, Error> {
    if encver != ENCODING_VERSION {
        return Err(Error::BadEncoding);
    }
    let width = input.unsigned()?;
    let depth = input.unsigned()?;
    let count = input.unsigned()?;
    let usage = Dimensions::saved_memory_usage(width, depth).ok_or(Error::BadEncoding)?;
    memory.check(usage)?;
    CountMinSketch::from_saved(width, depth, count, input.bytes()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cms::{Dimensions, MergeSource, Weighted};
    use crate::core::le::LeReader;
    use crate::core::rdb::FieldWriter;
    use crate::core::testing::Rng;
    use crate::core::EAGER;

    fn saved(sketch: &CountMinSketch) -> Vec<u8> {
        let mut out = FieldWriter::default();
        save(sketch, &mut out);
        out.0
    }

    fn sample() -> CountMinSketch {
        let mut sketch = CountMinSketch::new(Dimensions::new(7, 3).unwrap(), &EAGER).unwrap();
        for i in 0..40u32 {
            sketch.increment(&i.to_le_bytes(), u64::from(i % 5));
        }
        sketch
    }

    #[test]
    fn round_trips() {
        let sketch = sample();
        let loaded = load(&mut LeReader(&saved(&sketch)), 0, &EAGER).unwrap();
        assert_eq!(loaded, sketch);
    }

    #[test]
    fn other_versions_and_bad_geometry_are_refused() {
        let fields = saved(&sample());
        for encver in [-1, 1, 2] {
            assert_eq!(
                load(&mut LeReader(&fields), encver, &EAGER),
                Err(Error::BadEncoding)
            );
        }
        // RedisBloom's test_rdb_load_overflow and issues #950/#1003: a zero dimension, a
        // short array, and dimensions whose byte size wraps.
        for (width, depth, len) in [
            (0, 3, 0),
            (3, 0, 0),
            (3, 2, 20),
            (3, 2, 28),
            (1 << 62, 4, 0),
            (u64::MAX, u64::MAX, 4),
        ] {
            let mut out = FieldWriter::default();
            for n in [width, depth, 9] {
                out.unsigned(n);
            }
            out.bytes(&vec![0; len]);
            assert_eq!(
                load(&mut LeReader(&out.0), 0, &EAGER),
                Err(Error::BadEncoding),
                "{width}x{depth} with {len} bytes"
            );
        }
    }

    #[test]
    fn memory_is_asked_before_the_counters_are_read() {
        let fields = saved(&sample());
        let tight = Memory {
            limit: 32 + 4 * 21 - 1,
            ..EAGER
        };
        assert_eq!(
            load(&mut LeReader(&fields), 0, &tight),
            Err(Error::OverLimit)
        );
        // A header announcing 2^40 counters with no counters behind it fails on memory, not
        // on a read.
        let mut out = FieldWriter::default();
        for n in [1 << 20, 1 << 20, 0] {
            out.unsigned(n);
        }
        let small = Memory {
            available: 1 << 30,
            ..EAGER
        };
        assert_eq!(
            load(&mut LeReader(&out.0), 0, &small),
            Err(Error::OutOfMemory)
        );
    }

    #[test]
    fn random_hostile_field_streams_load_or_fail_without_panicking() {
        let mut g = Rng::new(7);
        let mut loaded = 0;
        for _ in 0..20_000 {
            // Mostly small dimensions (0 included), sometimes any 64-bit value.
            let dimension = |g: &mut Rng| match g.below(8) {
                0 => g.next(),
                _ => g.below(6),
            };
            let (width, depth) = (dimension(&mut g), dimension(&mut g));
            let consistent = width.wrapping_mul(depth).wrapping_mul(4) % 128;
            let len = match g.below(4) {
                0 => g.below(128),
                _ => consistent,
            };
            let mut out = FieldWriter::default();
            out.unsigned(width);
            out.unsigned(depth);
            out.unsigned(g.next());
            out.bytes(&(0..len).map(|_| g.next() as u8).collect::<Vec<_>>());
            let end = match g.below(4) {
                0 => g.below(out.0.len() as u64) as usize,
                _ => out.0.len(),
            };
            if let Ok(mut sketch) = load(&mut LeReader(&out.0[..end]), 0, &EAGER) {
                loaded += 1;
                sketch.increment(b"probe", g.next());
                sketch.query(b"other");
            }
        }
        assert!(loaded > 1000, "{loaded}");
    }

    #[test]
    fn every_truncation_fails_and_every_byte_flip_loads_or_fails_cleanly() {
        let fields = saved(&sample());
        for len in 0..fields.len() {
            assert_eq!(
                load(&mut LeReader(&fields[..len]), 0, &EAGER),
                Err(Error::BadEncoding)
            );
        }
        for at in 0..fields.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut corrupt = fields.clone();
                corrupt[at] ^= flip;
                if let Ok(mut sketch) = load(&mut LeReader(&corrupt), 0, &EAGER) {
                    assert_eq!(saved(&sketch), corrupt);
                    sketch.increment(b"probe", 3);
                    sketch.query(b"probe");
                    let copy = load(&mut LeReader(&corrupt), 0, &EAGER).unwrap();
                    let _ = sketch.merge(&[Weighted {
                        source: MergeSource::Other(&copy),
                        weight: 2,
                    }]);
                }
            }
        }
    }
}
