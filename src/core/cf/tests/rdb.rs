//! Saved values: the fields of a DUMP RedisBloom 2.8.2 gave, the geometry a loaded value
//! must have, and what values of the legacy encodings load as.

use super::params;
use crate::core::cf::{CuckooFilter, ItemHash, SavedHeader};
use crate::core::{Error, EAGER};

#[test]
fn rdb_fields_of_the_verified_dump() {
    // CF.RESERVE d1 4 EXPANSION 0; CF.ADD d1 1; CF.ADD d1 2. DUMP carries, as SaveUnsigned:
    // 1 filter, 2 buckets, 2 items, 0 deletes, bucket size 2, 20 iterations, expansion 0,
    // then 2 buckets and the string DD 00 65 00.
    let mut f = CuckooFilter::new(params(4, 2, 20, 0), &EAGER).unwrap();
    f.insert(&ItemHash::of(b"1"), &EAGER).unwrap();
    f.insert(&ItemHash::of(b"2"), &EAGER).unwrap();
    let header = f.saved_header();
    assert_eq!(
        header,
        SavedHeader {
            num_filters: 1,
            num_buckets: 2,
            items: 2,
            deletes: 0,
            bucket_size: 2,
            max_iterations: 20,
            expansion: 0,
        }
    );
    let subs: Vec<(u64, Vec<u8>)> = f.sub_filters().map(|(n, d)| (n, d.to_vec())).collect();
    assert_eq!(subs, vec![(2, vec![0xdd, 0x00, 0x65, 0x00])]);
    assert_eq!(CuckooFilter::from_saved(header, subs).unwrap(), f);
}

#[test]
fn rdb_loading_refuses_inconsistent_geometry() {
    let good = SavedHeader {
        num_filters: 2,
        num_buckets: 4,
        items: 3,
        deletes: 1,
        bucket_size: 2,
        max_iterations: 20,
        expansion: 2,
    };
    let subs = || vec![(4, vec![0; 8]), (8, vec![0; 16])];
    assert!(CuckooFilter::from_saved(good, subs()).is_ok());
    type Saved = Vec<(u64, Vec<u8>)>;
    let cases: Vec<(SavedHeader, Saved, &str)> = vec![
        (
            SavedHeader {
                num_filters: 0,
                ..good
            },
            vec![],
            "no sub-filters",
        ),
        (
            SavedHeader {
                num_filters: 65536,
                ..good
            },
            subs(),
            "65536 sub-filters",
        ),
        (
            SavedHeader {
                num_filters: 3,
                ..good
            },
            subs(),
            "fewer sub-filters than said",
        ),
        (
            SavedHeader {
                num_filters: 1,
                ..good
            },
            subs(),
            "more sub-filters than said",
        ),
        (
            SavedHeader {
                num_buckets: 0,
                ..good
            },
            subs(),
            "no base buckets",
        ),
        (
            SavedHeader {
                num_buckets: 1 << 56,
                ..good
            },
            subs(),
            "2^56 base buckets",
        ),
        (
            SavedHeader {
                bucket_size: 0,
                ..good
            },
            subs(),
            "bucket size 0",
        ),
        (
            SavedHeader {
                bucket_size: 256,
                ..good
            },
            subs(),
            "bucket size 256",
        ),
        (
            SavedHeader {
                bucket_size: 1,
                ..good
            },
            subs(),
            "bucket size disagrees",
        ),
        (
            SavedHeader {
                max_iterations: 65536,
                ..good
            },
            subs(),
            "iterations past 16 bits",
        ),
        (
            SavedHeader {
                expansion: 65536,
                ..good
            },
            subs(),
            "expansion past 16 bits",
        ),
        (
            good,
            vec![(4, vec![0; 8]), (0, vec![])],
            "an empty sub-filter",
        ),
        (
            good,
            vec![(4, vec![0; 8]), (8, vec![0; 15])],
            "a short buffer",
        ),
        (
            good,
            vec![(4, vec![0; 8]), (8, vec![0; 17])],
            "a long buffer",
        ),
        (
            good,
            vec![(4, vec![0; 8]), (1 << 56, vec![])],
            "2^56 buckets",
        ),
        (
            good,
            vec![(4, vec![0; 8]), (u64::MAX, vec![0; 2])],
            "overflowing size",
        ),
    ];
    for (header, subs, why) in cases {
        assert_eq!(
            CuckooFilter::from_saved(header, subs).err(),
            Some(Error::BadEncoding),
            "{why}"
        );
    }
    // Accepted as RedisBloom accepts them, and usable: zero iterations, a 3-bucket
    // sub-filter, expansion 0 with two sub-filters, numbers that disagree with the bytes.
    let odd = SavedHeader {
        num_filters: 2,
        num_buckets: 3,
        items: 99,
        deletes: 7,
        bucket_size: 1,
        max_iterations: 0,
        expansion: 0,
    };
    let mut f = CuckooFilter::from_saved(odd, vec![(3, vec![0; 3]), (5, vec![0; 5])]).unwrap();
    let mut full = false;
    for i in 0..20u32 {
        let h = ItemHash::of(&i.to_le_bytes());
        match f.insert(&h, &EAGER) {
            Ok(()) => assert!(f.contains(&h)),
            Err(e) => {
                assert_eq!(e, Error::Full);
                full = true;
            }
        }
    }
    assert!(full && f.num_filters() == 2);
}

#[test]
fn legacy_values_load_with_defaults() {
    // Encoding version 1/3: numFilters, numBuckets, numItems, then buffers of numBuckets × 2.
    let header = SavedHeader::legacy(2, 4, 3, 2, 20, 1);
    assert_eq!(
        header,
        SavedHeader {
            num_filters: 2,
            num_buckets: 4,
            items: 3,
            deletes: 0,
            bucket_size: 2,
            max_iterations: 20,
            expansion: 1,
        }
    );
    let buffers = vec![vec![0, 7, 0, 0, 0, 0, 0, 0], vec![1, 0, 0, 0, 0, 0, 9, 0]];
    let subs: Vec<_> = buffers
        .iter()
        .map(|b| (header.num_buckets, b.clone()))
        .collect();
    let f = CuckooFilter::from_saved(header, subs).unwrap();
    assert_eq!((f.num_filters(), f.deletes(), f.items()), (2, 0, 3));
    assert_eq!(SavedHeader::legacy(1, 4, 0, 2, 20, 3).expansion, 4);
    // With a configured bucket size of 4 the 2-slot buffers do not fit: refused, where
    // RedisBloom 8 aborts.
    let wide = SavedHeader::legacy(2, 4, 3, 4, 20, 1);
    let subs: Vec<_> = buffers.into_iter().map(|b| (4, b)).collect();
    assert_eq!(
        CuckooFilter::from_saved(wide, subs).err(),
        Some(Error::BadEncoding)
    );
}
