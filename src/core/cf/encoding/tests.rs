//! The SCANDUMP stream's tests: RedisBloom's walks, hostile headers and chunks.

use super::*;
use crate::core::cf::tests::{bounded, filter};
use crate::core::cf::ItemHash;
use crate::core::{eager_zeroed, Memory, Zeroed, EAGER};

/// Memory as a server's would be, with 1 GiB for the filter.
fn limited(zeroed: Zeroed) -> Memory {
    Memory {
        zeroed,
        available: 1 << 30,
        ..EAGER
    }
}

fn with_items(mut f: CuckooFilter, items: u32) -> CuckooFilter {
    for i in 0..items {
        f.insert(&ItemHash::of(&i.to_le_bytes()), &EAGER).unwrap();
    }
    f
}

/// A copy of `f` through its SCANDUMP stream.
fn round_trip(f: &CuckooFilter) -> CuckooFilter {
    let mut copy = decode_header(&encode_header(f), 255, &limited(eager_zeroed)).unwrap();
    for (next, data) in chunks(f) {
        load_chunk(&mut copy, next, data).unwrap();
    }
    copy
}

fn header(
    items: u64,
    buckets: u64,
    deletes: u64,
    filters: u64,
    bucket_size: u16,
    iterations: u16,
    expansion: u16,
) -> Vec<u8> {
    let mut out = Vec::new();
    for v in [items, buckets, deletes, filters] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in [bucket_size, iterations, expansion] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

#[test]
fn header_of_the_worked_example() {
    // CF.RESERVE cf 8, CF.ADD cf item1 (verified on RedisBloom 2.8.2).
    let mut f = filter(8, 2, 20, 1);
    f.insert(&ItemHash::of(b"item1"), &EAGER).unwrap();
    let expected: [u8; 38] = [
        1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 2, 0, 20, 0, 1, 0,
    ];
    assert_eq!(encode_header(&f), expected);
    assert_eq!(scandump(&f, 0), Dump::Header(expected));
    let chunk = [0, 0, 0, 0, 7, 0, 0, 0];
    assert_eq!(
        scandump(&f, 1),
        Dump::Chunk {
            next: 9,
            data: &chunk
        }
    );
    assert_eq!(scandump(&f, 9), Dump::End);
    assert_eq!(round_trip(&f), f);
}

#[test]
fn an_empty_filter_dumps_nothing_at_any_cursor() {
    let f = filter(1000, 2, 20, 1);
    for cursor in [0, 1, 2, 1024, i64::MAX, -1] {
        assert_eq!(scandump(&f, cursor), Dump::End);
    }
    // The AOF walk does not skip it: one zero chunk.
    let walk: Vec<_> = chunks(&f).collect();
    assert_eq!(walk, vec![(1025, &[0u8; 1024][..])]);
}

#[test]
fn any_cursor_inside_a_small_sub_filter_returns_all_of_it() {
    // CF.RESERVE k 4 BUCKETSIZE 2 EXPANSION 0 holds 2 buckets × 2 = 4 bytes.
    let f = with_items(filter(4, 2, 20, 0), 1);
    let all = f.sub_filters().next().unwrap().1;
    for cursor in 1..=4 {
        assert_eq!(chunk_at(&f, cursor), Some((cursor + 4, all)));
    }
    assert_eq!(chunk_at(&f, 5), None);
    assert_eq!(chunk_at(&f, 0), None);
    assert_eq!(chunk_at(&f, i64::MIN), None);
    assert_eq!(chunk_at(&f, i64::MAX), None);
}

#[test]
fn a_big_sub_filter_comes_in_16_mib_pieces() {
    // 2^25 buckets × 2 = 64 MiB: cursors 1 → 16777217 → 33554433 → 50331649 → 67108865,
    // once every piece holds a fingerprint.
    let mut f = with_items(filter(1 << 26, 2, 20, 1), 3);
    let mib16 = 16 << 20;
    for piece in 0..4 {
        load_chunk(&mut f, piece * mib16 as i64 + 2, &[7]).unwrap();
    }
    let walk: Vec<_> = chunks(&f).map(|(next, data)| (next, data.len())).collect();
    assert_eq!(
        walk,
        vec![
            (16_777_217, mib16),
            (33_554_433, mib16),
            (50_331_649, mib16),
            (67_108_865, mib16)
        ]
    );
    // Cursor 5: 16 MiB from offset 4.
    let (next, data) = chunk_at(&f, 5).unwrap();
    assert_eq!((next, data.len()), (16_777_221, mib16));
    // Near the end: what is left.
    let (next, data) = chunk_at(&f, 67_108_860).unwrap();
    assert_eq!((next, data.len()), (67_108_865, 5));
    assert_eq!(round_trip(&f), f);
}

#[test]
fn pieces_holding_only_zeros_are_skipped() {
    // Three items in 64 MiB: at most three pieces hold a fingerprint; the walk sends those
    // on RedisBloom's grid of cursors, and they rebuild the filter.
    let mut f = with_items(filter(1 << 26, 2, 20, 1), 3);
    let mib16 = 16 << 20;
    let walk = |f: &CuckooFilter| -> Vec<(i64, Vec<u8>)> {
        chunks(f)
            .map(|(next, data)| (next, data.to_vec()))
            .collect()
    };
    let sent = walk(&f);
    assert!((1..=3).contains(&sent.len()), "{}", sent.len());
    for (next, data) in &sent {
        assert_eq!((next - 1) % mib16 as i64, 0);
        assert!(data.iter().any(|&b| b != 0));
    }
    let first = chunk_at(&f, 1).map(|(next, data)| (next, data.to_vec()));
    assert_eq!(first.as_ref(), sent.first());
    assert_eq!(round_trip(&f), f);
    // A piece written and emptied again is skipped too: what is sent depends on the bytes.
    let empty = (1..=4)
        .map(|piece| piece * mib16 as i64 + 1)
        .find(|next| sent.iter().all(|(sent, _)| sent != next))
        .unwrap();
    load_chunk(&mut f, empty - 1, &[9]).unwrap();
    assert_eq!(walk(&f).len(), sent.len() + 1);
    load_chunk(&mut f, empty - 1, &[0]).unwrap();
    assert_eq!(walk(&f), sent);
    // Sub-filters under 64 KiB are sent even when empty, as RedisBloom sends them.
    let small = filter(1024, 2, 20, 1);
    assert_eq!(chunks(&small).count(), 1);
}

#[test]
fn chunks_never_span_sub_filters() {
    let f = with_items(filter(8, 2, 20, 2), 200);
    assert!(f.num_filters() >= 3);
    let sizes: Vec<usize> = f.sub_filters().map(|(_, d)| d.len()).collect();
    let walk: Vec<usize> = chunks(&f).map(|(_, d)| d.len()).collect();
    assert_eq!(walk, sizes);
    // The one-pass walk is the cursor walk SCANDUMP does.
    let mut cursor = 1;
    let by_cursor = std::iter::from_fn(|| {
        let (next, data) = chunk_at(&f, cursor)?;
        cursor = next;
        Some((next, data))
    });
    assert!(chunks(&f).eq(by_cursor));
    let copy = round_trip(&f);
    assert_eq!(copy, f);
}

#[test]
fn bad_chunks_are_refused() {
    let mut f = with_items(filter(4, 2, 20, 0), 1);
    let before = f.try_clone(&EAGER).unwrap();
    for (cursor, data, error) in [
        (0, &b"ab"[..], Error::BadEncoding),
        (5, b"", Error::BadEncoding),
        (-1, b"ab", Error::BadEncoding),
        (i64::MIN, b"ab", Error::BadEncoding),
        (2, b"ab", Error::BadEncoding),
        (1, b"a", Error::BadEncoding),
        // RedisBloom writes "LOADCHUNK k 9 abcd" over bytes 0–3 of the last sub-filter.
        (9, b"abcd", Error::NoLinkAtOffset),
        (i64::MAX, b"abcd", Error::NoLinkAtOffset),
        (922_337_203_685_477_588, b"abcd", Error::NoLinkAtOffset),
        (6, b"abcd", Error::ChunkTooBig),
        (7, b"abcde", Error::ChunkTooBig),
    ] {
        assert_eq!(load_chunk(&mut f, cursor, data), Err(error), "{cursor}");
    }
    assert_eq!(f, before);
    load_chunk(&mut f, 5, b"abcd").unwrap();
    load_chunk(&mut f, 4, b"Z").unwrap();
    assert_eq!(f.sub_filters().next().unwrap().1, b"abZd");
    // The item count is not reconciled.
    assert_eq!(f.items(), 1);
}

#[test]
fn hostile_headers_are_refused() {
    let ok = header(1, 4, 0, 1, 2, 20, 1);
    assert!(decode_header(&ok, 255, &limited(eager_zeroed)).is_ok());
    for (bad, why) in [
        (header(1, 0, 0, 1, 2, 20, 1), "no buckets"),
        (header(1, 3, 0, 1, 2, 20, 1), "not a power of two"),
        (header(1, 1 << 56, 0, 1, 2, 20, 1), "2^56 buckets"),
        (header(1, u64::MAX, 0, 1, 2, 20, 1), "2^64 - 1 buckets"),
        (header(1, 4, 0, 0, 2, 20, 1), "no sub-filters"),
        (header(1, 4, 0, 65536, 2, 20, 1), "65536 sub-filters"),
        (
            header(1, 4, 0, 65537, 2, 20, 1),
            "65537 sub-filters (RedisBloom: 1)",
        ),
        (header(1, 4, 0, u64::MAX, 2, 20, 1), "2^64 - 1 sub-filters"),
        (header(1, 4, 0, 1, 0, 20, 1), "bucket size 0"),
        (header(1, 4, 0, 1, 256, 20, 1), "bucket size 256"),
        (header(1, 4, 0, 1, 2, 0, 1), "no iterations"),
        (header(1, 4, 0, 1, 2, 20, 32769), "expansion 32769"),
        (
            header(1, 4, 0, 2, 2, 20, 0),
            "expansion 0 with 2 sub-filters",
        ),
        (
            header(1, 1 << 55, 0, 2, 2, 20, 2),
            "sub-filter 1 of 2^56 buckets",
        ),
        (
            header(1, 1 << 40, 0, 3, 255, 20, 32768),
            "sub-filter 2 of 2^70",
        ),
    ] {
        assert_eq!(
            decode_header(&bad, 255, &limited(eager_zeroed)).err(),
            Some(Error::BadEncoding),
            "{why}"
        );
    }
    // test_scandump_invalid_header: bytes 0–8 zeroed (numBuckets 4 becomes 0).
    let mut zeroed_start = ok.clone();
    zeroed_start[..9].fill(0);
    assert!(decode_header(&zeroed_start, 255, &limited(eager_zeroed)).is_err());
    // A 46-byte header of RedisBloom before 2.2.15 (with a heap pointer), and 37 bytes.
    let mut old = ok.clone();
    old.extend_from_slice(&[0; 8]);
    assert!(decode_header(&old, 255, &limited(eager_zeroed)).is_err());
    assert!(decode_header(&ok[..37], 255, &limited(eager_zeroed)).is_err());
    // The bucket-size maximum follows the configuration.
    assert!(decode_header(&ok, 1, &limited(eager_zeroed)).is_err());
    assert!(decode_header(
        &header(1, 4, 0, 1, 255, 20, 1),
        u16::MAX,
        &limited(eager_zeroed)
    )
    .is_ok());
    assert!(decode_header(
        &header(1, 4, 0, 1, 256, 20, 1),
        u16::MAX,
        &limited(eager_zeroed)
    )
    .is_err());
}

#[test]
fn huge_headers_are_refused_before_allocating() {
    // test_scandump_invalid_header_alloc: 2^48 buckets.
    let h = header(1, 1 << 48, 0, 1, 1, 1, 1);
    assert_eq!(
        decode_header(&h, 255, &limited(bounded)).err(),
        Some(Error::OutOfMemory)
    );
    assert_eq!(
        decode_header(
            &h,
            255,
            &Memory {
                zeroed: bounded,
                ..EAGER
            }
        )
        .err(),
        Some(Error::OutOfMemory)
    );
    // Each sub-filter small, all of them together not: 65535 × 2^30 bytes.
    fn never(_: usize) -> Option<Vec<u8>> {
        panic!("allocated for a header over the limit")
    }
    let many = header(1, 1 << 30, 0, 65535, 1, 1, 1);
    assert_eq!(
        decode_header(&many, 255, &limited(never)).err(),
        Some(Error::OutOfMemory)
    );
    // Sizes that overflow the cursor space are refused whatever the limit.
    let overflow = header(1, 1 << 55, 0, 300, 255, 1, 1);
    assert_eq!(
        decode_header(
            &overflow,
            255,
            &Memory {
                zeroed: never,
                ..EAGER
            }
        )
        .err(),
        Some(Error::BadEncoding)
    );
    // Non-power-of-two expansion: 4, 12, 36 buckets.
    let three = decode_header(&header(1, 4, 0, 3, 1, 1, 3), 255, &limited(bounded)).unwrap();
    let sizes: Vec<u64> = three.sub_filters().map(|(n, _)| n).collect();
    assert_eq!(sizes, vec![4, 12, 36]);
}

#[test]
fn every_truncation_and_bit_flip_of_a_header_decodes_without_panicking() {
    let f = with_items(filter(64, 4, 20, 2), 500);
    let h = encode_header(&f);
    for len in 0..h.len() {
        assert!(decode_header(&h[..len], 255, &limited(bounded)).is_err());
    }
    for byte in 0..h.len() {
        for bit in 0..8 {
            let mut corrupt = h;
            corrupt[byte] ^= 1 << bit;
            if let Ok(g) = decode_header(&corrupt, 255, &limited(bounded)) {
                // Whatever was accepted is self-consistent and walkable.
                assert_eq!(round_trip(&g), g);
            }
        }
    }
}

#[test]
fn a_2_pow_32_bucket_header_is_one_request_to_the_allocator() {
    // test_number_of_buckets_does_not_overflow's header: numBuckets 2^32, bucket size 1,
    // one iteration, expansion 1. It passes validation and asks `zeroed` for its 4 GiB in
    // one piece, which the server's allocator maps lazily; this fake only counts.
    use std::cell::RefCell;
    thread_local! {
        static REQUESTS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    }
    fn counting(len: usize) -> Option<Vec<u8>> {
        REQUESTS.with(|r| r.borrow_mut().push(len));
        bounded(len)
    }
    let counted = Memory {
        zeroed: counting,
        ..EAGER
    };
    let h = header(0, 1 << 32, 0, 1, 1, 1, 1);
    assert_eq!(
        decode_header(&h, 255, &counted).err(),
        Some(Error::OutOfMemory)
    );
    assert_eq!(REQUESTS.with(|r| r.take()), vec![1 << 32]);
    // Three such sub-filters: the first refusal ends it.
    let h = header(0, 1 << 32, 0, 3, 1, 1, 1);
    assert_eq!(
        decode_header(&h, 255, &counted).err(),
        Some(Error::OutOfMemory)
    );
    assert_eq!(REQUESTS.with(|r| r.take()), vec![1 << 32]);
    // The same shape, small enough for the fake: created, and inserts work.
    let h = header(0, 1 << 16, 0, 3, 1, 1, 1);
    let mut f = decode_header(&h, 255, &counted).unwrap();
    assert_eq!(REQUESTS.with(|r| r.take()), vec![1 << 16; 3]);
    let item = ItemHash::of(b"x");
    for _ in 0..10 {
        f.insert(&item, &counted).unwrap();
    }
    assert_eq!((f.items(), f.count(&item)), (10, 10));
}

#[test]
#[ignore = "maps 20 GiB of lazily zeroed memory: needs a machine that overcommits"]
fn a_2_pow_32_bucket_header_costs_nothing_until_touched() {
    // test_number_of_buckets_does_not_overflow itself: the header, then ten identical
    // inserts. `vec![0; n]` comes from calloc, which maps fresh pages for big blocks, as
    // the server's allocator does: the gigabytes must not become resident.
    fn lazy(len: usize) -> Option<Vec<u8>> {
        Some(vec![0; len])
    }
    let before = resident_bytes();
    let mut f = decode_header(
        &header(0, 1 << 32, 0, 1, 1, 1, 1),
        255,
        &Memory {
            zeroed: lazy,
            ..EAGER
        },
    )
    .unwrap();
    let h = ItemHash::of(b"x");
    for _ in 0..10 {
        f.insert(
            &h,
            &Memory {
                zeroed: lazy,
                ..EAGER
            },
        )
        .unwrap();
    }
    // Two copies per sub-filter (its two buckets), so it grew to five of 2^32 buckets.
    assert_eq!((f.items(), f.count(&h), f.num_filters()), (10, 10, 5));
    let grown = resident_bytes().saturating_sub(before);
    assert!(grown < 1 << 30, "{grown} bytes became resident");
    assert_eq!(f.memory_usage(), 40 + 16 * 5 + 5 * (1 << 32));
}

/// Resident set size of this process (Linux), or 0 where unknown.
fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}
