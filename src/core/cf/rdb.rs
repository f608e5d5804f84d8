//! A Cuckoo filter as RDB fields (see `core::rdb`), read and written field for field as
//! RedisBloom's `CFRdbSave`/`CFRdbLoad` (`src/rebloom.c`) do, for the data type `MBbloomCF`:
//!
//! * encoding version 4 (RedisBloom 2.2 and later): `numFilters, numBuckets, numItems,
//!   numDeletes, bucketSize, maxIterations, expansion`, then per sub-filter, oldest first, its
//!   bucket count and its bytes;
//! * versions 1 to 3 (RedisBloom 1.1 to 2.0): `numFilters, numBuckets, numItems`, then
//!   `numFilters` buffers of `numBuckets` buckets each. No deletes were kept; the bucket size,
//!   iterations and expansion come from [`LegacyDefaults`] (RedisBloom 8 takes its `cf-*`
//!   configs). Version 0 was never written by any RedisBloom and is refused.
//!
//! The header is checked before any sub-filter is read, and the geometry — counts, sizes and
//! every buffer's length — before the filter is returned: what disagrees is `BadEncoding`
//! (RESTORE answers `ERR Bad data format`), where RedisBloom asserts and aborts the server.
//! Before each buffer is read, the sizes announced so far are checked against [`Memory`], so
//! a payload cannot make the server read more than one value may hold.

use super::filter::{memory_usage, CuckooFilter};
use super::header::SavedHeader;
use crate::core::rdb::{known_version, RdbRead, RdbWrite};
use crate::core::{try_vec, Error, Memory};

/// The encoding version written (RedisBloom's `CF_MIN_EXPANSION_VERSION`).
pub const ENCODING_VERSION: i32 = 4;
/// The oldest encoding version loaded.
const OLDEST_ENCODING_VERSION: i32 = 1;

/// What values saved before encoding version 4 did not store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyDefaults {
    /// Slots per bucket: the buffers of such values hold 2, so any other value refuses them.
    pub bucket_size: u16,
    /// Kicks tried before growing.
    pub max_iterations: u16,
    /// Growth factor (stored rounded up to a power of two).
    pub expansion: u16,
}

/// Saves a filter in encoding version [`ENCODING_VERSION`].
pub fn save(filter: &CuckooFilter, out: &mut impl RdbWrite) {
    for n in filter.saved_header().fields() {
        out.unsigned(n);
    }
    for (num_buckets, data) in filter.sub_filters() {
        out.unsigned(num_buckets);
        out.bytes(data);
    }
}

/// Loads a `MBbloomCF` value of encoding version `encver`. `OverLimit` or `OutOfMemory` when
/// the sub-filters announced so far pass `memory`'s bounds, before the next one is read.
pub fn load(
    input: &mut impl RdbRead,
    encver: i32,
    legacy: LegacyDefaults,
    memory: &Memory,
) -> Result<CuckooFilter, Error> {
    known_version(encver, OLDEST_ENCODING_VERSION..=ENCODING_VERSION)?;
    let num_filters = input.unsigned()?;
    let num_buckets = input.unsigned()?;
    let items = input.unsigned()?;
    let is_legacy = encver < ENCODING_VERSION;
    let header = if is_legacy {
        SavedHeader::legacy(
            num_filters,
            num_buckets,
            items,
            legacy.bucket_size,
            legacy.max_iterations,
            legacy.expansion,
        )
    } else {
        SavedHeader {
            num_filters,
            num_buckets,
            items,
            deletes: input.unsigned()?,
            bucket_size: input.unsigned()?,
            max_iterations: input.unsigned()?,
            expansion: input.unsigned()?,
        }
    };
    // At most 65535 sub-filters from here on.
    header.check()?;
    let count = usize::try_from(num_filters).map_err(|_| Error::BadEncoding)?;
    let mut subs = try_vec(count)?;
    let mut announced = 0u64;
    for _ in 0..count {
        let buckets = if is_legacy {
            num_buckets
        } else {
            input.unsigned()?
        };
        announced = buckets
            .checked_mul(header.bucket_size)
            .and_then(|bytes| announced.checked_add(bytes))
            .ok_or(Error::BadEncoding)?;
        memory.check(memory_usage(num_filters, announced).ok_or(Error::BadEncoding)?)?;
        subs.push((buckets, input.bytes()?));
    }
    CuckooFilter::from_saved(header, subs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cf::{ItemHash, Params};
    use crate::core::le::LeReader;
    use crate::core::rdb::FieldWriter;
    use crate::core::testing::fields_of;
    use crate::core::EAGER;

    const DEFAULTS: LegacyDefaults = LegacyDefaults {
        bucket_size: 2,
        max_iterations: 20,
        expansion: 1,
    };

    fn filled(items: u32, expansion: u16) -> CuckooFilter {
        let params = Params {
            capacity: 8,
            bucket_size: 2,
            max_iterations: 20,
            expansion,
        };
        let mut f = CuckooFilter::new(params, &EAGER).unwrap();
        for i in 0..items {
            f.insert(&ItemHash::of(&i.to_le_bytes()), &EAGER).unwrap();
        }
        for i in 0..items / 10 {
            f.delete(&ItemHash::of(&i.to_le_bytes()));
        }
        f
    }

    fn saved(f: &CuckooFilter) -> Vec<u8> {
        fields_of(|out| save(f, out))
    }

    #[test]
    fn round_trips_with_several_sub_filters() {
        for expansion in [0, 1, 2, 4] {
            let f = filled(if expansion == 0 { 6 } else { 120 }, expansion);
            let loaded = load(
                &mut LeReader(&saved(&f)),
                ENCODING_VERSION,
                DEFAULTS,
                &EAGER,
            )
            .unwrap();
            assert_eq!(loaded, f);
        }
    }

    #[test]
    fn the_verified_dump_fields() {
        // CF.RESERVE d1 4 EXPANSION 0, CF.ADD d1 1, CF.ADD d1 2 (RedisBloom 2.8.2's DUMP).
        let params = Params {
            capacity: 4,
            bucket_size: 2,
            max_iterations: 20,
            expansion: 0,
        };
        let mut f = CuckooFilter::new(params, &EAGER).unwrap();
        f.insert(&ItemHash::of(b"1"), &EAGER).unwrap();
        f.insert(&ItemHash::of(b"2"), &EAGER).unwrap();
        let mut expected = FieldWriter::default();
        for n in [1, 2, 2, 0, 2, 20, 0, 2] {
            expected.unsigned(n);
        }
        expected.bytes(&[0xdd, 0x00, 0x65, 0x00]);
        assert_eq!(saved(&f), expected.0);
    }

    #[test]
    fn legacy_versions_take_the_defaults() {
        let mut old = FieldWriter::default();
        for n in [2, 4, 3] {
            old.unsigned(n);
        }
        old.bytes(&[0, 7, 0, 0, 0, 0, 0, 0]);
        old.bytes(&[1, 0, 0, 0, 0, 0, 9, 0]);
        for encver in [1, 2, 3] {
            let f = load(&mut LeReader(&old.0), encver, DEFAULTS, &EAGER).unwrap();
            assert_eq!((f.num_filters(), f.items(), f.deletes()), (2, 3, 0));
            assert_eq!(
                (f.bucket_size(), f.max_iterations(), f.expansion()),
                (2, 20, 1)
            );
            assert!(f.sub_filters().all(|(buckets, _)| buckets == 4));
        }
        let rounded = LegacyDefaults {
            expansion: 3,
            ..DEFAULTS
        };
        assert_eq!(
            load(&mut LeReader(&old.0), 3, rounded, &EAGER)
                .unwrap()
                .expansion(),
            4
        );
        // 2-slot buffers do not fit another configured bucket size.
        let wide = LegacyDefaults {
            bucket_size: 4,
            ..DEFAULTS
        };
        assert_eq!(
            load(&mut LeReader(&old.0), 3, wide, &EAGER),
            Err(Error::BadEncoding)
        );
        // Version 4 reads more fields than a legacy value has.
        assert!(load(&mut LeReader(&old.0), 4, DEFAULTS, &EAGER).is_err());
    }

    #[test]
    fn unknown_versions_are_refused() {
        let fields = saved(&filled(10, 1));
        for encver in [-1, 0, 5, 1000] {
            assert_eq!(
                load(&mut LeReader(&fields), encver, DEFAULTS, &EAGER),
                Err(Error::BadEncoding)
            );
        }
    }

    #[test]
    fn zero_sub_filters_or_buckets_are_refused() {
        // RedisBloom's test_rdb_load_zero_numfilters: numFilters 0.
        for (filters, buckets) in [(0, 8), (1, 0)] {
            let mut out = FieldWriter::default();
            for n in [filters, buckets, 1, 0, 1, 1, 1] {
                out.unsigned(n);
            }
            assert_eq!(
                load(&mut LeReader(&out.0), ENCODING_VERSION, DEFAULTS, &EAGER),
                Err(Error::BadEncoding)
            );
        }
    }

    #[test]
    fn every_truncation_and_byte_flip_loads_or_fails_without_panicking() {
        let fields = saved(&filled(60, 2));
        for len in 0..fields.len() {
            assert!(load(
                &mut LeReader(&fields[..len]),
                ENCODING_VERSION,
                DEFAULTS,
                &EAGER
            )
            .is_err());
        }
        for at in 0..fields.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut corrupt = fields.clone();
                corrupt[at] ^= flip;
                if let Ok(mut f) = load(&mut LeReader(&corrupt), ENCODING_VERSION, DEFAULTS, &EAGER)
                {
                    // Whatever loads answers, takes items and saves as it loaded.
                    assert_eq!(saved(&f), corrupt);
                    let h = ItemHash::of(b"probe");
                    f.contains(&h);
                    f.count(&h);
                    let _ = f.insert(&h, &EAGER);
                    f.delete(&h);
                    f.compact();
                }
            }
        }
    }

    #[test]
    fn a_payload_is_checked_against_the_bounds_before_its_buffers_are_read() {
        let f = filled(120, 2);
        let fields = saved(&f);
        let bounded = |limit| Memory { limit, ..EAGER };
        let exact = bounded(f.memory_usage());
        assert_eq!(
            load(&mut LeReader(&fields), ENCODING_VERSION, DEFAULTS, &exact).as_ref(),
            Ok(&f)
        );
        // One byte less: refused as the last sub-filter is announced, before its buffer
        // (here cut off) is read.
        let last = f.sub_filters().last().unwrap().1.len();
        let cut = &fields[..fields.len() - last - 4];
        let tight = bounded(f.memory_usage() - 1);
        assert_eq!(
            load(&mut LeReader(cut), ENCODING_VERSION, DEFAULTS, &tight),
            Err(Error::OverLimit)
        );
        // A header announcing a huge legacy value is refused before any buffer.
        let mut out = FieldWriter::default();
        for n in [65535, 1 << 40, 1] {
            out.unsigned(n);
        }
        let machine = Memory {
            available: 1 << 30,
            ..EAGER
        };
        assert_eq!(
            load(&mut LeReader(&out.0), 3, DEFAULTS, &machine),
            Err(Error::OutOfMemory)
        );
    }
}
