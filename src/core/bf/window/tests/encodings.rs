//! The encodings of window filters: RDB and SCANDUMP round trips, truncations, hostile input,
//! and headers the classic loaders refuse.

use super::{count_window, item, saved};
use crate::core::bf::encoding as bloom_encoding;
use crate::core::bf::window::encoding::{
    self, chunk_at, chunks, decode_header, encode_header, is_header, load_chunk,
};
use crate::core::bf::window::WindowFilter;
use crate::core::le::LeReader;
use crate::core::window::Window;
use crate::core::{Error, Memory, EAGER};

/// A count and a time filter with a few generations' worth of items, the ring turned.
pub(super) fn busy_filters() -> [WindowFilter; 2] {
    let mut count = count_window(0.01, 200);
    let mut time = WindowFilter::new(0.001, 200, Window::Time(500), &EAGER).unwrap();
    for n in 0..1500 {
        count.insert(&item(n % 900), 0);
        time.insert(&item(n % 900), 1_000_000 + n);
    }
    [count, time]
}

#[test]
fn rdb_round_trips_and_every_truncation_fails_cleanly() {
    for filter in busy_filters() {
        let fields = saved(&filter);
        let loaded = encoding::load(&mut LeReader(&fields), 0, &EAGER).unwrap();
        assert_eq!(loaded, filter);
        assert_eq!(saved(&loaded), fields);
        assert!(encoding::load(&mut LeReader(&fields), 1, &EAGER).is_err());
        for len in 0..fields.len() {
            assert!(encoding::load(&mut LeReader(&fields[..len]), 0, &EAGER).is_err());
        }
    }
}

#[test]
fn a_filter_of_several_rdb_strings_loads_into_one_array_told_dense_first() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    /// The length of the last array told dense (only this test tells this function).
    static TOLD: AtomicUsize = AtomicUsize::new(0);
    fn record(bytes: &[u8]) {
        assert!(
            bytes.iter().all(|&b| b == 0),
            "told dense after being written"
        );
        TOLD.store(bytes.len(), Ordering::Relaxed);
    }
    let memory = Memory {
        dense: record,
        ..EAGER
    };
    // About 20 MB of bits: two strings of the RDB.
    let mut filter = count_window(0.01, 8_000_000);
    for n in 0..1000 {
        filter.insert(&item(n), 0);
    }
    let fields = saved(&filter);
    let loaded = encoding::load(&mut LeReader(&fields), 0, &memory).unwrap();
    assert_eq!(loaded, filter);
    assert_eq!(TOLD.load(Ordering::Relaxed), filter.bits().len());
    assert!(filter.bits().len() > 16 << 20);
    // The stream cut short is refused, and so is a second string of the wrong length,
    // well formed: one byte too long, or split in two.
    for len in [fields.len() - 1, fields.len() - 4096] {
        assert!(encoding::load(&mut LeReader(&fields[..len]), 0, &memory).is_err());
    }
    assert!(filter.bits().len() < 32 << 20, "two strings");
    let second_len = filter.bits().len() - (16 << 20);
    let (head, second) = fields.split_at(fields.len() - second_len - 4);
    let string = |bytes: &[u8]| [&(bytes.len() as u32).to_le_bytes()[..], bytes].concat();
    let too_long = [head, &string(&[&second[4..], &[0]].concat())].concat();
    let (left, right) = second[4..].split_at(100);
    let split = [head, &string(left), &string(right)].concat();
    for stream in [too_long, split] {
        let refused = encoding::load(&mut LeReader(&stream), 0, &memory);
        assert_eq!(refused.err(), Some(Error::BadEncoding));
    }
    // A filter of one string is taken as read, and nobody is told.
    TOLD.store(0, Ordering::Relaxed);
    let small = &busy_filters()[0];
    let loaded = encoding::load(&mut LeReader(&saved(small)), 0, &memory).unwrap();
    assert_eq!(&loaded, small);
    assert_eq!(TOLD.load(Ordering::Relaxed), 0);
}

#[test]
fn hostile_rdb_streams_never_panic_nor_over_allocate() {
    fn small(len: usize) -> Option<Vec<u8>> {
        assert!(len < 1 << 20, "{len} bytes allocated");
        eager_small(len)
    }
    fn eager_small(len: usize) -> Option<Vec<u8>> {
        crate::core::eager_zeroed(len)
    }
    let memory = Memory {
        zeroed: small,
        available: 1 << 20,
        limit: 1 << 20,
        ..crate::core::EAGER
    };
    for filter in busy_filters() {
        let fields = saved(&filter);
        for at in 0..fields.len().min(400) {
            for flip in [0x01, 0x80, 0xff] {
                let mut corrupt = fields.clone();
                corrupt[at] ^= flip;
                if let Ok(loaded) = encoding::load(&mut LeReader(&corrupt), 0, &memory) {
                    // Whatever loads answers, takes writes and saves as it loaded.
                    assert_eq!(saved(&loaded), corrupt);
                    let mut loaded = loaded;
                    loaded.contains(b"probe", u64::MAX);
                    loaded.insert(b"probe", u64::MAX);
                    loaded.card(0);
                }
            }
        }
    }
    // Pseudo-random streams, and huge sizes in otherwise plausible fields.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..2000 {
        let stream: Vec<u8> = (0..300)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                (state >> 59) as u8
            })
            .collect();
        let _ = encoding::load(&mut LeReader(&stream), 0, &memory);
        let _ = decode_header(&stream, &memory);
    }
    let mut huge = saved(&busy_filters()[0]);
    let slice_bits_at = 8 * 8; // after kind, timespan, capacity, error, k, l, slots, generation
    huge[slice_bits_at..slice_bits_at + 8].copy_from_slice(&(1u64 << 50).to_le_bytes());
    let refused = encoding::load(&mut LeReader(&huge), 0, &memory);
    assert_eq!(refused.err(), Some(Error::OverLimit));
}

#[test]
fn scandump_round_trips_and_classic_loaders_refuse_the_header() {
    for filter in busy_filters() {
        let header = encode_header(&filter);
        assert!(is_header(&header));
        let mut copy = decode_header(&header, &EAGER).unwrap();
        let mut end = 1;
        for (next, data) in chunks(&filter) {
            load_chunk(&mut copy, next, data).unwrap();
            end = next;
        }
        assert_eq!(copy, filter);
        assert_eq!(chunk_at(&filter, 0), None);
        assert_eq!(chunk_at(&filter, end), None);
        // RedisBloom's layout reads nfilters = 0 at bytes 8..12 and expects exactly 20 bytes.
        assert_eq!(&header[8..12], &[0, 0, 0, 0]);
        assert_ne!(header.len(), 20);
        assert!(bloom_encoding::decode_header(&header, &EAGER).is_err());
        for len in 0..header.len() {
            assert!(decode_header(&header[..len], &EAGER).is_err());
        }
        let mut longer = header.clone();
        longer.push(0);
        assert!(decode_header(&longer, &EAGER).is_err());
    }
}

#[test]
fn bad_chunks_get_the_classic_errors() {
    let [mut filter, _] = busy_filters();
    let total = filter.bits().len() as i64;
    assert_eq!(load_chunk(&mut filter, 0, b""), Err(Error::BadEncoding));
    assert_eq!(load_chunk(&mut filter, 3, b"abcd"), Err(Error::BadEncoding));
    assert_eq!(
        load_chunk(&mut filter, 4, b"abcd"),
        Err(Error::NoLinkAtOffset)
    );
    let past = total + 10;
    assert_eq!(
        load_chunk(&mut filter, past, b"ab"),
        Err(Error::NoLinkAtOffset)
    );
    assert_eq!(
        load_chunk(&mut filter, total + 2, b"ab"),
        Err(Error::ChunkTooBig)
    );
    assert_eq!(load_chunk(&mut filter, total + 1, b"ab"), Ok(()));
}
