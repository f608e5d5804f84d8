//! A Count-Min sketch as RDB fields (see `core::rdb`), data type `CMSk-TYPE`, field for field
//! as RedisBloom's `CMSRdbSave`/`CMSRdbLoad` (`src/rm_cms.c`):
//!
//! * encoding 1 (Redis 8.12): `width, depth, count, cell size` as unsigned integers, then the
//!   counters as one string of `cell size × width × depth` bytes (little-endian cells,
//!   row-major);
//! * encoding 0 (RedisBloom before 8.12): the same without the cell size, which is 4.
//!
//! Which one is written is the data type's choice (`cms-rdb-encoding`); both load. Load checks
//! the geometry before trusting it — a cell size of 1, 2, 4 or 8, both dimensions at least 1
//! and the string exactly as long as they say, as RedisBloom 8.12 does — and asks [`Memory`]
//! before the counters are read, so a hostile header cannot make it allocate.

use super::cell::CellSize;
use super::dimensions::Dimensions;
use super::sketch::CountMinSketch;
use crate::core::rdb::{known_version, RdbRead, RdbWrite};
use crate::core::{Error, Memory};

/// The encoding RedisBloom 8.12 writes (its `CMS_ENC_VER`): the cell size saved.
pub const ENCODING_VERSION: i32 = 1;
/// The encoding of RedisBloom before 8.12, which reads no other: four-byte cells.
pub const LEGACY_ENCODING_VERSION: i32 = 0;

/// Saves a sketch in encoding `encver`. A sketch saved in the legacy encoding has four-byte
/// cells (the data type widens every other on load while it writes that encoding).
pub fn save(sketch: &CountMinSketch, out: &mut impl RdbWrite, encver: i32) {
    out.unsigned(sketch.width());
    out.unsigned(sketch.depth());
    out.unsigned(sketch.count());
    if encver == LEGACY_ENCODING_VERSION {
        debug_assert_eq!(sketch.cell_size(), CellSize::Four);
    } else {
        out.unsigned(sketch.cell_size().bytes());
    }
    out.bytes(sketch.counters());
}

/// Loads a `CMSk-TYPE` value of encoding version `encver`. `BadEncoding` for an unknown
/// version, a missing field or inconsistent geometry; `OverLimit`/`OutOfMemory` when
/// `memory` refuses the size the header announces.
pub fn load(
    input: &mut impl RdbRead,
    encver: i32,
    memory: &Memory,
) -> Result<CountMinSketch, Error> {
    known_version(encver, LEGACY_ENCODING_VERSION..=ENCODING_VERSION)?;
    let width = input.unsigned()?;
    let depth = input.unsigned()?;
    let count = input.unsigned()?;
    let cell_size = if encver == LEGACY_ENCODING_VERSION {
        CellSize::DEFAULT
    } else {
        let bytes = i64::try_from(input.unsigned()?).unwrap_or(0);
        CellSize::new(bytes).ok_or(Error::BadEncoding)?
    };
    let usage =
        Dimensions::saved_memory_usage(width, depth, cell_size).ok_or(Error::BadEncoding)?;
    memory.check(usage)?;
    let dimensions = Dimensions::saved(width, depth, cell_size);
    CountMinSketch::from_saved(dimensions, count, input.bytes()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cms::{MergeSource, Weighted};
    use crate::core::le::LeReader;
    use crate::core::rdb::FieldWriter;
    use crate::core::testing::eager_limited;
    use crate::core::testing::{fields_of, truncations_fail_and_flips_load_or_fail, Rng};
    use crate::core::EAGER;

    fn saved(sketch: &CountMinSketch) -> Vec<u8> {
        fields_of(|out| save(sketch, out, LEGACY_ENCODING_VERSION))
    }

    fn sample_of(cell_size: CellSize) -> CountMinSketch {
        let dimensions = Dimensions::new(7, 3).unwrap().with_cell_size(cell_size);
        let mut sketch = CountMinSketch::new(dimensions, &EAGER).unwrap();
        for i in 0..40u32 {
            sketch
                .increment(&i.to_le_bytes(), i64::from(i % 5))
                .unwrap();
        }
        sketch
    }

    fn sample() -> CountMinSketch {
        sample_of(CellSize::Four)
    }

    #[test]
    fn round_trips() {
        let sketch = sample();
        let loaded = load(&mut LeReader(&saved(&sketch)), 0, &EAGER).unwrap();
        assert_eq!(loaded, sketch);
    }

    /// Encoding 1 saves the cell size after the count, and the cells at that size.
    #[test]
    fn every_cell_size_round_trips_in_encoding_1() {
        for bytes in [1, 2, 4, 8] {
            let sketch = sample_of(CellSize::new(bytes).unwrap());
            let out = fields_of(|out| save(&sketch, out, ENCODING_VERSION));
            let mut expected = FieldWriter::default();
            for n in [7, 3, sketch.count(), bytes as u64] {
                expected.unsigned(n);
            }
            expected.bytes(sketch.counters());
            assert_eq!(out, expected.0);
            assert_eq!(sketch.counters().len(), 21 * bytes as usize);
            assert_eq!(load(&mut LeReader(&out), 1, &EAGER).unwrap(), sketch);
        }
        // Encoding 0 and encoding 1 of a four-byte sketch hold the same sketch.
        let out = fields_of(|out| save(&sample(), out, ENCODING_VERSION));
        let from_1 = load(&mut LeReader(&out), 1, &EAGER).unwrap();
        assert_eq!(
            load(&mut LeReader(&saved(&sample())), 0, &EAGER).unwrap(),
            from_1
        );
    }

    /// RedisBloom 8.12's checks: a cell size of 1, 2, 4 or 8; eight-byte cells at most
    /// 2^63 − 1. A total past 2^63 − 1 (RedisBloom before 8.12 wrapped it) loads.
    #[test]
    fn bad_cell_sizes_and_cells_are_refused() {
        let fields = |cell_size: u64, count: u64, cells: &[u8]| {
            let mut out = FieldWriter::default();
            for n in [1, 1, count, cell_size] {
                out.unsigned(n);
            }
            out.bytes(cells);
            out.0
        };
        for bad in [0, 3, 5, 16, u64::MAX] {
            let bytes = fields(bad, 0, &[0; 16][..bad.min(16) as usize]);
            assert_eq!(
                load(&mut LeReader(&bytes), 1, &EAGER),
                Err(Error::BadEncoding)
            );
        }
        let too_big = fields(8, 0, &(1u64 << 63).to_le_bytes());
        assert_eq!(
            load(&mut LeReader(&too_big), 1, &EAGER),
            Err(Error::BadEncoding)
        );
        let largest = fields(8, u64::MAX, &(i64::MAX as u64).to_le_bytes());
        let sketch = load(&mut LeReader(&largest), 1, &EAGER).unwrap();
        assert_eq!(
            (sketch.count(), sketch.query(b"a")),
            (u64::MAX, i64::MAX as u64)
        );
    }

    #[test]
    fn other_versions_and_bad_geometry_are_refused() {
        let fields = saved(&sample());
        for encver in [-1, 2, 3] {
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
        let tight = eager_limited(40 + 4 * 21 - 1);
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
                let _ = sketch.increment(b"probe", g.next() as i64);
                sketch.query(b"other");
            }
        }
        assert!(loaded > 1000, "{loaded}");
    }

    #[test]
    fn every_truncation_fails_and_every_byte_flip_loads_or_fails_cleanly() {
        let load_fields = |fields: &[u8]| load(&mut LeReader(fields), 0, &EAGER);
        let fields = saved(&sample());
        truncations_fail_and_flips_load_or_fail(&fields, load_fields, |mut sketch, corrupt| {
            assert_eq!(saved(&sketch), corrupt);
            let _ = sketch.increment(b"probe", 3);
            sketch.query(b"probe");
            let copy = load_fields(corrupt).unwrap();
            let _ = sketch.merge(&[Weighted {
                source: MergeSource::Other(&copy),
                weight: 2,
            }]);
        });
    }
}
